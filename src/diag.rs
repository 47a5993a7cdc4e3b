//! Diagnostics: `path:line: reason` reports, skip counters and the one summary
//! line at the end of a run.
//!
//! A bad line never stops the stream: it is reported on stderr, skipped and
//! counted. Workers on several threads share one [`Diag`].

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashSet;
use std::fmt;
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Acquire, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

/// Writes one report to stderr, ignoring a closed stderr. Control characters
/// in it (from a file name, an id, a value) are escaped, so it never forges
/// a line and never reaches the terminal as an escape sequence
/// ([`crate::text::printable::escape_report`]).
///
/// On a thread that holds its reports back ([`hold_reports`]) they are kept
/// until its turn comes.
pub fn eprint(args: fmt::Arguments<'_>) {
    REPORTS.with(|n| n.set(n.get() + 1));
    let text = args.as_str().map_or_else(|| Cow::Owned(args.to_string()), Cow::Borrowed);
    let safe = crate::text::printable::escape_report(&text);
    if HELD.with(|h| h.borrow_mut().as_mut().is_some_and(|h| h.hold(safe.as_bytes()))) {
        return;
    }
    let mut e = std::io::stderr().lock();
    crate::progress::clear(&mut e);
    let _ = e.write_all(safe.as_bytes());
    let _ = e.write_all(b"\n");
}

