//! One file being followed: its open (or parked) handle, where reading
//! stands, and what happened to it between polls (growth, truncation,
//! rotation, a path that names something unusable); the rules are
//! [`super`]'s.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::PathBuf;

use crate::diag::Diag;
use crate::lines::{LineReader, Resume};
use crate::session::Capture;

/// The buffer a followed file keeps between polls when it stays open, at
/// most (appended lines are short; a long one grows it while it is read).
const KEEP_BUFFER: usize = 16 * 1024;

/// One file being followed.
pub(crate) struct Followed {
    /// The capture it belongs to (for provenance).
    pub cap: Capture,
    /// Its path, as opened.
    pub path: PathBuf,
    /// Its path as shown.
    pub display: String,
    /// The file, open or closed between polls.
    file: State,
    /// Closed between polls (beyond the budget of open files).
    parked: bool,
    /// The path names no usable regular file, and this was reported (again
    /// only after it named one).
    unusable: bool,
    /// True once the visitor stopped reading it.
    pub done: bool,
}

/// A followed file, open or not.
enum State {
    /// Open, positioned after the last byte read.
    Open(LineReader<File>),
    /// Closed between polls: where reading stands.
    Closed(Mark),
}

/// Where reading a closed followed file stands.
#[derive(Clone, Copy)]
struct Mark {
    /// The file's device and inode (rotation is told by them).
    id: Option<(u64, u64)>,
    /// Where to go on.
    at: Resume,
    /// How far it was read (a held unfinished line ends there): a file now
    /// shorter than that was truncated.
    read: u64,
}

/// What happened to a followed file since the last poll.
pub(crate) enum Change {
    /// Nothing unusual (it may have grown, been truncated or, while closed,
    /// replaced): read on.
    Same,
    /// Its path names another file now: read the old one to its end, then
    /// this ([`Followed::switch_to`]).
    Replaced(File),
    /// Closed between polls, and nothing to read now (nothing new, or its
    /// path names no file to read).
    Wait,
}

impl Followed {
    /// Follows a file read to its end, `lines`; it stays open.
    pub(crate) fn new(cap: Capture, path: PathBuf, display: String, mut lines: LineReader<File>) -> Followed {
        lines.shrink(KEEP_BUFFER);
        Followed { cap, path, display, file: State::Open(lines), parked: false, unusable: false, done: false }
    }

    /// Whether it stays open between polls.
    pub(crate) fn is_open_between_polls(&self) -> bool {
        !self.parked
    }

    /// From now on, closes the file between polls (reopened by path and
    /// identity at each); its buffer goes to `spare`.
    pub(crate) fn park(&mut self, spare: &mut Vec<u8>) {
        self.parked = true;
        self.rest(spare);
    }

    /// After a poll: a file kept closed between polls is closed (its buffer
    /// goes to `spare`), one kept open gives back a buffer grown for a long line.
    pub(crate) fn rest(&mut self, spare: &mut Vec<u8>) {
        let State::Open(lines) = &mut self.file else { return };
        if !self.parked {
            lines.shrink(KEEP_BUFFER);
            return;
        }
        let id = lines.get_ref().metadata().ok().as_ref().and_then(file_id);
        let mark = Mark { id, at: lines.resume_point(), read: lines.read_end() };
        if let State::Open(lines) = std::mem::replace(&mut self.file, State::Closed(mark)) {
            *spare = lines.into_buffer();
        }
    }

    /// The capture, the path shown and the open file's lines, to read on
    /// (`None` while closed).
    pub(crate) fn reading(&mut self) -> Option<(&Capture, &str, &mut LineReader<File>)> {
        match &mut self.file {
            State::Open(lines) => Some((&self.cap, &self.display, lines)),
            State::Closed(_) => None,
        }
    }

    /// Goes on with the file that replaced the old one, from its first byte
    /// (a held unfinished line of the old one is counted as torn).
    pub(crate) fn switch_to(&mut self, file: File, diag: &Diag) {
        if let State::Open(lines) = &mut self.file {
            if lines.pending() > 0 {
                diag.torn_tail();
            }
            lines.reset(file);
        }
    }

    /// Checks for truncation, rotation and a path that names something
    /// unusable, and reopens a file closed between polls (its buffer taken
    /// from `spare`). A truncation is dealt with here (`truncated`);
    /// errors (a path gone for now, a failed stat) count as no change: an
    /// open handle is read on.
    pub(crate) fn change(&mut self, diag: &Diag, spare: &mut Vec<u8>) -> Change {
        let mark = match &mut self.file {
            State::Closed(mark) => *mark,
            State::Open(lines) => {
                let Ok(open_meta) = lines.get_ref().metadata() else { return Change::Same };
                match std::fs::metadata(&self.path) {
                    Ok(m) if !m.is_file() => self.unusable(diag, "not a regular file now"),
                    Ok(m) if file_id(&m) != file_id(&open_meta) => {
                        if let Ok(file) = crate::files::open_regular(&self.path) {
                            self.unusable = false;
                            return Change::Replaced(file);
                        }
                    }
                    Ok(_) => self.unusable = false,
                    // Deleted (for now): its open handle is read on.
                    Err(_) => {}
                }
                if let State::Open(lines) = &mut self.file {
                    if open_meta.len() < lines.read_end() {
                        let held = lines.pending() > 0;
                        truncated(lines, open_meta.len(), held, &self.display, diag);
                    }
                }
                return Change::Same;
            }
        };
        match self.reopen(mark, diag, spare) {
            Ok(change) => {
                self.unusable = false;
                change
            }
            Err(Some(reason)) => {
                self.unusable(diag, &reason);
                Change::Wait
            }
            Err(None) => Change::Wait,
        }
    }

