//! Qwen Code chat records (formats-next.md §2):
//! `<runtime dir>/projects/<project-folder>/chats/<session-id>.jsonl`.
//!
//! - **Roots**: Qwen Code's runtime directory as Qwen resolves it:
//!   `$QWEN_RUNTIME_DIR`, else `$QWEN_HOME`, else `~/.qwen` (each only when it
//!   holds a `projects` folder when not named by a variable). A root is such
//!   a directory, its `projects` folder, a project folder (holding `chats/`)
//!   or a `chats` folder.
//! - **Sessions**: each `chats/<session-id>.jsonl`; the id is the file stem.
//!   `project` = `workspace` = the project folder (Qwen names it after the
//!   working directory by Claude Code's rule,
//!   [`super::claude_transcript::project_folder`]), `working_dir` = the first
//!   `cwd`, `model` = the first assistant record's `model`, `tags` = `cli:`
//!   the recording version. `parent`: the session a sub-session's
//!   `parent_session` system record names (`systemPayload.parentSessionId`,
//!   written by `create_sub_session`), else the session a fork copied its
//!   records from (`forkedFrom.sessionId`). `started_at` is the first time
//!   of a record the session wrote itself (a fork's copies keep the parent's
//!   times; when the first 64 lines are all copies, the latest of theirs).
//! - **Events**: the record keeps the line's `type` as `qwen`. Part 0 is the
//!   line's own event: a `user` record with text is `prompt:submit`
//!   (`subagent:prompt` on a sidechain), else `qwen:user`; an `assistant`
//!   record with a `usageMetadata` object is `llm:response`, one without is
//!   `llm:content`; a `tool_result` record is `tool:post`, or `tool:error`
//!   when its `toolCallResult.status` is `error` or `cancelled` or its
//!   `functionResponse.response` has an `error`; a `system` record is
//!   `context:compaction` for `chat_compression`, else `qwen:<subtype>`.
//!   Part 1 + k is an assistant record's k-th `message.parts` element when it
//!   is a `functionCall` (`tool:pre`, its `data` that part). A record a fork
//!   copied from its parent (it carries `forkedFrom`) is one event,
//!   `copy:qwen:forked`, whatever it held: its prompt, response, tokens and tool
//!   calls are the parent's, counted in the parent's session.
//! - **Tokens**: `usageMetadata` is Gemini-shaped and its
//!   `promptTokenCount` includes `cachedContentTokenCount`, so in the
//!   toolkit's names `input_tokens` = prompt − cached (uncached input),
//!   `cache_read_tokens` = cached, no cache writes. `output_tokens` =
//!   `candidatesTokenCount`, plus `thoughtsTokenCount` when the record's
//!   `totalTokenCount` shows the thoughts were counted apart (total ≥
//!   prompt + candidates + thoughts, as Gemini backends report); an
//!   OpenAI-compatible backend's candidates already hold its reasoning. The
//!   thoughts are also kept apart as `usage.reasoning_tokens`. The
//!   `llm:response` event's `data` is the record with that `usage` object
//!   put first (a top-level `usage` of the line itself is left out), so
//!   piped records give the same answers as the file.
//! - **Calls** are paired by id: a `functionCall`'s `id`, which the
//!   `tool_result` record names as `toolCallResult.callId` (and its
//!   `functionResponse.id`); the result names its tool (`functionResponse.name`).

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use super::Detail;
use super::{str_at, CallKey, Dialect, FileTools, Format, Help, Layout, LineKind, Profile, ReadState, Section};
use crate::diag::Diag;
use crate::files::read_dir_sorted;
use crate::format::FileSessions;
use crate::json::{Kind, Raw, Record};
use crate::session::SessionRecord;
use crate::time::{self, Timestamp};

/// Env var naming Qwen Code's runtime directory (where `projects/` is).
pub const RUNTIME_ENV: &str = "QWEN_RUNTIME_DIR";
/// Env var naming Qwen Code's home directory, the runtime directory when
/// [`RUNTIME_ENV`] is unset.
pub const HOME_ENV: &str = "QWEN_HOME";

/// The Qwen Code chat records writer.
pub struct QwenCode;

