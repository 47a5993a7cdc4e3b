//! What a writer's discovery is given besides the path it looks at: how much
//! of each session record to fill in ([`Detail`]), and the run's kept state
//! ([`Cx`]: peeks kept across runs, a memo of per-file indexes).

use std::any::{Any, TypeId};
use std::collections::{BTreeMap, HashSet};
use std::fs::Metadata;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::SystemTime;

/// How much of each session record discovery fills in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Detail {
    /// Everything a record has (`ci-find`; tools whose output follows the
    /// session order, newest first, need the start times).
    #[default]
    Full,
    /// What reading the captures needs: ids, paths, project and files. What
    /// only a capture's own lines tell (a transcript's times, model and
    /// working directory, read off its head and tail) is left out, and no
    /// file is opened for it: `ci-agg`, whose answers do not depend on the
    /// order sessions are read in, reads every line anyway.
    Reading,
}

/// What a writer's discovery and reading are handed besides their paths: the
/// run's kept state, so that a writer is a pure function of its inputs and
/// never reaches a process global ([`crate::discover`] makes it).
#[derive(Clone, Copy)]
pub struct Cx<'a> {
    /// What the run keeps of what discovery read of files (on in `ci-find`
    /// and `ci-filter`; `None`: every file is read).
    pub peeks: Option<&'a dyn PeekCache>,
    /// What writers derive from a whole file, kept while it is unchanged.
    pub memo: &'a Memo,
    /// The session directories the writers before this one (in
    /// [`super::FORMATS`] order) found under the root being searched: a
    /// writer that walks a tree for its files does not enter them
    /// ([`Cx::claimed`]). Empty outside [`crate::discover`]'s search.
    pub claimed: Option<&'a Claimed<'a>>,
}

/// The session directories of the sessions found so far under a root
/// ([`Cx::claimed`]), gathered the first time one is asked about (most
/// writers never ask).
pub struct Claimed<'a> {
    found: &'a [crate::session::SessionRecord],
    dirs: OnceLock<HashSet<PathBuf>>,
}

impl<'a> Claimed<'a> {
    /// The directories of the sessions `found`.
    pub fn new(found: &'a [crate::session::SessionRecord]) -> Self {
        Claimed { found, dirs: OnceLock::new() }
    }

    /// Whether `dir` is one of them.
    pub fn contains(&self, dir: &Path) -> bool {
        let dirs = self.dirs.get_or_init(|| self.found.iter().map(|r| r.format.layout.session_dir(r)).collect());
        dirs.contains(dir)
    }
}

impl Cx<'_> {
    /// Whether `dir` is another writer's session directory found under the
    /// same root ([`Cx::claimed`]): what it holds is that session's, so a
    /// walk looking for files of its own need not list it.
    pub fn claimed(&self, dir: &Path) -> bool {
        self.claimed.is_some_and(|c| c.contains(dir))
    }

    /// What `read` makes of `file` (whose `stat` is `meta`): as kept in the
    /// run's peeks when the file is as it was then and `decode` reads it
    /// back, else read now (and kept, as `encode` writes it). `writer`
    /// tells one writer's encoding from another's.
    pub fn kept<T>(
        &self,
        file: &Path,
        meta: &Metadata,
        writer: &str,
        read: impl FnOnce() -> T,
        encode: impl FnOnce(&T) -> Vec<u8>,
        decode: impl Fn(&[u8]) -> Option<T>,
    ) -> T {
        let Some(peeks) = self.peeks else { return read() };
        let mut found = None;
        peeks.get(file, meta, writer, &mut |payload| {
            found = decode(payload);
            found.is_some()
        });
        if let Some(v) = found {
            return v;
        }
        let v = read();
        peeks.put(file, meta, writer, encode(&v));
        v
    }
}

/// A store of what discovery read of files, kept across runs (the cache's
/// `peek` files, [`crate::cache::peeks`]); the payload is the writer's own
/// encoding ([`Cx::kept`] wraps the two calls).
pub trait PeekCache: Sync {
    /// Hands `decode` the payload kept for `file` by `writer`, when the file
    /// is as it was then (`meta`); the payload counts as used when `decode`
    /// answers `true`. Whether one was handed and read.
    fn get(&self, file: &Path, meta: &Metadata, writer: &str, decode: &mut dyn FnMut(&[u8]) -> bool) -> bool;

    /// Keeps `payload` for `file` (as `meta` says it was before it was read).
    fn put(&self, file: &Path, meta: &Metadata, writer: &str, payload: Vec<u8>);
}

/// What writers derive from a whole file (a hook-log array's index of
/// sessions), kept per path while the file's size and modification time
/// stay the same, and built once: a second caller waits for the first.
/// Small: at most [`Memo::KEEP`] files, then it starts again.
#[derive(Default)]
pub struct Memo {
    /// By the type of what is kept and the file's path.
    files: Mutex<BTreeMap<(TypeId, PathBuf), Arc<Slot>>>,
}

/// A file's size and modification time, when it has them.
type Stamp = Option<(u64, Option<SystemTime>)>;

struct Slot {
    stamp: Stamp,
    value: OnceLock<Arc<dyn Any + Send + Sync>>,
}

impl Memo {
    /// Files kept at most.
    pub const KEEP: usize = 256;

    /// An empty memo (for a `static`).
    pub const fn new() -> Memo {
        Memo { files: Mutex::new(BTreeMap::new()) }
    }

    /// What `build` makes of `path`, from the memo when the file is
    /// unchanged and it was built as a `T`, else built now.
    pub fn get_or_build<T: Any + Send + Sync>(&self, path: &Path, build: impl FnOnce() -> T) -> Arc<T> {
        let stamp: Stamp = std::fs::metadata(path).ok().map(|m| (m.len(), m.modified().ok()));
        let slot = {
            // A poisoned lock (a panic elsewhere): build without the memo.
            let Ok(mut map) = self.files.lock() else { return Arc::new(build()) };
            let key = (TypeId::of::<T>(), path.to_path_buf());
            match map.get(&key) {
                Some(s) if s.stamp == stamp && stamp.is_some() => s.clone(),
                _ => {
                    if map.len() >= Memo::KEEP {
                        map.clear();
                    }
                    let s = Arc::new(Slot { stamp, value: OnceLock::new() });
                    map.insert(key, s.clone());
                    s
                }
            }
        };
        let value = slot.value.get_or_init(|| Arc::new(build())).clone();
        value.downcast::<T>().unwrap_or_else(|_| unreachable!("kept by its type"))
    }
}

#[cfg(test)]
mod tests;
