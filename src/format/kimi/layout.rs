//! Where Kimi CLI and Kimi Code keep their wire files, and the session
//! record of each (the module docs of [`super`]).

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use super::{parse_time, time_raw, Kimi, FORMAT};
use crate::diag::Diag;
use crate::files::{name_above, read_dir_typed};
use crate::format::FileSessions;
use crate::format::{Cx, Detail, Layout, LineKind};
use crate::json::Record;
use crate::session::SessionRecord;
use crate::time::{self, Timestamp};

/// Env var naming Kimi CLI's share directory (where `sessions/` and `kimi.json` are).
pub const SHARE_ENV: &str = "KIMI_SHARE_DIR";
/// Env var naming Kimi Code's home directory.
pub const CODE_HOME_ENV: &str = "KIMI_CODE_HOME";

/// A session's file name.
const WIRE: &str = "wire.jsonl";
/// The folders of a session's agents (`<agent>/wire.jsonl` each): Kimi
/// CLI's subagents, Kimi Code's agents (its main one too).
const AGENT_FOLDERS: [&str; 2] = ["subagents", "agents"];

/// How deep below a root wire files are looked for (a share directory's
/// `sessions/<hash>/<id>/subagents/<agent>/wire.jsonl` is six levels down).
const DEPTH: usize = 6;

/// The wire files up to `depth` levels below `dir`, in path order, not
/// looking inside a folder `skip` says is another writer's session (an
/// Amplifier session folder holds no wire file: listing each of thousands
/// cost five system calls apiece). Entries are told apart by the listing's
/// types: only a symbolic link costs a `stat`.
/// An agents folder ([`AGENT_FOLDERS`]) is read two levels down (to
/// `<agent>/wire.jsonl`) however deep the walk began: a root above the
/// share directory must not lose the agents' own usage.
fn wire_files_in(dir: &Path, depth: usize, skip: &dyn Fn(&Path) -> bool, out: &mut Vec<PathBuf>) {
    for entry in read_dir_typed(dir).unwrap_or_default() {
        let name = entry.path.file_name().and_then(|n| n.to_str());
        if entry.file && name == Some(WIRE) {
            out.push(entry.path);
        } else if entry.dir && !skip(&entry.path) {
            let agents = name.is_some_and(|n| AGENT_FOLDERS.contains(&n));
            let below = if agents { (depth - 1).max(2) } else { depth - 1 };
            if below > 0 {
                wire_files_in(&entry.path, below, skip, out);
            }
        }
    }
}

/// The wire files under `root` (itself one when it is a file).
fn root_files(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    wire_files_in(root, DEPTH, &|_| false, &mut out);
    out
}

/// Whether a file is a wire file: named `wire.jsonl`, or a `.jsonl` whose
/// first line is a Kimi record.
fn is_wire_file(file: &Path) -> bool {
    if file.file_name().is_some_and(|n| n == WIRE) {
        return true;
    }
    if file.extension().is_none_or(|e| e != "jsonl") {
        return false;
    }
    let mut found = false;
    crate::format::head_records(file, 1, 8 << 20, |rec| {
        found = rec.is_some_and(|r| LineKind::of(r) == LineKind::Format(&FORMAT));
        false
    });
    found
}

/// Where a wire file sits: its session id, its parent session (a
/// subagent's), its agent and its work-dir folder.
#[derive(Debug, PartialEq)]
struct Place {
    session: String,
    parent: Option<String>,
    agent: Option<String>,
    project: Option<String>,
    /// The session's own folder (where `state.json` is).
    dir: PathBuf,
}

/// The [`Place`] of a wire file, by the names of the folders above it.
fn place(file: &Path) -> Option<Place> {
    let name = |up: usize| name_above(file, up);
    let dir = |up: usize| file.ancestors().nth(up).map(Path::to_path_buf).unwrap_or_default();
    let own = name(1)?;
    let place = match name(2).as_deref() {
        // `<session>/subagents/<agent>/wire.jsonl`, `<session>/agents/<agent>/wire.jsonl`.
        Some(folder) if AGENT_FOLDERS.contains(&folder) => {
            let session = name(3)?;
            let main = name(2).as_deref() == Some("agents") && own == "main";
            let (id, parent, agent) =
                if main { (session, None, None) } else { (own.clone(), Some(session), Some(own)) };
            Place { session: id, parent, agent, project: name(4), dir: dir(3) }
        }
        project => Place { session: own, parent: None, agent: None, project: project.map(str::to_owned), dir: dir(1) },
    };
    Some(place)
}

