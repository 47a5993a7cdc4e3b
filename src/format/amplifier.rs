//! Amplifier's context-intelligence captures (formats.md §1).
//!
//! A capture is exactly
//! `<root>/<project-slug>/sessions/<session-id>/context-intelligence/events.jsonl`:
//! a fixed depth, never a recursive glob, so the decoys that sit next to real
//! captures (the CLI's own `sessions/<id>/metadata.json`, another logger's
//! `sessions/<id>/events.jsonl`, `transcript.jsonl`, backups, blobs, temp files,
//! a `context-intelligence/` folder with only `metadata.json`) are never counted.
//! Its sibling `metadata.json` gives the session record's fields.
//!
//! Each line is an event record as the toolkit prints it (`event`, `data`,
//! `timestamp`, `workspace`), so the envelope is the line's own and the
//! semantic fields are read from `data` under Amplifier's keys (token usage
//! in both key generations).

use std::borrow::Cow;
use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

use super::{str_at, CallKey, Dialect, Example, Format, Help, Layout, LineKind, Profile, ReadState, Section, Usage};
use super::{Cx, Detail};
use crate::diag::Diag;
use crate::error::Result;
use crate::files::{dir_above, name_above, read_dir_sorted};
use crate::json::{Raw, Record};
use crate::session::{Capture, SessionRecord};

mod kept;
mod sessions;
pub use sessions::{agent_of, record_of_events};
use sessions::{amplifier_root, capture_in, discover, response_models, session_dirs};

/// Env var naming the Amplifier capture root.
pub const ROOT_ENV: &str = "AMPLIFIER_CONTEXT_INTELLIGENCE_BASE_PATH";

/// The Amplifier writer.
pub struct Amplifier;

/// The amplifier format (see the module docs).
pub static FORMAT: Format = Format {
    name: "amplifier",
    product: "Amplifier",
    root_env: &[ROOT_ENV],
    places: &["~/.amplifier/projects"],
    help: Help {
        roots: Some(
            "$AMPLIFIER_CONTEXT_INTELLIGENCE_BASE_PATH (trimmed, ~ expanded, ignored with a
    warning when relative), else ~/.amplifier/projects (Amplifier)",
        ),
        find: Some(Section {
            title: "AMPLIFIER CAPTURES",
            body: "  A capture is exactly <root>/<project>/sessions/<id>/context-intelligence/events.jsonl,
  format amplifier. A _sessiondata folder inside an Amplifier root is not searched:
  name it with a second --root. Its session records leave model, files,
  transcript, events and tags null (model is set when --model read the capture).",
        }),
        appears: Some(
            "an Amplifier session when its context-intelligence/
  events.jsonl exists (one whose metadata.json is written first is printed once
  events.jsonl appears, with the metadata there by then)",
        ),
        example: Some(Example {
            root: "~/.amplifier/projects",
            session: "~/.amplifier/projects/-home-u-api/sessions/63cc3feb-…/",
        }),
        ..Help::NONE
    },
    vocabulary,
    layout: &Amplifier,
    dialect: &Amplifier,
    profile: Profile {
        // Every line is a whole event on its own, in one JSONL file.
        lines_independent: true,
        input_includes_cache_read: true,
        ..Profile::new("running", "an Amplifier event")
    },
};

/// The event names it gives for the lines it knows.
fn vocabulary() -> Vec<&'static str> {
    EVENTS.iter().chain(&DELEGATE_EVENTS).copied().collect()
}

/// The event names of Amplifier's kernel (amplifier-core's canonical event
/// list) and of its delegate tool; a module may emit others.
const EVENTS: [&str; 41] = [
    "session:start",
    "session:end",
    "session:fork",
    "session:resume",
    "prompt:submit",
    "prompt:complete",
    "plan:start",
    "plan:end",
    "provider:request",
    "provider:response",
    "provider:error",
    "llm:request",
    "llm:request:debug",
    "llm:request:raw",
    "llm:response",
    "llm:response:debug",
    "llm:response:raw",
    "content_block:start",
    "content_block:delta",
    "content_block:end",
    "thinking:delta",
    "thinking:final",
    "tool:pre",
    "tool:post",
    "tool:error",
    "context:pre_compact",
    "context:post_compact",
    "context:compaction",
    "context:include",
    "orchestrator:complete",
    "execution:start",
    "execution:end",
    "user:notification",
    "artifact:write",
    "artifact:read",
    "policy:violation",
    "approval:required",
    "approval:granted",
    "approval:denied",
    "cancel:requested",
    "cancel:completed",
];

