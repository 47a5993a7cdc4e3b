//! The two kinds of record in a ci-* stream, and the event view every tool uses.
//!
//! - An **event record** is one line of a capture: an object with a string
//!   `event` and an object `data` (plus `workspace`, `timestamp`). When a tool
//!   reads it from a capture it adds one provenance key,
//!   `"ci":{"session":ID,"path":FILE,"line":N}`, so every later stage can go back
//!   to the exact physical line (`sed -n Np FILE`).
//! - A **session record** (printed by `ci-find`) describes one capture: an
//!   object with `session` and `path` keys and no `event` key. Tools that need
//!   events expand it into the capture's events.

use std::borrow::Cow;
use std::path::PathBuf;

use crate::discover::{slug_of, Format, SessionRecord};
use crate::hooks;
use crate::json::{Raw, Record};
use crate::time::{self, Timestamp};

/// The name of the provenance key added to event records.
pub const PROVENANCE_KEY: &str = "ci";

/// What a valid JSON line is, told apart by its top-level keys (formats.md §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordKind {
    /// A string `event` and an object `data`.
    Event,
    /// `session` and `path`, no `event`: a `ci-find` record.
    Session,
    /// A Claude Code hook line (`hook_event_name`).
    Hook,
    /// Another logger's line (`ts` + `schema`, the `amplifier.log` format).
    OtherLog,
    /// A Claude Code transcript line (`type` with `uuid`/`sessionId`/`message`).
    Transcript,
    /// Anything else.
    Unknown,
}

impl RecordKind {
    /// Classifies a validated record.
    pub fn of(rec: &Record<'_>) -> RecordKind {
        let has = |k: &str| rec.get(k).is_some();
        let event_is_str = rec.get("event").is_some_and(|v| v.as_str().is_some());
        if has("ts") && has("schema") {
            RecordKind::OtherLog
        } else if event_is_str && rec.get("data").is_some_and(|d| d.kind() == crate::json::Kind::Object) {
            RecordKind::Event
        } else if has("hook_event_name") {
            RecordKind::Hook
        } else if !has("event") && has("session") && rec.get("path").is_some_and(|p| p.as_str().is_some()) {
            RecordKind::Session
        } else if has("type") && (has("uuid") || has("sessionId") || has("message")) {
            RecordKind::Transcript
        } else {
            RecordKind::Unknown
        }
    }

    /// Why a record of this kind is not an event, for a `path:line: reason` report.
    pub fn not_an_event(self) -> &'static str {
        match self {
            RecordKind::Event => "an event record",
            RecordKind::Session => "a session record where an event was expected",
            RecordKind::Hook => "a Claude Code hook line where an Amplifier event was expected",
            RecordKind::OtherLog => "another logger's line (amplifier.log format), not an event",
            RecordKind::Transcript => "a Claude Code transcript line, not an event",
            RecordKind::Unknown => "not an event record (needs a string \"event\" and an object \"data\")",
        }
    }
}

/// One capture file to read, with what is known about its session.
#[derive(Debug, Clone)]
pub struct Capture {
    /// The session id used in provenance.
    pub session: String,
    /// The events file.
    pub path: PathBuf,
    /// The path as shown in reports and provenance.
    pub display: String,
    /// Fills `workspace` on lines that have none (older writers): the session's
    /// metadata workspace, else its project slug.
    pub workspace: Option<String>,
    /// The layout.
    pub format: Format,
    /// The session record, when the capture came from one or from discovery.
    pub record: Option<SessionRecord>,
    /// Claude hooks: the event files to read, in order (each with its own line
    /// numbers); empty for an Amplifier capture (`path` is read).
    pub files: Vec<PathBuf>,
}

impl Capture {
    /// A capture described by a session record. For a Claude hooks session
    /// the event files are the record's `files` that are event files
    /// ([`hooks::is_event_file`]), in reading order, else those in the directory.
    pub fn from_record(rec: SessionRecord) -> Capture {
        let files = if rec.format == Format::ClaudeHooks {
            let dir = PathBuf::from(&rec.path);
            let mut names: Vec<String> = match &rec.files {
                Some(f) => f.iter().filter(|n| hooks::is_event_file(n) && !hooks::unsafe_name(n)).cloned().collect(),
                None => hooks::event_files(&dir),
            };
            hooks::sort_files(&mut names);
            names.into_iter().map(|n| dir.join(n)).collect()
        } else {
            vec![]
        };
        Capture {
            session: rec.session.clone(),
            path: PathBuf::from(&rec.path),
            display: rec.path.clone(),
            workspace: rec.workspace.clone(),
            format: rec.format,
            record: Some(rec),
            files,
        }
    }

    /// Whether this is a Claude hooks session.
    pub fn is_hooks(&self) -> bool {
        self.format == Format::ClaudeHooks
    }

    /// Why a session record read from input must not be used: an unsafe
    /// session id, or an unsafe name in its `files` (see [`hooks::unsafe_name`]).
    pub fn unsafe_record(rec: &SessionRecord) -> Option<String> {
        if hooks::unsafe_name(&rec.session) {
            return Some(hooks::unsafe_id_message(&rec.session));
        }
        let files = rec.files.iter().flatten();
        files.filter(|f| hooks::unsafe_name(f)).map(|f| format!("unsafe file name {f:?}")).next()
    }
}

