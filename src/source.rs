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
//! Work is split into units (one capture, or a batch of piped lines) dealt to
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

pub mod follow;

use bstr::ByteSlice;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use crossbeam_channel::{bounded, unbounded, Receiver, RecvTimeoutError, Sender, TryRecvError};

use crate::diag::Diag;
use crate::discover;
use crate::discover::Detail;
use crate::error::{Error, Result};
use crate::format::{self, Format, LineKind};
use crate::json::Index;
use crate::lines::{LineReader, LineSource, Site};
use crate::output::Output;
use crate::record::Event;
use crate::session::{self, Capture, SessionRecord};

/// Output is handed to the writer in chunks of about this size.
const CHUNK: usize = 256 * 1024;
/// Piped event lines are batched into units of about this size.
const BATCH: usize = 512 * 1024;
/// Units dealt to a worker at once, at most (fewer when reading stdin would
/// wait)…
const DEAL: usize = 16;
/// … and of at most about this many bytes together.
const DEAL_BYTES: u64 = 1 << 20;
/// A worker hands its output on after at most this many finished units.
const MAX_ENDS: usize = 64;

/// What a visitor wants next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Go on.
    Continue,
    /// Skip this line without parsing it.
    Skip,
    /// Stop reading the current capture.
    Stop,
}

/// What to do with a session record read from stdin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionFlow {
    /// Read the capture's events (then `begin`, `event`…, `end` are called).
    Expand,
    /// The visitor dealt with the record itself (printed it, or dropped it).
    Handled,
}

/// A tool's per-thread work on the event stream. Output goes to `out`, which
/// the engine writes in input order.
pub trait Visitor: Send {
    /// Called for each session record (from `ci-find`) read from stdin, with
    /// its line as read, before it is expanded. The default expands it; a
    /// tool that can decide on session fields alone (`ci-filter` with only
    /// session-level predicates) returns [`SessionFlow::Handled`] and may
    /// print the line to pass the record on unchanged.
    fn session(&mut self, _rec: &SessionRecord, _line: &[u8], _out: &mut Vec<u8>) -> SessionFlow {
        SessionFlow::Expand
    }

    /// Whether lines may be skimmed instead of validated ([`Index::skim`]): the
    /// insides of `data` are then not checked, and the visitor must confirm
    /// each event it goes on to use beyond the envelope with
    /// [`Event::confirm`] (which validates it and reports it when bad). For
    /// tools that decide on the envelope and drop most lines (`ci-filter`).
    fn lazy(&self) -> bool {
        false
    }

    /// Called before a capture is read; `false` skips it (session-level filters).
    fn begin(&mut self, _cap: &Capture, _out: &mut Vec<u8>) -> bool {
        true
    }

    /// Called with each physical line number before the line is parsed.
    fn line(&mut self, _number: u64) -> Flow {
        Flow::Continue
    }

    /// Called with the raw bytes of each complete line before it is parsed;
    /// `false` skips the line unparsed (so damage on it is not reported).
    /// For cheap pre-checks that can prove a line irrelevant, such as
    /// ci-grep's literal search. Not called for an unterminated last line.
    fn precheck(&mut self, _raw: &[u8]) -> bool {
        true
    }

    /// Called with the raw bytes of each complete line of a capture that
    /// passed [`Visitor::precheck`]; `false`: the line is still parsed and
    /// checked (damage is reported as always) but yields no event. For
    /// pre-checks that prove a line's events irrelevant without giving up
    /// the report of a damaged line (`ci-agg --tokens`).
    fn needs_events(&mut self, _raw: &[u8]) -> bool {
        true
    }

    /// Called for each valid event record.
    fn event(&mut self, ev: &Event<'_>, out: &mut Vec<u8>) -> Flow;

    /// Called after a capture was read (also after `Stop`).
    fn end(&mut self, _cap: &Capture, _out: &mut Vec<u8>) {}

    /// Follow mode ([`RunOpts::follow`]): called once before followed files
    /// are first polled for new lines (after the first pass over the inputs
    /// ready at start). Lines read by polling reach `event` without
    /// `begin`/`end`; a capture whose session record arrives later still gets
    /// its own first pass (`begin`, `event`…, `end`) before it is followed.
    fn following(&mut self) {}

    /// Whether the visitor reads a session's companion file (a hooks
    /// session's transcript copy, [`crate::format::Format::companion`]) after
    /// its events, through [`Visitor::companion_event`].
    fn companions(&self) -> bool {
        false
    }

    /// Called before a session's companion file is read (its capture).
    fn companion_begin(&mut self, _cap: &Capture, _out: &mut Vec<u8>) {}

    /// Called for each event of a session's companion file, after the
    /// session's own events and before `end`.
    fn companion_event(&mut self, _ev: &Event<'_>, _out: &mut Vec<u8>) -> Flow {
        Flow::Continue
    }
}

/// A visitor seen through its companion-file side: events go to
/// [`Visitor::companion_event`].
struct Companion<'v, V>(&'v mut V);

impl<V: Visitor> Visitor for Companion<'_, V> {
    fn event(&mut self, ev: &Event<'_>, out: &mut Vec<u8>) -> Flow {
        self.0.companion_event(ev, out)
    }

    fn begin(&mut self, cap: &Capture, out: &mut Vec<u8>) -> bool {
        self.0.companion_begin(cap, out);
        true
    }

    fn needs_events(&mut self, raw: &[u8]) -> bool {
        self.0.needs_events(raw)
    }
}

