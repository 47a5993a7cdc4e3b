//! `ci-cat`: stream the events of captures as NDJSON, size-truncated.

use std::collections::VecDeque;

use clap::Parser;

use crate::cli::{Common, EventOutput, SessionArg, TimeWindow, Tool};
use crate::diag::Diag;
use crate::error::{Error, Outcome, Result};
use crate::json::Path;
use crate::output::{EventPrinter, Output};
use crate::record::Event;
use crate::session::Capture;
use crate::session_id::SessionIds;
use crate::source::{self, Flow, RunOpts, Visitor};
use crate::window::{Keep, Window};

const EXAMPLES: &str = "\
EXAMPLES:
  ci-find --workspace my-api | ci-cat              events of every my-api session
  ci-cat $EXAMPLE_SESSION   one session directory
  ci-cat events.jsonl --lines 120                  the event at physical line 120
  ci-cat events.jsonl --lines 100-140              lines 100 to 140 (as sed -n 100,140p)
  ci-find --session 63cc3feb | ci-cat --head 3 --fields event,timestamp,data.tool_name
  ci-cat --full --lines 7 events.jsonl | jq .data  one whole record
  ci-cat --raw --lines 7 events.jsonl              the exact bytes on disk
  ci-cat -f --tail 5 events.jsonl                  the last 5 events, then new ones as written

INPUT:
  PATH is an events.jsonl, a session directory, or a root to discover (as ci-find
  --root). `-` reads stdin: session records (from ci-find) are expanded into
  their events, event records pass through. With no PATH, stdin is read when it
  is a pipe, a socket or a regular file (`< file`); otherwise (a terminal,
  /dev/null as under cron or CI, another device) the default roots are read.

SELECTING EVENTS:
  --lines, --head and --tail apply to each capture read; on piped event
  records they apply as if the captures were read: --lines to the capture
  line each names (ci.line; a record without ci: its line of stdin), --head
  and --tail to the records of each session (ci.session, else data.session_id;
  records with neither are one group), counted in stream order. --head H
  --tail T keeps the last T of the first H. Piped records selected by --head
  or --tail are printed, in stream order, after the whole stream was read
  (which of them are first or last is known only then); the same for any -j.

OUTPUT:
  One event record per line, as on disk plus \"ci\":{\"session\",\"path\",\"line\"}
  (the exact physical line), and \"workspace\" when an older writer left it out
  (filled from the session metadata, else the project slug). Records over
  --max-bytes (default 4096, env CI_MAX_BYTES) have long strings in data cut
  with a marker `…[+N bytes]` and long arrays elided `…[+N items]`; the envelope,
  the small direct members of data (session_id, parent_id, tool_name,
  tool_call_id, model, usage, status, timestamp), numbers and booleans are never
  cut. --max-bytes takes a size (4096, 4k, 1M; powers of 1024) of at least 1k;
  a record whose envelope and protected fields alone exceed it is printed at
  that floor. Output is always valid JSON.

DAMAGED INPUT:
  A bad line (torn, blank, not an object, invalid UTF-8) is reported on stderr as
  `path:line: reason`, skipped and counted; one summary line ends the run. An
  unfinished last line (no newline, not valid JSON) of a capture or of stdin is
  a capture still being written: held back silently and only counted. A
  complete last line without a newline is printed. --strict turns any bad line into exit status 2.

EXIT STATUS:
  One rule in every ci-* tool (README: Paths, session ids, exit status).
  0 an event printed; 1 none (a --lines range past the end, an empty capture; a
  root with no session is noted `looked in R, found 0`, a --session that
  matches none `no session id starts with \"…\"`); 2 an error, which wins (a
  missing or unreadable input, a file that is no capture, a refused or
  ambiguous --session, a bad line with --strict); 130 interrupted by SIGINT,
  SIGTERM or SIGHUP: the output holds whole records only (with --follow a
  signal is the normal end: 0).";

const FOLLOW_NOTE: &str = "\
--tail K prints the last K events of each capture first (also of a capture
  whose session record arrives later); not with --head or --lines. Piped
  event records are printed as they arrive (a live stream has no last K).";