/// The qwen-code format (see the module docs). Listed before Claude Code
/// transcripts: a Qwen record also has the keys a transcript line is told
/// by ([`LineKind::of`]).
pub static FORMAT: Format = Format {
    name: "qwen-code",
    product: "Qwen Code",
    root_env: &[RUNTIME_ENV, HOME_ENV],
    places: &["~/.qwen/projects"],
    help: Help {
        roots: Some(
            "$QWEN_RUNTIME_DIR, else $QWEN_HOME, else ~/.qwen when it holds a projects\n    folder (Qwen Code)",
        ),
        find: Some(Section {
            title: "QWEN CODE",
            body: "  A root, its projects folder, a project folder or its chats folder holds
  projects/<folder>/chats/<session-id>.jsonl; each is a session, format
  qwen-code: project/workspace = the folder, working_dir = the first cwd, model =
  the first assistant model, tags = cli:, parent = a sub-session's
  parent_session record, else the session a fork (/branch) copied its records
  from; started_at = the first record the session wrote itself (a fork's copies
  keep the parent's times).",
        }),
        agg: Some(Section {
            title: "QWEN CODE TOKENS",
            body: "  usageMetadata.promptTokenCount includes the cached tokens: input_tokens =
  promptTokenCount - cachedContentTokenCount, cache_read_tokens = the cached ones
  (ccusage 20.0.24 counts them twice). Records a fork copied (forkedFrom) are
  copy:qwen:forked events and count nothing: each response counts once, in the
  session that made it.
  --sessions files: read_file reads, write_file and edit edit (file_path, else
  absolute_path).",
        }),
        ..Help::NONE
    },
    vocabulary,
    layout: &QwenCode,
    dialect: &QwenCode,
    profile: Profile {
        derived: true,
        multi_part: true,
        original_key: Some("qwen"),
        // `"usageMetadata"`: every response carries it.
        usage_bytes: Some(b"\"usageMetadata\""),
        // A fork's file starts with copies of its parent's records (made
        // `copy:qwen:forked` events, never responses).
        copies_history: true,
        // A turn's response time runs from the prompt to the first response.
        reply_ends_turn: true,
        ..Profile::new("active", "a Qwen Code chat record, not an event")
    },
};

/// The event names it gives for the lines it knows.
fn vocabulary() -> Vec<&'static str> {
    let mapped = ["prompt:submit", "subagent:prompt", "llm:response", "llm:content", "context:compaction"];
    let tools = ["tool:pre", "tool:post", "tool:error", "qwen:unknown"];
    mapped.into_iter().chain(tools).chain(KNOWN).collect()
}

/// Part index of a record's first `message.parts` element.
const PARTS: u32 = 1;

/// Why a line of a chat file is not one of its events.
const NOT_A_CHAT_RECORD: &str = "not a Qwen Code chat record (needs a string \"type\")";

/// The `qwen:` names of the record types and system subtypes Qwen writes most.
const KNOWN: [&str; 14] = [
    "copy:qwen:forked",
    "qwen:user",
    "qwen:system",
    "qwen:ui_telemetry",
    "qwen:slash_command",
    "qwen:at_command",
    "qwen:custom_title",
    "qwen:parent_session",
    "qwen:session_model",
    "qwen:rewind",
    "qwen:notification",
    "qwen:attribution_snapshot",
    "qwen:file_history_snapshot",
    "qwen:turn_result",
];

/// Qwen's own runtime directories and the folders below them that a root
/// may name: the `chats` folders under `root`.
fn chats_dirs(root: &Path) -> Vec<PathBuf> {
    let named = |n: &str| crate::files::name_above(root, 0).is_some_and(|x| x == n);
    let projects = if root.join("projects").is_dir() {
        Some(root.join("projects"))
    } else if named("projects") {
        Some(root.to_path_buf())
    } else {
        None
    };
    match projects {
        Some(p) => read_dir_sorted(&p)
            .unwrap_or_default()
            .into_iter()
            .map(|f| f.join("chats"))
            .filter(|c| c.is_dir())
            .collect(),
        None if root.join("chats").is_dir() => vec![root.join("chats")],
        None if named("chats") && root.is_dir() => vec![root.to_path_buf()],
        None => vec![],
    }
}

