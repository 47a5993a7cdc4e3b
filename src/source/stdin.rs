//! Standard input: whether it is the input at all ([`stdin_has_data`]), and
//! reading it, where session records (from `ci-find`) become units of their
//! own and event lines are batched.

use std::fs::File;
use std::io;

use super::deal::{Dealer, Unit};
use super::follow::POLL;
use crate::diag::Diag;
use crate::format::LineKind;
use crate::json::Index;
use crate::lines::LineReader;
use crate::session::{Capture, SessionRecord};

/// Whether stdin, with no PATH given, is the input: the one rule of every
/// ci-* tool that reads stdin (ripgrep decides the same way).
///
/// Yes when it is a FIFO (a pipe), a socket or a regular file (`< file`);
/// no for anything else: a terminal, `/dev/null` or another character device
/// (cron, CI runners and subprocess launchers often give `/dev/null`), a
/// directory, or a stdin that cannot be inspected (closed: Rust reopens a
/// closed stdin on `/dev/null` at start-up). Then the default roots are read,
/// as on a terminal. An explicit `-` reads stdin whatever it is.
pub(crate) fn stdin_has_data() -> bool {
    stdin_kind_has_data()
}

#[cfg(unix)]
pub(super) fn stdin_kind_has_data() -> bool {
    use std::os::fd::AsFd;
    use std::os::unix::fs::FileTypeExt;
    // Inspect a duplicate of fd 0 (fstat; nothing is read from it).
    let Ok(fd) = io::stdin().as_fd().try_clone_to_owned() else {
        return false;
    };
    match File::from(fd).metadata() {
        Ok(m) => {
            let t = m.file_type();
            t.is_fifo() || t.is_socket() || t.is_file()
        }
        Err(_) => false,
    }
}

#[cfg(not(unix))]
pub(super) fn stdin_kind_has_data() -> bool {
    use std::io::IsTerminal;
    !io::stdin().is_terminal()
}

/// Reads stdin: session records become captures, event lines are batched.
/// Piped event lines are sent in units of at least `batch_size` bytes.
/// Following, a full batch is also handed on when stdin makes the reader wait.
pub(super) fn produce_stdin(
    dealer: &mut Dealer,
    diag: &Diag,
    batch_size: usize,
    deal_on_idle: bool,
    follow: bool,
) -> bool {
    let send = |dealer: &mut Dealer, unit: Unit| {
        crate::progress::dealt(unit.captures(), unit.weight());
        dealer.push(unit) && !diag.is_stopped()
    };
    let mut lines = LineReader::new(StdinReader::new(diag));
    let mut idx = Index::new();
    let mut batch: Vec<u8> = Vec::new();
    let mut first = 0u64;
    // Only the last line of stdin can lack its `\n`.
    let mut open_tail = false;
    let finder = memchr::memmem::Finder::new(b"\"event\"");
    // Canonical lines put `event` after a payload of up to megabytes, spaced
    // ones put it first: look at the head, then search from the end.
    let finder_rev = memchr::memmem::FinderRev::new(b"\"event\"");
    let has_event_key = |l: &[u8]| finder.find(&l[..l.len().min(256)]).is_some() || finder_rev.rfind(l).is_some();
    loop {
        // Reading may wait for the writer of stdin: hand on what was dealt,
        // and when following, a full batch (though the next line might have
        // continued it: one worker reads every batch then, and remembers).
        if follow
            && batch.len() >= batch_size
            && !lines.line_ready()
            && !send(dealer, Unit::Piped { buf: std::mem::take(&mut batch), first, open_tail })
        {
            return false;
        }
        if deal_on_idle && !dealer.batch.is_empty() && !lines.line_ready() && !dealer.flush() {
            return false;
        }
        let line = match lines.next_line() {
            Ok(Some(l)) => l,
            Ok(None) => break,
            Err(e) => {
                diag.error(&format_args!("-: {e}"));
                break;
            }
        };
        if line.too_long {
            // Not batched (its bytes were not kept): the lines before it are
            // sent first, so that each batch stays numbered from its first.
            if !batch.is_empty() && !send(dealer, Unit::Piped { buf: std::mem::take(&mut batch), first, open_tail }) {
                return false;
            }
            diag.bad_line(&"-", line.number, &crate::lines::TooLong);
            continue;
        }
        // Event records are validated by the workers; only lines that cannot be
        // events are parsed here to find session records, each dealt as a unit
        // of its own. This is routing only: a session record that a string
        // `"event"` hides from this byte check is told apart by its top-level
        // keys in the worker, and expanded there, in its place in the stream.
        let session = if has_event_key(line.bytes) {
            None
        } else {
            match idx.parse(line.bytes) {
                Ok(rec) if LineKind::of(&rec) == LineKind::Session => Some(session_record(line.bytes)),
                _ => None,
            }
        };
        match session {
            None => {
                // A full batch is sent before the next line, unless that line
                // is another match record of the same event (they are read
                // again as one, [`super::piped`]).
                if batch.len() >= batch_size
                    && !same_event(&batch, line.bytes)
                    && !send(dealer, Unit::Piped { buf: std::mem::take(&mut batch), first, open_tail })
                {
                    return false;
                }
                if batch.is_empty() {
                    first = line.number;
                }
                batch.extend_from_slice(line.bytes);
                batch.push(b'\n');
                open_tail = !line.terminated;
            }
            Some(rec) => {
                if !batch.is_empty() && !send(dealer, Unit::Piped { buf: std::mem::take(&mut batch), first, open_tail })
                {
                    return false;
                }
                match rec {
                    Ok(r) if Capture::unsafe_record(&r).is_some() => {
                        let reason = Capture::unsafe_record(&r).unwrap_or_default();
                        diag.error(&format_args!("-:{}: {reason}", line.number));
                    }
                    Ok(r) => {
                        if !send(dealer, Unit::Session(Box::new(r), line.bytes.to_vec())) {
                            return false;
                        }
                    }
                    Err(reason) => diag.bad_line(&"-", line.number, &reason),
                }
            }
        }
    }
    if stopping(diag) {
        // A stop ended the reading (or came with its end): nothing more is dealt.
        return false;
    }
    batch.is_empty() || send(dealer, Unit::Piped { buf: batch, first, open_tail })
}

