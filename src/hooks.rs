//! Claude Code hook captures in the medicine-wheel `_sessiondata` layout
//! (formats.md §2): what a hooks root and a hooks session are, which files
//! are events, the canonical event names, and safe session ids.
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
use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use crate::diag::Diag;
use crate::discover::{slug_of, Format, SessionRecord};
use crate::json::Index;
use crate::lines::LineReader;
use crate::record::RecordKind;
use crate::time::{self, Timestamp};

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

/// The Amplifier event name of a hook (formats.md §2), as a JSON string
/// literal; `None` for a hook with no Amplifier counterpart.
fn canonical_json(hook: &str) -> Option<&'static [u8]> {
    Some(match hook {
        "SessionStart" => b"\"session:start\"",
        "SessionEnd" => b"\"session:end\"",
        "UserPromptSubmit" => b"\"prompt:submit\"",
        "Stop" => b"\"prompt:complete\"",
        "PreToolUse" => b"\"tool:pre\"",
        "PostToolUse" => b"\"tool:post\"",
        "PostToolUseFailure" => b"\"tool:error\"",
        "SubagentStart" => b"\"delegate:agent_spawned\"",
        "SubagentStop" => b"\"delegate:agent_completed\"",
        "PreCompact" => b"\"context:compaction\"",
        "PermissionRequest" => b"\"approval:required\"",
        "Notification" => b"\"user:notification\"",
        _ => return None,
    })
}

/// The canonical name as a JSON literal (for raw field reads), when static.
pub fn canonical_raw(hook: &str) -> Option<crate::json::Raw<'static>> {
    canonical_json(hook).map(crate::json::Raw)
}

/// The Amplifier event name of a hook; `hook:<Name>` for any other hook.
pub fn canonical(hook: &str) -> Cow<'static, str> {
    match canonical_json(hook) {
        // The literals are ASCII with no escapes.
        Some(lit) => Cow::Borrowed(std::str::from_utf8(&lit[1..lit.len() - 1]).unwrap_or("")),
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

/// Why a session id or file name taken from input must not be joined onto a
/// root: it contains `/`, `\` or NUL, or is empty, `.` or `..`.
pub fn unsafe_name(name: &str) -> bool {
    name.is_empty() || name == "." || name == ".." || name.contains(['/', '\\', '\0'])
}

/// The error for an unsafe id, as `unsafe session id "…"`.
pub fn unsafe_id_message(id: &str) -> String {
    format!("unsafe session id {id:?}")
}

/// Sorts event file names into reading order: [`LIFECYCLE`], then by name.
pub fn sort_files(files: &mut [String]) {
    let rank = |f: &String| {
        let stem = f.strip_prefix("_claude_").and_then(|s| s.strip_suffix(".jsonl")).unwrap_or(f);
        LIFECYCLE.iter().position(|l| *l == stem).unwrap_or(LIFECYCLE.len())
    };
    files.sort_by(|a, b| rank(a).cmp(&rank(b)).then_with(|| a.cmp(b)));
}

/// The event files of session directory `dir`, in reading order.
pub fn event_files(dir: &Path) -> Vec<String> {
    let mut files: Vec<String> = match fs::read_dir(dir) {
        Ok(rd) => rd
            .filter_map(|e| e.ok())
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|n| is_event_file(n))
            .collect(),
        Err(_) => vec![],
    };
    sort_files(&mut files);
    files
}

/// Whether `root` is a hooks root (see the module docs).
pub fn is_root(root: &Path) -> bool {
    session_dirs(root).next().is_some()
}

/// Session directories of a hooks root, unsorted.
fn session_dirs(root: &Path) -> impl Iterator<Item = std::path::PathBuf> {
    fs::read_dir(root)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter(|e| e.file_name().to_str().is_some_and(is_session_dir_name))
        .map(|e| e.path())
        .filter(|p| !event_files(p).is_empty())
}

/// Every hooks session under `root`, in path order.
pub fn discover(root: &Path, diag: &Diag) -> Vec<SessionRecord> {
    let mut dirs: Vec<_> = session_dirs(root).collect();
    dirs.sort();
    dirs.iter().filter_map(|d| session_at(d, Some(diag))).collect()
}

