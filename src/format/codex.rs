//! OpenAI Codex CLI rollouts (formats.md §6):
//! `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl` and
//! `$CODEX_HOME/archived_sessions/`.
//!
//! - **Roots**: `$CODEX_HOME` when set and non-empty, else `~/.codex`, when
//!   it holds `sessions/` or `archived_sessions/`. A root is such a home, a
//!   `sessions` or `archived_sessions` folder, or any folder of rollouts
//!   (searched down through date folders: names made of digits).
//! - **Sessions**: one rollout file each (`rollout-*.jsonl`). The id is
//!   `session_meta.payload.id`, else the UUID that ends the file name. A
//!   session in both `sessions/` and `archived_sessions/` is the `sessions/`
//!   copy (told by the file name's id). `project` = `workspace` = the slug
//!   of the session's `cwd` (the hooks rule, [`crate::session::slug_of`]),
//!   `model` = the first `turn_context` model, `tags` = `originator:`,
//!   `cli:` and `source:` of the session meta. A fork (its first session
//!   meta names `forked_from_id`) has that `parent`, and its `started_at`
//!   is that meta's time (the lines after it are copies of the parent's).
//! - **Events**: one per line; `data` is the line's `payload` (an object: a
//!   line whose payload is not one is a bad line), and the record keeps the
//!   line's `type` as `codex`. `session_meta` → `session:start`;
//!   `event_msg` `user_message` → `prompt:submit`, `task_complete` →
//!   `prompt:complete`, `token_count` → `llm:response` when it counts (see
//!   below), else `codex:token_count`; `response_item` `function_call`,
//!   `custom_tool_call`, `local_shell_call` and `web_search_call` →
//!   `tool:pre`, their outputs → `tool:post` (`tool:error` when the output
//!   reports a non-zero exit code); `compacted` → `context:compaction`; the
//!   rest `codex:<payload type>` (`codex:message`, `codex:reasoning`,
//!   `codex:agent_message`, …) or `codex:<line type>`. A line of a fork's
//!   copy of its parent's history (see Tokens) is `copy:` and that name
//!   ([`super::COPY_PREFIX`]): shown, counted by no answer.
//! - **Tokens**: `token_count.info.total_token_usage` is the session's
//!   running total and is never summed. A `token_count` whose total equals
//!   the previous one's (Codex re-emits it on rate-limit refreshes) counts
//!   nothing; otherwise its `last_token_usage` counts, or without one the
//!   growth of the total since the previous `token_count` (never negative).
//!   A response with no tokens counts nothing. In a fork, the parent's
//!   history comes first, copied, its token counts restamped at the fork's
//!   start (or left at their first times): a `token_count` stamped no later
//!   than the second of the fork's first session meta is a copy, read only
//!   for the running total; the first one stamped later ends the copy.
//!   The model is the one `info`
//!   (or the payload) names, else the last `turn_context`'s. Codex's
//!   `input_tokens` includes `cached_input_tokens` and its `output_tokens`
//!   includes `reasoning_output_tokens`, so in the toolkit's names
//!   `input_tokens` = input − cached (uncached input, as Claude's),
//!   `cache_read_tokens` = cached, `output_tokens` = output (reasoning
//!   included, as billed), no cache writes; nothing is counted twice. The
//!   `llm:response` event's `data` is made for it:
//!   `{"model":…,"usage":{"input_tokens":…,"cache_read_tokens":…,"output_tokens":…,"reasoning_output_tokens":…,"total_tokens":…},"info":…}`,
//!   so piped records give the same answers as the rollout.
//! - **Calls** are paired by `call_id`. An output names no tool: its tool is
//!   its call's, remembered as the rollout is read ([`ReadState::tool_of`],
//!   [`crate::record::Event::paired_tool`]).

use std::borrow::Cow;
use std::collections::HashSet;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use bstr::ByteSlice;

use super::{str_at, CallKey, Dialect, Format, Help, Layout, LineKind, Profile, ReadState, Section};
use super::{Cx, Detail};
use crate::diag::Diag;
use crate::json::{Index, Kind, Raw, Record};
use crate::session::{Capture, SessionRecord};
use crate::time::{self, Timestamp};

mod sessions;
use sessions::{first_line_is_rollout, id_of_name, is_rollout_name, root_files, session_of};

/// Env var naming the Codex home directory.
pub const ROOT_ENV: &str = "CODEX_HOME";

/// The Codex CLI rollouts writer.
pub struct Codex;

