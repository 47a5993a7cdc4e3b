//! The formats the toolkit reads, one module each, listed in one registry ([`FORMATS`]).
//!
//! A writer is an agent framework's way of putting sessions on disk. Each
//! module says only what differs between writers:
//!
//! - **discovery**: its default roots (and their environment variables), how
//!   a session is recognised under a root (the marker rule), and the fields
//!   of its session record;
//! - **reading**: the files of a session in reading order, and whether
//!   events come in file order or in time order;
//! - **events**: which lines are its events, how many events a line yields
//!   (a part index tells them apart in provenance when a line yields
//!   several), and the envelope of each (event name, timestamp, workspace,
//!   `data`);
//! - **semantics**: the fields analytics, predicates and search need, read
//!   once here in one set of names: tool name, call identity, failure,
//!   duration, model, token usage ([`Usage`]), files touched, parent and
//!   child links.
//!
//! Everything else (`aggregate`, `predicate`, `search`, `cmd`) reads events
//! through [`crate::record::Event`], whose methods ask the event's format.
//!
//! # Naming
//! The one word is **format**: a [`Format`] is everything the toolkit knows
//! of one way of putting sessions on disk (this module, the `format` key of
//! session records, [`Capture::format`], [`LineKind::Format`]). The agent
//! program that writes it is "the writer" in prose only. A format's
//! behaviour has two parts, named for what they say: its [`Layout`] (where
//! sessions and files are) and its [`Dialect`] (what a line means); its
//! constants are data, its [`Profile`].
//!
//! # The registry
//! [`FORMATS`] lists every format, in the order roots and sessions are
//! listed. A format is named by its handle `&'static Format` (compared by
//! address, printed and read back as its name); nothing outside this
//! module names a particular one. Help texts, man pages, shell completions
//! and the tests' pinned environment read the registry.
//!
//! # Adding a format
//! 1. `src/format/<name>.rs`: its `pub static FORMAT: Format` (name, root
//!    env var and default places, [`Help`] sections, event vocabulary,
//!    layout, dialect, [`Profile`]) and a unit struct implementing
//!    [`Layout`] (discovery, reading: 8 required methods) and [`Dialect`]
//!    (events, semantics: 14 required methods), with its own unit tests
//!    (`<name>/tests.rs`). A format that keeps another's lines elsewhere
//!    points at that format's dialect and profile (as [`hook_logs`] does at
//!    Claude hooks' [`claude_hooks::Hooks`] and [`claude_hooks::PROFILE`]).
//! 2. Two lines here: `pub mod <name>;` and `&<name>::FORMAT` in [`FORMATS`].
//! 3. Fixtures in `fixtures/` (real files whose licence allows it, named in
//!    `fixtures/README.md`), and a line in `tests/stdin.rs`'s fixture roots
//!    when the format has a root env var; a generator in `tests/` for what
//!    fixtures cannot show.
//!    A format whose files are not one event per line (JSON arrays) gives
//!    its lines through [`Layout::lines_of`] ([`hook_logs`] and
//!    [`crate::elements`]).
//! 4. Integration tests of each tool on them (`ci-find`, `ci-cat`,
//!    `ci-filter`, `ci-agg --sessions/--tools/--tokens`, `ci-grep`), and the
//!    hostile-input cases of `tests/writers_hostile.rs`; a fuzz target for a
//!    line normaliser goes through `fuzz/fuzz_targets/common/normalise.rs`.
//! 5. The README's section on it, and the man pages regenerated (its help
//!    sections change them: see `tests/man.rs`).

pub mod amplifier;
pub mod claude_hooks;
pub mod claude_transcript;
pub mod cline;
pub mod codex;
mod context;
pub mod copilot;
pub mod file_tools;
pub mod gemini;
pub mod goose;
pub mod hook_logs;
pub mod kimi;
pub mod opencode;
pub mod qwen;
mod registry;
pub mod session;

use std::borrow::Cow;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::diag::Diag;
use crate::error::Result;
use crate::json::{Kind, Raw, Record};
use crate::session::{Capture, SessionRecord};
use crate::time::{self, Timestamp};

pub use context::{Cx, Detail, Memo, PeekCache};
pub use file_tools::{FileTools, FileUse};
pub use registry::{
    billing_roots, event_names, no_default_root, roots_list, with_sections, Format, Help, Order, Profile, Section,
};

/// Every format, in the order roots and sessions are listed (the registry).
#[rustfmt::skip] // one line per format: adding one is adding a line
pub static FORMATS: &[&Format] = &[
    &amplifier::FORMAT,
    &claude_hooks::FORMAT,
    &qwen::FORMAT,
    &claude_transcript::FORMAT,
    &codex::FORMAT,
    &hook_logs::FORMAT,
    &copilot::FORMAT,
    &kimi::FORMAT,
    &cline::CLINE_FORMAT, &cline::ROO_FORMAT, &cline::KILO_FORMAT,
    &gemini::FORMAT,
    &opencode::FORMAT,
    &goose::FORMAT,
];

/// The format of event records as every tool prints them, which is the
/// shape of Amplifier's lines: what a record of no other format
/// ([`of_record`]), or a file outside every format's layout, is read as.
pub static PLAIN: &Format = &amplifier::FORMAT;

