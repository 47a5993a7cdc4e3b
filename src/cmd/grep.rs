//! `ci-grep`: search the decoded strings of events, one NDJSON record per match.

use std::collections::HashMap;
use std::path::PathBuf;

use clap::{Parser, ValueEnum};

use crate::cli::{Common, EventSelect, Provenance, SessionArg, TimeWindow, Tool};
use crate::diag::Diag;
use crate::discover::Detail;
use crate::error::{Error, Outcome, Result};
use crate::format::Format;
use crate::json::{decode_str, Path};
use crate::output::{matches, text, Output};
use crate::predicate::{Glob, Selection, Verdict};
use crate::record::Event;
use crate::search::snippet::Snippet;
use crate::search::tape;
use crate::search::walk::{self, Scope};
use crate::search::Matcher;
use crate::session::{Capture, SessionRecord};
use crate::source::{self, Flow, Input, Part, RunOpts, Visitor};
use crate::window::{Keep, Window};

const EXAMPLES: &str = "\
EXAMPLES:
  ci-grep café                                      every decoded string in data, every session
  ci-find --workspace my-api | ci-grep -i 'rate ?limit'
  ci-grep -F '\"event\":\"tool:pre\"' events.jsonl      text that exists only decoded
  ci-grep --field data.result.output -w panic       only tool outputs
  ci-grep --event 'tool:*' -m 3 timeout             at most 3 matches per session
  ci-grep --max-total 20 -C 30 error                at most 20 matches in all
  ci-grep -c error                                  matches per session
  ci-grep -l 日本語 | ci-cat --head 2               sessions with a match, piped on
  ci-grep --format text -C 20 'exit status \\d+'     a readable view
  ci-grep --keys -F tool_input                      also search object keys