/// Events of the delegate tool (child sessions).
const DELEGATE_EVENTS: [&str; 2] = ["delegate:agent_spawned", "delegate:agent_completed"];

impl Layout for Amplifier {
    /// The env var (whitespace trimmed, `~` expanded, a relative value
    /// ignored with a warning; a set one that is missing is an error like
    /// any root), else `~/.amplifier/projects` when it exists (a Claude-only
    /// or Codex-only home has none, and that is no error).
    fn default_roots(&self, diag: &Diag) -> Vec<PathBuf> {
        match amplifier_root(diag) {
            (root, true) => vec![root],
            (root, false) => root.symlink_metadata().is_ok().then_some(root).into_iter().collect(),
        }
    }

    fn discover(&self, root: &Path, _detail: Detail, cx: &Cx<'_>, diag: &Diag) -> Result<Vec<SessionRecord>> {
        discover(root, cx, diag)
    }

    /// A session directory, or its `context-intelligence` folder.
    fn session_in(&self, dir: &Path, diag: &Diag) -> Option<Option<SessionRecord>> {
        let session_dir = if name_above(dir, 0).is_some_and(|n| n == "context-intelligence") {
            dir_above(dir, 1)?
        } else {
            dir.to_path_buf()
        };
        if session_dir.join("context-intelligence").join("events.jsonl").is_file() {
            return Some(capture_in(&session_dir, Some(diag), None));
        }
        None
    }

    /// `…/context-intelligence/events.jsonl`: its session and metadata are
    /// found as for a session directory.
    fn file_capture(&self, file: &Path, cx: &Cx<'_>, diag: &Diag) -> Option<Capture> {
        let in_layout = file.file_name().is_some_and(|n| n == "events.jsonl")
            && name_above(file, 1).is_some_and(|n| n == "context-intelligence");
        if !in_layout {
            return None;
        }
        let rec = dir_above(file, 2).and_then(|dir| capture_in(&dir, Some(diag), Some(cx)))?;
        let mut cap = super::capture(rec);
        cap.display = file.to_string_lossy().into_owned();
        Some(cap)
    }

    fn record_of_file(&self, file: &Path, _session: &str, _cx: &Cx<'_>) -> Option<SessionRecord> {
        record_of_events(file)
    }

    /// A directory becomes a session, reported once, when its
    /// `context-intelligence/events.jsonl` exists (a session whose
    /// `metadata.json` is written first is announced when its `events.jsonl`
    /// appears, with the metadata there by then).
    fn fresh(&self, root: &Path, seen: &mut HashSet<PathBuf>, cx: &Cx<'_>, diag: &Diag) -> Vec<SessionRecord> {
        let mut found = vec![];
        let entries = read_dir_sorted(root).unwrap_or_default();
        for session in session_dirs(root, &entries, None) {
            if seen.contains(&session) || !session.is_dir() {
                continue;
            }
            let record = capture_in(&session, Some(diag), Some(cx));
            let events = session.join("context-intelligence").join("events.jsonl");
            // Nothing there yet: look again next round.
            if record.is_some() || fs::symlink_metadata(&events).is_ok() {
                seen.insert(session);
            }
            found.extend(record);
        }
        found
    }

    /// `…/<project>/sessions/<id>/context-intelligence/events.jsonl`.
    fn project_of_path(&self, path: &str) -> Option<String> {
        let parts: Vec<&str> = path.split(['/', '\\']).collect();
        match parts.as_slice() {
            [.., project, "sessions", _, "context-intelligence", "events.jsonl"] => Some((*project).to_owned()),
            _ => None,
        }
    }

    /// `…/<id>` of `…/<id>/context-intelligence/events.jsonl`.
    fn session_dir(&self, rec: &SessionRecord) -> PathBuf {
        let path = Path::new(&rec.path);
        path.parent().and_then(Path::parent).unwrap_or(path).to_path_buf()
    }

    /// Non-blank lines of `events.jsonl` (0 when unreadable).
    fn event_count(&self, rec: &SessionRecord) -> u64 {
        crate::files::count_lines(Path::new(&rec.path))
    }

    /// Metadata names no model: the distinct `data.model` of the capture's
    /// `llm:response` events, in order of appearance.
    fn models(&self, rec: &SessionRecord) -> Option<Vec<String>> {
        Some(response_models(Path::new(&rec.path)))
    }

