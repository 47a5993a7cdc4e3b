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
//!   ([`Adapter::message_key`]): token counts keep one copy per message.

use bstr::ByteSlice;
use std::borrow::Cow;
use std::collections::HashSet;
use std::fs;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use super::{str_at, Adapter, CallKey, LineKind, ReadState, Usage};
use crate::diag::Diag;
use crate::discover::Detail;
use crate::files::{expand_tilde, read_dir_sorted, NOT_UTF8};
use crate::json::{Index, Kind, Raw, Record};
use crate::session::{unsafe_id_message, unsafe_name, Capture, SessionRecord, Writer};
use crate::time::{self, Timestamp};

/// Env var naming the Claude config directories (comma-separated).
pub const ROOT_ENV: &str = "CLAUDE_CONFIG_DIR";

/// The Claude Code transcripts writer.
pub struct ClaudeTranscript;

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

/// The `projects` folder of a root, when it has one.
fn projects_dir(root: &Path) -> Option<PathBuf> {
    let p = root.join("projects");
    if p.is_dir() {
        return Some(p);
    }
    (crate::files::name_above(root, 0).is_some_and(|n| n == "projects") && root.is_dir()).then(|| root.to_path_buf())
}

impl Adapter for ClaudeTranscript {
    fn writer(&self) -> Writer {
        Writer::ClaudeTranscript
    }

    /// `$CLAUDE_CONFIG_DIR` (comma-separated, each trimmed and `~`-expanded;
    /// a missing one is an error like any root), else `~/.config/claude` and
    /// `~/.claude` when they hold a `projects` folder.
    fn default_roots(&self, _diag: &Diag) -> Vec<PathBuf> {
        if let Ok(v) = std::env::var(ROOT_ENV) {
            let list: Vec<PathBuf> = v.split(',').map(str::trim).filter(|s| !s.is_empty()).map(expand_tilde).collect();
            if !list.is_empty() {
                return list;
            }
        }
        ["~/.config/claude", "~/.claude"]
            .into_iter()
            .map(expand_tilde)
            .filter(|r| r.join("projects").is_dir())
            .collect()
    }

    /// The sessions of every project folder of the root's `projects`; a
    /// project folder itself given as the root: its sessions.
    fn discover(&self, root: &Path, detail: Detail, diag: &Diag) -> crate::error::Result<Vec<SessionRecord>> {
        let Some(projects) = projects_dir(root) else {
            let files = transcripts_in(&read_dir_sorted(root).unwrap_or_default());
            let sessions = files.iter().filter(|(f, _)| first_line_is_transcript(f));
            return Ok(sessions.filter_map(|(f, sub)| session_of(f, detail, Some(diag), *sub)).collect());
        };
        let mut files = vec![];
        for folder in read_dir_sorted(&projects).unwrap_or_default() {
            if !folder.is_dir() {
                continue;
            }
            files.extend(transcripts_in(&read_dir_sorted(&folder).unwrap_or_default()));
        }
        Ok(crate::files::in_parallel(&files, |(f, sub)| session_of(f, detail, Some(diag), *sub), diag))
    }

    /// A project folder given as an argument is not one session: it is read
    /// as a root would be (see [`crate::discover::session_in`]); nothing here.
    fn session_in(&self, _dir: &Path, _diag: &Diag) -> Option<Option<SessionRecord>> {
        None
    }

    /// A `<session-id>.jsonl` whose lines are transcript lines, anywhere: that
    /// session (its subagents too, when they sit beside it).
    fn file_capture(&self, file: &Path, diag: &Diag) -> Option<Capture> {
        if !is_transcript_name(file) || !first_line_is_transcript(file) {
            return None;
        }
        let rec = session_of(file, Detail::Full, Some(diag), true)?;
        Some(super::capture(rec))
    }

    fn record_of_file(&self, file: &Path, _session: &str) -> Option<SessionRecord> {
        if !is_transcript_name(file) {
            return None;
        }
        // A subagent file: its session's main file.
        let main = match file.parent() {
            Some(sub) if sub.file_name().is_some_and(|n| n == "subagents") => {
                let dir = sub.parent()?;
                dir.parent()?.join(format!("{}.jsonl", dir.file_name()?.to_str()?))
            }
            _ => file.to_path_buf(),
        };
        // Any `.jsonl` could be named: only a transcript is one of ours.
        if !first_line_is_transcript(&main) {
            return None;
        }
        session_of(&main, Detail::Full, None, true)
    }