/// The codex format (see the module docs).
pub static FORMAT: Format = Format {
    name: "codex",
    product: "Codex",
    root_env: &[ROOT_ENV],
    places: &["~/.codex/sessions"],
    help: Help {
        roots: Some("$CODEX_HOME, else ~/.codex when it holds sessions/ or archived_sessions/ (Codex)"),
        find: Some(Section {
            title: "CODEX ROLLOUTS",
            body: "  sessions/YYYY/MM/DD/rollout-*.jsonl and archived_sessions/ (a session in both:
  the sessions/ copy); format codex: session = session_meta id (else the file
  name's UUID), working_dir = its cwd, project/workspace = the cwd's slug, model =
  the first turn_context model, tags = originator:, cli:, source:.",
        }),
        ..Help::NONE
    },
    vocabulary,
    layout: &Codex,
    dialect: &Codex,
    profile: Profile {
        derived: true,
        original_key: Some("codex"),
        // `"token_count"`: every response is a token count (the other lines are
        // still observed for the model and the running total).
        usage_bytes: Some(b"\"token_count\""),
        ..Profile::new("active", "a Codex rollout line, not an event")
    },
};

/// The event names it gives for the lines it knows.
fn vocabulary() -> Vec<&'static str> {
    let mapped = ["session:start", "context:compaction", "prompt:submit", "prompt:complete", "llm:response"];
    let tools = ["tool:pre", "tool:post", "tool:error", "codex:unknown"];
    mapped.into_iter().chain(tools).chain(KNOWN).collect()
}

/// Why a line of a rollout is not one of its events.
const NOT_A_ROLLOUT_LINE: &str = "not a Codex rollout line (needs a string \"type\" and an object \"payload\")";

/// Line types Codex writes.
const LINE_TYPES: [&str; 5] = ["session_meta", "turn_context", "response_item", "event_msg", "compacted"];

/// The `codex:` names of the line and payload types Codex writes most.
const KNOWN: [&str; 12] = [
    "codex:message",
    "codex:reasoning",
    "codex:agent_message",
    "codex:agent_reasoning",
    "codex:token_count",
    "codex:turn_context",
    "codex:task_started",
    "codex:turn_aborted",
    "codex:exec_command_begin",
    "codex:exec_command_end",
    "codex:patch_apply_begin",
    "codex:patch_apply_end",
];

impl Layout for Codex {
    /// `$CODEX_HOME` (`~`-expanded; a missing one is an error like any
    /// root), else `~/.codex` when it holds `sessions/` or `archived_sessions/`.
    fn default_roots(&self, _diag: &Diag) -> Vec<PathBuf> {
        super::env_or_place(ROOT_ENV, "~/.codex", |h| {
            h.join("sessions").is_dir() || h.join("archived_sessions").is_dir()
        })
    }

    fn discover(
        &self,
        root: &Path,
        detail: Detail,
        _cx: &Cx<'_>,
        diag: &Diag,
    ) -> crate::error::Result<Vec<SessionRecord>> {
        let mut seen = HashSet::new();
        let files: Vec<PathBuf> =
            root_files(root).into_iter().filter(|f| id_of_name(f).is_none_or(|id| seen.insert(id))).collect();
        Ok(crate::files::in_parallel(&files, |f| session_of(f, detail, Some(diag)), diag))
    }

    /// A rollout folder given as an argument is read as a root.
    fn session_in(&self, _dir: &Path, _diag: &Diag) -> Option<Option<SessionRecord>> {
        None
    }

    /// A `rollout-*.jsonl`, or a file whose first line is a Codex line.
    fn file_capture(&self, file: &Path, _cx: &Cx<'_>, diag: &Diag) -> Option<Capture> {
        if !is_rollout_name(file) && !first_line_is_rollout(file) {
            return None;
        }
        Some(super::capture(session_of(file, Detail::Full, Some(diag))?))
    }

    fn record_of_file(&self, file: &Path, _session: &str, _cx: &Cx<'_>) -> Option<SessionRecord> {
        is_rollout_name(file).then(|| session_of(file, Detail::Full, None)).flatten()
    }

    fn fresh(&self, root: &Path, seen: &mut HashSet<PathBuf>, _cx: &Cx<'_>, diag: &Diag) -> Vec<SessionRecord> {
        super::fresh_files(root_files(root), seen, |f| session_of(f, Detail::Full, Some(diag)))
    }

    /// The rollout file identifies a session.
    fn session_dir(&self, rec: &SessionRecord) -> PathBuf {
        PathBuf::from(&rec.path)
    }

