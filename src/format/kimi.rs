//! Kimi CLI and Kimi Code wire files (formats-next.md §6): each session's
//! `wire.jsonl`, under `~/.kimi/sessions/` (Kimi CLI) or
//! `~/.kimi-code/sessions/` (Kimi Code).
//!
//! - **Roots**: `$KIMI_SHARE_DIR`, else `~/.kimi` (Kimi CLI), and
//!   `$KIMI_CODE_HOME`, else `~/.kimi-code` (Kimi Code), each when it holds a
//!   `sessions` folder when not named by a variable. A root is such a
//!   directory or any folder below it: the `wire.jsonl` files up to six
//!   levels down are the sessions ([`layout`]).
//! - **Sessions**: Kimi CLI's `sessions/<work-dir hash>/<session-id>/wire.jsonl`
//!   (id: the session folder) and its subagents'
//!   `<session>/subagents/<agent-id>/wire.jsonl` (id: the agent folder,
//!   `parent` the session, `agent` the agent id); Kimi Code's
//!   `sessions/<wd_…>/<session_…>/agents/<agent-id>/wire.jsonl`, where agent
//!   `main` is the session itself (id: the session folder) and every other
//!   agent a child session as above. `project` = `workspace` = the work-dir
//!   folder; `working_dir` = the `path` of the `kimi.json` work dir whose
//!   MD5 names the folder (Kimi CLI's rule, `<kaos>_<md5>` off the local
//!   kaos), else of the one whose `last_session_id` is the session, else Kimi
//!   Code's `state.json` `workDir`, else the first `cwd` of a
//!   `config.update` record, else null; `model` =
//!   the first model a record names (Kimi CLI's wire files name none: null);
//!   `tags` = `protocol:` the wire protocol version.
//! - **Events**: one per line; the record keeps Kimi's message type as
//!   `kimi`, and `data` is the line. Kimi CLI lines are
//!   `{"timestamp":<Unix seconds>,"message":{"type":…,"payload":…}}`:
//!   `TurnBegin` → `prompt:submit`, `TurnEnd` → `prompt:complete`,
//!   `CompactionBegin` → `context:compaction`, a `StatusUpdate` with a
//!   `token_usage` object → `llm:response` (else `kimi:StatusUpdate`),
//!   `ToolCall` → `tool:pre`, `ToolResult` → `tool:post` (`tool:error` when
//!   its `return_value.is_error` is true); every other type `kimi:<type>`
//!   (`kimi:StepBegin`, `kimi:SubagentEvent`, …), the first line's
//!   `{"type":"metadata"}` `kimi:metadata`. Kimi Code lines are flat
//!   (`{"type":"usage.record","time":…,…}`): `turn.prompt` →
//!   `prompt:submit`, a `usage.record` with a `usage` object whose
//!   `usageScope` is not `session` → `llm:response`, every other type
//!   `kimi:<type>` (their tool records' fields are unverified: not paired).
//!   Times: a number is Unix seconds, or milliseconds when it is 10^11 or
//!   more (Kimi Code's `time`), printed as RFC 3339.
//! - **Tokens**: Kimi's `TokenUsage` is per step, and `input_other`
//!   excludes the cache: `input_tokens` = `input_other` (`inputOther`),
//!   `cache_read_tokens` = `input_cache_read`, `cache_write_tokens` =
//!   `input_cache_creation`, `output_tokens` = `output` (Kimi's output
//!   total, reasoning included), each read as written. Usage inside a `SubagentEvent` is a
//!   mirror of the subagent's own wire file and counts nothing there. A
//!   `/fork` copies the parent's wire lines verbatim into a new session, so
//!   a response is told by its time and `message_id` (Kimi Code: its time
//!   and `turnId`), and each counts once, in the session that ends first
//!   (the toolkit's rule for copied history, [`super::Profile::copies_history`]).
//! - **Calls** are paired by id: `ToolCall.payload.id`, which the
//!   `ToolResult` names as `tool_call_id`; the tool is
//!   `ToolCall.payload.function.name`.