/// `<something>.jsonl`.
fn is_chat_name(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "jsonl")
}

/// The chat files under `root`, in path order.
fn root_files(root: &Path) -> Vec<PathBuf> {
    let dirs = chats_dirs(root);
    dirs.iter().flat_map(|d| read_dir_sorted(d).unwrap_or_default()).filter(|f| is_chat_file(f)).collect()
}

/// Whether a file sits in a `projects/<folder>/chats` folder, or its first
/// non-blank line is a Qwen record (another writer's chats folder, Gemini
/// CLI's, is not Qwen's).
fn is_chat_file(file: &Path) -> bool {
    if !is_chat_name(file) {
        return false;
    }
    let above = |up: usize, name: &str| crate::files::name_above(file, up).is_some_and(|n| n == name);
    if above(1, "chats") && above(3, "projects") {
        return true;
    }
    let mut found = false;
    super::head_records(file, 1, 8 << 20, |rec| {
        found = rec.is_some_and(|r| LineKind::of(r) == LineKind::Format(&FORMAT));
        false
    });
    found
}

/// Its sessions are files, one file one session.
const FILES: FileSessions = FileSessions { root_files, is_session: is_chat_file, session_of };

impl Layout for QwenCode {
    /// `$QWEN_RUNTIME_DIR`, else `$QWEN_HOME` (trimmed, `~`-expanded; a
    /// missing one is an error like any root), else `~/.qwen` when it holds
    /// a `projects` folder.
    fn default_roots(&self, _diag: &Diag) -> Vec<PathBuf> {
        match super::env_dir(RUNTIME_ENV) {
            Some(dir) => vec![dir],
            None => super::env_or_place(HOME_ENV, "~/.qwen", |h| h.join("projects").is_dir()),
        }
    }

    fn file_sessions(&self) -> Option<&FileSessions> {
        Some(&FILES)
    }

    /// `…/projects/<folder>/chats/<id>.jsonl`.
    fn project_of_path(&self, path: &str) -> Option<String> {
        let parts: Vec<&str> = path.split('/').collect();
        match parts.as_slice() {
            [.., "projects", folder, "chats", file] if file.ends_with(".jsonl") => Some((*folder).to_owned()),
            _ => None,
        }
    }

    /// The chat file identifies a session.
    fn session_dir(&self, rec: &SessionRecord) -> PathBuf {
        PathBuf::from(&rec.path)
    }

    /// Qwen names project folders by Claude Code's rule.
    fn project_folder(&self, dir: &str) -> String {
        super::claude_transcript::project_folder(dir)
    }

    fn event_count(&self, rec: &SessionRecord) -> u64 {
        crate::files::count_lines(Path::new(&rec.path))
    }

    fn files(&self, rec: &SessionRecord) -> Vec<PathBuf> {
        vec![PathBuf::from(&rec.path)]
    }
}

impl Dialect for QwenCode {
    /// A string `type` with what only Qwen writes: a `message.parts` array
    /// (a Gemini `Content`; Claude Code's messages have `content`), a
    /// `usageMetadata`, `systemPayload` or `toolCallResult` object, or the
    /// type `tool_result`.
    fn claims(&self, rec: &Record<'_>) -> bool {
        let Some(kind) = rec.get_str("type") else { return false };
        let object = |k: &str| rec.get(k).is_some_and(|v| v.kind() == Kind::Object);
        (kind == "tool_result" && rec.get("uuid").is_some())
            || rec.get_in("message", "parts").is_some_and(|p| p.kind() == Kind::Array)
            || object("usageMetadata")
            || object("systemPayload")
            || object("toolCallResult")
    }