MATCHING:
  PATTERN is a Rust regex (https://docs.rs/regex), matched against DECODED JSON
  strings: `café` matches text stored as caf\\u00e9, `\"quoted\"` matches
  \\\"quoted\\\", and \\n in a pattern is a real newline. Use -e to give several
  patterns (any may match); then every positional argument is a PATH. -F takes
  patterns literally (`\\u00e9` with -F is six characters, not é). -i folds case
  with Unicode rules (ÜBERPRÜFUNG matches überprüfung); -w wants no word
  character right before and after a match. By default every string value
  inside data is searched; --field PATH (repeatable) limits the search to
  those paths and everything under them (data.result covers
  data.result.output); --keys also searches object keys inside them. Paths
  are those of ci-filter --where: data.raw.messages[0].content (or
  data.raw.messages.0.content, as matches name them), data.\"odd.key\".

NARROWING (before any string is decoded):
  --event NAME|GLOB, --workspace W, --session ID (each repeatable, OR), with
  the meaning they have in ci-filter: --workspace matches the event's
  (filled-in) workspace or its session's project folder; --session is an
  exact id or a prefix of at least 8 characters that starts one id only. A
  session is skipped unread when its id does not match --session. Session records piped from
  ci-find/ci-filter are searched only for their captures.

OUTPUT (one JSON object per match, keys in this order):
  {\"session\":ID,\"line\":N,\"event\":NAME,\"timestamp\":TS|null,\"workspace\":W|null,
   \"path\":\"data.result.output\",\"key\":false,\"offset\":BYTES,\"char_offset\":CHARS,
   \"match\":TEXT,\"snippet\":\"…before match after…\",
   \"ci\":{\"session\":ID,\"path\":FILE,\"line\":N,\"cut\":{\"offset\":O,\"bytes\":L,
   \"xxh3\":H,\"writer\":W}}}
  line is the physical line of FILE (`ci-cat FILE --lines N` shows the
  event); ci is the event's provenance (with \"part\" for one of several
  events of a line) plus where its line is, so a match record stands for its
  event downstream: `ci-grep X | ci-cat --full` prints the matched events
  as ci-cat prints them, `ci-grep X | ci-agg --by session` counts them, each
  event once however many matches it holds (ci-grep -c counts matches).
  A match of an event record piped whole into ci-grep (its line's place is
  not known: \"cut\":true) carries that record, \"record\":{…}, before ci.
  offset/char_offset locate the match in the decoded string, in UTF-8
  bytes and in characters; key is true for a match in an object key (path is
  then the path of that member). The snippet has -C characters of context on
  each side, cut on character boundaries, `…` where the string goes on, and
  newlines, tabs and other control characters shown escaped (\\n, \\t,
  \\u001b); a match over 200 characters is cut with `…`. Matches come in
  file order, within a record in document order; an empty match (pattern
  '' or a*) is reported once per string.
  -c prints {\"session\":ID,\"path\":FILE,\"count\":N} per session with a match
  (matches, not lines; at most -m). -l prints the session record (as ci-find
  does) of each session with a match, so it pipes into ci-cat, ci-agg,
  ci-grep. --format text prints `FILE:LINE: event path: snippet` (-c:
  `session:count`, -l: the path), the match highlighted on a terminal
  (--color, NO_COLOR). For event records piped on stdin, -m, -c and -l count
  per session over the whole stream and print at its end.
  --max-total N prints the first N matches of the output (-c, -l: N
  sessions), in the order they would have come, then stops reading; stderr
  says `stopped after N matches (--max-total N)` when there were more.

SPEED AND DAMAGED INPUT:
  Before parsing a line, ci-grep checks its raw bytes for the literal text
  the pattern requires, in every way JSON can encode it (raw UTF-8, \\uXXXX in
  any case, \\\" and the other short escapes), so it never skips a line that
  holds a decoded match; every reported match is confirmed on the decoded
  string. A line that cannot hold a match is not parsed, so its damage is
  not reported; --strict parses every line (and fails on any bad one).

EXIT STATUS:
  One rule in every ci-* tool (README: Paths, session ids, exit status).
  0 a match was printed; 1 none (a root with no session is noted `looked in R,
  found 0`, a --session that matches none `no session id starts with \"…\"`);
  2 an error, which wins over a match (a missing or unreadable input, a file
  that is no capture, a refused or ambiguous --session); 130
  interrupted by SIGINT, SIGTERM or SIGHUP: the output holds whole records
  only, and -c, -l and held -m matches are not printed (with --follow a signal
  is the normal end: 0).";

const FOLLOW_NOTE: &str = "\
Each match is printed as its line is written. Not with -c, -l or -m: they
  count per session, and a followed session never ends (usage error, exit 2).";

/// What is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MatchLayout {
    /// NDJSON records.
    Json,
    /// Readable lines: `FILE:LINE: event path: snippet`.
    Text,
}

/// When to colour `--format text`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// On a terminal, unless NO_COLOR is set.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// Search decoded session content; one NDJSON record per match, with a snippet.
#[derive(Debug, Parser)]
#[command(
    name = "ci-grep",
    version,
    after_long_help = crate::source::follow::long_help(&crate::format::with_sections(EXAMPLES, |h| h.grep.as_ref(), "EXIT STATUS"), "ci-grep", FOLLOW_NOTE),
    after_help = "Run with --help for examples."
)]
pub struct Args {
    /// A regex (Rust syntax) matched against decoded JSON strings. With -e,
    /// this is the first PATH.
    #[arg(value_name = "PATTERN")]
    pub pattern: Option<String>,
    /// Captures: events.jsonl files, session directories, roots, or - for
    /// stdin (always read). With no PATH: stdin when it is a pipe, a socket or a
    /// regular file, else the default roots (a terminal, /dev/null).
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// A pattern to search for (repeatable: any may match).
    #[arg(short = 'e', long = "regexp", value_name = "PATTERN", allow_hyphen_values = true)]
    pub regexp: Vec<String>,
    /// Take patterns as literal text, not regexes.
    #[arg(short = 'F', long)]
    pub fixed_strings: bool,
    /// Match case-insensitively (Unicode case folding).
    #[arg(short = 'i', long)]
    pub ignore_case: bool,
    /// Only matches with no word character right before and after them.
    #[arg(short = 'w', long)]
    pub word_regexp: bool,
    /// Search only this field path and everything under it (repeatable)
    /// [default: data].
    #[arg(long = "field", value_name = "PATH")]
    pub fields: Vec<String>,
    /// Also search object keys inside the searched fields.
    #[arg(long)]
    pub keys: bool,
    #[command(flatten)]
    pub select: EventSelect,
    #[command(flatten)]
    pub session: SessionArg,
    #[command(flatten)]
    pub time: TimeWindow,
    /// Characters of context on each side of a match in the snippet.
    #[arg(short = 'C', long = "context", value_name = "N", default_value_t = 40)]
    pub context: usize,
    /// Stop after N matches per session.
    #[arg(short = 'm', long = "max-count", value_name = "N")]
    pub max_count: Option<u64>,
    /// Stop after N matches in all (with -c or -l: N sessions); stderr says
    /// so when more were found.
    #[arg(long, value_name = "N")]
    pub max_total: Option<u64>,
    /// Print the number of matches per session instead of the matches.
    #[arg(short = 'c', long, conflicts_with = "files_with_matches")]
    pub count: bool,
    /// Print the session record of each session with a match.
    #[arg(short = 'l', long)]
    pub files_with_matches: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = MatchLayout::Json)]
    pub format: MatchLayout,
    /// Colour the text format.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Keep searching the captures as they grow, printing matches as written.
    #[arg(short = 'f', long, conflicts_with_all = ["count", "files_with_matches", "max_count"])]
    pub follow: bool,
    #[command(flatten)]
    pub provenance: Provenance,
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

