//! Watching capture roots for sessions that appear (`ci-find --follow`).
//!
//! Plain polling, every [`INTERVAL`] (1 s): each round lists the session
//! directories of every root — Amplifier `<root>/<project>/sessions/<id>`,
//! and the session directories of a Claude hooks root — and reads only the
//! ones not seen before (a round costs a few directory listings; known
//! sessions are not read again).
//!
//! A directory becomes a session, reported once, when its capture exists:
//! `context-intelligence/events.jsonl` for Amplifier (the marker rule of
//! discovery; a session whose `metadata.json` is written first is announced
//! when its `events.jsonl` appears, with the metadata there by then), a
//! `_claude_*.jsonl` event file for a hooks session. An unusable capture (a
//! FIFO, a dangling link, a path that is not UTF-8) is reported once, like
//! at discovery, and not retried. Each session is judged by the filters once,
//! as it first appears; sessions that disappear are not reported.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::diag::Diag;
use crate::discover::{self, Format, SessionRecord};

/// How often the roots are listed for new sessions.
pub const INTERVAL: Duration = Duration::from_secs(1);

/// The roots being watched, and the session directories seen so far.
pub struct Watch {
    roots: Vec<PathBuf>,
    seen: HashSet<PathBuf>,
}

impl Watch {
    /// Starts watching `roots`; the sessions of `known` (the first listing,
    /// before any filter) are not new.
    pub fn new(roots: &[PathBuf], known: &[SessionRecord]) -> Watch {
        Watch { roots: roots.to_vec(), seen: known.iter().map(session_dir).collect() }
    }

    /// Sessions that appeared since the last call (or since [`Watch::new`]),
    /// root by root, in path order.
    pub fn fresh(&mut self, diag: &Diag) -> Vec<SessionRecord> {
        let mut found = vec![];
        for root in &self.roots {
            for dir in sorted_dirs(root) {
                let sessions = dir.join("sessions");
                if sessions.is_dir() {
                    for session in sorted_dirs(&sessions) {
                        if self.seen.contains(&session) {
                            continue;
                        }
                        let record = discover::capture_at(&session, diag);
                        let events = session.join("context-intelligence").join("events.jsonl");
                        // Nothing there yet: look again next round.
                        if record.is_some() || std::fs::symlink_metadata(&events).is_ok() {
                            self.seen.insert(session);
                        }
                        found.extend(record);
                    }
                } else if !self.seen.contains(&dir)
                    && dir.file_name().and_then(|n| n.to_str()).is_some_and(crate::hooks::is_session_dir_name)
                    && !crate::hooks::event_files(&dir).is_empty()
                {
                    found.extend(crate::hooks::session_at(&dir, Some(diag)));
                    self.seen.insert(dir);
                }
            }
        }
        found
    }
}

/// The session directory of a record: what [`Watch`] keys sessions by.
fn session_dir(r: &SessionRecord) -> PathBuf {
    let path = Path::new(&r.path);
    match r.format {
        // …/<id>/context-intelligence/events.jsonl
        Format::Amplifier => path.parent().and_then(Path::parent).unwrap_or(path).to_path_buf(),
        Format::ClaudeHooks => path.to_path_buf(),
    }
}

/// The directories in `dir`, in discovery's order (none when it cannot be read).
fn sorted_dirs(dir: &Path) -> Vec<PathBuf> {
    let mut v = discover::read_dir_sorted(dir).unwrap_or_default();
    v.retain(|p| p.is_dir());
    v
}
