//! Claude Code's own transcripts (formats.md §5):
//! `<config>/projects/<project-folder>/<session-id>.jsonl`.
//!
//! - **Roots**: every directory of `$CLAUDE_CONFIG_DIR` (a comma-separated
//!   list, as ccusage reads it), else `~/.config/claude` and `~/.claude`
//!   (each only when it has a `projects` folder). A root is searched when it
//!   has a `projects` folder (or is itself a folder named `projects`).
//! - **Sessions**: each `<session-id>.jsonl` directly in a project folder.
//!   Subagent transcripts (`<session-id>/subagents/agent-*.jsonl`) are part
//!   of their session: read after the main file, each with its own line
//!   numbers; the record's `files` lists their names.
//! - **Events**: one line can yield several, told apart by a part index in
//!   provenance (`ci.part`). Part 0 is the line's own event: a user prompt
//!   (text that is not a tool result, a meta line or a compact summary) is
//!   `prompt:submit`; an assistant message is `llm:response` on the first line
//!   written for it (in this capture), and each later line of the same message
//!   (one per content block, repeating its usage) is `llm:content`; other
//!   lines go by their own names (`context:compaction` for a compact
//!   boundary, `system:<subtype>`, `progress:<type>`, `transcript:<type>`).
//!   Part 2 + k is the line's k-th content block when it is a `tool_use`
//!   (`tool:pre`) or a `tool_result` (`tool:post`, `tool:error` when
//!   `is_error`). On a `progress` line that carries a subagent's assistant
//!   message (Claude Code 2.1's `agent_progress`: `data.message` is the
//!   subagent's line, `{type, message, requestId, uuid, timestamp}`), part 2
//!   is that message as a response of the session: `llm:response` where it
//!   is first written in the capture, `llm:content` (part 3) for a later copy
//!   (the same message in `<id>/subagents/`, or another block of it); its
//!   `data` is the subagent's line, so its model, usage and message key are
//!   read as an assistant line's. A session's responses (and so its tokens,
//!   cost, models and days) are then the same with or without its
//!   `subagents/` folder; the subagent's tool calls are only in its own file.
//!   The `data` of a block event is the block; of the line's own
//!   event, the whole line (so a line nested as deep as the parser's limit is
//!   a bad line: `format::fits_as_data`). The record keeps the line's `type`
//!   as `transcript`. A block event's model, usage and message key are read
//!   off the block, as they are from a piped block record (a real block
//!   carries none).
//! - **Semantics**: call ids are the `tool_use` id; a `tool_result` names no
//!   tool, so its call's (the `tool_use` with its id, remembered as the
//!   capture is read: [`ReadState::tool_of`]) is its tool
//!   ([`crate::record::Event::paired_tool`]); a response's model is
//!   `message.model` (`<synthetic>` lines are not model output:
//!   `transcript:synthetic`); usage maps `input_tokens` → `input_tokens`,
//!   `output_tokens`, `cache_read_input_tokens` → `cache_read_tokens`, and
//!   `cache_creation_input_tokens` (the 5-minute and 1-hour writes together)
//!   → `cache_write_tokens` (of which `cache_creation.ephemeral_1h_input_tokens`
//!   are priced at the 1-hour rate); the line's `costUSD` (written by older
//!   Claude Code versions) is the writer's `cost_usd`.
//!   Claude's `input_tokens` excludes cache reads (Amplifier's includes them).
//!   A message is identified by `message.id` and `requestId`
//!   ([`Dialect::message_key`]): token counts keep one copy per message.

use bstr::ByteSlice;
use std::borrow::Cow;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::{str_at, CallKey, Dialect, Format, Help, Layout, LineKind, Profile, ReadState, Section, Usage};
use super::{Cx, Detail};
use crate::diag::Diag;
use crate::files::{expand_tilde, read_dir_sorted};
use crate::json::{Kind, Raw, Record};
use crate::session::{unsafe_name, Capture, SessionRecord};

mod layout;
mod message;
mod sessions;
mod status_line;
mod vocabulary;

use message::*;
use sessions::{first_line_is_transcript, is_transcript_name, projects_dir, session_of, transcripts_in};
pub use sessions::{peek, Peek};
pub use vocabulary::VOCABULARY;

/// Env var naming the Claude config directories (comma-separated).
pub const ROOT_ENV: &str = "CLAUDE_CONFIG_DIR";

/// The Claude Code transcripts writer.
pub struct ClaudeTranscript;

