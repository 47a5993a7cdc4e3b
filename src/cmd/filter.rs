//! `ci-filter`: select event records and session records by predicates.

use std::path::PathBuf;

use clap::Parser;

use crate::cache::line_index::LineIndex;
use crate::cli::values;
use crate::cli::{Common, EventOutput, EventSelect, SessionArg, TimeWindow, Tool};
use crate::diag::Diag;
use crate::error::{Error, Outcome, Result};
use crate::output::{EventPrinter, Output};
use crate::predicate::never::{Seen, Tests};
use crate::predicate::{Glob, Selection, Verdict, Where, PHANTOM_EVENTS};
use crate::record::Event;
use crate::session::{Capture, SessionRecord};
use crate::source::{self, Flow, Part, Pick, ReadEnd, RunOpts, SessionFlow, Visitor};
use crate::time;

mod indexed;

use self::indexed::Indexed;

const EXAMPLES: &str = "\
EXAMPLES:
  ci-find | ci-filter --workspace my-api              sessions of a workspace (session records pass on)
  ci-find | ci-filter --event 'tool:*' --tool bash    bash tool events of every session
  ci-find --session 63cc3feb | ci-filter --errors     what failed in that session
  ci-filter --errors --since 2h $EXAMPLE_ROOT   errors of the last two hours, from a root
  ci-cat events.jsonl | ci-filter --not-event 'llm:*' --not-event 'content_block:*'
  ci-filter --where 'data.usage.output_tokens > 1000' events.jsonl
  ci-filter --where 'data.tool_input.agent == \"self\"' --event tool:pre events.jsonl
  ci-filter --where 'data.result.success == false' --where 'data.tool_name ~ \"^(bash|shell)$\"' -
  ci-filter --where \"data.prompt ~ '(?i)deploy'\" --since 2026-03-01 --until 2026-03-07 --tz Europe/Berlin
  ci-find | ci-filter --status running --agent foundation:explorer --expand --since 30m

