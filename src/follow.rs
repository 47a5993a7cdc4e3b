//! Following captures that are still being written (`--follow` of ci-cat,
//! ci-grep and ci-filter).
//!
//! After the first pass over a capture, its files stay open and are polled
//! every [`POLL`] (200 ms; plain polling, portable and dependency-free, and
//! cheap: one `fstat` and one `stat` per file per round). Rules:
//!
//! - each complete (`\n`-terminated) line is emitted exactly once; an
//!   unterminated tail is held (neither emitted nor reported) until its
//!   newline arrives;
//! - **truncation** (the open file is now shorter than what was read, as
//!   after copytruncate or `truncate -s N`): reported once (`path: file
//!   truncated to N bytes; reading on from there`, not an error), and
//!   reading goes on from the new end, so no line is emitted twice: what the
//!   file holds up to there was read already. Line numbers stay the file's
//!   (the lines before the new end are counted). A cut inside a held
//!   unfinished line reads that line again from its start; a cut inside a
//!   line emitted before skips what is written to complete it (that line was
//!   taken); a held tail the cut removed is counted as torn. Emptied
//!   (`N` = 0), the file is read from its start again;
//! - **rotation** (the path now names another file, e.g. renamed away and
//!   recreated): the old file is read to its end first (nothing appended
//!   before the rename is lost), then the new file is followed from its first
//!   byte, line numbers restarting at 1;
//! - a path that comes to name something that is **not a regular file** (a
//!   FIFO, a device or a link to one, a directory) is never opened to read:
//!   reported once as an error, and the old file is read on through its open
//!   handle; the path is taken again (as a rotation) once it names a regular
//!   file;
//! - a file that is deleted and not recreated is still read through its open
//!   handle;
//! - **open files**: the soft limit on descriptors is raised to the hard
//!   limit at start ([`open_budget`]); followed files beyond it (less a
//!   reserve) are closed between polls and reopened by path at each one,
//!   told apart by device and inode, so rotation and truncation are still
//!   seen. For those, lines written to a file after the last poll and before
//!   it was renamed away or deleted are not seen;
//! - limits, as `tail -F`: a truncation followed by a rewrite past the old
//!   size within one poll interval is not seen as a truncation;
//! - new captures: the engine starts following a capture as soon as its
//!   session record arrives on stdin (`ci-find --follow | ci-cat -f`), so
//!   sessions that appear after the start are picked up when the producer
//!   announces them; captures named as paths are the ones there at start;
//! - a closed reader: while waiting, stdout is polled too ([`stdout_closed`]),
//!   so `ci-cat -f x | head -1` ends even when nothing new is ever written.
//!
//! SIGINT, SIGTERM and SIGHUP end following (see [`crate::signal`]): the
//! engine finishes the record at hand, flushes and the tool exits 0.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::PathBuf;
use std::time::Duration;

use crate::diag::Diag;
use crate::lines::{LineReader, Resume};
use crate::session::Capture;

use crate::signal::stop_requested;

/// How often followed files are polled for new bytes.
pub const POLL: Duration = Duration::from_millis(200);

/// Sleeps one poll interval, waking early when a stop is asked for.
pub fn nap() {
    for _ in 0..4 {
        if stop_requested() {
            return;
        }
        std::thread::sleep(POLL / 4);
    }
}

/// Whether the reader of stdout went away: on Linux, `poll(2)` on the write
/// end of a pipe whose read end is closed reports `POLLERR` (a hung-up
/// terminal or socket reports `POLLHUP`). A follower that is only waiting
/// writes nothing, so it would never see `EPIPE`; it asks this instead.
/// False when it cannot tell (a file, an error, a platform without poll).
#[cfg(unix)]
pub fn stdout_closed() -> bool {
    use rustix::event::{poll, PollFd, PollFlags, Timespec};
    let stdout = std::io::stdout();
    // No events asked for: only the always-reported error and hang-up.
    let mut fds = [PollFd::new(&stdout, PollFlags::empty())];
    let now = Timespec { tv_sec: 0, tv_nsec: 0 };
    matches!(poll(&mut fds, Some(&now)), Ok(n) if n > 0) && fds[0].revents().intersects(PollFlags::ERR | PollFlags::HUP)
}

/// Whether the reader of stdout went away (not known on this platform).
#[cfg(not(unix))]
pub fn stdout_closed() -> bool {
    false
}

/// Descriptors left for everything but the followed files kept open (the
/// standard streams, the signal handler's, the file being read, discovery of
/// a root named as PATH), at most half the limit.
const RESERVE: u64 = 64;

/// The buffer a followed file keeps between polls when it stays open, at
/// most (appended lines are short; a long one grows it while it is read).
const KEEP_BUFFER: usize = 16 * 1024;