/// Stream the events of captures as NDJSON, with large payloads size-truncated.
#[derive(Debug, Parser)]
#[command(
    name = "ci-cat",
    version,
    after_long_help = crate::source::follow::long_help(&crate::format::with_sections(&crate::format::with_example(EXAMPLES), |h| h.cat.as_ref(), "DAMAGED INPUT"), "ci-cat", FOLLOW_NOTE),
    after_help = "Run with --help for examples."
)]
pub struct Args {
    /// Captures: events.jsonl files, session directories, roots, or - for
    /// stdin (always read). With no PATH: stdin when it is a pipe, a socket or a
    /// regular file, else the default roots (a terminal, /dev/null).
    #[arg(value_name = "PATH")]
    pub paths: Vec<std::path::PathBuf>,
    /// Only physical line N, or lines A-B (1-based, inclusive), of each
    /// capture (of a piped event record: its ci.line).
    #[arg(long, value_name = "N|A-B", value_parser = crate::cli::parse_line_range)]
    pub lines: Option<(u64, u64)>,
    /// Only the first K events of each capture (of piped event records: of
    /// each session).
    #[arg(long, value_name = "K")]
    pub head: Option<u64>,
    /// Only the last K events of each capture (of piped event records: of
    /// each session).
    #[arg(long, value_name = "K")]
    pub tail: Option<usize>,
    /// Print only these comma-separated field paths (event,timestamp,
    /// data.tool_name, data.raw.messages[0].role; the paths of ci-filter
    /// --where), each value at its own path as jq's pick prints it (an index
    /// is an array position, null before it; a missing key is null), plus `ci`.
    // This doc comment is --help text: `[0]` is a path index, not a link.
    #[allow(rustdoc::broken_intra_doc_links)]
    #[arg(long, value_name = "PATHS", value_delimiter = ',')]
    pub fields: Vec<String>,
    /// Print the exact source bytes of each line (no provenance, no truncation).
    #[arg(long, conflicts_with_all = ["fields", "full"])]
    pub raw: bool,
    /// Keep reading the captures as they grow, printing new events as written.
    #[arg(short = 'f', long, conflicts_with_all = ["head", "lines"])]
    pub follow: bool,
    #[command(flatten)]
    pub session: SessionArg,
    #[command(flatten)]
    pub time: TimeWindow,
    #[command(flatten)]
    pub output: EventOutput,
    #[command(flatten)]
    pub common: Common,
}

impl Tool for Args {
    fn common(&self) -> &Common {
        &self.common
    }

    fn follows(&self) -> bool {
        self.follow
    }
}

/// Per-thread state of ci-cat.
struct Cat<'a> {
    printer: &'a EventPrinter,
    lines: Option<(u64, u64)>,
    head: Option<u64>,
    tail: Option<usize>,
    /// Events seen in the current capture.
    count: u64,
    /// The last `tail` records of the current capture.
    ring: VecDeque<Vec<u8>>,
    /// Between `begin` and `end`.
    in_capture: bool,
    /// Follow mode, polling: lines read by polling come outside `begin` and
    /// `end`, and --tail applies only to each capture's first pass.
    polling: bool,
    /// `--raw`: the line (file, number) last printed, so that a line that
    /// yields several events is printed once.
    last_raw: Option<(usize, u64)>,
    /// `--head`/`--tail` of piped event records, per session (not when
    /// following: a live stream has no end to count back from).
    window: Option<Window>,
}

impl Visitor for Cat<'_> {
    fn begin(&mut self, _cap: &Capture, _out: &mut Vec<u8>) -> bool {
        self.count = 0;
        self.ring.clear();
        self.in_capture = true;
        self.last_raw = None;
        true
    }

    /// Each event is printed on its own: a capture may be read in parts,
    /// except for --lines, --head and --tail (they stop or count per capture).
    fn splits(&self) -> bool {
        self.lines.is_none() && self.head.is_none() && self.tail.is_none()
    }

    fn line(&mut self, n: u64) -> Flow {
        match self.lines {
            Some((_, b)) if n > b => Flow::Stop,
            Some((a, _)) if n < a => Flow::Skip,
            _ => Flow::Continue,
        }
    }

    fn event(&mut self, ev: &Event<'_>, out: &mut Vec<u8>) -> Flow {
        if ev.capture.is_none() {
            self.piped(ev, out);
            return Flow::Continue;
        }
        if self.printer.raw && ev.part.is_some() {
            let at = (ev.source.as_ptr() as usize, ev.line);
            if self.last_raw == Some(at) {
                return Flow::Continue;
            }
            self.last_raw = Some(at);
        }
        self.count += 1;
        if let Some(k) = self.tail.filter(|_| self.in_capture || !self.polling) {
            // Reuse the oldest buffer once the ring is full.
            let mut rec = if self.ring.len() >= k { self.ring.pop_front().unwrap_or_default() } else { Vec::new() };
            rec.clear();
            self.printer.write(ev, &mut rec);
            self.ring.push_back(rec);
        } else {
            self.printer.write(ev, out);
        }
        match self.head {
            Some(k) if self.count >= k => Flow::Stop,
            _ => Flow::Continue,
        }
    }

    fn end(&mut self, _cap: &Capture, out: &mut Vec<u8>) {
        self.in_capture = false;
        for rec in self.ring.drain(..) {
            out.extend_from_slice(&rec);
        }
    }

    fn following(&mut self) {
        self.polling = true;
    }
}

