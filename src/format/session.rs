//! The session model every writer and every tool shares: the session record
//! `ci-find` prints, the writer a session comes from, the capture a tool
//! reads, and the naming rules (project slugs, safe ids, session-id prefixes).
//!
//! Discovery ([`crate::discover`]) and the writers' modules ([`crate::format`])
//! build these; nothing here knows any writer's on-disk layout. It is part
//! of the format layer (a record carries its [`Format`] handle) and is
//! re-exported at the crate root as `crate::session`.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Format;
use crate::time::{self, Timestamp};

/// One capture, as `ci-find` prints it: a JSON object with a `path` and a
/// `session` key and no `event` key (that is how every tool tells a session
/// record from an event record). Every key is always present, `null` when unknown.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SessionRecord {
    /// The session id: the capture's directory name.
    pub session: String,
    /// The project folder (slug) the capture is under.
    #[serde(default)]
    pub project: Option<String>,
    /// `metadata.workspace`, else the project slug (the rule that also fills
    /// the `workspace` of older event lines).
    #[serde(default)]
    pub workspace: Option<String>,
    /// Parent session id for a child session (`metadata.parent_id`, `""` → null).
    #[serde(default)]
    pub parent: Option<String>,
    /// `metadata.agent_name`, else the fork line's `data.metadata.agent_name`.
    #[serde(default)]
    pub agent: Option<String>,
    /// `metadata.status` (`running` flips to `completed` after the first turn:
    /// use `last_event_at` for liveness).
    #[serde(default)]
    pub status: Option<String>,
    /// `metadata.started_at`.
    #[serde(default)]
    pub started_at: Option<String>,
    /// `metadata.last_event_at`.
    #[serde(default)]
    pub last_event_at: Option<String>,
    /// `metadata.ended_at`.
    #[serde(default)]
    pub ended_at: Option<String>,
    /// `metadata.working_dir`.
    #[serde(default)]
    pub working_dir: Option<String>,
    /// `metadata.recipe_name`.
    #[serde(default)]
    pub recipe: Option<String>,
    /// `metadata.recipe_step`, as written.
    #[serde(default)]
    pub recipe_step: Option<Value>,
    /// `metadata.parallel_group_id`.
    #[serde(default)]
    pub parallel_group_id: Option<String>,
    /// Which layout the capture uses.
    pub format: &'static Format,
    /// Path of the events file.
    pub path: String,
    /// Size of the events file in bytes.
    #[serde(default)]
    pub bytes: u64,
    /// Modification time of the events file (RFC 3339, UTC).
    #[serde(default)]
    pub mtime: Option<String>,
    /// `ok`, `missing` or `corrupt`.
    #[serde(default)]
    pub metadata: Option<String>,
    /// Claude hooks: `model` of the first SessionStart line (null for Amplifier).
    #[serde(default)]
    pub model: Option<String>,
    /// Claude hooks: the event files read, in reading order (null for Amplifier).
    #[serde(default)]
    pub files: Option<Vec<String>>,
    /// Claude hooks: whether `_transcript_final.jsonl` exists (null for Amplifier).
    #[serde(default)]
    pub transcript: Option<bool>,
    /// Claude hooks: valid event lines across the event files (null for Amplifier).
    #[serde(default)]
    pub events: Option<u64>,
    /// Claude hooks: derived tags `source:S`, `permission:P`, `agent:T`, sorted
    /// (null for Amplifier).
    #[serde(default)]
    pub tags: Option<Vec<String>>,
    /// The time window the record was selected by (`ci-find --since/--until`,
    /// narrowed by `ci-filter --since/--until`): a tool that reads its events
    /// reads those in the window only. Written only when set, as the last key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<time::Interval>,
    /// The `stat` of the record's file when discovery made the record:
    /// what the cache checks an unchanged capture by, so that a run stats
    /// each file once. Not part of the record: never printed or read back.
    #[serde(skip)]
    pub seen: Seen,
}

/// The `stat` of a session record's (regular, usable) file as discovery
/// took it ([`SessionRecord::seen`]), or none (a record read from input).
/// Records equal in every field are equal whatever their files' stats were.
#[derive(Debug, Clone, Default)]
pub struct Seen(pub Option<std::fs::Metadata>);

impl PartialEq for Seen {
    fn eq(&self, _: &Seen) -> bool {
        true
    }
}

impl Seen {
    /// The stat of the regular file `meta` describes, as seen now.
    pub fn of(meta: &std::fs::Metadata) -> Seen {
        Seen(meta.is_file().then(|| meta.clone()))
    }
}

/// The keys of a session record, in output order (`ci-find --columns`
/// offers them in completions).
pub const FIELDS: [&str; 23] = [
    "session",
    "project",
    "workspace",
    "parent",
    "agent",
    "status",
    "started_at",
    "last_event_at",
    "ended_at",
    "working_dir",
    "recipe",
    "recipe_step",
    "parallel_group_id",
    "format",
    "path",
    "bytes",
    "mtime",
    "metadata",
    "model",
    "files",
    "transcript",
    "events",
    "tags",
];