/// The working directory `kimi.json` (in the share directory above the
/// `sessions` folder holding `file`) gives for a session in the work-dir
/// folder `folder`: the `path` of the work dir whose folder name it is (Kimi
/// CLI names the folder by the MD5 of the path, prefixed by `<kaos>_` for a
/// work dir not on the local `kaos`), else the one whose `last_session_id`
/// is `session`.
fn kimi_json_dir(file: &Path, session: &str, folder: Option<&str>) -> Option<String> {
    let sessions = file.ancestors().find(|a| a.file_name().is_some_and(|n| n == "sessions"))?;
    let index = crate::files::open_regular(&sessions.parent()?.join("kimi.json")).ok()?;
    let v: serde_json::Value = serde_json::from_reader(std::io::Read::take(index, KIMI_JSON_LIMIT)).ok()?;
    let dirs = v.get("work_dirs")?.as_array()?;
    let text = |d: &serde_json::Value, k: &str| d.get(k).and_then(|s| s.as_str()).map(str::to_owned);
    let named = |d: &&serde_json::Value| text(d, "path").zip(folder).is_some_and(|(p, f)| work_dir_folder(&p, d) == f);
    let hit = dirs.iter().find(named);
    let hit = hit.or_else(|| dirs.iter().find(|d| text(d, "last_session_id").as_deref() == Some(session)))?;
    text(hit, "path")
}

/// The most of `kimi.json` read (a work-dir index of a few kilobytes).
const KIMI_JSON_LIMIT: u64 = 16 << 20;

/// The folder Kimi CLI keeps a work dir's sessions in: the MD5 of its path,
/// with `<kaos>_` before it when its `kaos` is not `local`.
fn work_dir_folder(path: &str, dir: &serde_json::Value) -> String {
    let hash = super::md5::hex(path.as_bytes());
    match dir.get("kaos").and_then(|k| k.as_str()) {
        Some(kaos) if kaos != "local" => format!("{kaos}_{hash}"),
        _ => hash,
    }
}

/// Kimi Code's `state.json` `workDir` in a session folder.
fn state_dir(dir: &Path) -> Option<String> {
    let file = crate::files::open_regular(&dir.join("state.json")).ok()?;
    let v: serde_json::Value = serde_json::from_reader(std::io::Read::take(file, 1 << 20)).ok()?;
    v.get("workDir")?.as_str().map(str::to_owned)
}

/// What discovery reads off a wire file's first lines.
#[derive(Debug, Default)]
struct Head {
    protocol: Option<String>,
    cwd: Option<String>,
    model: Option<String>,
    first: Option<Timestamp>,
    last: Option<Timestamp>,
}

/// A line's time (module docs of [`super`]).
fn line_time(rec: &Record<'_>) -> Option<Timestamp> {
    time_raw(rec).and_then(parse_time)
}

/// Reads a wire file's first lines (at most 64, starting within 8 MiB).
fn head(file: &Path) -> Head {
    let mut h = Head::default();
    crate::format::head_records(file, 64, 8 << 20, |rec| {
        let Some(rec) = rec else { return true };
        let s = |k: &str| rec.get_str(k).map(Cow::into_owned).filter(|v| !v.trim().is_empty());
        let t = line_time(rec);
        h.first = time::earliest(h.first, t);
        h.last = h.last.max(t);
        h.protocol = h.protocol.take().or_else(|| s("protocol_version"));
        h.cwd = h.cwd.take().or_else(|| s("cwd"));
        h.model = h.model.take().or_else(|| s("model"));
        true
    });
    h
}

/// The session record of a wire file (module docs of [`super`]);
/// [`Detail::Reading`] leaves out its last timestamp (read off its end).
fn session_of(file: &Path, detail: Detail, diag: Option<&Diag>) -> Option<SessionRecord> {
    // The file's stem (`wire`) names no session: its place does.
    let (meta, path, _) = crate::format::file_session(file, diag)?;
    let at = place(file)?;
    if crate::session::unsafe_name(&at.session) {
        if let Some(d) = diag {
            d.error(&format_args!("{}: {}, skipped", file.display(), crate::session::unsafe_id_message(&at.session)));
        }
        return None;
    }
    let h = head(file);
    let last = match detail {
        Detail::Full => {
            let tail = crate::format::last_time_by(file, meta.len(), line_time);
            tail.max(h.last)
        }
        Detail::Reading => None,
    };
    let main = at.parent.as_deref().unwrap_or(&at.session);
    let working_dir = kimi_json_dir(file, main, at.project.as_deref()).or_else(|| state_dir(&at.dir)).or(h.cwd);
    Some(SessionRecord {
        project: at.project.clone(),
        workspace: at.project,
        working_dir,
        started_at: h.first.map(time::format_timestamp),
        last_event_at: last.map(time::format_timestamp),
        bytes: meta.len(),
        mtime: meta.modified().ok().and_then(|t| Timestamp::try_from(t).ok()).map(time::format_timestamp),
        model: h.model,
        parent: at.parent,
        agent: at.agent,
        tags: Some(h.protocol.map(|v| format!("protocol:{v}")).into_iter().collect()),
        ..SessionRecord::new(at.session, &FORMAT, path.to_owned())
    })
}