/// One input named on the command line.
#[derive(Debug, Clone)]
pub enum Input {
    /// A file or directory.
    Path(PathBuf),
    /// Standard input.
    Stdin,
    /// Captures already found (the PATHs of a run narrowed to the sessions
    /// of `--session`, [`crate::session_id::SessionIds::narrow_inputs`]).
    Captures(Vec<Capture>),
}

/// Turns command-line arguments into inputs: `-` is stdin; no argument means
/// stdin when [`stdin_has_data`], else the default capture roots.
pub fn inputs_from_args(args: &[PathBuf], diag: &Diag) -> Vec<Input> {
    if args.is_empty() {
        if !stdin_has_data() {
            return discover::resolve_roots(&[], diag).into_iter().map(Input::Path).collect();
        }
        return vec![Input::Stdin];
    }
    args.iter().map(|a| if a.as_os_str() == "-" { Input::Stdin } else { Input::Path(a.clone()) }).collect()
}

/// Whether stdin, with no PATH given, is the input: the one rule of every
/// ci-* tool that reads stdin (ripgrep decides the same way).
///
/// Yes when it is a FIFO (a pipe), a socket or a regular file (`< file`);
/// no for anything else: a terminal, `/dev/null` or another character device
/// (cron, CI runners and subprocess launchers often give `/dev/null`), a
/// directory, or a stdin that cannot be inspected (closed: Rust reopens a
/// closed stdin on `/dev/null` at start-up). Then the default roots are read,
/// as on a terminal. An explicit `-` reads stdin whatever it is.
pub fn stdin_has_data() -> bool {
    stdin_kind_has_data()
}