impl SessionRecord {
    /// A record that knows only its id, layout and path: every other field is
    /// unknown (`null`, size 0). Discovery fills in what it finds.
    pub fn new(session: String, format: &'static Format, path: String) -> SessionRecord {
        SessionRecord {
            session,
            project: None,
            workspace: None,
            parent: None,
            agent: None,
            status: None,
            started_at: None,
            last_event_at: None,
            ended_at: None,
            working_dir: None,
            recipe: None,
            recipe_step: None,
            parallel_group_id: None,
            format,
            path,
            bytes: 0,
            mtime: None,
            metadata: None,
            model: None,
            files: None,
            transcript: None,
            events: None,
            tags: None,
            window: None,
            seen: Seen::default(),
        }
    }

    /// Writes the record as one JSON object (no newline): the bytes
    /// `serde_json::to_writer` gives for it, without its per-field machinery
    /// (ci-find prints 100,000 of these in one run).
    pub fn write_json(&self, out: &mut Vec<u8>) {
        use crate::json::write::json_str;
        use std::io::Write as _;
        fn opt(out: &mut Vec<u8>, key: &str, v: &Option<String>) {
            out.extend_from_slice(key.as_bytes());
            match v {
                Some(s) => json_str(out, s),
                None => out.extend_from_slice(b"null"),
            }
        }
        fn list(out: &mut Vec<u8>, key: &str, v: &Option<Vec<String>>) {
            out.extend_from_slice(key.as_bytes());
            match v {
                Some(items) => {
                    out.push(b'[');
                    for (i, s) in items.iter().enumerate() {
                        if i > 0 {
                            out.push(b',');
                        }
                        json_str(out, s);
                    }
                    out.push(b']');
                }
                None => out.extend_from_slice(b"null"),
            }
        }
        out.extend_from_slice(b"{\"session\":");
        json_str(out, &self.session);
        opt(out, ",\"project\":", &self.project);
        opt(out, ",\"workspace\":", &self.workspace);
        opt(out, ",\"parent\":", &self.parent);
        opt(out, ",\"agent\":", &self.agent);
        opt(out, ",\"status\":", &self.status);
        opt(out, ",\"started_at\":", &self.started_at);
        opt(out, ",\"last_event_at\":", &self.last_event_at);
        opt(out, ",\"ended_at\":", &self.ended_at);
        opt(out, ",\"working_dir\":", &self.working_dir);
        opt(out, ",\"recipe\":", &self.recipe);
        out.extend_from_slice(b",\"recipe_step\":");
        match &self.recipe_step {
            // Writing into a Vec cannot fail.
            Some(v) => drop(serde_json::to_writer(&mut *out, v)),
            None => out.extend_from_slice(b"null"),
        }
        opt(out, ",\"parallel_group_id\":", &self.parallel_group_id);
        out.extend_from_slice(b",\"format\":");
        json_str(out, self.format.name);
        out.extend_from_slice(b",\"path\":");
        json_str(out, &self.path);
        out.extend_from_slice(b",\"bytes\":");
        // Writing into a Vec cannot fail.
        let _ = write!(out, "{}", self.bytes);
        opt(out, ",\"mtime\":", &self.mtime);
        opt(out, ",\"metadata\":", &self.metadata);
        opt(out, ",\"model\":", &self.model);
        list(out, ",\"files\":", &self.files);
        out.extend_from_slice(match self.transcript {
            Some(true) => b",\"transcript\":true",
            Some(false) => b",\"transcript\":false",
            None => b",\"transcript\":null",
        });
        out.extend_from_slice(b",\"events\":");
        match self.events {
            Some(n) => drop(write!(out, "{n}")),
            None => out.extend_from_slice(b"null"),
        }
        list(out, ",\"tags\":", &self.tags);
        if let Some(w) = &self.window {
            out.extend_from_slice(b",\"window\":");
            w.write_json(out);
        }
        out.push(b'}');
    }

    /// Start time, parsed.
    pub fn start(&self) -> Option<Timestamp> {
        self.started_at.as_deref().and_then(time::parse_timestamp)
    }

    /// Last known activity: `last_event_at`, else `ended_at`. The file's mtime
    /// is not used: a copy or checkout changes it without any new event.
    pub fn last(&self) -> Option<Timestamp> {
        [&self.last_event_at, &self.ended_at].into_iter().find_map(|t| t.as_deref().and_then(time::parse_timestamp))
    }

    /// Whether this is a child session.
    pub fn is_child(&self) -> bool {
        self.parent.is_some()
    }

    /// Whether the session belongs to workspace `w`: its project folder
    /// (`<root>/<w>/sessions`) or its `workspace` field is `w`.
    pub fn in_workspace(&self, w: &str) -> bool {
        self.project.as_deref() == Some(w) || self.workspace.as_deref() == Some(w)
    }

    /// The session's activity `[start, last]`: the start time (else the last
    /// activity) to the last activity (else the start); `None` when neither is known.
    pub fn active_range(&self) -> Option<(Timestamp, Timestamp)> {
        let (start, last) = (self.start(), self.last());
        Some((start.or(last)?, last.or(start)?))
    }

