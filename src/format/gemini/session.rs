//! Where Gemini CLI's sessions are, and what a session record says of one
//! (the module docs of [`super`]).

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use super::{legacy, LineKind, FORMAT};
use crate::diag::Diag;
use crate::files::{dir_above, name_above, read_dir_sorted};
use crate::format::Detail;
use crate::session::SessionRecord;
use crate::time::{self, Timestamp};

/// The `chats` folders under `root` (module docs of [`super`]: what a root
/// may be): its own, or its `chats` folder, or those of the project folders
/// in its `.gemini/tmp` folder, its `tmp` folder, or itself.
fn chats_dirs(root: &Path) -> Vec<PathBuf> {
    if name_above(root, 0).is_some_and(|n| n == "chats") && root.is_dir() {
        return vec![root.to_path_buf()];
    }
    if root.join("chats").is_dir() {
        return vec![root.join("chats")];
    }
    let tmp = [root.join(".gemini/tmp"), root.join("tmp")].into_iter().find(|t| t.is_dir());
    read_dir_sorted(&tmp.unwrap_or_else(|| root.to_path_buf()))
        .unwrap_or_default()
        .into_iter()
        .map(|p| p.join("chats"))
        .filter(|c| c.is_dir())
        .collect()
}

/// `<something>.jsonl`, or a legacy `<something>.json`.
pub(super) fn is_chat_name(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "jsonl") || legacy::is_legacy_name(path)
}

/// The chat files under `root`, in path order: each `chats` folder's and
/// those of its subagent folders (outside Gemini's `tmp` layout, only those
/// whose first line is a Gemini CLI header: Qwen Code has `chats` folders too).
pub(super) fn root_files(root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in chats_dirs(root) {
        for entry in read_dir_sorted(&dir).unwrap_or_default() {
            if entry.is_dir() {
                files.extend(read_dir_sorted(&entry).unwrap_or_default().into_iter().filter(|f| is_chat_file(f)));
            } else if is_chat_file(&entry) {
                files.push(entry);
            }
        }
    }
    files.sort_unstable();
    files
}

/// Whether a file is a subagent's: in a folder inside a `chats` folder.
fn is_subagent_file(file: &Path) -> bool {
    name_above(file, 2).is_some_and(|n| n == "chats")
}

/// Whether a file sits in a `tmp/<project>/chats` folder (or a subagent
/// folder in one), or its first non-blank line is a Gemini CLI header
/// (another writer's chats folder, Qwen Code's, is not Gemini's).
pub(super) fn is_chat_file(file: &Path) -> bool {
    if !is_chat_name(file) {
        return false;
    }
    let above = |up: usize, name: &str| name_above(file, up).is_some_and(|n| n == name);
    if above(1, "chats") && above(3, "tmp") || above(2, "chats") && above(4, "tmp") {
        return true;
    }
    if legacy::is_legacy_name(file) {
        return legacy::head(file).is_some_and(|h| h.get("sessionId").is_some() && h.get("projectHash").is_some());
    }
    let mut found = false;
    crate::format::head_records(file, 1, 8 << 20, |rec| {
        found = rec.is_some_and(|r| LineKind::of(r) == LineKind::Format(&FORMAT) && r.get("projectHash").is_some());
        false
    });
    found
}

/// What discovery reads off a chat file's first lines.
#[derive(Debug, Default)]
struct Head {
    session: Option<String>,
    started: Option<Timestamp>,
    kind: Option<String>,
    directory: Option<String>,
    model: Option<String>,
    /// The latest time of any record read.
    last: Option<Timestamp>,
}

/// What discovery reads of a legacy document: its keys before `messages`,
/// and the first `model` in its first 64 KiB.
fn legacy_head(file: &Path) -> Head {
    let Some(doc) = legacy::head(file) else { return Head::default() };
    let s = |k: &str| doc.get(k).and_then(|v| v.as_str()).map(str::to_owned).filter(|v| !v.trim().is_empty());
    let t = |k: &str| doc.get(k).and_then(|v| v.as_str()).and_then(time::parse_timestamp);
    let directory = doc.get("directories").and_then(|d| d.get(0)).and_then(|d| d.as_str()).map(str::to_owned);
    let start = crate::files::open_regular(file).ok().and_then(|mut f| legacy::read_up_to(&mut f, legacy::HEAD));
    let model = start.and_then(|text| {
        let at = memchr::memmem::find(&text, b"\"model\"")? + 7;
        let open = at + memchr::memchr(b'"', &text[at..])? + 1;
        let close = open + memchr::memchr(b'"', &text[open..])?;
        String::from_utf8(text[open..close].to_vec()).ok()
    });
    Head { session: s("sessionId"), started: t("startTime"), kind: s("kind"), directory, model, last: t("lastUpdated") }
}

