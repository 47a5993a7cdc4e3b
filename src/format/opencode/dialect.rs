//! What an OpenCode row's record means (module docs of [`super`]).

use std::borrow::Cow;

use super::OpenCode;
use crate::format::{str_at, CallKey, Dialect, FileTools, ReadState};
use crate::json::{Kind, Raw, Record};

/// Part index of a finished tool call's end (part 0 is the row's own event).
const END: u32 = 1;

/// Why a line is not one of its rows' records.
const NOT_A_ROW: &str = "not an OpenCode row record (needs \"type\" session, message or part and its keys)";

/// Why a message or part row is not read.
pub(super) const NOT_JSON: &str = "its data column is not a JSON object (damaged or half-written row)";

/// The `opencode:` names of the part types OpenCode writes most.
const KNOWN: [&str; 11] = [
    "opencode:message",
    "opencode:text",
    "opencode:reasoning",
    "opencode:step-start",
    "opencode:subtask",
    "opencode:agent",
    "opencode:patch",
    "opencode:snapshot",
    "opencode:retry",
    "opencode:file",
    "opencode:unknown",
];

/// The event names it gives for the rows it knows.
pub(super) fn vocabulary() -> Vec<&'static str> {
    let mapped = ["session:start", "prompt:submit", "llm:response", "context:compaction"];
    let tools = ["tool:pre", "tool:post", "tool:error"];
    mapped.into_iter().chain(tools).chain(KNOWN).collect()
}

/// The row's kind: `session`, `message` or `part`.
fn kind<'a>(rec: &Record<'a>) -> Option<Cow<'a, str>> {
    rec.get_str("type")
}

/// A part's `data.type`.
fn part_type<'a>(rec: &Record<'a>) -> Option<Cow<'a, str>> {
    rec.get_in("data", "type")?.as_str()
}

