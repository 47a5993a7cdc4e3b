//! Where the task folders are, which extension wrote each, and what a
//! session record says of one (the module docs of [`super`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{Tasks, FAMILY, UI_MESSAGES};
use crate::diag::Diag;
use crate::elements::ElementReader;
use crate::files::{read_dir_sorted, usable_file};
use crate::format::{Detail, Format, Memo};
use crate::json::{Index, Kind, Record};
use crate::session::SessionRecord;
use crate::time::{self, Timestamp};

/// The VS Code builds whose user folders hold `globalStorage`.
pub(super) const HOSTS: [&str; 5] = ["Code", "Code - Insiders", "VSCodium", "Cursor", "Windsurf"];

/// The largest task index or metadata file read whole (bytes).
const SMALL_FILE: u64 = 8 << 20;

/// The `tasks` folders a root names: itself (named `tasks`), its `tasks`,
/// or those of the family's extension folders in it or in its `globalStorage`.
pub(super) fn tasks_folders(root: &Path) -> Vec<PathBuf> {
    if root.file_name().is_some_and(|n| n == "tasks") && root.is_dir() {
        return vec![root.to_path_buf()];
    }
    if root.join("tasks").is_dir() {
        return vec![root.join("tasks")];
    }
    let storage = match root.join("globalStorage").is_dir() {
        true => root.join("globalStorage"),
        false => root.to_path_buf(),
    };
    let ids = FAMILY.iter().flat_map(|f| super::ids_of(f));
    ids.map(|id| storage.join(id).join("tasks")).filter(|t| t.is_dir()).collect()
}

/// Whether a folder is a task folder: it holds a `ui_messages.json`.
pub(super) fn is_task_dir(dir: &Path) -> bool {
    std::fs::symlink_metadata(dir.join(UI_MESSAGES)).is_ok()
}

/// The task folders under `root`, in path order.
pub(super) fn task_dirs(root: &Path) -> Vec<PathBuf> {
    let folders = tasks_folders(root);
    folders.iter().flat_map(|t| read_dir_sorted(t).unwrap_or_default()).filter(|d| is_task_dir(d)).collect()
}

/// The format of a task folder: the extension whose folder holds it
/// (`<extension id>/tasks/<task id>`), Cline for `~/.cline/data/tasks`;
/// elsewhere Roo Code when the task has a `history_item.json`, else Cline.
pub(super) fn family_of(task: &Path) -> &'static Format {
    let ext = crate::files::name_above(task, 2);
    let by_id = FAMILY.iter().find(|f| ext.as_deref().is_some_and(|e| super::ids_of(f).contains(&e)));
    match by_id {
        Some(f) => f,
        None if task.join("history_item.json").is_file() => super::ROO,
        None => super::CLINE,
    }
}

/// Reads a small JSON file whole (`None`: missing, not a regular file, too big).
fn small_file(path: &Path) -> Option<Vec<u8>> {
    let meta = usable_file(path).ok()?;
    if meta.len() > SMALL_FILE {
        return None;
    }
    std::fs::read(path).ok()
}

/// A `ts` (milliseconds since the epoch) as a time.
pub(super) fn millis(rec: &Record<'_>) -> Option<Timestamp> {
    rec.get("ts")?.as_f64().and_then(time::from_millis)
}

/// The working directory of each task of a Cline `taskHistory.json`
/// (`id` → `cwdOnTaskInitialization`).
pub(super) type Cwds = HashMap<String, String>;

fn cwds(path: &Path) -> Cwds {
    let mut out = Cwds::new();
    let Ok(file) = crate::files::open_regular(path) else { return out };
    let mut reader = ElementReader::new(file);
    let mut idx = Index::new();
    while let Ok(Some(el)) = reader.next_element() {
        let Ok(rec) = idx.parse(el.bytes) else { continue };
        if let (Some(id), Some(cwd)) = (rec.get_str("id"), rec.get_str("cwdOnTaskInitialization")) {
            out.insert(id.into_owned(), cwd.into_owned());
        }
    }
    out
}

/// What a task folder's small files and its array's ends say.
#[derive(Default)]
struct Head {
    cwd: Option<String>,
    model: Option<String>,
    parent: Option<String>,
    first: Option<Timestamp>,
    last: Option<Timestamp>,
}

/// The first element's time of an array file.
fn first_time(path: &Path) -> Option<Timestamp> {
    let mut reader = ElementReader::new(crate::files::open_regular(path).ok()?);
    let el = reader.next_element().ok()??;
    millis(&Index::new().parse(el.bytes).ok()?)
}

