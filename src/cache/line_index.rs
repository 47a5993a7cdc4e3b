//! ci-filter's line index: for each capture file, the event name of each of
//! its lines and where the line is, so that a later `ci-filter --event X`
//! (or `--errors`, `--not-event`) reads only the lines whose name can
//! match, each at its place, instead of the whole file.
//!
//! It is kept only for writers whose lines each make one event on their own
//! ([`crate::format::Profile::lines_independent`], not
//! [`crate::format::Profile::multi_part`]: Amplifier): there, reading a
//! line alone makes the event a whole read makes of it. One file,
//! `lines-<hash>.bin` (kind `LINE`), in the store layout
//! ([`super::store`]): one entry per capture file, its payload the
//! capture's [`Lines`]:
//!
//! ```text
//! u8 1 (the layout)
//! varint names, then each name: varint length, its bytes (in the order
//!   the file first has them)
//! varint lines, then each line: varint name (its place in the names),
//!   varint number gap (its number less the previous line's), varint
//!   offset gap (its offset less the end of the previous line's newline),
//!   varint length
//! ```
//!
//! Varints are LEB128 ([`crate::codec::put_varint`]); an Amplifier line
//! takes about five bytes.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::{Entry, Fresh, Kind, Store, Update};
use crate::codec::{put_varint, Reader};
use crate::diag::Diag;
use crate::lines::{Framing, Resume, Site};
use crate::session::Capture;

/// The index's label (and, hashed with the version, its file's name).
/// Schema 2: a Codex fork's copied lines are named `copy:…` (issue 38).
const LABEL: &str = r#"{"tool":"ci-filter","index":"event names","schema":2}"#;

/// How the index file's name starts (the rest is a hash).
const PREFIX: &str = "lines-";

/// The payload's layout tag.
const TAG: u8 = 1;

/// Picked lines: each one's number and place, in file order.
pub type Picked = Vec<(u64, Site)>;

/// The event lines of one capture file: each line's name and place.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lines {
    /// The names, in the order the file first has them.
    pub names: Vec<String>,
    /// Each event line, in file order: its name (in `names`), number and place.
    pub lines: Vec<(u32, u64, Site)>,
}

impl Lines {
    /// Adds a line read after every line added so far; `false` (and nothing
    /// added) when it is not after them.
    pub fn push(&mut self, name: &str, number: u64, site: Site) -> bool {
        if let Some(&(_, n, s)) = self.lines.last() {
            if number <= n || site.offset <= s.offset.saturating_add(s.len) {
                return false;
            }
        }
        let last = self.lines.last().map(|l| l.0 as usize).filter(|&i| self.names[i] == name);
        let id = match last.or_else(|| self.names.iter().position(|n| n == name)) {
            Some(i) => i,
            None => {
                self.names.push(name.to_owned());
                self.names.len() - 1
            }
        };
        self.lines.push((id as u32, number, site));
        true
    }

    /// The lines whose name `keep` says can matter, in file order.
    pub fn pick(&self, keep: impl Fn(&str) -> bool) -> Vec<(u64, Site)> {
        let kept: Vec<bool> = self.names.iter().map(|n| keep(n)).collect();
        self.lines.iter().filter(|(id, ..)| kept[*id as usize]).map(|&(_, n, s)| (n, s)).collect()
    }

    /// The payload form.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(16 + self.lines.len() * 5);
        out.push(TAG);
        put_varint(&mut out, self.names.len() as u64);
        for n in &self.names {
            put_varint(&mut out, n.len() as u64);
            out.extend_from_slice(n.as_bytes());
        }
        put_varint(&mut out, self.lines.len() as u64);
        let (mut number, mut end) = (0u64, 0u64);
        for &(id, n, site) in &self.lines {
            for v in [u64::from(id), n - number, site.offset - end, site.len] {
                put_varint(&mut out, v);
            }
            (number, end) = (n, site.offset + site.len + 1);
        }
        out
    }

    /// A payload read back; `None` when it is not one whose lines all lie
    /// within the `indexed` bytes (it is then built again, never trusted).
    pub fn decode(payload: &[u8], indexed: u64) -> Option<Lines> {
        let mut lines = vec![];
        let names = walk(payload, indexed, |_, id, number, site| lines.push((id, number, site)))?;
        Some(Lines { names, lines })
    }

    /// The names of a payload and its lines whose name `keep` says can
    /// matter, in file order, read without keeping the others (a warm
    /// run's common case); `None` as for [`Lines::decode`].
    pub fn pick_in(payload: &[u8], indexed: u64, keep: impl Fn(&str) -> bool) -> Option<(Vec<String>, Picked)> {
        let (mut kept, mut picked) = (Vec::<Option<bool>>::new(), vec![]);
        let names = walk(payload, indexed, |names, id, number, site| {
            if kept.is_empty() {
                kept.resize(names.len(), None);
            }
            let k = kept[id as usize].get_or_insert_with(|| keep(&names[id as usize]));
            if *k {
                picked.push((number, site));
            }
        })?;
        Some((names, picked))
    }
}