    /// A Qwen record, or any line with a string `type` (a record type of a
    /// later version), that leaves room to be an event's `data`.
    fn accept(&self, rec: &Record<'_>) -> std::result::Result<(), &'static str> {
        super::accept_typed(rec, (&FORMAT, &[&super::claude_transcript::FORMAT]), &["type"], NOT_A_CHAT_RECORD)
    }

    fn original<'a>(&self, rec: &Record<'a>, _part: u32) -> Option<Raw<'a>> {
        rec.get("type")
    }

    /// A response's data, made from its own line (module docs).
    fn observe(&self, rec: &Record<'_>, state: &mut ReadState) {
        state.line_data.clear();
        if rec.get_str("type").as_deref() == Some("assistant") && !copied(rec) {
            if let Some(usage) = rec.get("usageMetadata").filter(|u| u.kind() == Kind::Object) {
                response_data(rec, usage, &mut state.line_data);
            }
        }
    }

    /// Only a line naming `usageMetadata` makes data (or a `\u` escape,
    /// which could spell it).
    fn observes(&self, raw: &[u8]) -> bool {
        memchr::memmem::find(raw, b"usageMetadata").is_some() || memchr::memmem::find(raw, b"\\u").is_some()
    }

    fn parts(&self, rec: &Record<'_>, _state: &mut ReadState, out: &mut Vec<u32>) {
        out.push(0);
        if copied(rec) || rec.get_str("type").as_deref() != Some("assistant") {
            return;
        }
        let Some(parts) = rec.get_in("message", "parts") else { return };
        for (k, part) in parts.items().enumerate() {
            if part.get("functionCall").is_some_and(|f| f.kind() == Kind::Object) {
                out.push(PARTS + k as u32);
            }
        }
    }

    fn name_raw<'a>(&self, _rec: &Record<'a>, _part: u32) -> Option<Raw<'a>> {
        None
    }

    fn name<'a>(&self, rec: &Record<'a>, part: u32, state: &'a ReadState) -> Cow<'a, str> {
        if part >= PARTS {
            return Cow::Borrowed("tool:pre");
        }
        if copied(rec) {
            return Cow::Borrowed("copy:qwen:forked");
        }
        let name = match rec.get_str("type").as_deref() {
            Some("user") if has_text(rec) && rec.get("isSidechain").and_then(|s| s.as_bool()) == Some(true) => {
                "subagent:prompt"
            }
            Some("user") if has_text(rec) => "prompt:submit",
            Some("user") => "qwen:user",
            Some("assistant") if !state.line_data.is_empty() => "llm:response",
            Some("assistant") => "llm:content",
            Some("tool_result") if result_failed(Raw(rec.line())) => "tool:error",
            Some("tool_result") => "tool:post",
            Some("system") => {
                return match rec.get_str("subtype") {
                    Some(s) if s == "chat_compression" => Cow::Borrowed("context:compaction"),
                    Some(s) => super::qualified(&KNOWN, "qwen:", &s),
                    None => Cow::Borrowed("qwen:system"),
                }
            }
            Some(t) => return super::qualified(&KNOWN, "qwen:", t),
            None => "qwen:unknown",
        };
        Cow::Borrowed(name)
    }

    /// A `functionCall` part's element; a response's made data; else the line.
    fn data<'a>(&self, rec: &Record<'a>, part: u32, state: &'a ReadState) -> Option<Raw<'a>> {
        if part >= PARTS {
            return rec.get_in("message", "parts")?.items().nth((part - PARTS) as usize);
        }
        if !state.line_data.is_empty() {
            return Some(Raw(&state.line_data));
        }
        Some(Raw(rec.line().trim_ascii()))
    }

    /// Claude Code's folder name of the line's `cwd` (Qwen's rule too).
    fn workspace<'a>(&self, rec: &Record<'a>) -> Option<Cow<'a, str>> {
        rec.get_str("cwd").map(|c| Cow::Owned(super::claude_transcript::project_folder(&c)))
    }

    fn timestamp<'a>(&self, rec: &Record<'a>) -> Option<Raw<'a>> {
        rec.get("timestamp")
    }

    /// A `functionCall` part's `name`; a tool result's `functionResponse.name`.
    fn tool_name<'a>(&self, data: Raw<'a>) -> Option<Raw<'a>> {
        if let Some(call) = data.get("functionCall") {
            return call.get("name");
        }
        function_response(data)?.get("name")
    }

    /// A `functionCall`'s `id`; a tool result's `toolCallResult.callId`, else
    /// its `functionResponse.id`.
    fn call_key<'a>(&self, data: Raw<'a>) -> CallKey<'a> {
        let id = match data.get("functionCall") {
            Some(call) => str_at(call, "id"),
            None => function_response(data).and_then(|f| {
                let result = data.get("toolCallResult").and_then(|r| str_at(r, "callId"));
                result.or_else(|| str_at(f, "id"))
            }),
        };
        id.map_or(CallKey::Alone, CallKey::Id)
    }

    fn failed(&self, data: Raw<'_>) -> bool {
        function_response(data).is_some() && result_failed(data)
    }

    /// The record's `model`.
    fn model<'a>(&self, data: Raw<'a>) -> Option<Raw<'a>> {
        data.get("model").filter(|m| m.kind() == Kind::String)
    }

    /// A response's `usage` (its made data), read as Codex's made data is:
    /// the same keys.
    fn tokens<'a>(&self, data: Raw<'a>) -> [Option<Raw<'a>>; 5] {
        super::codex::Codex.tokens(data)
    }

    /// A response's `uuid`: a record written twice counts once.
    fn message_key(&self, data: Raw<'_>, out: &mut String) -> bool {
        out.clear();
        match data.get("usage").and(str_at(data, "uuid")) {
            Some(id) => {
                out.push_str(&id);
                true
            }
            None => false,
        }
    }

    fn file_tools(&self) -> &'static FileTools {
        &FILE_TOOLS
    }

    /// A `functionCall`'s `args.file_path` (`absolute_path` for `read_file`).
    fn file_path<'a>(&self, data: Raw<'a>) -> Option<Cow<'a, str>> {
        let args = data.get("functionCall")?.get("args")?;
        str_at(args, "file_path").or_else(|| str_at(args, "absolute_path"))
    }

    fn session_id<'a>(&self, data: Raw<'a>) -> Option<Cow<'a, str>> {
        str_at(data, "sessionId")
    }
}

