//! OpenCode's database (formats-next.md §3): `<data dir>/opencode.db`, the
//! first database store the toolkit reads, and the legacy `storage/` tree
//! of older builds beside it ([`legacy`]: a file per session, message and
//! part, each one record made in the shape of a row's, so the events below
//! hold for both; a session in both is the database's, read once).
//!
//! - **Roots**: OpenCode's data directory: `$OPENCODE_DATA_DIR` (the peers'
//!   convention), else `$XDG_DATA_HOME/opencode`, else
//!   `~/.local/share/opencode` (each only when it exists when not named by
//!   a variable). A root holds `opencode.db` (and other release channels'
//!   `opencode-<channel>.db`); a database file named as a PATH is read too.
//!   The database is opened read-only without writing beside it
//!   ([`crate::lines::rows::open`]: a live WAL database is read with its
//!   `-wal`, never blocking OpenCode).
//! - **Sessions**: each row of `session`. `project` = `workspace` = the
//!   folder name of its `directory` (Amplifier's slug rule), `working_dir`
//!   = `directory`, `parent` = `parent_id` (a subagent's child session),
//!   `model` and `agent` = the first assistant message's `modelID` and the
//!   first `agent`, `started_at`/`last_event_at` = `time_created`/
//!   `time_updated`, `tags` = `cli:` the version, `bytes` = the length of
//!   its messages' and parts' `data`, `path` = the database.
//! - **Events**: one record per row ([`store`]: the session, each message
//!   followed by its parts), provenance `line` = the row's place in the
//!   session and a cut record names its table and rowid. The record keeps
//!   the row's kind as `opencode` (`session`, `message`, or the part's
//!   type). The session row is `session:start`; a user message
//!   `prompt:submit`; an assistant message `opencode:message`, or
//!   `llm:response` when it has no `step-finish` part (its own `tokens`
//!   then count). Parts: `step-finish` is `llm:response`; `tool` is
//!   `tool:pre`, and when its `state.status` is `completed` or `error` also
//!   (part 1) `tool:post` or `tool:error`; `compaction` is
//!   `context:compaction`; others `opencode:<type>` (`opencode:text`,
//!   `opencode:reasoning`, `opencode:step-start`, …).
//! - **Tokens**: a message's `tokens` hold only its **last step** (its
//!   `cost` sums them), so the `step-finish` parts count, one response
//!   each. OpenCode's buckets are disjoint: `input_tokens` = `input`
//!   (uncached), `cache_read_tokens`/`cache_write_tokens` = `cache.read`/
//!   `cache.write`, `output_tokens` = `output` + `reasoning` (billed as
//!   output), kept apart as `usage.reasoning_tokens`; `cost_usd` = the
//!   step's recorded `cost`. The session's roll-up columns are not read.
//! - **Calls** are paired by the tool part's `callID`; a `completed` bash
//!   call whose `state.metadata.exit` is not 0 failed.

mod choose;
mod dialect;
mod kept;
pub mod legacy;
pub mod store;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::{Cx, Detail, Format, Help, Layout, Profile, Section};
use crate::diag::Diag;
use crate::session::{Capture, SessionRecord};
use crate::time::{self, Timestamp};

/// Env var naming OpenCode's data directory (a peers' convention).
pub const DATA_ENV: &str = "OPENCODE_DATA_DIR";

/// The OpenCode writer.
pub struct OpenCode;