    fn fresh(&self, root: &Path, seen: &mut HashSet<PathBuf>, diag: &Diag) -> Vec<SessionRecord> {
        let Some(projects) = projects_dir(root) else { return vec![] };
        let mut found = vec![];
        for folder in read_dir_sorted(&projects).unwrap_or_default() {
            for (file, sub) in transcripts_in(&read_dir_sorted(&folder).unwrap_or_default()) {
                if !seen.contains(&file) {
                    found.extend(session_of(&file, Detail::Full, Some(diag), sub));
                    seen.insert(file);
                }
            }
        }
        found
    }

    /// `…/projects/<folder>/<id>.jsonl` and its `<id>/subagents/agent-*.jsonl`.
    fn project_of_path(&self, path: &str) -> Option<String> {
        let parts: Vec<&str> = path.split('/').collect();
        match parts.as_slice() {
            [.., "projects", folder, _, "subagents", file] | [.., "projects", folder, file]
                if file.ends_with(".jsonl") =>
            {
                Some((*folder).to_owned())
            }
            _ => None,
        }
    }

    /// The main file identifies a session.
    fn session_dir(&self, rec: &SessionRecord) -> PathBuf {
        PathBuf::from(&rec.path)
    }

    /// Claude Code's folder rule ([`project_folder`]).
    fn project_folder(&self, dir: &str) -> String {
        project_folder(dir)
    }

    /// Transcripts have no status.
    fn live_status(&self) -> &'static str {
        "active"
    }

    /// Non-blank lines of the session's files.
    fn event_count(&self, rec: &SessionRecord) -> u64 {
        self.files(rec).iter().map(|f| crate::files::count_lines(f)).sum()
    }

    /// The main file, then each subagent transcript named in `files`.
    fn files(&self, rec: &SessionRecord) -> Vec<PathBuf> {
        let main = PathBuf::from(&rec.path);
        let mut files = vec![main.clone()];
        if let (Some(names), Some(stem)) = (&rec.files, main.file_stem()) {
            let sub = main.with_file_name(stem).join("subagents");
            files.extend(
                names.iter().filter(|n| !unsafe_name(n) && n.ends_with(".jsonl")).map(|n| sub.join(n.as_str())),
            );
        }
        files
    }

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
        super::fits_as_data(rec)?;
        match LineKind::of(rec) {
            LineKind::Writer(Writer::ClaudeTranscript) => Ok(()),
            LineKind::Unknown | LineKind::Session if rec.get("type").is_some_and(|t| t.kind() == Kind::String) => {
                Ok(())
            }
            _ => Err(NOT_A_TRANSCRIPT_LINE),
        }
    }

    fn foreign_line(&self) -> &'static str {
        "a Claude Code transcript line, not an event"
    }

    fn derived(&self) -> bool {
        true
    }

    fn multi_part(&self) -> bool {
        true
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

    fn original_key(&self) -> Option<&'static str> {
        Some("transcript")
    }

    fn original<'a>(&self, rec: &Record<'a>, _part: u32) -> Option<Raw<'a>> {
        rec.get("type")
    }

    fn name_raw<'a>(&self, _rec: &Record<'a>, _part: u32) -> Option<Raw<'a>> {
        None
    }

    fn event_names(&self) -> Vec<&'static str> {
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

    /// `"usage"`: a response's usage object (a response line without one
    /// carries no token figure).
    fn usage_bytes(&self) -> Option<&'static [u8]> {
        Some(b"\"usage\"")
    }

    /// The subagent transcripts beside the session (`files`).
    fn subagents(&self, rec: &SessionRecord) -> u64 {
        rec.files.as_ref().map_or(0, |f| f.len() as u64)
    }

    /// A resumed session's file starts with the earlier session's lines.
    fn copies_history(&self) -> bool {
        true
    }

    /// A line's `uuid` (kept in the copies); a content block's tool id
    /// (`tool_use` `id`, `tool_result` `tool_use_id`).
    fn copy_key<'a>(&self, data: Raw<'a>) -> Option<Cow<'a, str>> {
        str_at(data, "uuid").or_else(|| str_at(data, "id")).or_else(|| str_at(data, "tool_use_id"))
    }

    /// A turn's response time runs from the prompt to the first assistant reply.
    fn reply_ends_turn(&self) -> bool {
        true
    }
}

