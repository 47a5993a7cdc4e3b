//! Gemini CLI chat recordings (formats-next.md §1):
//! `~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl`.
//!
//! - **Roots**: Gemini CLI's temp directory as it resolves it:
//!   `$GEMINI_CLI_HOME/.gemini/tmp` (Gemini's home when the variable is
//!   set), else `~/.gemini/tmp` when it exists. A root is a home holding
//!   `.gemini`, a `.gemini` folder, its `tmp` folder, a project folder
//!   (holding `chats/`) or a `chats` folder.
//! - **Sessions**: each `chats/*.jsonl` (the main sessions) and
//!   `chats/<parent-session-id>/*.jsonl` (subagents, whose `parent` is that
//!   folder's name). A legacy `chats/*.json` (before v0.39: one document,
//!   each member of its `messages` a record with its own site,
//!   [`legacy`]) is a session too, unless a `.jsonl` beside it has its
//!   session id (Gemini continued it there, copying its messages): then
//!   they are one session, the `.jsonl`'s, whose files are both, the
//!   `.json` first, so that the `.jsonl`'s copy of each message wins. A
//!   document's keys may be sorted (`messages` first, [`legacy::head`]).
//!   The id is the header line's `sessionId` (else the
//!   file stem). `project` = `workspace` = the project folder: a slug (since
//!   v0.29) or the sha256 of the project path (before). `working_dir` = the
//!   project path, from the folder's `.project_root` marker, else
//!   `.gemini/projects.json` (path → slug), else a subagent header's first
//!   `directories`. `started_at` = the header's `startTime`, `model` = the
//!   first `gemini` message's, `tags` = `kind:` the header's kind.
//! - **A mutation log** ([`super::Order::LastCopy`]): a message is written
//!   again whole each time its tokens, tool calls or results arrive; the
//!   last copy wins and is the one event of the message, at its own place.
//!   `{"$rewindTo": id}` drops that message and every later one from the
//!   events, except responses with tokens (they were billed: still
//!   `llm:response`); `{"$set": {...}}` is a `gemini:set` event, but when it
//!   holds `messages` (a checkpoint) those replace the list, each message an
//!   event with its own site inside the line (the line itself is none: its
//!   text is theirs). A line that does not parse is
//!   reported (a torn last line is held back, as for every writer).
//! - **Events**: the header line is `session:start`; a `user` message with
//!   text is `prompt:submit` (else `gemini:user`); a `gemini` message with a
//!   `tokens` object is `llm:response` (else `llm:content`); `info`,
//!   `error`, `warning` are `gemini:<type>`; `$set` and `$rewindTo` lines are
//!   `gemini:set` and `gemini:rewind`. Each `toolCalls[k]` of a `gemini`
//!   message is a `tool:pre` (part 1 + 2k) and, once it has a `result` or a
//!   final `status` (`success`, `error`, `cancelled`), a `tool:post` or
//!   `tool:error` (part 2 + 2k); their `data` is the call, whose `status`
//!   is the event's status. The record keeps the message's `type` as `gemini`.
//! - **Tokens**: `tokens.cached` is part of `tokens.input` (the prompt), so
//!   `input_tokens` = input − cached + tool (the tool-use prompt, billed as
//!   input), `cache_read_tokens` = cached, `output_tokens` = output +
//!   thoughts (billed at the output rate), also kept apart as
//!   `usage.reasoning_tokens`. The `llm:response` event's `data` is the
//!   message with that `usage` first.

mod legacy;
mod session;

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use super::{counter, str_at, CallKey, Cx, Detail, Dialect, Format, Help, Layout, LineKind, Mutation, Order};
use super::{FileTools, Profile, ReadState, Section};
use crate::diag::Diag;
use crate::format::FileSessions;
use crate::json::{Kind, Raw, Record};
use crate::session::{Capture, SessionRecord};

