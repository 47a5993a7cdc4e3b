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
//! - **truncation** (the open file is now shorter than what was read): the
//!   file is read again from its first byte and its line numbers restart at
//!   1; the held tail, if any, is dropped and counted as torn. Lines emitted
//!   before the truncation are never emitted again: what the file held before
//!   is gone, and only what is written after it is new;
//! - **rotation** (the path now names another file, e.g. renamed away and
//!   recreated): the old file is read to its end first (nothing appended
//!   before the rename is lost), then the new file is followed from its first
//!   byte, line numbers restarting at 1;
//! - a file that is deleted and not recreated is still read through its open
//!   handle;
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
use std::io::Seek;
use std::path::PathBuf;
use std::time::Duration;

use crate::lines::LineReader;
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

/// One file being followed.
pub struct Followed {
    /// The capture it belongs to (for provenance).
    pub cap: Capture,
    /// Its path, as opened.
    pub path: PathBuf,
    /// Its path as shown.
    pub display: String,
    /// The open file, positioned after the last byte read.
    pub lines: LineReader<File>,
    /// True once the visitor stopped reading it.
    pub done: bool,
}

/// What happened to a followed file since the last poll.
pub enum Change {
    /// Nothing unusual (it may have grown).
    Same,
    /// It is shorter than what was read: read it again from the start.
    Truncated(File),
    /// Its path names another file now: read the old one to its end, then this.
    Replaced(File),
}

impl Followed {
    /// Checks for truncation and rotation. Errors (a path gone for now, a
    /// failed stat) count as no change: the open handle is read on.
    pub fn change(&self) -> Change {
        let mut handle = self.lines.get_ref();
        let Ok(open_meta) = handle.metadata() else { return Change::Same };
        if let Ok(path_meta) = std::fs::metadata(&self.path) {
            if file_id(&path_meta) != file_id(&open_meta) {
                // Rotated to something that is not a regular file (a FIFO, a
                // link to a device): never switched to; the old file is read on.
                let reopened = crate::files::open_regular(&self.path);
                return reopened.map(Change::Replaced).unwrap_or(Change::Same);
            }
        }
        match handle.stream_position() {
            Ok(read) if open_meta.len() < read => {
                crate::files::open_regular(&self.path).map(Change::Truncated).unwrap_or(Change::Same)
            }
            _ => Change::Same,
        }
    }
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
  batch. Truncation (the file gets shorter): it is read again from its start,
  line numbers restart at 1, and nothing printed before is printed again.
  Rotation (the path now names a new file): the old file is read to its end,
  then the new one from its start. Session records on stdin are read and
  followed as each arrives, so sessions that appear later are picked up:
    ci-find --follow --root ROOT | TOOL -f ...
  (ci-find --follow prints a session once its events.jsonl exists). Captures
  named as PATH are those there at start. Event records on stdin are passed on
  line by line (`tail -f x | TOOL -f -`). SIGINT/SIGTERM/SIGHUP: finish the
  record at hand, flush, exit 0. A closed reader (`| head -1`) ends the run
  quietly with 0, even while nothing new is written. Claude hook sessions are
  followed file by file (no time ordering; hook files created later are not
  picked up). Uses one thread.";

/// A tool's long help: `text` with the FOLLOW section (the shared text and
/// the tool's own `note`) put before its EXIT STATUS section, if any.
pub fn long_help(text: &str, tool: &str, note: &str) -> String {
    let section = format!("\n\nFOLLOW (-f, --follow):\n  {}\n  {note}", HELP.replace("TOOL", tool));
    let at = text.find("\n\nEXIT STATUS:").unwrap_or(text.len());
    format!("{}{section}{}", &text[..at], &text[at..])
}
