//! Where Amplifier's sessions are and what discovery reads of them: the
//! root, the session directories of its projects, and a session's record
//! from its `events.jsonl` and `metadata.json`.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{Cx, ROOT_ENV};
use crate::diag::Diag;
use crate::error::{Error, Result};
use crate::files::{expand_tilde, name_above, read_dir_sorted, NOT_UTF8};
use crate::session::SessionRecord;
use crate::time::{self, Timestamp};

/// Largest `metadata.json` read (real ones are one short line).
const MAX_METADATA: u64 = 1 << 20;

/// The Amplifier root, and whether the environment named it (else it is
/// the default place, which need not exist).
pub(super) fn amplifier_root(diag: &Diag) -> (PathBuf, bool) {
    if let Ok(v) = std::env::var(ROOT_ENV) {
        let v = v.trim();
        if !v.is_empty() {
            let p = expand_tilde(v);
            if p.is_absolute() {
                return (p, true);
            }
            diag.warn(&format_args!("{ROOT_ENV}={v:?} is relative and was ignored"));
        }
    }
    (expand_tilde("~/.amplifier/projects"), false)
}

pub(super) fn discover(root: &Path, cx: &Cx<'_>, diag: &Diag) -> Result<Vec<SessionRecord>> {
    let projects = read_dir_sorted(root).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => Error::Msg(format!("root does not exist: {}", root.display())),
        _ => Error::Io(root.to_path_buf(), e),
    })?;
    let dirs = session_dirs(root, &projects, Some(diag));
    // Each costs a stat and a metadata read; a tree can hold 100,000.
    Ok(crate::files::in_parallel(&dirs, |dir| capture_in(dir, Some(diag), Some(cx)), diag))
}

/// The directories that may be sessions under `root`, whose entries are
/// `entries`: `<root>/<project>/sessions/<id>` for every project folder;
/// when `root` is itself a project folder (it has `sessions/`), its own
/// `sessions/<id>`; when it is a project's `sessions` folder, its
/// `<id>` holding a `context-intelligence` folder. A `sessions` folder that
/// cannot be listed is reported (when `diag` is given).
pub(super) fn session_dirs(root: &Path, entries: &[PathBuf], diag: Option<&Diag>) -> Vec<PathBuf> {
    use std::io::ErrorKind;
    let mut dirs = vec![];
    let folders = std::iter::once(root.join("sessions")).chain(entries.iter().map(|p| p.join("sessions")));
    for sessions in folders {
        match std::fs::metadata(&sessions) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => continue,
            Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => continue,
            // A project folder that cannot be searched (mode 000): its
            // sessions would vanish without a word. Named as the folder
            // (as another writer listing it names it: reported once).
            Err(e) => {
                if let Some(d) = diag {
                    let folder = sessions.parent().unwrap_or(&sessions);
                    d.error(&format_args!("{}: {e}, skipped", folder.display()));
                }
                continue;
            }
        }
        match read_dir_sorted(&sessions) {
            Ok(ids) => dirs.extend(ids),
            Err(e) => {
                if let Some(d) = diag {
                    d.error(&format_args!("{}: {e}", sessions.display()));
                }
            }
        }
    }
    if name_above(root, 0).is_some_and(|n| n == "sessions") {
        dirs.extend(entries.iter().filter(|d| d.join("context-intelligence").is_dir()).cloned());
    }
    dirs
}

/// The session record of the capture whose events file is `events`
/// (`…/sessions/<id>/context-intelligence/events.jsonl`), without reporting
/// missing or corrupt metadata: for tools that look a session up from the
/// provenance of a piped event record.
pub fn record_of_events(events: &Path) -> Option<SessionRecord> {
    let ci = events.parent().filter(|d| d.file_name().is_some_and(|n| n == "context-intelligence"))?;
    capture_in(ci.parent()?, None, None)
}

/// The agent of the session whose events file is `events` (see [`record_of_events`]).
pub fn agent_of(events: &Path) -> Option<String> {
    record_of_events(events)?.agent
}