/// What the name of an event starts with when its line is a copy of another
/// session's history (a Codex fork's copy of its parent's,
/// `copy:prompt:submit`): a line of the file, shown, but none of the
/// session's own activity, so no answer counts it (its name is no name a
/// count reads, and `--sessions` takes no time from it).
pub const COPY_PREFIX: &str = "copy:";

/// Token and cost fields, in the toolkit's one set of names. Each writer maps
/// its own usage keys onto these ([`Dialect::tokens`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Usage {
    /// `input_tokens`.
    Input,
    /// `output_tokens`.
    Output,
    /// `cache_read_tokens`.
    CacheRead,
    /// `cache_write_tokens`.
    CacheWrite,
    /// `cost_usd`.
    Cost,
}

impl Usage {
    /// Every usage field, in output order.
    pub const ALL: [Usage; 5] = [Usage::Input, Usage::Output, Usage::CacheRead, Usage::CacheWrite, Usage::Cost];

    /// The field's name in the toolkit's records.
    pub fn name(self) -> &'static str {
        match self {
            Usage::Input => "input_tokens",
            Usage::Output => "output_tokens",
            Usage::CacheRead => "cache_read_tokens",
            Usage::CacheWrite => "cache_write_tokens",
            Usage::Cost => "cost_usd",
        }
    }
}

/// How a tool event says which call it belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallKey<'a> {
    /// A call id shared by the call's pre and its end.
    Id(Cow<'a, str>),
    /// No id: pre and end are paired in order, per session and this key
    /// (the tool name and its input, as written).
    Ordered(String),
    /// No id and no way to pair: the event is a call of its own.
    Alone,
}

/// What a valid JSON line is, told apart by its top-level keys (formats.md §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    /// A string `event` and an object `data`: an Amplifier line, and the
    /// shape of every event record the toolkit prints.
    Event,
    /// A line of another format the toolkit reads (e.g. a hook payload).
    Format(&'static Format),
    /// `session` and `path`, no `event`: a `ci-find` record.
    Session,
    /// A string `event`, `match` and `snippet`, no `data`: a `ci-grep` match
    /// record, which stands for the event its provenance names.
    Match,
    /// Another logger's line (`ts` + `schema`, the `amplifier.log` format).
    OtherLog,
    /// Anything else.
    Unknown,
}

impl LineKind {
    /// Classifies a validated record.
    pub fn of(rec: &Record<'_>) -> LineKind {
        let has = |k: &str| rec.get(k).is_some();
        let event_is_str = rec.get("event").is_some_and(|v| v.as_str().is_some());
        if has("ts") && has("schema") {
            return LineKind::OtherLog;
        }
        if event_is_str && rec.get("data").is_some_and(|d| d.kind() == Kind::Object) {
            return LineKind::Event;
        }
        if event_is_str && !has("data") && has("match") && has("snippet") {
            return LineKind::Match;
        }
        if let Some(f) = FORMATS.iter().find(|f| f.dialect.claims(rec)) {
            return LineKind::Format(f);
        }
        if !has("event") && has("session") && rec.get("path").is_some_and(|p| p.as_str().is_some()) {
            LineKind::Session
        } else {
            LineKind::Unknown
        }
    }

    /// Why a line of this kind is not an event record, for a `path:line: reason` report.
    pub fn not_an_event(self) -> &'static str {
        match self {
            LineKind::Event => "an event record",
            LineKind::Format(f) => f.profile.foreign_line,
            LineKind::Session => "a session record where an event was expected",
            LineKind::Match => "a ci-grep match record where an event was expected",
            LineKind::OtherLog => "another logger's line (amplifier.log format), not an event",
            LineKind::Unknown => "not an event record (needs a string \"event\" and an object \"data\")",
        }
    }
}

/// The writer whose semantics apply to an event record read from a stream
/// (already normalised by a ci-* tool): the one whose envelope key for the
/// original event name it carries (`hook` for Claude hooks), else Amplifier,
/// whose lines have the event-record shape.
pub fn of_record(rec: &Record<'_>) -> &'static Format {
    FORMATS.iter().find(|f| f.profile.original_key.is_some_and(|k| rec.get(k).is_some())).copied().unwrap_or(PLAIN)
}

/// A file that is one session, named by its stem: its metadata, its path
/// as text and the session id. A file that cannot be used, a path that is
/// not UTF-8 or a stem that names no session is reported (when `diag` is
/// given) and gives `None`.
pub fn file_session<'p>(file: &'p Path, diag: Option<&Diag>) -> Option<(std::fs::Metadata, &'p str, String)> {
    let meta = crate::files::usable_or_reported(file, diag)?;
    let Some(path) = file.to_str() else {
        if let Some(d) = diag {
            d.error(&format_args!("{}: {}, skipped", file.display(), crate::files::NOT_UTF8));
        }
        return None;
    };
    let session = file.file_stem()?.to_string_lossy().into_owned();
    // `..jsonl`: the stem `.` names no session.
    if crate::session::unsafe_name(&session) {
        if let Some(d) = diag {
            d.error(&format_args!("{}: {}, skipped", file.display(), crate::session::unsafe_id_message(&session)));
        }
        return None;
    }
    Some((meta, path, session))
}

