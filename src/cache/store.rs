//! One question's answers per capture, kept in one cache file.
//!
//! A question (`ci-agg --by event`, `--tokens --by day`, …) has one file,
//! named after a hash of everything that defines its answer; in it, one
//! [`Entry`] per capture: the capture's [`Identity`] when it was read, the
//! number of its whole lines read, the records it counted without a usable
//! timestamp, when the entry was last used, and the question's state of those
//! lines (`payload`, written and read by the question's owner).
//!
//! The body, little-endian:
//!
//! ```text
//! u32 label length, label (the question, as `ci-find --cache-info` shows it)
//! u32 entries
//! per entry:
//!   u32 path length, path bytes (the capture's absolute path)
//!   u64 dev, u64 ino, u64 indexed, u64 len, i128 mtime_ns, u64 head
//!   u8 has last line, u64 its offset, u64 its hash
//!   u64 lines, u64 untimed, u64 used (seconds since the epoch), u64 context
//!   u32 payload length, payload bytes
//! ```
//!
//! Two runs may save at once: each reads the file again just before it
//! writes, applies its own changes over it, and renames a whole new file
//! into place ([`CacheDir::write`]); the later rename wins, and what the
//! other added is read again on a later run, never answered wrongly. Entries
//! not used for [`STALE_DAYS`] are dropped when the file is next written.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::file::{Kind, ReadError};
use super::wire::{put_bytes, put_len, Reader};
use super::{CacheDir, Identity};

/// Entries unused for this many days are dropped.
pub const STALE_DAYS: u64 = 30;

/// What the cache holds of one capture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The capture file as it was read.
    pub identity: Identity,
    /// Its whole lines read (the number of the last one).
    pub lines: u64,
    /// Records read without a usable timestamp (counted again when answered
    /// from the cache).
    pub untimed: u64,
    /// When the entry was last written (or found in use a day after), in
    /// seconds since the epoch.
    pub used: u64,
    /// A hash of what the answer depends on besides the file's bytes (the
    /// session record's fields the question reads; the owner computes it).
    pub context: u64,
    /// The question's state of those lines.
    pub payload: Vec<u8>,
}

impl EntryRef<'_> {
    /// Whether the entry's file was last modified well before the entry was
    /// written, so that a `stat` showing the same size and time proves it
    /// unchanged ([`Identity::unchanged`]). A file modified within the same
    /// clock tick as it was read (file times are kept in ticks of a few
    /// milliseconds) could have been rewritten after the read with the same
    /// size and time: such an entry is checked against the file's bytes
    /// instead ([`Identity::check`], git's rule for "racily clean" files).
    pub fn settled(&self) -> bool {
        self.identity.stat().settled(self.used)
    }

    /// What the entry is worth for the capture file at `path` now: one
    /// `stat` when that proves it unchanged ([`Identity::unchanged`] and
    /// [`EntryRef::settled`]), else the file opened and checked
    /// ([`Identity::check`]); `None` when it cannot be read (read it again).
    pub fn fresh(&self, path: &Path) -> Option<super::Fresh> {
        match std::fs::metadata(path) {
            Ok(meta) if self.identity.unchanged(&meta) && self.settled() => Some(super::Fresh::Current),
            Ok(_) => crate::files::open_regular(path).and_then(|f| self.identity.check(&f)).ok(),
            Err(_) => None,
        }
    }

    /// The update noting that the entry of `key` was used `now`, when its
    /// last note is a day old or more (entries unused for [`STALE_DAYS`]
    /// are dropped; a note a run would rewrite the file for every time).
    pub fn touch(&self, key: &Path, now: u64) -> Option<Update> {
        (now.saturating_sub(self.used) > 86_400).then(|| Update::Touch(key.to_path_buf()))
    }
}

/// A change a run makes to a store.
#[derive(Debug)]
pub enum Update {
    /// The capture's entry is now this.
    Put(PathBuf, Entry),
    /// The capture has no usable entry any more.
    Drop(PathBuf),
    /// The capture's entry was used now (so it is not dropped as unused).
    Touch(PathBuf),
}

/// One question's entries, as read at the start of a run: the file's body,
/// and where each capture's entry is in it (a warm run looks up thousands).
#[derive(Debug)]
pub struct Store {
    dir: CacheDir,
    name: String,
    kind: Kind,
    label: String,
    body: Vec<u8>,
    entries: Index,
}

/// An entry as read: its fields, and where its payload is in the body.
#[derive(Debug, Clone, Copy)]
struct Kept {
    identity: Identity,
    lines: u64,
    untimed: u64,
    used: u64,
    context: u64,
    payload: (usize, usize),
}

/// An entry of a [`Store`], its payload borrowed from the file's body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntryRef<'s> {
    /// [`Entry::identity`].
    pub identity: Identity,
    /// [`Entry::lines`].
    pub lines: u64,
    /// [`Entry::untimed`].
    pub untimed: u64,
    /// [`Entry::used`].
    pub used: u64,
    /// [`Entry::context`].
    pub context: u64,
    /// [`Entry::payload`].
    pub payload: &'s [u8],
}

