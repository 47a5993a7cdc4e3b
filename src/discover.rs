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
use serde_json::Value;

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

    /// Writes the record as one JSON object (no newline): the bytes
    /// `serde_json::to_writer` gives for it, without its per-field machinery
    /// (ci-find prints 100,000 of these in one run).
    pub fn write_json(&self, out: &mut Vec<u8>) {
        use crate::output::json_str;
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
        out.extend_from_slice(match self.format {
            Format::Amplifier => b",\"format\":\"amplifier\"",
            Format::ClaudeHooks => b",\"format\":\"claude-hooks\"",
        });
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
/// The directories are handed out in small blocks, so a thread that is slowed
/// down (a busy machine, a cold cache) does not leave the other waiting. Each
/// record is written once into its slot of one allocation, which is then
/// compacted in place (records are large: copying 100,000 of them into fresh
/// memory costs more than reading their metadata).
fn captures_in_parallel(dirs: &[PathBuf], diag: &Diag) -> Vec<SessionRecord> {
    const BLOCK: usize = 256;
    let capture = |dir: &PathBuf| capture_in(dir, Some(diag));
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    if threads < 2 || dirs.len() < 256 {
        return dirs.iter().filter_map(capture).collect();
    }
    let mut slots: Vec<Option<SessionRecord>> = Vec::new();
    slots.resize_with(dirs.len(), || None);
    let blocks = std::sync::Mutex::new(dirs.chunks(BLOCK).zip(slots.chunks_mut(BLOCK)));
    let work = || loop {
        // A poisoned lock means another worker panicked: stop taking blocks.
        let Some((block, out)) = blocks.lock().ok().and_then(|mut b| b.next()) else { return };
        for (dir, slot) in block.iter().zip(out) {
            *slot = capture(dir);
        }
    };
    std::thread::scope(|s| {
        let helpers: Vec<_> = (1..threads.min(dirs.len().div_ceil(BLOCK))).map(|_| s.spawn(work)).collect();
        work();
        // A worker only panics on a bug; its sessions are then missing, never silently:
        // the join error is reported.
        for h in helpers {
            if h.join().is_err() {
                diag.error(&"internal error: a discovery thread panicked");
            }
        }
    });
    // `filter_map` (unlike `flatten`) collects in place: no second allocation.
    #[allow(clippy::filter_map_identity)]
    slots.into_iter().filter_map(|r| r).collect()
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
    // One stat that follows links answers the common case (a regular file, or
    // nothing there); `lstat` is asked only when that fails with "not found",
    // to tell a dangling link from no file. Any other failure of `stat` is the
    // one `lstat` would have given first, or the link's own (a loop).
    match fs::metadata(path) {
        Ok(m) if m.is_file() => Ok(m),
        Ok(_) => Err(Some("not a regular file".into())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => match fs::symlink_metadata(path) {
            Ok(_) => Err(Some("dangling symbolic link".into())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(None),
            Err(e) => Err(Some(e.to_string())),
        },
        Err(e) => Err(Some(e.to_string())),
    }
}

fn capture_in(dir: &Path, diag: Option<&Diag>) -> Option<SessionRecord> {
    let mut events = PathBuf::with_capacity(dir.as_os_str().len() + 40);
    events.push(dir);
    events.push("context-intelligence/events.jsonl");
    let meta = match usable_file(&events) {
        Ok(meta) => meta,
        Err(reason) => {
            if let (Some(diag), Some(reason)) = (diag, reason) {
                diag.error(&format_args!("{}: {reason}, skipped", events.display()));
            }
            return None;
        }
    };
    let Some(events_str) = events.to_str() else {
        if let Some(diag) = diag {
            diag.error(&format_args!("{}: {NOT_UTF8}, skipped", dir.display()));
        }
        return None;
    };
    let session = dir.file_name()?.to_string_lossy().into_owned();
    let project =
        dir.parent().and_then(Path::parent).and_then(Path::file_name).map(|s| s.to_string_lossy().into_owned());
    let mut rec = SessionRecord {
        project: project.clone(),
        bytes: meta.len(),
        mtime: meta.modified().ok().and_then(|t| Timestamp::try_from(t).ok()).map(time::format_timestamp),
        ..SessionRecord::new(session, Format::Amplifier, events_str.to_owned())
    };
    let mut meta_path = events;
    meta_path.set_file_name("metadata.json");
    rec.metadata = Some(
        match with_metadata(&meta_path, |m| apply_metadata(&mut rec, m)) {
            Ok(true) => "ok",
            Ok(false) => {
                if let Some(diag) = diag {
                    diag.warn(&format_args!("{}: missing", meta_path.display()));
                }
                "missing"
            }
            Err(reason) => {
                if let Some(diag) = diag {
                    diag.warn(&format_args!("{}: {reason}", meta_path.display()));
                }
                "corrupt"
            }
        }
        .into(),
    );
    if rec.workspace.is_none() {
        rec.workspace = project;
    }
    if rec.agent.is_none() && rec.parent.is_some() {
        rec.agent = fork_agent(Path::new(&rec.path));
    }
    Some(rec)
}

thread_local! {
    /// Per-thread scratch for reading metadata files: the bytes and the scanner's index.
    static METADATA_SCRATCH: std::cell::RefCell<(Vec<u8>, crate::json::Index)> =
        std::cell::RefCell::new((Vec::new(), crate::json::Index::new()));
}

/// Reads the metadata file `path` and hands its top-level object to `apply`.
/// `Ok(false)`: no such file; `Err`: unreadable or not a JSON object, with the
/// reason (serde_json's wording, as before this scanner was used here).
///
/// The file is read into a reused per-thread buffer and validated with the
/// project's scanner ([`crate::json`], the grammar serde_json accepts): no
/// DOM, no `fstat`. A read that returns less than the buffer holds and gives
/// a valid object ends the reading (a regular file's read is short only at
/// its end on local file systems); anything else is read to the end first.
fn with_metadata(path: &Path, apply: impl FnOnce(&crate::json::Record)) -> std::result::Result<bool, String> {
    let mut file = match fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(e.to_string()),
    };
    METADATA_SCRATCH.with_borrow_mut(|(buf, idx)| {
        if buf.is_empty() {
            buf.resize(16 * 1024, 0);
        }
        let mut len = 0;
        let mut checked_short = false;
        loop {
            if len == buf.len() {
                if len as u64 >= MAX_METADATA {
                    break; // read no further, as before: the parse reports it
                }
                buf.resize((len * 2).min(MAX_METADATA as usize), 0);
            }
            match file.read(&mut buf[len..]) {
                Ok(0) => break,
                Ok(n) => len += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e.to_string()),
            }
            if !checked_short && len < buf.len() {
                checked_short = true;
                if let Ok(rec) = idx.parse(&buf[..len]) {
                    apply(&rec);
                    return Ok(true);
                }
            }
        }
        let text = &buf[..len];
        if let Ok(rec) = idx.parse(text) {
            apply(&rec);
            return Ok(true);
        }
        // Only damaged files get here: serde_json words the reason.
        match serde_json::from_slice::<Value>(text) {
            Ok(Value::Object(m)) => {
                // The scanner refused what serde_json accepts: not expected (same
                // grammar), but the object is still used, through its canonical text.
                let canon = serde_json::to_vec(&m).map_err(|e| e.to_string())?;
                let rec = idx.parse(&canon).map_err(|e| format!("invalid JSON: {e}"))?;
                apply(&rec);
                Ok(true)
            }
            Ok(_) => Err("not a JSON object".into()),
            Err(e) => Err(format!("invalid JSON: {e}")),
        }
    })
}

/// Fills the record's metadata fields in one pass over the object's members
/// (a later duplicate key wins, as with serde_json).
fn apply_metadata(rec: &mut SessionRecord, m: &crate::json::Record) {
    for (key, v) in m.members() {
        let decoded;
        let key = if key.contains(&b'\\') {
            let Some(k) = crate::json::decode_str(key) else { continue };
            decoded = k;
            decoded.as_bytes()
        } else {
            key
        };
        let s = || v.as_str().map(std::borrow::Cow::into_owned);
        let nonempty = || s().filter(|v| !v.is_empty());
        match key {
            b"workspace" => rec.workspace = s(),
            b"parent_id" => rec.parent = nonempty(),
            b"agent_name" => rec.agent = nonempty(),
            b"status" => rec.status = s(),
            b"started_at" => rec.started_at = nonempty(),
            b"last_event_at" => rec.last_event_at = nonempty(),
            b"ended_at" => rec.ended_at = nonempty(),
            b"working_dir" => rec.working_dir = s(),
            b"recipe_name" => rec.recipe = nonempty(),
            b"recipe_step" => rec.recipe_step = Some(v).filter(|v| !v.is_null()).and_then(|v| v.to_value()),
            b"parallel_group_id" => rec.parallel_group_id = nonempty(),
            _ => {}
        }
    }
}

/// The agent name a child's first line (`session:fork`) carries.
fn fork_agent(events: &Path) -> Option<String> {
    let file = fs::File::open(events).ok()?;
    // A small first buffer: the line is short (it grows for a long one).
    let mut lines = crate::lines::LineReader::with_capacity(file.take(1 << 20), 4096);
    let line = lines.next_line().ok()??;
    let mut idx = crate::json::Index::new();
    let rec = idx.parse(line.bytes).ok()?;
    if rec.get_str("event")? != "session:fork" {
        return None;
    }
    let agent = rec.get("data")?.get("metadata")?.get("agent_name")?.as_str()?;
    Some(agent.into_owned())
}

/// The entries of `dir`, sorted. All share the parent `dir`, so comparing the
/// whole paths as bytes gives the order of `Path`'s component-wise comparison
/// at a fraction of its cost (a sessions folder can hold thousands of entries).
pub(crate) fn read_dir_sorted(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut v: Vec<PathBuf> = fs::read_dir(dir)?.filter_map(|e| e.ok().map(|e| e.path())).collect();
    v.sort_unstable_by(|a, b| a.as_os_str().as_encoded_bytes().cmp(b.as_os_str().as_encoded_bytes()));
    Ok(v)
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
    fn write_json_is_serde_json() {
        let mut full = SessionRecord::new("s\"1\u{1}é".into(), Format::ClaudeHooks, "/p/a b\\c".into());
        full.project = Some("-p".into());
        full.recipe_step = Some(serde_json::json!({"b": [1.5, null], "a": "x"}));
        full.bytes = 123;
        full.files = Some(vec!["_claude_Stop.jsonl".into(), "x\ny".into()]);
        full.transcript = Some(false);
        full.events = Some(7);
        full.tags = Some(vec![]);
        let bare = SessionRecord::new("id".into(), Format::Amplifier, "/p".into());
        for r in [full, bare] {
            let mut ours = vec![];
            r.write_json(&mut ours);
            assert_eq!(String::from_utf8(ours).unwrap(), serde_json::to_string(&r).unwrap());
        }
    }

    #[test]
    fn newest_first_with_ties_by_id_then_path() {
        let rec = |id: &str, path: &str, start: Option<&str>| SessionRecord {
            started_at: start.map(str::to_owned),
            ..SessionRecord::new(id.into(), Format::Amplifier, path.into())
        };
        let mut v = vec![
            rec("b", "/2", None),
            rec("c", "/1", Some("2026-01-01T00:00:00Z")),
            rec("a", "/9", None),
            rec("b", "/1", Some("2026-01-02T00:00:00+00:00")),
            rec("a", "/3", Some("2026-01-01T00:00:00.000+00:00")),
            rec("b", "/0", None),
        ];
        sort_newest_first(&mut v);
        let got: Vec<(&str, &str)> = v.iter().map(|r| (r.session.as_str(), r.path.as_str())).collect();
        assert_eq!(got, [("b", "/1"), ("a", "/3"), ("c", "/1"), ("a", "/9"), ("b", "/0"), ("b", "/2")]);
    }

    #[test]
    fn metadata_duplicates_and_escaped_keys_as_serde_json() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("metadata.json");
        let text = r#"{"status":"a","st\u0061tus":"b","parent_id":"","recipe_step":[1.50,{"k":null}],"agent_name":7}"#;
        std::fs::write(&path, text).unwrap();
        let mut rec = SessionRecord::new("s".into(), Format::Amplifier, "p".into());
        assert_eq!(with_metadata(&path, |m| apply_metadata(&mut rec, m)), Ok(true));
        assert_eq!((rec.status.as_deref(), rec.parent.as_deref(), rec.agent.as_deref()), (Some("b"), None, None));
        assert_eq!(rec.recipe_step, Some(serde_json::json!([1.5, {"k": null}])));
        std::fs::write(&path, "[1]").unwrap();
        assert_eq!(with_metadata(&path, |_| {}), Err("not a JSON object".into()));
        std::fs::write(&path, "{\"a\":").unwrap();
        assert_eq!(
            with_metadata(&path, |_| {}),
            Err("invalid JSON: EOF while parsing a value at line 1 column 5".into())
        );
        assert_eq!(with_metadata(&dir.path().join("none"), |_| {}), Ok(false));
    }

    #[test]
    fn slugs_follow_amplifier() {
        assert_eq!(slug_of("/home/u/my-api"), "-home-u-my-api");
        assert_eq!(slug_of("C:\\Users\\dev\\tools"), "-C-Users-dev-tools");
        assert_eq!(slug_of("/"), "-");
        assert_eq!(slug_of(""), "default");
        assert_eq!(slug_of("rel/dir"), "-rel-dir");
    }
}