/// Raises the soft limit on open files to the hard limit (`ulimit -n` is
/// often 1024 while the hard limit is far higher), and returns how many
/// followed files may stay open between polls: that limit less [`RESERVE`].
/// Followed files beyond it are closed between polls and reopened by path at
/// each ([`Followed::park`]).
#[cfg(unix)]
pub fn open_budget() -> usize {
    use rustix::process::{getrlimit, setrlimit, Resource, Rlimit};
    let limit = getrlimit(Resource::Nofile);
    let raised = Rlimit { current: limit.maximum, maximum: limit.maximum };
    // Refused where the hard limit is "unlimited" but the kernel caps it
    // (macOS): the soft limit stays.
    let soft = if limit.current != limit.maximum && setrlimit(Resource::Nofile, raised).is_ok() {
        raised.current
    } else {
        limit.current
    };
    soft.map_or(usize::MAX, |n| usize::try_from(n - RESERVE.min(n / 2)).unwrap_or(usize::MAX))
}

/// How many followed files may stay open between polls (no limit known).
#[cfg(not(unix))]
pub fn open_budget() -> usize {
    usize::MAX
}

/// Whether opening failed for want of a file descriptor (`EMFILE`, `ENFILE`).
pub fn out_of_descriptors(e: &std::io::Error) -> bool {
    #[cfg(unix)]
    {
        use rustix::io::Errno;
        [Errno::MFILE, Errno::NFILE].iter().any(|n| e.raw_os_error() == Some(n.raw_os_error()))
    }
    #[cfg(not(unix))]
    {
        let _ = e;
        false
    }
}

/// One file being followed.
pub struct Followed {
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
pub enum Change {
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
    pub fn new(cap: Capture, path: PathBuf, display: String, mut lines: LineReader<File>) -> Followed {
        lines.shrink(KEEP_BUFFER);
        Followed { cap, path, display, file: State::Open(lines), parked: false, unusable: false, done: false }
    }

    /// Whether it stays open between polls.
    pub fn is_open_between_polls(&self) -> bool {
        !self.parked
    }

    /// From now on, closes the file between polls (reopened by path and
    /// identity at each); its buffer goes to `spare`.
    pub fn park(&mut self, spare: &mut Vec<u8>) {
        self.parked = true;
        self.rest(spare);
    }

    /// After a poll: a file kept closed between polls is closed (its buffer
    /// goes to `spare`), one kept open gives back a buffer grown for a long line.
    pub fn rest(&mut self, spare: &mut Vec<u8>) {
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
    pub fn reading(&mut self) -> Option<(&Capture, &str, &mut LineReader<File>)> {
        match &mut self.file {
            State::Open(lines) => Some((&self.cap, &self.display, lines)),
            State::Closed(_) => None,
        }
    }

    /// Goes on with the file that replaced the old one, from its first byte
    /// (a held unfinished line of the old one is counted as torn).
    pub fn switch_to(&mut self, file: File, diag: &Diag) {
        if let State::Open(lines) = &mut self.file {
            if lines.pending() > 0 {
                diag.torn_tail();
            }
            lines.reset(file);
        }
    }

    /// Checks for truncation, rotation and a path that names something
    /// unusable, and reopens a file closed between polls (its buffer taken
    /// from `spare`). A truncation is dealt with here ([`truncated`]);
    /// errors (a path gone for now, a failed stat) count as no change: an
    /// open handle is read on.
    pub fn change(&mut self, diag: &Diag, spare: &mut Vec<u8>) -> Change {
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

/// The FOLLOW section shared by the `--help` of the tools that follow
/// (ci-cat, ci-grep, ci-filter); each adds a note of its own.
const HELP: &str = "\
  After every capture named, discovered or piped at start is read, keep
  reading the captures as they grow, polling every 200 ms on one thread, and
  take each new complete line once, as soon as its newline is written (a line
  without its newline yet is held, not reported). Output is flushed after each
  batch. Truncation (the file gets shorter): reported on stderr, and reading
  goes on from its new end (from its start when emptied), with the file's own
  line numbers: nothing printed before is printed again. Rotation (the path
  now names a new file): the old file is read to its end, then the new one
  from its start. Session records on stdin are read and followed as each
  arrives, so sessions that appear later are picked up:
    ci-find --follow --root ROOT | TOOL -f ...
  (ci-find --follow prints a session once its events.jsonl exists). Captures
  named as PATH are those there at start. Event records on stdin are passed on
  line by line (`tail -f x | TOOL -f -`). SIGINT/SIGTERM/SIGHUP: finish the
  record at hand, flush, exit 0. A closed reader (`| head -1`) ends the run
  quietly with 0, even while nothing new is written. Claude hook sessions are
  followed file by file (no time ordering; hook files created later are not
  picked up). A path that comes to name a FIFO, device or directory is never
  read: reported once, the old file read on, the path taken again once it is
  a regular file. Uses one thread; raises the soft open-file limit to the
  hard one, and files beyond it are closed between polls and reopened.";

/// A tool's long help: `text` with the FOLLOW section (the shared text and
/// the tool's own `note`) put before its EXIT STATUS section, if any.
pub fn long_help(text: &str, tool: &str, note: &str) -> String {
    let section = format!("\n\nFOLLOW (-f, --follow):\n  {}\n  {note}", HELP.replace("TOOL", tool));
    let at = text.find("\n\nEXIT STATUS:").unwrap_or(text.len());
    format!("{}{section}{}", &text[..at], &text[at..])
}
