//! Progress on a terminal: a long run over a large history (ci-agg's first
//! run, which builds the capture cache) shows on stderr, when stderr is a
//! terminal, one line it keeps rewriting:
//!
//! ```text
//! ci-agg: 1,204 of 3,604 captures, 412 MB of 1.1 GB, 380 MB/s, 2 s left
//! ```
//!
//! It appears after [`AFTER`] (a quick run shows nothing), is redrawn every
//! [`EVERY`], and is cleared at the end and before every report ([`crate::diag::eprint`]
//! clears it first, so a report is never written over). The totals grow as
//! inputs are discovered; "left" is shown once every input is known. Nothing
//! is shown when stderr is not a terminal (a pipe, a file, cron).
//! `CI_PROGRESS_AFTER_MS` sets the delay (the tests set 0).

use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

/// How long a run goes before its progress shows.
pub const AFTER: Duration = Duration::from_millis(500);
/// How often the line is redrawn.
pub const EVERY: Duration = Duration::from_millis(200);

static ON: AtomicBool = AtomicBool::new(false);
static SHOWN: AtomicBool = AtomicBool::new(false);
static KNOWN: AtomicBool = AtomicBool::new(false);
static TOTAL_UNITS: AtomicU64 = AtomicU64::new(0);
static TOTAL_BYTES: AtomicU64 = AtomicU64::new(0);
static DONE_UNITS: AtomicU64 = AtomicU64::new(0);
static DONE_BYTES: AtomicU64 = AtomicU64::new(0);

/// Starts counting (before any input is dealt; [`show`] shows the counts).
pub fn start() {
    for n in [&TOTAL_UNITS, &TOTAL_BYTES, &DONE_UNITS, &DONE_BYTES] {
        n.store(0, Relaxed);
    }
    KNOWN.store(false, Relaxed);
    ON.store(true, Relaxed);
}

/// Counts work dealt: `captures` and the `bytes` they are expected to read.
#[inline]
pub fn dealt(captures: u64, bytes: u64) {
    if ON.load(Relaxed) {
        TOTAL_UNITS.fetch_add(captures, Relaxed);
        TOTAL_BYTES.fetch_add(bytes, Relaxed);
    }
}

/// Counts work done (a part of a capture read in parts counts its bytes,
/// and its capture once, with its last part).
#[inline]
pub fn done(captures: u64, bytes: u64) {
    if ON.load(Relaxed) {
        DONE_UNITS.fetch_add(captures, Relaxed);
        DONE_BYTES.fetch_add(bytes, Relaxed);
    }
}

/// Every input is known: the totals are final.
pub fn all_dealt() {
    KNOWN.store(true, Relaxed);
}

/// Clears the line if it is shown (before a report is written).
pub fn clear(err: &mut impl Write) {
    if SHOWN.swap(false, Relaxed) {
        let _ = err.write_all(b"\r\x1b[K");
    }
}

/// Shows progress for `prog` while `running` returns true, redrawing every
/// [`EVERY`]; returns when it does not (then the line is cleared and
/// counting stops). Run on a thread of its own after [`start`], and only
/// when stderr is a terminal.
pub fn show(prog: &str, running: impl Fn() -> bool) {
    let start = Instant::now();
    let after =
        std::env::var("CI_PROGRESS_AFTER_MS").ok().and_then(|v| v.parse().ok()).map_or(AFTER, Duration::from_millis);
    let mut next = start + after;
    while running() {
        std::thread::sleep(Duration::from_millis(20));
        let now = Instant::now();
        if now < next {
            continue;
        }
        next = now + EVERY;
        let counts = Counts {
            done: (DONE_UNITS.load(Relaxed), DONE_BYTES.load(Relaxed)),
            total: (TOTAL_UNITS.load(Relaxed), TOTAL_BYTES.load(Relaxed)),
            known: KNOWN.load(Relaxed),
        };
        let text = line(prog, &counts, now - start);
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r\x1b[K{text}");
        let _ = err.flush();
        SHOWN.store(true, Relaxed);
    }
    ON.store(false, Relaxed);
    clear(&mut std::io::stderr().lock());
}

/// What the line reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    /// Units and bytes done.
    pub done: (u64, u64),
    /// Units and bytes dealt so far.
    pub total: (u64, u64),
    /// Whether every input is known (the totals are final).
    pub known: bool,
}

/// The progress line of `prog` after `elapsed`.
///
/// ```
/// use ci_tools::progress::{line, Counts};
/// let c = Counts { done: (1204, 412 << 20), total: (3604, 1100 << 20), known: true };
/// assert_eq!(
///     line("ci-agg", &c, std::time::Duration::from_secs(1)),
///     "ci-agg: 1,204 of 3,604 captures, 412 MiB of 1.1 GiB, 412 MiB/s, 2 s left"
/// );
/// ```
pub fn line(prog: &str, c: &Counts, elapsed: Duration) -> String {
    let secs = elapsed.as_secs_f64().max(0.001);
    let rate = c.done.1 as f64 / secs;
    let mut out = format!(
        "{prog}: {} of {} captures, {} of {}, {}/s",
        thousands(c.done.0),
        thousands(c.total.0),
        bytes(c.done.1 as f64),
        bytes(c.total.1 as f64),
        bytes(rate)
    );
    if c.known && rate > 0.0 && c.total.1 >= c.done.1 {
        let left = (c.total.1 - c.done.1) as f64 / rate;
        out.push_str(&format!(", {} s left", left.ceil() as u64));
    }
    out
}

fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn bytes(n: f64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if n < 1024.0 {
        return format!("{} B", n as u64);
    }
    let mut v = n / 1024.0;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if v < 10.0 {
        format!("{v:.1} {}", UNITS[u])
    } else {
        format!("{} {}", v.round() as u64, UNITS[u])
    }
}