/// The file name of the store labelled `label`: `prefix`, then the XXH3 of
/// the crate version and the label (another version's file is another file).
pub fn name_for(prefix: &str, label: &str) -> String {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(env!("CARGO_PKG_VERSION").as_bytes());
    h.update(label.as_bytes());
    format!("{prefix}{:016x}.bin", h.digest())
}

/// Now, in seconds since the epoch (entries' last use).
pub fn now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

impl Store {
    /// The store `name` (labelled `label`) of the cache directory the
    /// environment names, for one run of a tool: `None` when the directory
    /// is refused (warned once: the run goes on without a cache); a damaged
    /// file is warned about and starts empty ([`Store::open`]).
    pub fn for_run(name: &str, kind: Kind, label: &str, diag: &crate::diag::Diag) -> Option<Store> {
        let dir = match CacheDir::from_env() {
            Ok(dir) => dir,
            Err(refusal) => {
                diag.warn(&refusal);
                return None;
            }
        };
        let (store, err) = Store::open(dir, name, kind, label);
        if let Some(e) = err {
            diag.warn(&format_args!("cache: {e}"));
        }
        Some(store)
    }

    /// [`Store::save`] within the bound `CI_CACHE_MAX_BYTES` names (an
    /// invalid value is warned about, and the default used); a failure is a
    /// warning ending with what the next run does (`next`): the answer
    /// printed is right either way.
    pub fn save_for_run(&self, updates: Vec<Update>, now: u64, diag: &crate::diag::Diag, next: &str) {
        let max = super::usage::max_bytes().unwrap_or_else(|e| {
            diag.warn(&format_args!("{e}; using {}", super::usage::DEFAULT_MAX_BYTES));
            super::usage::DEFAULT_MAX_BYTES
        });
        if let Err(e) = self.save(updates, now, max) {
            diag.warn(&format_args!("cache: could not write it: {e}; {next}"));
        }
    }

    /// Reads the file `name` of `dir` (none yet: an empty store). A file that
    /// is damaged, foreign or of another version is not trusted: the store
    /// starts empty and the file is replaced when the run saves; the error
    /// says why, for the caller to report once.
    /// `label` names the question; a file whose label is another is not
    /// this question's (a hash collision, or a file put there by hand) and
    /// is refused like a damaged one. `kind` is what the file's header says
    /// it holds: a question's answers, or ci-filter's line index.
    pub fn open(dir: CacheDir, name: &str, kind: Kind, label: &str) -> (Store, Option<ReadError>) {
        let (body, err) = match dir.read(name, kind) {
            Ok(Some(body)) => (body, None),
            Ok(None) => (Vec::new(), None),
            Err(e) => (Vec::new(), Some(e)),
        };
        let (body, entries, err) = match scan(&body) {
            Some((l, entries)) if l == label.as_bytes() => (body, entries, err),
            None if body.is_empty() => (body, Default::default(), err),
            _ => (Vec::new(), Default::default(), Some(ReadError::Damaged(dir.file(name), super::Damage::Corrupt))),
        };
        (Store { dir, name: name.to_owned(), kind, label: label.to_owned(), body, entries }, err)
    }

    /// The entry of the capture at `path` (absolute).
    pub fn get(&self, path: &Path) -> Option<EntryRef<'_>> {
        let k = self.entries.get(path_bytes(path).as_ref())?;
        Some(EntryRef {
            identity: k.identity,
            lines: k.lines,
            untimed: k.untimed,
            used: k.used,
            context: k.context,
            payload: &self.body[k.payload.0..k.payload.1],
        })
    }

    /// How many entries it holds.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Writes `updates` over the file as it is now (another run may have
    /// saved since this one opened it), dropping stale entries, then keeps
    /// the directory within `max` bytes ([`CacheDir::evict`]). With nothing
    /// to change, only notes that the file was used ([`CacheDir::touch`]).
    pub fn save(&self, updates: Vec<Update>, now: u64, max: u64) -> std::io::Result<()> {
        if updates.is_empty() {
            if !self.body.is_empty() {
                self.dir.touch(&self.name);
            }
            return Ok(());
        }
        let mut entries = match self.dir.read(&self.name, self.kind) {
            Ok(Some(body)) => decode(&body).filter(|(l, _)| *l == self.label).map(|(_, e)| e).unwrap_or_default(),
            _ => HashMap::new(),
        };
        for u in updates {
            match u {
                Update::Put(path, entry) => {
                    entries.insert(path, entry);
                }
                Update::Drop(path) => {
                    entries.remove(&path);
                }
                Update::Touch(path) => {
                    if let Some(e) = entries.get_mut(&path) {
                        e.used = now;
                    }
                }
            }
        }
        let stale = now.saturating_sub(STALE_DAYS * 86_400);
        entries.retain(|_, e| e.used >= stale);
        self.dir.write(&self.name, self.kind, &encode(&self.label, &entries))?;
        self.dir.evict(max, &self.name).map(|_| ())
    }
}