#[cfg(unix)]
fn stdin_kind_has_data() -> bool {
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
fn stdin_kind_has_data() -> bool {
    use std::io::IsTerminal;
    !io::stdin().is_terminal()
}

/// Engine settings.
#[derive(Debug, Clone)]
pub struct RunOpts {
    /// Worker threads (at least one).
    pub threads: usize,
    /// Keep reading the captures after their end, as they grow (see
    /// [`self::follow`]); runs on one worker thread and flushes output
    /// after each batch. A session record arriving on stdin is read and
    /// followed at once. Stops on SIGINT/SIGTERM/SIGHUP (handlers installed
    /// by [`crate::signal::install`]) or when stdout's reader goes away.
    pub follow: bool,
    /// What discovery of a root given as a path fills in.
    pub detail: Detail,
    /// Hand piped records on to the workers whenever stdin makes the reader
    /// wait (streaming tools: output follows input as it arrives). Off, records
    /// are dealt in batches of a fixed size only, so their split among the
    /// threads — and any estimate that depends on it (t-digest percentiles) —
    /// is the same on every run, however the writer of the pipe is paced.
    pub deal_on_idle: bool,
}

impl Default for RunOpts {
    fn default() -> RunOpts {
        RunOpts { threads: default_threads(), follow: false, detail: Detail::Full, deal_on_idle: true }
    }
}

/// All cores.
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

/// A unit of work.
enum Unit {
    Capture(Box<Capture>),
    /// A session record read from stdin, and its line.
    Session(Box<SessionRecord>, Vec<u8>),
    /// Piped lines, `\n`-separated, the first being line `first` of stdin;
    /// `open_tail` when the last one had no `\n` (the end of a stream that is
    /// still being written: held back like a capture's unfinished last line).
    Piped {
        buf: Vec<u8>,
        first: u64,
        open_tail: bool,
    },
}

impl Unit {
    /// The bytes it is expected to read, for dealing.
    fn weight(&self) -> u64 {
        match self {
            Unit::Capture(cap) => cap.record.as_ref().map_or(0, |r| r.bytes),
            Unit::Session(rec, _) => rec.bytes,
            Unit::Piped { buf, .. } => buf.len() as u64,
        }
    }
}

/// Output of a worker: the end (in `buf`) of each unit it finished in this
/// chunk, in order; bytes after the last end belong to its current unit.
struct Chunk {
    buf: Vec<u8>,
    ends: Vec<usize>,
}

/// Deals units to the workers in batches: a batch of consecutive units (up
/// to [`DEAL`] of them and [`DEAL_BYTES`] together) goes to the worker with
/// the fewest bytes dealt so far, a deterministic rule (the same input is
/// split the same way every run, so merged aggregates do not change).
///
/// Only the batch being filled is held back, so every unit dealt before it
/// is with a worker: the writer, waiting for the oldest unit not yet
/// written, never waits for one held here while the dealer waits for a
/// worker whose output the writer is not reading.
struct Dealer {
    tx: Vec<Sender<Vec<Unit>>>,
    /// Tells the writer which worker has each unit (with several workers).
    order: Option<Sender<usize>>,
    /// The batch being filled, its worker and its bytes.
    batch: Vec<Unit>,
    to: usize,
    bytes: u64,
    load: Vec<u64>,
    /// Units per batch at most (1 when following).
    deal: usize,
}

impl Dealer {
    fn new(tx: Vec<Sender<Vec<Unit>>>, order: Option<Sender<usize>>, deal: usize) -> Dealer {
        let load = vec![0; tx.len()];
        Dealer { tx, order, batch: Vec::new(), to: 0, bytes: 0, load, deal }
    }

    /// Deals a unit; false when the workers are gone.
    fn push(&mut self, unit: Unit) -> bool {
        if self.batch.is_empty() {
            self.to = (0..self.load.len()).min_by_key(|&i| self.load[i]).unwrap_or(0);
        }
        let weight = unit.weight().max(1);
        self.load[self.to] = self.load[self.to].saturating_add(weight);
        self.bytes = self.bytes.saturating_add(weight);
        if self.order.as_ref().is_some_and(|o| o.send(self.to).is_err()) {
            return false;
        }
        self.batch.push(unit);
        (self.batch.len() < self.deal && self.bytes < DEAL_BYTES) || self.flush()
    }

    /// Hands on the batch being filled.
    fn flush(&mut self) -> bool {
        self.bytes = 0;
        let units = std::mem::take(&mut self.batch);
        units.is_empty() || self.tx[self.to].send(units).is_ok()
    }
}

/// Runs `make()` visitors over every event of `inputs`, writing their output
/// in input order to `out`. Returns the visitors (for tools that aggregate).
pub fn run<V, F>(inputs: &[Input], opts: &RunOpts, diag: &Diag, out: &mut Output, mut make: F) -> Result<Vec<V>>
where
    V: Visitor,
    F: FnMut() -> V,
{
    let n = if opts.follow { 1 } else { opts.threads.max(1) };
    let follow = opts.follow;
    // Following keeps files open: as many as the descriptor limit allows.
    let open_budget = if follow { self::follow::open_budget() } else { 0 };
    if follow {
        crate::signal::set_follow();
    }
    // Set by a follower that found stdout's reader gone while idle.
    let gone = AtomicBool::new(false);
    let gone = &gone;
    std::thread::scope(|s| {
        let mut work_tx = Vec::with_capacity(n);
        let mut out_rx = Vec::with_capacity(n);
        let mut workers = Vec::with_capacity(n);
        for _ in 0..n {
            let (wtx, wrx) = bounded::<Vec<Unit>>(4);
            let (otx, orx) = bounded::<Chunk>(8);
            let mut visitor = make();
            workers.push(s.spawn(move || {
                let mut worker = Worker::new(diag, otx, gone);
                worker.follow = follow;
                worker.open_budget = open_budget;
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
        s.spawn(move || produce(inputs, opts, dealer, diag, batch));
        let written = write_ordered(&out_rx, order_rx, out, follow);
        if matches!(written, Err(Error::BrokenPipe)) || gone.load(Ordering::SeqCst) {
            // The reader is gone. Workers and the producer may be blocked on
            // stdin; nothing more can be shown, so leave now, quietly.
            std::process::exit(0);
        }
        if crate::signal::stop_requested() {
            // A signal: the workers stopped at a record boundary and all they
            // produced is written and flushed; the producer may be blocked on
            // stdin. Exit 130 (0 when following), see crate::signal.
            crate::signal::exit_after_stop(diag);
        }
        drop(out_rx);
        let visitors = workers.into_iter().map(|h| h.join()).collect::<std::result::Result<Vec<V>, _>>();
        written?;
        visitors.map_err(|_| Error::Msg("internal error: a worker thread panicked".into()))
    })
}

/// Writes the workers' output in input order: with one worker, as it comes;
/// with several, unit by unit from the worker `order` names for each.
fn write_ordered(
    out_rx: &[Receiver<Chunk>],
    order: Option<Receiver<usize>>,
    out: &mut Output,
    follow: bool,
) -> Result<()> {
    let Some(order) = order else {
        for chunk in out_rx.iter().flat_map(Receiver::iter) {
            out.write(&chunk.buf)?;
            if follow {
                out.flush()?;
            }
        }
        return out.flush();
    };
    // Per worker: the chunk being written, how far, and its next unit end.
    let mut current: Vec<Option<(Chunk, usize, usize)>> = out_rx.iter().map(|_| None).collect();
    for w in order.iter() {
        loop {
            let (chunk, pos, next) = match current[w].take() {
                Some(c) => c,
                None => match out_rx[w].recv() {
                    Ok(c) => (c, 0, 0),
                    Err(_) => return out.flush(),
                },
            };
            match chunk.ends.get(next) {
                Some(&end) => {
                    if end > pos {
                        out.write(&chunk.buf[pos..end])?;
                    }
                    current[w] = Some((chunk, end, next + 1));
                    break;
                }
                None => out.write(&chunk.buf[pos..])?,
            }
        }
    }
    out.flush()
}

/// Reads the inputs in order and deals their units to the workers.
fn produce(inputs: &[Input], opts: &RunOpts, mut dealer: Dealer, diag: &Diag, batch: usize) {
    let detail = opts.detail;
    for input in inputs {
        let go_on = match input {
            Input::Stdin => produce_stdin(&mut dealer, diag, batch, opts.deal_on_idle),
            Input::Path(p) => captures_at(p, detail, diag)
                .into_iter()
                .all(|c| dealer.push(Unit::Capture(Box::new(c))) && !diag.is_stopped()),
            Input::Captures(caps) => {
                caps.iter().all(|c| dealer.push(Unit::Capture(Box::new(c.clone()))) && !diag.is_stopped())
            }
        };
        if !go_on || !dealer.flush() {
            return;
        }
    }
}

/// Expands a path argument into captures (reported and skipped when unusable).
pub fn captures_at(path: &Path, detail: Detail, diag: &Diag) -> Vec<Capture> {
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) => {
            diag.error(&format_args!("{}: {e}", path.display()));
            return vec![];
        }
    };
    if meta.is_file() {
        return discover::file_captures(path, diag);
    }
    // A FIFO (`<(…)`), socket or device is never opened: it could block or
    // never end (stdin is read as `-`).
    if !meta.is_dir() {
        diag.error(&format_args!("{}: not a regular file or directory, skipped", path.display()));
        return vec![];
    }
    match discover::sessions_at(path, detail, diag) {
        Ok(mut found) => {
            session::sort_newest_first(&mut found);
            found.into_iter().map(format::capture).collect()
        }
        Err(e) => {
            diag.error(&e);
            vec![]
        }
    }
}

/// Reads stdin: session records become captures, event lines are batched.
/// Piped event lines are sent in units of at least `batch_size` bytes.
fn produce_stdin(dealer: &mut Dealer, diag: &Diag, batch_size: usize, deal_on_idle: bool) -> bool {
    let send = |dealer: &mut Dealer, unit: Unit| dealer.push(unit) && !diag.is_stopped();
    let stdin = io::stdin();
    let mut lines = LineReader::new(stdin.lock());
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
        // Reading may wait for the writer of stdin: hand on what was dealt.
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
                if batch.is_empty() {
                    first = line.number;
                }
                batch.extend_from_slice(line.bytes);
                batch.push(b'\n');
                open_tail = !line.terminated;
                if batch.len() >= batch_size
                    && !send(dealer, Unit::Piped { buf: std::mem::take(&mut batch), first, open_tail })
                {
                    return false;
                }
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
    batch.is_empty() || send(dealer, Unit::Piped { buf: batch, first, open_tail })
}

/// Visits the events of one line of a capture: one, or (for a writer whose
/// lines can hold several) each part in turn.
#[allow(clippy::too_many_arguments)]
fn visit_line<V: Visitor>(
    v: &mut V,
    out: &mut Vec<u8>,
    lines: &mut LineState,
    rec: crate::json::Record<'_>,
    cap: &Capture,
    (line, site): (u64, Site),
    source: &str,
) -> Flow {
    let fmt = cap.format.format();
    fmt.observe(&rec, &mut lines.state);
    if !fmt.multi_part() {
        return v.event(&Event::read(rec, cap, line, source, None, &lines.state, site), out);
    }
    lines.parts.clear();
    fmt.parts(&rec, &mut lines.state, &mut lines.parts);
    for &part in &lines.parts {
        if v.event(&Event::read(rec, cap, line, source, Some(part), &lines.state, site), out) == Flow::Stop {
            return Flow::Stop;
        }
    }
    Flow::Continue
}

/// A worker's state of the capture being read, for writers whose lines
/// yield several events.
#[derive(Default)]
struct LineState {
    state: format::ReadState,
    parts: Vec<u32>,
}

/// Why a piped event record must not be used: the session it names (its
/// provenance's, else the one its payload names) is not a plain directory
/// name ([`crate::session::unsafe_name`]), so no tool may take it for a
/// session, print it in a session record or join it to a path. An empty
/// id is no id.
fn unsafe_session(rec: &crate::json::Record<'_>) -> Option<String> {
    let id = Event::piped(*rec, 0, "-").session().filter(|s| !s.is_empty())?;
    session::unsafe_name(&id).then(|| session::unsafe_id_message(&id))
}

/// A session record read from stdin, as a `SessionRecord`.
fn session_record(line: &[u8]) -> std::result::Result<SessionRecord, String> {
    serde_json::from_slice::<SessionRecord>(line).map_err(|e| format!("invalid session record: {e}"))
}

/// How reading one file of a capture ended.
enum Read {
    /// At its end.
    Done,
    /// The visitor stopped the capture.
    Stopped,
    /// The writer is gone.
    Gone,
}

/// A hook session read whole: its files' bytes, and each valid event line as
/// (timestamp, file index, physical line, byte range).
struct TimedSession {
    texts: Vec<Vec<u8>>,
    order: Vec<(crate::time::Timestamp, usize, u64, std::ops::Range<usize>)>,
}

/// A worker thread's reusable state.
struct Worker<'d> {
    diag: &'d Diag,
    tx: Sender<Chunk>,
    idx: Index,
    out: Vec<u8>,
    /// Where each unit finished since the last hand-over ends in `out`.
    ends: Vec<usize>,
    /// The line buffer of the file being read, kept for the next one.
    buffer: Vec<u8>,
    /// Follow mode: keep captures' files open after the first pass.
    follow: bool,
    /// Follow mode: the files read so far, polled for new lines.
    followed: Vec<follow::Followed>,
    /// Follow mode: how many followed files may stay open between polls
    /// ([`follow::open_budget`]; those beyond are closed between
    /// polls), and how many do.
    open_budget: usize,
    kept_open: usize,
    /// Follow mode: set when stdout's reader went away while idle.
    gone: &'d AtomicBool,
    /// What the writer remembers of the capture being read.
    parts: LineState,
    /// Piped records printed cut, made whole again from their lines.
    reread: crate::reread::Reread,
    /// The index of a rebuilt record.
    whole_idx: Index,
    /// Lines of the capture being read that were events, and that were
    /// damaged (to tell a file that is no capture at all).
    lines_ok: u64,
    lines_bad: u64,
}

impl<'d> Worker<'d> {
    fn new(diag: &'d Diag, tx: Sender<Chunk>, gone: &'d AtomicBool) -> Worker<'d> {
        Worker {
            diag,
            tx,
            idx: Index::new(),
            out: Vec::with_capacity(CHUNK * 2),
            ends: Vec::new(),
            buffer: Vec::new(),
            follow: false,
            followed: Vec::new(),
            open_budget: 0,
            kept_open: 0,
            gone,
            parts: LineState::default(),
            reread: Default::default(),
            whole_idx: Index::new(),
            lines_ok: 0,
            lines_bad: 0,
        }
    }

    fn run<V: Visitor>(&mut self, v: &mut V, rx: Receiver<Vec<Unit>>) {
        if self.follow {
            self.run_following(v, &rx);
            return;
        }
        loop {
            let units = match rx.try_recv() {
                Ok(units) => units,
                Err(TryRecvError::Disconnected) => break,
                Err(TryRecvError::Empty) => {
                    // Nothing to do yet: hand on what is done first.
                    if !self.hand_on() {
                        return;
                    }
                    // Waits in steps, so that a signal is noticed by an idle worker too.
                    match rx.recv_timeout(follow::POLL) {
                        Ok(units) => units,
                        Err(RecvTimeoutError::Timeout) if !crate::signal::stop_requested() => continue,
                        Err(_) => break,
                    }
                }
            };
            for unit in units {
                let stop = self.diag.is_stopped() || crate::signal::stop_requested();
                if stop || !self.unit(v, unit) || !self.finish_unit() {
                    // What is held is whole records: hand it on (a no-op
                    // when the writer is gone).
                    self.hand_on();
                    return;
                }
            }
        }
        self.hand_on();
    }

    /// Reads one unit; false when the writer is gone or a stop was asked for.
    fn unit<V: Visitor>(&mut self, v: &mut V, unit: Unit) -> bool {
        match unit {
            Unit::Capture(cap) => self.capture(v, &cap),
            Unit::Session(rec, line) => self.session(v, *rec, &line),
            Unit::Piped { buf, first, open_tail } => self.piped(v, &buf, first, open_tail),
        }
    }

    /// A session record from stdin: the visitor decides, else it is expanded.
    fn session<V: Visitor>(&mut self, v: &mut V, rec: SessionRecord, line: &[u8]) -> bool {
        match v.session(&rec, line, &mut self.out) {
            SessionFlow::Expand => self.capture(v, &format::capture(rec)),
            SessionFlow::Handled => true,
        }
    }

    /// Follow mode: reads each unit as it arrives (a session record on a live
    /// stdin is read, then followed, at once) and, in between, polls the
    /// files read so far for new lines. Ends on a stop, when stdout's reader
    /// is gone, or when the inputs ended and nothing is left to follow.
    fn run_following<V: Visitor>(&mut self, v: &mut V, rx: &Receiver<Vec<Unit>>) {
        let mut inputs_open = true;
        let mut polling = false;
        while !crate::signal::stop_requested() {
            while inputs_open && !crate::signal::stop_requested() {
                match rx.try_recv() {
                    Ok(units) => {
                        if !self.units_now(v, units) {
                            return;
                        }
                    }
                    Err(TryRecvError::Empty) => break,
                    Err(TryRecvError::Disconnected) => inputs_open = false,
                }
            }
            if !inputs_open && self.followed.is_empty() {
                break;
            }
            if !polling {
                v.following();
                polling = true;
            }
            let Some(progressed) = self.poll_all(v) else { return };
            if !self.hand_on() {
                return;
            }
            if progressed {
                continue;
            }
            if follow::stdout_closed() {
                self.gone.store(true, Ordering::SeqCst);
                return;
            }
            // Idle: wait for the next unit, or one poll interval.
            if !inputs_open {
                follow::nap();
                continue;
            }
            match rx.recv_timeout(follow::POLL) {
                Ok(units) => {
                    if !self.units_now(v, units) {
                        return;
                    }
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => inputs_open = false,
            }
        }
        self.hand_on();
    }

    /// Follow mode: reads units and hands their output on at once; false
    /// when the writer is gone or a stop was asked for.
    fn units_now<V: Visitor>(&mut self, v: &mut V, units: Vec<Unit>) -> bool {
        units.into_iter().all(|unit| !self.diag.is_stopped() && self.unit(v, unit) && self.finish_unit())
    }

    /// Polls every followed file once; `Some(true)` when lines were read,
    /// `None` when the writer is gone.
    fn poll_all<V: Visitor>(&mut self, v: &mut V) -> Option<bool> {
        let mut files = std::mem::take(&mut self.followed);
        let mut progressed = false;
        let mut result = Some(());
        for f in files.iter_mut() {
            match self.poll(v, f) {
                Some(p) => progressed |= p,
                None => {
                    result = None;
                    break;
                }
            }
            if crate::signal::stop_requested() {
                break;
            }
        }
        files.retain(|f| !f.done);
        // Files of captures read while polling (none today) come after.
        files.append(&mut self.followed);
        self.followed = files;
        self.kept_open = self.followed.iter().filter(|f| f.is_open_between_polls()).count();
        result.map(|()| progressed)
    }

    /// Reads what was appended to a followed file, dealing with truncation
    /// and rotation first. `Some(true)` when lines were read, `None` when the
    /// writer is gone.
    fn poll<V: Visitor>(&mut self, v: &mut V, f: &mut follow::Followed) -> Option<bool> {
        use follow::Change;
        let mut progressed = false;
        match f.change(self.diag, &mut self.buffer) {
            Change::Wait => return Some(false),
            Change::Same => {}
            Change::Replaced(file) => {
                // Drain the old file first: lines written before the rename.
                progressed |= self.poll_lines(v, f)?;
                f.switch_to(file, self.diag);
            }
        }
        if !f.done {
            progressed |= self.poll_lines(v, f)?;
        }
        f.rest(&mut self.buffer);
        Some(progressed)
    }

    /// Reads the complete lines a followed file has now; `Some(true)` when
    /// there were some, `None` when the writer is gone.
    fn poll_lines<V: Visitor>(&mut self, v: &mut V, f: &mut follow::Followed) -> Option<bool> {
        let Some((cap, display, lines)) = f.reading() else { return Some(false) };
        let before = lines.line_number();
        let read = self.capture_lines(v, cap, display, lines, true);
        let progressed = lines.line_number() != before;
        match read {
            Read::Done => {}
            Read::Stopped => f.done = true,
            Read::Gone => return None,
        }
        Some(progressed)
    }

    /// Marks the end of a unit's output, handing output on when enough is
    /// held (at once when following); false when the writer is gone.
    fn finish_unit(&mut self) -> bool {
        self.ends.push(self.out.len());
        if self.follow || self.out.len() >= CHUNK || self.ends.len() >= MAX_ENDS {
            return self.send();
        }
        true
    }

    /// Hands on whatever is held; false when the writer is gone.
    fn hand_on(&mut self) -> bool {
        self.out.is_empty() && self.ends.is_empty() || self.send()
    }

    /// Hands the output so far to the writer; false when it is gone.
    fn send(&mut self) -> bool {
        // Units without output (aggregations) hand on only their ends: the
        // buffer stays for the next unit.
        let buf = if self.out.is_empty() {
            Vec::new()
        } else {
            std::mem::replace(&mut self.out, Vec::with_capacity(CHUNK * 2))
        };
        let ends = std::mem::take(&mut self.ends);
        self.tx.send(Chunk { buf, ends }).is_ok()
    }

    /// Reads a capture: each of its files in turn (in its writer's reading
    /// order), each with its own line numbers and shown as its own path (the
    /// capture's own path as the capture shows it).
    fn capture<V: Visitor>(&mut self, v: &mut V, cap: &Capture) -> bool {
        if !v.begin(cap, &mut self.out) {
            return true;
        }
        if !self.follow {
            self.parts.state.clear();
        }
        (self.lines_ok, self.lines_bad) = (0, 0);
        let files: Vec<(&Path, String)> = cap
            .files
            .iter()
            .map(|f| {
                let display = if *f == cap.path { cap.display.clone() } else { f.to_string_lossy().into_owned() };
                (f.as_path(), display)
            })
            .collect();
        if cap.format.format().time_ordered() && !self.follow {
            if let Some(timed) = self.time_ordered(cap.format.format(), &files) {
                return self.visit_timed(v, cap, &files, timed);
            }
        }
        for (path, display) in &files {
            // A writer whose files are JSON arrays reads them element by
            // element (never followed: such files are rewritten whole).
            if let Some(mut elements) = cap.format.format().lines_of(cap, path, display, self.diag) {
                match self.capture_lines(v, cap, display, &mut *elements, false) {
                    Read::Done => continue,
                    Read::Stopped => break,
                    Read::Gone => return false,
                }
            }
            let file = match self.open_capture_file(path) {
                Ok(f) => f,
                Err(e) => {
                    self.diag.error(&format_args!("{display}: {e}"));
                    continue;
                }
            };
            let mut lines = LineReader::with_buffer(file, std::mem::take(&mut self.buffer));
            let read = self.capture_lines(v, cap, display, &mut lines, self.follow);
            if self.follow && matches!(read, Read::Done) {
                self.keep_following(follow::Followed::new(cap.clone(), path.to_path_buf(), display.clone(), lines));
            } else {
                self.buffer = lines.into_buffer();
            }
            match read {
                Read::Done => {}
                Read::Stopped => break,
                Read::Gone => return false,
            }
        }
        self.not_a_capture(cap);
        self.companion(v, cap);
        v.end(cap, &mut self.out);
        true
    }

    /// Opens a capture file to read; following, when no descriptor is free,
    /// followed files are closed between polls ([`Worker::park_one`]) until
    /// one is.
    fn open_capture_file(&mut self, path: &Path) -> io::Result<File> {
        loop {
            match crate::files::open_regular(path) {
                Err(e) if self.follow && follow::out_of_descriptors(&e) && self.park_one() => {}
                opened => return opened,
            }
        }
    }

    /// Follows a file read to its end: open between polls while the budget
    /// allows, else closed between them.
    fn keep_following(&mut self, mut f: follow::Followed) {
        if self.kept_open < self.open_budget {
            self.kept_open += 1;
        } else {
            f.park(&mut self.buffer);
        }
        self.followed.push(f);
    }

    /// Out of descriptors though within the budget (something else holds
    /// some): the followed file opened last is closed between polls from now
    /// on, and the budget shrinks to what stays open. False when none is open.
    fn park_one(&mut self) -> bool {
        let Some(f) = self.followed.iter_mut().rev().find(|f| f.is_open_between_polls()) else {
            return false;
        };
        f.park(&mut self.buffer);
        self.kept_open -= 1;
        self.open_budget = self.kept_open;
        true
    }

    /// A file named as PATH in no writer's layout of which not one line
    /// was an event, and some line was damaged, is not a capture at all
    /// (`/etc/hostname`): an error naming it (exit 2), beside the reports of
    /// its lines. An empty file is an empty capture.
    fn not_a_capture(&self, cap: &Capture) {
        if cap.record.is_none() && !self.follow && self.lines_ok == 0 && self.lines_bad > 0 {
            self.diag.error(&format_args!(
                "{}: not a capture: no line of it is an event of a writer the tools read",
                cap.display
            ));
        }
    }

    /// Reads a session's companion file for a visitor that wants it
    /// ([`Visitor::companions`]), as a capture of the companion's writer.
    fn companion<V: Visitor>(&mut self, v: &mut V, cap: &Capture) {
        if !v.companions() || self.follow {
            return;
        }
        let Some((path, writer)) = cap.record.as_ref().and_then(|r| cap.format.format().companion(r)) else {
            return;
        };
        let display = path.to_string_lossy().into_owned();
        let side = Capture {
            session: cap.session.clone(),
            path: path.clone(),
            display: display.clone(),
            workspace: cap.workspace.clone(),
            format: writer,
            record: None,
            files: vec![path.clone()],
        };
        let file = match crate::files::open_regular(&path) {
            Ok(f) => f,
            Err(e) => {
                self.diag.error(&format_args!("{display}: {e}"));
                return;
            }
        };
        let mut lines = LineReader::new(file);
        self.parts.state.clear();
        let mut side_v = Companion(v);
        side_v.begin(&side, &mut self.out);
        let _ = self.capture_lines(&mut side_v, &side, &display, &mut lines, false);
    }

    /// Claude hook sessions are read file by file in lifecycle order, except
    /// when every event of the session carries a timestamp (native hook input
    /// has none; only synthetic events do): then events are visited in time
    /// order (stable: ties keep the file order). This reads the session's
    /// event files whole, which is fine for hook sessions (kilobytes to a few
    /// megabytes); it returns `None` — use file order — as soon as a line
    /// has no usable timestamp, or when a file cannot be read.
    fn time_ordered(&mut self, fmt: &dyn Format, files: &[(&Path, String)]) -> Option<TimedSession> {
        let mut session = TimedSession { texts: Vec::with_capacity(files.len()), order: Vec::new() };
        for (fi, (path, _)) in files.iter().enumerate() {
            let mut text = Vec::new();
            // Not a regular file (or unreadable): file order, which reports it.
            std::io::Read::read_to_end(&mut crate::files::open_regular(path).ok()?, &mut text).ok()?;
            let mut start = 0;
            for (li, end) in memchr::memchr_iter(b'\n', &text).chain(std::iter::once(text.len())).enumerate() {
                let bytes = &text[start..end];
                let range = start..end;
                start = end + 1;
                if bytes.iter().all(u8::is_ascii_whitespace) {
                    continue; // blank lines and the final newline: reported later
                }
                // Damaged lines (unparseable, or valid JSON that is not a hook
                // line) are reported when visited; they do not decide the order.
                let Ok(rec) = self.idx.parse(bytes) else { continue };
                if fmt.accept(&rec).is_err() {
                    continue;
                }
                let ts = rec.get_str("timestamp").as_deref().and_then(crate::time::parse_timestamp)?;
                session.order.push((ts, fi, li as u64 + 1, range));
            }
            session.texts.push(text);
        }
        (!session.order.is_empty()).then_some(session)
    }

    /// Visits a fully timestamped hook session in time order; damaged lines
    /// are reported first, file by file, as in file order.
    fn visit_timed<V: Visitor>(
        &mut self,
        v: &mut V,
        cap: &Capture,
        files: &[(&Path, String)],
        mut timed: TimedSession,
    ) -> bool {
        let fmt = cap.format.format();
        for (fi, text) in timed.texts.iter().enumerate() {
            if text.is_empty() {
                continue;
            }
            let body = text.strip_suffix(b"\n");
            let all_terminated = body.is_some();
            let segments: Vec<&[u8]> = body.unwrap_or(text).split_str("\n").collect();
            for (li, bytes) in segments.iter().enumerate() {
                let terminated = all_terminated || li + 1 < segments.len();
                match self.idx.parse(bytes) {
                    Ok(rec) => {
                        if let Err(reason) = fmt.accept(&rec) {
                            self.diag.bad_line(&files[fi].1, li as u64 + 1, &reason);
                        }
                    }
                    Err(e) if crate::lines::held_back(bytes, terminated, &e) => self.diag.torn_tail(),
                    Err(e) => self.diag.bad_line(&files[fi].1, li as u64 + 1, &crate::lines::BadLine(bytes, &e)),
                }
            }
        }
        timed.order.sort_by_key(|(ts, ..)| *ts);
        for (_, fi, line, range) in &timed.order {
            // Only event lines were put in `order` (`time_ordered`).
            let Ok(rec) = self.idx.parse(&timed.texts[*fi][range.clone()]) else { continue };
            let site = Site { offset: range.start as u64, len: range.len() as u64, element: false };
            if visit_line(v, &mut self.out, &mut self.parts, rec, cap, (*line, site), &files[*fi].1) == Flow::Stop {
                break;
            }
            if self.out.len() >= CHUNK && !self.send() {
                return false;
            }
        }
        self.companion(v, cap);
        v.end(cap, &mut self.out);
        true
    }

    fn capture_lines<V: Visitor, L: LineSource + ?Sized>(
        &mut self,
        v: &mut V,
        cap: &Capture,
        display: &str,
        lines: &mut L,
        follow: bool,
    ) -> Read {
        let lazy = v.lazy();
        let fmt = cap.format.format();
        loop {
            if crate::signal::stop_requested() {
                // Following: finish here, the loop flushes. Else: interrupted.
                if follow {
                    break;
                }
                return Read::Gone;
            }
            let next = if follow { lines.next_complete_line() } else { lines.next_line() };
            let line = match next {
                Ok(Some(l)) => l,
                Ok(None) => break,
                Err(e) => {
                    self.diag.error(&format_args!("{}:{}: {e}", display, lines.line_number() + 1));
                    break;
                }
            };
            let skip = match v.line(line.number) {
                Flow::Continue => false,
                Flow::Skip => true,
                Flow::Stop => return Read::Stopped,
            };
            let pre = !skip && (!line.terminated || v.precheck(line.bytes));
            // A line the tool skips is still observed when it may change what
            // the writer keeps of earlier lines (its later events depend on it).
            if !(pre || line.terminated && fmt.observes(line.bytes)) {
                continue;
            }
            let wanted = pre && (!line.terminated || v.needs_events(line.bytes));
            let parsed = if lazy { self.idx.skim(line.bytes) } else { self.idx.parse(line.bytes) };
            if !pre {
                if let Ok(rec) = parsed {
                    if fmt.accept(&rec).is_ok() {
                        fmt.observe(&rec, &mut self.parts.state);
                    }
                }
                continue;
            }
            match parsed {
                Ok(rec) => match fmt.accept(&rec) {
                    Ok(()) => {
                        self.lines_ok += 1;
                        if !wanted {
                            fmt.observe(&rec, &mut self.parts.state);
                        } else if visit_line(
                            v,
                            &mut self.out,
                            &mut self.parts,
                            rec,
                            cap,
                            (line.number, line.site),
                            display,
                        ) == Flow::Stop
                        {
                            return Read::Stopped;
                        }
                    }
                    Err(reason) => {
                        self.lines_bad += 1;
                        self.diag.bad_line(&display, line.number, &reason);
                    }
                },
                Err(e) if crate::lines::held_back(line.bytes, line.terminated, &e) => self.diag.torn_tail(),
                Err(e) => {
                    self.lines_bad += 1;
                    self.diag.bad_line(&display, line.number, &crate::lines::BadLine(line.bytes, &e));
                }
            }
            if self.out.len() >= CHUNK && !self.send() {
                return Read::Gone;
            }
        }
        Read::Done
    }

    /// Visits a batch of piped lines; with `open_tail`, the last line had no
    /// `\n` and is treated as a capture's last line is: when it does not
    /// parse, it is counted as unfinished, not reported.
    fn piped<V: Visitor>(&mut self, v: &mut V, buf: &[u8], first: u64, open_tail: bool) -> bool {
        let lazy = v.lazy();
        let body = buf.strip_suffix(b"\n").unwrap_or(buf);
        // memchr, not `split`: a byte-at-a-time split of every piped byte
        // cost more than parsing the lines.
        let ends = memchr::memchr_iter(b'\n', body).chain(std::iter::once(body.len()));
        let mut start = 0;
        for (i, end) in ends.enumerate() {
            let bytes = &body[start..end];
            start = end + 1;
            let number = first + i as u64;
            if !self.follow && crate::signal::stop_requested() {
                return false;
            }
            let unfinished = open_tail && end == body.len();
            // A cut record's pre-check must see its whole line, not the cut text.
            let pre = unfinished || v.precheck(bytes);
            if !pre && !crate::reread::maybe_cut(bytes) {
                continue;
            }
            let parsed = if lazy { self.idx.skim(bytes) } else { self.idx.parse(bytes) };
            match parsed {
                Ok(rec) => match LineKind::of(&rec) {
                    LineKind::Event if unsafe_session(&rec).is_some() => {
                        let reason = unsafe_session(&rec).unwrap_or_default();
                        self.diag.error(&format_args!("-:{number}: {reason}"));
                    }
                    LineKind::Event => match self.reread.fetch(&rec) {
                        Ok(None) => {
                            v.event(&Event::piped(rec, number, "-"), &mut self.out);
                        }
                        // A cut record: the tool works on the whole one, unless
                        // neither its cut text nor its line can hold what the
                        // tool looks for (the whole is made of the two).
                        Ok(Some(_)) if !pre && !v.precheck(self.reread.line()) => {}
                        Ok(Some((site, hash))) => match self.reread.build(&rec) {
                            // Skimmed: made of the record as parsed above and of
                            // the line the first tool validated.
                            Ok(()) => match self.whole_idx.skim(self.reread.full()) {
                                Ok(whole) => {
                                    v.event(&Event::piped(whole, number, "-").reread(site, hash), &mut self.out);
                                }
                                Err(e) => self
                                    .diag
                                    .error(&format_args!("-:{number}: the record made whole is not valid: {e}")),
                            },
                            Err(reason) => self.diag.error(&format_args!("-:{number}: {reason}")),
                        },
                        Err(reason) => self.diag.error(&format_args!("-:{number}: {reason}")),
                    },
                    // One the producer's byte check took for an event record.
                    LineKind::Session => match session_record(bytes) {
                        Ok(r) => {
                            if let Some(reason) = Capture::unsafe_record(&r) {
                                self.diag.error(&format_args!("-:{number}: {reason}"));
                            } else if !self.session(v, r, bytes) {
                                return false;
                            }
                        }
                        Err(reason) => self.diag.bad_line(&"-", number, &reason),
                    },
                    kind => self.diag.bad_line(&"-", number, &kind.not_an_event()),
                },
                Err(e) if crate::lines::held_back(bytes, !unfinished, &e) => self.diag.torn_tail(),
                Err(e) => self.diag.bad_line(&"-", number, &crate::lines::BadLine(bytes, &e)),
            }
            if self.out.len() >= CHUNK && !self.send() {
                return false;
            }
        }
        true
    }
}