    fn event_count(&self, rec: &SessionRecord) -> u64 {
        crate::files::count_lines(Path::new(&rec.path))
    }

    fn files(&self, rec: &SessionRecord) -> Vec<PathBuf> {
        vec![PathBuf::from(&rec.path)]
    }
}

impl Dialect for Codex {
    /// A string `type` Codex writes and an object `payload`.
    fn claims(&self, rec: &Record<'_>) -> bool {
        rec.get("payload").is_some_and(|p| p.kind() == Kind::Object)
            && rec.get_str("type").is_some_and(|t| LINE_TYPES.contains(&t.as_ref()))
    }

    /// A Codex line, or any line with a string `type` and an object
    /// `payload` (a line type of a later version). A payload that is not an
    /// object is a bad line: it would be the event's `data`, and an event
    /// record's `data` is an object (the next tool in a pipe would refuse it).
    fn accept(&self, rec: &Record<'_>) -> std::result::Result<(), &'static str> {
        match LineKind::of(rec) {
            LineKind::Format(f) if f == &FORMAT => Ok(()),
            LineKind::Unknown
                if rec.get("type").is_some_and(|t| t.kind() == Kind::String)
                    && rec.get("payload").is_some_and(|p| p.kind() == Kind::Object) =>
            {
                Ok(())
            }
            _ => Err(NOT_A_ROLLOUT_LINE),
        }
    }

    fn original<'a>(&self, rec: &Record<'a>, _part: u32) -> Option<Raw<'a>> {
        rec.get("type")
    }

    /// The model of a turn context and the running token total.
    fn observe(&self, rec: &Record<'_>, state: &mut ReadState) {
        state.line_data.clear();
        state.repeat = copied(rec, state);
        match rec.get_str("type").as_deref() {
            // A call's tool, which its output (a later line) does not name.
            Some("response_item") => {
                if let Some(p) = rec.get("payload") {
                    if let (CallKey::Id(id), Some(tool)) = (self.call_key(p), self.tool_name(p)) {
                        state.call_started(&id, tool);
                    }
                }
            }
            Some("turn_context") => {
                if let Some(m) =
                    rec.get_in("payload", "model").and_then(|m| m.as_str()).filter(|m| !m.trim().is_empty())
                {
                    state.model = Some(m.trim().to_owned());
                }
            }
            Some("event_msg")
                if rec.get_in("payload", "type").and_then(|t| t.as_str()).as_deref() == Some("token_count") =>
            {
                token_count(rec, state);
            }
            Some("session_meta") if !state.meta_read => {
                state.meta_read = true;
                if forked_from(rec).is_some() {
                    state.copied_until = line_time(rec).map(|t| t.as_second());
                }
            }
            _ => {}
        }
    }

    /// Only lines naming a session meta, a turn context or a token count
    /// change what is kept (or a `\u` escape, which could spell any).
    fn observes(&self, raw: &[u8]) -> bool {
        [&b"turn_context"[..], b"token_count", b"session_meta", b"\\u"].iter().any(|k| raw.find(k).is_some())
    }

    /// A call's line (`function_call`, `custom_tool_call`, …), or a `\u`
    /// escape, which could spell one.
    fn starts_calls(&self, raw: &[u8]) -> bool {
        raw.find(b"_call\"").is_some() || raw.find(b"\\u").is_some()
    }

    fn name_raw<'a>(&self, _rec: &Record<'a>, _part: u32) -> Option<Raw<'a>> {
        None
    }

    /// A fork's copy of its parent's history is `copy:` and the name the
    /// line has (module docs).
    fn name<'a>(&self, rec: &Record<'a>, part: u32, state: &'a ReadState) -> Cow<'a, str> {
        let name = self.own_name(rec, part, state);
        if state.repeat {
            return Cow::Owned(format!("{}{name}", super::COPY_PREFIX));
        }
        name
    }

    /// The payload; a counted `token_count`'s made data (module docs).
    fn data<'a>(&self, rec: &Record<'a>, _part: u32, state: &'a ReadState) -> Option<Raw<'a>> {
        if !state.line_data.is_empty() {
            return Some(Raw(&state.line_data));
        }
        rec.get("payload")
    }

    /// Lines carry no workspace: the session's.
    fn workspace<'a>(&self, _rec: &Record<'a>) -> Option<Cow<'a, str>> {
        None
    }

    fn timestamp<'a>(&self, rec: &Record<'a>) -> Option<Raw<'a>> {
        rec.get("timestamp")
    }

    /// A function or custom tool call's `name`; a local shell or web search
    /// call's type.
    fn tool_name<'a>(&self, data: Raw<'a>) -> Option<Raw<'a>> {
        match str_at(data, "type").as_deref() {
            Some("function_call" | "custom_tool_call") => data.get("name"),
            Some("local_shell_call" | "web_search_call") => data.get("type"),
            _ => None,
        }
    }

    /// `call_id`.
    fn call_key<'a>(&self, data: Raw<'a>) -> CallKey<'a> {
        str_at(data, "call_id").map_or(CallKey::Alone, CallKey::Id)
    }

    /// An output that reports a non-zero exit code: as JSON text
    /// (`{"output":…,"metadata":{"exit_code":N}}`, older versions) or as
    /// plain text starting `Exit code: N`.
    /// Only an output that starts so is decoded (and indexed, never parsed
    /// into a tree): the text form is read off the raw bytes.
    fn failed(&self, data: Raw<'_>) -> bool {
        let Some(out) = data.get("output") else { return false };
        let exit = |code: Option<Raw<'_>>| code.and_then(|c| c.as_f64()).is_some_and(|c| c != 0.0);
        match out.kind() {
            Kind::Object => exit(out.get("metadata").and_then(|m| m.get("exit_code"))),
            Kind::String => {
                let raw = out.str_content().unwrap_or_default();
                if let Some(rest) = raw.strip_prefix(b"Exit code:") {
                    let digits = rest.trim_ascii_start();
                    let end = digits.iter().position(|b| !(b.is_ascii_digit() || *b == b'-')).unwrap_or(digits.len());
                    return std::str::from_utf8(&digits[..end])
                        .ok()
                        .and_then(|c| c.parse::<i64>().ok())
                        .is_some_and(|c| c != 0);
                }
                if !raw.starts_with(b"{") {
                    return false;
                }
                let Some(text) = out.as_str() else { return false };
                let mut idx = Index::new();
                let rec = idx.parse(text.as_bytes());
                rec.is_ok_and(|r| exit(r.get_in("metadata", "exit_code")))
            }
            _ => false,
        }
    }

    /// A response's model (its made data).
    fn model<'a>(&self, data: Raw<'a>) -> Option<Raw<'a>> {
        data.get("model").filter(|m| m.kind() == Kind::String)
    }

    /// A response's usage in the toolkit's names (its made data).
    fn tokens<'a>(&self, data: Raw<'a>) -> [Option<Raw<'a>>; 5] {
        data.get("usage").map_or([None; 5], usage_tokens)
    }

    fn file_path<'a>(&self, _data: Raw<'a>) -> Option<Cow<'a, str>> {
        None
    }

    fn session_id<'a>(&self, _data: Raw<'a>) -> Option<Cow<'a, str>> {
        None
    }
}

