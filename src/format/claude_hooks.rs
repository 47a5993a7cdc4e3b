//! Claude Code hook captures in the medicine-wheel `_sessiondata` layout
//! (formats.md §2): what a hooks root and a hooks session are, which files
//! are events, and the canonical event names.
//!
//! - A root is a hooks root when a direct subdirectory (not `data`, not
//!   starting with `_` or `.`) holds a `_claude_*.jsonl` file; each such
//!   subdirectory is a session named by its directory name.
//! - Event files are `_claude_<X>.jsonl`, read in [`LIFECYCLE`] order (then any
//!   other by name), each in file order. Never events:
//!   `_claude_AssistantResponse.jsonl` (copies of Stop lines),
//!   `last_claude_*`, `_transcript_final.jsonl`, `_codex_*`.
//! - Each line is the raw hook input; it becomes an event named after
//!   [`canonical`] of its `hook_event_name`, with `data` = the line unchanged.

use std::borrow::Cow;
use std::fs;
use std::path::Path;

use std::collections::HashSet;
use std::path::PathBuf;

use super::{str_at, CallKey, Dialect, Format, Help, Layout, LineKind, Profile, ReadState, Section};
use super::{Cx, Detail};
use crate::diag::Diag;
use crate::files::{sorted_dirs, NOT_UTF8};
use crate::json::{Raw, Record};
use crate::session::{slug_of, unsafe_id_message, unsafe_name, Capture, SessionRecord};
use crate::time::{self, Timestamp};

mod scan;
pub(crate) use scan::Scan;

/// Env var naming the `_sessiondata` root.
pub const ROOT_ENV: &str = "SESSION_DATA_DIR";

/// The transcript copy a session may hold (not events).
pub const TRANSCRIPT: &str = "_transcript_final.jsonl";

/// Event files read first, in this order (the hook lifecycle); the stem is
/// what follows `_claude_`.
pub const LIFECYCLE: [&str; 14] = [
    "session_starts",
    "user_inputs",
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "PostToolUseFailure",
    "Notification",
    "PreCompact",
    "SubagentStart",
    "SubagentStop",
    "Stop",
    "CorrectiveFeedback",
    "AcceptedRedirection",
    "SessionEnd",
];

/// The Claude Code hooks writer (medicine-wheel `_sessiondata`).
pub struct ClaudeHooks;