/// Reads a payload: its names, then each line to `line` (with the names);
/// `None`, after any number of lines, when it is not a whole valid payload
/// (what `line` was told is then to be dropped).
fn walk(payload: &[u8], indexed: u64, mut line: impl FnMut(&[String], u32, u64, Site)) -> Option<Vec<String>> {
    let mut r = Reader(payload);
    if r.u8()? != TAG {
        return None;
    }
    let n = usize::try_from(r.varint()?).ok().filter(|&n| n <= r.left())?;
    let mut names = Vec::with_capacity(n);
    for _ in 0..n {
        let len = usize::try_from(r.varint()?).ok()?;
        names.push(std::str::from_utf8(r.take(len)?).ok()?.to_owned());
    }
    // Every line takes four bytes at least.
    let n = usize::try_from(r.varint()?).ok().filter(|&n| n <= r.left() / 4)?;
    let (mut number, mut end) = (0u64, 0u64);
    for _ in 0..n {
        let id = u32::try_from(r.varint()?).ok().filter(|&id| (id as usize) < names.len())?;
        let gap = r.varint()?;
        number = number.checked_add(gap).filter(|_| gap > 0)?;
        let offset = end.checked_add(r.varint()?)?;
        let len = r.varint()?;
        end = offset.checked_add(len)?.checked_add(1).filter(|&e| e <= indexed)?;
        line(&names, id, number, Site { offset, len, framing: Framing::Line });
    }
    (r.left() == 0).then_some(names)
}

/// What the index has of a capture about to be read ([`LineIndex::look`]).
#[derive(Debug)]
pub enum Look {
    /// Its file is as indexed: the names of all its event lines, those of
    /// its lines the caller's `keep` picked, and (once a day) an update
    /// noting the entry's use.
    Current { names: Vec<String>, picked: Picked, touch: Option<Update> },
    /// It grew: these are its event lines up to `from`, the first byte not
    /// indexed; `last_line` is where the last indexed line starts.
    Grown { lines: Lines, from: Resume, last_line: Option<u64> },
    /// Nothing usable: read it whole (and index it). `had_entry`: an entry
    /// is there, to drop if this read cannot be kept.
    Read { had_entry: bool },
}

/// The line index of one run, shared by its worker threads.
#[derive(Debug)]
pub struct LineIndex {
    store: Store,
    cwd: PathBuf,
    now: u64,
    /// The parts of captures read in parts by several threads, gathered
    /// until the last one ends, by capture and reading.
    parts: Mutex<HashMap<(PathBuf, u64), Vec<PartLines>>>,
}

/// What one part of a capture read in parts made of its lines.
#[derive(Debug)]
pub struct PartLines {
    /// Which part, from 0.
    pub index: usize,
    /// Its event lines.
    pub lines: Lines,
    /// Whether it read silently, every event in order.
    pub kept: bool,
    /// For the last part: how the file's reading ended ([`super::kept_end`]).
    pub end: Option<(super::Identity, u64)>,
}

impl LineIndex {
    /// The index, or `None` when the cache is unusable (reported once as a
    /// warning; the run reads every capture whole).
    pub fn open(diag: &Diag) -> Option<LineIndex> {
        let store = Store::for_run(&super::store::name_for(PREFIX, LABEL), Kind::Lines, LABEL, diag)?;
        let cwd = crate::files::working_dir().unwrap_or_default();
        Some(LineIndex { store, cwd, now: super::store::now(), parts: Mutex::default() })
    }

    /// The key of `cap` in the index when it can be indexed: one plain file
    /// of a writer whose lines are events on their own.
    pub fn key(&self, cap: &Capture) -> Option<PathBuf> {
        let single = matches!(cap.files.as_slice(), [f] if *f == cap.path);
        (single && cap.format.profile.line_indexed()).then(|| crate::files::absolute_in(&self.cwd, &cap.path))
    }

    /// Whether the index has an entry for `cap` (current or not).
    pub fn has(&self, cap: &Capture) -> bool {
        self.key(cap).is_some_and(|k| self.store.get(&k).is_some())
    }