/// The claude-transcript format (see the module docs).
pub static FORMAT: Format = Format {
    name: "claude-transcript",
    product: "Claude Code",
    root_env: &[ROOT_ENV],
    places: &["~/.claude/projects", "~/.config/claude/projects"],
    help: Help {
        roots: Some(
            "each directory of $CLAUDE_CONFIG_DIR (comma-separated), else ~/.config/claude
    and ~/.claude when they hold a projects folder (Claude Code transcripts)",
        ),
        agg: Some(Section {
            title: "CLAUDE CODE TRANSCRIPTS",
            body: "  --sessions: calls are distinct tool_use ids, messages are prompts +
  responses (distinct messages), avg_response_ms runs from a prompt to the
  first reply, subagents counts the session's subagent transcripts; a
  response written on several lines counts once. A resumed session's copied
  history (its events, turns, messages, tool calls, tokens, response times and
  start) counts only in the session it was copied from: of the sessions
  holding a copy, the one that ends first.
  --tokens: one response per message.id + requestId across the whole run (and
  across --partial shards): each figure the largest among its copies,
  day/model/session of the session ending first among those holding a copy (a
  resumed session's history is its original's), then of the copy with the
  largest total (as ccusage); input_tokens excludes cache reads (Amplifier's
  includes them).",
        }),
        find: Some(Section {
            title: "CLAUDE CODE TRANSCRIPTS",
            body: "  A root with a projects folder (or a folder named projects, or one project
  folder) holds projects/<folder>/<session-id>.jsonl; each is a session, format
  claude-transcript: project/workspace = the folder, working_dir = the first cwd,
  started_at/last_event_at = earliest/latest timestamp of its first and last
  lines, model = the first assistant model, files = its subagent transcripts
  (<session-id>/subagents/agent-*.jsonl, read as part of the session).
  --project also takes a working directory (Claude Code's folder rule: every
  character but letters, digits and - becomes -).",
        }),
        ..Help::NONE
    },
    vocabulary,
    layout: &ClaudeTranscript,
    dialect: &ClaudeTranscript,
    profile: Profile {
        derived: true,
        original_key: Some("transcript"),
        multi_part: true,
        // A resumed session's file starts with the earlier session's lines.
        copies_history: true,
        // A turn's response time runs from the prompt to the first assistant reply.
        reply_ends_turn: true,
        // `"usage"`: a response's usage object (a response line without one
        // carries no token figure).
        usage_bytes: Some(b"\"usage\""),
        // Claude's plans bill in 5-hour windows (`--blocks`, `--statusline`).
        billing_blocks: true,
        // One response, one line per content block, each with its usage.
        repeats: Some("Claude Code transcripts: one per content block, each repeating its usage"),
        // Claude Code runs a statusLine command with its JSON on stdin.
        status_line: Some(status_line::read),
        ..Profile::new("active", "a Claude Code transcript line, not an event")
    },
};

/// The event names it gives for the lines it knows.
fn vocabulary() -> Vec<&'static str> {
    let own = [
        "tool:pre",
        "tool:post",
        "tool:error",
        "llm:content",
        "llm:response",
        "prompt:submit",
        "subagent:prompt",
        "context:compaction",
        "transcript:block",
        "transcript:synthetic",
        "transcript:compact_summary",
        "transcript:meta",
        "transcript:user",
        "transcript:unknown",
        "system",
        "progress",
    ];
    own.into_iter().chain(KNOWN).collect()
}

/// Part index of an assistant line that continues a message already seen.
const CONTENT: u32 = 1;
/// Part index of a line's first content block.
const BLOCKS: u32 = 2;
/// Part index of the subagent response a `progress` line carries, on the
/// first line written for it (a progress line has no content blocks of its own).
const SUBAGENT: u32 = BLOCKS;
/// Part index of the subagent response a `progress` line carries, when that
/// message was written before in the capture.
const SUBAGENT_COPY: u32 = BLOCKS + 1;

/// The names of the line types, system subtypes and progress types the real
/// transcripts hold (formats.md §5).
const KNOWN: [&str; 12] = [
    "system:stop_hook_summary",
    "system:turn_duration",
    "system:api_error",
    "system:local_command",
    "system:informational",
    "progress:hook_progress",
    "progress:bash_progress",
    "progress:agent_progress",
    "transcript:summary",
    "transcript:file-history-snapshot",
    "transcript:queue-operation",
    "transcript:last-prompt",
];