    /// Whether the session's activity overlaps `[since, until)`: its last
    /// activity is at or after `since` and it started before `until`. A session
    /// with no known time never matches a bound (and always matches no bound).
    pub fn overlaps(&self, since: Option<Timestamp>, until: Option<Timestamp>) -> bool {
        if since.is_none() && until.is_none() {
            return true;
        }
        let Some((start, last)) = self.active_range() else { return false };
        since.is_none_or(|s| last >= s) && until.is_none_or(|u| start < u)
    }
}

/// The project slug Amplifier derives from a working directory: each `/` and
/// `\` becomes `-`, `:` is dropped, a leading `-` is added; empty gives `default`.
pub fn slug_of(dir: &str) -> String {
    let s: String = dir.chars().filter(|&c| c != ':').map(|c| if c == '/' || c == '\\' { '-' } else { c }).collect();
    if s.is_empty() {
        "default".into()
    } else if s.starts_with('-') {
        s
    } else {
        format!("-{s}")
    }
}

/// Why a session id or file name taken from input must not be joined onto a
/// root: it contains `/`, `\` or NUL, or is empty, `.` or `..`.
pub fn unsafe_name(name: &str) -> bool {
    name.is_empty() || name == "." || name == ".." || name.contains(['/', '\\', '\0'])
}

/// The error for an unsafe id, as `unsafe session id "…"`.
pub fn unsafe_id_message(id: &str) -> String {
    format!("unsafe session id {id:?}")
}

/// One session to read, with what is known about it. Built from a session
/// record by [`crate::format::capture`], which asks the session's writer for
/// its files in reading order.
#[derive(Debug, Clone)]
pub struct Capture {
    /// The session id used in provenance.
    pub session: String,
    /// The session record's path (the events file, or the session directory).
    pub path: PathBuf,
    /// The path as shown in reports and provenance.
    pub display: String,
    /// Fills `workspace` on lines that have none (older writers): the session's
    /// metadata workspace, else its project slug.
    pub workspace: Option<String>,
    /// The writer.
    pub format: &'static Format,
    /// The session record, when the capture came from one or from discovery.
    pub record: Option<SessionRecord>,
    /// The files to read, in reading order, each with its own line numbers
    /// (for a one-file writer, `path` itself).
    pub files: Vec<PathBuf>,
}

impl Capture {
    /// The stat of the capture's first file as this run took it (when that
    /// file is the record's own: discovery's, or [`Capture::see`]'s).
    pub fn seen(&self) -> Option<&std::fs::Metadata> {
        let rec = self.record.as_ref()?;
        rec.seen.0.as_ref().filter(|_| self.files.first() == Some(&self.path))
    }

    /// Takes the stat of the capture's first file now, unless it was taken
    /// (or the file is not the record's own).
    pub fn see(&mut self) {
        if self.seen().is_some() || self.files.first() != Some(&self.path) {
            return;
        }
        if let (Some(rec), Ok(meta)) = (self.record.as_mut(), std::fs::metadata(&self.path)) {
            rec.seen = Seen::of(&meta);
        }
    }
    /// Why a session record read from input must not be used: an unsafe
    /// session id, or an unsafe name in its `files` (see [`unsafe_name`]).
    pub fn unsafe_record(rec: &SessionRecord) -> Option<String> {
        if unsafe_name(&rec.session) {
            return Some(unsafe_id_message(&rec.session));
        }
        let files = rec.files.iter().flatten();
        files.filter(|f| unsafe_name(f)).map(|f| format!("unsafe file name {f:?}")).next()
    }
}

/// Sorts newest first by start time (ties and unknown starts by id, then
/// path; sessions with no start time come last).
pub fn sort_newest_first(v: &mut [SessionRecord]) {
    // Each start time is parsed once, not once per comparison; ties compare
    // the records' strings in place (no copies).
    let starts: Vec<Option<Timestamp>> = v.iter().map(SessionRecord::start).collect();
    let mut order: Vec<usize> = (0..v.len()).collect();
    order.sort_unstable_by(|&a, &b| {
        let key = |i: usize| (starts[i].is_none(), std::cmp::Reverse(starts[i]));
        key(a)
            .cmp(&key(b))
            .then_with(|| v[a].session.cmp(&v[b].session))
            .then_with(|| v[a].path.cmp(&v[b].path))
            .then(a.cmp(&b))
    });
    permute(v, order);
}

/// Reorders `v` so that position `i` holds the element that was at `order[i]`
/// (`order` is a permutation of `0..v.len()`).
fn permute<T>(v: &mut [T], mut order: Vec<usize>) {
    for i in 0..v.len() {
        // Follow the cycle starting at i, marking visited slots with their own index.
        let mut cur = i;
        while order[cur] != i {
            let next = order[cur];
            v.swap(cur, next);
            order[cur] = cur;
            cur = next;
        }
        order[cur] = cur;
    }
}

#[cfg(test)]
mod tests;