/// Whether `line` is a match record of the same event as the last line of
/// `batch`: ci-grep prints an event's matches one after another, each
/// ending with the same `ci` (a cheap byte test; the worker decides).
fn same_event(batch: &[u8], line: &[u8]) -> bool {
    let last = batch.strip_suffix(b"\n").unwrap_or(batch);
    let last = &last[memchr::memrchr(b'\n', last).map_or(0, |i| i + 1)..];
    fn ci(l: &[u8]) -> Option<&[u8]> {
        memchr::memmem::rfind(l, b"\"ci\":").map(|i| &l[i..])
    }
    memchr::memmem::find(line, b"\"snippet\":").is_some() && ci(line).is_some_and(|c| ci(last) == Some(c))
}

/// Whether the run is stopping: a signal, or stdout's reader gone (the
/// diagnostics stopped, [`Diag::stop`]).
fn stopping(diag: &Diag) -> bool {
    crate::signal::stop_requested() || diag.is_stopped()
}

/// Stdin as the producer reads it. A read that could wait (a pipe, a
/// socket, a terminal) first waits in `poll(2)` steps of [`POLL`], and ends
/// the input when the run is [`stopping`]: so a producer waiting on an idle
/// stdin (`tail -f x | ci-cat`) ends too, and the run returns its outcome
/// instead of waiting for a line that may never come. A regular file never
/// makes a read wait: read without the poll. Read through a duplicate of
/// fd 0, not through std's buffered `Stdin`, whose buffer a poll of the
/// descriptor would not see.
enum StdinReader<'d> {
    /// Polled before each read.
    #[cfg(unix)]
    Polled { file: File, diag: &'d Diag },
    /// Read as it is (a regular file; a platform without poll; a descriptor
    /// that could not be duplicated).
    Plain(io::StdinLock<'static>, std::marker::PhantomData<&'d Diag>),
}

impl<'d> StdinReader<'d> {
    fn new(diag: &'d Diag) -> StdinReader<'d> {
        #[cfg(unix)]
        {
            use std::os::fd::AsFd;
            let file = io::stdin().as_fd().try_clone_to_owned().map(File::from);
            if let Ok(file) = file {
                if !file.metadata().is_ok_and(|m| m.is_file()) {
                    return StdinReader::Polled { file, diag };
                }
            }
        }
        #[cfg(not(unix))]
        let _ = diag;
        StdinReader::Plain(io::stdin().lock(), std::marker::PhantomData)
    }
}

impl io::Read for StdinReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            #[cfg(unix)]
            StdinReader::Polled { file, diag } => {
                while !readable(file) {
                    if stopping(diag) {
                        return Ok(0);
                    }
                }
                file.read(buf)
            }
            StdinReader::Plain(stdin, _) => stdin.read(buf),
        }
    }
}

/// Waits up to [`POLL`] for `file` to be readable (data, its end, or an
/// error a read will report); false when the time ran out.
#[cfg(unix)]
fn readable(file: &File) -> bool {
    use rustix::event::{poll, PollFd, PollFlags, Timespec};
    let mut fds = [PollFd::new(file, PollFlags::IN)];
    let step = Timespec { tv_sec: POLL.as_secs() as i64, tv_nsec: i64::from(POLL.subsec_nanos()) };
    match poll(&mut fds, Some(&step)) {
        Ok(n) => n > 0,
        Err(rustix::io::Errno::INTR) => false,
        // Let the read report it.
        Err(_) => true,
    }
}

/// A session record read from stdin, as a `SessionRecord`.
pub(super) fn session_record(line: &[u8]) -> std::result::Result<SessionRecord, String> {
    serde_json::from_slice::<SessionRecord>(line).map_err(|e| format!("invalid session record: {e}"))
}
