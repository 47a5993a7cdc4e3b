//! The event counts `ci-find --min-events`/`--max-events` read, kept per
//! capture file: counting an Amplifier capture reads all of it, and a capture
//! whose `stat` is as it was counts what it counted (one cache file,
//! `find-events-<hash>.bin`, in the store layout of [`super::store`]; the
//! payload is the count; a Claude Code session's subagent transcripts,
//! which its count includes, are kept by their stats as ci-agg keeps them).
//! A capture that changed in any way, or whose other files did, is counted
//! again (no reading on from the old end: counting is cheap per byte, and
//! a count taken while the file changed is not kept).

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::{Entry, Identity, Stat, Store, Update};
use crate::diag::Diag;
use crate::session::SessionRecord;

/// The question's label (and, hashed, its file's name).
const LABEL: &str = r#"{"tool":"ci-find","count":"events","schema":1}"#;

/// Counts of one run, read from and kept in the cache.
pub struct EventCounts {
    store: Store,
    updates: Mutex<Vec<Update>>,
    cwd: PathBuf,
    now: u64,
}

impl EventCounts {
    /// The cache of counts, or `None` when the cache is off (`CI_CACHE=0`)
    /// or unusable (reported as a warning, as ci-agg does).
    pub fn open(diag: &Diag) -> Option<EventCounts> {
        if super::off_by_env() {
            return None;
        }
        let store = Store::for_run(&super::store::name_for("find-events-", LABEL), super::Kind::Answers, LABEL, diag)?;
        let (cwd, now) = (crate::files::working_dir().unwrap_or_default(), super::store::now());
        Some(EventCounts { store, updates: Mutex::new(vec![]), cwd, now })
    }

    /// The events of `r` ([`crate::format::Layout::event_count`]): kept, or
    /// counted (and kept when the file did not change while it was counted).
    pub fn count(&self, r: &SessionRecord) -> u64 {
        let path = Path::new(&r.path);
        let key = crate::files::absolute_in(&self.cwd, path);
        let layout = r.format.layout;
        // The session's other files (subagent transcripts) count too: kept by their stats.
        let files = layout.files(r);
        let others = Stat::of_files(files.get(1..).unwrap_or_default());
        let context = others.as_ref().map(|o| Stat::with_others(writer_tag(r), o));
        if let (Some(e), Ok(meta), Some(o)) = (self.store.get(&key), std::fs::metadata(path), &others) {
            let settled = e.settled() && o.iter().all(|s| s.settled(e.used));
            if e.identity.unchanged(Stat::of(&meta)) && settled && Some(e.context) == context {
                if let Ok(n) = <[u8; 8]>::try_from(e.payload) {
                    return u64::from_le_bytes(n);
                }
            }
        }
        let before = crate::files::open_regular(path).ok().and_then(|f| {
            let len = f.metadata().ok()?.len();
            Identity::of(&f, len, None).ok()
        });
        let n = layout.event_count(r);
        let after = std::fs::metadata(path).ok();
        let others_after = Stat::of_files(files.get(1..).unwrap_or_default());
        if let (Some(identity), Some(meta), Some(context)) = (before, after, context) {
            if identity.unchanged(Stat::of(&meta)) && others_after == others {
                let entry = Entry {
                    identity,
                    lines: 0,
                    untimed: 0,
                    used: self.now,
                    context,
                    payload: n.to_le_bytes().to_vec(),
                };
                if let Ok(mut u) = self.updates.lock() {
                    u.push(Update::Put(key, entry));
                }
            }
        }
        n
    }

    /// Writes what this run counted; a failure is a warning.
    pub fn save(self, diag: &Diag) {
        let updates = self.updates.into_inner().unwrap_or_default();
        self.store.save_for_run(updates, self.now, diag, "the next run counts the captures again");
    }
}

/// The writer whose count it is (a file named in two writers' layouts
/// counts by each writer's rule).
fn writer_tag(r: &SessionRecord) -> u64 {
    xxhash_rust::xxh3::xxh3_64(r.format.name.as_bytes())
}