/// The figures of a made `usage` object (the toolkit's names:
/// `input_tokens`, `output_tokens`, `cache_read_tokens`), in
/// [`super::Usage::ALL`] order.
pub(crate) fn usage_tokens(usage: Raw<'_>) -> [Option<Raw<'_>>; 5] {
    let mut out = [None; 5];
    for (key, v) in usage.members() {
        const KEYS: [&str; 3] = ["input_tokens", "output_tokens", "cache_read_tokens"];
        if let Some(slot) = KEYS.iter().position(|k| crate::json::key_eq(key, k)) {
            out[slot] = Some(v);
        }
    }
    out
}

impl Codex {
    /// The name of a line's event, a copy or not (module docs).
    fn own_name<'a>(&self, rec: &Record<'a>, _part: u32, state: &'a ReadState) -> Cow<'a, str> {
        let kind = rec.get_str("type");
        let payload_type = rec.get_in("payload", "type").and_then(|t| t.as_str());
        let name = match (kind.as_deref(), payload_type.as_deref()) {
            (Some("session_meta"), _) => "session:start",
            (Some("compacted"), _) => "context:compaction",
            (Some("event_msg"), Some("user_message")) => "prompt:submit",
            (Some("event_msg"), Some("task_complete")) => "prompt:complete",
            (Some("event_msg"), Some("token_count")) if !state.line_data.is_empty() => "llm:response",
            (
                Some("response_item"),
                Some("function_call" | "custom_tool_call" | "local_shell_call" | "web_search_call"),
            ) => "tool:pre",
            (Some("response_item"), Some("function_call_output" | "custom_tool_call_output")) => {
                match rec.get("payload") {
                    Some(p) if self.failed(p) => "tool:error",
                    _ => "tool:post",
                }
            }
            (Some("event_msg" | "response_item"), Some(t)) => return super::qualified(&KNOWN, "codex:", t),
            (Some(t), _) => return super::qualified(&KNOWN, "codex:", t),
            (None, _) => "codex:unknown",
        };
        Cow::Borrowed(name)
    }
}