/// What a run prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Matches,
    Count,
    List,
}

/// The resolved configuration shared by all workers.
struct Config {
    matcher: Matcher,
    precheck: bool,
    scope: Scope,
    keys: bool,
    narrow: Selection,
    context: usize,
    max: Option<u64>,
    mode: Mode,
    text: bool,
    color: bool,
    /// `--no-provenance`: match records without `ci`.
    no_provenance: bool,
}

/// State kept for event records piped on stdin, whose sessions can span
/// batches handled by different workers: merged after the run.
#[derive(Default)]
struct Piped {
    /// Match records held back for -m: the first N per session.
    held: Option<Window>,
    /// Per session: first stdin line with a match, capture path, matches in
    /// this worker.
    sessions: HashMap<String, (u64, String, u64)>,
}

/// Per-thread state of ci-grep.
struct Grep<'a> {
    cfg: &'a Config,
    /// Matches in the current capture.
    count: u64,
    found: bool,
    piped: Piped,
}

/// Where a match was found.
struct Site<'e> {
    session: &'e str,
    path: &'e str,
    line: u64,
}

impl Visitor for Grep<'_> {
    fn begin(&mut self, cap: &Capture, _out: &mut Vec<u8>) -> bool {
        self.count = 0;
        self.cfg.narrow.capture_may_match(cap)
    }

    /// Matches are per line and -c counts add up (over the parts of a
    /// capture, [`Part::tally`]): a capture may be read in parts, except
    /// with -m and -l, which stop reading a capture at its Nth match.
    fn splits(&self) -> bool {
        self.limit() == u64::MAX
    }

    fn end_part(&mut self, cap: &Capture, part: &Part<'_>, out: &mut Vec<u8>) {
        let total = part.tally(self.count);
        if part.last {
            self.count = total;
            self.end(cap, out);
        }
    }

    fn precheck(&mut self, raw: &[u8]) -> bool {
        !self.cfg.precheck || self.cfg.matcher.prefilter().may_match(raw)
    }

    fn event(&mut self, ev: &Event<'_>, out: &mut Vec<u8>) -> Flow {
        if self.cfg.narrow.matches_event(ev) != Verdict::Match {
            return Flow::Continue;
        }
        match ev.capture {
            Some(cap) => self.capture_event(ev, cap, out),
            None => {
                self.piped_event(ev, out);
                Flow::Continue
            }
        }
    }

    fn end(&mut self, cap: &Capture, out: &mut Vec<u8>) {
        if self.count == 0 {
            return;
        }
        match self.cfg.mode {
            Mode::Matches => {}
            Mode::Count => write_count(out, &cap.session, &cap.display, self.count, self.cfg.text),
            Mode::List => write_session(out, &session_record(cap), self.cfg.text),
        }
    }
}