PREDICATES:
  Flags are combined with AND; a repeated flag is an OR of its values, except
  --where, whose repetitions are ANDed (use `or` inside one expression).
  --event/--not-event/--tool take exact names or globs: `*` matches any run of
  characters (`:` too), `?` one character. --session takes the exact id or a
  prefix of at least 8 characters that starts one id only (the rule of every
  tool; on stdin it is checked at the end, after the records passed).
  --workspace matches the event's workspace (filled in for older writers that
  left it out: the session's metadata workspace, else its project folder) or
  its session's project folder (<root>/<W>/sessions), as ci-find --workspace
  does. --status and --agent are
  session metadata: event records piped from ci-cat carry none and never match
  them (pipe ci-find's session records instead). --errors selects tool:error,
  provider:error, orchestrator:complete with data.status \"error\", and tool:post
  with data.result.success false. --invert (-v) prints exactly the records the
  same flags without it would not print. Predicates always see the full record;
  only the output is truncated.

WHERE EXPRESSIONS:
  PATH OP VALUE, PATH exists, joined with and/&&, or/||, not/!, ( ).
  PATH is dotted from the top of the record (data.usage.output_tokens,
  data.raw.messages[0].role or data.raw.messages.0.role, data.\"odd.key\";
  a leading . is allowed); a key with a space or one of . [ ] \" ' = ! < > ~
  & | ( ) is quoted. The same paths are read by --fields, --by and metrics. OP is == != < <= > >= or ~ !~ (regex search,
  Rust syntax, (?i) for case-insensitive). VALUE is a number, \"string\" (JSON
  escapes), 'string' (literal, \\' for a quote), true, false or null.
  No coercion: numbers compare as numbers (1 == 1.0), strings as decoded
  strings (by code point), \"5\" is not 5, null is not \"\". A missing field
  compares as null (data.x == null matches missing and null fields; data.x
  exists tells them apart); < <= > >= are false unless both sides are numbers
  or both strings; ~ matches strings only; != and !~ are the negations of ==
  and ~ (so true for a missing field). `workspace` is the filled-in workspace
  and ci.session/ci.path/ci.line the provenance. A malformed expression is
  rejected before any input is read, with the column of the bad token. A
  test that held for no record of the run is named once on stderr when no
  record has its path (a typo; with the nearest key the records have there)
  or when its values are never of the type it compares with (data.n > \"5\"
  on numbers); tests under not, and != and !~, are not watched.

TIME:
  --since is inclusive, --until exclusive (since <= t < until). Values: an
  RFC 3339 timestamp (any number of fractional digits, those past the ninth
  dropped; Z or an offset: an absolute instant), a date-time without offset or
  a date (read in --tz, default local: TZ or the system's zone; a date means
  its first instant, for --until too, so --since D --until D+1 is the whole
  day D), a relative age (90s, 30m, 2h, 7d, 2w, 1h30m; -7d is the same as 7d:
  now minus that), now, or a period word meaning the period's first instant
  in --tz: today, yesterday, this-week, last-week (weeks from Monday),
  this-month, last-month (--since yesterday --until today is yesterday). Event timestamps are parsed the same way and
  compared as instants, never as strings. A record whose timestamp is \"\",
  missing or unparseable never matches a time bound (so --invert prints it);
  such records are counted in the summary line on stderr.

SESSION RECORDS:
  A session record (from ci-find) on stdin stays a session record, printed
  unchanged, when only session-level predicates are given: --workspace
  (project folder or metadata workspace), --session, --status, --agent,
  --since/--until (the session's activity [started_at, last activity] overlaps
  [since, until); last activity is last_event_at, else ended_at; no time, no
  match), and then the record carries the window (\"window\":{\"since\",\"until\"},
  narrowed to what it carried already), so the tool that reads its events
  reads those in the window: `ci-find | ci-filter --since today | ci-agg` is
  `ci-agg --since today`.
  With any event-level predicate (--event, --not-event, --tool, --errors,
  --where) or --expand, it is expanded into its events and the matching
  events are printed. So `ci-find | ci-filter --workspace W | ci-cat` and
  `ci-find | ci-cat | ci-filter --workspace W` print the same events. Event
  records (piped, or read from PATH arguments) are always filtered as events.

LINE INDEX:
  ci-filter keeps, per LINE INDEXED capture file, the event name and place of
  each line in $XDG_CACHE_HOME/ci-tools (default ~/.cache/ci-tools; directory
  0700, files 0600; ci-agg's CACHE in its --help). When the events are narrowed
  by name (--event, --not-event, --errors), a capture whose file is as it was
  (device, inode, size, modification time) is read only at the lines whose name
  can match, and one that grew at those lines and from its old end on; every
  other predicate is then checked on those lines as always. Output, stderr and
  exit status are those of --no-cache, byte for byte. Not used with --where,
  --invert or --strict (they look at every line), nor for other writers (their
  lines' events depend on earlier lines); a capture read
  with a report is not kept. Any other change (rotated, shrunk, rewritten,
  touched) reads it whole and indexes it again. --no-cache or CI_CACHE=0 turns
  it off; ci-find --cache-info lists it.

DAMAGED INPUT:
  Bad lines are reported on stderr as `path:line: reason`, skipped and counted,
  as by ci-cat. To stay fast, ci-filter checks each line's UTF-8, top-level
  keys and values, and the balance of strings and brackets inside data before
  filtering, and validates the whole line only when it passes. A line damaged
  only inside data (a bad escape, a malformed number) that no predicate
  selects is skipped without a report. --strict validates every line and makes
  any bad line exit status 2.

EXIT STATUS:
  One rule in every ci-* tool (README: Paths, session ids, exit status).
  0 something passed, 1 nothing passed (a root with no session is noted
  `looked in R, found 0`, a --session that matches none `no session id starts
  with \"…\"`), 2 an error, which wins (bad flag or expression, a missing or
  unreadable input, a file that is no capture, a refused or ambiguous
  --session, or a bad line with --strict); 130 interrupted by SIGINT, SIGTERM
  or SIGHUP: the output holds whole records only (with --follow a signal is
  the normal end: 0).";

/// [`EXAMPLES`] with the registry's parts: the example root, the formats
/// whose capture files have a line index.
fn examples() -> String {
    crate::format::with_example(EXAMPLES).replacen(
        "LINE INDEXED",
        &crate::format::products(|f| f.profile.line_indexed()),
        1,
    )
}

const FOLLOW_NOTE: &str = "\
Each passing event is printed as its line is written. Session records that
  pass as session records (only session-level predicates, no --expand) are
  printed as they arrive, not followed: pipe them on to `ci-cat -f`.";

/// Select event records and session records by predicates.
#[derive(Debug, Parser)]
#[command(
    name = "ci-filter",
    version,
    after_long_help = crate::source::follow::long_help(&crate::format::with_sections(&examples(), |h| h.filter.as_ref(), "LINE INDEX"), "ci-filter", FOLLOW_NOTE),
    after_help = "Run with --help for examples.",
    mut_arg("since", |a| a.help("Only records at or after this time (RFC 3339, date, age like 30m, 2h, 7d or -7d, or today, yesterday, this-week, last-week, this-month, last-month)")),
    mut_arg("until", |a| a.help("Only records before this time (exclusive: a date or a word means its start)")),
    mut_arg("tz", |a| a.help("Time zone for dates and date-times without offset in --since/--until (IANA name, UTC, ±HH:MM or local)")),
)]
pub struct Args {
    /// Captures: events.jsonl files, session directories, roots, or - for
    /// stdin (session records and event records; always read). With no PATH: stdin when it is a pipe, a socket or a
    /// regular file, else the default roots (a terminal, /dev/null).
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    #[command(flatten)]
    pub select: EventSelect,
    /// Drop events whose name matches (exact or glob; repeatable).
    #[arg(long, value_name = "NAME", hide_possible_values = true, value_parser = values::event_name())]
    pub not_event: Vec<String>,
    #[command(flatten)]
    pub session: SessionArg,
    /// Only sessions whose metadata status is this (session-level; repeatable, OR).
    #[arg(long, value_name = "STATUS")]
    pub status: Vec<String>,
    /// Only sessions of this agent (session-level; repeatable, OR).
    #[arg(long, value_name = "NAME")]
    pub agent: Vec<String>,
    #[command(flatten)]
    pub time: TimeWindow,
    /// Only events whose tool matches (exact or glob; repeatable, OR): data.tool_name, or for a
    /// tool:post/tool:error that names none (a writer's result that names only its call) its
    /// call's tool.
    #[arg(long, value_name = "NAME")]
    pub tool: Vec<String>,
    /// Only error events: tool:error, provider:error, orchestrator:complete with
    /// status error, tool:post with result.success false.
    #[arg(long)]
    pub errors: bool,
    /// Only records where EXPR holds, e.g. 'data.usage.output_tokens > 1000'
    /// (repeatable, AND; see WHERE EXPRESSIONS in --help).
    #[arg(long = "where", value_name = "EXPR")]
    pub where_: Vec<String>,
    /// Print the records that do not match instead (like grep -v).
    #[arg(short = 'v', long)]
    pub invert: bool,
    /// Expand session records into their events even when only session-level
    /// predicates are given.
    #[arg(long)]
    pub expand: bool,
    /// Keep reading the captures as they grow, printing passing events as written.
    #[arg(short = 'f', long)]
    pub follow: bool,
    /// Do not use or update the line index or the kept transcript heads (see
    /// LINE INDEX in --help; also CI_CACHE=0).
    #[arg(long)]
    pub no_cache: bool,
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

impl Args {
    /// Resolves the predicate flags into a [`Selection`], and the
    /// `--session` ids it was made with (each flag parsed once).
    pub fn selection(&self) -> Result<(Selection, crate::session_id::SessionIds)> {
        let globs = |flag: &str, v: &[String]| {
            v.iter()
                .map(|s| Glob::new(s).map_err(|e| Error::Usage(format!("{flag} {s:?}: {e}"))))
                .collect::<Result<Vec<_>>>()
        };
        let (since, until) = self.time.bounds(time::now())?;
        let events = globs("--event", &self.select.event)?;
        let not_events = globs("--not-event", &self.not_event)?;
        let ids = self.session.ids()?;
        let sel = Selection {
            events,
            not_events,
            workspaces: self.select.workspace.clone(),
            sessions: ids.values().to_vec(),
            statuses: self.status.clone(),
            agents: self.agent.clone(),
            since,
            until,
            tools: globs("--tool", &self.tool)?,
            errors: self.errors,
            wheres: self
                .where_
                .iter()
                .map(|w| Where::parse(w).map_err(|e| Error::Usage(e.to_string())))
                .collect::<Result<_>>()?,
        };
        Ok((sel, ids))
    }
}

/// Per-thread state of ci-filter.
struct Filter<'a> {
    sel: &'a Selection,
    printer: &'a EventPrinter,
    diag: &'a Diag,
    invert: bool,
    /// Session records are expanded into events (an event-level predicate or --expand).
    expand: bool,
    /// Lines are skimmed, and validated only when they pass.
    lazy: bool,
    /// Records printed.
    passed: u64,
    /// Event records read from a stream (no session metadata).
    piped: u64,
    /// `--event` patterns (indices into the selection's) no event has matched yet.
    unmatched: Vec<usize>,
    /// Distinct event names read while a pattern is unmatched (for the hint;
    /// at most [`NAMES_KEPT`]).
    names: std::collections::BTreeSet<String>,
    /// `--where` tests, watched for the ones that never hold.
    tests: &'a Tests<'a>,
    seen: Seen,
    /// The line index, when the cache is on.
    index: Option<Indexed<'a>>,
}

/// Distinct event names kept for the "did you mean" hint of an `--event`
/// pattern that matched nothing.
const NAMES_KEPT: usize = 1024;

impl Filter<'_> {
    /// Notes an event's name for the `--event` hint: which patterns matched,
    /// and the names read while one has not.
    fn saw_name(&mut self, name: &str) {
        if !self.unmatched.is_empty() {
            let events = &self.sel.events;
            self.unmatched.retain(|&i| !events[i].matches(name));
            if self.names.len() < NAMES_KEPT && !self.names.contains(name) {
                self.names.insert(name.to_owned());
            }
        }
    }

    fn pass(&mut self, v: Verdict) -> bool {
        if v == Verdict::Untimed {
            self.diag.untimed();
        }
        let pass = (v == Verdict::Match) != self.invert;
        self.passed += u64::from(pass);
        pass
    }
}