impl Cat<'_> {
    /// An event record read from a stream: `--lines` selects on the capture
    /// line it names (`ci.line`), `--head`/`--tail` count per session.
    fn piped(&mut self, ev: &Event<'_>, out: &mut Vec<u8>) {
        if let Some((a, b)) = self.lines {
            let line = ev.origin().1;
            if line < a || line > b {
                return;
            }
        }
        let printer = self.printer;
        match &mut self.window {
            Some(w) => w.hold(&ev.session().unwrap_or_default(), ev.line, |buf| printer.write(ev, buf)),
            None => printer.write(ev, out),
        }
    }
}

/// ci-cat's flags, resolved once (fields parsed, the time window and the
/// session ids checked): what a run reads.
struct Config {
    paths: Vec<std::path::PathBuf>,
    printer: EventPrinter,
    lines: Option<(u64, u64)>,
    head: Option<u64>,
    tail: Option<usize>,
    follow: bool,
    window: crate::time::Interval,
    threads: usize,
    ids: SessionIds,
}

impl Config {
    /// Resolves `args`, in the order their errors are told; `None` when
    /// they ask for no event (`--head 0`, `--tail 0`: nothing else checked).
    fn new(args: Args, diag: &Diag) -> Result<Option<Config>> {
        let mut printer = args.output.printer();
        printer.raw = args.raw;
        if !args.fields.is_empty() {
            let paths = args.fields.iter().map(|f| Path::parse(f)).collect::<std::result::Result<Vec<_>, _>>();
            printer.fields = Some(paths.map_err(Error::Usage)?);
        }
        if args.head == Some(0) || args.tail == Some(0) {
            return Ok(None);
        }
        let window = args.time.interval(crate::time::now())?;
        let threads = args.common.threads(diag);
        let ids = args.session.ids()?;
        Ok(Some(Config {
            paths: args.paths,
            printer,
            lines: args.lines,
            head: args.head,
            tail: args.tail,
            follow: args.follow,
            window,
            threads,
            ids,
        }))
    }

    /// What `--head`/`--tail` keep of piped event records (not when
    /// following: a live stream has no end to count back from).
    fn keep(&self) -> Option<Keep> {
        let keep = Keep { first: self.head, last: self.tail.map(|k| k as u64) };
        (!self.follow && (keep.first.is_some() || keep.last.is_some())).then_some(keep)
    }
}

/// Runs ci-cat.
pub fn run(args: Args, diag: &Diag) -> Result<Outcome> {
    let Some(cfg) = Config::new(args, diag)? else { return Ok(Outcome::Nothing) };
    let opts = RunOpts { threads: cfg.threads, follow: cfg.follow, window: cfg.window, ..RunOpts::default() };
    let ids = &cfg.ids;
    let inputs = ids.narrow_inputs(source::inputs_from_args(&cfg.paths, diag), true, opts.detail, diag)?;
    let keep = cfg.keep();
    let mut out = Output::stdout();
    let visitors = source::run(&inputs, &opts, diag, &mut out, || {
        let cat = Cat {
            printer: &cfg.printer,
            lines: cfg.lines,
            head: cfg.head,
            tail: cfg.tail,
            count: 0,
            ring: VecDeque::new(),
            in_capture: false,
            polling: false,
            last_raw: None,
            window: keep.map(Window::new),
        };
        ids.narrow(cat, true)
    })?;
    ids.check_stream(&inputs, &visitors, diag)?;
    let mut held = Vec::new();
    Window::merge(visitors.into_iter().filter_map(|v| v.inner.window), &mut held);
    if !held.is_empty() {
        out.write(&held)?;
    }
    out.flush()?;
    Ok(Outcome::printed_if(out.wrote()))
}