/// [`Layout::fresh`] of a format whose files are each a session: the
/// sessions of the `files` not `seen` yet.
pub fn fresh_files(
    files: Vec<PathBuf>,
    seen: &mut HashSet<PathBuf>,
    session_of: impl Fn(&Path) -> Option<SessionRecord>,
) -> Vec<SessionRecord> {
    files.into_iter().filter(|f| seen.insert(f.clone())).filter_map(|f| session_of(&f)).collect()
}

/// The discovery of a format whose sessions are files, one file one
/// session (Codex rollouts, Qwen and Gemini chats, Copilot logs, Kimi
/// wires): the four [`Layout`] answers they share, from three functions of
/// the writer's.
pub struct FileSessions {
    /// The session files below a root.
    pub root_files: fn(&Path) -> Vec<PathBuf>,
    /// Whether a file named as PATH is one of its session files.
    pub is_session: fn(&Path) -> bool,
    /// The session record of a file (`None`: not one), reports to the diag.
    pub session_of: fn(&Path, Detail, Option<&Diag>) -> Option<SessionRecord>,
}

impl FileSessions {
    /// [`Layout::discover`]: every session file below `root`, read in parallel.
    pub fn discover(&self, root: &Path, detail: Detail, diag: &Diag) -> Result<Vec<SessionRecord>> {
        let files = (self.root_files)(root);
        Ok(crate::files::in_parallel(&files, |f| (self.session_of)(f, detail, Some(diag)), diag))
    }

    /// [`Layout::file_capture`]: a session file named as PATH.
    pub fn file_capture(&self, file: &Path, diag: &Diag) -> Option<Capture> {
        if !(self.is_session)(file) {
            return None;
        }
        Some(capture((self.session_of)(file, Detail::Full, Some(diag))?))
    }

    /// [`Layout::record_of_file`]: a session file's record, reporting nothing.
    pub fn record_of_file(&self, file: &Path) -> Option<SessionRecord> {
        (self.is_session)(file).then(|| (self.session_of)(file, Detail::Full, None)).flatten()
    }

    /// [`Layout::fresh`]: the sessions of the files below `root` not `seen` yet.
    pub fn fresh(&self, root: &Path, seen: &mut HashSet<PathBuf>, diag: &Diag) -> Vec<SessionRecord> {
        fresh_files((self.root_files)(root), seen, |f| (self.session_of)(f, Detail::Full, Some(diag)))
    }
}

/// A capture described by a session record, with its files in reading order.
pub fn capture(rec: SessionRecord) -> Capture {
    let files = rec.format.layout.files(&rec);
    Capture {
        session: rec.session.clone(),
        path: PathBuf::from(&rec.path),
        display: rec.path.clone(),
        workspace: rec.workspace.clone(),
        format: rec.format,
        record: Some(rec),
        files,
    }
}

/// Where a format's sessions and files are: discovery and reading. See the
/// module docs; [`amplifier::Amplifier`] is the reference.
pub trait Layout: Sync {
    /// The roots searched when none is given (from the writer's environment
    /// variable, else its default place; none when it has no default).
    fn default_roots(&self, diag: &Diag) -> Vec<PathBuf>;

    /// A format whose sessions are files, one file one session, says how
    /// they are found ([`FileSessions`]) and gets [`Layout::discover`],
    /// [`Layout::file_capture`], [`Layout::record_of_file`] and
    /// [`Layout::fresh`] from it. `None` (the default): the format writes
    /// those four (without either, it finds nothing).
    fn file_sessions(&self) -> Option<&FileSessions> {
        None
    }

    /// Every session of this writer under `root`, in path order. An error
    /// only when the root itself cannot be listed (and this writer is the
    /// one that reports it: the first in [`FORMATS`]).
    /// `detail` says which fields reading the captures can do without.
    fn discover(&self, root: &Path, detail: Detail, _cx: &Cx<'_>, diag: &Diag) -> Result<Vec<SessionRecord>> {
        self.file_sessions().map_or_else(|| Ok(Vec::new()), |f| f.discover(root, detail, diag))
    }

    /// When `dir` (a path given as an argument) is one of this writer's
    /// session directories: its record (`Some(None)` when it is one but is
    /// unusable, reported). `None`: not this writer's.
    /// The default: none (a folder given as an argument is read as a root).
    fn session_in(&self, _dir: &Path, _diag: &Diag) -> Option<Option<SessionRecord>> {
        None
    }

    /// When `file` (named as an argument) sits in this writer's layout: its capture.
    fn file_capture(&self, file: &Path, _cx: &Cx<'_>, diag: &Diag) -> Option<Capture> {
        self.file_sessions()?.file_capture(file, diag)
    }

    /// When `file` (named as an argument) sits in this writer's layout: its
    /// captures (a writer whose files mix sessions has several per file).
    /// The default: [`Layout::file_capture`].
    fn file_captures(&self, file: &Path, cx: &Cx<'_>, diag: &Diag) -> Option<Vec<Capture>> {
        self.file_capture(file, cx, diag).map(|c| vec![c])
    }