/// The last `"ts":` number in the last 64 KiB of an array file (a compact
/// or pretty-printed array: `"ts":` is no string's bytes, whose quotes are escaped).
fn last_time(path: &Path) -> Option<Timestamp> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = crate::files::open_regular(path).ok()?;
    let len = f.metadata().ok()?.len();
    let mut buf = Vec::new();
    f.seek(SeekFrom::Start(len.saturating_sub(64 * 1024))).ok()?;
    f.take(64 * 1024).read_to_end(&mut buf).ok()?;
    let at = memchr::memmem::rfind(&buf, b"\"ts\":")? + 5;
    let digits: String = buf[at..]
        .iter()
        .skip_while(|b| b.is_ascii_whitespace())
        .take_while(|b| b.is_ascii_digit())
        .map(|&b| b as char)
        .collect();
    Timestamp::from_millisecond(digits.parse().ok()?).ok()
}

/// The first string at `key` of the first element of the array at `key0`.
fn first_of(rec: &Record<'_>, array: &str, key: &str) -> Option<String> {
    let first = rec.get(array)?.items().next()?;
    first.get(key).filter(|v| v.kind() == Kind::String)?.as_str().map(|s| s.into_owned())
}

/// The models `task_metadata.json` says the task chose (`model_usage`:
/// `model_id`, chosen at `ts` in ms), in time order.
pub(super) fn models_by_time(task: &Path) -> Vec<(f64, Box<str>)> {
    let Some(bytes) = small_file(&task.join("task_metadata.json")) else { return vec![] };
    let mut idx = Index::new();
    let Ok(rec) = idx.parse(&bytes) else { return vec![] };
    let Some(usage) = rec.get("model_usage") else { return vec![] };
    let mut out: Vec<(f64, Box<str>)> = usage
        .items()
        .filter_map(|u| {
            let ts = u.get("ts")?.as_f64().filter(|t| t.is_finite())?;
            let model = u.get("model_id").filter(|m| m.kind() == Kind::String)?.as_str()?;
            Some((ts, model.into()))
        })
        .collect();
    out.sort_by(|a, b| a.0.total_cmp(&b.0));
    out
}

/// Reads what the task's own files and its extension's index say.
fn head(task: &Path, messages: &Path, detail: Detail, memo: Option<&Memo>) -> Head {
    let mut h = Head { first: first_time(messages), ..Head::default() };
    if detail == Detail::Full {
        h.last = last_time(messages).max(h.first);
    }
    let mut idx = Index::new();
    if let Some(bytes) = small_file(&task.join("task_metadata.json")) {
        if let Ok(rec) = idx.parse(&bytes) {
            h.model = first_of(&rec, "model_usage", "model_id");
        }
    }
    if let Some(bytes) = small_file(&task.join("history_item.json")) {
        if let Ok(rec) = idx.parse(&bytes) {
            let s = |k: &str| rec.get_str(k).map(|v| v.into_owned()).filter(|v| !v.trim().is_empty());
            h.cwd = s("workspace");
            h.parent = s("parentTaskId");
        }
    }
    // Cline's task index: `<extension>/state/taskHistory.json`.
    let index = task.parent().and_then(Path::parent).map(|e| e.join("state").join("taskHistory.json"));
    if let (None, Some(index)) = (&h.cwd, index.filter(|i| i.is_file())) {
        let map: Arc<Cwds> = match memo {
            Some(m) => m.get_or_build(&index, || cwds(&index)),
            None => Arc::new(cwds(&index)),
        };
        let id = task.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        h.cwd = map.get(&id).cloned();
    }
    h
}

impl Tasks {
    /// The session record of a task folder of this extension (`None`: not
    /// one, or unusable and reported).
    pub fn session_of(
        &self,
        task: &Path,
        detail: Detail,
        memo: Option<&Memo>,
        diag: Option<&Diag>,
    ) -> Option<SessionRecord> {
        if !self.owns(task) {
            return None;
        }
        let messages = task.join(UI_MESSAGES);
        // The file's checks; the session is named by the folder.
        let (meta, path, _) = super::super::file_session(&messages, diag)?;
        let session = task.file_name()?.to_string_lossy().into_owned();
        if crate::session::unsafe_name(&session) {
            return None;
        }
        let h = head(task, &messages, detail, memo);
        let project = h.cwd.as_deref().map(crate::session::slug_of);
        Some(SessionRecord {
            project: project.clone(),
            workspace: project,
            working_dir: h.cwd,
            started_at: h.first.map(time::format_timestamp),
            last_event_at: h.last.map(time::format_timestamp),
            bytes: meta.len(),
            mtime: meta.modified().ok().and_then(|t| Timestamp::try_from(t).ok()).map(time::format_timestamp),
            model: h.model,
            parent: h.parent,
            tags: Some(vec![]),
            ..SessionRecord::new(session, self.format, path.to_owned())
        })
    }
}
