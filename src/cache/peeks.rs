//! What discovery reads of a capture file's bytes for its session record,
//! kept per file: a Claude Code transcript's record needs its first `cwd`
//! and model and its first and last times, read from the file's head and
//! tail (`claude_transcript::peek`), for every one of thousands of files on
//! every `ci-find`. A file whose `stat` (device, inode, size, modification
//! time) is as it was, and was modified two seconds or more before it was
//! peeked at, gives what it gave; any other is read again (one cache file,
//! `peek-<hash>.bin`, in the store layout of [`super::store`]; the payload
//! is the writer's own encoding).
//!
//! On for a run once [`for_run`] is called (ci-find and ci-filter call it,
//! unless `--no-cache` or `CI_CACHE=0`); the guard it returns writes what
//! the run read when it is dropped. Off, or in a process that never turned
//! it on (the library's tests), [`kept`] reads the file.

use std::fs::Metadata;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use super::{Entry, Identity, Kind, Stat, Store, Update};
use crate::diag::Diag;

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
    diag: &'d Diag,
}

impl Drop for Guard<'_> {
    fn drop(&mut self) {
        let Some(p) = PEEKS.get() else { return };
        let updates = std::mem::take(&mut *p.updates.lock().unwrap_or_else(|e| e.into_inner()));
        p.store.save_for_run(updates, p.now, self.diag, "the next run reads the files' heads again");
    }
}

/// Turns the kept peeks on for this run, unless `off` or `CI_CACHE=0` (an
/// unusable cache directory is a warning, and the run reads the files).
pub fn for_run(off: bool, diag: &Diag) -> Option<Guard<'_>> {
    if off || super::off_by_env() {
        return None;
    }
    if PEEKS.get().is_none() {
        let store = Store::for_run(&super::store::name_for("peek-", LABEL), Kind::Answers, LABEL, diag)?;
        let cwd = crate::files::working_dir().unwrap_or_default();
        let _ = PEEKS.set(Peeks { store, updates: Mutex::default(), cwd, now: super::store::now() });
    }
    Some(Guard { diag })
}

/// What `read` makes of `file` (whose `stat` is `meta`), as kept when the
/// file is as it was, else read and kept; `writer` tells one writer's
/// encoding from another's.
pub fn kept<T>(
    file: &Path,
    meta: &Metadata,
    writer: &str,
    read: impl FnOnce() -> T,
    encode: impl FnOnce(&T) -> Vec<u8>,
    decode: impl FnOnce(&[u8]) -> Option<T>,
) -> T {
    let Some(p) = PEEKS.get() else { return read() };
    let key = crate::files::absolute_in(&p.cwd, file);
    let tag = xxhash_rust::xxh3::xxh3_64(writer.as_bytes());
    let stat = Stat::of(meta);
    if let Some(e) = p.store.get(&key).filter(|e| e.identity.stat() == stat && e.settled() && e.context == tag) {
        if let Some(v) = decode(e.payload) {
            if let Some(touch) = e.touch(&key, p.now) {
                p.updates.lock().unwrap_or_else(|e| e.into_inner()).push(touch);
            }
            return v;
        }
    }
    let v = read();
    // Kept by the stat taken before the read: a file that changed while it
    // was read has another stat by the next run (or is not settled yet).
    let identity = Identity::of_stat(stat);
    let entry = Entry { identity, lines: 0, untimed: 0, used: p.now, context: tag, payload: encode(&v) };
    p.updates.lock().unwrap_or_else(|e| e.into_inner()).push(Update::Put(key, entry));
    v
}

/// Appends an optional text (a byte 0, or 1 and the text).
pub fn put_text(out: &mut Vec<u8>, s: Option<&str>) {
    match s {
        None => out.push(0),
        Some(s) => {
            out.push(1);
            crate::codec::put_bytes(out, s.as_bytes());
        }
    }
}

/// Reads [`put_text`] back (`None` outside: not one).
pub fn text(r: &mut crate::codec::Reader<'_>) -> Option<Option<String>> {
    match r.u8()? {
        0 => Some(None),
        1 => r.text().map(Some),
        _ => None,
    }
}