    /// The record of session `session` that a file read from belongs to,
    /// without reports (to look a piped event record's session up by its
    /// provenance path and session id: a file of a writer that keeps several
    /// sessions in one file names the session's own record). A writer whose
    /// files belong to one session may answer that session's record whatever
    /// `session` says; callers check its id.
    fn record_of_file(&self, file: &Path, _session: &str, _cx: &Cx<'_>) -> Option<SessionRecord> {
        self.file_sessions()?.record_of_file(file)
    }

    /// Sessions under `root` not in `seen` (their directories), for
    /// `ci-find --follow`; a directory whose session is complete, or
    /// unusable and reported, is added to `seen`.
    fn fresh(&self, root: &Path, seen: &mut HashSet<PathBuf>, _cx: &Cx<'_>, diag: &Diag) -> Vec<SessionRecord> {
        self.file_sessions().map_or_else(Vec::new, |f| f.fresh(root, seen, diag))
    }

    /// The project folder a path of one of this writer's files names, when
    /// the path fits the layout (no file is read).
    fn project_of_path(&self, _path: &str) -> Option<String> {
        None
    }

    /// The directory a session lives in (what [`Layout::fresh`] keys by).
    fn session_dir(&self, rec: &SessionRecord) -> PathBuf;

    /// The events a session holds, for `--min-events`/`--max-events` (may
    /// read the capture).
    fn event_count(&self, rec: &SessionRecord) -> u64;

    /// The models a session names, read from its capture when its record
    /// cannot say (`None`: the record's `model` is all there is). Read only
    /// when asked (`ci-find --model`).
    fn models(&self, _rec: &SessionRecord) -> Option<Vec<String>> {
        None
    }

    /// The project folder the writer names a working directory after
    /// (Amplifier's slug rule by default).
    fn project_folder(&self, dir: &str) -> String {
        crate::session::slug_of(dir)
    }

    /// The files of a session, in reading order.
    fn files(&self, rec: &SessionRecord) -> Vec<PathBuf>;

    /// A file of another writer that holds what this session's own files
    /// lack (a hooks session's transcript copy: its time, model and token
    /// usage). Analytics read it beside the session's events ([`crate::source::Visitor::companion_event`]);
    /// the event stream does not.
    fn companion(&self, _rec: &SessionRecord) -> Option<(PathBuf, &'static Format)> {
        None
    }

    /// The lines of `file` (shown as `display`) for capture `cap`, when the
    /// writer's files are not read line by line (JSON arrays: one compact
    /// line per element of `cap`'s session, [`crate::elements`]); the
    /// writer reports what it finds wrong with the file. `None`: its
    /// physical lines.
    fn lines_of<'d>(
        &self,
        _cap: &Capture,
        _file: &Path,
        _display: &str,
        _cx: &Cx<'_>,
        _diag: &'d Diag,
    ) -> Option<Box<dyn crate::lines::LineSource + 'd>> {
        None
    }

    /// Subagent sessions a session record knows of (beside delegation events).
    fn subagents(&self, _rec: &SessionRecord) -> u64 {
        0
    }

    /// Fills what the dialect needs to know of capture `cap` before its
    /// first line from the files beside it (the Cline family: the task's
    /// models by time, [`ReadState::models`]); the state is a new capture's.
    fn prime(&self, _cap: &Capture, _state: &mut ReadState) {}
}

/// What a line of a format means: which lines are its events, their
/// envelope, and the semantics analytics, predicates and search read. Two
/// formats that keep the same lines in different places share one
/// ([`claude_hooks::Hooks`]).
pub trait Dialect: Sync {
    /// Whether a line that is not an event record is one of this writer's
    /// (formats.md §3).
    fn claims(&self, rec: &Record<'_>) -> bool;

    /// Whether a line of one of this writer's captures is an event, else why not.
    fn accept(&self, rec: &Record<'_>) -> std::result::Result<(), &'static str>;

    /// The events a line yields, as part indices into `out` (for a writer
    /// whose lines can yield several, [`Profile::multi_part`]): what each index
    /// means is the writer's, stateless ([`Dialect::name`] of a part); which
    /// of them a line yields may depend on what the capture held before
    /// (`state`: e.g. whether a message was already written).
    fn parts(&self, _rec: &Record<'_>, _state: &mut ReadState, out: &mut Vec<u32>) {
        out.push(0);
    }

    /// The writer's own event name of a line's part (the value of [`Profile::original_key`]).
    fn original<'a>(&self, _rec: &Record<'a>, _part: u32) -> Option<Raw<'a>> {
        None
    }

