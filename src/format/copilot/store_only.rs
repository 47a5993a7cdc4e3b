//! Sessions only the store knows: a `session_id` with usage rows in the
//! home's `session-store.db` but no event log under `session-state/` (its
//! folder deleted, or not written). Each is a session of its own whose
//! events are its rows (`llm:response` each), so its tokens are counted;
//! its record's `path` is the store, and it is told from the other
//! sessions of that store by its id ([`is_store_path`]).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::{sessions::STATE, store, FORMAT};
use crate::session::{slug_of, SessionRecord};
use crate::time::{self, Timestamp};

/// Whether a record's `path` is a store (a session only the store knows).
pub(super) fn is_store_path(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == store::STORE)
}

/// The store of a root that is a Copilot home or its `session-state`
/// folder (a session's folder has none of its own).
fn store_of_root(root: &Path) -> Option<PathBuf> {
    let home = if root.join(STATE).is_dir() {
        root
    } else if crate::files::name_above(root, 0).is_some_and(|n| n == STATE) {
        root.parent()?
    } else {
        return None;
    };
    let db = home.join(store::STORE);
    crate::lines::rows::is_database(&db).then_some(db)
}

/// The sessions of the store of `root` that `found` (the sessions of its
/// event logs) does not have. A store that cannot be read adds none (it is
/// reported when the logs' sessions are read).
pub(super) fn sessions(root: &Path, found: &[SessionRecord], detail: super::Detail) -> Vec<SessionRecord> {
    let Some(db) = store_of_root(root) else { return Vec::new() };
    let Some(path) = db.to_str() else { return Vec::new() };
    let Ok(rows) = crate::lines::rows::open(&db).and_then(|conn| store::sessions(&conn)) else { return Vec::new() };
    let known: HashSet<&str> = found.iter().map(|r| r.session.as_str()).collect();
    let mtime = std::fs::metadata(&db).ok().and_then(|m| m.modified().ok()).and_then(|t| Timestamp::try_from(t).ok());
    let stamp = |t: Option<String>| t.as_deref().and_then(time::parse_timestamp).map(time::format_timestamp);
    let orphans = rows.into_iter().filter(|s| !known.contains(s.id.as_str()) && !crate::session::unsafe_name(&s.id));
    orphans
        .map(|s| {
            let project = s.cwd.as_deref().map(slug_of);
            SessionRecord {
                project: project.clone(),
                workspace: project,
                working_dir: s.cwd,
                started_at: stamp(s.first),
                last_event_at: match detail {
                    super::Detail::Full => stamp(s.last),
                    super::Detail::Reading => None,
                },
                mtime: mtime.map(time::format_timestamp),
                model: s.model,
                tags: Some(Vec::new()),
                ..SessionRecord::new(s.id, &FORMAT, path.to_owned())
            }
        })
        .collect()
}

/// How many rows a session only the store knows has.
pub(super) fn event_count(rec: &SessionRecord) -> u64 {
    let Ok(conn) = crate::lines::rows::open(Path::new(&rec.path)) else { return 0 };
    store::keys(&conn, &rec.session).map_or(0, |k| k.len() as u64)
}