/// A message's `usage` in the toolkit's names, one pass over it.
fn usage_tokens(usage: Raw<'_>) -> [Option<Raw<'_>>; 5] {
    let mut out = [None; 5];
    for (key, v) in usage.members() {
        const KEYS: [&str; 4] =
            ["input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"];
        if let Some(slot) = KEYS.iter().position(|k| crate::json::key_eq(key, k)) {
            out[slot] = Some(v);
        }
    }
    out
}

/// A usage object's `cache_creation.ephemeral_1h_input_tokens`.
fn write_1h(usage: Raw<'_>) -> Option<Raw<'_>> {
    usage.get("cache_creation")?.get("ephemeral_1h_input_tokens")
}

/// A line's `type`, else its message's `role`.
fn line_type<'a>(rec: &Record<'a>) -> Option<Cow<'a, str>> {
    rec.get_str("type").or_else(|| rec.get_in("message", "role").and_then(|r| r.as_str()))
}

/// Whether the message `id` (a string) + `request` is seen for the first
/// time in the capture (a message without an id always is).
fn first_sight(state: &mut ReadState, id: Option<Raw<'_>>, request: Option<Raw<'_>>) -> bool {
    match id.filter(|i| i.kind() == Kind::String) {
        Some(id) => state.first_sight(&[id.bytes(), request.map_or(&b""[..], |r| r.bytes())]),
        None => true,
    }
}

/// Whether the line is a `progress` line.
fn is_progress(rec: &Record<'_>) -> bool {
    line_type(rec).as_deref() == Some("progress")
}

/// The subagent response a `progress` line carries (Claude Code 2.1's
/// `agent_progress`): `data.message` when it is an assistant line with a
/// `message` object (`{type, message: {id, model, content, usage}, requestId,
/// uuid, timestamp}`, the shape of an assistant line of the subagent's own
/// transcript).
fn subagent_message<'a>(rec: &Record<'a>) -> Option<Raw<'a>> {
    let m = rec.get("data")?.get("message").filter(|m| m.kind() == Kind::Object)?;
    let assistant = block_type(m).as_deref() == Some("assistant");
    (assistant && m.get("message").is_some_and(|x| x.kind() == Kind::Object)).then_some(m)
}

/// `message.id` + `requestId` (or the id alone without a request id), into `out`.
fn message_key_of(id: Option<Raw<'_>>, request: Option<Raw<'_>>, out: &mut String) -> bool {
    out.clear();
    let Some(id) = id.and_then(|i| i.as_str()) else { return false };
    out.push_str(&id);
    if let Some(r) = request.and_then(|r| r.as_str()) {
        out.push('\u{0}');
        out.push_str(&r);
    }
    true
}

/// A content block's `type`.
fn block_type<'a>(block: Raw<'a>) -> Option<Cow<'a, str>> {
    str_at(block, "type")
}

/// The content block of a block part.
fn block_at<'a>(rec: &Record<'a>, part: u32) -> Option<Raw<'a>> {
    let content = rec.get_in("message", "content")?;
    content.items().nth((part - BLOCKS) as usize)
}

/// Whether a user message holds prompt text: string content, or a text
/// (or image) block beside no tool result.
fn has_prompt_text(content: Option<Raw<'_>>) -> bool {
    let Some(content) = content else { return false };
    match content.kind() {
        Kind::String => true,
        Kind::Array => content.items().any(|b| matches!(block_type(b).as_deref(), Some("text" | "image"))),
        _ => false,
    }
}

/// `<something>.jsonl` (what it is, a regular file or a FIFO, device or
/// dangling link to report, is checked when it is read: [`session_of`]).
fn is_transcript_name(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "jsonl")
}

/// Whether `file` reads as a transcript: among its first lines (up to 20,
/// starting within 1 MiB) one is a transcript line and none is another writer's or an
/// event record (a real transcript may start with `summary` lines, which
/// carry only `type`, `summary` and `leafUuid`).
fn first_line_is_transcript(file: &Path) -> bool {
    let mut found = false;
    super::head_records(file, 20, 1 << 20, |rec| match rec.map(LineKind::of) {
        Some(LineKind::Writer(Writer::ClaudeTranscript)) => {
            found = true;
            false
        }
        Some(LineKind::Unknown) => rec.is_some_and(|r| r.get("type").is_some_and(|t| t.kind() == Kind::String)),
        _ => false,
    });
    found
}