    /// The event name of a line's part, as a raw JSON string when it is one.
    fn name_raw<'a>(&self, rec: &Record<'a>, part: u32) -> Option<Raw<'a>>;

    /// The event name of a line's part.
    fn name<'a>(&self, rec: &Record<'a>, part: u32, state: &'a ReadState) -> Cow<'a, str>;

    /// The `data` of a line's part.
    fn data<'a>(&self, rec: &Record<'a>, part: u32, state: &'a ReadState) -> Option<Raw<'a>>;

    /// Called with each valid line of a capture before its events are made,
    /// for a writer whose events depend on earlier lines (Codex: the model of
    /// the last turn context, the running token total). The default keeps nothing.
    fn observe(&self, _rec: &Record<'_>, _state: &mut ReadState) {}

    /// Whether a raw line may change what [`Dialect::observe`] keeps: such a
    /// line is parsed (and observed) even when a tool's pre-check would skip
    /// it. The default: no line does.
    fn observes(&self, _raw: &[u8]) -> bool {
        false
    }

    /// Whether a raw line may start a call whose end does not name its tool
    /// ([`ReadState::tool_of`]): such a line is parsed (and observed) even
    /// when a tool's pre-check would skip it, unless the tool reads no tool
    /// names ([`crate::source::Visitor::reads_tools`]). The default: no line does.
    fn starts_calls(&self, _raw: &[u8]) -> bool {
        false
    }

    /// The workspace the line itself names (`None`: fall back to the session's).
    fn workspace<'a>(&self, rec: &Record<'a>) -> Option<Cow<'a, str>>;

    /// The line's timestamp as written.
    fn timestamp<'a>(&self, rec: &Record<'a>) -> Option<Raw<'a>>;

    /// The text of a [`Dialect::timestamp`] (RFC 3339): the JSON string by
    /// default; a writer that stamps lines with numbers (Unix seconds) makes it.
    fn timestamp_text<'a>(&self, raw: Raw<'a>) -> Option<Cow<'a, str>> {
        raw.as_str()
    }

    /// Whether events of this name come from lines the writer never stamps
    /// with a time (Claude Code's `summary`, `file-history-snapshot`,
    /// `last-prompt`): such an event without a usable timestamp is no
    /// "record without a usable timestamp" ([`crate::record::Event::untimed_by_design`]).
    fn untimed_by_design(&self, _name: &str) -> bool {
        false
    }

    /// [`Dialect::tokens`] of a line's part read from a capture, whose `data`
    /// is `data` (a writer whose `data` is the whole line reads its top-level
    /// keys through the index instead).
    fn line_tokens<'a>(&self, _rec: &Record<'a>, _part: u32, data: Option<Raw<'a>>) -> [Option<Raw<'a>>; 5] {
        data.map_or([None; 5], |d| self.tokens(d))
    }

    /// [`Dialect::model`] of a line's part read from a capture.
    fn line_model<'a>(&self, _rec: &Record<'a>, _part: u32, data: Option<Raw<'a>>) -> Option<Raw<'a>> {
        self.model(data?)
    }

    /// [`Dialect::cache_write_1h`] of a line's part read from a capture.
    fn line_cache_write_1h<'a>(&self, _rec: &Record<'a>, _part: u32, data: Option<Raw<'a>>) -> Option<Raw<'a>> {
        self.cache_write_1h(data?)
    }

    /// [`Dialect::message_key`] of a line's part read from a capture.
    fn line_message_key(&self, _rec: &Record<'_>, _part: u32, data: Option<Raw<'_>>, out: &mut String) -> bool {
        data.is_some_and(|d| self.message_key(d, out))
    }

    /// The tool a tool event is about.
    fn tool_name<'a>(&self, data: Raw<'a>) -> Option<Raw<'a>>;

    /// Which call a tool event belongs to.
    fn call_key<'a>(&self, data: Raw<'a>) -> CallKey<'a>;

    /// Whether a tool event that ends a call says it failed (besides being
    /// a `tool:error`).
    fn failed(&self, data: Raw<'_>) -> bool;

    /// A duration in milliseconds the writer recorded on a call's end.
    fn duration_ms<'a>(&self, _data: Raw<'a>) -> Option<Raw<'a>> {
        None
    }

    /// The model an event names.
    fn model<'a>(&self, data: Raw<'a>) -> Option<Raw<'a>>;

    /// A status an event carries (`orchestrator:complete`: success/error/…).
    fn status<'a>(&self, _data: Raw<'a>) -> Option<Raw<'a>> {
        None
    }

    /// Every token and cost figure of a response, in [`Usage::ALL`] order
    /// (the usage object is looked up once: it can sit behind a megabyte `raw`).
    fn tokens<'a>(&self, data: Raw<'a>) -> [Option<Raw<'a>>; 5];

    /// Of a response's cache writes (`cache_write_tokens`), those written
    /// with the 1-hour lifetime, priced at the 1-hour rate (Claude:
    /// `usage.cache_creation.ephemeral_1h_input_tokens`). `None`: the writer
    /// does not say, and every cache write is priced at the 5-minute rate.
    fn cache_write_1h<'a>(&self, _data: Raw<'a>) -> Option<Raw<'a>> {
        None
    }

    /// What identifies a response written several times (Claude Code writes
    /// one line per content block, each repeating the usage): token counts
    /// keep one copy per key, the largest of each figure. Written into `out`
    /// (cleared first; a buffer reused from line to line); `false`: every
    /// response counts.
    fn message_key(&self, _data: Raw<'_>, _out: &mut String) -> bool {
        false
    }

    /// What identifies an event's line (or content block) when the writer
    /// copies it into another session ([`Profile::copies_history`]): the
    /// same in the original and in every copy, so a run counts each event
    /// once; `None`: the event is its session's own.
    fn copy_key<'a>(&self, _data: Raw<'a>) -> Option<Cow<'a, str>> {
        None
    }

    /// The file a tool event reads or edits.
    fn file_path<'a>(&self, data: Raw<'a>) -> Option<Cow<'a, str>>;

    /// The writer's tools that read a file and those that edit one
    /// (`--sessions` `files_read`, `files_edited`); default: Claude Code's.
    fn file_tools(&self) -> &'static FileTools {
        &file_tools::CLAUDE
    }

    /// What a call of `tool` does to a file, and the file its input names
    /// (`data`): a tool of [`Dialect::file_tools`] and the path of
    /// [`Dialect::file_path`], unless the writer knows better.
    fn file_use<'a>(&self, tool: &str, data: Raw<'a>) -> Option<(FileUse, Cow<'a, str>)> {
        let used = self.file_tools().of(tool)?;
        Some((used, self.file_path(data)?))
    }

    /// The parent session every event of a child names (none: the writer
    /// has no parent links in its events).
    fn parent_id<'a>(&self, _data: Raw<'a>) -> Option<Cow<'a, str>> {
        None
    }

    /// The parent session a child's first event (`session:fork`) names.
    fn fork_parent<'a>(&self, _data: Raw<'a>) -> Option<Cow<'a, str>> {
        None
    }

    /// The agent a child's first event (`session:fork`) names.
    fn fork_agent<'a>(&self, _data: Raw<'a>) -> Option<Cow<'a, str>> {
        None
    }

    /// The child session a delegation event names.
    fn child<'a>(&self, _data: Raw<'a>) -> Option<Cow<'a, str>> {
        None
    }

    /// The session id an event's payload names.
    fn session_id<'a>(&self, data: Raw<'a>) -> Option<Cow<'a, str>>;

    /// What a valid line does to its session's records, for a format read
    /// last copy wins ([`Order::LastCopy`]). The default: it is a record of
    /// its own.
    fn mutation<'a>(&self, _rec: &Record<'a>) -> Mutation<'a> {
        Mutation::Record
    }

    /// Whether a database row's record (`raw`) is of a row its writer will
    /// still rewrite (a message being streamed, a tool call running): under
    /// `--follow` such a row is held until it is finished, as a line
    /// without its newline is, so each row is taken once, whole. The
    /// default: every row is finished once committed.
    fn unfinished(&self, _raw: Raw<'_>) -> bool {
        false
    }
}