/// The opencode format (see the module docs).
pub static FORMAT: Format = Format {
    name: "opencode",
    product: "OpenCode",
    root_env: &[DATA_ENV],
    places: &["~/.local/share/opencode"],
    help: Help {
        roots: Some("$OPENCODE_DATA_DIR, else $XDG_DATA_HOME/opencode, else ~/.local/share/opencode\n    (OpenCode)"),
        find: Some(Section {
            title: "OPENCODE",
            body: "  A root holds opencode.db (SQLite, opened read-only: nothing is written to it or
  beside it); each session row is a session, format opencode, path = the
  database: working_dir = directory, project/workspace = its folder name,
  parent = parent_id (subagent sessions), model/agent = the first assistant
  message's. A database file named as a PATH is read too. Followed (-f), rows
  committed later are printed once each, when finished: an assistant message
  without time.completed, a tool part pending or running, a text or reasoning
  part still streaming is held until OpenCode finishes it (a tool part's
  tool:pre and tool:post then come together).
  The legacy tree of builds before v1.2 beside it is read too: each
  storage/session/<project>/<id>.json is a session (path = that file) unless
  the database holds it (then the database's is read, once); each of its
  message and part files is one record (line 1 of that file).",
        }),
        agg: Some(Section {
            title: "OPENCODE TOKENS",
            body: "  Each step-finish part is a response (a message's own tokens hold only its last
  step; ccusage 20.0.24 reads those and undercounts multi-step messages).
  output_tokens = output + reasoning; cost_usd = the step's recorded cost.
  Legacy storage/ files (builds before AI SDK v6): output_tokens = output as
  written (it holds the reasoning); a message without step-finish parts is
  the response.
  --sessions files: read reads, edit, write and multiedit edit (filePath).",
        }),
        ..Help::NONE
    },
    vocabulary: dialect::vocabulary,
    layout: &OpenCode,
    dialect: &OpenCode,
    profile: Profile {
        derived: true,
        multi_part: true,
        original_key: Some("opencode"),
        // A row's record names `"usage":{` only when it carries usage.
        usage_bytes: Some(b"\"usage\":{"),
        reply_ends_turn: true,
        tables: &store::TABLES,
        documents: &legacy::DOCUMENTS,
        ..Profile::new("active", "an OpenCode row record, not an event")
    },
};

/// The session records of the database `db`; `None` when it is no
/// OpenCode database. One that cannot be read (locked, damaged) is reported
/// to `diag` and has none.
fn sessions_of(db: &Path, detail: Detail, cx: Option<&Cx<'_>>, diag: Option<&Diag>) -> Option<Vec<SessionRecord>> {
    let Some(path) = db.to_str() else {
        if let Some(d) = diag {
            d.error(&format_args!("{}: {}", db.display(), crate::files::NOT_UTF8));
        }
        return None;
    };
    let rows = kept::session_rows(db, cx, diag)?;
    // The database's modification time, once for all its sessions.
    let mtime = modified(db);
    Some(rows.into_iter().filter_map(|row| session_record(row, db, path, mtime.clone(), detail, diag)).collect())
}

/// When `file` was last modified, as session records write it.
fn modified(file: &Path) -> Option<String> {
    let t = std::fs::metadata(file).ok()?.modified().ok()?;
    Timestamp::try_from(t).ok().map(time::format_timestamp)
}

/// The session record of `row`, kept in the file `file` (shown as `path`,
/// last modified at `mtime`); `None` for an id unsafe as a file name
/// (reported to `diag`).
fn session_record(
    row: store::SessionRow,
    file: &Path,
    path: &str,
    mtime: Option<String>,
    detail: Detail,
    diag: Option<&Diag>,
) -> Option<SessionRecord> {
    if crate::session::unsafe_name(&row.id) {
        if let Some(d) = diag {
            let why = crate::session::unsafe_id_message(&row.id);
            d.error(&format_args!("{}: {why}, skipped", file.display()));
        }
        return None;
    }
    let stamp = |ms: Option<i64>| ms.and_then(|ms| Timestamp::from_millisecond(ms).ok()).map(time::format_timestamp);
    let project = row.directory.as_deref().map(|d| OpenCode.project_folder(d));
    Some(SessionRecord {
        project: project.clone(),
        workspace: project,
        working_dir: row.directory,
        parent: row.parent,
        agent: row.agent,
        started_at: stamp(row.created_ms),
        last_event_at: match detail {
            Detail::Full => stamp(row.updated_ms),
            Detail::Reading => None,
        },
        bytes: row.bytes,
        mtime,
        model: row.model,
        tags: Some(row.version.map(|v| format!("cli:{v}")).into_iter().collect()),
        ..SessionRecord::new(row.id, &FORMAT, path.to_owned())
    })
}