impl Visitor for Filter<'_> {
    fn session(&mut self, rec: &SessionRecord, line: &[u8], out: &mut Vec<u8>) -> SessionFlow {
        if self.expand {
            return SessionFlow::Expand;
        }
        if self.pass(self.sel.matches_session(rec)) {
            // A time bound narrows the window the record carries, so the
            // tool that reads its events keeps to it (README: time windows).
            let bound = crate::time::Interval::new(self.sel.since, self.sel.until);
            if self.invert || bound.is_open() {
                out.extend_from_slice(line);
            } else {
                let mut narrowed = rec.clone();
                narrowed.window = Some(rec.window.map_or(bound, |w| w.and(bound)));
                narrowed.write_json(out);
            }
            out.push(b'\n');
        }
        SessionFlow::Handled
    }

    fn lazy(&self) -> bool {
        self.lazy
    }

    /// Each event passes or not on its own, and what is kept for the
    /// warnings merges whatever the split: a capture may be read in parts.
    fn splits(&self) -> bool {
        true
    }

    fn begin(&mut self, cap: &Capture, _out: &mut Vec<u8>) -> bool {
        // Skipping a capture is only sound when no event of it can pass.
        self.invert || self.sel.capture_may_match(cap)
    }

    fn pick(&mut self, cap: &Capture) -> Option<Pick> {
        let mut index = self.index.take()?;
        let sel = self.sel;
        let pick = index.pick(cap, sel, |n| self.saw_name(n));
        self.index = Some(index);
        pick
    }

    fn read_end(&mut self, _cap: &Capture, end: &ReadEnd<'_>) {
        if let Some(index) = &mut self.index {
            index.read_end(end);
        }
    }

    fn end(&mut self, cap: &Capture, _out: &mut Vec<u8>) {
        if let Some(index) = &mut self.index {
            index.end(cap);
        }
    }

    fn begin_part(&mut self, cap: &Capture, _part: &Part<'_>, out: &mut Vec<u8>) -> bool {
        let go = self.begin(cap, out);
        if let Some(index) = self.index.as_mut().filter(|_| go) {
            index.begin_part(cap);
        }
        go
    }

    fn end_part(&mut self, cap: &Capture, part: &Part<'_>, _out: &mut Vec<u8>) {
        if let Some(index) = &mut self.index {
            index.end_part(cap, part);
        }
    }

    fn event(&mut self, ev: &Event<'_>, out: &mut Vec<u8>) -> Flow {
        self.piped += u64::from(ev.capture.is_none());
        self.tests.observe(&mut self.seen, ev);
        if self.index.is_some() || !self.unmatched.is_empty() {
            let name = ev.name();
            if let Some(index) = &mut self.index {
                index.event(ev, &name);
            }
            self.saw_name(&name);
        }
        if self.pass(self.sel.matches_event(ev)) {
            if ev.confirm(self.diag) {
                self.printer.write(ev, out);
            } else {
                self.passed -= 1;
            }
        }
        Flow::Continue
    }
}