/// The hooks session in directory `dir`, when it holds event files. Reads every
/// event line once (hook sessions are small) for the fields of the record.
pub fn session_at(dir: &Path, diag: Option<&Diag>) -> Option<SessionRecord> {
    let session = dir.file_name()?.to_string_lossy().into_owned();
    if dir.to_str().is_none() {
        if let Some(d) = diag {
            d.error(&format_args!("{}: {}, skipped", dir.display(), crate::discover::NOT_UTF8));
        }
        return None;
    }
    if unsafe_name(&session) {
        if let Some(d) = diag {
            d.error(&format_args!("{}: {}", dir.display(), unsafe_id_message(&session)));
        }
        return None;
    }
    let files = event_files(dir);
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
        s.file(&path);
    }
    let mut tags: Vec<String> = s.tags.into_iter().collect();
    tags.sort();
    let slug = s.cwd.as_deref().map(slug_of);
    Some(SessionRecord {
        project: slug.clone(),
        workspace: slug,
        status: Some(if s.ended { "ended" } else { "active" }.into()),
        started_at: s.first.map(time::format_timestamp),
        last_event_at: s.last.map(time::format_timestamp),
        working_dir: s.cwd,
        bytes,
        mtime: mtime.map(time::format_timestamp),
        model: s.model,
        files: Some(files),
        transcript: Some(dir.join(TRANSCRIPT).is_file()),
        events: Some(s.events),
        tags: Some(tags),
        ..SessionRecord::new(session, Format::ClaudeHooks, dir.to_string_lossy().into_owned())
    })
}

/// What a pass over a session's event lines collects.
#[derive(Default)]
struct Scan {
    cwd: Option<String>,
    model: Option<String>,
    started: bool,
    ended: bool,
    first: Option<Timestamp>,
    last: Option<Timestamp>,
    events: u64,
    tags: BTreeSet<String>,
}

impl Scan {
    fn file(&mut self, path: &Path) {
        let Ok(f) = fs::File::open(path) else { return };
        let mut lines = LineReader::new(f);
        let mut idx = Index::new();
        while let Ok(Some(line)) = lines.next_line() {
            let Ok(rec) = idx.parse(line.bytes) else { continue };
            if RecordKind::of(&rec) != RecordKind::Hook {
                continue;
            }
            self.events += 1;
            let s = |k: &str| rec.get_str(k).map(Cow::into_owned);
            if self.cwd.is_none() {
                self.cwd = s("cwd");
            }
            if let Some(p) = s("permission_mode") {
                self.tags.insert(format!("permission:{p}"));
            }
            if let Some(t) = rec.get_str("timestamp").as_deref().and_then(time::parse_timestamp) {
                self.first = Some(self.first.map_or(t, |f| f.min(t)));
                self.last = Some(self.last.map_or(t, |l| l.max(t)));
            }
            match rec.get_str("hook_event_name").as_deref() {
                Some("SessionStart") => {
                    if !self.started {
                        self.started = true;
                        self.model = s("model");
                    }
                    if let Some(src) = s("source") {
                        self.tags.insert(format!("source:{src}"));
                    }
                }
                Some("SessionEnd") => self.ended = true,
                Some("SubagentStart") => {
                    if let Some(a) = s("agent_type") {
                        self.tags.insert(format!("agent:{a}"));
                    }
                }
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_order() {
        assert_eq!(canonical("Stop"), "prompt:complete");
        assert_eq!(canonical("Weird"), "hook:Weird");
        assert!(unsafe_name("..") && unsafe_name("a/b") && unsafe_name("a\\b") && unsafe_name("a\0"));
        assert!(!unsafe_name("abc-1.2"));
        let mut f =
            vec!["_claude_Z.jsonl".to_string(), "_claude_Stop.jsonl".into(), "_claude_session_starts.jsonl".into()];
        sort_files(&mut f);
        assert_eq!(f, ["_claude_session_starts.jsonl", "_claude_Stop.jsonl", "_claude_Z.jsonl"]);
        assert!(!is_event_file("_claude_AssistantResponse.jsonl") && !is_event_file("last_claude_Stop.json"));
    }
}