/// What a line of a mutation log does to its session's list of records
/// ([`Order::LastCopy`], [`Dialect::mutation`]). Every line but a
/// [`Mutation::Replace`] is visited as a record (at its place) unless a later
/// one drops it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mutation<'a> {
    /// A record without id: never superseded nor dropped.
    Record,
    /// A message: it supersedes the earlier record with the same `id` (which
    /// is not visited). `billed`: it carries usage the writer was billed
    /// for, so a rewind or a replaced list does not drop it.
    Message {
        /// The message id.
        id: Cow<'a, str>,
        /// Whether it carries billed usage.
        billed: bool,
    },
    /// A record that rewinds: the message `id` and every message after it
    /// are dropped (but billed ones).
    RewindTo(Cow<'a, str>),
    /// A line that replaces the list: every message before it is dropped
    /// (but billed ones), and the members of this JSON array (each a
    /// message, its own record with its own site) take their place. The
    /// line itself is no record (its text is its members').
    Replace(Raw<'a>),
}

/// What a writer remembers while one capture is read ([`Dialect::parts`]).
#[derive(Debug, Default)]
pub struct ReadState {
    /// 64-bit hashes of the keys seen (a collision among a capture's
    /// messages, about 1 in 10^10 for 100,000 of them, would only name one
    /// line `llm:content` instead of `llm:response`; counts never use it).
    seen: foldhash::HashSet<u64>,
    /// The model the last context line named (Codex `turn_context`).
    pub model: Option<String>,
    /// The capture's running token total (Codex `total_token_usage`).
    pub totals: Option<[u64; 5]>,
    /// A writer's running counters by name, as its last cumulative roll-up
    /// gave them (Copilot: each model's `session.shutdown` counters).
    pub running: Vec<(Box<str>, [u64; 5])>,
    /// Data the writer made for the current line's event, as JSON text
    /// (Codex: a response's model and usage); empty when none.
    pub line_data: Vec<u8>,
    /// Whether the capture's first session meta (Codex) or first row (the
    /// Cline family) was read.
    pub meta_read: bool,
    /// While a fork's copied history is read (Codex): the fork's start, in
    /// whole seconds since the epoch; lines stamped no later are copies.
    pub copied_until: Option<i64>,
    /// The tool of each call whose start was read, by call id, as its JSON
    /// string: a call's end that does not name its tool (a Claude
    /// `tool_result`, a Codex `function_call_output`) is that tool's
    /// ([`ReadState::tool_of`]).
    tools: foldhash::HashMap<Box<str>, Box<[u8]>>,
    /// The models a capture's files beside it say were chosen, each with
    /// the time it was chosen (ms since the epoch), in time order ([`Layout::prime`]).
    pub models: Vec<(f64, Box<str>)>,
    /// Whether the current line repeats a response an earlier line of the
    /// capture wrote (Claude transcripts: its later lines are `llm:content`),
    /// or is a copy of another session's history (Codex forks, [`COPY_PREFIX`]),
    /// or (the Cline family) follows the capture's first row.
    pub repeat: bool,
}

impl ReadState {
    /// Whether the key made of `parts` is seen for the first time (it is remembered).
    pub fn first_sight(&mut self, parts: &[&[u8]]) -> bool {
        use std::hash::{BuildHasher, Hasher};
        // A fixed seed: which copy is named first must not vary between runs.
        let mut h = foldhash::fast::FixedState::default().build_hasher();
        for p in parts {
            h.write(p);
            h.write_u8(0xff);
        }
        self.seen.insert(h.finish())
    }

    /// Remembers that call `id` is a call of `tool` (a JSON string; any
    /// other value is not kept).
    pub fn call_started(&mut self, id: &str, tool: Raw<'_>) {
        if tool.kind() == Kind::String && !self.tools.contains_key(id) {
            self.tools.insert(id.into(), tool.bytes().into());
        }
    }

    /// The tool of call `id`, as its start named it (a JSON string).
    pub fn tool_of(&self, id: &str) -> Option<Raw<'_>> {
        self.tools.get(id).map(|t| Raw(t))
    }

    /// Forgets everything (a new capture).
    pub fn clear(&mut self) {
        self.seen.clear();
        self.model = None;
        self.totals = None;
        self.running.clear();
        self.line_data.clear();
        self.meta_read = false;
        self.copied_until = None;
        self.tools.clear();
        self.models.clear();
        self.repeat = false;
    }
}