/// The claude-hooks format (see the module docs).
pub static FORMAT: Format = Format {
    name: "claude-hooks",
    product: "Claude Code",
    root_env: &[ROOT_ENV],
    places: &[],
    help: Help {
        roots: Some("$SESSION_DATA_DIR when set (Claude Code hook captures; a missing one is an error)"),
        find: Some(Section {
            title: "CLAUDE HOOK SESSIONS",
            body: "  A root is a Claude hooks root (medicine-wheel _sessiondata) when a direct
  subdirectory (not `data`, not starting with `_` or `.`) holds a _claude_*.jsonl
  file; each such subdirectory is a session.
  format claude-hooks; path = the session directory; workspace/project = slug of the
  first line's cwd; started_at/last_event_at = min/max timestamp of the events that
  have one (only synthetic events do: null otherwise); status `ended` when a
  SessionEnd line exists, else `active`; model = the first SessionStart's model;
  files = event files in reading order; transcript = _transcript_final.jsonl exists;
  events = valid hook lines in the event files (never the AssistantResponse copy,
  last_claude_*, the transcript copy or _codex_*); tags = source:<SessionStart
  source>, permission:<permission_mode>, agent:<SubagentStart agent_type>.
  Session ids containing /, \\, NUL, or equal to . or .. are refused.",
        }),
        agg: Some(Section {
            title: "CLAUDE CODE HOOK SESSIONS",
            body: "  --sessions: the same fields as other sessions: calls are distinct
  tool_use_id, Stop is prompt:complete (the AssistantResponse copy is never
  read), errors are PostToolUseFailure, models the SessionStart model; hook
  lines carry no time, so duration and avg_response_ms are null unless
  synthetic events have timestamps; when the session folder holds
  _transcript_final.jsonl, its start, end, models and tokens come from that
  copy, else tokens are null (unknown, not 0); piped hook events read the copy
  too when the stream holds the session's prompt:complete.",
        }),
        cat: Some(Section {
            title: "CLAUDE CODE HOOK CAPTURES",
            body: "  A medicine-wheel _sessiondata session directory (or a root of them, or one
  _claude_<X>.jsonl file) is read as events: each hook line becomes
  {\"event\":CANONICAL,\"hook\":NAME,\"workspace\":SLUG,\"timestamp\":TS|null,
  \"data\":<the line unchanged>,\"ci\":{session,path=the hook file,line}}.
  CANONICAL: SessionStart session:start, SessionEnd session:end, UserPromptSubmit
  prompt:submit, Stop prompt:complete, PreToolUse tool:pre, PostToolUse tool:post,
  PostToolUseFailure tool:error, SubagentStart/Stop delegate:agent_spawned/
  _completed, PreCompact context:compaction, PermissionRequest approval:required,
  Notification user:notification; any other hook hook:<Name>. SLUG is the Amplifier
  slug of the line's cwd (/home/u/app -> -home-u-app). TS is the line's own
  timestamp (only synthetic events have one), else null. Order: the event files in
  lifecycle order (session_starts, user_inputs, PreToolUse, PermissionRequest,
  PostToolUse, PostToolUseFailure, Notification, PreCompact, SubagentStart,
  SubagentStop, Stop, CorrectiveFeedback, AcceptedRedirection, SessionEnd, then any
  other _claude_<X>.jsonl by name), each in file order -- unless every event of
  the session has a timestamp: then time order (stable), across files.
  Never read: _claude_AssistantResponse.jsonl (copies of Stop lines), last_claude_*,
  _transcript_final.jsonl, _codex_*. --raw prints the hook line as on disk.",
        }),
        filter: Some(Section {
            title: "CLAUDE CODE HOOK CAPTURES",
            body: "  Hook lines are filtered as their normalised events (ci-cat --help): --event
  takes the canonical name (tool:pre, prompt:complete, hook:CorrectiveFeedback),
  --workspace the slug of cwd, data.* paths read the hook line (data.tool_name,
  data.tool_input.file_path), `hook` the original hook name.",
        }),
        grep: Some(Section {
            title: "CLAUDE CODE HOOK CAPTURES",
            body: "  Hook sessions are searched as their normalised events (ci-cat --help): the hook
  line is `data`, so prompts are data.prompt, assistant messages
  data.last_assistant_message, tool inputs data.tool_input.*, tool outputs
  data.tool_response.* and failures data.error; match records are the same, with
  ci.path the hook file. The AssistantResponse copy and transcript are not searched.",
        }),
        appears: Some(
            "a hooks session with
  its first _claude_*.jsonl file",
        ),
        ..Help::NONE
    },
    vocabulary: event_names,
    layout: &ClaudeHooks,
    dialect: &DIALECT,
    profile: PROFILE,
};

/// The constants of Claude hook payloads (hook logs share them but time order).
pub const PROFILE: Profile = Profile {
    // Native hook input has no timestamp (only synthetic events do): a
    // session is read in time order only when every line has one.
    order: super::Order::Time,
    // Hook input carries no token usage (the transcript copy does).
    carries_usage: false,
    // `{"event":CANONICAL,"hook":NAME,"workspace":SLUG,"timestamp":TS|null,"data":LINE}`.
    derived: true,
    original_key: Some("hook"),
    // `active` (until a SessionEnd: `ended`).
    ..Profile::new("active", "a Claude Code hook line where an Amplifier event was expected")
};

/// What a Claude Code hook payload means, wherever it is kept: hook
/// captures and hook logs ([`super::hook_logs`]) share it. They differ only
/// in which of a payload's keys stamp its time.
pub struct Hooks {
    /// The payload's timestamp as written.
    pub time: for<'a> fn(&Record<'a>) -> Option<Raw<'a>>,
}

/// The hooks dialect of hook captures: only synthetic events carry a
/// `timestamp`.
pub static DIALECT: Hooks = Hooks { time: timestamp };

/// A hook line's `timestamp`.
fn timestamp<'a>(rec: &Record<'a>) -> Option<Raw<'a>> {
    rec.get("timestamp")
}

/// Why a line of a hooks capture is not an event.
const NOT_A_HOOK_LINE: &str = "not a Claude Code hook line (needs \"hook_event_name\")";