/// Reads a chat file's first lines (at most 64, starting within 8 MiB);
/// for [`Detail::Reading`], which leaves out the latest time, only up to
/// the header and the first model.
fn head(file: &Path, detail: Detail) -> Head {
    if legacy::is_legacy_name(file) {
        return legacy_head(file);
    }
    let mut h = Head::default();
    crate::format::head_records(file, 64, 8 << 20, |rec| {
        let Some(rec) = rec else { return true };
        let s = |k: &str| rec.get_str(k).map(Cow::into_owned).filter(|v| !v.trim().is_empty());
        let t = |k: &str| rec.get_str(k).as_deref().and_then(time::parse_timestamp);
        h.last = h.last.max(t("timestamp"));
        if rec.get("projectHash").is_some() && h.session.is_none() {
            h.session = s("sessionId");
            h.started = t("startTime");
            h.kind = s("kind");
            let dirs = rec.get("directories");
            h.directory = dirs.and_then(|d| d.items().next()).and_then(|d| d.as_str()).map(Cow::into_owned);
        }
        if h.model.is_none() && rec.get_str("type").as_deref() == Some("gemini") {
            h.model = s("model");
        }
        detail != Detail::Reading || h.session.is_none() || h.model.is_none()
    });
    h
}

/// The project path of a project folder: its `.project_root` marker, else
/// the path `projects.json` (in the `.gemini` folder above `tmp`) maps to it.
fn project_root(project: &Path) -> Option<String> {
    if let Ok(text) = std::fs::read_to_string(project.join(".project_root")) {
        let text = text.trim();
        if !text.is_empty() {
            return Some(text.to_owned());
        }
    }
    let folder = name_above(project, 0)?;
    let registry = std::fs::read(project.parent()?.parent()?.join("projects.json")).ok()?;
    let value: serde_json::Value = serde_json::from_slice(&registry).ok()?;
    let projects = value.get("projects")?.as_object()?;
    projects.iter().find(|(_, slug)| slug.as_str() == Some(folder.as_str())).map(|(path, _)| path.clone())
}

/// The sessions of `files`: one per file, but a legacy `.json` and a
/// `.jsonl` of the same session in one folder (Gemini continued the
/// legacy session in a new file, copying its messages) are one session,
/// the `.jsonl`'s record naming both files, the `.json` first: read last
/// copy wins, each message counts once, the `.jsonl`'s copy winning.
pub(super) fn sessions(files: &[PathBuf], detail: Detail, diag: &Diag) -> Vec<SessionRecord> {
    let records = crate::files::in_parallel(files, |f| session_of(f, detail, Some(diag)), diag);
    let key = |r: &SessionRecord| (Path::new(&r.path).parent().map(Path::to_path_buf), r.session.clone());
    let mut legacy: std::collections::HashMap<_, SessionRecord> =
        records.iter().filter(|r| legacy::is_legacy_name(Path::new(&r.path))).map(|r| (key(r), r.clone())).collect();
    let continued: std::collections::HashSet<_> = records
        .iter()
        .filter(|r| !legacy::is_legacy_name(Path::new(&r.path)) && legacy.contains_key(&key(r)))
        .map(key)
        .collect();
    let mut out = Vec::with_capacity(records.len());
    for mut r in records {
        let k = key(&r);
        if legacy::is_legacy_name(Path::new(&r.path)) {
            if !continued.contains(&k) {
                out.push(r);
            }
            continue;
        }
        if let Some(old) = legacy.remove(&k) {
            let name = |p: &str| Path::new(p).file_name().map(|n| n.to_string_lossy().into_owned());
            r.files = Some(name(&old.path).into_iter().chain(name(&r.path)).collect());
            r.started_at = old.started_at.or(r.started_at);
            r.bytes += old.bytes;
        }
        out.push(r);
    }
    out
}

/// The files of a session: its own, or the two it is made of ([`sessions`]).
pub(super) fn files(rec: &SessionRecord) -> Vec<PathBuf> {
    let path = Path::new(&rec.path);
    match (&rec.files, path.parent()) {
        (Some(names), Some(dir)) if names.len() > 1 => names.iter().map(|n| dir.join(n)).collect(),
        _ => vec![path.to_path_buf()],
    }
}

/// The session record of a chat file (module docs of [`super`]);
/// [`Detail::Reading`] leaves out its last timestamp (read off its end).
pub(super) fn session_of(file: &Path, detail: Detail, diag: Option<&Diag>) -> Option<SessionRecord> {
    let (meta, path, stem) = crate::format::file_session(file, diag)?;
    let h = head(file, detail);
    let session = h.session.filter(|s| !crate::session::unsafe_name(s)).unwrap_or(stem);
    let last = match detail {
        Detail::Full if legacy::is_legacy_name(file) => h.last.max(h.started),
        Detail::Full => {
            let tail = crate::format::last_time(file, meta.len());
            tail.max(h.last).max(h.started)
        }
        Detail::Reading => None,
    };
    let subagent = is_subagent_file(file);
    let in_layout = subagent || name_above(file, 1).is_some_and(|n| n == "chats");
    let up = if subagent { 3 } else { 2 };
    let project_dir = in_layout.then(|| dir_above(file, up)).flatten();
    let project = project_dir.as_deref().and_then(|d| name_above(d, 0));
    let working_dir = project_dir.as_deref().and_then(project_root).or(h.directory);
    Some(SessionRecord {
        project: project.clone(),
        workspace: project,
        working_dir,
        started_at: h.started.map(time::format_timestamp),
        last_event_at: last.map(time::format_timestamp),
        bytes: meta.len(),
        mtime: meta.modified().ok().and_then(|t| Timestamp::try_from(t).ok()).map(time::format_timestamp),
        model: h.model,
        parent: if subagent { name_above(file, 1) } else { None },
        tags: Some(h.kind.map(|k| format!("kind:{k}")).into_iter().collect()),
        ..SessionRecord::new(session, &FORMAT, path.to_owned())
    })
}
