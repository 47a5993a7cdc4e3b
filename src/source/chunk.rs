//! One large capture file read by every worker: split at line boundaries
//! into parts, each a unit of its own, read by whichever worker it is dealt
//! to, with the provenance, output and diagnostics of a whole read.
//!
//! When: more than one thread, not following, a visitor that can take a
//! capture in parts ([`Visitor::splits`]), a capture that is one file of a
//! writer whose lines are independent ([`crate::format::Profile::lines_independent`]:
//! Amplifier), at least [`SPLIT_MIN`] (32 MiB) long ([`chunking`]).
//!
//! How: the file's length is cut into equal nominal ranges; a part holds the
//! lines that start in its range (its first line starts at 0 or just after a
//! newline, [`line_start`]), so a part never starts mid-line, and a range in
//! the middle of one huge line holds none. The worker of part k loads the
//! part whole into its line buffer ([`load`]: one read, the same copy a whole
//! read makes), counting its newlines as they come in, and publishes the
//! count; then it waits only for the counts of parts before k, whose sum
//! is the number of its first line, and reads its lines from the buffer
//! through the visitor as a whole read would (byte sites are file offsets; a
//! byte-order mark is skipped before line 1 only; the last part reads on to
//! the end of the file, where a torn last line is held back as always). The
//! last part counts nothing.
//!
//! Order: the parts are consecutive units, so the writer writes their output
//! in order. A part's reports on stderr are held back
//! ([`crate::diag::hold_reports`]) until every earlier part has finished,
//! and written then, so stderr is that of a whole read too; the last part,
//! after every other has ended, reports a file that is no capture (from the
//! lines of all parts) and gets the last [`Visitor::end_part`].
//!
//! Waiting cannot deadlock: a worker hands on its output before it waits,
//! and waits only for earlier units, which are all dealt (the dealer holds
//! back only the batch being filled, never one before a unit it dealt), so
//! the earliest unfinished unit can always go on. Waits end early when the
//! run stops (a signal, the reader gone); a part dropped unread (a stopping
//! run) counts as one that read on to the end, so no later part waits for it.

use std::fs::File;
use std::io::{self, Seek, SeekFrom};
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use super::capture::Read;
use super::follow::POLL;
use super::visitor::{Known, Part};
use super::worker::{Ends, Worker};
use super::Visitor;
use crate::diag::{self, Diag};
use crate::lines::{LineReader, Resume};
use crate::session::Capture;

/// The part size in bytes, for tests: a capture file of at least twice this
/// is split into parts of about this size (at least 1; unset or not a
/// number: [`PART_BYTES`] and [`SPLIT_MIN`]). Not documented for users.
pub(super) const CHUNK_ENV: &str = "CI_CHUNK_BYTES";

/// The default part size: 16 MiB (on the 1 GB file, parts of 2 to 32 MiB
/// take about the same time, the smaller ones a little more: more waits and
/// opens). Each worker's line buffer holds one part (more for a longer line).
pub(super) const PART_BYTES: u64 = 16 << 20;

/// Files shorter than this (32 MiB, two parts) are read whole: many
/// captures keep the threads busy anyway, and a large file is what one
/// thread is slow on.
pub(super) const SPLIT_MIN: u64 = 32 << 20;

/// How a run splits large captures: into parts of about `part` bytes,
/// files of at least `least` bytes (at least two parts).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Chunking {
    pub(super) part: u64,
    pub(super) least: u64,
}

/// A part is loaded and its newlines counted this many bytes at a time (a
/// few bytes in the lib tests, to load in many steps).
const LOAD_STEP: usize = if cfg!(test) { 7 } else { 256 * 1024 };

/// How this run splits ([`CHUNK_ENV`]).
pub(super) fn chunking() -> Chunking {
    let part = std::env::var(CHUNK_ENV).ok().and_then(|v| v.parse::<u64>().ok());
    #[cfg(test)]
    let part = tests::CHUNK.get().copied().or(part);
    match part {
        Some(part) => Chunking { part: part.max(1), least: part.max(1).saturating_mul(2) },
        None => Chunking { part: PART_BYTES, least: SPLIT_MIN },
    }
}