impl Layout for ClaudeHooks {
    /// `$SESSION_DATA_DIR` when set and non-empty (no default place).
    fn default_roots(&self, _diag: &Diag) -> Vec<PathBuf> {
        super::env_dir(ROOT_ENV).into_iter().collect()
    }

    fn discover(
        &self,
        root: &Path,
        detail: Detail,
        _cx: &Cx<'_>,
        diag: &Diag,
    ) -> crate::error::Result<Vec<SessionRecord>> {
        Ok(discover(root, detail, diag))
    }

    fn session_in(&self, dir: &Path, diag: &Diag) -> Option<Option<SessionRecord>> {
        if event_files(dir).is_empty() {
            return None;
        }
        Some(session_at(dir, Detail::Full, Some(diag)))
    }

    /// A `_claude_*.jsonl` event file of a session directory: that session,
    /// reading only this file.
    fn file_capture(&self, file: &Path, _cx: &Cx<'_>, diag: &Diag) -> Option<Capture> {
        if !file.file_name().and_then(|n| n.to_str()).is_some_and(is_event_file) {
            return None;
        }
        let rec = crate::files::dir_above(file, 1).and_then(|dir| session_at(&dir, Detail::Full, Some(diag)))?;
        let mut cap = super::capture(rec);
        cap.files = vec![file.to_path_buf()];
        Some(cap)
    }

    /// An event file's session (its directory), as a reading run finds it
    /// (the transcript copy's head and tail unread).
    fn record_of_file(&self, file: &Path, _session: &str, _cx: &Cx<'_>) -> Option<SessionRecord> {
        if !file.file_name().and_then(|n| n.to_str()).is_some_and(is_event_file) {
            return None;
        }
        session_at(&crate::files::dir_above(file, 1)?, Detail::Reading, None)
    }

    /// A directory becomes a session, reported once, when it holds a
    /// `_claude_*.jsonl` event file.
    fn fresh(&self, root: &Path, seen: &mut HashSet<PathBuf>, _cx: &Cx<'_>, diag: &Diag) -> Vec<SessionRecord> {
        let mut found = vec![];
        for dir in sorted_dirs(root) {
            if !seen.contains(&dir)
                && dir.file_name().and_then(|n| n.to_str()).is_some_and(is_session_dir_name)
                && !event_files(&dir).is_empty()
            {
                found.extend(session_at(&dir, Detail::Full, Some(diag)));
                seen.insert(dir);
            }
        }
        found
    }

    fn session_dir(&self, rec: &SessionRecord) -> PathBuf {
        PathBuf::from(&rec.path)
    }

    /// The record's `events` (valid hook lines, counted at discovery).
    fn event_count(&self, rec: &SessionRecord) -> u64 {
        rec.events.unwrap_or(0)
    }

    /// The record's `files` that are event files ([`is_event_file`]), in
    /// reading order, else those in the directory.
    fn files(&self, rec: &SessionRecord) -> Vec<PathBuf> {
        let dir = PathBuf::from(&rec.path);
        let mut names: Vec<String> = match &rec.files {
            Some(f) => f.iter().filter(|n| is_event_file(n) && !unsafe_name(n)).cloned().collect(),
            None => event_files(&dir),
        };
        sort_files(&mut names);
        names.into_iter().map(|n| dir.join(n)).collect()
    }

    /// `_transcript_final.jsonl`, read as a Claude Code transcript.
    fn companion(&self, rec: &SessionRecord) -> Option<(PathBuf, &'static Format)> {
        let copy = Path::new(&rec.path).join(TRANSCRIPT);
        crate::files::usable_file(&copy).is_ok().then_some((copy, &super::claude_transcript::FORMAT))
    }
}

impl Dialect for Hooks {
    fn claims(&self, rec: &Record<'_>) -> bool {
        rec.get("hook_event_name").is_some()
    }

