//! Claude Code hook logs as projects commit them (formats.md §7): the widely
//! copied hooks template writes, per hook type, one pretty-printed JSON
//! array in the project's `logs/` folder, every session mixed in one file.
//!
//! - **Roots.** A root is a folder holding at least one of the array files
//!   [`HOOK_FILES`] (`pre_tool_use.json`, `post_tool_use.json`, …), or a
//!   project folder whose `logs/` holds one. A folder named as an argument is
//!   read as such a root; a file named as an argument is read alone (the
//!   sessions it holds). No default root: `logs/` folders are found only
//!   where the user points.
//! - **Not events.** `chat.json` (the current transcript's lines, an array
//!   the template rewrites) is never read or counted; named as an argument,
//!   it is refused with a warning. Any other file is not looked at.
//! - **Sessions** are formed by each element's `session_id`, across every
//!   array of the folder. One record per session: `path` = the folder,
//!   `files` = the arrays holding its elements (reading order), `bytes` =
//!   the bytes of its elements on disk, `events` = its hook payloads,
//!   `workspace`/`project` = the slug of its first `cwd`, `status`, `model`
//!   and `tags` as for medicine-wheel hook sessions
//!   ([`super::claude_hooks`]), `mtime` = the latest of those files.
//! - **Reading.** Files are read in [`HOOK_FILES`] order, each in element
//!   order, one element at a time ([`crate::elements`]: bounded memory,
//!   never the whole file). Each file is indexed once per process: where
//!   each session's elements are (runs of consecutive elements), kept in a
//!   small cache keyed by path, size and mtime. Discovery builds the index
//!   and a session's capture then reads only its own elements, so a folder
//!   of many sessions is read about twice in all, never once per session.
//! - **Events and provenance.** Each element becomes one event exactly as a
//!   medicine-wheel hook line does (the same names, `data` = the element
//!   compacted, pairing by `tool_use_id`, else in order per session, tool
//!   and input). `ci.line` is the physical line of the element's first byte
//!   (its `{`), so `sed -n 'L,/^  }/p' FILE` shows it and `ci-cat --lines`
//!   selects elements by the line they start on.
//! - **Time.** Native hook input carries no time. Loggers that add
//!   `timestamp`/`logged_at` write naive local times (no offset): those are
//!   not guessed at (not taken as UTC, nor as `--tz`): they stay in `data`
//!   and the event's `timestamp` is null, so time metrics are null. A value
//!   with a `Z` or an offset is used (`timestamp` first, then `logged_at`).
//! - **Damage.** A torn array (a file cut mid-write) is reported once as an
//!   error naming the cut element (`path:element N: torn array: …`, exit
//!   status 2); the elements before the cut are read. A file that is not an
//!   array is an error too; an element that is not a JSON object, not valid
//!   JSON, or a hook payload without `session_id` is a bad line
//!   (`path:L: element N: …`, L its first line). Each file's damage is
//!   reported once per run, by the first discovery or capture reading it.
//! - **Droid.** Payloads of the "droid" agent (camelCase `sessionId`,
//!   `hookEventName`) are not read: each file holding some gets one warning
//!   (`N droid hook payloads (camelCase keys): not read`); they are not damage.

use std::collections::{HashMap, HashSet};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::claude_hooks::{Hooks, Scan};
use super::{Cx, Detail, Memo};
use super::{Format, Help, Layout, Profile, Section};
use crate::diag::Diag;
use crate::elements::{ArrayError, ElementReader, ReadError};
use crate::json::{Index, Raw, Record};
use crate::lines::{Framing, Line, LineSource, Site};
use crate::session::{unsafe_id_message, unsafe_name, Capture, SessionRecord};
use crate::time::{self, Timestamp};

mod sessions;
use sessions::{records, records_of};

/// The array files of a hook-log folder, in reading order (the hook lifecycle).
pub const HOOK_FILES: [&str; 13] = [
    "session_start.json",
    "user_prompt_submit.json",
    "pre_tool_use.json",
    "permission_request.json",
    "post_tool_use.json",
    "post_tool_use_failure.json",
    "notification.json",
    "pre_compact.json",
    "subagent_start.json",
    "subagent_stop.json",
    "stop.json",
    "session_end.json",
    "status_line.json",
];