impl Grep<'_> {
    /// The most matches wanted from one session.
    fn limit(&self) -> u64 {
        match self.cfg.mode {
            Mode::List => 1,
            _ => self.cfg.max.unwrap_or(u64::MAX),
        }
    }

    fn capture_event(&mut self, ev: &Event<'_>, cap: &Capture, out: &mut Vec<u8>) -> Flow {
        let limit = self.limit();
        let site = Site { session: &cap.session, path: ev.source, line: ev.line };
        let mut count = self.count;
        let cfg = self.cfg;
        search_event(cfg, ev, limit.saturating_sub(count), &mut |m| {
            count += 1;
            if cfg.mode == Mode::Matches {
                write_match(out, cfg, ev, &site, &m);
            }
        });
        self.found |= count > self.count;
        self.count = count;
        if count >= limit {
            Flow::Stop
        } else {
            Flow::Continue
        }
    }

    fn piped_event(&mut self, ev: &Event<'_>, out: &mut Vec<u8>) {
        let prov = ev.provenance();
        let session = ev.session().map(|s| s.into_owned()).unwrap_or_else(|| "-".into());
        let path = prov
            .and_then(|p| p.get("path"))
            .and_then(|p| p.as_str())
            .map(|p| p.into_owned())
            .unwrap_or_else(|| ev.source.to_owned());
        let line = prov.and_then(|p| p.get("line")).and_then(|l| l.as_f64()).map_or(ev.line, |l| l as u64);
        let limit = self.limit();
        let seen = self.piped.sessions.get(&session).map_or(0, |e| e.2);
        if seen >= limit {
            return;
        }
        let cfg = self.cfg;
        let site = Site { session: &session, path: &path, line };
        let mut found = 0;
        let held = &mut self.piped.held;
        search_event(cfg, ev, limit.saturating_sub(seen), &mut |m| {
            found += 1;
            if cfg.mode != Mode::Matches {
                return;
            }
            match held {
                Some(w) => w.hold(&session, ev.line, |b| write_match(b, cfg, ev, &site, &m)),
                None => write_match(out, cfg, ev, &site, &m),
            }
        });
        if found > 0 {
            self.found = true;
            let e = self.piped.sessions.entry(session).or_insert((ev.line, path, 0));
            e.2 += found;
        }
    }
}

/// One match in one decoded string.
struct Hit<'s> {
    path: &'s str,
    key: bool,
    text: &'s str,
    start: usize,
    end: usize,
    char_offset: usize,
}

/// Searches the strings of one event, calling `f` for each match (at most `limit`).
///
/// Strings are decoded through simd-json's tape ([`tape::strings`], several
/// times faster than decoding raw strings one by one when a line holds many);
/// derived records (hooks, transcripts), lines simd-json refuses and lines
/// over [`tape::MAX_LINE`] (memory) take the raw walk.
fn search_event(cfg: &Config, ev: &Event<'_>, limit: u64, f: &mut dyn FnMut(Hit<'_>)) {
    if limit == 0 {
        return;
    }
    let mut left = limit;
    let prefilter = cfg.matcher.prefilter();
    let regex = cfg.matcher.regex();
    let mut search = |path: &str, key: bool, text: &str| {
        let (mut at, mut chars) = (0, 0);
        let mut reported_empty = false;
        for m in regex.find_iter(text) {
            // An empty match (`''`, `a*` between a's) is reported once per
            // string, not at every character.
            if m.is_empty() {
                if reported_empty {
                    continue;
                }
                reported_empty = true;
            }
            chars += text[at..m.start()].chars().count();
            at = m.start();
            f(Hit { path, key, text, start: m.start(), end: m.end(), char_offset: chars });
            left -= 1;
            if left == 0 {
                return false;
            }
        }
        true
    };
    if !ev.derived()
        && tape::strings(ev.rec.line(), &cfg.scope, cfg.keys, &mut |s| search(s.path, s.key, s.text)).is_some()
    {
        return;
    }
    walk::event_strings(ev, &cfg.scope, cfg.keys, &mut |s| {
        let escaped = memchr::memchr(b'\\', s.raw).is_some();
        if escaped && cfg.precheck && !prefilter.may_match(s.raw) {
            return true;
        }
        match decode_str(s.raw) {
            Some(text) => search(s.path, s.key, &text),
            None => true,
        }
    });
}

fn write_match(out: &mut Vec<u8>, cfg: &Config, ev: &Event<'_>, site: &Site<'_>, m: &Hit<'_>) {
    let snip = Snippet::new(m.text, m.start, m.end, cfg.context);
    if cfg.text {
        let event = ev.name();
        let shown = text::Match { file: site.path, line: site.line, event: &event, path: m.path, key: m.key };
        text::write_match(out, cfg.color, &shown, &snip);
        return;
    }
    let found = matches::Found {
        session: site.session,
        line: site.line,
        path: m.path,
        key: m.key,
        offset: m.start,
        char_offset: m.char_offset,
        provenance: !cfg.no_provenance,
    };
    matches::write_match(out, ev, &found, &snip);
}

