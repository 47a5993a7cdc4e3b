//! The rows of a task's `ui_messages.json` (`ClineMessage`s) as events: the
//! dialect the three extensions share (the module docs of [`super`]).

use std::borrow::Cow;

use super::super::{str_at, CallKey, Dialect, FileTools, ReadState};
use crate::json::{key_eq, Index, Kind, Raw, Record};
use crate::time;

/// The dialect of the Cline family's `ui_messages.json` rows.
pub(super) struct Rows;

/// Why an element of `ui_messages.json` is not an event.
const NOT_A_ROW: &str = "not a Cline message (needs a string \"type\")";

/// The tool of `command` and `command_output` rows (Cline's tool name).
const COMMAND: &str = "execute_command";

/// The rows whose `text` is a JSON object holding a request's usage
/// (`ClineApiReqInfo`): each is one response, or one aggregate of them.
const USAGE_ROWS: [&str; 3] = ["api_req_started", "deleted_api_reqs", "subagent_usage"];

/// The `cline:` names of the rows the extensions write most.
const KNOWN: [&str; 16] = [
    "cline:say:api_req_started",
    "cline:say:error",
    "cline:say:diff_error",
    "cline:say:checkpoint_created",
    "cline:say:mcp_server_response",
    "cline:say:browser_action",
    "cline:say:browser_action_result",
    "cline:say:user_feedback_diff",
    "cline:say:shell_integration_warning",
    "cline:ask:followup",
    "cline:ask:completion_result",
    "cline:ask:api_req_failed",
    "cline:ask:resume_task",
    "cline:ask:resume_completed_task",
    "cline:ask:mistake_limit_reached",
    "cline:ask:plan_mode_respond",
];

/// The event names the family's rows get.
pub(super) fn vocabulary() -> Vec<&'static str> {
    let mapped = ["prompt:submit", "prompt:complete", "llm:response", "llm:content", "tool:pre", "tool:post"];
    mapped.into_iter().chain(["cline:unknown"]).chain(KNOWN).collect()
}

/// A row's kind: (`"say"` or `"ask"`, its `say`/`ask` value).
fn kind<'a>(rec: &Record<'a>) -> Option<(&'static str, Cow<'a, str>)> {
    let t = match rec.get_str("type").as_deref() {
        Some("say") => "say",
        Some("ask") => "ask",
        _ => return None,
    };
    Some((t, rec.get_str(t)?))
}

/// [`kind`] of a row's data (the element, or the data made from it).
fn data_kind<'a>(data: Raw<'a>) -> Option<Cow<'a, str>> {
    str_at(data, "say").or_else(|| str_at(data, "ask"))
}

/// Whether a row is a `command` or `command_output` row.
fn is_command(value: &str) -> bool {
    value == "command" || value == "command_output"
}

impl Dialect for Rows {
    /// A number `ts` and a `type` of `say` or `ask` naming its string `say`/`ask`.
    fn claims(&self, rec: &Record<'_>) -> bool {
        rec.get("ts").is_some_and(|t| t.kind() == Kind::Number) && kind(rec).is_some()
    }

