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
//! u64 the oldest `used` of its entries (seconds since the epoch)
//! u64 the captures' bytes the question covers (the `len` of its entries;
//!     a delta's counts its base's entries too)
//! u32 entries
//! per entry, in order of (XXH3 of its path, path), an index record:
//!   u64 XXH3 of the path bytes, u64 offset of the entry in the body,
//!   u64 its length, u64 XXH3 of its bytes
//! then the entries, one after the other in the index's order, each:
//!   u32 path length, path bytes (the capture's absolute path)
//!   u64 dev, u64 ino, u64 indexed, u64 len, i128 mtime_ns, u64 head
//!   u8 has last line, u64 its offset, u64 its hash
//!   u64 lines, u64 untimed, u64 used (seconds since the epoch), u64 context
//!   u32 payload length, payload bytes
//! ```
//!
//! The file's checksum ([`super::file`]) covers the head (label, count and
//! index); an entry is checked against its own checksum when it is looked up,
//! so a lookup costs a binary search of the index and that entry's bytes, not
//! a scan of the file. A damaged entry is not trusted: the capture is read
//! again, the damage is reported once, and the file is written again without
//! it.
//!
//! A run's few changes go to a delta file beside it, folded into the file
//! when it grows ([`Store`]). Two runs may save at once: each reads the
//! files again just before it writes, applies its own changes over them, and
//! renames a whole new file into place ([`CacheDir::write_parts`]); the later
//! rename wins, and what the other added is read again on a later run, never
//! answered wrongly. Entries not used for [`STALE_DAYS`] are dropped when the
//! file is next written whole.

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU8, Ordering};

use xxhash_rust::xxh3::xxh3_64;

use super::file::{Kind, Mapped, ReadError};
use super::{CacheDir, Identity};
use crate::codec::{put_bytes, put_len, Reader};

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
    /// `seen`: the file's stat as this run already took it (discovery's),
    /// which then stands for the `stat`.
    pub fn fresh(&self, path: &Path, seen: Option<super::Stat>) -> Option<super::Fresh> {
        let stat = match seen {
            Some(s) => s,
            None => super::Stat::of(&std::fs::metadata(path).ok()?),
        };
        if self.identity.unchanged(stat) && self.settled() {
            return Some(super::Fresh::Current);
        }
        crate::files::open_regular(path).and_then(|f| self.identity.check(&f)).ok()
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

/// One question's entries, as read at the start of a run: its files mapped
/// into memory, and where their indexes are. Nothing is read of an entry
/// until it is looked up, so a run that uses a few entries of a large file
/// costs only those (the status line that asks about today's sessions of a
/// long history).
///
/// A question has up to two files: the *base*, and the *delta* beside it
/// (the base's name with [`DELTA`] added) holding the entries written since
/// the base was last written whole. A run that changes a few entries
/// rewrites only the delta; the base is written again, with the delta folded
/// in, when the delta outgrows a quarter of it ([`Store::save`]). A lookup
/// tries the delta first. Every entry proves itself against its capture
/// ([`Identity`]), so whichever of two files a run finds an older entry in,
/// the answer is the same; only the work differs.
#[derive(Debug)]
pub struct Store {
    dir: CacheDir,
    name: String,
    kind: Kind,
    label: String,
    /// The delta, then the base, as far as they exist and are whole.
    parts: Vec<Part>,
    /// Whether a file of it was refused on opening (damaged, another
    /// version's): the next save replaces it even with nothing to change, so
    /// it is reported once, not on every run.
    refused: bool,
}

/// Added to a base's file name, the name of its delta.
pub const DELTA: &str = ".delta";

/// One file of a [`Store`], mapped.
#[derive(Debug)]
struct Part {
    name: String,
    file: Mapped,
    head: Head,
    /// An entry found damaged (see [`Store::damage`]): [`DAMAGE_NONE`], or
    /// which damage.
    damaged: AtomicU8,
}

impl Part {
    /// The file `name` of `dir`, when it is whole and labelled `label`;
    /// else why not (none: `Ok(None)`).
    fn open(dir: &CacheDir, name: &str, kind: Kind, label: &str) -> Result<Option<Part>, ReadError> {
        let Some(file) = dir.map(name, kind)? else { return Ok(None) };
        match head(file.body(), Some(file.checked())) {
            Some((l, head)) if l == label.as_bytes() => {
                Ok(Some(Part { name: name.to_owned(), file, head, damaged: AtomicU8::new(DAMAGE_NONE) }))
            }
            _ => Err(ReadError::Damaged(dir.file(name), super::Damage::Corrupt)),
        }
    }

    /// The entry of `key` (a path's bytes) in this file, when it is there
    /// and whole (a damaged one is noted, and absent).
    fn get(&self, key: &[u8], hash: u64) -> Option<EntryRef<'_>> {
        let body = self.file.body();
        let records = self.head.records(body);
        let first = records.partition_point(|r| Record::of(r).hash < hash);
        for r in records[first..].iter().map(Record::of).take_while(|r| r.hash == hash) {
            match checked_entry(&body[r.at..r.at + r.len], r.sum) {
                Ok((p, e)) if p == key => return Some(e),
                Ok(_) => {}
                Err(d) => {
                    let _ = self.damaged.compare_exchange(DAMAGE_NONE, d, Ordering::Relaxed, Ordering::Relaxed);
                }
            }
        }
        None
    }

    /// Its entries in index order: each one's record, bytes, and path and
    /// fields when it is whole (damaged ones are left out).
    fn entries(&self) -> impl Iterator<Item = (Record, &[u8], &[u8], EntryRef<'_>)> {
        let body = self.file.body();
        self.head.records(body).iter().filter_map(move |r| {
            let r = Record::of(r);
            let bytes = &body[r.at..r.at + r.len];
            let (path, e) = checked_entry(bytes, r.sum).ok()?;
            Some((r, bytes, path, e))
        })
    }
}