/// The events of the line types Claude Code writes without a `timestamp`
/// (formats.md §5): a session's title (`summary`), the snapshot of the files
/// it backed up (`file-history-snapshot`, whose time is inside the snapshot)
/// and its last prompt (`last-prompt`).
const UNTIMED: [&str; 3] = ["transcript:summary", "transcript:file-history-snapshot", "transcript:last-prompt"];

/// Why a line of a transcript is not one of its events.
const NOT_A_TRANSCRIPT_LINE: &str =
    "not a Claude Code transcript line (needs a string \"type\" or a \"message\" object)";

/// The folder Claude Code names a project after: its working directory with
/// every character other than an ASCII letter, digit or `-` replaced by `-`
/// (`/home/u/my.app` → `-home-u-my-app`).
pub fn project_folder(cwd: &str) -> String {
    cwd.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '-' }).collect()
}

impl Dialect for ClaudeTranscript {
    /// A string `type` with `uuid`, `sessionId` or `message`; or, without a
    /// `type` (as older writers and ccusage's fixtures have it), a `message`
    /// object with a `sessionId`.
    fn claims(&self, rec: &Record<'_>) -> bool {
        let has = |k: &str| rec.get(k).is_some();
        let typed = rec.get("type").is_some_and(|t| t.kind() == Kind::String);
        let message = rec.get("message").is_some_and(|m| m.kind() == Kind::Object);
        (typed && (has("uuid") || has("sessionId") || message)) || (message && has("sessionId"))
    }