    /// A hook line that leaves room to be an event's `data` (`format::fits_as_data`).
    fn accept(&self, rec: &Record<'_>) -> std::result::Result<(), &'static str> {
        super::fits_as_data(rec)?;
        if LineKind::of(rec) == LineKind::Format(&FORMAT) {
            Ok(())
        } else {
            Err(NOT_A_HOOK_LINE)
        }
    }

    fn original<'a>(&self, rec: &Record<'a>, _part: u32) -> Option<Raw<'a>> {
        rec.get("hook_event_name")
    }

    /// The canonical name when the hook is one of the mapped ones.
    fn name_raw<'a>(&self, rec: &Record<'a>, _part: u32) -> Option<Raw<'a>> {
        match rec.get_str("hook_event_name") {
            Some(h) => canonical_raw(&h),
            None => rec.get("event"),
        }
    }

    fn name<'a>(&self, rec: &Record<'a>, _part: u32, _state: &'a ReadState) -> Cow<'a, str> {
        match rec.get_str("hook_event_name") {
            Some(h) => canonical(&h),
            None => rec.get_str("event").unwrap_or(Cow::Borrowed("")),
        }
    }

    /// The whole line: the raw hook input.
    fn data<'a>(&self, rec: &Record<'a>, _part: u32, _state: &'a ReadState) -> Option<Raw<'a>> {
        Some(Raw(rec.line().trim_ascii()))
    }

    /// The slug of the line's `cwd`.
    fn workspace<'a>(&self, rec: &Record<'a>) -> Option<Cow<'a, str>> {
        rec.get_str("cwd").map(|c| Cow::Owned(slug_of(&c)))
    }

    /// [`Hooks::time`].
    fn timestamp<'a>(&self, rec: &Record<'a>) -> Option<Raw<'a>> {
        (self.time)(rec)
    }

    fn tool_name<'a>(&self, data: Raw<'a>) -> Option<Raw<'a>> {
        data.get("tool_name")
    }

    /// `tool_use_id` (Claude Code 2.1 on); before it, a PreToolUse and its
    /// PostToolUse are paired in order per session, tool and `tool_input`.
    fn call_key<'a>(&self, data: Raw<'a>) -> CallKey<'a> {
        if let Some(id) = str_at(data, "tool_use_id") {
            return CallKey::Id(id);
        }
        match data.get("tool_name") {
            Some(tool) => {
                let input = data.get("tool_input").map_or(&b""[..], |i| i.bytes());
                let mut key = String::from_utf8_lossy(tool.bytes()).into_owned();
                key.push('\0');
                key.push_str(&String::from_utf8_lossy(input));
                CallKey::Ordered(key)
            }
            None => CallKey::Alone,
        }
    }

    /// Failures arrive as PostToolUseFailure (`tool:error`) only.
    fn failed(&self, _data: Raw<'_>) -> bool {
        false
    }

    fn duration_ms<'a>(&self, data: Raw<'a>) -> Option<Raw<'a>> {
        data.get("duration_ms")
    }

    /// SessionStart's `model` (rarely present).
    fn model<'a>(&self, data: Raw<'a>) -> Option<Raw<'a>> {
        data.get("model")
    }

    fn status<'a>(&self, data: Raw<'a>) -> Option<Raw<'a>> {
        data.get("status")
    }

    /// Hook input carries no token usage.
    fn tokens<'a>(&self, _data: Raw<'a>) -> [Option<Raw<'a>>; 5] {
        [None; 5]
    }

    /// `tool_input.file_path`.
    fn file_path<'a>(&self, data: Raw<'a>) -> Option<Cow<'a, str>> {
        data.get("tool_input")?.get("file_path")?.as_str()
    }

    fn session_id<'a>(&self, data: Raw<'a>) -> Option<Cow<'a, str>> {
        str_at(data, "session_id")
    }
}

/// Hooks with an Amplifier counterpart (formats.md §2): the hook and the
/// Amplifier event name, as a JSON string literal.
const CANONICAL: [(&str, &[u8]); 12] = [
    ("SessionStart", b"\"session:start\""),
    ("SessionEnd", b"\"session:end\""),
    ("UserPromptSubmit", b"\"prompt:submit\""),
    ("Stop", b"\"prompt:complete\""),
    ("PreToolUse", b"\"tool:pre\""),
    ("PostToolUse", b"\"tool:post\""),
    ("PostToolUseFailure", b"\"tool:error\""),
    ("SubagentStart", b"\"delegate:agent_spawned\""),
    ("SubagentStop", b"\"delegate:agent_completed\""),
    ("PreCompact", b"\"context:compaction\""),
    ("PermissionRequest", b"\"approval:required\""),
    ("Notification", b"\"user:notification\""),
];