/// The session records of the data directory `root`: its databases',
/// then the legacy tree's sessions that no database holds (the database
/// wins: OpenCode migrated them into it).
fn sessions_in(root: &Path, detail: Detail, cx: &Cx<'_>, diag: &Diag) -> Vec<SessionRecord> {
    let mut out: Vec<SessionRecord> = store::databases(root)
        .iter()
        .filter_map(|db| sessions_of(db, detail, Some(cx), Some(diag)))
        .flatten()
        .collect();
    let held: HashSet<String> = out.iter().map(|r| r.session.clone()).collect();
    // A held session's files are not read (a session file is named by its id).
    let unheld = |f: &PathBuf| f.file_stem().and_then(|s| s.to_str()).is_none_or(|s| !held.contains(s));
    let files = legacy::session_files(root).into_iter().filter(unheld);
    let legacy = files.filter_map(|f| legacy_session(&f, detail, Some(diag)));
    out.extend(legacy.filter(|r| !held.contains(&r.session)));
    out
}

/// The session record of a legacy session file; `None` when it is no
/// session document (reported to `diag`).
fn legacy_session(file: &Path, detail: Detail, diag: Option<&Diag>) -> Option<SessionRecord> {
    let report = |e: &dyn std::fmt::Display| {
        if let Some(d) = diag {
            d.error(&format_args!("{}: {e}", file.display()));
        }
    };
    let Some(path) = file.to_str() else {
        report(&crate::files::NOT_UTF8);
        return None;
    };
    let Some(row) = legacy::session_row(file) else {
        report(&"not an OpenCode session document (JSON with an \"id\"), skipped");
        return None;
    };
    session_record(row, file, path, modified(file), detail, diag)
}

impl Layout for OpenCode {
    /// `$OPENCODE_DATA_DIR` (trimmed, `~`-expanded; a missing one is an
    /// error like any root), else `$XDG_DATA_HOME/opencode`, else
    /// `~/.local/share/opencode`, when it exists.
    fn default_roots(&self, _diag: &Diag) -> Vec<PathBuf> {
        match super::env_dir(DATA_ENV) {
            Some(dir) => vec![dir],
            None => Some(super::xdg_data("opencode", "~/.local/share/opencode"))
                .filter(|d| d.is_dir())
                .into_iter()
                .collect(),
        }
    }

    fn discover(
        &self,
        root: &Path,
        detail: Detail,
        cx: &Cx<'_>,
        diag: &Diag,
    ) -> crate::error::Result<Vec<SessionRecord>> {
        Ok(sessions_in(root, detail, cx, diag))
    }

    /// A data directory given as an argument is read as a root.
    fn session_in(&self, _dir: &Path, _diag: &Diag) -> Option<Option<SessionRecord>> {
        None
    }

    /// The first session of an OpenCode database ([`Layout::file_captures`] gives all).
    fn file_capture(&self, file: &Path, cx: &Cx<'_>, diag: &Diag) -> Option<Capture> {
        self.file_captures(file, cx, diag)?.into_iter().next()
    }