    /// A row, or any element with a string `type` (a row of a later version),
    /// that leaves room to be an event's `data`.
    fn accept(&self, rec: &Record<'_>) -> std::result::Result<(), &'static str> {
        super::super::fits_as_data(rec)?;
        let has_type = rec.get("type").is_some_and(|t| t.kind() == Kind::String);
        match has_type {
            true => Ok(()),
            false => Err(NOT_A_ROW),
        }
    }

    fn original<'a>(&self, rec: &Record<'a>, _part: u32) -> Option<Raw<'a>> {
        rec.get("say").or_else(|| rec.get("ask"))
    }

    /// Remembers whether a row came before (Roo writes its task as the first
    /// `text` row), and makes the data of a usage or tool row.
    fn observe(&self, rec: &Record<'_>, state: &mut ReadState) {
        state.line_data.clear();
        state.repeat = state.meta_read;
        state.meta_read = true;
        let Some((t, value)) = kind(rec) else { return };
        let row_model = rec.get("modelInfo").and_then(|m| m.get("modelId")).filter(|m| m.kind() == Kind::String);
        let text = rec.get_str("text");
        let mut idx = Index::new();
        let info =
            text.as_deref().filter(|s| s.trim_start().starts_with('{')).and_then(|s| idx.parse(s.as_bytes()).ok());
        let usage_row = t == "say" && USAGE_ROWS.contains(&value.as_ref());
        let own =
            info.as_ref().filter(|_| usage_row).and_then(|i| i.get("modelId")).filter(|m| m.kind() == Kind::String);
        let own = own.or(row_model);
        let Some(info) = info else {
            remember_model(own, state);
            return;
        };
        if usage_row {
            // A subagent's usage is its own requests': the task's model is
            // not theirs.
            let model = match own {
                Some(m) => Some(Cow::Borrowed(m.bytes())),
                None if value == "subagent_usage" => None,
                None => earlier_model(rec, state).map(|m| Cow::Owned(serde_json::to_vec(m).unwrap_or_default())),
            };
            response_data(rec, &info, model.as_deref(), &mut state.line_data);
        } else if value == "tool" || value == "use_mcp_server" {
            tool_data(rec, &info, &mut state.line_data);
        }
        remember_model(own, state);
    }

    /// Every row: whether one came before decides a `text` row's name.
    fn observes(&self, _raw: &[u8]) -> bool {
        true
    }

    fn name_raw<'a>(&self, _rec: &Record<'a>, _part: u32) -> Option<Raw<'a>> {
        None
    }

    fn name<'a>(&self, rec: &Record<'a>, _part: u32, state: &'a ReadState) -> Cow<'a, str> {
        let Some((t, value)) = kind(rec) else { return Cow::Borrowed("cline:unknown") };
        let usage = state.line_data.starts_with(b"{\"usage\"");
        let name = match (t, value.as_ref()) {
            ("say", "task" | "user_feedback") => "prompt:submit",
            ("say", "text") if !state.repeat => "prompt:submit",
            ("say", "text" | "reasoning") => "llm:content",
            ("say", v) if usage && USAGE_ROWS.contains(&v) => "llm:response",
            (_, "tool" | "use_mcp_server" | "command") => "tool:pre",
            (_, "command_output") => "tool:post",
            ("say", "completion_result") => "prompt:complete",
            ("say", v) => return super::super::qualified(&KNOWN, "cline:say:", v),
            (_, v) => return super::super::qualified(&KNOWN, "cline:ask:", v),
        };
        Cow::Borrowed(name)
    }

    /// A usage or tool row's made data; else the element.
    fn data<'a>(&self, rec: &Record<'a>, _part: u32, state: &'a ReadState) -> Option<Raw<'a>> {
        if !state.line_data.is_empty() {
            return Some(Raw(&state.line_data));
        }
        Some(Raw(rec.line().trim_ascii()))
    }

    fn workspace<'a>(&self, _rec: &Record<'a>) -> Option<Cow<'a, str>> {
        None
    }

    /// `ts`, milliseconds since the epoch.
    fn timestamp<'a>(&self, rec: &Record<'a>) -> Option<Raw<'a>> {
        rec.get("ts")
    }

    /// A row's `ts`, milliseconds since the Unix epoch, in RFC 3339 (UTC).
    fn timestamp_text<'a>(&self, raw: Raw<'a>) -> Option<Cow<'a, str>> {
        match raw.kind() {
            Kind::Number => raw.as_f64().and_then(time::from_millis).map(|t| Cow::Owned(time::format_timestamp(t))),
            _ => raw.as_str(),
        }
    }

    /// A tool row's `tool` (made from its `text`); `execute_command` for
    /// command rows.
    fn tool_name<'a>(&self, data: Raw<'a>) -> Option<Raw<'a>> {
        if data_kind(data).is_some_and(|v| is_command(&v)) {
            return Some(Raw(b"\"execute_command\""));
        }
        data.get("tool").filter(|t| t.kind() == Kind::String)
    }

    /// No call ids: a command and its output are paired in order; any other
    /// tool row is a call of its own (the extensions write no result rows).
    fn call_key<'a>(&self, data: Raw<'a>) -> CallKey<'a> {
        match data_kind(data) {
            Some(v) if is_command(&v) => CallKey::Ordered(COMMAND.to_owned()),
            _ => CallKey::Alone,
        }
    }

    fn failed(&self, _data: Raw<'_>) -> bool {
        false
    }

    /// A usage row's `model` (made from its `modelId`, else the row's
    /// `modelInfo.modelId`).
    fn model<'a>(&self, data: Raw<'a>) -> Option<Raw<'a>> {
        data.get("model").filter(|m| m.kind() == Kind::String)
    }

    /// A usage row's made `usage`, in the toolkit's names (Amplifier's keys).
    fn tokens<'a>(&self, data: Raw<'a>) -> [Option<Raw<'a>>; 5] {
        super::super::amplifier::Amplifier.tokens(data)
    }

    fn file_tools(&self) -> &'static FileTools {
        &FILE_TOOLS
    }

    /// A tool row's `path` (made from its `text`).
    fn file_path<'a>(&self, data: Raw<'a>) -> Option<Cow<'a, str>> {
        str_at(data, "path")
    }

    fn session_id<'a>(&self, _data: Raw<'a>) -> Option<Cow<'a, str>> {
        None
    }
}