/// The record of the session directory `dir` (its events file's `stat`,
/// its `metadata.json`; with `cx`, what the run's peeks kept of them).
pub(super) fn capture_in(dir: &Path, diag: Option<&Diag>, cx: Option<&Cx<'_>>) -> Option<SessionRecord> {
    let mut events = PathBuf::with_capacity(dir.as_os_str().len() + 40);
    events.push(dir);
    events.push("context-intelligence/events.jsonl");
    let meta = crate::files::usable_or_reported(&events, diag)?;
    let Some(events_str) = events.to_str() else {
        if let Some(diag) = diag {
            diag.error(&format_args!("{}: {NOT_UTF8}, skipped", dir.display()));
        }
        return None;
    };
    let session = name_above(dir, 0)?;
    let project = name_above(dir, 2);
    let mut rec = SessionRecord {
        project: project.clone(),
        bytes: meta.len(),
        seen: crate::session::Seen::of(&meta),
        mtime: meta.modified().ok().and_then(|t| Timestamp::try_from(t).ok()).map(time::format_timestamp),
        ..SessionRecord::new(session, &super::FORMAT, events_str.to_owned())
    };
    let mut meta_path = events;
    meta_path.set_file_name("metadata.json");
    rec.metadata = Some(
        match super::kept::metadata(&mut rec, &meta_path, cx, |rec| {
            with_metadata(&meta_path, |m| apply_metadata(rec, m))
        }) {
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
        rec.agent = super::kept::fork_agent(Path::new(&rec.path), &meta, cx, || fork_agent(Path::new(&rec.path)));
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
    let mut file = match crate::files::open_nonblocking(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(e.to_string()),
    };
    let result = read_metadata(&mut file, apply);
    // Only a file that did not read as an object is looked at: a FIFO (with
    // no writer it reads as empty), a device, a directory.
    if result.is_err() && file.metadata().is_ok_and(|m| !m.is_file()) {
        return Err("not a regular file".into());
    }
    result
}

/// Reads an opened metadata file (see [`with_metadata`]).
fn read_metadata(file: &mut fs::File, apply: impl FnOnce(&crate::json::Record)) -> std::result::Result<bool, String> {
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

/// The distinct models of the `llm:response` lines of `events` (bad lines
/// and an unreadable file give nothing: ci-cat reports those).
pub(super) fn response_models(events: &Path) -> Vec<String> {
    let mut models: Vec<String> = vec![];
    let Ok(file) = fs::File::open(events) else { return models };
    let mut lines = crate::lines::LineReader::new(file);
    let mut idx = crate::json::Index::new();
    let marker = memchr::memmem::Finder::new(b"llm:response");
    while let Ok(Some(line)) = lines.next_line() {
        // Only lines that can be responses are parsed (`llm:request` lines
        // are the megabyte ones).
        if marker.find(line.bytes).is_none() {
            continue;
        }
        let Ok(rec) = idx.skim(line.bytes) else { continue };
        if rec.get_str("event").as_deref() != Some("llm:response") {
            continue;
        }
        let model = rec.get("data").and_then(|d| d.get("model")).and_then(|m| m.as_str());
        if let Some(m) = model {
            if !models.iter().any(|x| *x == m) {
                models.push(m.into_owned());
            }
        }
    }
    models
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_duplicates_and_escaped_keys_as_serde_json() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("metadata.json");
        let text = r#"{"status":"a","st\u0061tus":"b","parent_id":"","recipe_step":[1.50,{"k":null}],"agent_name":7}"#;
        std::fs::write(&path, text).unwrap();
        let mut rec = SessionRecord::new("s".into(), &super::super::FORMAT, "p".into());
        assert_eq!(with_metadata(&path, |m| apply_metadata(&mut rec, m)), Ok(true));
        assert_eq!((rec.status.as_deref(), rec.parent.as_deref(), rec.agent.as_deref()), (Some("b"), None, None));
        // Numbers as written (`1.50`, not `1.5`).
        assert_eq!(serde_json::to_string(&rec.recipe_step).ok().as_deref(), Some(r#"[1.50,{"k":null}]"#));
        std::fs::write(&path, "[1]").unwrap();
        assert_eq!(with_metadata(&path, |_| {}), Err("not a JSON object".into()));
        std::fs::write(&path, "{\"a\":").unwrap();
        assert_eq!(
            with_metadata(&path, |_| {}),
            Err("invalid JSON: EOF while parsing a value at line 1 column 5".into())
        );
        assert_eq!(with_metadata(&dir.path().join("none"), |_| {}), Ok(false));
    }
}
