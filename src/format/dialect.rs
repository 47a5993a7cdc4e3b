//! [`Dialect`]: what a line of a format means, and what a writer remembers
//! while one capture is read ([`ReadState`]); a mutation log's [`Mutation`].

use super::*;

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
