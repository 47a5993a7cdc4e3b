//! Discovery of captures under a root, and the session record that describes one.
//!
//! An Amplifier capture is exactly
//! `<root>/<project-slug>/sessions/<session-id>/context-intelligence/events.jsonl`:
//! a fixed depth, never a recursive glob, so the decoys that sit next to real
//! captures (the CLI's own `sessions/<id>/metadata.json`, another logger's
//! `sessions/<id>/events.jsonl`, `transcript.jsonl`, backups, blobs, temp files,
//! a `context-intelligence/` folder with only `metadata.json`) are never counted.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::diag::Diag;
use crate::error::{Error, Result};
use crate::time::{self, Timestamp};

/// Env var naming the Amplifier capture root.
pub const ROOT_ENV: &str = "AMPLIFIER_CONTEXT_INTELLIGENCE_BASE_PATH";

/// Largest `metadata.json` read (real ones are one short line).
const MAX_METADATA: u64 = 1 << 20;

/// The on-disk layout a session comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// Amplifier's context-intelligence `events.jsonl`.
    Amplifier,
    /// Claude Code hook captures in the medicine-wheel `_sessiondata` layout.
    ClaudeHooks,
}

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
    pub format: Format,
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
}

impl SessionRecord {
    /// A record that knows only its id, layout and path: every other field is
    /// unknown (`null`, size 0). Discovery fills in what it finds.
    pub fn new(session: String, format: Format, path: String) -> SessionRecord {
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
        }
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

/// Resolves the roots to search: the `--root` values when given; else the
/// Amplifier root (the env var, whitespace trimmed, `~` expanded, a relative
/// value ignored with a warning, else `~/.amplifier/projects`) plus
/// `$SESSION_DATA_DIR` (Claude hook captures) when set and non-empty.
pub fn resolve_roots(cli: &[PathBuf], diag: &Diag) -> Vec<PathBuf> {
    if !cli.is_empty() {
        return cli.iter().map(|p| expand_tilde(&p.to_string_lossy())).collect();
    }
    let mut roots = vec![amplifier_root(diag)];
    if let Ok(v) = std::env::var(crate::hooks::ROOT_ENV) {
        let v = v.trim();
        if !v.is_empty() {
            roots.push(expand_tilde(v));
        }
    }
    roots
}

fn amplifier_root(diag: &Diag) -> PathBuf {
    if let Ok(v) = std::env::var(ROOT_ENV) {
        let v = v.trim();
        if !v.is_empty() {
            let p = expand_tilde(v);
            if p.is_absolute() {
                return p;
            }
            diag.warn(&format_args!("{ROOT_ENV}={v:?} is relative and was ignored"));
        }
    }
    expand_tilde("~/.amplifier/projects")
}

fn expand_tilde(s: &str) -> PathBuf {
    match (s.strip_prefix('~'), std::env::var_os("HOME")) {
        (Some(rest), Some(home)) if rest.is_empty() || rest.starts_with('/') => {
            PathBuf::from(home).join(rest.trim_start_matches('/'))
        }
        _ => PathBuf::from(s),
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

/// Lists every capture under `root`, in path order: Amplifier captures at the
/// fixed depth, then Claude hook sessions when `root` is a hooks root
/// ([`crate::hooks`]). Fails when the root does not exist; an empty result is
/// for the caller to report.
pub fn discover(root: &Path, diag: &Diag) -> Result<Vec<SessionRecord>> {
    let mut out = discover_amplifier(root, diag)?;
    out.extend(crate::hooks::discover(root, diag));
    Ok(out)
}

fn discover_amplifier(root: &Path, diag: &Diag) -> Result<Vec<SessionRecord>> {
    let projects = read_dir_sorted(root).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => Error::Msg(format!("root does not exist: {}", root.display())),
        _ => Error::Io(root.to_path_buf(), e),
    })?;
    let mut dirs = vec![];
    for project in projects {
        let sessions_dir = project.join("sessions");
        if !sessions_dir.is_dir() {
            continue;
        }
        match read_dir_sorted(&sessions_dir) {
            Ok(ids) => dirs.extend(ids),
            Err(e) => diag.error(&format_args!("{}: {e}", sessions_dir.display())),
        }
    }
    Ok(captures_in_parallel(&dirs, diag))
}

/// The captures of session directories, read on all cores (each costs a stat
/// and a metadata read; a tree can hold 100,000), kept in the given order.
fn captures_in_parallel(dirs: &[PathBuf], diag: &Diag) -> Vec<SessionRecord> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    if threads < 2 || dirs.len() < 256 {
        return dirs.iter().filter_map(|d| capture_at(d, diag)).collect();
    }
    let chunk = dirs.len().div_ceil(threads);
    std::thread::scope(|s| {
        let parts: Vec<_> = dirs
            .chunks(chunk)
            .map(|part| s.spawn(move || part.iter().filter_map(|d| capture_at(d, diag)).collect::<Vec<_>>()))
            .collect();
        // A worker only panics on a bug; its sessions are then missing, never silently:
        // the join error is reported.
        parts
            .into_iter()
            .flat_map(|h| {
                h.join().unwrap_or_else(|_| {
                    diag.error(&"internal error: a discovery thread panicked");
                    vec![]
                })
            })
            .collect()
    })
}