    /// Opens a file closed between polls by its path: the same file (device
    /// and inode) goes on where it was (a truncation dealt with), another one
    /// that replaced it is read from its first byte; the same file with
    /// nothing new is not opened (`Wait`). `Err(None)`: nothing there for
    /// now; `Err(Some)`: something there that is not read (a FIFO, a device,
    /// a file that cannot be opened, even for want of a descriptor), with why.
    fn reopen(&mut self, mark: Mark, diag: &Diag, spare: &mut Vec<u8>) -> Result<Change, Option<String>> {
        match std::fs::metadata(&self.path) {
            Ok(m) if !m.is_file() => return Err(Some("not a regular file now".into())),
            // The same file, no longer nor shorter: nothing to read (one stat).
            Ok(m) if file_id(&m) == mark.id && m.len() == mark.read => return Ok(Change::Wait),
            Ok(_) => {}
            Err(_) => return Err(None),
        }
        let reason = |e: std::io::Error| Some(e.to_string());
        let file = crate::files::open_regular(&self.path).map_err(reason)?;
        let meta = file.metadata().map_err(reason)?;
        let mut lines = LineReader::with_buffer(file, std::mem::take(spare));
        if file_id(&meta) == mark.id {
            lines.get_mut().seek(SeekFrom::Start(mark.at.offset)).map_err(reason)?;
            lines.restart_at(mark.at);
            if meta.len() < mark.read {
                truncated(&mut lines, meta.len(), mark.read > mark.at.offset, &self.display, diag);
            }
        }
        self.file = State::Open(lines);
        Ok(Change::Same)
    }

    /// Reports once that the path names nothing usable (a FIFO, a device, a
    /// directory, an unreadable file): an error. An open file is read on;
    /// the path is taken again once it names a readable regular file.
    fn unusable(&mut self, diag: &Diag, reason: &str) {
        if !self.unusable {
            self.unusable = true;
            diag.error(&format_args!(
                "{}: {reason}: not read until the path names a readable regular file again",
                self.display
            ));
        }
    }
}

/// A followed file that got shorter than what was read (`len` bytes) was
/// truncated: reported once, and reading goes on from its new end (what it
/// holds up to there was read already), so no line is taken twice. A cut
/// inside a held unfinished line reads that line again from its start (none
/// of it was taken); a cut inside a line taken before skips the rest of that
/// line. The lines before the new end are counted (one read of them), so
/// line numbers stay those of the file.
fn truncated(lines: &mut LineReader<File>, len: u64, held: bool, display: &str, diag: &Diag) {
    diag.note(&format_args!("{display}: file truncated to {len} bytes; reading on from there"));
    let at = lines.resume_point();
    if held && len <= at.offset {
        diag.torn_tail();
    }
    let file = lines.get_mut();
    let resume =
        if len >= at.offset { file.seek(SeekFrom::Start(at.offset)).map(|_| at) } else { lines_before(file, len) };
    match resume {
        Ok(at) => lines.restart_at(at),
        Err(e) => {
            diag.error(&format_args!("{display}: {e}"));
            let _ = lines.get_mut().seek(SeekFrom::Start(len));
            lines.restart_at(Resume { offset: len, mid_line: true, ..at });
        }
    }
}

/// Where byte `len` of `file` is as a place to read on from (the file is
/// left positioned there): how many lines end before it, and whether it is
/// inside a line. Reads the first `len` bytes (fewer when the file is now
/// shorter still).
fn lines_before(file: &mut File, len: u64) -> std::io::Result<Resume> {
    file.seek(SeekFrom::Start(0))?;
    let mut buf = vec![0; 64 * 1024];
    let mut at = Resume::default();
    let mut last = b'\n';
    let mut prefix = file.take(len);
    loop {
        let n = match prefix.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        at.number += memchr::memchr_iter(b'\n', &buf[..n]).count() as u64;
        at.offset += n as u64;
        last = buf[n - 1];
    }
    at.mid_line = last != b'\n';
    Ok(at)
}

#[cfg(unix)]
fn file_id(m: &std::fs::Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn file_id(_: &std::fs::Metadata) -> Option<(u64, u64)> {
    None
}
