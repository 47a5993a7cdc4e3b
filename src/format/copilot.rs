//! GitHub Copilot CLI session event logs (formats-next.md §4):
//! `<copilot home>/session-state/<session-id>/events.jsonl`.
//!
//! - **Roots**: `$COPILOT_HOME` when set and non-empty, else `~/.copilot`
//!   when it holds `session-state/`. A root is such a home, its
//!   `session-state` folder, or one session's folder.
//! - **Sessions**: each `session-state/<id>/events.jsonl` (the folder names
//!   the session), and each flat `session-state/<id>.jsonl` of older builds.
//!   `working_dir` = `session.start`'s `context.cwd`, else the `cwd:` of the
//!   folder's `workspace.yaml`; `project` = `workspace` = its slug (the
//!   hooks rule, [`crate::session::slug_of`]); `model` = the first
//!   `session.model_change`'s `newModel` or `assistant.message`'s `model`;
//!   `tags` = `cli:` the `copilotVersion`; `started_at` the first line's time.
//! - **Events**: one per line, the record keeping the line's `type` as
//!   `copilot`, `data` the whole line. `session.start` → `session:start`,
//!   `user.message` → `prompt:submit`, `assistant.message` → `llm:content`
//!   (its `outputTokens` are not counted: the shutdown roll-ups hold them),
//!   `assistant.turn_end` → `prompt:complete`, `tool.execution_start` →
//!   `tool:pre`, `tool.execution_complete` → `tool:post` (`tool:error` when
//!   its `success` is false), `session.compaction_complete` →
//!   `context:compaction`, `session.shutdown` → `session:end`; the rest
//!   `copilot:<type>` (`copilot:session.model_change`, `copilot:abort`, …).
//! - **Tokens**: only `session.shutdown` lines carry usage, per model in
//!   `modelMetrics.<model>.usage`, and its counters are **cumulative**
//!   across the legs of a resumed session: each shutdown counts, model by
//!   model, what grew since the previous shutdown of the log, as one
//!   `llm:response` part per model that grew (part 1 + k for the k-th,
//!   dated at the shutdown). A compaction **resets** the counters: a
//!   shutdown where any counter of the previous one went down (a model
//!   gone: zeros) starts a new base, and counts whole. Copilot's
//!   `inputTokens` includes the cache reads and writes, so in the toolkit's
//!   names `input_tokens` = input − cacheRead − cacheWrite,
//!   `cache_read_tokens`, `cache_write_tokens`, `output_tokens` =
//!   `outputTokens`, and `reasoningTokens` kept apart as `reasoning_tokens`.
//!   `totalNanoAiu` (cumulative too, reset alike) is the writer's recorded
//!   cost: its growth, at one US cent per AI unit, is the `cost_usd` of the
//!   leg's first response (`cost_source` `writer`; the roll-up does not
//!   split it by model). The response's `data` is made:
//!   `{"model":…,"usage":{…},"counters_reset":…,"roll_up":{…}}`, so piped
//!   records give the same answers as the log. A leg that ended in a crash
//!   wrote no shutdown: its tokens are in the next shutdown, or nowhere.
//! - **The store**: when the home holds `session-store.db` ([`store`]), it
//!   is a capture's first file, and its `assistant_usage_events` rows of
//!   the session are records (`assistant_usage_event`, each an
//!   `llm:response` with its own usage and cost); once one was read
//!   ([`ReadState::meta_read`]) the shutdowns count nothing, so a session
//!   is counted from its rows or from its roll-ups, never both. A store
//!   that cannot be read is reported and the roll-ups count. A session
//!   the store has rows for but no log is a session of its own, its rows
//!   its events ([`store_only`]).
//! - **Calls** are paired by `toolCallId`; a call's end names no tool: its
//!   tool is its start's `toolName` ([`ReadState::tool_of`]).

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use super::{
    str_at, CallKey, Cx, Detail, Dialect, FileTools, Format, Help, Layout, LineKind, Profile, ReadState, Section,
};
use crate::diag::Diag;
use crate::format::FileSessions;
use crate::json::{Kind, Raw, Record};
use crate::session::{Capture, SessionRecord};
use crate::time::{self, Timestamp};

mod sessions;
mod store;
mod store_only;
mod usage;
use sessions::{is_event_log, root_files, session_of};

/// Env var naming the Copilot home directory.
pub const ROOT_ENV: &str = "COPILOT_HOME";

/// The GitHub Copilot CLI event log writer.
pub struct Copilot;