fn write_count(out: &mut Vec<u8>, session: &str, path: &str, count: u64, text: bool) {
    if text {
        text::write_count(out, session, count);
        return;
    }
    matches::write_count(out, session, path, count);
}

fn write_session(out: &mut Vec<u8>, rec: &SessionRecord, text: bool) {
    if text {
        text::write_path(out, &rec.path);
        return;
    }
    rec.write_json(out);
    out.push(b'\n');
}

/// The session record of a capture: the one it came from or was discovered
/// with, else a minimal one (session, path, format, size).
fn session_record(cap: &Capture) -> SessionRecord {
    match &cap.record {
        Some(r) => r.clone(),
        None => minimal_record(&cap.session, &cap.display, cap.format, cap.workspace.clone()),
    }
}

fn minimal_record(session: &str, path: &str, format: &'static Format, workspace: Option<String>) -> SessionRecord {
    SessionRecord {
        workspace,
        bytes: std::fs::metadata(path).map(|m| m.len()).unwrap_or(0),
        ..SessionRecord::new(session.to_owned(), format, path.to_owned())
    }
}

/// The session record for a session seen only through piped event records:
/// its capture's record when the path is a capture, else a minimal one.
fn piped_session_record(
    session: &str,
    path: &str,
    known: &mut HashMap<String, Vec<SessionRecord>>,
    diag: &Diag,
) -> SessionRecord {
    // The file's captures, read once per file (a hook-log file holds many
    // sessions, and indexing it reads it whole).
    let records = known.entry(path.to_owned()).or_insert_with(|| {
        let p = std::path::Path::new(path);
        if !p.is_file() {
            return Vec::new();
        }
        source::captures_at(p, Detail::Full, diag).into_iter().filter_map(|c| c.record).collect()
    });
    // The file's capture of this session (a file of a writer that keeps
    // several sessions in one file, or one session in several, names the
    // session's own path), else the file's first.
    match records.iter().find(|r| r.session == session).or(records.first()) {
        Some(rec) => rec.clone(),
        None => minimal_record(session, path, crate::format::PLAIN, None),
    }
}

impl Args {
    /// The patterns and the paths, with `-e` moving the first positional
    /// argument to the paths.
    fn patterns_and_paths(&self) -> Result<(Vec<String>, Vec<PathBuf>)> {
        let mut paths = self.paths.clone();
        if !self.regexp.is_empty() {
            if let Some(p) = &self.pattern {
                paths.insert(0, PathBuf::from(p));
            }
            return Ok((self.regexp.clone(), paths));
        }
        match &self.pattern {
            Some(p) => Ok((vec![p.clone()], paths)),
            None => Err(Error::Usage("no pattern given: ci-grep PATTERN [PATH...] (or -e PATTERN)".into())),
        }
    }

    fn config(&self, color_out: bool) -> Result<(Config, Vec<PathBuf>)> {
        let (patterns, paths) = self.patterns_and_paths()?;
        let matcher =
            Matcher::new(&patterns, self.fixed_strings, self.ignore_case, self.word_regexp).map_err(Error::Usage)?;
        let fields = self.fields.iter().map(|f| Path::parse(f)).collect::<std::result::Result<Vec<_>, _>>();
        let mode = if self.count {
            Mode::Count
        } else if self.files_with_matches {
            Mode::List
        } else {
            Mode::Matches
        };
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let color = self.format == MatchLayout::Text
            && match self.color {
                ColorChoice::Always => true,
                ColorChoice::Never => false,
                ColorChoice::Auto => color_out && !no_color,
            };
        let cfg = Config {
            matcher,
            precheck: !self.common.strict,
            scope: Scope::new(&fields.map_err(Error::Usage)?),
            keys: self.keys,
            narrow: Selection {
                events: self
                    .select
                    .event
                    .iter()
                    .map(|e| Glob::new(e))
                    .collect::<std::result::Result<_, _>>()
                    .map_err(Error::Usage)?,
                workspaces: self.select.workspace.clone(),
                sessions: self.session.ids()?.values().to_vec(),
                ..Selection::default()
            },
            context: self.context,
            max: self.max_count,
            mode,
            text: self.format == MatchLayout::Text,
            color,
            no_provenance: self.provenance.no_provenance,
        };
        Ok((cfg, paths))
    }
}