const DAMAGE_NONE: u8 = 0;
const DAMAGE_CHECKSUM: u8 = 1;
const DAMAGE_CORRUPT: u8 = 2;

/// Where a body's index is: its entry count, and the offset of its first
/// record; when its least recently used entry was last used; and the
/// captures' bytes it covers.
#[derive(Debug, Clone, Copy, Default)]
struct Head {
    n: usize,
    index: usize,
    oldest: u64,
    covers: u64,
}

/// Bytes of an index record: the XXH3 of the entry's path, its offset in the
/// body, its length, and the XXH3 of its bytes.
const RECORD: usize = 32;

/// An index record.
#[derive(Debug, Clone, Copy)]
struct Record {
    hash: u64,
    at: usize,
    len: usize,
    sum: u64,
}

impl Head {
    /// The index records of `body` (whose head [`head`] read).
    fn records<'b>(&self, body: &'b [u8]) -> &'b [[u8; RECORD]] {
        body[self.index..self.index + self.n * RECORD].as_chunks().0
    }
}

impl Record {
    fn of(r: &[u8; RECORD]) -> Record {
        let word = |k: usize| u64::from_le_bytes(r[k * 8..k * 8 + 8].try_into().unwrap_or_default());
        Record { hash: word(0), at: word(1) as usize, len: word(2) as usize, sum: word(3) }
    }
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

impl EntryRef<'_> {
    fn to_owned(self) -> Entry {
        Entry {
            identity: self.identity,
            lines: self.lines,
            untimed: self.untimed,
            used: self.used,
            context: self.context,
            payload: self.payload.to_vec(),
        }
    }
}