/// The template's transcript copy: an array of transcript lines, not hook events.
pub const CHAT: &str = "chat.json";

/// The folder a hook-log root names: itself, or its `logs/`.
const LOGS: &str = "logs";

/// The Claude Code hook-log writer (`logs/*.json` arrays).
pub struct ClaudeHookLogs;

/// The claude-hook-logs format (see the module docs).
pub static FORMAT: Format = Format {
    name: "claude-hook-logs",
    product: "Claude Code",
    root_env: &[],
    places: &[],
    help: Help {
        find: Some(Section {
            title: "CLAUDE CODE HOOK LOGS",
            body: "  A folder holding the hooks template's arrays (pre_tool_use.json, post_tool_use.json,
  stop.json, …), or a project folder whose logs/ does, is a root (no default root);
  format claude-hook-logs, one record per session_id found in its arrays: path = the
  folder, files = the arrays holding it, bytes = its elements' bytes, events = its hook
  payloads; workspace, status, model and tags as for hook sessions. Naive local times
  are not used (started_at/last_event_at null). chat.json is not read.",
        }),
        ..Help::NONE
    },
    vocabulary: super::claude_hooks::event_names,
    layout: &ClaudeHookLogs,
    dialect: &DIALECT,
    // Claude hooks' (the same payloads), but in file order: the arrays'
    // naive local times are no instants (module docs).
    profile: Profile { time_ordered: false, ..super::claude_hooks::PROFILE },
};

/// Claude Code hooks' dialect (the same payloads), with the hook-log
/// arrays' time ([`time_raw`]).
static DIALECT: Hooks = Hooks { time: time_raw };

/// Whether a file name is one of the hook-log arrays.
pub fn is_hook_log_name(name: &str) -> bool {
    HOOK_FILES.contains(&name)
}

/// The hook-log arrays present in `dir` (regular files), in reading order.
pub fn hook_files(dir: &Path) -> Vec<String> {
    usable_hook_files(dir, |_| None)
}

/// [`hook_files`], reporting to `diag_for(path)` each array that is there
/// but is no regular file (a FIFO, a device, a dangling or looping link:
/// `path: reason, skipped`, never opened).
fn usable_hook_files<'d>(dir: &Path, mut diag_for: impl FnMut(&Path) -> Option<&'d Diag>) -> Vec<String> {
    let mut usable = |n: &&&str| {
        let path = dir.join(n);
        crate::files::usable_or_reported(&path, diag_for(&path)).is_some()
    };
    HOOK_FILES.iter().filter(&mut usable).map(|n| (*n).to_owned()).collect()
}

/// The hook-log folder of a root: the root when one of [`HOOK_FILES`] is
/// there (usable or not: an unusable one is reported by discovery), else
/// its `logs/` when one is there.
fn folder_of(root: &Path) -> Option<PathBuf> {
    let holds = |d: &PathBuf| HOOK_FILES.iter().any(|n| std::fs::symlink_metadata(d.join(n)).is_ok());
    [root.to_path_buf(), root.join(LOGS)].into_iter().find(holds)
}

/// Consecutive elements of one session in one file.
#[derive(Debug, Clone, Copy)]
struct Run {
    offset: u64,
    /// Just past its last element.
    end: u64,
    line: u64,
    index: u64,
    count: u64,
}

/// What one file holds of one session.
#[derive(Default)]
struct Part {
    runs: Vec<Run>,
    scan: Scan,
    bytes: u64,
    first: Option<Timestamp>,
    last: Option<Timestamp>,
}

/// One pass over a file: where each session's elements are, and its damage.
#[derive(Default)]
struct FileIndex {
    sessions: HashMap<String, Part>,
    /// Bad elements: (first line, element number, reason).
    bad: Vec<(u64, u64, String)>,
    /// Droid payloads: (count, first line of the first).
    droid: Option<(u64, u64)>,
    /// What is wrong with the array itself.
    broken: Option<ArrayError>,
    /// A read error.
    io_error: Option<String>,
    /// Whether the damage was reported (once per run).
    reported: AtomicBool,
}

/// Why an element is not read (a bad line).
const NO_SESSION: &str = "a hook payload without a string \"session_id\", not read";
const NOT_A_HOOK: &str = "not a Claude Code hook payload (needs \"hook_event_name\" and \"session_id\")";

