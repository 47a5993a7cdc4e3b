//! Where a Copilot home's event logs are and what discovery reads of them:
//! the `events.jsonl` files under a root, and a session's record from its
//! log's first and last lines (and its `workspace.yaml`).

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use super::{line_time, Detail, LineKind, FORMAT};
use crate::diag::Diag;
use crate::files::read_dir_sorted;
use crate::session::{slug_of, SessionRecord};
use crate::time::{self, Timestamp};

/// The name of a session folder's event log.
pub(super) const EVENTS: &str = "events.jsonl";

/// The folder of a Copilot home that holds the sessions.
pub(super) const STATE: &str = "session-state";

/// The event logs of a `session-state` folder: each `<id>/events.jsonl`,
/// and each `<id>.jsonl` of older builds, in path order.
fn state_files(dir: &Path) -> Vec<PathBuf> {
    let entries = read_dir_sorted(dir).unwrap_or_default();
    // A log that is there but unusable (a FIFO, a dangling link) is kept,
    // to be reported when its session is made.
    let log = |p: PathBuf| match p.is_dir() {
        true => Some(p.join(EVENTS)).filter(|f| f.symlink_metadata().is_ok()),
        false => Some(p),
    };
    entries.into_iter().filter_map(log).filter(|f| f.extension().is_some_and(|e| e == "jsonl")).collect()
}

/// The event logs under `root`: a Copilot home (holding `session-state/`),
/// a `session-state` folder, or one session's folder.
pub(super) fn root_files(root: &Path) -> Vec<PathBuf> {
    if root.join(STATE).is_dir() {
        state_files(&root.join(STATE))
    } else if crate::files::name_above(root, 0).is_some_and(|n| n == STATE) {
        state_files(root)
    } else if root.join(EVENTS).is_file() {
        vec![root.join(EVENTS)]
    } else {
        vec![]
    }
}

/// Whether a file is a Copilot event log: `session-state/<id>/events.jsonl`
/// or `session-state/<id>.jsonl`, or a `.jsonl` whose first line is a
/// Copilot event (an `events.jsonl` elsewhere is another writer's name too).
pub(super) fn is_event_log(file: &Path) -> bool {
    if file.extension().is_none_or(|e| e != "jsonl") {
        return false;
    }
    let named = |up: usize, n: &str| crate::files::name_above(file, up).is_some_and(|x| x == n);
    if named(0, EVENTS) && named(2, STATE) || named(1, STATE) {
        return true;
    }
    let mut found = false;
    super::super::head_records(file, 1, 8 << 20, |rec| {
        found = rec.is_some_and(|r| LineKind::of(r) == LineKind::Format(&FORMAT));
        false
    });
    found
}

/// What discovery reads off an event log's first lines.
#[derive(Debug, Default)]
struct Head {
    cwd: Option<String>,
    model: Option<String>,
    version: Option<String>,
    first: Option<Timestamp>,
    last: Option<Timestamp>,
}

/// Reads an event log's first lines (at most 64, starting within 8 MiB).
fn head(file: &Path) -> Head {
    let mut h = Head::default();
    super::super::head_records(file, 64, 8 << 20, |rec| {
        let Some(rec) = rec else { return true };
        let t = line_time(rec);
        h.first = time::earliest(h.first, t);
        h.last = h.last.max(t);
        let Some(data) = rec.get("data") else { return true };
        let s = |v: Option<crate::json::Raw<'_>>| {
            v.and_then(|v| v.as_str()).map(Cow::into_owned).filter(|v| !v.trim().is_empty())
        };
        match rec.get_str("type").as_deref() {
            Some("session.start") => {
                h.version = h.version.take().or_else(|| s(data.get("copilotVersion")));
                h.cwd = h.cwd.take().or_else(|| s(data.get("context").and_then(|c| c.get("cwd"))));
            }
            Some("session.model_change") => h.model = h.model.take().or_else(|| s(data.get("newModel"))),
            Some("assistant.message") => h.model = h.model.take().or_else(|| s(data.get("model"))),
            _ => {}
        }
        true
    });
    h
}

/// The `cwd:` of a session folder's `workspace.yaml` (a plain scalar, as
/// Copilot writes it), read only when the log does not name one.
fn workspace_cwd(dir: &Path) -> Option<String> {
    let text = crate::files::open_regular(&dir.join("workspace.yaml")).ok().and_then(|f| {
        use std::io::Read;
        let mut s = String::new();
        f.take(64 * 1024).read_to_string(&mut s).ok().map(|_| s)
    })?;
    let value = text.lines().find_map(|l| l.strip_prefix("cwd:"))?.trim();
    let value = value.trim_matches(|c| c == '"' || c == '\'');
    (!value.is_empty()).then(|| value.to_owned())
}

/// The session record of an event log (module docs of [`super`]);
/// [`Detail::Reading`] leaves out its last timestamp (read off its end).
pub(super) fn session_of(file: &Path, detail: Detail, diag: Option<&Diag>) -> Option<SessionRecord> {
    let (meta, path, stem) = super::super::file_session(file, diag)?;
    let in_folder = file.file_name().is_some_and(|n| n == EVENTS);
    // A session folder's log is named after nothing: the folder names the session.
    let session = match in_folder {
        true => crate::files::name_above(file, 1).filter(|n| !crate::session::unsafe_name(n))?,
        false => stem,
    };
    let h = head(file);
    let cwd = h.cwd.or_else(|| in_folder.then(|| file.parent().and_then(workspace_cwd)).flatten());
    let last = match detail {
        Detail::Full => {
            let tail = crate::format::last_time(file, meta.len());
            tail.max(h.last)
        }
        Detail::Reading => None,
    };
    let project = cwd.as_deref().map(slug_of);
    Some(SessionRecord {
        project: project.clone(),
        workspace: project,
        working_dir: cwd,
        started_at: h.first.map(time::format_timestamp),
        last_event_at: last.map(time::format_timestamp),
        bytes: meta.len(),
        mtime: meta.modified().ok().and_then(|t| Timestamp::try_from(t).ok()).map(time::format_timestamp),
        model: h.model,
        tags: Some(h.version.map(|v| format!("cli:{v}")).into_iter().collect()),
        ..SessionRecord::new(session, &FORMAT, path.to_owned())
    })
}