/// The file name of the store labelled `label`: `prefix`, then the XXH3 of
/// the crate version and the label (another version's file is another file).
pub fn name_for(prefix: &str, label: &str) -> String {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(env!("CARGO_PKG_VERSION").as_bytes());
    h.update(&super::file::VERSION.to_le_bytes());
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
    /// printed is right either way. An entry this run found damaged is
    /// reported here, once ([`Store::damage`]).
    pub fn save_for_run(&self, updates: Vec<Update>, now: u64, diag: &crate::diag::Diag, next: &str) {
        if let Some(e) = self.damage() {
            diag.warn(&format_args!("cache: {e}"));
        }
        let max = super::usage::bound().unwrap_or_else(|e| {
            let default = super::usage::Bound::default();
            diag.warn(&format_args!("{e}; using {}", default.describe()));
            default
        });
        if let Err(e) = self.save(updates, now, max) {
            diag.warn(&format_args!("cache: could not write it: {e}; {next}"));
        }
    }

    /// Maps the files of the store `name` of `dir` (none yet: an empty
    /// store). A file that is damaged, foreign or of another version is not
    /// trusted: the store goes on without it, and it is replaced when the run
    /// saves; the error says why, for the caller to report once. Only a
    /// file's head (label and index) is checked here; each entry is checked
    /// when it is looked up ([`Store::get`]).
    /// `label` names the question; a file whose label is another is not
    /// this question's (a hash collision, or a file put there by hand) and
    /// is refused like a damaged one. `kind` is what the file's header says
    /// it holds: a question's answers, or ci-filter's line index.
    pub fn open(dir: CacheDir, name: &str, kind: Kind, label: &str) -> (Store, Option<ReadError>) {
        let mut parts = Vec::with_capacity(2);
        let mut err = None;
        for n in [format!("{name}{DELTA}"), name.to_owned()] {
            match Part::open(&dir, &n, kind, label) {
                Ok(p) => parts.extend(p),
                Err(e) => err = err.or(Some(e)),
            }
        }
        let refused = err.is_some();
        (Store { dir, name: name.to_owned(), kind, label: label.to_owned(), parts, refused }, err)
    }

    /// The entry of the capture at `path` (absolute): found through the
    /// indexes, the delta's first, and trusted only when its bytes match
    /// their checksum and layout (else it is absent, and reported once when
    /// the run saves).
    pub fn get(&self, path: &Path) -> Option<EntryRef<'_>> {
        let key = path_bytes(path);
        let hash = xxh3_64(&key);
        self.parts.iter().find_map(|p| p.get(&key, hash))
    }

    /// Notes that the entry of `path`, whole by its checksum, holds what
    /// its reader refuses (a state no run makes: forged, or written by a
    /// faulty build): reported as a damaged entry ([`Store::damage`]), and
    /// the capture is read again.
    pub fn refuse(&self, path: &Path) {
        let key = path_bytes(path);
        let hash = xxh3_64(&key);
        if let Some(p) = self.parts.iter().find(|p| p.get(&key, hash).is_some()) {
            let _ = p.damaged.compare_exchange(DAMAGE_NONE, DAMAGE_CORRUPT, Ordering::Relaxed, Ordering::Relaxed);
        }
    }

    /// An entry this run found damaged, as the error to report (once, when
    /// the run saves: the file is then written again without it).
    pub fn damage(&self) -> Option<ReadError> {
        self.parts.iter().find_map(|p| {
            let d = match p.damaged.load(Ordering::Relaxed) {
                DAMAGE_CHECKSUM => super::Damage::Checksum,
                DAMAGE_CORRUPT => super::Damage::Corrupt,
                _ => return None,
            };
            Some(ReadError::Damaged(self.dir.file(&p.name), d))
        })
    }

    /// How many captures it has entries for (counted through its files,
    /// every entry read: for tests, not for a run).
    pub fn len(&self) -> usize {
        let mut seen = std::collections::HashSet::new();
        self.parts.iter().flat_map(Part::entries).filter(|(_, _, path, _)| seen.insert(path.to_vec())).count()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.parts.iter().all(|p| p.head.n == 0)
    }

    /// Writes `updates` over the files as they are now (another run may
    /// have saved since this one opened them), then keeps the directory
    /// within `max` bytes ([`CacheDir::evict`]). With nothing to change, only
    /// notes that the base was used ([`CacheDir::touch`]).
    ///
    /// The changed entries go to the delta, with what it held before. When
    /// there is no base yet, when the delta would outgrow a quarter of the
    /// base, when an entry of the base is to be removed, or when the base
    /// holds an entry unused for [`STALE_DAYS`] (its head says), the base is
    /// written whole instead: its entries and the delta's, with the changes,
    /// less entries unused for [`STALE_DAYS`] and damaged ones; the delta is
    /// then removed. Entries not changed are copied as they are, unparsed.
    pub fn save(&self, updates: Vec<Update>, now: u64, max: impl Into<super::usage::Bound>) -> std::io::Result<()> {
        let max = max.into();
        let damaged = self.refused || self.damage().is_some();
        if updates.is_empty() && !damaged {
            if !self.parts.is_empty() {
                self.dir.touch(&self.name);
            }
            return Ok(());
        }
        let delta_name = format!("{}{DELTA}", self.name);
        let changes = changes(updates, now);
        // The files as they are now, each trusted only when whole.
        let now_part = |n: &str| Part::open(&self.dir, n, self.kind, &self.label).ok().flatten();
        let (delta, base) = (now_part(&delta_name), now_part(&self.name));
        let in_base = |key: &[u8]| base.as_ref().and_then(|b| b.get(key, xxh3_64(key)));
        // The delta as it would be: its entries not changed, then the changes.
        let mut pieces: Vec<Piece<'_>> = Vec::with_capacity(delta.as_ref().map_or(0, |d| d.head.n) + changes.len());
        // Damage is dropped, and a removal from the base made, by a whole write.
        let mut whole = damaged;
        for (r, bytes, path, e) in delta.iter().flat_map(Part::entries) {
            if !changes.contains_key(path) {
                pieces.push(Piece::kept(r, bytes, e));
            }
        }
        for (path, c) in &changes {
            let old = || delta.as_ref().and_then(|d| d.get(path, xxh3_64(path))).or_else(|| in_base(path));
            match c {
                Change::Put(e) => pieces.push(Piece::of(path, e)),
                Change::Touch => pieces.extend(old().map(|e| Piece::of(path, &Entry { used: now, ..e.to_owned() }))),
                Change::Drop => whole |= in_base(path).is_some(),
            }
        }
        let delta_bytes: usize = pieces.iter().map(|p| p.bytes.len()).sum();
        let stale = now.saturating_sub(STALE_DAYS * 86_400);
        whole |= match &base {
            Some(b) => b.head.oldest < stale || delta_bytes > b.file.body().len() / 4,
            None => true,
        };
        // A full file system never takes the question's own files.
        let keep = [self.name.as_str(), delta_name.as_str()];
        if !whole {
            // What the question covers: the base's, with the delta's lengths
            // in place of the base's for the captures both hold.
            let base_covers = base.as_ref().map_or(0, |b| b.head.covers);
            let covers = pieces.iter().fold(base_covers, |c, p| {
                c.saturating_sub(in_base(p.path()).map_or(0, |e| e.identity.len)).saturating_add(p.len)
            });
            write_store(&self.dir, &delta_name, self.kind, &self.label, pieces, covers, &keep)?;
            return self.dir.evict(max, &[&self.name, &delta_name], covers).map(|_| ());
        }
        // The base written whole: the delta's entries (changed or not) over
        // the base's, without the removed, the stale and the damaged.
        let in_delta = delta.iter().flat_map(Part::entries).map(|(_, _, path, _)| path);
        let newer: std::collections::HashSet<&[u8]> = in_delta.chain(changes.keys().map(Vec::as_slice)).collect();
        for (r, bytes, path, e) in base.iter().flat_map(Part::entries) {
            if !newer.contains(path) {
                pieces.push(Piece::kept(r, bytes, e));
            }
        }
        pieces.retain(|p| p.used >= stale);
        let covers = covers(&pieces);
        write_store(&self.dir, &self.name, self.kind, &self.label, pieces, covers, &keep)?;
        match std::fs::remove_file(self.dir.file(&delta_name)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        self.dir.evict(max, &[&self.name], covers).map(|_| ())
    }
}