/// The Amplifier event name of a hook, as a JSON string literal; `None` for
/// a hook with no Amplifier counterpart.
fn canonical_json(hook: &str) -> Option<&'static [u8]> {
    CANONICAL.iter().find(|(h, _)| *h == hook).map(|(_, lit)| *lit)
}

/// A JSON string literal's text (the literals are ASCII with no escapes).
fn unquoted(lit: &'static [u8]) -> &'static str {
    std::str::from_utf8(&lit[1..lit.len() - 1]).unwrap_or("")
}

/// The hooks of [`LIFECYCLE`] without an Amplifier counterpart, as events.
pub const OTHER_HOOK_EVENTS: [&str; 2] = ["hook:CorrectiveFeedback", "hook:AcceptedRedirection"];

/// The names of [`Format::vocabulary`] for hook captures and hook logs:
/// the canonical ones and [`OTHER_HOOK_EVENTS`] (any other hook gives
/// `hook:<Name>`).
pub fn event_names() -> Vec<&'static str> {
    CANONICAL.iter().map(|(_, lit)| unquoted(lit)).chain(OTHER_HOOK_EVENTS).collect()
}

/// The canonical name as a JSON literal (for raw field reads), when static.
pub fn canonical_raw(hook: &str) -> Option<crate::json::Raw<'static>> {
    canonical_json(hook).map(crate::json::Raw)
}

/// The Amplifier event name of a hook; `hook:<Name>` for any other hook.
pub fn canonical(hook: &str) -> Cow<'static, str> {
    match canonical_json(hook) {
        Some(lit) => Cow::Borrowed(unquoted(lit)),
        None => Cow::Owned(format!("hook:{hook}")),
    }
}

/// Whether a file name is a hook event file.
pub fn is_event_file(name: &str) -> bool {
    name.starts_with("_claude_") && name.ends_with(".jsonl") && name != "_claude_AssistantResponse.jsonl"
}

/// Whether a directory name under a root may be a session (not `data`, `_…` or `.…`).
pub fn is_session_dir_name(name: &str) -> bool {
    name != "data" && !name.starts_with('_') && !name.starts_with('.')
}

/// Sorts event file names into reading order: [`LIFECYCLE`], then by name.
pub fn sort_files(files: &mut [String]) {
    let rank = |f: &String| {
        let stem = f.strip_prefix("_claude_").and_then(|s| s.strip_suffix(".jsonl")).unwrap_or(f);
        LIFECYCLE.iter().position(|l| *l == stem).unwrap_or(LIFECYCLE.len())
    };
    files.sort_by(|a, b| rank(a).cmp(&rank(b)).then_with(|| a.cmp(b)));
}

/// The event files of session directory `dir`, in reading order (none when
/// it cannot be listed; `listing` says why).
pub fn event_files(dir: &Path) -> Vec<String> {
    listing(dir).map(|l| l.files).unwrap_or_default()
}

/// What a session directory holds.
struct Listing {
    /// Its event files, in reading order.
    files: Vec<String>,
    /// Event files whose names are not UTF-8 (reported, never read).
    not_utf8: Vec<std::path::PathBuf>,
}

/// The event files of `dir`; `Err` when it cannot be listed.
fn listing(dir: &Path) -> std::io::Result<Listing> {
    let mut l = Listing { files: vec![], not_utf8: vec![] };
    for e in fs::read_dir(dir)?.filter_map(|e| e.ok()) {
        if !e.file_type().is_ok_and(|t| t.is_file()) {
            continue;
        }
        match e.file_name().into_string() {
            Ok(n) if is_event_file(&n) => l.files.push(n),
            Ok(_) => {}
            Err(n) if is_event_file(&n.to_string_lossy()) => l.not_utf8.push(e.path()),
            Err(_) => {}
        }
    }
    sort_files(&mut l.files);
    Ok(l)
}