/// Whether `rec` is a line of a fork's copy of its parent's history: after
/// the fork's first session meta, stamped no later than its second (module
/// docs). Told before the line is observed (the first meta is no copy).
fn copied(rec: &Record<'_>, state: &ReadState) -> bool {
    state.meta_read && state.copied_until.is_some_and(|until| line_time(rec).is_some_and(|t| t.as_second() <= until))
}

/// A usage object's five counters (`input_tokens`, `cached_input_tokens`,
/// `output_tokens`, `reasoning_output_tokens`, `total_tokens`; absent or not
/// a whole number: 0). `None` when it is not an object.
fn counters(usage: Option<Raw<'_>>) -> Option<[u64; 5]> {
    let usage = usage.filter(|u| u.kind() == Kind::Object)?;
    const KEYS: [&str; 5] =
        ["input_tokens", "cached_input_tokens", "output_tokens", "reasoning_output_tokens", "total_tokens"];
    let mut out = [0u64; 5];
    for (key, v) in usage.members() {
        let Some(slot) = KEYS.iter().position(|k| crate::json::key_eq(key, k)) else { continue };
        let n = v.as_f64().unwrap_or(0.0);
        out[slot] = if n.is_finite() && n >= 0.0 && n.fract() == 0.0 && n < 9.0e15 { n as u64 } else { 0 };
    }
    Some(out)
}

/// A `token_count` line: what it counts, as the line's made data (module docs).
fn token_count(rec: &Record<'_>, state: &mut ReadState) {
    let Some(info) = rec.get_in("payload", "info").filter(|i| i.kind() == Kind::Object) else { return };
    let last = counters(info.get("last_token_usage"));
    let total = counters(info.get("total_token_usage"));
    if let Some(until) = state.copied_until {
        if line_time(rec).is_some_and(|t| t.as_second() <= until) {
            // A copy of the parent's: its total is where the fork's own start.
            state.totals = total.or(state.totals);
            return;
        }
        state.copied_until = None;
    }
    if total.is_some() && total == state.totals {
        return;
    }
    let grown = total.map(|t| {
        let prev = state.totals.unwrap_or_default();
        let mut d = [0u64; 5];
        for i in 0..5 {
            d[i] = t[i].saturating_sub(prev[i]);
        }
        d
    });
    if total.is_some() {
        state.totals = total;
    }
    let Some([input, cached, output, reasoning, total_tokens]) = last.or(grown) else { return };
    if input == 0 && cached == 0 && output == 0 && reasoning == 0 {
        return;
    }
    let named = [info.get("model"), info.get("model_name"), info.get("metadata").and_then(|m| m.get("model"))]
        .into_iter()
        .chain([rec.get_in("payload", "model")])
        .flatten()
        .find_map(|m| m.as_str().map(|s| s.trim().to_owned()).filter(|s| !s.is_empty()));
    if named.is_some() {
        state.model = named;
    }
    let cached = cached.min(input);
    let total_tokens = if total_tokens > 0 { total_tokens } else { input + output };
    let d = &mut state.line_data;
    d.extend_from_slice(b"{\"model\":");
    match &state.model {
        Some(m) => crate::json::write::json_str(d, m),
        None => d.extend_from_slice(b"null"),
    }
    // Writing into a Vec cannot fail.
    let _ = write!(
        d,
        ",\"usage\":{{\"input_tokens\":{},\"cache_read_tokens\":{cached},\"output_tokens\":{output},\"reasoning_output_tokens\":{reasoning},\"total_tokens\":{total_tokens}}},\"info\":",
        input - cached
    );
    d.extend_from_slice(info.bytes());
    d.push(b'}');
}

/// A line's `timestamp`.
fn line_time(rec: &Record<'_>) -> Option<Timestamp> {
    rec.get_str("timestamp").as_deref().and_then(time::parse_timestamp)
}

/// The session a session meta line says its rollout was forked from
/// (`payload.forked_from_id`, non-empty).
fn forked_from(rec: &Record<'_>) -> Option<String> {
    let id = rec.get_in("payload", "forked_from_id").and_then(|v| v.as_str()).map(Cow::into_owned);
    id.filter(|i| !i.trim().is_empty())
}

#[cfg(test)]
mod tests;