/// The captures' bytes `pieces` cover (their entries' lengths).
fn covers(pieces: &[Piece<'_>]) -> u64 {
    pieces.iter().fold(0u64, |c, p| c.saturating_add(p.len))
}

/// Writes `pieces` as the store file `name`, in index order; on a full file
/// system, after making room without removing the files in `keep`
/// ([`CacheDir::write_making_room`]).
fn write_store(
    dir: &CacheDir,
    name: &str,
    kind: Kind,
    label: &str,
    mut pieces: Vec<Piece<'_>>,
    covers: u64,
    keep: &[&str],
) -> std::io::Result<()> {
    sort(&mut pieces);
    let head = encode_head(label, &pieces, covers);
    let rest: Vec<&[u8]> = pieces.iter().map(|p| &p.bytes[..]).collect();
    let need = super::file::HEADER + head.len() + rest.iter().map(|p| p.len()).sum::<usize>();
    dir.write_making_room(need as u64, keep, || dir.write_parts(name, kind, &head, &rest))
}

/// What a run does to one capture's entry: the last of its updates.
enum Change {
    Put(Entry),
    Drop,
    Touch,
}

/// The last change of each capture `updates` name, applied in order (a
/// note of use after a new entry dates the new entry; after a removal, it
/// finds nothing).
fn changes(updates: Vec<Update>, now: u64) -> HashMap<Vec<u8>, Change> {
    let mut out: HashMap<Vec<u8>, Change> = HashMap::with_capacity(updates.len());
    for u in updates {
        match u {
            Update::Put(p, e) => {
                out.insert(path_bytes(&p).into_owned(), Change::Put(e));
            }
            Update::Drop(p) => {
                out.insert(path_bytes(&p).into_owned(), Change::Drop);
            }
            Update::Touch(p) => match out.entry(path_bytes(&p).into_owned()).or_insert(Change::Touch) {
                Change::Put(e) => e.used = now,
                Change::Drop | Change::Touch => {}
            },
        }
    }
    out
}

/// One entry of a body being written: its bytes (copied from the file as
/// it was, or newly encoded), with its index record's hashes, its last use
/// and its capture's length.
struct Piece<'a> {
    hash: u64,
    sum: u64,
    used: u64,
    len: u64,
    bytes: Cow<'a, [u8]>,
}