mod layout;
mod md5;

use std::borrow::Cow;

use super::{str_at, CallKey, Dialect, FileTools, Format, Help, Profile, ReadState, Section};
use crate::json::{Kind, Raw, Record};
use crate::time::{self, Timestamp};

pub use layout::{CODE_HOME_ENV, SHARE_ENV};

/// The Kimi CLI and Kimi Code wire files writer.
pub struct Kimi;

/// The kimi format (see the module docs).
pub static FORMAT: Format = Format {
    name: "kimi",
    product: "Kimi CLI",
    root_env: &[SHARE_ENV, CODE_HOME_ENV],
    places: &["~/.kimi/sessions", "~/.kimi-code/sessions"],
    help: Help {
        roots: Some(
            "$KIMI_SHARE_DIR, else ~/.kimi, and $KIMI_CODE_HOME, else ~/.kimi-code, each\n    when it holds a sessions folder (Kimi CLI, Kimi Code)",
        ),
        find: Some(Section {
            title: "KIMI",
            body: "  Each wire.jsonl up to six levels below a root (an agents folder's always;
  outside the session folders other writers found there) is a session, format kimi: Kimi CLI's
  sessions/<hash>/<id>/wire.jsonl, its subagents'
  <id>/subagents/<agent>/wire.jsonl (child sessions: parent = the session,
  agent = the agent id) and Kimi Code's sessions/<wd>/<id>/agents/<agent>/
  wire.jsonl (agent main is the session, the others its children).
  project/workspace = the work-dir folder, working_dir = the kimi.json path
  whose MD5 names that folder (else whose last_session_id is the session),
  else state.json's workDir, else a config.update cwd, tags = protocol:. Kimi CLI's wire
  files name no model: model is null and cost_usd null.",
        }),
        agg: Some(Section {
            title: "KIMI TOKENS",
            body: "  Per step (StatusUpdate.token_usage, Kimi Code usage.record): input_other
  excludes the cache, so input_tokens = input_other, cache_read_tokens =
  input_cache_read, cache_write_tokens = input_cache_creation, output_tokens =
  output. Usage mirrored inside SubagentEvent counts nothing (the subagent's
  own wire file counts it); a /fork's verbatim copies count once, in the session
  that ends first.
  --sessions files: ReadFile and ReadMediaFile read, WriteFile and
  StrReplaceFile edit (the path argument).",
        }),
        ..Help::NONE
    },
    vocabulary,
    layout: &Kimi,
    dialect: &Kimi,
    profile: Profile {
        derived: true,
        original_key: Some("kimi"),
        // A fork's wire file starts with its parent's lines, verbatim.
        copies_history: true,
        // `"token_usage"` (Kimi CLI), `"usage"` (Kimi Code).
        usage_bytes: Some(b"usage\""),
        ..Profile::new("active", "a Kimi wire record, not an event")
    },
};

/// The event names it gives for the lines it knows.
fn vocabulary() -> Vec<&'static str> {
    let mapped = ["prompt:submit", "prompt:complete", "llm:response", "context:compaction"];
    let tools = ["tool:pre", "tool:post", "tool:error", "kimi:unknown"];
    mapped.into_iter().chain(tools).chain(KNOWN).collect()
}

/// Why a line of a wire file is not one of its events.
const NOT_A_WIRE_RECORD: &str = "not a Kimi wire record (needs a string \"type\" or a \"message\" object)";

/// The `kimi:` names of the message types Kimi writes most.
const KNOWN: [&str; 16] = [
    "kimi:metadata",
    "kimi:StepBegin",
    "kimi:StepInterrupted",
    "kimi:StepRetry",
    "kimi:SteerInput",
    "kimi:CompactionEnd",
    "kimi:StatusUpdate",
    "kimi:ToolCallRequest",
    "kimi:SubagentEvent",
    "kimi:ApprovalRequest",
    "kimi:Notification",
    "kimi:PlanDisplay",
    "kimi:usage.record",
    "kimi:config.update",
    "kimi:llm.request",
    "kimi:tool.call",
];