    /// A part of a capture read in parts ended with `part` (its lines); at
    /// the `last` part of reading `reading` (after every other part), the
    /// capture's entry: the parts' lines in order, when every part read
    /// silently; else the old entry's removal, if there is one.
    pub fn part_end(&self, key: PathBuf, cap: &Capture, reading: u64, part: PartLines, last: bool) -> Option<Update> {
        let mut parts = self.parts.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let id = (key, reading);
        parts.entry(id.clone()).or_default().push(part);
        if !last {
            return None;
        }
        let mut all = parts.remove(&id)?;
        drop(parts);
        let (key, _) = id;
        all.sort_by_key(|p| p.index);
        let mut whole = Lines::default();
        let every = all.iter().enumerate().all(|(i, p)| p.index == i && p.kept);
        let joined = every
            && all.iter().all(|p| {
                p.lines.lines.iter().all(|&(n, number, site)| whole.push(&p.lines.names[n as usize], number, site))
            });
        match all.last().and_then(|p| p.end).filter(|_| joined) {
            Some(end) => Some(self.put(key, cap, &whole, end)),
            None => self.store.get(&key).is_some().then_some(Update::Drop(key)),
        }
    }

    /// What the index has of the capture file at `path` (its `key`); of a
    /// current file, the lines whose name `keep` says can matter.
    pub fn look(&self, key: &Path, path: &Path, cap: &Capture, keep: impl Fn(&str) -> bool) -> Look {
        let Some(entry) = self.store.get(key) else {
            return Look::Read { had_entry: false };
        };
        let read = Look::Read { had_entry: true };
        if entry.context != writer_tag(cap) {
            return read;
        }
        let Some(fresh) = entry.fresh(path, None) else { return read };
        let indexed = entry.identity.indexed;
        match fresh {
            Fresh::Current => match Lines::pick_in(entry.payload, indexed, keep) {
                Some((names, picked)) => Look::Current { names, picked, touch: entry.touch(key, self.now) },
                None => read,
            },
            Fresh::Grew { from } => match Lines::decode(entry.payload, indexed) {
                Some(lines) => Look::Grown {
                    lines,
                    from: Resume { offset: from, number: entry.lines, mid_line: false },
                    last_line: entry.identity.last_line.map(|(at, _)| at),
                },
                None => read,
            },
            Fresh::Rebuild(_) => read,
        }
    }

    /// The entry of a capture read to its end with these `lines`, as
    /// `end` says ([`super::kept_end`]).
    pub fn put(&self, key: PathBuf, cap: &Capture, lines: &Lines, end: (super::Identity, u64)) -> Update {
        let (identity, n) = end;
        let entry =
            Entry { identity, lines: n, untimed: 0, used: self.now, context: writer_tag(cap), payload: lines.encode() };
        Update::Put(key, entry)
    }

    /// Writes the run's changes; a failure is a warning (what was printed is
    /// right; the next run reads again what this one could not keep).
    pub fn save(&self, updates: Vec<Update>, diag: &Diag) {
        self.store.save_for_run(updates, self.now, diag, "the next run reads the captures whole");
    }
}

/// What an entry's lines depend on besides the file's bytes: its writer.
fn writer_tag(cap: &Capture) -> u64 {
    xxhash_rust::xxh3::xxh3_64(cap.format.name.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(offset: u64, len: u64) -> Site {
        Site { offset, len, framing: Framing::Line }
    }

    #[test]
    fn lines_round_trip_and_pick() {
        let mut l = Lines::default();
        assert!(l.push("session:start", 1, site(3, 10)));
        assert!(l.push("tool:pre", 2, site(14, 200)));
        assert!(l.push("tool:error", 4, site(300, 5)));
        assert!(l.push("tool:pre", 5, site(306, 1)));
        assert!(!l.push("tool:pre", 5, site(400, 1)), "the same line twice");
        assert!(!l.push("tool:pre", 9, site(307, 1)), "inside the line before");
        let bytes = l.encode();
        assert_eq!(Lines::decode(&bytes, 308), Some(l.clone()));
        assert_eq!(Lines::decode(&bytes, 307), None, "a line past the indexed bytes");
        assert_eq!(l.pick(|n| n == "tool:pre"), vec![(2, site(14, 200)), (5, site(306, 1))]);
        assert_eq!(
            Lines::pick_in(&bytes, 308, |n| n == "tool:pre"),
            Some((l.names.clone(), l.pick(|n| n == "tool:pre")))
        );
        assert_eq!(Lines::pick_in(&bytes, 307, |_| true), None);
        assert_eq!(l.names, ["session:start", "tool:pre", "tool:error"]);
        for cut in 0..bytes.len() {
            assert_eq!(Lines::decode(&bytes[..cut], 308), None, "cut at {cut}");
        }
        assert_eq!(Lines::decode(&Lines::default().encode(), 0), Some(Lines::default()));
    }
}