/// Calls `f` with each of the first `lines` non-blank lines of `file` that
/// start within its first `bytes`, as a record (`None`: not a JSON object),
/// until it returns false. Each of those lines is read whole, however long
/// (a transcript's first line can hold megabytes: cut at `bytes`, it would
/// not parse, and the file would not be recognised). What is not a regular
/// file is never opened (a FIFO would block).
pub(crate) fn head_records(file: &Path, lines: usize, bytes: u64, mut f: impl FnMut(Option<&Record<'_>>) -> bool) {
    let Ok(file) = crate::files::open_regular(file) else { return };
    let mut reader = crate::lines::LineReader::with_capacity(file, 16 * 1024);
    let mut idx = crate::json::Index::new();
    let mut seen = 0;
    while seen < lines {
        let Ok(Some(line)) = reader.next_line() else { return };
        if line.site.offset >= bytes {
            return;
        }
        if line.bytes.trim_ascii().is_empty() {
            continue;
        }
        seen += 1;
        if !f(idx.skim(line.bytes).ok().as_ref()) {
            return;
        }
    }
}

/// The earliest and latest top-level `timestamp` among the complete lines at
/// the end of `f` (whose length is `len`): a window of `first` bytes, growing
/// fourfold up to `max` while it holds none (lines can be long). Lines are
/// not always in time order, so every line read counts.
pub(crate) fn tail_times(
    f: &mut std::fs::File,
    len: u64,
    first: u64,
    max: u64,
) -> (Option<Timestamp>, Option<Timestamp>) {
    tail_times_by(f, len, first, max, |r| r.get_str("timestamp").as_deref().and_then(time::parse_timestamp))
}

/// [`tail_times`] with the time of a line read by `time_of`.
pub(crate) fn tail_times_by(
    f: &mut std::fs::File,
    len: u64,
    first: u64,
    max: u64,
    time_of: impl Fn(&Record<'_>) -> Option<Timestamp>,
) -> (Option<Timestamp>, Option<Timestamp>) {
    use bstr::ByteSlice;
    use std::io::{Read, Seek, SeekFrom};
    let mut idx = crate::json::Index::new();
    let mut buf = Vec::new();
    let mut window = first;
    loop {
        let from = len.saturating_sub(window);
        buf.clear();
        if f.seek(SeekFrom::Start(from)).is_err() || f.take(window).read_to_end(&mut buf).is_err() {
            return (None, None);
        }
        // The first line of a window that does not start the file is cut.
        let start = if from == 0 { 0 } else { memchr::memchr(b'\n', &buf).map_or(buf.len(), |i| i + 1) };
        let (mut lo, mut hi) = (None, None);
        for line in buf[start..].split_str("\n") {
            let t = idx.skim(line).ok().and_then(|r| time_of(&r));
            lo = time::earliest(lo, t);
            hi = hi.max(t);
        }
        if hi.is_some() || from == 0 || window >= max {
            return (lo, hi);
        }
        window *= 4;
    }
}

/// Why a line is not read by a writer whose event record holds the whole
/// line as `data` ([`fits_as_data`]).
pub(crate) const TOO_DEEP_FOR_DATA: &str =
    "JSON nested 127 levels deep, the limit: its event record, which holds the line as \"data\", would nest deeper";

/// For a writer whose event record holds the whole line as `data` (Claude
/// transcripts, hooks and hook logs), one level deeper than the line: a line
/// that nests as deep as [`crate::json::MAX_DEPTH`] is a bad line, as the
/// record printed for it would be to the next tool in a pipe. A skimmed
/// line's depth is not known; it is checked when the line is validated
/// ([`crate::record::Event::confirm`]).
pub(crate) fn fits_as_data(rec: &Record<'_>) -> std::result::Result<(), &'static str> {
    match rec.depth() {
        Some(d) if d >= crate::json::MAX_DEPTH => Err(TOO_DEEP_FOR_DATA),
        _ => Ok(()),
    }
}

/// `prefix` + `name` as an event name: one of `known` (no allocation) when
/// it is there, else a new string. For writers that name events after their
/// own line types (`codex:message`, `system:turn_duration`): every event's
/// name is read several times per line, so the common ones are static.
pub(crate) fn qualified<'a>(known: &[&'static str], prefix: &str, name: &str) -> Cow<'a, str> {
    let hit = known.iter().find(|k| k.len() == prefix.len() + name.len() && k.starts_with(prefix) && k.ends_with(name));
    match hit {
        Some(k) => Cow::Borrowed(k),
        None => Cow::Owned(format!("{prefix}{name}")),
    }
}