    /// A transcript line, or any line with a string `type` (summary and
    /// snapshot lines carry no `uuid` or `sessionId`), that leaves room to be
    /// an event's `data` (`format::fits_as_data`).
    fn accept(&self, rec: &Record<'_>) -> std::result::Result<(), &'static str> {
        super::accept_typed(rec, (&FORMAT, &[]), &["type"], NOT_A_TRANSCRIPT_LINE)
    }

    /// Each assistant line (and each subagent response a `progress` line
    /// carries): whether it repeats a response seen before (its message id
    /// and request id), and the tool of each `tool_use` block, which the
    /// `tool_result` ending the call (a later user line) does not name. Every
    /// such line is observed, also one a tool's pre-check skips, so a line's
    /// events never depend on which lines were asked for (`ci-grep`,
    /// `ci-cat --lines`).
    fn observe(&self, rec: &Record<'_>, state: &mut ReadState) {
        state.repeat = false;
        match line_type(rec).as_deref() {
            Some("assistant") => {
                state.repeat = !first_sight(state, rec.get_in("message", "id"), rec.get("requestId"));
                let Some(content) = rec.get_in("message", "content").filter(|c| c.kind() == Kind::Array) else {
                    return;
                };
                for block in content.items() {
                    if let (CallKey::Id(id), Some(tool)) = (self.call_key(block), self.tool_name(block)) {
                        state.call_started(&id, tool);
                    }
                }
            }
            Some("progress") => {
                if let Some(m) = subagent_message(rec) {
                    state.repeat = !first_sight(state, m.get("message").and_then(|x| x.get("id")), m.get("requestId"));
                }
            }
            _ => {}
        }
    }

    /// Assistant lines and progress lines carrying one (or a `\u` escape,
    /// which could spell one).
    fn observes(&self, raw: &[u8]) -> bool {
        memchr::memmem::find(raw, b"assistant").is_some() || memchr::memmem::find(raw, b"\\u").is_some()
    }

    /// Only a line holding the bytes `"tool_use"` (Claude Code never spells
    /// a block type with `\u` escapes).
    fn starts_calls(&self, raw: &[u8]) -> bool {
        raw.find(b"\"tool_use\"").is_some()
    }

    fn parts(&self, rec: &Record<'_>, state: &mut ReadState, out: &mut Vec<u32>) {
        let kind = line_type(rec);
        let content = rec.get_in("message", "content").filter(|c| c.kind() == Kind::Array);
        match kind.as_deref() {
            Some("assistant") if state.repeat => out.push(CONTENT),
            // The line's own event, and the subagent response it carries.
            Some("progress") => {
                out.push(0);
                if subagent_message(rec).is_some() {
                    out.push(if state.repeat { SUBAGENT_COPY } else { SUBAGENT });
                }
                return;
            }
            Some("user") => {
                // Only tool results: no event of its own.
                let only_results = content.is_some_and(|c| {
                    let mut items = c.items().peekable();
                    items.peek().is_some() && items.all(|b| block_type(b).as_deref() == Some("tool_result"))
                });
                if !only_results {
                    out.push(0);
                }
            }
            _ => out.push(0),
        }
        if let Some(c) = content {
            for (k, block) in c.items().enumerate() {
                if matches!(block_type(block).as_deref(), Some("tool_use" | "tool_result")) {
                    out.push(BLOCKS + k as u32);
                }
            }
        }
    }

    fn original<'a>(&self, rec: &Record<'a>, _part: u32) -> Option<Raw<'a>> {
        rec.get("type")
    }

    fn name_raw<'a>(&self, _rec: &Record<'a>, _part: u32) -> Option<Raw<'a>> {
        None
    }

    fn name<'a>(&self, rec: &Record<'a>, part: u32, _state: &'a ReadState) -> Cow<'a, str> {
        if part >= BLOCKS && is_progress(rec) {
            let model = subagent_message(rec).and_then(|m| m.get("message")?.get("model"));
            let synthetic = model.and_then(|m| m.as_str()).as_deref() == Some("<synthetic>");
            return Cow::Borrowed(match part {
                _ if synthetic => "transcript:synthetic",
                SUBAGENT => "llm:response",
                _ => "llm:content",
            });
        }
        if part >= BLOCKS {
            let block = block_at(rec, part);
            return Cow::Borrowed(match block.and_then(block_type).as_deref() {
                Some("tool_use") => "tool:pre",
                Some("tool_result")
                    if block.and_then(|b| b.get("is_error")).and_then(|e| e.as_bool()) == Some(true) =>
                {
                    "tool:error"
                }
                Some("tool_result") => "tool:post",
                _ => "transcript:block",
            });
        }
        let flag = |k: &str| rec.get(k).and_then(|v| v.as_bool()) == Some(true);
        let prompt = || has_prompt_text(rec.get_in("message", "content"));
        match line_type(rec).as_deref() {
            Some("assistant")
                if rec.get_in("message", "model").and_then(|m| m.as_str()).as_deref() == Some("<synthetic>") =>
            {
                Cow::Borrowed("transcript:synthetic")
            }
            Some("assistant") if part == CONTENT => Cow::Borrowed("llm:content"),
            Some("assistant") => Cow::Borrowed("llm:response"),
            Some("user") if flag("isCompactSummary") => Cow::Borrowed("transcript:compact_summary"),
            Some("user") if flag("isMeta") => Cow::Borrowed("transcript:meta"),
            Some("user") if flag("isSidechain") && prompt() => Cow::Borrowed("subagent:prompt"),
            Some("user") if prompt() => Cow::Borrowed("prompt:submit"),
            Some("user") => Cow::Borrowed("transcript:user"),
            Some("system") => match rec.get_str("subtype") {
                Some(s) if s == "compact_boundary" => Cow::Borrowed("context:compaction"),
                Some(s) => super::qualified(&KNOWN, "system:", &s),
                None => Cow::Borrowed("system"),
            },
            Some("progress") => match rec.get("data").and_then(|d| str_at(d, "type")) {
                Some(t) => super::qualified(&KNOWN, "progress:", &t),
                None => Cow::Borrowed("progress"),
            },
            Some(t) => super::qualified(&KNOWN, "transcript:", t),
            None => Cow::Borrowed("transcript:unknown"),
        }
    }

    fn data<'a>(&self, rec: &Record<'a>, part: u32, _state: &'a ReadState) -> Option<Raw<'a>> {
        if part >= BLOCKS && is_progress(rec) {
            return subagent_message(rec);
        }
        if part >= BLOCKS {
            return block_at(rec, part);
        }
        Some(Raw(rec.line().trim_ascii()))
    }

    /// Claude Code's folder name of the line's `cwd`.
    fn workspace<'a>(&self, rec: &Record<'a>) -> Option<Cow<'a, str>> {
        rec.get_str("cwd").map(|c| Cow::Owned(project_folder(&c)))
    }

    fn timestamp<'a>(&self, rec: &Record<'a>) -> Option<Raw<'a>> {
        rec.get("timestamp")
    }

    /// The line types Claude Code writes without a `timestamp`: `summary`,
    /// `file-history-snapshot`, `last-prompt`.
    fn untimed_by_design(&self, name: &str) -> bool {
        UNTIMED.contains(&name)
    }

    /// A `tool_use` block's `name`.
    fn tool_name<'a>(&self, data: Raw<'a>) -> Option<Raw<'a>> {
        (block_type(data).as_deref() == Some("tool_use")).then(|| data.get("name")).flatten()
    }

    /// The `tool_use` block's `id`, which its `tool_result` names as `tool_use_id`.
    fn call_key<'a>(&self, data: Raw<'a>) -> CallKey<'a> {
        let id = match block_type(data).as_deref() {
            Some("tool_use") => str_at(data, "id"),
            Some("tool_result") => str_at(data, "tool_use_id"),
            _ => None,
        };
        id.map_or(CallKey::Alone, CallKey::Id)
    }

    /// `tool_result.is_error`.
    fn failed(&self, data: Raw<'_>) -> bool {
        data.get("is_error").and_then(|e| e.as_bool()) == Some(true)
    }

    /// `message.model` (not `<synthetic>`).
    fn model<'a>(&self, data: Raw<'a>) -> Option<Raw<'a>> {
        let m = data.get("message")?.get("model")?;
        (m.as_str().as_deref() != Some("<synthetic>")).then_some(m)
    }

    /// `message.usage` in the toolkit's names (see the module docs).
    fn tokens<'a>(&self, data: Raw<'a>) -> [Option<Raw<'a>>; 5] {
        let mut t = data.get("message").and_then(|m| m.get("usage")).map_or([None; 5], usage_tokens);
        t[Usage::Cost as usize] = data.get("costUSD");
        t
    }

    /// A block event: as its `data` (the block) says, so that a piped block
    /// record gives the same answers (a real block carries no usage).
    fn line_tokens<'a>(&self, rec: &Record<'a>, part: u32, data: Option<Raw<'a>>) -> [Option<Raw<'a>>; 5] {
        if part >= BLOCKS {
            return data.map_or([None; 5], |d| self.tokens(d));
        }
        let mut t = rec.get_in("message", "usage").map_or([None; 5], usage_tokens);
        t[Usage::Cost as usize] = rec.get("costUSD");
        t
    }

    /// `message.usage.cache_creation.ephemeral_1h_input_tokens`.
    fn cache_write_1h<'a>(&self, data: Raw<'a>) -> Option<Raw<'a>> {
        data.get("message")?.get("usage").and_then(write_1h)
    }

    fn line_cache_write_1h<'a>(&self, rec: &Record<'a>, part: u32, data: Option<Raw<'a>>) -> Option<Raw<'a>> {
        if part >= BLOCKS {
            return self.cache_write_1h(data?);
        }
        rec.get_in("message", "usage").and_then(write_1h)
    }

    fn line_model<'a>(&self, rec: &Record<'a>, part: u32, data: Option<Raw<'a>>) -> Option<Raw<'a>> {
        if part >= BLOCKS {
            return self.model(data?);
        }
        let m = rec.get_in("message", "model")?;
        (m.as_str().as_deref() != Some("<synthetic>")).then_some(m)
    }

    fn line_message_key(&self, rec: &Record<'_>, part: u32, data: Option<Raw<'_>>, out: &mut String) -> bool {
        if part >= BLOCKS {
            return data.is_some_and(|d| self.message_key(d, out));
        }
        message_key_of(rec.get_in("message", "id"), rec.get("requestId"), out)
    }

    fn message_key(&self, data: Raw<'_>, out: &mut String) -> bool {
        message_key_of(data.get("message").and_then(|m| m.get("id")), data.get("requestId"), out)
    }

    /// A `tool_use` block's `input.file_path` (`notebook_path` for notebooks).
    fn file_path<'a>(&self, data: Raw<'a>) -> Option<Cow<'a, str>> {
        let input = data.get("input")?;
        str_at(input, "file_path").or_else(|| str_at(input, "notebook_path"))
    }

    fn session_id<'a>(&self, data: Raw<'a>) -> Option<Cow<'a, str>> {
        str_at(data, "sessionId")
    }

    /// A line's `uuid` (kept in the copies); a content block's tool id
    /// (`tool_use` `id`, `tool_result` `tool_use_id`).
    fn copy_key<'a>(&self, data: Raw<'a>) -> Option<Cow<'a, str>> {
        str_at(data, "uuid").or_else(|| str_at(data, "id")).or_else(|| str_at(data, "tool_use_id"))
    }
}

#[cfg(test)]
mod tests;