/// Qwen Code's file tools; their `file_path` (older: `absolute_path`) argument.
const FILE_TOOLS: FileTools = FileTools { read: &["read_file"], edit: &["write_file", "edit"] };

/// Whether a record is a fork's copy of its parent's (`forkedFrom` object).
fn copied(rec: &Record<'_>) -> bool {
    rec.get("forkedFrom").is_some_and(|f| f.kind() == Kind::Object)
}

/// Whether a record's `message.parts` hold text.
fn has_text(rec: &Record<'_>) -> bool {
    let Some(parts) = rec.get_in("message", "parts") else { return false };
    parts.items().any(|p| p.get("text").is_some_and(|t| t.kind() == Kind::String))
}

/// A tool result record's first `functionResponse` (not a fork's copy's).
fn function_response(data: Raw<'_>) -> Option<Raw<'_>> {
    if str_at(data, "type").as_deref() != Some("tool_result") || data.get("forkedFrom").is_some() {
        return None;
    }
    data.get("message")?.get("parts")?.items().find_map(|p| p.get("functionResponse"))
}

/// Whether a tool result record says its call failed: status `error` or
/// `cancelled`, or an `error` in its `functionResponse.response`.
fn result_failed(data: Raw<'_>) -> bool {
    let status = data.get("toolCallResult").and_then(|r| str_at(r, "status"));
    if let Some(s) = status {
        return s == "error" || s == "cancelled";
    }
    let error = function_response(data).and_then(|f| f.get("response")).and_then(|r| r.get("error"));
    error.is_some_and(|e| e.kind() != Kind::Null)
}

/// The toolkit's counts of a `usageMetadata` object: uncached input, cache
/// reads, billed output, reasoning (module docs).
pub fn usage_counts(usage: Raw<'_>) -> [u64; 4] {
    let counter = super::counter;
    let prompt = counter(usage, "promptTokenCount");
    let cached = counter(usage, "cachedContentTokenCount").min(prompt);
    let candidates = counter(usage, "candidatesTokenCount");
    let thoughts = counter(usage, "thoughtsTokenCount");
    let total = usage.get("totalTokenCount").and_then(|t| t.as_f64()).unwrap_or(0.0);
    let apart = thoughts > 0 && total >= (prompt + candidates + thoughts) as f64;
    [prompt - cached, cached, candidates + if apart { thoughts } else { 0 }, thoughts]
}

/// Writes a response's data: the record with the toolkit's `usage` first.
fn response_data(rec: &Record<'_>, usage: Raw<'_>, d: &mut Vec<u8>) {
    super::usage_first(rec, usage_counts(usage), d);
}

/// A line's `timestamp`.
fn line_time(rec: &Record<'_>) -> Option<Timestamp> {
    rec.get_str("timestamp").as_deref().and_then(time::parse_timestamp)
}

/// What discovery reads off a chat file's first lines.
#[derive(Debug, Default)]
struct Head {
    cwd: Option<String>,
    model: Option<String>,
    version: Option<String>,
    /// The first time of a record the session wrote.
    own: Option<Timestamp>,
    /// The latest time of a record a fork copied.
    copied: Option<Timestamp>,
    /// The latest time of any record read.
    last: Option<Timestamp>,
    sub_parent: Option<String>,
    fork_parent: Option<String>,
}

/// Reads a chat file's first lines (at most 64, starting within 8 MiB).
fn head(file: &Path) -> Head {
    let mut h = Head::default();
    super::head_records(file, 64, 8 << 20, |rec| {
        let Some(rec) = rec else { return true };
        let s = |k: &str| rec.get_str(k).map(Cow::into_owned).filter(|v| !v.trim().is_empty());
        let t = line_time(rec);
        h.last = h.last.max(t);
        if copied(rec) {
            h.copied = h.copied.max(t);
            if h.fork_parent.is_none() {
                h.fork_parent = rec.get_in("forkedFrom", "sessionId").and_then(|v| v.as_str()).map(Cow::into_owned);
            }
        } else {
            h.own = time::earliest(h.own, t);
        }
        h.cwd = h.cwd.take().or_else(|| s("cwd"));
        h.version = h.version.take().or_else(|| s("version"));
        match rec.get_str("type").as_deref() {
            Some("assistant") if h.model.is_none() => h.model = s("model"),
            // A fork's copy of its parent's own parent link is not the fork's.
            Some("system") if rec.get_str("subtype").as_deref() == Some("parent_session") && !copied(rec) => {
                let p = rec.get_in("systemPayload", "parentSessionId").and_then(|v| v.as_str());
                h.sub_parent = h.sub_parent.take().or(p.map(Cow::into_owned));
            }
            _ => {}
        }
        true
    });
    h
}

/// The session record of a chat file (module docs); [`Detail::Reading`]
/// leaves out its last timestamp (read off its end).
fn session_of(file: &Path, detail: Detail, diag: Option<&Diag>) -> Option<SessionRecord> {
    let (meta, path, session) = super::file_session(file, diag)?;
    let h = head(file);
    let started = h.own.or(h.copied);
    let last = match detail {
        Detail::Full => {
            let tail = crate::format::last_time(file, meta.len());
            tail.max(h.last)
        }
        Detail::Reading => None,
    };
    // In Qwen's layout, the project folder; else the folder of the first `cwd`.
    let in_chats = file.parent().and_then(|p| p.file_name()).is_some_and(|n| n == "chats");
    let project = match in_chats {
        true => crate::files::name_above(file, 2),
        false => h.cwd.as_deref().map(super::claude_transcript::project_folder),
    };
    Some(SessionRecord {
        project: project.clone(),
        workspace: project,
        working_dir: h.cwd,
        started_at: started.map(time::format_timestamp),
        last_event_at: last.map(time::format_timestamp),
        bytes: meta.len(),
        seen: crate::session::Seen::of(&meta),
        mtime: meta.modified().ok().and_then(|t| Timestamp::try_from(t).ok()).map(time::format_timestamp),
        model: h.model,
        parent: h.sub_parent.or(h.fork_parent),
        tags: Some(h.version.map(|v| format!("cli:{v}")).into_iter().collect()),
        ..SessionRecord::new(session, &FORMAT, path.to_owned())
    })
}

#[cfg(test)]
mod tests;
