//! Watching capture roots for sessions that appear (`ci-find --follow`).
//!
//! Plain polling, every [`INTERVAL`] (1 s): each round asks every writer
//! ([`crate::format::Layout::fresh`]) for the session directories of every
//! root that were not seen before (a round costs a few directory listings;
//! known sessions are not read again).
//!
//! A directory becomes a session, reported once, when its writer's marker
//! exists (for Amplifier `context-intelligence/events.jsonl`, for a hooks
//! session a `_claude_*.jsonl` event file). An unusable capture (a FIFO, a
//! dangling link, a path that is not UTF-8) is reported once, like at
//! discovery, and not retried. Each session is judged by the filters once,
//! as it first appears; sessions that disappear are not reported.

use std::collections::HashSet;
use std::path::PathBuf;
use std::time::Duration;

use crate::diag::Diag;
use crate::format::FORMATS;
use crate::session::SessionRecord;

/// How often the roots are listed for new sessions.
pub(crate) const INTERVAL: Duration = Duration::from_secs(1);

/// The roots being watched, and the session directories seen so far.
pub(crate) struct Watch {
    roots: Vec<PathBuf>,
    seen: HashSet<PathBuf>,
}

impl Watch {
    /// Starts watching `roots`; the sessions of `known` (the first listing,
    /// before any filter) are not new.
    pub(crate) fn new(roots: &[PathBuf], known: &[SessionRecord]) -> Watch {
        let seen = known.iter().map(|r| r.format.layout.session_dir(r)).collect();
        Watch { roots: roots.to_vec(), seen }
    }

    /// Sessions that appeared since the last call (or since [`Watch::new`]),
    /// root by root, each writer's in path order.
    pub(crate) fn fresh(&mut self, diag: &Diag) -> Vec<SessionRecord> {
        let mut found = vec![];
        for root in &self.roots {
            for w in FORMATS {
                found.extend(w.layout.fresh(root, &mut self.seen, &crate::discover::cx(), diag));
            }
        }
        found
    }
}