/// The copilot-cli format (see the module docs).
pub static FORMAT: Format = Format {
    name: "copilot-cli",
    product: "Copilot CLI",
    root_env: &[ROOT_ENV],
    places: &["~/.copilot/session-state"],
    help: Help {
        roots: Some("$COPILOT_HOME, else ~/.copilot when it holds session-state/ (Copilot CLI)"),
        find: Some(Section {
            title: "COPILOT CLI",
            body: "  A root, its session-state folder or a session folder holds
  session-state/<id>/events.jsonl (older builds: session-state/<id>.jsonl); each
  is a session, format copilot-cli: working_dir = session.start's context.cwd
  (else workspace.yaml's cwd), project/workspace = its slug, model = the first
  model_change or assistant model, tags = cli:. A session the home's
  session-store.db has usage rows for but no log is a session too (path = the
  store, working_dir = its sessions row's cwd): its rows are its events.",
        }),
        agg: Some(Section {
            title: "COPILOT CLI TOKENS",
            body: "  Only session.shutdown lines carry usage, cumulative across resumed legs: each
  counts what grew since the previous shutdown, one llm:response per model. A
  counter that went down (a compaction resets them) starts a new base: that
  shutdown counts whole (ccusage 20.0.24 counts 0). input_tokens = inputTokens -
  cacheReadTokens - cacheWriteTokens. The growth of totalNanoAiu (1 AI unit = 1
  US cent) is the writer's cost of the leg (cost_source writer; --cost computed
  prices the tokens instead). When the home's session-store.db has
  assistant_usage_events rows for a session, those rows are its responses (one
  per request, at its time, cost = total_nano_aiu) and its shutdowns count
  nothing: never both; a session without rows counts its roll-ups. A store that
  cannot be read (locked) is reported and the roll-ups count. Followed (-f),
  rows written later are printed, each once. OTel exports are not read.
  --sessions files: view reads, create and edit edit (arguments.path).",
        }),
        ..Help::NONE
    },
    vocabulary,
    layout: &Copilot,
    dialect: &Copilot,
    profile: Profile {
        derived: true,
        multi_part: true,
        original_key: Some("copilot"),
        // Every shutdown roll-up and every usage row's record holds it.
        usage_bytes: Some(b"\"usage\""),
        tables: &store::TABLES,
        ..Profile::new("active", "a Copilot CLI event, not an event record")
    },
};

/// The event names it gives for the lines it knows.
fn vocabulary() -> Vec<&'static str> {
    let mapped = ["session:start", "session:end", "prompt:submit", "prompt:complete", "llm:content"];
    let more = ["llm:response", "context:compaction", "tool:pre", "tool:post", "tool:error", "copilot:unknown"];
    mapped.into_iter().chain(more).chain(KNOWN).collect()
}

/// Part index of a shutdown's first response.
const RESPONSES: u32 = 1;

/// Why a line of an event log is not one of its events.
const NOT_AN_EVENT_LINE: &str = "not a Copilot CLI event (needs a string \"type\")";

/// The `copilot:` names of the event types Copilot writes most.
const KNOWN: [&str; 15] = [
    "copilot:session.model_change",
    "copilot:session.mode_changed",
    "copilot:session.task_complete",
    "copilot:session.compaction_start",
    "copilot:session.info",
    "copilot:session.error",
    "copilot:system.message",
    "copilot:assistant.turn_start",
    "copilot:assistant.reasoning",
    "copilot:subagent.selected",
    "copilot:subagent.started",
    "copilot:subagent.completed",
    "copilot:skill.invoked",
    "copilot:hook.start",
    "copilot:abort",
];

/// A line's `data` object.
fn payload<'a>(line: Raw<'a>) -> Option<Raw<'a>> {
    line.get("data").filter(|d| d.kind() == Kind::Object)
}

/// A line's `timestamp`.
fn line_time(rec: &Record<'_>) -> Option<Timestamp> {
    rec.get_str("timestamp").as_deref().and_then(time::parse_timestamp)
}

/// Its sessions are files, one file one session.
const FILES: FileSessions = FileSessions { root_files, is_session: is_event_log, session_of };

impl Layout for Copilot {
    /// `$COPILOT_HOME` (trimmed, `~`-expanded; a missing one is an error
    /// like any root), else `~/.copilot` when it holds `session-state/`.
    fn default_roots(&self, _diag: &Diag) -> Vec<PathBuf> {
        super::env_or_place(ROOT_ENV, "~/.copilot", |h| h.join(sessions::STATE).is_dir())
    }

    fn file_sessions(&self) -> Option<&FileSessions> {
        Some(&FILES)
    }