impl FileIndex {
    /// Reads `path` once, element by element.
    fn build(path: &Path) -> FileIndex {
        let mut ix = FileIndex::default();
        let file = match crate::files::open_regular(path) {
            Ok(f) => f,
            Err(e) => {
                ix.io_error = Some(e.to_string());
                return ix;
            }
        };
        let mut reader = ElementReader::new(file);
        reader.set_max_line(crate::lines::max_line());
        let mut idx = Index::new();
        // The session of the previous element, to extend its run.
        let mut prev: Option<String> = None;
        loop {
            let el = match reader.next_element() {
                Ok(Some(el)) => el,
                Ok(None) => break,
                Err(ReadError::Array(e)) => {
                    ix.broken = Some(e);
                    break;
                }
                Err(ReadError::Io(e)) => {
                    ix.io_error = Some(e.to_string());
                    break;
                }
            };
            // An element too deep for its record is bad here, as one that
            // does not parse (it is no session's element).
            let parsed = match el.too_long {
                true => Err(crate::lines::TooLong.to_string()),
                false => idx.parse(el.bytes).map_err(|e| e.to_string()),
            };
            let rec = match parsed.and_then(|r| super::fits_as_data(&r).map(|()| r).map_err(str::to_owned)) {
                Ok(rec) => rec,
                Err(reason) => {
                    ix.bad.push((el.line, el.index, reason));
                    prev = None;
                    continue;
                }
            };
            let sid = match rec.get_str("session_id") {
                Some(s) if unsafe_name(&s) => Err(unsafe_id_message(&s)),
                Some(s) => Ok(s),
                None if rec.get("sessionId").is_some() || rec.get("hookEventName").is_some() => {
                    let d = ix.droid.get_or_insert((0, el.line));
                    d.0 += 1;
                    prev = None;
                    continue;
                }
                None if rec.get("hook_event_name").is_some() => Err(NO_SESSION.to_owned()),
                None => Err(NOT_A_HOOK.to_owned()),
            };
            let sid = match sid {
                Ok(s) => s,
                Err(reason) => {
                    ix.bad.push((el.line, el.index, reason));
                    prev = None;
                    continue;
                }
            };
            let extends = prev.as_deref() == Some(sid.as_ref());
            // The session's key is copied once, when first seen (not per element).
            if !ix.sessions.contains_key(sid.as_ref()) {
                ix.sessions.insert(sid.as_ref().to_owned(), Part::default());
            }
            let Some(part) = ix.sessions.get_mut(sid.as_ref()) else { continue };
            let end = el.offset + el.len;
            match part.runs.last_mut() {
                Some(run) if extends => {
                    run.count += 1;
                    run.end = end;
                }
                _ => part.runs.push(Run { offset: el.offset, end, line: el.line, index: el.index, count: 1 }),
            }
            part.bytes += el.len;
            part.scan.payload(&rec);
            if let Some(t) = time_of(&rec) {
                part.first = time::earliest(part.first, Some(t));
                part.last = part.last.max(Some(t));
            }
            if !extends {
                prev = Some(sid.into_owned());
            }
        }
        ix
    }

    /// Reports the file's damage, the first time only.
    fn report(&self, display: &str, diag: &Diag) {
        if self.reported.swap(true, Ordering::Relaxed) {
            return;
        }
        for (line, element, reason) in &self.bad {
            diag.bad_line(&display, *line, &format_args!("element {element}: {reason}"));
        }
        if let Some((n, line)) = self.droid {
            let s = if n == 1 { "" } else { "s" };
            diag.warn(&format_args!("{display}:{line}: {n} droid hook payload{s} (camelCase keys): not read"));
        }
        if let Some(e) = &self.broken {
            diag.error(&format_args!("{display}:{}: {e}", e.site()));
        }
        if let Some(e) = &self.io_error {
            diag.error(&format_args!("{display}: {e}"));
        }
    }
}

/// A file's index, from the run's memo when the file is unchanged (same
/// size and mtime), else built now (once: a second caller waits for the first).
fn index_of(path: &Path, memo: &Memo) -> Arc<FileIndex> {
    memo.get_or_build(path, || FileIndex::build(path))
}

