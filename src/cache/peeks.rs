//! What discovery reads of a capture file's bytes for its session record,
//! kept per file: a Claude Code transcript's record needs its first `cwd`
//! and model and its first and last times, read from the file's head and
//! tail (a writer's `peek`), for every one of thousands of files on
//! every `ci-find`. A file whose `stat` (device, inode, size, modification
//! time) is as it was, and was modified two seconds or more before it was
//! peeked at, gives what it gave; any other is read again (one cache file,
//! `peek-<hash>.bin`, in the store layout of [`super::store`]; the payload
//! is the writer's own encoding).
//!
//! On for a run once [`for_run`] is called (ci-find and ci-filter call it,
//! unless `--no-cache` or `CI_CACHE=0`); the guard it returns writes what
//! the run read when it is dropped. Discovery hands the run's peeks
//! ([`current`]) to the writers, which read and encode them themselves
//! ([`crate::format::Cx::kept`]); off, or in a process that never turned it
//! on (the library's tests), there are none and the file is read.

use std::fs::Metadata;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use super::{Entry, Identity, Kind, Stat, Store, Update};
use crate::diag::Diag;
use crate::format::PeekCache;

/// The cache's label (and, hashed with the version, its file's name).
const LABEL: &str = r#"{"tool":"discovery","peek":"session records","schema":1}"#;

/// The run's peeks, once turned on.
static PEEKS: OnceLock<Peeks> = OnceLock::new();

struct Peeks {
    store: Store,
    updates: Mutex<Vec<Update>>,
    cwd: PathBuf,
    now: u64,
}

/// Writes the run's peeks when dropped ([`for_run`]).
pub struct Guard<'d> {
    /// Where a failure to write is reported (none: [`beside`]).
    diag: Option<&'d Diag>,
}

impl Drop for Guard<'_> {
    fn drop(&mut self) {
        let Some(p) = PEEKS.get() else { return };
        let updates = std::mem::take(&mut *p.updates.lock().unwrap_or_else(|e| e.into_inner()));
        match self.diag {
            Some(diag) => p.store.save_for_run(updates, p.now, diag, "the next run reads the files' heads again"),
            // The other cache's save, after this one, keeps the directory
            // within its bound (removing this file first, when it must).
            None => {
                let _ = p.store.save(updates, p.now, u64::MAX);
            }
        }
    }
}

/// Turns the kept peeks on for this run, unless `off` or `CI_CACHE=0` (an
/// unusable cache directory is a warning, and the run reads the files).
pub fn for_run(off: bool, diag: &Diag) -> Option<Guard<'_>> {
    if off || super::off_by_env() {
        return None;
    }
    if PEEKS.get().is_none() {
        let store = Store::for_run(&name(), Kind::Answers, LABEL, diag)?;
        set(store);
    }
    Some(Guard { diag: Some(diag) })
}

/// Turns the kept peeks on for this run beside another cache that reports
/// the directory's problems (ci-agg's question: a warning each would say
/// it twice), so nothing is reported here: a damaged file is rebuilt, a
/// failed write leaves the files to be read again next time. Its guard is
/// to be dropped before that cache is saved, which keeps the bound.
pub fn beside() -> Option<Guard<'static>> {
    if PEEKS.get().is_none() {
        let (store, _damage) = Store::open(super::CacheDir::from_env().ok()?, &name(), Kind::Answers, LABEL);
        set(store);
    }
    Some(Guard { diag: None })
}

/// The peeks' file name.
fn name() -> String {
    super::store::name_for("peek-", LABEL)
}

/// Turns the run's peeks on, kept in `store`.
fn set(store: Store) {
    let cwd = crate::files::working_dir().unwrap_or_default();
    let _ = PEEKS.set(Peeks { store, updates: Mutex::default(), cwd, now: super::store::now() });
}

/// The run's peeks, when [`for_run`] turned them on: what discovery hands
/// the writers ([`Cx::peeks`](crate::format::Cx::peeks)).
pub fn current() -> Option<&'static dyn PeekCache> {
    PEEKS.get().map(|p| p as &dyn PeekCache)
}

impl Peeks {
    /// The entry's key, tag and the file's `stat`.
    fn key(&self, file: &Path, meta: &Metadata, writer: &str) -> (PathBuf, u64, Stat) {
        let key = crate::files::absolute_in(&self.cwd, file);
        (key, xxhash_rust::xxh3::xxh3_64(writer.as_bytes()), Stat::of(meta))
    }

    fn push(&self, update: Update) {
        self.updates.lock().unwrap_or_else(|e| e.into_inner()).push(update);
    }
}

impl PeekCache for Peeks {
    fn get(&self, file: &Path, meta: &Metadata, writer: &str, decode: &mut dyn FnMut(&[u8]) -> bool) -> bool {
        let (key, tag, stat) = self.key(file, meta, writer);
        let Some(e) = self.store.get(&key).filter(|e| e.identity.stat() == stat && e.settled() && e.context == tag)
        else {
            return false;
        };
        if !decode(e.payload) {
            return false;
        }
        if let Some(touch) = e.touch(&key, self.now) {
            self.push(touch);
        }
        true
    }

    fn put(&self, file: &Path, meta: &Metadata, writer: &str, payload: Vec<u8>) {
        // Kept by the stat taken before the read: a file that changed while it
        // was read has another stat by the next run (or is not settled yet).
        let (key, tag, stat) = self.key(file, meta, writer);
        let identity = Identity::of_stat(stat);
        self.push(Update::Put(key, Entry { identity, lines: 0, untimed: 0, used: self.now, context: tag, payload }));
    }
}