/// The default root of one store: the variable's directory when it is set
/// (trimmed, `~`-expanded; a missing one is an error like any root), else
/// `home` when it holds a `sessions` folder.
fn store_root(var: &str, home: &str) -> Option<PathBuf> {
    crate::format::env_or_place(var, home, |h| h.join("sessions").is_dir()).pop()
}

/// Its sessions are files, one file one session.
const FILES: crate::format::FileSessions =
    crate::format::FileSessions { root_files, is_session: is_wire_file, session_of };

impl Layout for Kimi {
    /// Kimi CLI's share directory and Kimi Code's home ([`store_root`]).
    fn default_roots(&self, _diag: &Diag) -> Vec<PathBuf> {
        [store_root(SHARE_ENV, "~/.kimi"), store_root(CODE_HOME_ENV, "~/.kimi-code")].into_iter().flatten().collect()
    }

    fn file_sessions(&self) -> Option<&FileSessions> {
        Some(&FILES)
    }

    /// The wire files below `root` ([`root_files`]) but those inside the
    /// session folders other writers found there ([`Cx::claimed`]).
    fn discover(
        &self,
        root: &Path,
        detail: Detail,
        cx: &Cx<'_>,
        diag: &Diag,
    ) -> crate::error::Result<Vec<SessionRecord>> {
        let mut files = Vec::new();
        wire_files_in(root, DEPTH, &|dir| cx.claimed(dir), &mut files);
        FILES.sessions_of(&files, detail, diag)
    }

    /// The folder below `sessions` of a wire file's path.
    fn project_of_path(&self, path: &str) -> Option<String> {
        let parts: Vec<&str> = path.split('/').collect();
        let at = parts.iter().rposition(|p| *p == "sessions")?;
        (parts.last() == Some(&WIRE) && at + 3 < parts.len()).then(|| parts[at + 1].to_owned())
    }

    /// The wire file identifies a session.
    fn session_dir(&self, rec: &SessionRecord) -> PathBuf {
        PathBuf::from(&rec.path)
    }

    fn event_count(&self, rec: &SessionRecord) -> u64 {
        crate::files::count_lines(Path::new(&rec.path))
    }

    fn files(&self, rec: &SessionRecord) -> Vec<PathBuf> {
        vec![PathBuf::from(&rec.path)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wire_file_is_placed_by_the_folders_above_it() {
        let p = |s: &str| place(Path::new(s)).unwrap();
        let cli = p("/h/.kimi/sessions/abc/s1/wire.jsonl");
        assert_eq!((cli.session.as_str(), cli.parent, cli.project.as_deref()), ("s1", None, Some("abc")));
        let sub = p("/h/.kimi/sessions/abc/s1/subagents/a1/wire.jsonl");
        assert_eq!((sub.session.as_str(), sub.parent.as_deref(), sub.agent.as_deref()), ("a1", Some("s1"), Some("a1")));
        assert_eq!(sub.project.as_deref(), Some("abc"));
        let main = p("/h/.kimi-code/sessions/wd_x/session_1/agents/main/wire.jsonl");
        assert_eq!((main.session.as_str(), main.parent, main.project.as_deref()), ("session_1", None, Some("wd_x")));
        assert_eq!(main.dir, Path::new("/h/.kimi-code/sessions/wd_x/session_1"));
        let child = p("/h/.kimi-code/sessions/wd_x/session_1/agents/coder/wire.jsonl");
        assert_eq!((child.session.as_str(), child.parent.as_deref()), ("coder", Some("session_1")));
    }

    #[test]
    fn the_project_of_a_path_is_the_folder_below_sessions() {
        let k = Kimi;
        assert_eq!(k.project_of_path("/h/.kimi/sessions/abc/s1/wire.jsonl").as_deref(), Some("abc"));
        assert_eq!(k.project_of_path("/h/.kimi/sessions/abc/s1/subagents/a/wire.jsonl").as_deref(), Some("abc"));
        assert_eq!(k.project_of_path("/h/.kimi/sessions/wire.jsonl"), None);
        assert_eq!(k.project_of_path("/h/x/s1/context.jsonl"), None);
    }
}