    /// The one `events.jsonl`.
    fn files(&self, rec: &SessionRecord) -> Vec<PathBuf> {
        vec![PathBuf::from(&rec.path)]
    }
}

impl Dialect for Amplifier {
    /// Amplifier lines are event records, not lines of another writer.
    fn claims(&self, _rec: &Record<'_>) -> bool {
        false
    }

    fn accept(&self, rec: &Record<'_>) -> std::result::Result<(), &'static str> {
        match LineKind::of(rec) {
            LineKind::Event => Ok(()),
            kind => Err(kind.not_an_event()),
        }
    }

    fn name_raw<'a>(&self, rec: &Record<'a>, _part: u32) -> Option<Raw<'a>> {
        rec.get("event")
    }

    fn name<'a>(&self, rec: &Record<'a>, _part: u32, _state: &'a ReadState) -> Cow<'a, str> {
        rec.get_str("event").unwrap_or(Cow::Borrowed(""))
    }

    fn data<'a>(&self, rec: &Record<'a>, _part: u32, _state: &'a ReadState) -> Option<Raw<'a>> {
        rec.get("data")
    }

    fn workspace<'a>(&self, rec: &Record<'a>) -> Option<Cow<'a, str>> {
        rec.get_str("workspace")
    }

    fn timestamp<'a>(&self, rec: &Record<'a>) -> Option<Raw<'a>> {
        rec.get("timestamp")
    }

    fn tool_name<'a>(&self, data: Raw<'a>) -> Option<Raw<'a>> {
        data.get("tool_name")
    }

    /// `tool_call_id`; an event without one is a call of its own.
    fn call_key<'a>(&self, data: Raw<'a>) -> CallKey<'a> {
        str_at(data, "tool_call_id").map_or(CallKey::Alone, CallKey::Id)
    }

    /// `result.success` false.
    fn failed(&self, data: Raw<'_>) -> bool {
        data.get("result").and_then(|r| r.get("success")).and_then(|s| s.as_bool()) == Some(false)
    }

    /// Older writers' `duration_ms` on `tool:post`.
    fn duration_ms<'a>(&self, data: Raw<'a>) -> Option<Raw<'a>> {
        data.get("duration_ms")
    }

    fn model<'a>(&self, data: Raw<'a>) -> Option<Raw<'a>> {
        data.get("model")
    }

    fn status<'a>(&self, data: Raw<'a>) -> Option<Raw<'a>> {
        data.get("status")
    }

    /// `usage.<name>`, else the older generation's key (`input`, `output`,
    /// `cache_read`, `cache_write`). `input_tokens` is gross: it includes
    /// cache reads.
    fn tokens<'a>(&self, data: Raw<'a>) -> [Option<Raw<'a>>; 5] {
        let Some(usage) = data.get("usage") else { return [None; 5] };
        Usage::ALL.map(|u| figure(usage, u))
    }

    fn file_path<'a>(&self, data: Raw<'a>) -> Option<Cow<'a, str>> {
        data.get("tool_input")?.get("file_path")?.as_str()
    }

    fn parent_id<'a>(&self, data: Raw<'a>) -> Option<Cow<'a, str>> {
        str_at(data, "parent_id")
    }

    fn fork_parent<'a>(&self, data: Raw<'a>) -> Option<Cow<'a, str>> {
        str_at(data, "parent")
    }

    fn fork_agent<'a>(&self, data: Raw<'a>) -> Option<Cow<'a, str>> {
        data.get("metadata")?.get("agent_name")?.as_str()
    }

    fn child<'a>(&self, data: Raw<'a>) -> Option<Cow<'a, str>> {
        str_at(data, "sub_session_id")
    }

    fn session_id<'a>(&self, data: Raw<'a>) -> Option<Cow<'a, str>> {
        str_at(data, "session_id")
    }
}

/// A figure of a `usage` object: its current key, else the older
/// generation's (`input`, `output`, `cache_read`, `cache_write`).
fn figure(usage: Raw<'_>, u: Usage) -> Option<Raw<'_>> {
    let old = match u {
        Usage::Input => Some("input"),
        Usage::Output => Some("output"),
        Usage::CacheRead => Some("cache_read"),
        Usage::CacheWrite => Some("cache_write"),
        Usage::Cost => None,
    };
    usage.get(u.name()).or_else(|| old.and_then(|k| usage.get(k)))
}