/// A Kimi CLI line's message (`{"type":…,"payload":…}`).
fn message<'a>(rec: &Record<'a>) -> Option<Raw<'a>> {
    rec.get("message").filter(|m| m.kind() == Kind::Object)
}

/// The line's message type (Kimi CLI) or record type (Kimi Code).
fn kind<'a>(rec: &Record<'a>) -> Option<Cow<'a, str>> {
    match message(rec) {
        Some(m) => str_at(m, "type"),
        None => rec.get_str("type"),
    }
}

/// A Kimi CLI line's `message.payload` object.
fn payload<'a>(data: Raw<'a>) -> Option<Raw<'a>> {
    data.get("message")?.get("payload").filter(|p| p.kind() == Kind::Object)
}

/// A response's usage object in a line (or an event's `data`, the line): a
/// top-level `StatusUpdate`'s `token_usage`, a Kimi Code `usage.record`'s
/// `usage` (not a session-scoped total).
fn usage_in(line: Raw<'_>) -> Option<Raw<'_>> {
    fn object(v: Option<Raw<'_>>) -> Option<Raw<'_>> {
        v.filter(|u| u.kind() == Kind::Object)
    }
    if let Some(m) = line.get("message") {
        let status = str_at(m, "type").as_deref() == Some("StatusUpdate");
        return status.then(|| object(m.get("payload")?.get("token_usage"))).flatten();
    }
    let record = str_at(line, "type").as_deref() == Some("usage.record");
    let total = str_at(line, "usageScope").as_deref() == Some("session");
    (record && !total).then(|| object(line.get("usage"))).flatten()
}

/// Kimi's usage keys for the toolkit's [`super::Usage::ALL`] (Kimi CLI's
/// snake_case, Kimi Code's camelCase); no cost.
const USAGE_KEYS: [[&str; 2]; 4] = [
    ["input_other", "inputOther"],
    ["output", "output"],
    ["input_cache_read", "inputCacheRead"],
    ["input_cache_creation", "inputCacheCreation"],
];

/// A time as Kimi writes it: a number of Unix seconds, or of milliseconds
/// when it is 10^11 or more; else an RFC 3339 string.
pub fn parse_time(raw: Raw<'_>) -> Option<Timestamp> {
    if let Some(s) = raw.as_str() {
        return time::parse_timestamp(&s);
    }
    let n = raw.as_f64().filter(|n| n.is_finite() && *n >= 0.0)?;
    let micros = if n >= 1e11 { n * 1e3 } else { n * 1e6 };
    Timestamp::from_microsecond(micros.round() as i64).ok()
}

/// The line's time: Kimi CLI's `timestamp`, Kimi Code's `time`.
fn time_raw<'a>(rec: &Record<'a>) -> Option<Raw<'a>> {
    rec.get("timestamp").or_else(|| rec.get("time"))
}