/// The keys and strings the writer's rules read (and a few values), for
/// tests and fuzz targets that build transcript lines from them.
#[doc(hidden)]
pub const VOCABULARY: &[&str] = &[
    "type",
    "message",
    "content",
    "id",
    "name",
    "input",
    "tool_use",
    "tool_result",
    "tool_use_id",
    "is_error",
    "usage",
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
    "cache_creation",
    "ephemeral_1h_input_tokens",
    "costUSD",
    "model",
    "<synthetic>",
    "claude-x",
    "assistant",
    "user",
    "system",
    "progress",
    "agent_progress",
    "summary",
    "file-history-snapshot",
    "last-prompt",
    "subtype",
    "compact_boundary",
    "turn_duration",
    "requestId",
    "sessionId",
    "uuid",
    "isMeta",
    "isSidechain",
    "isCompactSummary",
    "text",
    "image",
    "data",
    "timestamp",
    "2026-03-01T00:00:00.000Z",
    "2026-03-01T00:00:01+01:00",
    "cwd",
    "/home/u/my.app",
    "file_path",
    "notebook_path",
    "role",
    "m1",
    "r1",
    "a1",
    "Read",
    "\\u0000",
    "ci",
    "event",
    "transcript",
    "workspace",
];

/// The most of a transcript's head and tail discovery reads.
const PEEK: u64 = 1024 * 1024;

/// The session record of a transcript file: id = the file stem, project = its
/// folder, `working_dir` = the first `cwd`, `started_at`/`last_event_at` =
/// the first and last timestamps (read from the file's first and last lines,
/// [`peek`]), `model` = the first assistant model, `files` = its subagent
/// transcripts' names, looked for only when `subagents` (see
/// [`transcripts_in`]). [`Detail::Reading`] leaves out what [`peek`] reads.
fn session_of(file: &Path, detail: Detail, diag: Option<&Diag>, subagents: bool) -> Option<SessionRecord> {
    let meta = crate::files::usable_or_reported(file, diag)?;
    let Some(path) = file.to_str() else {
        if let Some(d) = diag {
            d.error(&format_args!("{}: {NOT_UTF8}, skipped", file.display()));
        }
        return None;
    };
    let session = file.file_stem()?.to_string_lossy().into_owned();
    // `..jsonl`: the stem `.` names no session.
    if unsafe_name(&session) {
        if let Some(d) = diag {
            d.error(&format_args!("{}: {}, skipped", file.display(), unsafe_id_message(&session)));
        }
        return None;
    }
    let project = crate::files::name_above(file, 1);
    let mut rec = SessionRecord {
        project: project.clone(),
        workspace: project,
        bytes: meta.len(),
        mtime: meta.modified().ok().and_then(|t| Timestamp::try_from(t).ok()).map(time::format_timestamp),
        ..SessionRecord::new(session.clone(), Writer::ClaudeTranscript, path.to_owned())
    };
    if detail == Detail::Full {
        let read = || peek(file, meta.len());
        let head = crate::cache::peeks::kept(file, &meta, "claude-transcript", read, Peek::encode, Peek::decode);
        rec.working_dir = head.cwd;
        rec.started_at = head.first.map(time::format_timestamp);
        rec.last_event_at = head.last.map(time::format_timestamp);
        rec.model = head.model;
    }
    let sub = file.with_file_name(&session).join("subagents");
    // Subagent transcripts: regular files only (a FIFO, device or dangling
    // link is reported, never opened), with UTF-8 names.
    let mut names: Vec<String> = vec![];
    let listed = if subagents { read_dir_sorted(&sub).unwrap_or_default() } else { vec![] };
    for p in listed.into_iter().filter(|p| is_transcript_name(p)) {
        let Some(m) = crate::files::usable_or_reported(&p, diag) else { continue };
        match p.file_name().and_then(|n| n.to_str()) {
            Some(name) => {
                rec.bytes += m.len();
                names.push(name.to_owned());
            }
            None => {
                if let Some(d) = diag {
                    d.error(&format_args!("{}: {NOT_UTF8}, skipped", p.display()));
                }
            }
        }
    }
    rec.files = Some(names);
    Some(rec)
}