/// Env var naming Gemini CLI's home (its `.gemini` folder is there).
pub const HOME_ENV: &str = "GEMINI_CLI_HOME";

/// The Gemini CLI chat recordings writer.
pub struct GeminiCli;

/// The gemini-cli format (see the module docs).
pub static FORMAT: Format = Format {
    name: "gemini-cli",
    product: "Gemini CLI",
    root_env: &[HOME_ENV],
    places: &["~/.gemini/tmp"],
    help: Help {
        roots: Some("$GEMINI_CLI_HOME/.gemini/tmp, else ~/.gemini/tmp (Gemini CLI)"),
        find: Some(Section {
            title: "GEMINI CLI",
            body: "  A root (a home, its .gemini or tmp folder, a project folder or its chats
  folder) holds tmp/<project>/chats/*.jsonl, each a session of format gemini-cli,
  and chats/<parent-id>/*.jsonl, subagent sessions whose parent is <parent-id>;
  a legacy chats/*.json (before v0.39) is a session whose messages are records
  (its keys in any order: sorted ones put messages before sessionId), and one
  with a .jsonl of the same session id is that session (read once).
  session = the header's sessionId, project/workspace = the project folder,
  working_dir = its .project_root (else .gemini/projects.json), model = the first
  gemini message's, tags = kind:main or kind:subagent.",
        }),
        cat: Some(Section {
            title: "GEMINI CLI RECORDINGS",
            body: "  A recording is a mutation log, read whole and shown as a finished session:
  a message written again (tokens, tool calls, results) is one event, its last
  copy, at that copy's place; {\"$rewindTo\":ID} drops message ID and later ones,
  but responses with tokens (billed) stay; a $set holding messages (a checkpoint)
  replaces the list: each message is an event of its own inside that line.
  Under --follow each message is printed once, its last copy, when the file
  moves on (another message, a rewind, a checkpoint), has been quiet for
  CI_FOLLOW_QUIET_MS (1000), or the follow ends: the stream is what a finished
  reader prints (a copy written after a quiet spell is printed again; ci-agg
  counts its tokens once). A message without tokens rewound is never printed.",
        }),
        agg: Some(Section {
            title: "GEMINI CLI TOKENS",
            body: "  tokens.cached is part of tokens.input: input_tokens = input - cached + tool,
  cache_read_tokens = cached; output_tokens = output + thoughts (billed as
  output; ccusage 20.0.24 leaves thoughts out of its outputTokens), thoughts also
  as usage.reasoning_tokens. A rewound response was billed and counts.
  --sessions files: read_file reads, write_file and replace edit (file_path,
  else absolute_path).",
        }),
        ..Help::NONE
    },
    vocabulary,
    layout: &GeminiCli,
    dialect: &GeminiCli,
    profile: Profile {
        order: Order::LastCopy,
        derived: true,
        multi_part: true,
        original_key: Some("gemini"),
        // `"tokens"`: every response carries it.
        usage_bytes: Some(b"\"tokens\""),
        // A response is held by its message id and counted once (its copies
        // when read in file order; a legacy `.json` and the `.jsonl` that
        // continued it).
        copies_history: true,
        // A turn's response time runs from the prompt to the first response.
        reply_ends_turn: true,
        ..Profile::new("active", "a Gemini CLI chat record, not an event")
    },
};

/// The event names it gives for the lines it knows.
fn vocabulary() -> Vec<&'static str> {
    let mapped = ["session:start", "prompt:submit", "llm:response", "llm:content", "tool:pre", "tool:post"];
    mapped.into_iter().chain(["tool:error"]).chain(KNOWN).collect()
}

/// The `gemini:` names of the lines Gemini writes besides prompts and responses.
const KNOWN: [&str; 7] =
    ["gemini:user", "gemini:info", "gemini:error", "gemini:warning", "gemini:set", "gemini:rewind", "gemini:unknown"];

/// Part index of a message's first tool call's `tool:pre`.
const CALLS: u32 = 1;

/// Why a line of a chat file is not one of its events.
const NOT_A_CHAT_RECORD: &str =
    "not a Gemini CLI chat record (needs a header, a message with a string \"id\", a $set or a $rewindTo)";

/// A call's statuses that end it.
const FINAL: [&str; 3] = ["success", "error", "cancelled"];

/// Its sessions are files, one file one session.
const FILES: FileSessions = FileSessions {
    root_files: session::root_files,
    is_session: session::is_chat_file,
    session_of: session::session_of,
};

impl Layout for GeminiCli {
    /// `$GEMINI_CLI_HOME/.gemini/tmp` (trimmed, `~`-expanded; a missing one
    /// is an error like any root), else `~/.gemini/tmp` when it exists.
    fn default_roots(&self, _diag: &Diag) -> Vec<PathBuf> {
        match super::env_dir(HOME_ENV) {
            Some(home) => vec![home.join(".gemini").join("tmp")],
            None => super::env_or_place(HOME_ENV, "~/.gemini/tmp", |t| t.is_dir()),
        }
    }

    fn file_sessions(&self) -> Option<&FileSessions> {
        Some(&FILES)
    }

    fn discover(
        &self,
        root: &Path,
        detail: Detail,
        _cx: &Cx<'_>,
        diag: &Diag,
    ) -> crate::error::Result<Vec<SessionRecord>> {
        Ok(session::sessions(&session::root_files(root), detail, diag))
    }

    /// `…/tmp/<project>/chats/<file>` and `…/tmp/<project>/chats/<parent>/<file>`.
    fn project_of_path(&self, path: &str) -> Option<String> {
        let parts: Vec<&str> = path.split('/').collect();
        match parts.as_slice() {
            [.., "tmp", folder, "chats", file] | [.., "tmp", folder, "chats", _, file]
                if session::is_chat_name(Path::new(file)) =>
            {
                Some((*folder).to_owned())
            }
            _ => None,
        }
    }

    /// The chat file identifies a session.
    fn session_dir(&self, rec: &SessionRecord) -> PathBuf {
        PathBuf::from(&rec.path)
    }

    fn event_count(&self, rec: &SessionRecord) -> u64 {
        crate::files::count_lines(Path::new(&rec.path))
    }

    fn files(&self, rec: &SessionRecord) -> Vec<PathBuf> {
        session::files(rec)
    }

    /// A legacy `.json` document's `messages`, each member a record with
    /// its own site; `None` for a `.jsonl` (its lines).
    fn lines_of<'d>(
        &self,
        _cap: &Capture,
        file: &Path,
        display: &str,
        _cx: &Cx<'_>,
        diag: &'d Diag,
    ) -> Option<Box<dyn crate::lines::LineSource + 'd>> {
        if !legacy::is_legacy_name(file) {
            return None;
        }
        let members: Box<dyn crate::lines::LineSource + 'd> = match legacy::Members::open(file, display, diag) {
            Some(m) => Box::new(m),
            None => Box::new(crate::lines::NoLines),
        };
        Some(members)
    }
}

impl Dialect for GeminiCli {
    /// What only Gemini CLI writes: a header (`sessionId` and
    /// `projectHash`), a `$set` object, a `$rewindTo` string, or a message
    /// (a string `id`, a `type` of Gemini's, a `content`, no `message`).
    fn claims(&self, rec: &Record<'_>) -> bool {
        let string = |k: &str| rec.get(k).is_some_and(|v| v.kind() == Kind::String);
        (string("sessionId") && string("projectHash"))
            || rec.get("$set").is_some_and(|v| v.kind() == Kind::Object)
            || string("$rewindTo")
            || (string("id")
                && rec.get("content").is_some()
                && rec.get("message").is_none()
                && rec.get_str("type").is_some_and(|t| ["user", "gemini", "info", "error", "warning"].contains(&&*t)))
    }

    /// A Gemini record, or any object with a string `type` or `id` (a
    /// message type of a later version), that leaves room to be an event's `data`.
    fn accept(&self, rec: &Record<'_>) -> std::result::Result<(), &'static str> {
        super::accept_typed(rec, (&FORMAT, &[]), &["type", "id"], NOT_A_CHAT_RECORD)
    }

    fn original<'a>(&self, rec: &Record<'a>, _part: u32) -> Option<Raw<'a>> {
        rec.get("type")
    }

    /// A response's data, made from its own line (module docs).
    fn observe(&self, rec: &Record<'_>, state: &mut ReadState) {
        state.line_data.clear();
        if let Some(tokens) = response_tokens(rec) {
            super::usage_first(rec, usage_counts(tokens), &mut state.line_data);
        }
    }

    /// Only a line naming `tokens` makes data (or a `\u` escape, which could spell it).
    fn observes(&self, raw: &[u8]) -> bool {
        memchr::memmem::find(raw, b"tokens").is_some() || memchr::memmem::find(raw, b"\\u").is_some()
    }

    fn parts(&self, rec: &Record<'_>, _state: &mut ReadState, out: &mut Vec<u32>) {
        out.push(0);
        if rec.get_str("type").as_deref() != Some("gemini") {
            return;
        }
        let Some(calls) = rec.get("toolCalls") else { return };
        for (k, call) in calls.items().enumerate() {
            if call.kind() != Kind::Object {
                continue;
            }
            let part = CALLS + 2 * k as u32;
            out.push(part);
            let status = str_at(call, "status");
            if call.get("result").is_some_and(|r| !r.is_null()) || status.is_some_and(|s| FINAL.contains(&&*s)) {
                out.push(part + 1);
            }
        }
    }

    fn name_raw<'a>(&self, _rec: &Record<'a>, _part: u32) -> Option<Raw<'a>> {
        None
    }

    fn name<'a>(&self, rec: &Record<'a>, part: u32, state: &'a ReadState) -> Cow<'a, str> {
        if part >= CALLS {
            let ends = (part - CALLS) % 2 == 1;
            let failed = ends && self.data(rec, part, state).is_some_and(call_failed);
            return Cow::Borrowed(if !ends {
                "tool:pre"
            } else if failed {
                "tool:error"
            } else {
                "tool:post"
            });
        }
        let name = match rec.get_str("type").as_deref() {
            Some("user") if has_text(rec) => "prompt:submit",
            Some("user") => "gemini:user",
            Some("gemini") if !state.line_data.is_empty() => "llm:response",
            Some("gemini") => "llm:content",
            Some(t) => return super::qualified(&KNOWN, "gemini:", t),
            None if rec.get("$set").is_some() => "gemini:set",
            None if rec.get("$rewindTo").is_some() => "gemini:rewind",
            None if rec.get("sessionId").is_some() => "session:start",
            None => "gemini:unknown",
        };
        Cow::Borrowed(name)
    }

    /// A tool call's element; a response's made data; else the line.
    fn data<'a>(&self, rec: &Record<'a>, part: u32, state: &'a ReadState) -> Option<Raw<'a>> {
        if part >= CALLS {
            return rec.get("toolCalls")?.items().nth(((part - CALLS) / 2) as usize);
        }
        if !state.line_data.is_empty() {
            return Some(Raw(&state.line_data));
        }
        Some(Raw(rec.line().trim_ascii()))
    }

    fn workspace<'a>(&self, _rec: &Record<'a>) -> Option<Cow<'a, str>> {
        None
    }

    /// A message's `timestamp`; the header's `startTime`.
    fn timestamp<'a>(&self, rec: &Record<'a>) -> Option<Raw<'a>> {
        rec.get("timestamp").or_else(|| rec.get("startTime"))
    }

    /// `$set` and `$rewindTo` lines carry no time.
    fn untimed_by_design(&self, name: &str) -> bool {
        name == "gemini:set" || name == "gemini:rewind"
    }

    /// A tool call's `name`.
    fn tool_name<'a>(&self, data: Raw<'a>) -> Option<Raw<'a>> {
        data.get("name").filter(|_| is_call(data))
    }

    /// A tool call's `id`.
    fn call_key<'a>(&self, data: Raw<'a>) -> CallKey<'a> {
        str_at(data, "id").filter(|_| is_call(data)).map_or(CallKey::Alone, CallKey::Id)
    }

    fn failed(&self, data: Raw<'_>) -> bool {
        is_call(data) && call_failed(data)
    }

    /// A tool call's `status`.
    fn status<'a>(&self, data: Raw<'a>) -> Option<Raw<'a>> {
        data.get("status").filter(|s| s.kind() == Kind::String && is_call(data))
    }

    /// The message's `model`.
    fn model<'a>(&self, data: Raw<'a>) -> Option<Raw<'a>> {
        data.get("model").filter(|m| m.kind() == Kind::String)
    }

    /// A response's `usage` (its made data), read as Codex's made data is.
    fn tokens<'a>(&self, data: Raw<'a>) -> [Option<Raw<'a>>; 5] {
        super::codex::Codex.tokens(data)
    }

    /// [`Dialect::tokens`] of the message itself (part 0) without walking
    /// its data: a response's made data has its one `usage` first; any
    /// other message's data is its line, whose `usage` the index holds.
    fn line_tokens<'a>(&self, rec: &Record<'a>, part: u32, data: Option<Raw<'a>>) -> [Option<Raw<'a>>; 5] {
        let usage = match (part, data) {
            (0, Some(d)) if response_tokens(rec).is_some() => d.members().next().map(|(_, u)| u),
            (0, Some(_)) => rec.get("usage"),
            _ => return data.map_or([None; 5], |d| self.tokens(d)),
        };
        usage.map_or([None; 5], super::codex::usage_tokens)
    }

    /// The message's `model` through the line's index (part 0: its data
    /// holds the line's members, `usage` aside).
    fn line_model<'a>(&self, rec: &Record<'a>, part: u32, data: Option<Raw<'a>>) -> Option<Raw<'a>> {
        match part {
            0 => data.and(rec.get("model")).filter(|m| m.kind() == Kind::String),
            _ => self.model(data?),
        }
    }

    /// [`Dialect::message_key`] of the message itself through the line's
    /// index (a response's made data has a `usage`; any other's is the line).
    fn line_message_key(&self, rec: &Record<'_>, part: u32, data: Option<Raw<'_>>, out: &mut String) -> bool {
        if part != 0 || data.is_none() {
            return data.is_some_and(|d| self.message_key(d, out));
        }
        let usage = response_tokens(rec).is_some() || rec.get("usage").is_some();
        message_key_of(usage, rec.get("id"), rec.get("timestamp"), out)
    }

    /// A response's message `id` and `timestamp`: its copies count once
    /// (read in file order, under `--follow`; a legacy `.json` and the
    /// `.jsonl` that continued it). Ids are UUIDs, unique per session; the
    /// time keeps two sessions' hand-made `g-1` apart.
    fn message_key(&self, data: Raw<'_>, out: &mut String) -> bool {
        message_key_of(data.get("usage").is_some(), data.get("id"), data.get("timestamp"), out)
    }

    fn file_tools(&self) -> &'static FileTools {
        &FILE_TOOLS
    }

    /// A tool call's `args.file_path` (`absolute_path`, `path`).
    fn file_path<'a>(&self, data: Raw<'a>) -> Option<Cow<'a, str>> {
        let args = data.get("args").filter(|_| is_call(data))?;
        ["file_path", "absolute_path", "path"].iter().find_map(|k| str_at(args, k))
    }

    fn session_id<'a>(&self, data: Raw<'a>) -> Option<Cow<'a, str>> {
        str_at(data, "sessionId")
    }

    /// A message supersedes its earlier copies; `$rewindTo` rewinds; a
    /// `$set` with `messages` replaces the list (module docs).
    fn mutation<'a>(&self, rec: &Record<'a>) -> Mutation<'a> {
        if let Some(id) = rec.get_str("$rewindTo") {
            return Mutation::RewindTo(id);
        }
        if let Some(list) = rec.get("$set").and_then(|s| s.get("messages")).filter(|m| m.kind() == Kind::Array) {
            return Mutation::Replace(list);
        }
        match rec.get_str("id") {
            Some(id) if rec.get("type").is_some() => {
                Mutation::Message { id, billed: rec.get("tokens").is_some_and(|t| t.kind() == Kind::Object) }
            }
            _ => Mutation::Record,
        }
    }
}

/// A response's `tokens` object: a `gemini` message's, when an object (its
/// data is then made, [`Dialect::observe`]).
fn response_tokens<'a>(rec: &Record<'a>) -> Option<Raw<'a>> {
    if rec.get_str("type").as_deref() != Some("gemini") {
        return None;
    }
    rec.get("tokens").filter(|u| u.kind() == Kind::Object)
}

/// A response's key (module docs, [`Dialect::message_key`]): its string
/// `id` and `timestamp`, when it has a `usage`.
fn message_key_of(usage: bool, id: Option<Raw<'_>>, timestamp: Option<Raw<'_>>, out: &mut String) -> bool {
    out.clear();
    match id.filter(|_| usage).and_then(|i| i.as_str()) {
        Some(id) => {
            out.push_str(&id);
            out.push(' ');
            out.push_str(&timestamp.and_then(|t| t.as_str()).unwrap_or_default());
            true
        }
        None => false,
    }
}

/// Gemini CLI's file tools; their `file_path` (older: `absolute_path`) argument.
const FILE_TOOLS: FileTools = FileTools { read: &["read_file"], edit: &["write_file", "replace"] };

/// Whether an event's data is a tool call (an `id`, a `name`, no `type`),
/// in one walk of it (a call's result is most of it).
fn is_call(data: Raw<'_>) -> bool {
    let (mut name, mut id) = (false, false);
    for (key, _) in data.members() {
        if crate::json::key_eq(key, "type") {
            return false;
        }
        name |= crate::json::key_eq(key, "name");
        id |= crate::json::key_eq(key, "id");
    }
    name && id
}

/// Whether a tool call failed: status `error` or `cancelled`, or an `error`
/// in a result's `functionResponse.response`.
fn call_failed(call: Raw<'_>) -> bool {
    if let Some(s) = str_at(call, "status") {
        if s == "error" || s == "cancelled" {
            return true;
        }
    }
    let Some(result) = call.get("result") else { return false };
    result.items().filter_map(|r| r.get("functionResponse")?.get("response")?.get("error")).any(|e| !e.is_null())
}

/// Whether a message's `content` holds text (a string, or parts with `text`).
fn has_text(rec: &Record<'_>) -> bool {
    match rec.get("content") {
        Some(c) if c.kind() == Kind::String => c.as_str().is_some_and(|t| !t.trim().is_empty()),
        Some(c) => c.items().any(|p| p.get("text").is_some_and(|t| t.kind() == Kind::String)),
        None => false,
    }
}

/// The toolkit's counts of a `tokens` object: uncached input (with the
/// tool-use prompt), cache reads, billed output, reasoning (module docs).
pub fn usage_counts(tokens: Raw<'_>) -> [u64; 4] {
    let input = counter(tokens, "input");
    let cached = counter(tokens, "cached").min(input);
    let thoughts = counter(tokens, "thoughts");
    let output = counter(tokens, "output").saturating_add(thoughts);
    [(input - cached).saturating_add(counter(tokens, "tool")), cached, output, thoughts]
}

#[cfg(test)]
mod tests;