impl<'a> Piece<'a> {
    fn of(path: &[u8], e: &Entry) -> Piece<'static> {
        let bytes = encode_entry(path, e);
        Piece { hash: xxh3_64(path), sum: xxh3_64(&bytes), used: e.used, len: e.identity.len, bytes: Cow::Owned(bytes) }
    }

    /// An entry of a file as it is, copied unchanged.
    fn kept(r: Record, bytes: &'a [u8], e: EntryRef<'_>) -> Piece<'a> {
        Piece { hash: r.hash, sum: r.sum, used: e.used, len: e.identity.len, bytes: Cow::Borrowed(bytes) }
    }

    /// The entry's path (its first field).
    fn path(&self) -> &[u8] {
        Reader(&self.bytes).bytes().unwrap_or_default()
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
    end: &crate::lines::ReadEnd<'_>,
    resume: Option<crate::lines::Resume>,
    kept_last: Option<u64>,
) -> Option<(Identity, u64)> {
    let last = end.last_line_at.or(resume.filter(|r| r.offset == end.whole).and(kept_last));
    if end.tail == crate::lines::Tail::Read || (last.is_none() && end.whole > 0) {
        return None;
    }
    let id = Identity::of(end.file, end.whole, last).ok().filter(|id| id.len >= id.indexed)?;
    Some((id, end.lines))
}

