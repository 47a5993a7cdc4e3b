//! Turns arguments, stdin and session records into one ordered event stream,
//! read in parallel.
//!
//! Inputs are paths (an `events.jsonl`, a session directory, a root to
//! discover) or `-` for stdin; with no path, stdin is read when it carries
//! data (a pipe, a socket or a regular file, see [`stdin_has_data`]), and the
//! default roots otherwise (a terminal, `/dev/null`, any other character
//! device). On stdin, a session record (from
//! `ci-find`) is expanded into its capture's events and an event record passes
//! through with the provenance it carries.
//!
//! Work is split into units (one capture, a part of a large one read by
//! every worker (`chunk`), or a batch of piped lines) dealt to
//! worker threads in batches of consecutive units, each batch to the worker
//! with the fewest bytes dealt so far (a deterministic rule: the same input
//! is split the same way every run). Each worker runs its own
//! [`Visitor`], and the calling thread writes their output strictly in input
//! order, told by the dealer which worker has each unit. A worker hands its
//! output on in chunks that may hold several units (or none finished), so
//! units without output cost no hand-over. Work and output channels are
//! bounded, so memory stays bounded by the longest line and a few batches;
//! the writer's list of which worker has each unit grows only with the units
//! those bounded channels can hold (a word each).
//!
//! The pieces, one module each: `input` (the inputs, and the producer that
//! reads them in order) and `stdin` produce units; `deal` deals them; a
//! `worker` reads them (a capture: `capture`, a part of one: `chunk`, in
//! its format's order: `ordered`, piped lines: `piped`, following: [`follow`]) through the tool's [`Visitor`]
//! (`visitor`); `writer` writes their output in input order.

mod capture;
mod chunk;
mod deal;
pub(crate) mod follow;
mod held;
mod input;
mod narrow;
mod ordered;
mod picked;
mod piped;
mod stdin;
mod visitor;
mod worker;
mod writer;

pub(crate) use self::input::{captures_at, inputs_from_args, Input};
pub(crate) use self::stdin::stdin_has_data;
pub(crate) use self::visitor::{Flow, Known, Part, Pick, ReadEnd, SessionFlow, Tail, Visitor};

use crossbeam_channel::{bounded, unbounded};

use self::deal::{Dealer, Unit, DEAL};
use self::input::produce;
use self::worker::Worker;
use self::writer::{write_ordered, Chunk};
use crate::diag::Diag;
use crate::discover::Detail;
use crate::error::{Error, Result};
use crate::output::Output;

/// Piped event lines are batched into units of about this size.
const BATCH: usize = 512 * 1024;

/// Engine settings.
#[derive(Debug, Clone)]
pub(crate) struct RunOpts {
    /// Worker threads (at least one).
    pub threads: usize,
    /// Keep reading the captures after their end, as they grow (see
    /// [`self::follow`]); runs on one worker thread and flushes output
    /// after each batch. A session record arriving on stdin is read and
    /// followed at once. Stops on SIGINT/SIGTERM/SIGHUP ([`crate::signal`])
    /// or when stdout's reader goes away.
    pub follow: bool,
    /// What discovery of a root given as a path fills in.
    pub detail: Detail,
    /// Hand piped records on to the workers whenever stdin makes the reader
    /// wait (streaming tools: output follows input as it arrives). Off, records
    /// are dealt in batches of a fixed size only, so their split among the
    /// threads — and any estimate that depends on it (t-digest percentiles) —
    /// is the same on every run, however the writer of the pipe is paced.
    pub deal_on_idle: bool,
    /// Show progress on stderr while reading ([`crate::progress`]; the
    /// caller sets it only when stderr is a terminal).
    pub progress: bool,
    /// Large captures this says yes to are read whole, never in parts
    /// (`source::chunk`): ci-filter's line index answers them by reading a
    /// few lines ([`Visitor::pick`], which parts never get).
    pub whole: Option<Whole>,
    /// The run's time window (`--since`/`--until`): only events whose time
    /// is in it reach the visitor, and of a capture whose session record
    /// carries a window of its own ([`crate::session::SessionRecord::window`]),
    /// only those in both. An event without a usable time is then dropped
    /// and counted in the summary line, unless its writer defines it as
    /// untimed. Open (no bound) by default.
    pub window: crate::time::Interval,
}