    /// The sessions of the event logs under `root`, then those only the
    /// home's store knows ([`store_only`]).
    fn discover(
        &self,
        root: &Path,
        detail: Detail,
        _cx: &Cx<'_>,
        diag: &Diag,
    ) -> crate::error::Result<Vec<SessionRecord>> {
        let mut found = FILES.discover(root, detail, diag)?;
        let orphans = store_only::sessions(root, &found, detail);
        found.extend(orphans);
        Ok(found)
    }

    /// The event log identifies a session (the store and the id, one only
    /// the store knows).
    fn session_dir(&self, rec: &SessionRecord) -> PathBuf {
        match store_only::is_store_path(Path::new(&rec.path)) {
            true => Path::new(&rec.path).join(&rec.session),
            false => PathBuf::from(&rec.path),
        }
    }

    fn event_count(&self, rec: &SessionRecord) -> u64 {
        match store_only::is_store_path(Path::new(&rec.path)) {
            true => store_only::event_count(rec),
            false => crate::files::count_lines(Path::new(&rec.path)),
        }
    }

    /// The home's `session-store.db` when there is one (its rows first:
    /// they say whether the roll-ups count), then the event log; a session
    /// only the store knows has the store alone.
    fn files(&self, rec: &SessionRecord) -> Vec<PathBuf> {
        let log = PathBuf::from(&rec.path);
        if store_only::is_store_path(&log) {
            return vec![log];
        }
        store::store_of(&log).into_iter().chain([log]).collect()
    }

    /// A session whose first file is the store: its usage rows by
    /// [`store::FINGERPRINTS`] (its event log, after them, by its stat).
    fn row_fingerprints(&self, cap: &Capture) -> Option<&'static [&'static str]> {
        cap.files.first().filter(|f| store_only::is_store_path(f)).map(|_| &store::FINGERPRINTS[..])
    }

    /// The session's usage rows, when `file` is the store; a store that
    /// cannot be read is reported (the roll-ups then count).
    fn lines_of<'d>(
        &self,
        cap: &Capture,
        file: &Path,
        display: &str,
        _cx: &Cx<'_>,
        diag: &'d Diag,
    ) -> Option<Box<dyn crate::lines::LineSource + 'd>> {
        if !store::is_store(file) {
            return None;
        }
        Some(crate::lines::rows::source(file, display, diag, |conn| store::keys(conn, &cap.session)))
    }
}

impl Dialect for Copilot {
    /// Copilot's envelope: a string `type`, an object `data`, an `id` and a
    /// `parentId`.
    fn claims(&self, rec: &Record<'_>) -> bool {
        rec.get("type").is_some_and(|t| t.kind() == Kind::String)
            && rec.get("data").is_some_and(|d| d.kind() == Kind::Object)
            && rec.get("id").is_some()
            && rec.get("parentId").is_some()
    }