/// `pieces` in index order: by path hash, then path (the same entries make
/// the same file).
fn sort(pieces: &mut [Piece<'_>]) {
    pieces.sort_by(|a, b| a.hash.cmp(&b.hash).then_with(|| a.path().cmp(b.path())));
}

/// A body's head: the label, the oldest use, the captures' bytes covered,
/// the entry count and the index (`pieces`, in order, are the entries that
/// follow it).
fn encode_head(label: &str, pieces: &[Piece<'_>], covers: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(24 + label.len() + pieces.len() * RECORD);
    put_bytes(&mut out, label.as_bytes());
    let oldest = pieces.iter().map(|p| p.used).min();
    out.extend_from_slice(&oldest.unwrap_or(u64::MAX).to_le_bytes());
    out.extend_from_slice(&covers.to_le_bytes());
    put_len(&mut out, pieces.len());
    let mut at = out.len() + pieces.len() * RECORD;
    for p in pieces {
        for n in [p.hash, at as u64, p.bytes.len() as u64, p.sum] {
            out.extend_from_slice(&n.to_le_bytes());
        }
        at += p.bytes.len();
    }
    out
}

/// One entry's bytes.
fn encode_entry(path: &[u8], e: &Entry) -> Vec<u8> {
    let mut out = Vec::with_capacity(path.len() + e.payload.len() + 128);
    put_bytes(&mut out, path);
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
    out
}

/// The body of a store file holding `entries`, labelled `label` (the whole
/// body; its head is what [`CacheDir::write_parts`] checks).
pub fn encode(label: &str, entries: &HashMap<PathBuf, Entry>) -> Vec<u8> {
    let mut pieces: Vec<Piece<'_>> = entries.iter().map(|(p, e)| Piece::of(&path_bytes(p), e)).collect();
    sort(&mut pieces);
    let mut out = encode_head(label, &pieces, covers(&pieces));
    for p in &pieces {
        out.extend_from_slice(&p.bytes);
    }
    out
}

/// Reads a whole store body, every entry checked; `None` when it is not one
/// (the file is then not trusted, whatever its checksum said).
pub fn decode(body: &[u8]) -> Option<(String, HashMap<PathBuf, Entry>)> {
    let (label, h) = head(body, None)?;
    let label = String::from_utf8(label.to_vec()).ok()?;
    let mut entries = HashMap::with_capacity(h.n);
    for r in h.records(body).iter().map(Record::of) {
        let (path, e) = checked_entry(&body[r.at..r.at + r.len], r.sum).ok()?;
        if xxh3_64(path) != r.hash || entries.insert(bytes_path(path)?, e.to_owned()).is_some() {
            return None;
        }
    }
    Some((label, entries))
}

/// What a store file's head says (what `ci-find --cache-info` shows).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    /// The question (or kind) it holds, as JSON text.
    pub label: String,
    /// Its entries.
    pub entries: usize,
    /// The captures' bytes its question covers (a delta's: with its base's).
    pub covers: u64,
}

/// The head of a store file, read from its head only.
pub fn summary(file: &Mapped) -> Option<Summary> {
    let (label, h) = head(file.body(), Some(file.checked()))?;
    Some(Summary { label: String::from_utf8(label.to_vec()).ok()?, entries: h.n, covers: h.covers })
}

/// The label of a body and where its index is, when the head is laid out as
/// this version writes it: the checksum covered exactly the head (`checked`,
/// when known), the records are in path-hash order, and the entries they
/// point at follow the index one after the other, to the body's end.
fn head(body: &[u8], checked: Option<usize>) -> Option<(&[u8], Head)> {
    let mut r = Reader(body);
    let label = r.bytes()?;
    let oldest = r.u64()?;
    let covers = r.u64()?;
    let n = r.count()?;
    let index = body.len() - r.left();
    let end = n.checked_mul(RECORD)?.checked_add(index)?;
    if end > body.len() || checked.is_some_and(|c| c != end) {
        return None;
    }
    let h = Head { n, index, oldest, covers };
    let (mut at, mut last) = (end, 0);
    for rec in h.records(body).iter().map(Record::of) {
        if rec.hash < last || rec.at != at || rec.len > body.len() - at {
            return None;
        }
        (at, last) = (at + rec.len, rec.hash);
    }
    (at == body.len()).then_some((label, h))
}

/// An entry's path and fields, when its bytes match their checksum `sum`
/// and are laid out as an entry (else which damage, as [`Store`] notes it).
fn checked_entry(bytes: &[u8], sum: u64) -> Result<(&[u8], EntryRef<'_>), u8> {
    if xxh3_64(bytes) != sum {
        return Err(DAMAGE_CHECKSUM);
    }
    parse_entry(bytes).ok_or(DAMAGE_CORRUPT)
}

/// An entry's path and fields from exactly its bytes.
fn parse_entry(bytes: &[u8]) -> Option<(&[u8], EntryRef<'_>)> {
    let mut r = Reader(bytes);
    let path = r.bytes()?;
    bytes_path(path)?;
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
    let payload = r.bytes()?;
    (r.left() == 0).then_some((path, EntryRef { identity, lines, untimed, used, context, payload }))
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