/// Session directories of a hooks root, unsorted. A directory that looks
/// like a session but cannot be listed, or whose name is not UTF-8 while it
/// holds event files, is reported (`path: reason, skipped`).
fn session_dirs<'a>(root: &Path, diag: &'a Diag) -> impl Iterator<Item = std::path::PathBuf> + 'a {
    let entries = match fs::read_dir(root) {
        Ok(rd) => Some(rd),
        Err(e) => {
            diag.error(&format_args!("{}: {e}, skipped", root.display()));
            None
        }
    };
    entries.into_iter().flatten().filter_map(|e| e.ok()).filter(|e| e.file_type().is_ok_and(|t| t.is_dir())).filter_map(
        move |e| {
            let path = e.path();
            let holds_events = |p: &Path| listing(p).is_ok_and(|l| !l.files.is_empty() || !l.not_utf8.is_empty());
            match e.file_name().to_str() {
                None => {
                    if holds_events(&path) {
                        diag.error(&format_args!("{}: {NOT_UTF8}, skipped", path.display()));
                    }
                    None
                }
                Some(name) if !is_session_dir_name(name) => None,
                Some(_) => match listing(&path) {
                    Ok(l) if l.files.is_empty() && l.not_utf8.is_empty() => None,
                    Ok(_) => Some(path),
                    Err(err) => {
                        diag.error(&format_args!("{}: {err}, skipped", path.display()));
                        None
                    }
                },
            }
        },
    )
}

/// Every hooks session under `root`, in path order.
pub fn discover(root: &Path, detail: Detail, diag: &Diag) -> Vec<SessionRecord> {
    let mut dirs: Vec<_> = session_dirs(root, diag).collect();
    dirs.sort();
    dirs.iter().filter_map(|d| session_at(d, detail, Some(diag))).collect()
}

/// The hooks session in directory `dir`, when it holds event files. Reads every
/// event line once (hook sessions are small) for the fields of the record,
/// and with [`Detail::Full`] the head and tail of its transcript copy.
pub fn session_at(dir: &Path, detail: Detail, diag: Option<&Diag>) -> Option<SessionRecord> {
    let session = crate::files::name_above(dir, 0)?;
    if dir.to_str().is_none() {
        if let Some(d) = diag {
            d.error(&format_args!("{}: {}, skipped", dir.display(), NOT_UTF8));
        }
        return None;
    }
    if unsafe_name(&session) {
        if let Some(d) = diag {
            d.error(&format_args!("{}: {}", dir.display(), unsafe_id_message(&session)));
        }
        return None;
    }
    let report = |path: &Path, why: &dyn std::fmt::Display| {
        if let Some(d) = diag {
            d.error(&format_args!("{}: {why}, skipped", path.display()));
        }
    };
    let listing = match listing(dir) {
        Ok(l) => l,
        Err(e) => {
            report(dir, &e);
            return None;
        }
    };
    for path in &listing.not_utf8 {
        report(path, &NOT_UTF8);
    }
    let files = listing.files;
    if files.is_empty() {
        return None;
    }
    let mut s = Scan::default();
    let mut bytes = 0u64;
    let mut mtime = None;
    for f in &files {
        let path = dir.join(f);
        if let Ok(m) = fs::metadata(&path) {
            bytes += m.len();
            let t = m.modified().ok().and_then(|t| Timestamp::try_from(t).ok());
            mtime = mtime.max(t);
        }
        // An unreadable file: reported, so `events` is not silently short.
        if let Err(e) = s.file(&path) {
            report(&path, &e);
        }
    }
    let mut tags: Vec<String> = s.tags.into_iter().collect();
    tags.sort();
    let slug = s.cwd.as_deref().map(slug_of);
    // The transcript copy has what native hook input lacks: time and model.
    let copy = dir.join(TRANSCRIPT);
    let copy_len = crate::files::usable_file(&copy).ok().map(|m| m.len());
    let (mut first, mut last, mut model) = (s.first, s.last, s.model);
    if let Some(len) = copy_len.filter(|_| detail == Detail::Full) {
        let t = super::claude_transcript::peek(&copy, len);
        first = time::earliest(first, t.first);
        last = last.max(t.last);
        model = t.model.or(model);
    }
    Some(SessionRecord {
        project: slug.clone(),
        workspace: slug,
        status: Some(if s.ended { "ended" } else { "active" }.into()),
        started_at: first.map(time::format_timestamp),
        last_event_at: last.map(time::format_timestamp),
        working_dir: s.cwd,
        bytes,
        mtime: mtime.map(time::format_timestamp),
        model,
        files: Some(files),
        transcript: Some(copy_len.is_some()),
        events: Some(s.events),
        tags: Some(tags),
        ..SessionRecord::new(session, &FORMAT, dir.to_string_lossy().into_owned())
    })
}

#[cfg(test)]
mod tests;