    /// Every session of an OpenCode database (a SQLite file with its
    /// tables); a legacy session file's session; a legacy message or part
    /// file alone, as a capture of its session.
    fn file_captures(&self, file: &Path, cx: &Cx<'_>, diag: &Diag) -> Option<Vec<Capture>> {
        if crate::lines::rows::is_database(file) {
            return Some(
                sessions_of(file, Detail::Full, Some(cx), Some(diag))?.into_iter().map(super::capture).collect(),
            );
        }
        match legacy::kind_of(file)? {
            "session" => Some(legacy_session(file, Detail::Full, Some(diag)).into_iter().map(super::capture).collect()),
            _ => {
                let doc = legacy::read_doc(file);
                let session = doc.as_deref().and_then(|d| crate::json::Raw(d).get("sessionID")?.as_str());
                let session = session.map(|s| s.into_owned()).unwrap_or_default();
                let record = self.record_of_file(file, &session, cx);
                let path = file.to_path_buf();
                let display = file.to_string_lossy().into_owned();
                let workspace = record.as_ref().and_then(|r| r.workspace.clone());
                let files = vec![path.clone()];
                Some(vec![Capture { session, path, display, workspace, format: &FORMAT, record, files }])
            }
        }
    }

    /// The session of a database, or of a legacy tree's file (its session
    /// file's).
    fn record_of_file(&self, file: &Path, session: &str, _cx: &Cx<'_>) -> Option<SessionRecord> {
        if crate::lines::rows::is_database(file) {
            return sessions_of(file, Detail::Full, None, None)?.into_iter().find(|r| r.session == session);
        }
        legacy::kind_of(file)?;
        let root = file.parent()?.parent()?.parent()?.parent()?;
        let mut files = legacy::session_files(root).into_iter();
        let found = files.find(|f| f.file_stem().is_some_and(|s| s == session))?;
        legacy_session(&found, Detail::Full, None)
    }

    fn fresh(&self, root: &Path, seen: &mut HashSet<PathBuf>, cx: &Cx<'_>, diag: &Diag) -> Vec<SessionRecord> {
        sessions_in(root, Detail::Full, cx, diag).into_iter().filter(|r| seen.insert(self.session_dir(r))).collect()
    }

    /// The database and the session id.
    fn session_dir(&self, rec: &SessionRecord) -> PathBuf {
        Path::new(&rec.path).join(&rec.session)
    }

    /// Its rows or legacy files (a finished tool call's, two events, counts once).
    fn event_count(&self, rec: &SessionRecord) -> u64 {
        if !is_db(rec) {
            return self.files(rec).len() as u64;
        }
        let Ok(conn) = crate::lines::rows::Db::open(Path::new(&rec.path)) else { return 0 };
        store::keys(&conn, &rec.session).map_or(0, |k| k.len() as u64)
    }

    /// The database; a legacy session's files ([`legacy::files`]).
    fn files(&self, rec: &SessionRecord) -> Vec<PathBuf> {
        match is_db(rec) {
            true => vec![PathBuf::from(&rec.path)],
            false => legacy::files(Path::new(&rec.path), &rec.session),
        }
    }

    /// A database session's rows by [`store::FINGERPRINTS`].
    fn row_fingerprints(&self, cap: &Capture) -> Option<&'static [&'static str]> {
        cap.record.as_ref().filter(|r| is_db(r)).map(|_| &store::FINGERPRINTS[..])
    }

    /// The session's rows, in order ([`store::keys`]), those a tokens count
    /// reads chosen in Rust ([`choose`]), a database that cannot be read
    /// reported; a legacy file's document.
    fn lines_of<'d>(
        &self,
        cap: &Capture,
        file: &Path,
        display: &str,
        _cx: &Cx<'_>,
        diag: &'d Diag,
    ) -> Option<Box<dyn crate::lines::LineSource + 'd>> {
        if !crate::lines::rows::is_database(file) {
            return Some(crate::lines::documents::source(file, display, diag, &legacy::DOCUMENT));
        }
        let mut rows = crate::lines::rows::source(file, display, diag, |conn| store::keys(conn, &cap.session));
        if let Some(rows) = rows.as_rows() {
            let id = cap.session.clone();
            rows.choose_usage(move |conn| choose::usage_rows(conn, &id));
        }
        Some(rows)
    }
}

/// Whether a session record is a database's (else a legacy tree's).
fn is_db(rec: &SessionRecord) -> bool {
    !rec.path.ends_with(".json")
}

#[cfg(test)]
mod tests;