/// One warning per `--event` pattern that matched no event of the run (a
/// typo such as `tool:pr` would otherwise print nothing without a word), with
/// the nearest event name read when one is close.
fn warn_unmatched_events(sel: &crate::predicate::Selection, visitors: &[Filter<'_>], diag: &Diag) {
    // In name order, once each, whatever the threads each saw.
    let read: std::collections::BTreeSet<&str> =
        visitors.iter().flat_map(|v| v.names.iter().map(String::as_str)).collect();
    let read: Vec<&str> = read.into_iter().collect();
    if read.is_empty() {
        return; // no event was read: nothing to compare with
    }
    for (i, g) in sel.events.iter().enumerate() {
        let never = visitors.iter().all(|v| v.unmatched.contains(&i));
        if !never || (g.is_exact() && PHANTOM_EVENTS.contains(&g.as_str())) {
            continue;
        }
        let hint = match crate::text::nearest(g.as_str(), &read) {
            Some(n) if g.is_exact() => format!("; did you mean {n:?}?"),
            _ => String::new(),
        };
        diag.warn(&format_args!("--event {}: no event read matched it{hint}", g.as_str()));
    }
}

/// ci-filter's flags, resolved once: the selection and what the run reads
/// of the rest.
struct Config {
    sel: Selection,
    ids: crate::session_id::SessionIds,
    printer: EventPrinter,
    paths: Vec<PathBuf>,
    /// The `--where` texts as given (for the warnings of the tests that never held).
    where_texts: Vec<String>,
    threads: usize,
    follow: bool,
    invert: bool,
    /// Session records are expanded into events.
    expand: bool,
    /// Lines are skimmed, and validated only when they pass.
    lazy: bool,
    /// The line index is used and updated.
    indexed: bool,
    /// What discovery reads of transcripts' heads is kept.
    peeks: bool,
}

impl Config {
    /// Resolves `args`; warns of `--event` names no writer emits.
    fn new(args: Args, diag: &Diag) -> Result<Config> {
        let (sel, ids) = args.selection()?;
        for g in sel.events.iter().filter(|g| g.is_exact() && PHANTOM_EVENTS.contains(&g.as_str())) {
            let hint = if g.as_str().ends_with("error") {
                "; errors surface as provider:error, tool:error and orchestrator:complete with status error (--errors)"
            } else {
                ""
            };
            diag.warn(&format_args!("--event {}: no writer emits this event, it never matches{hint}", g.as_str()));
        }
        let expand = args.expand || sel.has_event_predicates();
        // Skim lines and validate only those that pass, unless --strict asks for
        // every bad line (or nothing would be dropped anyway).
        let lazy = !args.common.strict && (sel.has_event_predicates() || sel.has_session_predicates() || args.invert);
        // Nothing is kept across runs with --no-cache, nor while following.
        let kept = !(args.no_cache || args.follow);
        Ok(Config {
            printer: args.output.printer(),
            threads: args.common.threads(diag),
            follow: args.follow,
            invert: args.invert,
            indexed: kept && !crate::cache::off_by_env(),
            peeks: kept,
            expand,
            lazy,
            paths: args.paths,
            where_texts: args.where_,
            sel,
            ids,
        })
    }
}

/// Runs ci-filter.
pub fn run(args: Args, diag: &Diag) -> Result<Outcome> {
    let cfg = Config::new(args, diag)?;
    // What discovery reads of transcripts' bytes is kept (written when the run ends).
    let _peeks = crate::cache::peeks::for_run(!cfg.peeks, diag);
    let (sel, ids) = (&cfg.sel, &cfg.ids);
    let mut opts = RunOpts { threads: cfg.threads, follow: cfg.follow, ..RunOpts::default() };
    // The rule is checked here; the selection (or its inverse) is the
    // visitor's, so every capture stays.
    let inputs = ids.narrow_inputs(source::inputs_from_args(&cfg.paths, diag), false, opts.detail, diag)?;
    let tests = Tests::new(&sel.wheres);
    let index = cfg.indexed.then(|| LineIndex::open(diag).map(std::sync::Arc::new)).flatten();
    // Only the picked lines are read when nothing else can tell them apart
    // (indexed.rs); a large capture the index has is then read whole (at
    // its picked lines), not in parts.
    let picks = sel.names_narrow() && sel.wheres.is_empty() && !cfg.invert && cfg.lazy;
    if let Some(index) = index.as_ref().filter(|_| picks) {
        let index = std::sync::Arc::clone(index);
        opts.whole = Some(source::Whole(std::sync::Arc::new(move |cap: &Capture| index.has(cap))));
    }
    let mut out = Output::stdout();
    let visitors = source::run(&inputs, &opts, diag, &mut out, || {
        let filter = Filter {
            sel,
            printer: &cfg.printer,
            diag,
            invert: cfg.invert,
            expand: cfg.expand,
            lazy: cfg.lazy,
            passed: 0,
            piped: 0,
            unmatched: (0..sel.events.len()).collect(),
            names: std::collections::BTreeSet::new(),
            tests: &tests,
            seen: tests.seen(),
            index: Indexed::new(index.as_deref(), picks),
        };
        ids.narrow(filter, false)
    })?;
    ids.check_stream(&inputs, &visitors, diag)?;
    let mut visitors: Vec<Filter<'_>> = visitors.into_iter().map(|v| v.inner).collect();
    if let Some(index) = &index {
        let updates = visitors.iter_mut().filter_map(|v| v.index.as_mut()).flat_map(|i| std::mem::take(&mut i.updates));
        index.save(updates.collect(), diag);
    }
    warn_unmatched_events(sel, &visitors, diag);
    tests.warn(visitors.iter_mut().map(|v| std::mem::take(&mut v.seen)).collect(), &cfg.where_texts, diag);
    let passed: u64 = visitors.iter().map(|v| v.passed).sum();
    let piped: u64 = visitors.iter().map(|v| v.piped).sum();
    if sel.needs_session_metadata() && piped > 0 {
        let s = if piped == 1 { "" } else { "s" };
        diag.warn(&format_args!(
            "--status/--agent: {piped} event record{s} from a stream had no session metadata and did not match (pipe ci-find's session records instead)"
        ));
    }
    Ok(Outcome::printed_if(passed > 0))
}