    /// A line with a string `type` (an event type of a later version too)
    /// that leaves room to be an event's `data`.
    fn accept(&self, rec: &Record<'_>) -> std::result::Result<(), &'static str> {
        super::accept_typed(rec, (&FORMAT, &[]), &["type"], NOT_AN_EVENT_LINE)
    }

    fn original<'a>(&self, rec: &Record<'a>, _part: u32) -> Option<Raw<'a>> {
        rec.get("type")
    }

    /// A call's tool, and a shutdown's responses (module docs).
    fn observe(&self, rec: &Record<'_>, state: &mut ReadState) {
        state.line_data.clear();
        match rec.get_str("type").as_deref() {
            Some("tool.execution_start") => {
                let data = rec.get("data");
                let id = data.and_then(|d| str_at(d, "toolCallId"));
                if let (Some(id), Some(tool)) = (id, data.and_then(|d| d.get("toolName"))) {
                    state.call_started(&id, tool);
                }
            }
            Some("session.shutdown") => usage::shutdown(rec, state),
            // A usage row: the session's responses are its rows.
            Some(store::ROW_TYPE) => state.meta_read = true,
            _ => {}
        }
    }

    /// Only shutdown lines and usage rows change the counts (or a `\u`
    /// escape, which could spell one).
    fn observes(&self, raw: &[u8]) -> bool {
        let has = |b: &[u8]| memchr::memmem::find(raw, b).is_some();
        has(b"session.shutdown") || has(store::ROW_TYPE.as_bytes()) || has(b"\\u")
    }

    /// A tool's start (or a `\u` escape, which could spell one).
    fn starts_calls(&self, raw: &[u8]) -> bool {
        memchr::memmem::find(raw, b"tool.execution_start").is_some() || memchr::memmem::find(raw, b"\\u").is_some()
    }

    fn parts(&self, _rec: &Record<'_>, state: &mut ReadState, out: &mut Vec<u32>) {
        out.push(0);
        let responses = Raw(&state.line_data).items().count() as u32;
        out.extend(RESPONSES..RESPONSES + responses);
    }

    fn name_raw<'a>(&self, _rec: &Record<'a>, _part: u32) -> Option<Raw<'a>> {
        None
    }

    fn name<'a>(&self, rec: &Record<'a>, part: u32, _state: &'a ReadState) -> Cow<'a, str> {
        if part >= RESPONSES {
            return Cow::Borrowed("llm:response");
        }
        let name = match rec.get_str("type").as_deref() {
            Some("session.start") => "session:start",
            Some("session.shutdown") => "session:end",
            Some("user.message") => "prompt:submit",
            Some("assistant.message") => "llm:content",
            Some("assistant.turn_end") => "prompt:complete",
            Some("tool.execution_start") => "tool:pre",
            Some("tool.execution_complete") if self.failed(Raw(rec.line())) => "tool:error",
            Some("tool.execution_complete") => "tool:post",
            Some("session.compaction_complete") => "context:compaction",
            Some(store::ROW_TYPE) => "llm:response",
            Some(t) => return super::qualified(&KNOWN, "copilot:", t),
            None => "copilot:unknown",
        };
        Cow::Borrowed(name)
    }

    /// A shutdown's k-th response's made data; else the line.
    fn data<'a>(&self, rec: &Record<'a>, part: u32, state: &'a ReadState) -> Option<Raw<'a>> {
        if part >= RESPONSES {
            return Raw(&state.line_data).items().nth((part - RESPONSES) as usize);
        }
        Some(Raw(rec.line().trim_ascii()))
    }

    /// The slug of `session.start`'s `context.cwd`.
    fn workspace<'a>(&self, rec: &Record<'a>) -> Option<Cow<'a, str>> {
        let cwd = rec.get("data").and_then(|d| d.get("context")).and_then(|c| str_at(c, "cwd"))?;
        Some(Cow::Owned(crate::session::slug_of(&cwd)))
    }

    fn timestamp<'a>(&self, rec: &Record<'a>) -> Option<Raw<'a>> {
        rec.get("timestamp")
    }

    /// A tool start's `data.toolName`.
    fn tool_name<'a>(&self, data: Raw<'a>) -> Option<Raw<'a>> {
        payload(data)?.get("toolName")
    }

    /// A tool event's `data.toolCallId`.
    fn call_key<'a>(&self, data: Raw<'a>) -> CallKey<'a> {
        let tool = str_at(data, "type").is_some_and(|t| t.starts_with("tool.execution_"));
        match payload(data).filter(|_| tool).and_then(|d| str_at(d, "toolCallId")) {
            Some(id) => CallKey::Id(id),
            None => CallKey::Alone,
        }
    }

    /// A call's end whose `success` is false.
    fn failed(&self, data: Raw<'_>) -> bool {
        str_at(data, "type").as_deref() == Some("tool.execution_complete")
            && payload(data).and_then(|d| d.get("success")).and_then(|s| s.as_bool()) == Some(false)
    }

    /// A response's `model`; a line's `data.model`, else `data.newModel`.
    fn model<'a>(&self, data: Raw<'a>) -> Option<Raw<'a>> {
        let named = |v: Raw<'a>, k: &str| v.get(k).filter(|m| m.kind() == Kind::String);
        match payload(data) {
            Some(d) => named(d, "model").or_else(|| named(d, "newModel")),
            None => named(data, "model"),
        }
    }

    /// A response's made `usage`, in the toolkit's names.
    fn tokens<'a>(&self, data: Raw<'a>) -> [Option<Raw<'a>>; 5] {
        super::amplifier::Amplifier.tokens(data)
    }

    fn file_tools(&self) -> &'static FileTools {
        &FILE_TOOLS
    }

    /// A tool start's `arguments.path` (else `file_path`).
    fn file_path<'a>(&self, data: Raw<'a>) -> Option<Cow<'a, str>> {
        let args = payload(data)?.get("arguments")?;
        str_at(args, "path").or_else(|| str_at(args, "file_path"))
    }

    fn session_id<'a>(&self, data: Raw<'a>) -> Option<Cow<'a, str>> {
        str_at(payload(data)?, "sessionId")
    }
}

/// Copilot CLI's file tools: `view` (a file, or a folder it lists), `create`, `edit`; their `arguments.path`.
const FILE_TOOLS: FileTools = FileTools { read: &["view"], edit: &["create", "edit"] };

#[cfg(test)]
mod tests;