/// The capture in session directory `dir` (`…/sessions/<id>`), if it has one.
pub fn capture_at(dir: &Path, diag: &Diag) -> Option<SessionRecord> {
    capture_in(dir, Some(diag))
}

/// The session record of the capture whose events file is `events`
/// (`…/sessions/<id>/context-intelligence/events.jsonl`), without reporting
/// missing or corrupt metadata: for tools that look a session up from the
/// provenance of a piped event record.
pub fn record_of_events(events: &Path) -> Option<SessionRecord> {
    let ci = events.parent().filter(|d| d.file_name().is_some_and(|n| n == "context-intelligence"))?;
    capture_in(ci.parent()?, None)
}

/// The agent of the session whose events file is `events` (see [`record_of_events`]).
pub fn agent_of(events: &Path) -> Option<String> {
    record_of_events(events)?.agent
}

/// Why a session whose path is not UTF-8 is skipped: session records carry
/// paths as JSON strings, and a lossy path would not open again.
pub const NOT_UTF8: &str = "path is not valid UTF-8 (not supported: records carry paths as JSON strings)";

/// The metadata of `path` when it is a readable regular file (following
/// symbolic links). `Err(None)`: nothing there (not a capture); `Err(Some)`:
/// something unusable is there — a dangling or looping symbolic link, a
/// FIFO, socket, device or directory (never opened: it could block) — with
/// the reason to report.
pub fn usable_file(path: &Path) -> std::result::Result<fs::Metadata, Option<String>> {
    match fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(None),
        Err(e) => return Err(Some(e.to_string())),
        Ok(_) => {}
    }
    match fs::metadata(path) {
        Ok(m) if m.is_file() => Ok(m),
        Ok(_) => Err(Some("not a regular file".into())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(Some("dangling symbolic link".into())),
        Err(e) => Err(Some(e.to_string())),
    }
}

fn capture_in(dir: &Path, diag: Option<&Diag>) -> Option<SessionRecord> {
    let ci = dir.join("context-intelligence");
    let events = ci.join("events.jsonl");
    let meta = match usable_file(&events) {
        Ok(meta) => meta,
        Err(reason) => {
            if let (Some(diag), Some(reason)) = (diag, reason) {
                diag.error(&format_args!("{}: {reason}, skipped", events.display()));
            }
            return None;
        }
    };
    if dir.to_str().is_none() {
        if let Some(diag) = diag {
            diag.error(&format_args!("{}: {NOT_UTF8}, skipped", dir.display()));
        }
        return None;
    }
    let session = dir.file_name()?.to_string_lossy().into_owned();
    let project =
        dir.parent().and_then(Path::parent).and_then(Path::file_name).map(|s| s.to_string_lossy().into_owned());
    let mut rec = SessionRecord {
        project: project.clone(),
        bytes: meta.len(),
        mtime: meta.modified().ok().and_then(|t| Timestamp::try_from(t).ok()).map(time::format_timestamp),
        ..SessionRecord::new(session, Format::Amplifier, events.to_string_lossy().into_owned())
    };
    let meta_path = ci.join("metadata.json");
    rec.metadata = Some(match read_metadata(&meta_path) {
        Ok(Some(m)) => {
            apply_metadata(&mut rec, &m);
            "ok".into()
        }
        Ok(None) => {
            if let Some(diag) = diag {
                diag.warn(&format_args!("{}: missing", meta_path.display()));
            }
            "missing".into()
        }
        Err(reason) => {
            if let Some(diag) = diag {
                diag.warn(&format_args!("{}: {reason}", meta_path.display()));
            }
            "corrupt".into()
        }
    });
    if rec.workspace.is_none() {
        rec.workspace = project;
    }
    if rec.agent.is_none() && rec.parent.is_some() {
        rec.agent = fork_agent(&events);
    }
    Some(rec)
}

