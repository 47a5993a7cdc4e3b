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
//!    `fixtures/README.md`), with its conformance tree
//!    (`fixtures/conformance/<name>/`, docs/adding-a-writer.md, which also
//!    reads its root env var in `tests/stdin.rs`); a generator in `tests/`
//!    for what fixtures cannot show.
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
mod dialect;
pub mod file_tools;
pub mod gemini;
pub mod goose;
pub mod hook_logs;
pub mod kimi;
mod layout;
pub mod opencode;
pub mod qwen;
mod registry;
mod roots;
pub mod session;

use std::borrow::Cow;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::diag::Diag;
use crate::error::Result;
use crate::json::{Kind, Raw, Record};
use crate::session::{Capture, SessionRecord};
use crate::time::{self, Timestamp};

pub use context::{Claimed, Cx, Detail, Memo, PeekCache};
pub use dialect::{Dialect, Mutation, ReadState};
pub use file_tools::{FileTools, FileUse};
pub use layout::Layout;
pub use registry::{
    appearances, billing_roots, event_names, names, no_default_root, products, roots_list, status_input, with_example,
    with_products, with_sections, Example, Format, Help, Order, Profile, Section, StatusInput, StatusLine,
};
pub(crate) use roots::{env_dir, env_or_place, xdg_data};

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
        self.sessions_of(&(self.root_files)(root), detail, diag)
    }

    /// The sessions of session files found some other way than
    /// `root_files` (a writer's own walk), read in parallel.
    pub fn sessions_of(&self, files: &[PathBuf], detail: Detail, diag: &Diag) -> Result<Vec<SessionRecord>> {
        Ok(crate::files::in_parallel(files, |f| (self.session_of)(f, detail, Some(diag)), diag))
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

/// The latest `timestamp` of the complete lines at the end of `file` (whose
/// length is `len`): what a session record's `last_event_at` is read from.
pub(crate) fn last_time(file: &Path, len: u64) -> Option<Timestamp> {
    last_time_by(file, len, |r| r.get_str("timestamp").as_deref().and_then(time::parse_timestamp))
}

/// [`last_time`] with the time of a line read by `time_of`.
pub(crate) fn last_time_by(
    file: &Path,
    len: u64,
    time_of: impl Fn(&Record<'_>) -> Option<Timestamp>,
) -> Option<Timestamp> {
    let mut f = crate::files::open_regular(file).ok()?;
    tail_times_by(&mut f, len, 64 * 1024, 4 << 20, time_of).1
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

/// [`Dialect::accept`] of a writer whose records are typed JSON objects: a
/// line that leaves room to be an event's `data` ([`fits_as_data`]) and is
/// `own`'s ([`LineKind::Format`]), or one of an `also` format's lines or
/// one no writer claims ([`LineKind::Unknown`], [`LineKind::Session`])
/// holding one of `keys` as a string (a record type of a later version);
/// else `refusal`.
pub(crate) fn accept_typed(
    rec: &Record<'_>,
    (own, also): (&Format, &[&Format]),
    keys: &[&str],
    refusal: &'static str,
) -> std::result::Result<(), &'static str> {
    fits_as_data(rec)?;
    let typed = || keys.iter().any(|k| rec.get(k).is_some_and(|t| t.kind() == Kind::String));
    match LineKind::of(rec) {
        LineKind::Format(f) if f == own => Ok(()),
        LineKind::Format(f) if also.contains(&f) && typed() => Ok(()),
        LineKind::Unknown | LineKind::Session if typed() => Ok(()),
        _ => Err(refusal),
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

    /// Read from the registry, so a new format needs no edit here: every
    /// default place in registry order, then every root variable, those of
    /// formats with default places first, the last joined by "or".
    #[test]
    fn a_home_without_roots_is_told_every_default_place_and_root_variable() {
        let msg = no_default_root();
        let (head, vars) = msg.split_once(" exists (name a PATH or --root, or set ").expect(&msg);
        let places: Vec<&str> = FORMATS.iter().flat_map(|f| f.places.iter().copied()).collect();
        assert_eq!(head, format!("found no capture root: none of {}", places.join(", ")));
        let placed = FORMATS.iter().filter(|f| !f.places.is_empty());
        let unplaced = FORMATS.iter().filter(|f| f.places.is_empty());
        let expected: Vec<&str> = placed.chain(unplaced).flat_map(|f| f.root_env.iter().copied()).collect();
        let (last, rest) = expected.split_last().expect("formats have root variables");
        assert_eq!(vars, format!("{} or {last})", rest.join(", ")));
        assert!(
            head.contains("~/.amplifier/projects, ") && vars.starts_with("AMPLIFIER_CONTEXT_INTELLIGENCE_BASE_PATH, ")
        );
    }

    #[test]
    fn usage_order_is_the_index_of_tokens() {
        for (i, u) in Usage::ALL.into_iter().enumerate() {
            assert_eq!(u as usize, i, "{u:?}");
        }
    }

    /// The help's writer-specific words come from the registry: each
    /// program once, in registry order; the example paths of the first
    /// format that has them; the one status-line reader.
    #[test]
    fn help_words_and_hooks_are_read_from_the_registry() {
        assert_eq!(products(|f| f.product == "Claude Code" || f.product == "Codex"), "Claude Code or Codex");
        assert_eq!(products(|f| f.profile.line_indexed()), "Amplifier");
        assert_eq!(products(|_| false), "");
        assert_eq!(names(|f| f.profile.order == Order::Time), "claude-hooks");
        let e = FORMATS.iter().find_map(|f| f.help.example.as_ref()).expect("an example");
        assert_eq!(with_example("a $EXAMPLE_ROOT b $EXAMPLE_SESSION"), format!("a {} b {}", e.root, e.session));
        assert!(e.session.starts_with(e.root), "{e:?}");
        let readers: Vec<&Format> = FORMATS.iter().copied().filter(|f| f.profile.status_line.is_some()).collect();
        assert_eq!(readers, [&claude_transcript::FORMAT]);
        assert_eq!(status_input(b"{}"), Ok(StatusInput::default()));
    }
}