/// The transcripts among `listing` (one folder's entries, sorted as
/// [`read_dir_sorted`] sorts them), each with whether an entry named as its
/// stem sits beside it: `<id>/subagents/` is the only place its subagent
/// transcripts can be, so without one none is looked for (on a history of
/// 28,000 sessions, most without subagents, that is 28,000 directory opens
/// that fail, a quarter of a warm `ci-find`).
fn transcripts_in(listing: &[PathBuf]) -> Vec<(PathBuf, bool)> {
    fn bytes(p: &Path) -> &[u8] {
        p.as_os_str().as_encoded_bytes()
    }
    let transcripts = listing.iter().filter(|f| is_transcript_name(f));
    transcripts
        .map(|f| {
            // The path less its `.jsonl` (is_transcript_name): `<id>`'s.
            let dir = &bytes(f)[..bytes(f).len() - ".jsonl".len()];
            (f.clone(), listing.binary_search_by(|p| bytes(p).cmp(dir)).is_ok())
        })
        .collect()
}

/// What discovery reads off a transcript's head and tail ([`peek`]).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Peek {
    /// The first `cwd`.
    pub cwd: Option<String>,
    /// The first assistant model (not `<synthetic>`).
    pub model: Option<String>,
    /// The earliest timestamp seen.
    pub first: Option<Timestamp>,
    /// The latest timestamp seen.
    pub last: Option<Timestamp>,
}

impl Peek {
    /// Its form in the kept peeks ([`crate::cache::peeks`]): four optional texts.
    pub fn encode(&self) -> Vec<u8> {
        use crate::cache::peeks::put_text;
        let mut out = Vec::new();
        put_text(&mut out, self.cwd.as_deref());
        put_text(&mut out, self.model.as_deref());
        for t in [self.first, self.last] {
            put_text(&mut out, t.map(time::format_timestamp).as_deref());
        }
        out
    }

    /// [`Peek::encode`] read back (`None`: not one).
    pub fn decode(bytes: &[u8]) -> Option<Peek> {
        use crate::cache::peeks::text;
        let mut r = crate::cache::wire::Reader(bytes);
        let (cwd, model) = (text(&mut r)?, text(&mut r)?);
        let mut time = || match text(&mut r)? {
            None => Some(None),
            Some(t) => time::parse_timestamp(&t).map(Some),
        };
        let (first, last) = (time()?, time()?);
        (r.left() == 0).then_some(Peek { cwd, model, first, last })
    }
}

/// Reads a transcript's head and tail (also a hooks session's
/// `_transcript_final.jsonl` copy): the first `cwd` and model from the
/// first lines; the earliest and latest timestamps of the lines read at the
/// head and at the tail. A window
/// starts at 16 KiB and grows to 1 MiB while it holds no complete line
/// with what is looked for (lines can be long).
pub fn peek(file: &Path, len: u64) -> Peek {
    let mut p = Peek::default();
    let Ok(mut f) = fs::File::open(file) else { return p };
    let mut idx = Index::new();
    let mut buf = Vec::new();
    let mut window = 16 * 1024;
    loop {
        buf.clear();
        if f.seek(SeekFrom::Start(0)).is_err() || (&mut f).take(window).read_to_end(&mut buf).is_err() {
            return p;
        }
        let whole = buf.len() as u64 >= len;
        let complete = if whole { &buf[..] } else { &buf[..memchr::memrchr(b'\n', &buf).map_or(0, |i| i + 1)] };
        p = Peek::default();
        for line in complete.split_str("\n") {
            let Ok(rec) = idx.skim(line) else { continue };
            let t = rec.get_str("timestamp").as_deref().and_then(time::parse_timestamp);
            p.first = time::earliest(p.first, t);
            p.last = p.last.max(t);
            if p.cwd.is_none() {
                p.cwd = rec.get_str("cwd").map(Cow::into_owned);
            }
            if p.model.is_none() && line_type(&rec).as_deref() == Some("assistant") {
                p.model = rec
                    .get_in("message", "model")
                    .and_then(|m| m.as_str())
                    .filter(|m| m != "<synthetic>")
                    .map(Cow::into_owned);
            }
        }
        if whole {
            return p;
        }
        if (p.first.is_some() && p.cwd.is_some()) || window >= PEEK {
            break;
        }
        window *= 4;
    }
    // The tail, for the last timestamp.
    let (lo, hi) = super::tail_times(&mut f, len, 16 * 1024, PEEK);
    p.first = time::earliest(p.first, lo);
    p.last = p.last.max(hi);
    p
}

#[cfg(test)]
mod tests;