/// The nominal boundaries of the parts of a file of `len` bytes: `n + 1`
/// offsets from 0 to `len`, `n = len / chunk` equal ranges; `None` when the
/// file is shorter than two parts.
pub(super) fn plan(len: u64, chunk: u64) -> Option<Vec<u64>> {
    let n = len / chunk.max(1);
    if n < 2 {
        return None;
    }
    // n ≥ 2 parts of at least `chunk` bytes each; i * len / n in 128 bits.
    Some((0..=n).map(|i| (u128::from(i) * u128::from(len) / u128::from(n)) as u64).collect())
}

/// A capture split into parts, shared by the workers that read them.
pub(super) struct Split {
    /// Tells this reading of the capture from any other in the run ([`Part::reading`]).
    reading: u64,
    cap: Capture,
    /// The file and how it is shown.
    file: PathBuf,
    display: String,
    /// Nominal boundaries ([`plan`]): part k holds the lines that start in
    /// `bounds[k]..bounds[k + 1]`.
    bounds: Vec<u64>,
    /// The part whose reports go to stderr now: every part before it has
    /// finished ([`diag::hold_reports`]); the number of parts at the end.
    turn: Arc<AtomicUsize>,
    /// Lines of all parts that were events, and that were damaged.
    lines_ok: AtomicU64,
    lines_bad: AtomicU64,
    /// The sum of [`Part::tally`].
    tally: AtomicU64,
    state: Mutex<State>,
    changed: Condvar,
}

/// What the parts have published.
struct State {
    /// Per part: its newline count, once loaded.
    counts: Vec<Option<Count>>,
    /// Per part: its held reports, once finished (taken when written).
    finished: Vec<Option<Vec<u8>>>,
}

/// What a part tells the later ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Count {
    /// It holds this many newlines.
    Lines(u64),
    /// It reads on to the end of the file (its load failed, or it was
    /// dropped unread): later parts read nothing.
    ToEnd,
}

/// The split of `cap`, when it is read in parts ([`Chunking`]).
pub(super) fn split(cap: &Capture, chunking: Chunking) -> Option<Arc<Split>> {
    let [file] = cap.files.as_slice() else {
        return None;
    };
    if !cap.format.profile.lines_independent {
        return None;
    }
    let len = match cap.seen() {
        Some(seen) => seen.len(),
        None => std::fs::metadata(file).ok().filter(std::fs::Metadata::is_file)?.len(),
    };
    if len < chunking.least {
        return None;
    }
    let bounds = plan(len, chunking.part)?;
    let n = bounds.len() - 1;
    let display = if *file == cap.path { cap.display.clone() } else { file.to_string_lossy().into_owned() };
    static READINGS: AtomicU64 = AtomicU64::new(0);
    Some(Arc::new(Split {
        reading: READINGS.fetch_add(1, Ordering::Relaxed),
        cap: cap.clone(),
        file: file.clone(),
        display,
        bounds,
        turn: Arc::new(AtomicUsize::new(0)),
        lines_ok: AtomicU64::new(0),
        lines_bad: AtomicU64::new(0),
        tally: AtomicU64::new(0),
        state: Mutex::new(State { counts: vec![None; n], finished: vec![None; n] }),
        changed: Condvar::new(),
    }))
}

impl Split {
    /// How many parts.
    pub(super) fn parts(&self) -> usize {
        self.bounds.len() - 1
    }