/// [`time_raw`] of an event's `data` (the line, or the line with usage first).
fn data_time(data: Raw<'_>) -> Option<Raw<'_>> {
    data.get("timestamp").or_else(|| data.get("time"))
}

impl Dialect for Kimi {
    /// Kimi CLI: a number `timestamp` and a `message` object with a string
    /// `type`; the `metadata` header with a `protocol_version`. Kimi Code: a
    /// string `type` of dotted lower-case words (`usage.record`).
    fn claims(&self, rec: &Record<'_>) -> bool {
        if let Some(m) = message(rec) {
            return rec.get("timestamp").is_some_and(|t| t.kind() == Kind::Number)
                && m.get("type").is_some_and(|t| t.kind() == Kind::String);
        }
        match rec.get_str("type").as_deref() {
            Some("metadata") => rec.get("protocol_version").is_some(),
            Some(t) => dotted(t),
            None => false,
        }
    }

    /// A Kimi record, or any line with a string `type` or a `message` object
    /// (a record of a later version), that leaves room to be an event's `data`.
    fn accept(&self, rec: &Record<'_>) -> std::result::Result<(), &'static str> {
        super::fits_as_data(rec)?;
        if message(rec).is_some() || rec.get("type").is_some_and(|t| t.kind() == Kind::String) {
            Ok(())
        } else {
            Err(NOT_A_WIRE_RECORD)
        }
    }

    fn original<'a>(&self, rec: &Record<'a>, _part: u32) -> Option<Raw<'a>> {
        message(rec).and_then(|m| m.get("type")).or_else(|| rec.get("type"))
    }

    /// A `ToolCall`'s tool, which its `ToolResult` (a later line) does not name.
    fn observe(&self, rec: &Record<'_>, state: &mut ReadState) {
        let line = Raw(rec.line());
        if let (Some(tool), CallKey::Id(id)) = (self.tool_name(line), self.call_key(line)) {
            state.call_started(&id, tool);
        }
    }

    /// A `ToolCall` line starts a call whose `ToolResult` names no tool (or
    /// a `\u` escape, which could spell it).
    fn starts_calls(&self, raw: &[u8]) -> bool {
        let has = |s: &[u8]| memchr::memmem::find(raw, s).is_some();
        has(b"\"ToolCall\"") || has(b"\\u")
    }

    fn name_raw<'a>(&self, _rec: &Record<'a>, _part: u32) -> Option<Raw<'a>> {
        None
    }

    fn name<'a>(&self, rec: &Record<'a>, _part: u32, _state: &'a ReadState) -> Cow<'a, str> {
        let Some(kind) = kind(rec) else { return Cow::Borrowed("kimi:unknown") };
        let name = match kind.as_ref() {
            "TurnBegin" | "turn.prompt" => "prompt:submit",
            "TurnEnd" => "prompt:complete",
            "CompactionBegin" => "context:compaction",
            "StatusUpdate" | "usage.record" if usage_in(Raw(rec.line())).is_some() => "llm:response",
            "ToolCall" if message(rec).is_some() => "tool:pre",
            "ToolResult" if result_failed(Raw(rec.line())) => "tool:error",
            "ToolResult" => "tool:post",
            k => return super::qualified(&KNOWN, "kimi:", k),
        };
        Cow::Borrowed(name)
    }

    /// The line.
    fn data<'a>(&self, rec: &Record<'a>, _part: u32, _state: &'a ReadState) -> Option<Raw<'a>> {
        Some(Raw(rec.line().trim_ascii()))
    }

    /// None: the session's (its work-dir folder).
    fn workspace<'a>(&self, _rec: &Record<'a>) -> Option<Cow<'a, str>> {
        None
    }

    fn timestamp<'a>(&self, rec: &Record<'a>) -> Option<Raw<'a>> {
        time_raw(rec)
    }

    /// Unix seconds (or milliseconds) as RFC 3339; a string as written.
    fn timestamp_text<'a>(&self, raw: Raw<'a>) -> Option<Cow<'a, str>> {
        match raw.kind() {
            Kind::String => raw.as_str(),
            _ => parse_time(raw).map(|t| Cow::Owned(time::format_timestamp(t))),
        }
    }

    /// A `ToolCall`'s `function.name`.
    fn tool_name<'a>(&self, data: Raw<'a>) -> Option<Raw<'a>> {
        let p = payload(data)?;
        (str_at(p, "type").as_deref() == Some("function")).then(|| p.get("function")?.get("name")).flatten()
    }

    /// A `ToolCall`'s `id`; a `ToolResult`'s `tool_call_id`.
    fn call_key<'a>(&self, data: Raw<'a>) -> CallKey<'a> {
        let id = payload(data).and_then(|p| {
            if p.get("function").is_some() {
                str_at(p, "id")
            } else {
                str_at(p, "tool_call_id")
            }
        });
        id.map_or(CallKey::Alone, CallKey::Id)
    }

    fn failed(&self, data: Raw<'_>) -> bool {
        result_failed(data)
    }

    /// A Kimi Code record's `model` (Kimi CLI's lines name none).
    fn model<'a>(&self, data: Raw<'a>) -> Option<Raw<'a>> {
        data.get("model").filter(|m| m.kind() == Kind::String)
    }

    /// A response's usage counts, each as Kimi wrote it (module docs).
    fn tokens<'a>(&self, data: Raw<'a>) -> [Option<Raw<'a>>; 5] {
        let Some(usage) = usage_in(data) else { return [None; 5] };
        let mut out = [None; 5];
        for (slot, keys) in USAGE_KEYS.iter().enumerate() {
            out[slot] = keys.iter().find_map(|k| usage.get(k));
        }
        out
    }

    /// A response's time and `message_id` (Kimi Code: time and `turnId`): a
    /// fork's verbatim copy has both.
    fn message_key(&self, data: Raw<'_>, out: &mut String) -> bool {
        out.clear();
        let Some(at) = usage_in(data).and(data_time(data)) else { return false };
        let id = payload(data).and_then(|p| p.get("message_id")).or_else(|| data.get("turnId"));
        out.push_str(&String::from_utf8_lossy(at.bytes()));
        out.push('\0');
        out.push_str(&String::from_utf8_lossy(id.map_or(&b""[..], |i| i.bytes())));
        true
    }

    /// A line's time and type, which a fork's verbatim copy keeps.
    fn copy_key<'a>(&self, data: Raw<'a>) -> Option<Cow<'a, str>> {
        let at = data_time(data)?;
        let kind = data.get("message").and_then(|m| m.get("type")).or_else(|| data.get("type"));
        let kind = kind.map_or(&b""[..], |k| k.bytes());
        Some(Cow::Owned(format!("{}\0{}", String::from_utf8_lossy(at.bytes()), String::from_utf8_lossy(kind))))
    }

    fn file_tools(&self) -> &'static FileTools {
        &FILE_TOOLS
    }

    /// A `ToolCall`'s `path` or `file_path` argument (a JSON string).
    fn file_path<'a>(&self, data: Raw<'a>) -> Option<Cow<'a, str>> {
        let args = payload(data)?.get("function")?.get("arguments")?.as_str()?;
        let v: serde_json::Value = serde_json::from_str(&args).ok()?;
        let path = v.get("path").or_else(|| v.get("file_path"))?.as_str()?;
        Some(Cow::Owned(path.to_owned()))
    }

    fn session_id<'a>(&self, _data: Raw<'a>) -> Option<Cow<'a, str>> {
        None
    }
}

/// Kimi CLI's file tools; their `path` argument.
const FILE_TOOLS: FileTools =
    FileTools { read: &["ReadFile", "ReadMediaFile"], edit: &["WriteFile", "StrReplaceFile"] };

/// Whether a record type is dotted lower-case words (`usage.record`).
fn dotted(t: &str) -> bool {
    let mut words = t.split('.');
    let word = |w: &str| !w.is_empty() && w.bytes().all(|b| b.is_ascii_lowercase() || b == b'_');
    t.contains('.') && words.all(word)
}

/// Whether a `ToolResult` says its call failed (`return_value.is_error`).
fn result_failed(data: Raw<'_>) -> bool {
    let Some(p) = payload(data) else { return false };
    p.get("tool_call_id").is_some()
        && p.get("return_value").and_then(|r| r.get("is_error")).and_then(|e| e.as_bool()) == Some(true)
}

#[cfg(test)]
mod tests;