fn read_metadata(path: &Path) -> std::result::Result<Option<Map<String, Value>>, String> {
    let file = match fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
    // Sized up front: metadata.json is one short line, so this is one read.
    let size = file.metadata().map_or(0, |m| m.len()).min(MAX_METADATA);
    let mut buf = Vec::with_capacity(size as usize + 1);
    file.take(MAX_METADATA).read_to_end(&mut buf).map_err(|e| e.to_string())?;
    match serde_json::from_slice::<Value>(&buf) {
        Ok(Value::Object(m)) => Ok(Some(m)),
        Ok(_) => Err("not a JSON object".into()),
        Err(e) => Err(format!("invalid JSON: {e}")),
    }
}

fn apply_metadata(rec: &mut SessionRecord, m: &Map<String, Value>) {
    let s = |k: &str| m.get(k).and_then(Value::as_str).map(str::to_owned);
    let nonempty = |k: &str| s(k).filter(|v| !v.is_empty());
    rec.workspace = s("workspace");
    rec.parent = nonempty("parent_id");
    rec.agent = nonempty("agent_name");
    rec.status = s("status");
    rec.started_at = nonempty("started_at");
    rec.last_event_at = nonempty("last_event_at");
    rec.ended_at = nonempty("ended_at");
    rec.working_dir = s("working_dir");
    rec.recipe = nonempty("recipe_name");
    rec.recipe_step = m.get("recipe_step").filter(|v| !v.is_null()).cloned();
    rec.parallel_group_id = nonempty("parallel_group_id");
}

/// The agent name a child's first line (`session:fork`) carries.
fn fork_agent(events: &Path) -> Option<String> {
    let file = fs::File::open(events).ok()?;
    let mut lines = crate::lines::LineReader::new(file.take(1 << 20));
    let line = lines.next_line().ok()??;
    let mut idx = crate::json::Index::new();
    let rec = idx.parse(line.bytes).ok()?;
    if rec.get_str("event")? != "session:fork" {
        return None;
    }
    let agent = rec.get("data")?.get("metadata")?.get("agent_name")?.as_str()?;
    Some(agent.into_owned())
}

fn read_dir_sorted(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut v: Vec<PathBuf> = fs::read_dir(dir)?.filter_map(|e| e.ok().map(|e| e.path())).collect();
    v.sort();
    Ok(v)
}

/// Sorts newest first by start time (ties and unknown starts by id; sessions
/// with no start time come last).
pub fn sort_newest_first(v: &mut [SessionRecord]) {
    // Parse each start time once, not once per comparison.
    v.sort_by_cached_key(|r| {
        let start = r.start();
        (start.is_none(), std::cmp::Reverse(start), r.session.clone(), r.path.clone())
    });
}

/// Resolves a session id given in full or as a unique prefix of at least 8
/// characters, as Amplifier does: an exact match wins; otherwise the prefix
/// must select exactly one session. The same id in two projects is ambiguous.
pub fn select_session<'a>(all: &'a [SessionRecord], wanted: &str) -> Result<Vec<&'a SessionRecord>> {
    if crate::hooks::unsafe_name(wanted) {
        return Err(Error::Usage(format!("--session: {}", crate::hooks::unsafe_id_message(wanted))));
    }
    let exact: Vec<_> = all.iter().filter(|r| r.session == wanted).collect();
    let found = if !exact.is_empty() {
        exact
    } else if wanted.chars().count() >= 8 {
        all.iter().filter(|r| r.session.starts_with(wanted)).collect()
    } else {
        return Err(Error::Usage(format!(
            "session {wanted:?}: no exact match, and a prefix needs at least 8 characters"
        )));
    };
    if found.len() > 1 {
        let mut names: Vec<String> = found.iter().map(|r| format!("{} ({})", r.session, r.path)).collect();
        names.sort();
        return Err(Error::Msg(format!("session {wanted:?} is ambiguous; candidates:\n  {}", names.join("\n  "))));
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_follow_amplifier() {
        assert_eq!(slug_of("/home/u/my-api"), "-home-u-my-api");
        assert_eq!(slug_of("C:\\Users\\dev\\tools"), "-C-Users-dev-tools");
        assert_eq!(slug_of("/"), "-");
        assert_eq!(slug_of(""), "default");
        assert_eq!(slug_of("rel/dir"), "-rel-dir");
    }
}