/// The Cline family's file tool rows (Roo's and Kilo's edits included); their `path`.
const FILE_TOOLS: FileTools = FileTools {
    read: &["readFile"],
    edit: &["editedExistingFile", "newFileCreated", "appliedDiff", "insertContent", "searchAndReplace"],
};

/// A `ClineApiReqInfo` count (absent or not a whole number: 0).
fn count(info: &Record<'_>, key: &str) -> u64 {
    info.get(key).map_or(0, super::super::whole_count)
}

/// The toolkit's counts of a usage row's info: uncached input, output,
/// cache reads, cache writes. `tokensIn` includes the cache reads when the
/// request went over the OpenAI protocol (`apiProtocol`, Roo and Kilo).
pub fn usage_counts(info: &Record<'_>) -> [u64; 4] {
    let (tokens_in, reads) = (count(info, "tokensIn"), count(info, "cacheReads"));
    let openai = info.get_str("apiProtocol").as_deref() == Some("openai");
    let input = if openai { tokens_in.saturating_sub(reads) } else { tokens_in };
    [input, count(info, "tokensOut"), reads, count(info, "cacheWrites")]
}

/// Whether a usage row's info holds any count or cost (a request still
/// streaming holds only its `request`).
fn has_usage(info: &Record<'_>) -> bool {
    ["tokensIn", "tokensOut", "cacheWrites", "cacheReads", "cost"].iter().any(|k| info.get(k).is_some())
}

/// Appends the element's members other than `skip` and closes the object.
fn close_with_members(rec: &Record<'_>, skip: &[&str], d: &mut Vec<u8>) {
    for (key, v) in rec.members().filter(|(k, _)| !skip.iter().any(|s| key_eq(k, s))) {
        d.extend_from_slice(b",\"");
        d.extend_from_slice(key);
        d.extend_from_slice(b"\":");
        d.extend_from_slice(v.bytes());
    }
    d.push(b'}');
}

/// Keeps the model a row named (a JSON string) as the model of the rows
/// after it that name none.
fn remember_model(model: Option<Raw<'_>>, state: &mut ReadState) {
    if let Some(m) = model.and_then(|m| m.as_str()) {
        state.model = Some(m.into_owned());
    }
}

/// The model of a usage row that names none: the one the nearest earlier
/// row named (its `modelInfo.modelId`, a usage row's `modelId`), else the
/// one `task_metadata.json` says was chosen last at the row's `ts` (before
/// the first choice: the first).
fn earlier_model<'s>(rec: &Record<'_>, state: &'s ReadState) -> Option<&'s str> {
    if let Some(m) = &state.model {
        return Some(m);
    }
    let ts = rec.get("ts").and_then(|t| t.as_f64());
    let chosen = state.models.iter().take_while(|(at, _)| ts.is_some_and(|ts| *at <= ts)).last();
    chosen.or(state.models.first()).map(|(_, m)| &**m)
}

/// Writes a usage row's data: `usage` and `model` (a JSON string, when
/// known) first, then the element.
fn response_data(rec: &Record<'_>, info: &Record<'_>, model: Option<&[u8]>, d: &mut Vec<u8>) {
    if !has_usage(info) {
        return;
    }
    let [input, output, reads, writes] = usage_counts(info);
    d.extend_from_slice(
        format!(
            "{{\"usage\":{{\"input_tokens\":{input},\"output_tokens\":{output},\"cache_read_tokens\":{reads},\"cache_write_tokens\":{writes}"
        )
        .as_bytes(),
    );
    let cost = info.get("cost").filter(|c| c.as_f64().is_some_and(|c| c.is_finite() && c >= 0.0));
    if let Some(c) = cost {
        d.extend_from_slice(b",\"cost_usd\":");
        d.extend_from_slice(c.bytes());
    }
    d.push(b'}');
    if let Some(m) = model {
        d.extend_from_slice(b",\"model\":");
        d.extend_from_slice(m);
    }
    close_with_members(rec, &["usage", "model"], d);
}

/// Writes a tool row's data: the `tool` (an MCP row's `toolName`) and `path`
/// its `text` names first, then the element.
fn tool_data(rec: &Record<'_>, info: &Record<'_>, d: &mut Vec<u8>) {
    let tool = info.get("tool").or_else(|| info.get("toolName")).filter(|t| t.kind() == Kind::String);
    let Some(tool) = tool else { return };
    d.extend_from_slice(b"{\"tool\":");
    d.extend_from_slice(tool.bytes());
    if let Some(p) = info.get("path").filter(|p| p.kind() == Kind::String) {
        d.extend_from_slice(b",\"path\":");
        d.extend_from_slice(p.bytes());
    }
    close_with_members(rec, &["tool", "path"], d);
}