/// A token count as a writer wrote it: a whole number from 0 to 9e15, else
/// (absent, negative, fractional, not a number) 0.
pub(crate) fn whole_count(v: Raw<'_>) -> u64 {
    let n = v.as_f64().unwrap_or(0.0);
    if n.is_finite() && n >= 0.0 && n.fract() == 0.0 && n < 9.0e15 {
        n as u64
    } else {
        0
    }
}

/// A usage counter at `key` of an object (absent, or not a whole number
/// below 9e15: 0).
pub(crate) fn counter(usage: Raw<'_>, key: &str) -> u64 {
    usage.get(key).map_or(0, whole_count)
}

/// Writes the `data` a writer makes of a response line: the line's record
/// with the toolkit's `usage` object first (`[input, cache_read, output,
/// reasoning]`, read as Codex's made data is) and the line's own members
/// after it (a top-level `usage` of the line left out), so piped records
/// give the same answers as the file.
pub(crate) fn usage_first(rec: &Record<'_>, [input, cached, output, reasoning]: [u64; 4], d: &mut Vec<u8>) {
    use std::io::Write as _;
    // Writing into a Vec cannot fail.
    let _ = write!(
        d,
        "{{\"usage\":{{\"input_tokens\":{input},\"cache_read_tokens\":{cached},\"output_tokens\":{output},\"reasoning_tokens\":{reasoning}}}"
    );
    for (key, v) in rec.members().filter(|(k, _)| !crate::json::key_eq(k, "usage")) {
        d.extend_from_slice(b",\"");
        d.extend_from_slice(key);
        d.extend_from_slice(b"\":");
        d.extend_from_slice(v.bytes());
    }
    d.push(b'}');
}

/// The string at `key` of an object.
pub(crate) fn str_at<'a>(v: Raw<'a>, key: &str) -> Option<Cow<'a, str>> {
    v.get(key)?.as_str()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_writer_whose_lines_are_independent_keeps_no_state_across_them() {
        for w in FORMATS {
            let (p, d) = (w.profile, w.dialect);
            if p.lines_independent {
                assert!(p.order == Order::File && !p.multi_part, "{w:?}");
                assert!(!d.observes(b"{}") && !d.observes(b"{\"type\":\"turn_context\"}"), "{w:?}");
            }
        }
        assert!(amplifier::FORMAT.profile.lines_independent);
        assert!(!codex::FORMAT.profile.lines_independent);
        assert!(!claude_transcript::FORMAT.profile.lines_independent);
        assert!(!claude_hooks::FORMAT.profile.lines_independent);
        assert!(!hook_logs::FORMAT.profile.lines_independent);
    }

    #[test]
    fn a_home_without_roots_is_told_every_default_place_and_root_variable() {
        assert_eq!(
            no_default_root(),
            "found no capture root: none of ~/.amplifier/projects, ~/.qwen/projects, ~/.claude/projects, \
             ~/.config/claude/projects, ~/.codex/sessions, ~/.copilot/session-state, ~/.kimi/sessions, \
             ~/.kimi-code/sessions, ~/.config/Code/User/globalStorage/saoudrizwan.claude-dev, ~/.cline/data, \
             ~/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline, \
             ~/.config/Code/User/globalStorage/kilocode.kilo-code, ~/.gemini/tmp, ~/.local/share/opencode, \
             ~/.local/share/goose/sessions, ~/Library/Application Support/goose/sessions, \
             ~/.local/share/Block/goose/sessions exists (name a PATH or --root, or set \
             AMPLIFIER_CONTEXT_INTELLIGENCE_BASE_PATH, QWEN_RUNTIME_DIR, QWEN_HOME, CLAUDE_CONFIG_DIR, CODEX_HOME, \
             COPILOT_HOME, KIMI_SHARE_DIR, KIMI_CODE_HOME, CI_VSCODE_DIR, GEMINI_CLI_HOME, OPENCODE_DATA_DIR, \
             GOOSE_PATH_ROOT or SESSION_DATA_DIR)"
        );
    }

    #[test]
    fn usage_order_is_the_index_of_tokens() {
        for (i, u) in Usage::ALL.into_iter().enumerate() {
            assert_eq!(u as usize, i, "{u:?}");
        }
    }
}