    /// The nominal bytes of part `k`, for dealing.
    pub(super) fn weight(&self, k: usize) -> u64 {
        self.bounds[k + 1] - self.bounds[k]
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Publishes part `k`'s count (the first one given counts).
    fn publish(&self, k: usize, count: Count) {
        let mut st = self.lock();
        st.counts[k].get_or_insert(count);
        self.changed.notify_all();
    }

    /// Part `k` finished: its held reports are written in turn (with those
    /// of later parts that finished before it), and the turn passes on.
    fn finish(&self, k: usize, held: Vec<u8>) {
        let mut st = self.lock();
        if st.finished[k].is_some() {
            return;
        }
        st.finished[k] = Some(held);
        let mut turn = self.turn.load(Ordering::Acquire);
        while let Some(held) = st.finished.get_mut(turn).and_then(Option::as_mut) {
            diag::write_reports(&std::mem::take(held));
            turn += 1;
            self.turn.store(turn, Ordering::Release);
        }
        self.changed.notify_all();
    }

    /// Waits until `done(state)` holds, calling `hand_on` first when it
    /// must wait (the worker hands on its output, never while holding the
    /// lock: that may wait for the writer); false when that fails or the run
    /// stops first.
    fn wait(&self, diag: &Diag, hand_on: impl FnOnce() -> bool, mut done: impl FnMut(&State) -> bool) -> bool {
        if done(&self.lock()) {
            return true;
        }
        if !hand_on() {
            return false;
        }
        let mut st = self.lock();
        while !done(&st) {
            if diag.is_stopped() || crate::signal::stop_requested() {
                return false;
            }
            st = match self.changed.wait_timeout(st, POLL) {
                Ok((st, _)) => st,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
        true
    }

    /// The number of lines before part `k`: the sum of the earlier parts'
    /// counts, once all are published ([`Split::wait`]); `None` when one of
    /// them reads on to the end (so part `k` reads nothing) or the run stops.
    fn first_line(&self, k: usize, diag: &Diag, hand_on: impl FnOnce() -> bool) -> Option<u64> {
        let mut sum = Some(0u64);
        let published = self.wait(diag, hand_on, |st| {
            sum = Some(0);
            for c in &st.counts[..k] {
                match c {
                    None => return false,
                    Some(Count::ToEnd) => sum = None,
                    Some(Count::Lines(n)) => sum = sum.map(|s| s + n),
                }
            }
            true
        });
        sum.filter(|_| published)
    }
}

/// Part `k` of a split: a unit of work. Dropped unread (a stopping run), it
/// counts as read on to the end and finished, so no later part waits for it.
pub(super) struct PartUnit {
    split: Arc<Split>,
    k: usize,
    finished: bool,
}

impl PartUnit {
    /// Part `k` of `split`.
    pub(super) fn new(split: Arc<Split>, k: usize) -> PartUnit {
        PartUnit { split, k, finished: false }
    }

    /// The nominal bytes of the part, for dealing.
    pub(super) fn weight(&self) -> u64 {
        self.split.weight(self.k)
    }

    /// Whether it is its capture's last part.
    pub(super) fn is_last(&self) -> bool {
        self.k + 1 == self.split.parts()
    }
}

impl Drop for PartUnit {
    fn drop(&mut self) {
        if !self.finished {
            self.split.publish(self.k, Count::ToEnd);
            self.split.finish(self.k, Vec::new());
        }
    }
}

/// The offset of the first line that starts at or after `at`: 0, or just
/// after the first newline at or after `at - 1`; the end of the file when no
/// line starts there (the middle of a last or of one huge line). The search
/// stops at `until` (returned then): a part whose range holds no line start
/// reads nothing, and does not scan on through the rest of a huge line (each
/// part of a multi-gigabyte line would read all of it after its start).
pub(super) fn line_start(file: &File, at: u64, until: u64) -> io::Result<u64> {
    if at == 0 {
        return Ok(0);
    }
    let mut buf = [0u8; 8192];
    let mut pos = at - 1;
    loop {
        let want = usize::try_from(until.saturating_sub(pos)).unwrap_or(usize::MAX).min(buf.len());
        if want == 0 {
            return Ok(until);
        }
        let n = match file.read_at(&mut buf[..want], pos) {
            Ok(0) => return Ok(pos),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if let Some(i) = memchr::memchr(b'\n', &buf[..n]) {
            return Ok(pos + i as u64 + 1);
        }
        pos += n as u64;
    }
}

/// The length of a part loaded from its first line on, when `loaded` holds
/// its end: just after the first newline at or after byte `from` (the
/// part's nominal end - 1, relative to its start, or where the search left
/// off).
pub(super) fn part_len(loaded: &[u8], from: usize) -> Option<usize> {
    memchr::memchr(b'\n', loaded.get(from..)?).map(|i| from + i + 1)
}

/// Loads a part that starts at `start` (where `lines` stands) into `lines`'
/// buffer and ends its input after the part's last line (the first newline
/// at or after `end - 1`, or the end of the file); returns the part's
/// newlines and where it ends. The newlines are counted as the bytes come
/// in, [`LOAD_STEP`] at a time, while they are in the CPU's cache.
pub(super) fn load<R: io::Read>(lines: &mut LineReader<R>, start: u64, end: u64) -> io::Result<(u64, u64)> {
    let Some(nominal) = end.checked_sub(start).filter(|&n| n > 0) else {
        lines.end_at(start);
        return Ok((0, start));
    };
    let last_byte = usize::try_from(nominal - 1).unwrap_or(usize::MAX);
    let (mut counted, mut count) = (0usize, 0u64);
    loop {
        let want = counted.saturating_add(LOAD_STEP);
        let loaded = lines.preload(want)?;
        let len = part_len(loaded, last_byte.max(counted));
        let upto = len.unwrap_or(loaded.len());
        count += memchr::memchr_iter(b'\n', &loaded[counted..upto]).count() as u64;
        if let Some(len) = len.or((loaded.len() < want).then_some(upto)) {
            let end = start + len as u64;
            lines.end_at(end);
            return Ok((count, end));
        }
        if upto > last_byte.saturating_add(crate::lines::max_line()) {
            // The part's last line is longer than a line may be: not loaded
            // whole; the part reads on to the end, skipping it unbuffered.
            return Err(io::Error::other(crate::lines::TooLong.to_string()));
        }
        counted = upto;
    }
}

impl Worker<'_> {
    /// Reads one part of a split capture (see the module doc); false when
    /// the writer is gone or a stop was asked for.
    pub(super) fn part<V: Visitor>(&mut self, v: &mut V, mut unit: PartUnit) -> bool {
        let split = Arc::clone(&unit.split);
        diag::hold_reports(Arc::clone(&split.turn), unit.k);
        let going = self.read_part(v, &split, unit.k);
        unit.finished = true;
        split.finish(unit.k, diag::release_reports());
        going
    }

    fn read_part<V: Visitor>(&mut self, v: &mut V, split: &Split, k: usize) -> bool {
        let last = k + 1 == split.parts();
        // What the visitor has already (the capture cache): all of it, and no
        // part is read; or the lines before a place, and only the parts from
        // there on read, the one holding it from there, numbered on from it.
        let resume = match v.known(&split.cap, split.reading) {
            Known::All => {
                split.publish(k, Count::ToEnd);
                return self.skip_part(v, split, k);
            }
            Known::Until(at) if !last && split.bounds[k + 1] <= at.offset => {
                split.publish(k, Count::Lines(0));
                return self.end_of_part(v, split, k, None);
            }
            Known::Until(at) if split.bounds[k] <= at.offset => Some(at),
            Known::Until(_) | Known::Nothing => None,
        };
        // Lines before the part that no earlier part counts.
        let base = resume.map_or(0, |at| at.number);
        let mut lines = match self.open_part(split, k, resume.map(|at| at.offset)) {
            Ok(lines) => lines,
            Err(e) => {
                self.diag.error(&format_args!("{}: {e}", split.display));
                split.publish(k, Count::ToEnd);
                return self.skip_part(v, split, k);
            }
        };
        let start = lines.resume_point().offset;
        let mut end = split.bounds[k + 1];
        if !last {
            // A load that fails leaves this part reading on from what it
            // loaded, where the read fails again and is reported at its line.
            match load(&mut lines, start, end) {
                Ok((count, e)) => {
                    end = e;
                    split.publish(k, Count::Lines(base + count));
                }
                Err(_) => split.publish(k, Count::ToEnd),
            }
        }
        let diag = self.diag;
        let Some(first_line) = split.first_line(k, diag, || self.hand_on()) else {
            self.buffer = lines.into_buffer();
            return self.skip_part(v, split, k);
        };
        let first_line = first_line + base;
        lines.set_line_number(first_line);
        let part = Part { start, end, first_line, index: k, last, reading: split.reading, tally: &split.tally };
        let cap = &split.cap;
        if !v.begin_part(cap, &part, &mut self.out) {
            self.buffer = lines.into_buffer();
            return self.end_of_part(v, split, k, None);
        }
        self.parts.state.clear();
        (self.lines_ok, self.lines_bad) = (0, 0);
        self.file_ends = Ends::at(Resume { offset: start, number: first_line, mid_line: false });
        let read = self.capture_lines(v, cap, &split.display, &mut lines, false);
        if last && matches!(read, Read::Done) {
            self.read_end(v, cap, 0, lines.get_ref());
        }
        self.buffer = lines.into_buffer();
        split.lines_ok.fetch_add(self.lines_ok, Ordering::AcqRel);
        split.lines_bad.fetch_add(self.lines_bad, Ordering::AcqRel);
        if matches!(read, Read::Gone) {
            return false;
        }
        self.end_of_part(v, split, k, Some(&part))
    }

    /// Ends part `k`, which read nothing (its file could not be opened, or
    /// an earlier part reads on to the end): the last part still ends the
    /// capture, as an empty part at the end of the file (`first_line` 0:
    /// unknown).
    fn skip_part<V: Visitor>(&mut self, v: &mut V, split: &Split, k: usize) -> bool {
        if k + 1 < split.parts() {
            return self.end_of_part(v, split, k, None);
        }
        let at = split.bounds[k + 1];
        let part = Part {
            start: at,
            end: at,
            first_line: 0,
            index: k,
            last: true,
            reading: split.reading,
            tally: &split.tally,
        };
        let begun = v.begin_part(&split.cap, &part, &mut self.out);
        self.end_of_part(v, split, k, begun.then_some(&part))
    }

    /// Opens the file at part `k`'s first line (or at `from`, a line start
    /// inside the part), numbering lines from 0 (set once the earlier parts'
    /// counts are known).
    fn open_part(&mut self, split: &Split, k: usize, from: Option<u64>) -> io::Result<LineReader<File>> {
        let mut file = self.open_capture_file(&split.file)?;
        let start = match from {
            Some(at) => at,
            // The last part searches on: the file may have grown since it was split.
            None if k + 1 == split.parts() => line_start(&file, split.bounds[k], u64::MAX)?,
            None => line_start(&file, split.bounds[k], split.bounds[k + 1])?,
        };
        file.seek(SeekFrom::Start(start))?;
        let mut lines = LineReader::with_buffer(file, std::mem::take(&mut self.buffer));
        lines.restart_at(Resume { offset: start, number: 0, mid_line: false });
        Ok(lines)
    }

    /// Ends part `k` (read as `part`, or skipped): the last part first waits
    /// for every other to finish, writes its held reports, reports a file
    /// that is no capture, from the lines of all parts; then `end_part`.
    fn end_of_part<V: Visitor>(&mut self, v: &mut V, split: &Split, k: usize, part: Option<&Part<'_>>) -> bool {
        if k + 1 == split.parts() {
            let diag = self.diag;
            if !split.wait(diag, || self.hand_on(), |_| split.turn.load(Ordering::Acquire) == k) {
                return false;
            }
            diag::write_reports(&diag::release_reports());
            self.lines_ok = split.lines_ok.load(Ordering::Acquire);
            self.lines_bad = split.lines_bad.load(Ordering::Acquire);
            self.not_a_capture(&split.cap);
        }
        if let Some(part) = part {
            v.end_part(&split.cap, part, &mut self.out);
        }
        true
    }
}

#[cfg(test)]
mod tests;
