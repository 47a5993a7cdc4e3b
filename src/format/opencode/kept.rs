//! A database's session rows kept across runs (discovery's part of a warm
//! run, `docs/cache.md`, "Databases"): kept in the run's peeks
//! ([`crate::format::Cx::kept`]) by the database's `stat`, with its `-wal`
//! file's `stat` in the entry's tag, so that a write that has not reached
//! the main file reads them again. Only a listing that reported nothing is
//! kept, and only while the `-wal` (when there is one) was last modified
//! two seconds or more ago (the peeks check that of the database).

use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::time::{Duration, SystemTime};

use serde_json::{json, Value};

use super::store::{self, SessionRow};
use crate::diag::Diag;
use crate::format::Cx;

/// How long after its last write a `-wal` is trusted to hold every commit
/// its `stat` shows (the capture cache's margin for any file).
const SETTLED: Duration = Duration::from_secs(2);

/// The session rows of the database `db` (`None`: not OpenCode's), as
/// [`crate::lines::rows::read_store`] reads them, kept in `cx`'s peeks.
pub(super) fn session_rows(db: &Path, cx: Option<&Cx<'_>>, diag: Option<&Diag>) -> Option<Vec<SessionRow>> {
    let read = || crate::lines::rows::read_store(db, diag, store::is_opencode, store::sessions);
    let (Some(cx), Ok(meta)) = (cx, std::fs::metadata(db)) else { return read() };
    let wal = std::fs::metadata(crate::lines::rows::wal_path(db)).ok();
    let recent = |m: &std::fs::Metadata| {
        m.modified().ok().and_then(|t| SystemTime::now().duration_since(t).ok()).is_none_or(|d| d < SETTLED)
    };
    if wal.as_ref().is_some_and(recent) {
        return read();
    }
    let wal = wal.map(|m| (m.dev(), m.ino(), m.len(), m.mtime(), m.mtime_nsec()));
    let tag = format!("opencode-sessions {wal:?}");
    let reports = crate::diag::reports_here();
    // A listing that reported something is read (and reported) again.
    // (An empty payload is no listing: read again.)
    let quiet = |rows: &Option<Vec<SessionRow>>| match crate::diag::reports_here() == reports {
        true => encode(rows),
        false => Vec::new(),
    };
    cx.kept(db, &meta, &tag, read, quiet, decode)
}

fn encode(rows: &Option<Vec<SessionRow>>) -> Vec<u8> {
    let row = |r: &SessionRow| {
        json!([r.id, r.parent, r.directory, r.version, r.created_ms, r.updated_ms, r.model, r.agent, r.bytes])
    };
    let v = rows.as_ref().map(|rows| rows.iter().map(row).collect::<Vec<_>>());
    serde_json::to_vec(&v).unwrap_or_default()
}

fn decode(bytes: &[u8]) -> Option<Option<Vec<SessionRow>>> {
    let v: Value = serde_json::from_slice(bytes).ok()?;
    if v.is_null() {
        return Some(None);
    }
    let text = |v: &Value| -> Option<Option<String>> {
        match v {
            Value::Null => Some(None),
            Value::String(s) => Some(Some(s.clone())),
            _ => None,
        }
    };
    let rows = v.as_array()?.iter().map(|r| {
        let r = r.as_array().filter(|r| r.len() == 9)?;
        Some(SessionRow {
            id: r[0].as_str()?.to_owned(),
            parent: text(&r[1])?,
            directory: text(&r[2])?,
            version: text(&r[3])?,
            created_ms: if r[4].is_null() { None } else { Some(r[4].as_i64()?) },
            updated_ms: if r[5].is_null() { None } else { Some(r[5].as_i64()?) },
            model: text(&r[6])?,
            agent: text(&r[7])?,
            bytes: r[8].as_u64()?,
        })
    });
    rows.collect::<Option<Vec<_>>>().map(Some)
}