/// What an entry records of a file read to its end (its identity and whole
/// lines), or `None` when it cannot be kept: an unfinished last line was read
/// (an event or a bad line, which would be read again after the kept end),
/// no last line is known for bytes that were read, or the file is shorter
/// now than what was read (its identity would claim bytes it no longer has).
/// Read on from `resume` without a new whole line, the kept last line
/// (`kept_last`) is still the last.
pub fn kept_end(
    end: &crate::source::ReadEnd<'_>,
    resume: Option<crate::lines::Resume>,
    kept_last: Option<u64>,
) -> Option<(Identity, u64)> {
    let last = end.last_line_at.or(resume.filter(|r| r.offset == end.whole).and(kept_last));
    if end.tail == crate::source::Tail::Read || (last.is_none() && end.whole > 0) {
        return None;
    }
    let id = Identity::of(end.file, end.whole, last).ok().filter(|id| id.len >= id.indexed)?;
    Some((id, end.lines))
}

/// The body of a store file.
pub fn encode(label: &str, entries: &HashMap<PathBuf, Entry>) -> Vec<u8> {
    let mut out = Vec::with_capacity(entries.len() * 256);
    put_bytes(&mut out, label.as_bytes());
    put_len(&mut out, entries.len());
    // In path order: the same entries make the same file.
    let mut all: Vec<_> = entries.iter().collect();
    all.sort_by(|a, b| a.0.cmp(b.0));
    for (path, e) in all {
        put_bytes(&mut out, &path_bytes(path));
        let id = &e.identity;
        for n in [id.dev, id.ino, id.indexed, id.len] {
            out.extend_from_slice(&n.to_le_bytes());
        }
        out.extend_from_slice(&id.mtime_ns.to_le_bytes());
        out.extend_from_slice(&id.head.to_le_bytes());
        let (has, at, hash) = id.last_line.map_or((0u8, 0, 0), |(at, h)| (1, at, h));
        out.push(has);
        for n in [at, hash, e.lines, e.untimed, e.used, e.context] {
            out.extend_from_slice(&n.to_le_bytes());
        }
        put_bytes(&mut out, &e.payload);
    }
    out
}

/// Reads a store body; `None` when it is not one (the file is then not
/// trusted, whatever its checksum said).
pub fn decode(body: &[u8]) -> Option<(String, HashMap<PathBuf, Entry>)> {
    let (label, entries) = scan(body)?;
    let label = String::from_utf8(label.to_vec()).ok()?;
    let owned = entries.into_iter().map(|(path, k)| {
        let e = Entry {
            identity: k.identity,
            lines: k.lines,
            untimed: k.untimed,
            used: k.used,
            context: k.context,
            payload: body[k.payload.0..k.payload.1].to_vec(),
        };
        Some((bytes_path(&path)?, e))
    });
    Some((label, owned.collect::<Option<_>>()?))
}

/// Where each entry of a body is, by its path's bytes.
type Index = foldhash::HashMap<Vec<u8>, Kept>;

/// The label of a body, and where each of its entries is.
fn scan(body: &[u8]) -> Option<(&[u8], Index)> {
    let mut r = Reader(body);
    let label = r.bytes()?;
    let n = r.count()?;
    // Every entry takes at least 100 bytes: a count beyond that is damage.
    if n > body.len() / 100 {
        return None;
    }
    let mut entries = foldhash::HashMap::with_capacity_and_hasher(n, Default::default());
    for _ in 0..n {
        let path = r.bytes()?.to_vec();
        bytes_path(&path)?;
        let (dev, ino, indexed, len) = (r.u64()?, r.u64()?, r.u64()?, r.u64()?);
        let mtime_ns = r.i128()?;
        let head = r.u64()?;
        let has = r.u8()?;
        let (at, hash) = (r.u64()?, r.u64()?);
        let last_line = match has {
            0 => None,
            1 if at < indexed => Some((at, hash)),
            _ => return None,
        };
        if len < indexed {
            return None;
        }
        let identity = Identity { dev, ino, indexed, len, mtime_ns, head, last_line };
        let (lines, untimed, used, context) = (r.u64()?, r.u64()?, r.u64()?, r.u64()?);
        let n = r.count()?;
        let start = body.len() - r.left();
        r.take(n)?;
        entries.insert(path, Kept { identity, lines, untimed, used, context, payload: (start, start + n) });
    }
    (r.left() == 0).then_some((label, entries))
}

#[cfg(unix)]
fn path_bytes(p: &Path) -> std::borrow::Cow<'_, [u8]> {
    use std::os::unix::ffi::OsStrExt;
    std::borrow::Cow::Borrowed(p.as_os_str().as_bytes())
}

#[cfg(not(unix))]
fn path_bytes(p: &Path) -> std::borrow::Cow<'_, [u8]> {
    std::borrow::Cow::Owned(p.to_string_lossy().into_owned().into_bytes())
}

#[cfg(unix)]
fn bytes_path(b: &[u8]) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    Some(PathBuf::from(std::ffi::OsStr::from_bytes(b)))
}

#[cfg(not(unix))]
fn bytes_path(b: &[u8]) -> Option<PathBuf> {
    std::str::from_utf8(b).ok().map(PathBuf::from)
}

#[cfg(all(test, unix))]
mod tests;
