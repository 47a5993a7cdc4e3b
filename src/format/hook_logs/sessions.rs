//! The session records of a hook-log folder: each session's parts in the
//! folder's arrays (their indexes, [`super::index_of`]) added up.

use std::collections::BTreeMap;
use std::path::Path;

use super::{index_of, Memo, Part};
use crate::diag::Diag;
use crate::files::NOT_UTF8;
use crate::session::{slug_of, SessionRecord};
use crate::time::{self, Timestamp};

/// What a session's parts in several files add up to.
#[derive(Default)]
struct Merged {
    files: Vec<String>,
    bytes: u64,
    mtime: Option<Timestamp>,
    cwd: Option<String>,
    model: Option<String>,
    ended: bool,
    events: u64,
    tags: std::collections::BTreeSet<String>,
    first: Option<Timestamp>,
    last: Option<Timestamp>,
}

/// The sessions of the arrays `names` of folder `dir` (reading order),
/// reporting each file's damage (once per run).
pub(super) fn records(dir: &Path, names: &[String], memo: &Memo, diag: Option<&Diag>) -> Vec<SessionRecord> {
    records_of(dir, names, memo, diag, None)
}

/// [`records`], of session `only` alone when given (looked up, so that a
/// folder of many sessions costs no more per session).
pub(super) fn records_of(
    dir: &Path,
    names: &[String],
    memo: &Memo,
    diag: Option<&Diag>,
    only: Option<&str>,
) -> Vec<SessionRecord> {
    let Some(dir_str) = dir.to_str() else {
        if let Some(d) = diag {
            d.error(&format_args!("{}: {NOT_UTF8}, skipped", dir.display()));
        }
        return vec![];
    };
    let mut merged: BTreeMap<String, Merged> = BTreeMap::new();
    for name in names {
        let path = dir.join(name);
        let mtime =
            std::fs::metadata(&path).ok().and_then(|m| m.modified().ok()).and_then(|t| Timestamp::try_from(t).ok());
        let ix = index_of(&path, memo);
        if let Some(d) = diag {
            ix.report(&path.to_string_lossy(), d);
        }
        let parts: Vec<(&String, &Part)> = match only {
            Some(id) => ix.sessions.get_key_value(id).into_iter().collect(),
            None => ix.sessions.iter().collect(),
        };
        for (sid, part) in parts {
            let m = merged.entry(sid.clone()).or_default();
            m.files.push(name.clone());
            m.bytes += part.bytes;
            m.mtime = m.mtime.max(mtime);
            m.cwd = m.cwd.take().or_else(|| part.scan.cwd.clone());
            m.model = m.model.take().or_else(|| part.scan.model.clone());
            m.ended |= part.scan.ended;
            m.events += part.scan.events;
            m.tags.extend(part.scan.tags.iter().cloned());
            m.first = time::earliest(m.first, part.first);
            m.last = m.last.max(part.last);
        }
    }
    merged
        .into_iter()
        .map(|(session, m)| {
            let slug = m.cwd.as_deref().map(slug_of);
            SessionRecord {
                project: slug.clone(),
                workspace: slug,
                status: Some(if m.ended { "ended" } else { "active" }.into()),
                started_at: m.first.map(time::format_timestamp),
                last_event_at: m.last.map(time::format_timestamp),
                working_dir: m.cwd,
                bytes: m.bytes,
                mtime: m.mtime.map(time::format_timestamp),
                model: m.model,
                files: Some(m.files),
                events: Some(m.events),
                tags: Some(m.tags.into_iter().collect()),
                ..SessionRecord::new(session, &super::FORMAT, dir_str.to_owned())
            }
        })
        .collect()
}
