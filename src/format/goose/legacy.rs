//! Goose's legacy sessions: one JSONL file per session in the sessions
//! folder (`<YYYYMMDD_HHMMSS>.jsonl`, or the name given to the session),
//! whose first line is the session's metadata and every other line a
//! message (module docs of [`super`]).

use std::path::{Path, PathBuf};

use super::FORMAT;
use crate::diag::Diag;
use crate::format::{Detail, FileSessions};
use crate::json::Record;
use crate::session::SessionRecord;
use crate::time::{self, Timestamp};

/// Whether a record is a legacy metadata line: an object with a
/// `working_dir` and a `message_count` or `accumulated_total_tokens`, and
/// none of the keys of a message, an event or a session record (`role`,
/// `type`, `event`, `session`).
pub fn is_metadata(rec: &Record<'_>) -> bool {
    let has = |k: &str| rec.get(k).is_some();
    let other = ["role", "type", "event", "session"].iter().any(|k| has(k));
    !other && has("working_dir") && (has("message_count") || has("accumulated_total_tokens"))
}

/// Whether a record is a legacy message line: `role`, `content` and
/// `created`, and no `type` or `event`.
pub fn is_message(rec: &Record<'_>) -> bool {
    let has = |k: &str| rec.get(k).is_some();
    !has("type") && !has("event") && has("role") && has("content") && has("created")
}

/// A message line's time (`created`, Unix seconds).
fn line_time(rec: &Record<'_>) -> Option<Timestamp> {
    rec.get("created").and_then(crate::format::kimi::parse_time)
}

/// What discovery reads off a legacy file's first lines.
#[derive(Debug, Default)]
struct Head {
    metadata: bool,
    working_dir: Option<String>,
    first: Option<Timestamp>,
    last: Option<Timestamp>,
}

/// Reads a legacy file's first lines (at most 16, starting within 1 MiB).
fn head(file: &Path) -> Head {
    let mut h = Head::default();
    let mut first = true;
    crate::format::head_records(file, 16, 1 << 20, |rec| {
        let Some(rec) = rec else { return !first };
        if std::mem::take(&mut first) {
            h.metadata = is_metadata(rec);
            h.working_dir = rec.get_str("working_dir").map(|d| d.into_owned()).filter(|d| !d.trim().is_empty());
            return h.metadata;
        }
        let t = line_time(rec);
        h.first = time::earliest(h.first, t);
        h.last = h.last.max(t);
        true
    });
    h
}

/// Whether `file` is a legacy session file: `*.jsonl` whose first line is
/// a metadata line.
pub fn is_session(file: &Path) -> bool {
    file.extension().is_some_and(|e| e == "jsonl") && head(file).metadata
}

/// The legacy session files directly in a sessions folder, by name.
fn root_files(root: &Path) -> Vec<PathBuf> {
    let files = crate::files::read_dir_sorted(root).unwrap_or_default();
    files.into_iter().filter(|f| f.is_file() && is_session(f)).collect()
}

/// The session record of a legacy file: id = its stem, `working_dir` =
/// the metadata's, times = its messages' `created`.
fn session_of(file: &Path, detail: Detail, diag: Option<&Diag>) -> Option<SessionRecord> {
    let (meta, path, session) = crate::format::file_session(file, diag)?;
    let h = head(file);
    if !h.metadata {
        return None;
    }
    let last = match detail {
        Detail::Full => {
            let tail = crate::format::last_time_by(file, meta.len(), line_time);
            tail.max(h.last)
        }
        Detail::Reading => None,
    };
    let project = h.working_dir.as_deref().map(crate::session::slug_of);
    Some(SessionRecord {
        project: project.clone(),
        workspace: project,
        working_dir: h.working_dir,
        started_at: h.first.map(time::format_timestamp),
        last_event_at: last.map(time::format_timestamp),
        bytes: meta.len(),
        seen: crate::session::Seen::of(&meta),
        mtime: meta.modified().ok().and_then(|t| Timestamp::try_from(t).ok()).map(time::format_timestamp),
        tags: Some(vec!["legacy".to_owned()]),
        ..SessionRecord::new(session, &FORMAT, path.to_owned())
    })
}

/// The legacy files' discovery ([`FileSessions`]).
pub const FILES: FileSessions = FileSessions { root_files, is_session, session_of };