/// An element's time: `timestamp`, else `logged_at`, when it names an
/// instant (a `Z` or an offset); a naive local time is no time (module docs).
fn time_raw<'a>(rec: &Record<'a>) -> Option<Raw<'a>> {
    ["timestamp", "logged_at"]
        .into_iter()
        .filter_map(|k| rec.get(k))
        .find(|v| v.as_str().as_deref().and_then(time::parse_timestamp).is_some())
}

fn time_of(rec: &Record<'_>) -> Option<Timestamp> {
    time_raw(rec).and_then(|v| v.as_str()).as_deref().and_then(time::parse_timestamp)
}

/// The elements of one session in one file, as compact lines.
struct SessionLines {
    reader: ElementReader<std::fs::File>,
    runs: Vec<Run>,
    next: usize,
    left: u64,
    number: u64,
}

impl LineSource for SessionLines {
    fn next_line(&mut self) -> io::Result<Option<Line<'_>>> {
        if self.left == 0 {
            let Some(run) = self.runs.get(self.next).copied() else { return Ok(None) };
            self.next += 1;
            self.left = run.count;
            self.reader.seek_element(run.offset, run.line, run.index, run.end - run.offset)?;
        }
        self.left -= 1;
        match self.reader.next_element() {
            Ok(Some(el)) => {
                self.number = el.line;
                Ok(Some(Line {
                    bytes: el.bytes,
                    number: el.line,
                    site: Site { offset: el.offset, len: el.len, framing: Framing::Element },
                    terminated: true,
                    too_long: el.too_long,
                }))
            }
            Err(ReadError::Io(e)) => Err(e),
            Ok(None) | Err(ReadError::Array(_)) => {
                self.runs.clear();
                Err(io::Error::other("the file changed while it was read; the rest of it is skipped"))
            }
        }
    }

    /// Arrays are rewritten whole, never appended to: every element is complete.
    fn next_complete_line(&mut self) -> io::Result<Option<Line<'_>>> {
        self.next_line()
    }

    fn line_number(&self) -> u64 {
        self.number
    }
}

impl Layout for ClaudeHookLogs {
    /// None: hook-log folders sit in projects, found only where pointed at.
    fn default_roots(&self, _diag: &Diag) -> Vec<PathBuf> {
        vec![]
    }

    /// The sessions of the root's hook-log folder (itself, or its `logs/`);
    /// an array there that is no regular file is reported.
    fn discover(
        &self,
        root: &Path,
        _detail: Detail,
        cx: &Cx<'_>,
        diag: &Diag,
    ) -> crate::error::Result<Vec<SessionRecord>> {
        let Some(dir) = folder_of(root) else { return Ok(vec![]) };
        Ok(records(&dir, &usable_hook_files(&dir, |_| Some(diag)), cx.memo, Some(diag)))
    }

    /// A hook-log folder holds many sessions: it is read as a root.
    fn session_in(&self, _dir: &Path, _diag: &Diag) -> Option<Option<SessionRecord>> {
        None
    }

    /// See [`Layout::file_captures`].
    fn file_capture(&self, _file: &Path, _cx: &Cx<'_>, _diag: &Diag) -> Option<Capture> {
        None
    }

    /// A hook-log array: the sessions it holds, reading only it. `chat.json`
    /// beside hook-log arrays: refused with a warning (not hook events).
    fn file_captures(&self, file: &Path, cx: &Cx<'_>, diag: &Diag) -> Option<Vec<Capture>> {
        let name = file.file_name()?.to_str()?;
        let dir = file.parent().map(|p| if p.as_os_str().is_empty() { Path::new(".") } else { p })?;
        if name == CHAT && !hook_files(dir).is_empty() {
            diag.warn(&format_args!(
                "{}: the hooks template's transcript lines (chat.json), not hook events: not read",
                file.display()
            ));
            return Some(vec![]);
        }
        if !is_hook_log_name(name) {
            return None;
        }
        let recs = records(dir, &[name.to_owned()], cx.memo, Some(diag));
        Some(recs.into_iter().map(super::capture).collect())
    }

