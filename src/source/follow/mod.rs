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
//! - **new files of a session**: every [`RELIST`] the record of each followed
//!   session active within [`ACTIVE`] (one hour) is made again from its path (`Layout::record_of_file`), and
//!   its files not followed yet (a Claude subagent's transcript written
//!   after the start) are followed from their first line; a session whose
//!   record is not made from a file (Claude hook sessions, a directory) gets
//!   no new files;
//! - **databases** (a writer whose records are rows, [`crate::lines::rows`]):
//!   at each poll where the database or its `-wal` changed, the session's
//!   rows are listed again on a new read-only connection and each row not
//!   taken yet is read; a row its writer still rewrites
//!   ([`crate::format::Dialect::unfinished`]) is held until finished, as an
//!   unterminated line is, so each row is taken once, whole ([`rows`]);
//! - a closed reader: while waiting, stdout is polled too ([`stdout_closed`]),
//!   so `ci-cat -f x | head -1` ends even when nothing new is ever written.
//!
//! SIGINT, SIGTERM and SIGHUP end following (see [`crate::signal`]): the
//! engine finishes the record at hand, flushes and the tool exits 0.

mod file;
mod rows;
mod worker;

pub(crate) use self::file::{Change, Followed};
pub(crate) use self::rows::FollowedRows;

/// The writer's state ([`crate::format::ReadState`]) of each followed
/// capture, by session and path, and the capture whose state is the
/// worker's current one: each capture keeps its own (a Copilot session's
/// running roll-up counters, whether its store's rows were read), so
/// captures followed together do not change each other's events.
#[derive(Default)]
pub(crate) struct States {
    kept: std::collections::HashMap<(String, std::path::PathBuf), crate::format::ReadState>,
    current: Option<(String, std::path::PathBuf)>,
}

use std::time::Duration;

use crate::format::{self, Order};
use crate::signal::stop_requested;

/// How often followed files are polled for new bytes.
pub(crate) const POLL: Duration = Duration::from_millis(200);

/// How often the files of followed sessions are listed again, for files a
/// writer adds to a session later ([`Followed`] of each).
pub(crate) const RELIST: Duration = Duration::from_secs(1);

/// Only the sessions whose files grew (or were written, before they were
/// followed) within this long are listed again: a history of thousands of
/// idle sessions costs no listing.
pub(crate) const ACTIVE: Duration = Duration::from_secs(3600);

/// Sleeps one poll interval, waking early when a stop is asked for.
pub(crate) fn nap() {
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
pub(crate) fn stdout_closed() -> bool {
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

/// Raises the soft limit on open files to the hard limit (`ulimit -n` is
/// often 1024 while the hard limit is far higher), and returns how many
/// followed files may stay open between polls: that limit less `RESERVE`.
/// Followed files beyond it are closed between polls and reopened by path at
/// each ([`Followed::park`]).
#[cfg(unix)]
pub(crate) fn open_budget() -> usize {
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
pub(crate) fn out_of_descriptors(e: &std::io::Error) -> bool {
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
  named as PATH are those there at start; files a writer adds to a followed
  session written to in the last hour (a subagent's transcript) are found
  within a second and read from their first line. Event records on stdin are passed on
  line by line (`tail -f x | TOOL -f -`). SIGINT/SIGTERM/SIGHUP: finish the
  record at hand, flush, exit 0. A closed reader (`| head -1`) ends the run
  quietly with 0, even while nothing new is written. Sessions read in time
  order (TIME ORDERED) are followed file by file (no time ordering; their files
  created later are not picked up). A path that comes to name a FIFO, device or directory is never
  read: reported once, the old file read on, the path taken again once it is
  a regular file. A database whose rows are records is polled alike: when it
  or its -wal changed, the session's rows are listed again read-only (never
  blocking its writer) and each new row is taken once, as soon as its writer
  finished it (a row still being rewritten is held, as a line without its
  newline). Uses one thread; raises the soft open-file limit to the hard one,
  and files beyond it are closed between polls and reopened.";

/// A tool's long help: `text` with the FOLLOW section (the shared text and
/// the tool's own `note`) put before its EXIT STATUS section, if any.
pub(crate) fn long_help(text: &str, tool: &str, note: &str) -> String {
    let help = HELP.replace("TOOL", tool).replace("TIME ORDERED", &format::names(|f| f.profile.order == Order::Time));
    let section = format!("\n\nFOLLOW (-f, --follow):\n  {help}\n  {note}");
    let at = text.find("\n\nEXIT STATUS:").unwrap_or(text.len());
    format!("{}{section}{}", &text[..at], &text[at..])
}