/// A tool part's `state.status` (from the record or an event's `data`).
fn status(data: Raw<'_>) -> Option<Cow<'_, str>> {
    str_at(data.get("data")?.get("state")?, "status")
}

/// Whether a tool part's call ended (completed or failed).
fn ended(data: Raw<'_>) -> bool {
    status(data).is_some_and(|s| s == "completed" || s == "error")
}

impl Dialect for OpenCode {
    /// A record with `type` session (and `project_id`), message (and
    /// `session_id`) or part (and `message_id`), as the database makes them.
    fn claims(&self, rec: &Record<'_>) -> bool {
        let has = |k: &str| rec.get(k).is_some();
        match kind(rec).as_deref() {
            Some("session") => has("project_id") && has("directory"),
            Some("message") => has("session_id") && has("steps") && has("data"),
            Some("part") => has("message_id") && has("session_id") && has("data"),
            _ => false,
        }
    }

    /// A row's record whose `data` column held a JSON object (a message's
    /// or part's that does not, torn or damaged, is a bad record).
    fn accept(&self, rec: &Record<'_>) -> std::result::Result<(), &'static str> {
        crate::format::fits_as_data(rec)?;
        if !self.claims(rec) {
            return Err(NOT_A_ROW);
        }
        match (kind(rec).as_deref(), rec.get("data").map(|d| d.kind())) {
            (Some("message" | "part"), Some(k)) if k != Kind::Object => Err(NOT_JSON),
            _ => Ok(()),
        }
    }

    /// A tool part whose call ended is two events: its call and its end.
    fn parts(&self, rec: &Record<'_>, _state: &mut ReadState, out: &mut Vec<u32>) {
        out.push(0);
        if kind(rec).as_deref() == Some("part")
            && part_type(rec).as_deref() == Some("tool")
            && ended(Raw(rec.line().trim_ascii()))
        {
            out.push(END);
        }
    }

    /// A part's type, else the row's kind.
    fn original<'a>(&self, rec: &Record<'a>, _part: u32) -> Option<Raw<'a>> {
        match kind(rec).as_deref() {
            Some("part") => rec.get_in("data", "type").filter(|t| t.kind() == Kind::String),
            _ => rec.get("type"),
        }
    }

    fn name_raw<'a>(&self, _rec: &Record<'a>, _part: u32) -> Option<Raw<'a>> {
        None
    }

    fn name<'a>(&self, rec: &Record<'a>, part: u32, _state: &'a ReadState) -> Cow<'a, str> {
        let line = Raw(rec.line().trim_ascii());
        if part == END {
            let failed = status(line).as_deref() == Some("error");
            return Cow::Borrowed(if failed { "tool:error" } else { "tool:post" });
        }
        let usage = rec.get("usage").is_some_and(|u| u.kind() == Kind::Object);
        let name = match kind(rec).as_deref() {
            Some("session") => "session:start",
            Some("message") if usage => "llm:response",
            Some("message") => match rec.get_in("data", "role").and_then(|r| r.as_str()).as_deref() {
                Some("user") => "prompt:submit",
                _ => "opencode:message",
            },
            _ => match part_type(rec).as_deref() {
                Some("tool") => "tool:pre",
                Some("step-finish") if usage => "llm:response",
                Some("compaction") => "context:compaction",
                Some(t) => return crate::format::qualified(&KNOWN, "opencode:", t),
                None => "opencode:unknown",
            },
        };
        Cow::Borrowed(name)
    }

    /// The row's record, whole.
    fn data<'a>(&self, rec: &Record<'a>, _part: u32, _state: &'a ReadState) -> Option<Raw<'a>> {
        Some(Raw(rec.line().trim_ascii()))
    }

    /// The folder name of a message's `path.cwd` (else the session's).
    fn workspace<'a>(&self, rec: &Record<'a>) -> Option<Cow<'a, str>> {
        let cwd = rec.get_in("data", "path")?.get("cwd")?.as_str()?;
        Some(Cow::Owned(crate::session::slug_of(&cwd)))
    }

    fn timestamp<'a>(&self, rec: &Record<'a>) -> Option<Raw<'a>> {
        rec.get("timestamp")
    }

    /// A tool part's `tool`.
    fn tool_name<'a>(&self, data: Raw<'a>) -> Option<Raw<'a>> {
        data.get("data")?.get("tool").filter(|t| t.kind() == Kind::String)
    }

    /// A tool part's `callID`.
    fn call_key<'a>(&self, data: Raw<'a>) -> CallKey<'a> {
        data.get("data").and_then(|d| str_at(d, "callID")).map_or(CallKey::Alone, CallKey::Id)
    }

    /// Status `error`, or a `completed` call whose `state.metadata.exit`
    /// is a number other than 0 (a failed bash command).
    fn failed(&self, data: Raw<'_>) -> bool {
        if status(data).as_deref() == Some("error") {
            return true;
        }
        let exit =
            data.get("data").and_then(|d| d.get("state")).and_then(|s| s.get("metadata")).and_then(|m| m.get("exit"));
        exit.and_then(|e| e.as_f64()).is_some_and(|e| e != 0.0)
    }

    /// A part's message's model; a message's `modelID`.
    fn model<'a>(&self, data: Raw<'a>) -> Option<Raw<'a>> {
        let m = data.get("model").filter(|m| m.kind() == Kind::String);
        m.or_else(|| data.get("data")?.get("modelID")).filter(|m| m.kind() == Kind::String)
    }

    /// The record's `usage` (made by the database, [`super::store`]).
    fn tokens<'a>(&self, data: Raw<'a>) -> [Option<Raw<'a>>; 5] {
        let Some(usage) = data.get("usage").filter(|u| u.kind() == Kind::Object) else { return [None; 5] };
        crate::format::Usage::ALL.map(|u| usage.get(u.name()).filter(|v| v.kind() != Kind::Null))
    }

    fn file_tools(&self) -> &'static FileTools {
        &FILE_TOOLS
    }

    /// A tool part's `state.input.filePath`.
    fn file_path<'a>(&self, data: Raw<'a>) -> Option<Cow<'a, str>> {
        str_at(data.get("data")?.get("state")?.get("input")?, "filePath")
    }

    fn session_id<'a>(&self, data: Raw<'a>) -> Option<Cow<'a, str>> {
        match str_at(data, "type").as_deref() {
            Some("session") => str_at(data, "id"),
            _ => str_at(data, "session_id"),
        }
    }

    /// Rows OpenCode still rewrites: an assistant message without
    /// `time.completed`, a tool part `pending` or `running`, a text or
    /// reasoning part with `time.start` and no `time.end` (streaming).
    fn unfinished(&self, raw: Raw<'_>) -> bool {
        let Some(data) = raw.get("data").filter(|d| d.kind() == Kind::Object) else { return false };
        let time = data.get("time").filter(|t| t.kind() == Kind::Object);
        let open = |end: &str| time.is_some_and(|t| t.get(end).is_none_or(|e| e.kind() == Kind::Null));
        match str_at(raw, "type").as_deref() {
            Some("message") => str_at(data, "role").as_deref() == Some("assistant") && open("completed"),
            Some("part") => match str_at(data, "type").as_deref() {
                Some("tool") => matches!(status(raw).as_deref(), Some("pending" | "running")),
                Some("text" | "reasoning") => time.is_some_and(|t| t.get("start").is_some()) && open("end"),
                _ => false,
            },
            _ => false,
        }
    }
}

/// OpenCode's file tools; their `filePath` input.
const FILE_TOOLS: FileTools = FileTools { read: &["read"], edit: &["edit", "write", "multiedit"] };