thread_local! {
    /// Reports printed by this thread ([`reports_here`]).
    static REPORTS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How many reports this thread has printed so far: a worker compares it
/// before and after reading a capture to know whether reading it said
/// anything (the capture cache keeps only captures that read silently, so a
/// run answered from it prints what a run without it prints).
pub fn reports_here() -> u64 {
    REPORTS.with(std::cell::Cell::get)
}

/// Writes reports held back ([`release_reports`]) to stderr, as they are.
pub fn write_reports(bytes: &[u8]) {
    if !bytes.is_empty() {
        let _ = std::io::stderr().lock().write_all(bytes);
    }
}

thread_local! {
    /// The reports this thread holds back ([`hold_reports`]).
    static HELD: RefCell<Option<Held>> = const { RefCell::new(None) };
}

/// Reports held back until `turn` is `mine`.
struct Held {
    turn: Arc<AtomicUsize>,
    mine: usize,
    buf: Vec<u8>,
}

impl Held {
    /// Keeps `report` when it is not this thread's turn yet (true); else
    /// writes what it kept, and the caller writes `report` (false).
    fn hold(&mut self, report: &[u8]) -> bool {
        if self.turn.load(Acquire) == self.mine {
            write_reports(&std::mem::take(&mut self.buf));
            return false;
        }
        self.buf.extend_from_slice(report);
        self.buf.push(b'\n');
        true
    }
}

/// From now on this thread's reports ([`eprint()`]: bad lines, errors,
/// warnings) are held back while `turn` is not `mine`, and go to stderr
/// directly once it is (what was held first). So the reports of one capture
/// read in parts by several threads come out in the order of a whole read:
/// the part whose turn it is writes, the others hold theirs until
/// [`release_reports`] hands them to whoever writes them in turn.
pub fn hold_reports(turn: Arc<AtomicUsize>, mine: usize) {
    HELD.with(|h| *h.borrow_mut() = Some(Held { turn, mine, buf: Vec::new() }));
}

/// Ends [`hold_reports`] on this thread and returns the reports still held.
pub fn release_reports() -> Vec<u8> {
    HELD.with(|h| h.borrow_mut().take().map(|h| h.buf).unwrap_or_default())
}

/// Shared diagnostics of one run.
#[derive(Debug)]
pub struct Diag {
    prog: &'static str,
    strict: bool,
    bad_lines: AtomicU64,
    torn_tails: AtomicU64,
    errors: AtomicU64,
    untimed: AtomicU64,
    stopped: AtomicBool,
    /// Errors already printed: two writers that find the same unreadable
    /// directory report it once. Shared with the [`Diag::again`] of a run.
    reported: Arc<Mutex<HashSet<String>>>,
    /// Every report is printed once ([`Diag::again`]).
    once: bool,
}

impl Diag {
    /// Diagnostics for the tool `prog`; with `strict`, any bad line fails the run.
    pub fn new(prog: &'static str, strict: bool) -> Diag {
        Diag {
            prog,
            strict,
            bad_lines: AtomicU64::new(0),
            torn_tails: AtomicU64::new(0),
            errors: AtomicU64::new(0),
            untimed: AtomicU64::new(0),
            stopped: AtomicBool::new(false),
            reported: Arc::new(Mutex::new(HashSet::new())),
            once: false,
        }
    }

    /// Diagnostics for reading the same inputs again (`ci-agg --follow`
    /// re-reads them at each update): counters from zero, and every report
    /// (bad line, error, note, warning) printed at most once over all the
    /// diagnostics made from this one, so what an earlier reading said is not
    /// said again. A report not printed still counts as printed on its thread
    /// ([`reports_here`]), as the capture cache needs.
    pub fn again(&self) -> Diag {
        Diag { reported: Arc::clone(&self.reported), once: true, ..Diag::new(self.prog, self.strict) }
    }

    /// Adds the counts of `other` (a [`Diag::again`] of this one) to these,
    /// for the summary line and the exit status.
    pub fn absorb(&self, other: &Diag) {
        self.add_skipped(other.bad_lines(), other.torn_tails());
        self.add_untimed(other.untimed.load(Relaxed));
        self.errors.fetch_add(other.errors.load(Relaxed), Relaxed);
    }

    /// Prints `text` unless it was printed before and every report is
    /// printed once ([`Diag::again`]).
    fn report(&self, text: fmt::Arguments<'_>) {
        if self.once {
            let text = text.to_string();
            if !self.reported.lock().map_or(true, |mut seen| seen.insert(text.clone())) {
                REPORTS.with(|n| n.set(n.get() + 1));
                return;
            }
            return eprint(format_args!("{text}"));
        }
        eprint(text);
    }

    /// The tool's name, for messages.
    pub fn prog(&self) -> &'static str {
        self.prog
    }

    /// Reports a skipped line as `path:line: reason`.
    pub fn bad_line(&self, path: &dyn fmt::Display, line: u64, reason: &dyn fmt::Display) {
        self.bad_lines.fetch_add(1, Relaxed);
        self.report(format_args!("{path}:{line}: {reason}"));
    }

    /// Counts an unfinished last line (a capture still being written): not an error.
    pub fn torn_tail(&self) {
        self.torn_tails.fetch_add(1, Relaxed);
    }

    /// Adds lines skipped by other runs whose reports were printed there
    /// (`ci-agg --merge` of `--partial` streams), so this run's summary line
    /// and `--strict` count them too.
    pub fn add_skipped(&self, bad_lines: u64, torn_tails: u64) {
        self.bad_lines.fetch_add(bad_lines, Relaxed);
        self.torn_tails.fetch_add(torn_tails, Relaxed);
    }

    /// Counts a record that had no usable timestamp for a time-based job.
    pub fn untimed(&self) {
        self.untimed.fetch_add(1, Relaxed);
    }

    /// Counts `n` such records at once (a capture answered from the cache
    /// counts what reading it counted).
    pub fn add_untimed(&self, n: u64) {
        self.untimed.fetch_add(n, Relaxed);
    }

    /// Reports an error that skips a whole input (an unreadable file); the run
    /// goes on but ends with exit code 2.
    /// The same message twice is printed once.
    pub fn error(&self, msg: &dyn fmt::Display) {
        self.errors.fetch_add(1, Relaxed);
        let text = msg.to_string();
        let fresh = self.reported.lock().map_or(true, |mut seen| seen.insert(text.clone()));
        if fresh {
            eprint(format_args!("{}: {text}", self.prog));
        }
    }

    /// A note on what a run found (`looked in R, found 0`): one line,
    /// `prog: message`, that does not change the exit code.
    pub fn note(&self, msg: &dyn fmt::Display) {
        self.report(format_args!("{}: {msg}", self.prog));
    }

    /// A warning that does not change the exit code.
    pub fn warn(&self, msg: &dyn fmt::Display) {
        self.report(format_args!("{}: warning: {msg}", self.prog));
    }

    /// Bad lines skipped so far.
    pub fn bad_lines(&self) -> u64 {
        self.bad_lines.load(Relaxed)
    }

    /// Unfinished last lines held back so far.
    pub fn torn_tails(&self) -> u64 {
        self.torn_tails.load(Relaxed)
    }

    /// Asks every worker to stop early (stdout closed).
    pub fn stop(&self) {
        self.stopped.store(true, Relaxed);
    }

    /// Whether [`Diag::stop`] was called.
    pub fn is_stopped(&self) -> bool {
        self.stopped.load(Relaxed)
    }

    /// Whether the run must end with exit code 2.
    pub fn failed(&self) -> bool {
        self.errors.load(Relaxed) > 0 || (self.strict && self.bad_lines() > 0)
    }

    /// Prints the one summary line when anything was skipped.
    pub fn summary(&self) {
        let bad = self.bad_lines();
        let torn = self.torn_tails();
        let untimed = self.untimed.load(Relaxed);
        let mut parts = vec![];
        if bad > 0 {
            parts.push(format!("{bad} bad line{} skipped", crate::text::plural(bad)));
        }
        if torn > 0 {
            parts.push(format!(
                "{torn} unfinished last line{} held back (capture still being written?)",
                crate::text::plural(torn)
            ));
        }
        if untimed > 0 {
            parts.push(format!("{untimed} record{} without a usable timestamp", crate::text::plural(untimed)));
        }
        if !parts.is_empty() {
            let hint = if bad > 0 && !self.strict { " (--strict makes bad lines an error)" } else { "" };
            eprint(format_args!("{}: {}{hint}", self.prog, parts.join(", ")));
        }
    }
}