/// Runs ci-grep.
pub fn run(args: Args, diag: &Diag) -> Result<Outcome> {
    let mut out = Output::stdout();
    let (cfg, paths) = args.config(out.is_terminal())?;
    if cfg.max == Some(0) || args.max_total == Some(0) {
        return Ok(Outcome::Nothing);
    }
    if let Some(n) = args.max_total {
        out.limit_lines(n);
    }
    match search(&args, &cfg, &paths, diag, &mut out) {
        Err(Error::Enough) => {
            let n = args.max_total.unwrap_or_default();
            let (one, many) = match cfg.mode {
                Mode::Matches => ("match", "matches"),
                Mode::Count | Mode::List => ("session", "sessions"),
            };
            diag.note(&format_args!("stopped after {n} {} (--max-total {n})", if n == 1 { one } else { many }));
            Ok(Outcome::Printed)
        }
        done => done,
    }
}

/// Searches the inputs, printing as [`run`] says.
fn search(args: &Args, cfg: &Config, paths: &[PathBuf], diag: &Diag, out: &mut Output) -> Result<Outcome> {
    let window = args.time.interval(crate::time::now())?;
    let opts = RunOpts { threads: args.common.threads(diag), follow: args.follow, window, ..RunOpts::default() };
    let ids = args.session.ids()?;
    let inputs: Vec<Input> = ids.narrow_inputs(source::inputs_from_args(paths, diag), true, opts.detail, diag)?;
    let visitors = source::run(&inputs, &opts, diag, out, || {
        let grep = Grep {
            cfg,
            count: 0,
            found: false,
            piped: Piped {
                held: (cfg.mode == Mode::Matches)
                    .then_some(cfg.max)
                    .flatten()
                    .map(|k| Window::new(Keep { first: Some(k), last: None })),
                sessions: HashMap::new(),
            },
        };
        ids.narrow(grep, true)
    })?;
    ids.check_stream(&inputs, &visitors, diag)?;
    let visitors: Vec<Grep<'_>> = visitors.into_iter().map(|v| v.inner).collect();
    let found = visitors.iter().any(|v| v.found);
    let mut buf = Vec::new();
    finish_piped(cfg, visitors.into_iter().map(|v| v.piped).collect(), diag, &mut buf);
    out.write(&buf)?;
    out.flush()?;
    Ok(Outcome::printed_if(found))
}

/// Prints what piped event records held back: -m matches in stream order,
/// -c counts and -l records in the order sessions first matched.
fn finish_piped(cfg: &Config, parts: Vec<Piped>, diag: &Diag, out: &mut Vec<u8>) {
    let limit = match cfg.mode {
        Mode::List => 1,
        _ => cfg.max.unwrap_or(u64::MAX),
    };
    let mut held = vec![];
    let mut sessions: HashMap<String, (u64, String, u64)> = HashMap::new();
    for p in parts {
        held.extend(p.held);
        for (s, (first, path, n)) in p.sessions {
            let e = sessions.entry(s).or_insert((first, path.clone(), 0));
            if first < e.0 {
                *e = (first, path, e.2);
            }
            e.2 += n;
        }
    }
    match cfg.mode {
        Mode::Matches => Window::merge(held, out),
        Mode::Count | Mode::List => {
            let mut list: Vec<(String, (u64, String, u64))> = sessions.into_iter().collect();
            list.sort_by(|a, b| (a.1 .0, &a.0).cmp(&(b.1 .0, &b.0)));
            let mut known = HashMap::new();
            for (s, (_, path, n)) in list {
                if cfg.mode == Mode::Count {
                    // The session's path, as when reading the capture itself.
                    let rec = piped_session_record(&s, &path, &mut known, diag);
                    write_count(out, &s, &rec.path, n.min(limit), cfg.text);
                } else {
                    write_session(out, &piped_session_record(&s, &path, &mut known, diag), cfg.text);
                }
            }
        }
    }
}