/// An event as a tool sees it: the validated line plus where it came from.
#[derive(Clone, Copy)]
pub struct Event<'a> {
    /// The validated line.
    pub rec: Record<'a>,
    /// The capture it was read from; `None` for an event record read from a
    /// stream (stdin), which carries its own provenance.
    pub capture: Option<&'a Capture>,
    /// Physical line number in the capture (or in the stream).
    pub line: u64,
    /// The file name shown in reports (`-` for stdin).
    pub source: &'a str,
}

impl<'a> Event<'a> {
    /// Whether this is a Claude Code hook line read from a hooks capture: its
    /// envelope is then derived (name from `hook_event_name`, `data` = the line).
    pub fn is_hook(&self) -> bool {
        self.capture.is_some_and(Capture::is_hooks)
    }

    /// The hook name (`hook_event_name`) of a hook line.
    pub fn hook(&self) -> Option<Cow<'a, str>> {
        if self.is_hook() {
            self.rec.get_str("hook_event_name")
        } else {
            None
        }
    }

    /// The `event` name (for a hook line, the canonical Amplifier name).
    pub fn name(&self) -> Cow<'a, str> {
        match self.hook() {
            Some(h) => hooks::canonical(&h),
            None => self.rec.get_str("event").unwrap_or(Cow::Borrowed("")),
        }
    }

    /// The raw `event` value (for a hook line, the canonical name when it is
    /// one of the mapped hooks).
    pub fn name_raw(&self) -> Option<Raw<'a>> {
        match self.hook() {
            Some(h) => hooks::canonical_raw(&h),
            None => self.rec.get("event"),
        }
    }

    /// The `data` payload (for a hook line, the whole line).
    pub fn data(&self) -> Option<Raw<'a>> {
        if self.is_hook() {
            Some(Raw(self.rec.line().trim_ascii()))
        } else {
            self.rec.get("data")
        }
    }

    /// The value at a path of the event record (`data.tool_input.file_path`,
    /// `event`, `timestamp`, `hook`), through the normalised view for hook lines.
    pub fn path(&self, path: &crate::json::Path) -> Option<Raw<'a>> {
        if !self.is_hook() {
            return self.rec.path(path);
        }
        match path.segments() {
            [k] if k == "event" => self.name_raw(),
            [k] if k == "hook" => self.rec.get("hook_event_name"),
            [k] if k == "timestamp" => self.rec.get("timestamp"),
            [k, rest @ ..] if k == "data" => {
                let mut v = self.data()?;
                for seg in rest {
                    v = v.get(seg)?;
                }
                Some(v)
            }
            _ => None,
        }
    }

    /// The provenance object of a record that already has one.
    pub fn provenance(&self) -> Option<Raw<'a>> {
        self.rec.get(PROVENANCE_KEY)
    }

    /// The workspace: the line's own, else the capture's fallback. For a hook
    /// line: the slug of its `cwd` ([`slug_of`]), else the capture's.
    pub fn workspace(&self) -> Option<Cow<'a, str>> {
        if self.is_hook() {
            return match self.rec.get_str("cwd") {
                Some(c) => Some(Cow::Owned(slug_of(&c))),
                None => self.capture.and_then(|c| c.workspace.as_deref()).map(Cow::Borrowed),
            };
        }
        match self.rec.get_str("workspace") {
            Some(w) => Some(w),
            None => self.capture.and_then(|c| c.workspace.as_deref()).map(Cow::Borrowed),
        }
    }

    /// Whether the line has no `workspace` of its own.
    pub fn lacks_workspace(&self) -> bool {
        self.is_hook() || self.rec.get("workspace").is_none()
    }

    /// The session id: the capture's, else the provenance key's, else `data.session_id`.
    pub fn session(&self) -> Option<Cow<'a, str>> {
        if let Some(c) = self.capture {
            return Some(Cow::Borrowed(c.session.as_str()));
        }
        self.provenance()
            .and_then(|p| p.get("session"))
            .and_then(|s| s.as_str())
            .or_else(|| self.data().and_then(|d| d.get("session_id")).and_then(|s| s.as_str()))
    }

    /// The `timestamp` as written.
    pub fn timestamp_str(&self) -> Option<Cow<'a, str>> {
        self.rec.get_str("timestamp")
    }

    /// Makes sure the whole line is valid JSON: a no-op for a validated line,
    /// a full check for one the engine only skimmed ([`crate::source::Visitor::lazy`]).
    /// A bad line is reported as `path:line: reason`, counted, and `false` is
    /// returned: the caller drops the event.
    pub fn confirm(&self, diag: &crate::diag::Diag) -> bool {
        if self.rec.is_validated() {
            return true;
        }
        match crate::json::validate(self.rec.line()) {
            Ok(()) => true,
            Err(e) => {
                diag.bad_line(&self.source, self.line, &e);
                false
            }
        }
    }

    /// The `timestamp`, parsed; `None` when missing, `""` or unparseable.
    pub fn timestamp(&self) -> Option<Timestamp> {
        self.timestamp_str().as_deref().and_then(time::parse_timestamp)
    }
}