/// Which large captures to read whole ([`RunOpts::whole`]).
#[derive(Clone)]
pub(crate) struct Whole(pub std::sync::Arc<dyn Fn(&crate::session::Capture) -> bool + Send + Sync>);

impl std::fmt::Debug for Whole {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Whole(..)")
    }
}

impl Default for RunOpts {
    fn default() -> RunOpts {
        RunOpts {
            threads: default_threads(),
            follow: false,
            detail: Detail::Full,
            deal_on_idle: true,
            progress: false,
            whole: None,
            window: crate::time::Interval::default(),
        }
    }
}

/// All cores.
pub(crate) fn default_threads() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

/// Runs `make()` visitors over every event of `inputs`, writing their output
/// in input order to `out`. Returns the visitors (for tools that aggregate).
pub(crate) fn run<V, F>(inputs: &[Input], opts: &RunOpts, diag: &Diag, out: &mut Output, mut make: F) -> Result<Vec<V>>
where
    V: Visitor,
    F: FnMut() -> V,
{
    let n = if opts.follow { 1 } else { opts.threads.max(1) };
    let follow = opts.follow;
    let window = opts.window;
    // Following keeps files open: as many as the descriptor limit allows.
    let open_budget = if follow { self::follow::open_budget() } else { 0 };
    // Whether the run is still reading (the progress line's life).
    let reading = std::sync::atomic::AtomicBool::new(true);
    if opts.progress {
        crate::progress::start();
    }
    std::thread::scope(|s| {
        let mut work_tx = Vec::with_capacity(n);
        let mut out_rx = Vec::with_capacity(n);
        let mut workers = Vec::with_capacity(n);
        let visitors: Vec<V> = (0..n).map(|_| make()).collect();
        // One large capture is read by every worker when the visitor can
        // take it in parts (self::chunk).
        let chunk = (n > 1 && !follow && visitors.iter().all(Visitor::splits)).then(self::chunk::chunking);
        for mut visitor in visitors {
            let (wtx, wrx) = bounded::<Vec<Unit>>(4);
            let (otx, orx) = bounded::<Chunk>(8);
            workers.push(s.spawn(move || {
                let mut worker = Worker::new(diag, otx);
                worker.follow = follow;
                worker.open_budget = open_budget;
                worker.parts.window = window;
                worker.run(&mut visitor, wrx);
                visitor
            }));
            work_tx.push(wtx);
            out_rx.push(orx);
        }
        // Follow mode: a live stdin (`tail -f x | ci-cat -f`) passes each
        // line on at once instead of in batches.
        let batch = if follow { 1 } else { BATCH };
        let (order_tx, order_rx) = if n > 1 { Some(unbounded()).unzip() } else { (None, None) };
        let dealer = Dealer::new(work_tx, order_tx, if follow { 1 } else { DEAL });
        s.spawn(move || produce(inputs, opts, dealer, diag, batch, chunk));
        if opts.progress {
            let reading = &reading;
            s.spawn(move || crate::progress::show(diag.prog(), || reading.load(std::sync::atomic::Ordering::Relaxed)));
        }
        let written = write_ordered(&out_rx, order_rx, out, follow);
        reading.store(false, std::sync::atomic::Ordering::Relaxed);
        // The reader is gone (a closed pipe, or one a follower saw while
        // idle, which stopped the diagnostics): nothing more can be shown,
        // so the workers and the producer stop too (the producer even when
        // waiting on an idle stdin, see stdin::StdinReader), and the run
        // ends quietly.
        let gone = matches!(written, Err(Error::BrokenPipe)) || diag.is_stopped();
        // The output reached its bound (Output::limit_lines): the workers
        // and the producer stop as for a closed pipe, and the tool says so.
        let enough = matches!(written, Err(Error::Enough));
        if gone || enough {
            diag.stop();
        }
        drop(out_rx);
        let visitors = workers.into_iter().map(|h| h.join()).collect::<std::result::Result<Vec<V>, _>>();
        if gone {
            return Err(Error::BrokenPipe);
        }
        if enough {
            return Err(Error::Enough);
        }
        if crate::signal::stop_requested() {
            // A signal: the workers stopped at a record boundary and all they
            // produced is written and flushed; the producer stops too. The
            // tool ends with 130 (0 when following): crate::signal.
            return Err(Error::Stopped);
        }
        written?;
        visitors.map_err(|_| Error::Msg("internal error: a worker thread panicked".into()))
    })
}