    /// Session `session` of a hook-log array's folder, as discovery makes
    /// it (its elements in every array of the folder).
    fn record_of_file(&self, file: &Path, session: &str, cx: &Cx<'_>) -> Option<SessionRecord> {
        if !is_hook_log_name(file.file_name()?.to_str()?) {
            return None;
        }
        let dir = file.parent().map(|p| if p.as_os_str().is_empty() { Path::new(".") } else { p })?;
        records_of(dir, &usable_hook_files(dir, |_| None), cx.memo, None, Some(session)).pop()
    }

    /// Sessions not seen yet, by [`Layout::session_dir`]; an array that is
    /// no regular file is reported once (its path joins `seen`).
    fn fresh(&self, root: &Path, seen: &mut HashSet<PathBuf>, cx: &Cx<'_>, diag: &Diag) -> Vec<SessionRecord> {
        let Some(dir) = folder_of(root) else { return vec![] };
        let names = usable_hook_files(&dir, |path| seen.insert(path.to_path_buf()).then_some(diag));
        let recs = records(&dir, &names, cx.memo, Some(diag));
        recs.into_iter().filter(|r| seen.insert(self.session_dir(r))).collect()
    }

    /// `<folder>/<session id>` (no such directory: a key for `--follow`).
    fn session_dir(&self, rec: &SessionRecord) -> PathBuf {
        Path::new(&rec.path).join(&rec.session)
    }

    /// The record's `events` (hook payloads, counted at discovery).
    fn event_count(&self, rec: &SessionRecord) -> u64 {
        rec.events.unwrap_or(0)
    }

    /// The record's `files` that are hook-log arrays, in reading order, else
    /// every array of the folder.
    fn files(&self, rec: &SessionRecord) -> Vec<PathBuf> {
        let dir = PathBuf::from(&rec.path);
        let names: Vec<String> = match &rec.files {
            Some(f) => HOOK_FILES.iter().filter(|h| f.iter().any(|n| n == *h)).map(|h| (*h).to_owned()).collect(),
            None => hook_files(&dir),
        };
        names.into_iter().map(|n| dir.join(n)).collect()
    }

    /// The elements of the capture's session in `file`; the file's damage
    /// is reported here when discovery did not (a piped session record).
    fn lines_of<'d>(
        &self,
        cap: &Capture,
        file: &Path,
        display: &str,
        cx: &Cx<'_>,
        diag: &'d Diag,
    ) -> Option<Box<dyn LineSource + 'd>> {
        let ix = index_of(file, cx.memo);
        ix.report(display, diag);
        let runs = ix.sessions.get(&cap.session).map(|p| p.runs.clone()).unwrap_or_default();
        // The record names the files that held the session when it was found:
        // one that holds none of it now was rewritten meanwhile (the template
        // truncates and rewrites each array on every hook). Said, not silent.
        let named = cap
            .record
            .as_ref()
            .and_then(|r| r.files.as_ref())
            .is_some_and(|f| f.iter().any(|n| file.file_name().is_some_and(|x| x.to_string_lossy() == n.as_str())));
        if runs.is_empty() && named && ix.broken.is_none() && ix.io_error.is_none() {
            diag.error(&format_args!(
                "{display}: the file changed while it was read: it holds no element of session {} now (rewritten?); read it again",
                cap.session
            ));
            return Some(Box::new(NoLines));
        }
        let reader = match (runs.is_empty(), crate::files::open_regular(file)) {
            (false, Ok(f)) => {
                let mut r = ElementReader::new(f);
                r.set_max_line(crate::lines::max_line());
                r
            }
            (false, Err(e)) => {
                diag.error(&format_args!("{display}: {e}"));
                return Some(Box::new(NoLines));
            }
            (true, _) => return Some(Box::new(NoLines)),
        };
        Some(Box::new(SessionLines { reader, runs, next: 0, left: 0, number: 0 }))
    }
}

/// A file holding none of a session's elements.
struct NoLines;

impl LineSource for NoLines {
    fn next_line(&mut self) -> io::Result<Option<Line<'_>>> {
        Ok(None)
    }

    fn next_complete_line(&mut self) -> io::Result<Option<Line<'_>>> {
        Ok(None)
    }

    fn line_number(&self) -> u64 {
        0
    }
}

#[cfg(test)]
mod tests;
