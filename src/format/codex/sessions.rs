//! Where a Codex home's rollouts are and what discovery reads of them: the
//! rollout files under a root, the id in a rollout's name, and a session's
//! record from the rollout's first and last lines.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use super::{forked_from, line_time, Detail, LineKind};
use crate::diag::Diag;
use crate::files::{read_dir_sorted, NOT_UTF8};
use crate::session::{slug_of, unsafe_name, SessionRecord};
use crate::time::{self, Timestamp};

/// `rollout-*.jsonl`, told by its bytes: a name that is not UTF-8 is still a
/// rollout's, reported when its session is made ([`session_of`]), not passed over.
pub(super) fn is_rollout_name(path: &Path) -> bool {
    path.file_name().map(|n| n.as_encoded_bytes()).is_some_and(|n| n.starts_with(b"rollout-") && n.ends_with(b".jsonl"))
}

/// The session id a file name carries: the UUID that ends its stem, else the stem.
pub(super) fn id_of_name(path: &Path) -> Option<String> {
    let stem = path.file_stem()?.to_str()?;
    let tail = stem.len().checked_sub(36).and_then(|at| stem.get(at..));
    let uuid = tail.filter(|t| {
        t.bytes()
            .enumerate()
            .all(|(i, b)| if matches!(i, 8 | 13 | 18 | 23) { b == b'-' } else { b.is_ascii_hexdigit() })
    });
    Some(uuid.unwrap_or(stem).to_owned())
}

/// The rollout files under `dir`, in path order, descending `depth` levels
/// into folders (only date folders, whose names are digits, unless `any`).
pub(super) fn rollouts(dir: &Path, depth: usize, any: bool, out: &mut Vec<PathBuf>) {
    for p in read_dir_sorted(dir).unwrap_or_default() {
        if p.is_dir() {
            let date = p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()));
            if depth > 0 && (any || date) {
                rollouts(&p, depth - 1, any, out);
            }
        } else if is_rollout_name(&p) {
            out.push(p);
        }
    }
}

/// The rollout files of a root, `sessions/` before `archived_sessions/`.
pub(super) fn root_files(root: &Path) -> Vec<PathBuf> {
    let mut files = vec![];
    let home: Vec<PathBuf> =
        ["sessions", "archived_sessions"].iter().map(|d| root.join(d)).filter(|d| d.is_dir()).collect();
    if home.is_empty() {
        let named = crate::files::name_above(root, 0).is_some_and(|n| n == "sessions" || n == "archived_sessions");
        rollouts(root, 3, named, &mut files);
    } else {
        for d in home {
            rollouts(&d, 3, true, &mut files);
        }
    }
    files
}

/// What discovery reads off a rollout's first lines.
#[derive(Debug, Default)]
struct Head {
    id: Option<String>,
    parent: Option<String>,
    cwd: Option<String>,
    model: Option<String>,
    started: Option<Timestamp>,
    tags: Vec<String>,
}

/// Reads a rollout's first lines (at most 64, starting within 8 MiB) for the session
/// meta and the first turn context.
fn head(file: &Path) -> Head {
    let mut h = Head::default();
    let mut meta = false;
    super::super::head_records(file, 64, 8 << 20, |rec| {
        let Some(rec) = rec else { return true };
        if h.parent.is_none() {
            // A fork's later lines are copies of its parent's.
            h.started = time::earliest(h.started, line_time(rec));
        }
        let s = |k: &str| rec.get_in("payload", k).and_then(|v| v.as_str()).map(Cow::into_owned);
        match rec.get_str("type").as_deref() {
            Some("session_meta") if !meta => {
                meta = true;
                h.id = s("id").filter(|i| !i.is_empty());
                h.parent = forked_from(rec);
                h.cwd = s("cwd");
                h.started = time::earliest(h.started, s("timestamp").as_deref().and_then(time::parse_timestamp));
                for (tag, key) in [("originator", "originator"), ("cli", "cli_version"), ("source", "source")] {
                    if let Some(v) = s(key) {
                        h.tags.push(format!("{tag}:{v}"));
                    }
                }
            }
            Some("turn_context") if h.model.is_none() => {
                h.model = s("model");
                if h.cwd.is_none() {
                    h.cwd = s("cwd");
                }
            }
            _ => {}
        }
        !(meta && h.model.is_some())
    });
    h.tags.sort();
    h
}

/// Whether a file's first non-blank line is a Codex line.
pub(super) fn first_line_is_rollout(file: &Path) -> bool {
    let mut found = false;
    super::super::head_records(file, 1, 8 << 20, |rec| {
        found = rec.is_some_and(|r| LineKind::of(r) == LineKind::Format(&super::FORMAT));
        false
    });
    found
}

/// The session record of a rollout file (module docs); [`Detail::Reading`]
/// leaves out its last timestamp (read off its end).
pub(super) fn session_of(file: &Path, detail: Detail, diag: Option<&Diag>) -> Option<SessionRecord> {
    let meta = crate::files::usable_or_reported(file, diag)?;
    let Some(path) = file.to_str() else {
        if let Some(d) = diag {
            d.error(&format_args!("{}: {NOT_UTF8}, skipped", file.display()));
        }
        return None;
    };
    let h = head(file);
    let session = h.id.clone().or_else(|| id_of_name(file))?;
    if unsafe_name(&session) {
        if let Some(d) = diag {
            d.error(&format_args!("{}: unsafe session id {session:?}, skipped", file.display()));
        }
        return None;
    }
    let slug = h.cwd.as_deref().map(slug_of);
    let last = if detail == Detail::Full { crate::format::last_time(file, meta.len()) } else { None };
    Some(SessionRecord {
        project: slug.clone(),
        workspace: slug,
        working_dir: h.cwd,
        started_at: h.started.map(time::format_timestamp),
        last_event_at: last.or(if detail == Detail::Full { h.started } else { None }).map(time::format_timestamp),
        bytes: meta.len(),
        seen: crate::session::Seen::of(&meta),
        mtime: meta.modified().ok().and_then(|t| Timestamp::try_from(t).ok()).map(time::format_timestamp),
        model: h.model,
        parent: h.parent,
        tags: Some(h.tags),
        ..SessionRecord::new(session, &super::FORMAT, path.to_owned())
    })
}
