//! Goose's sessions (formats-next.md §7): `sessions.db` (SQLite, schema
//! v15 with its `usage_ledger`, or an earlier one: [`store`]) and the
//! legacy JSONL files beside it.
//!
//! - **Roots**: Goose's sessions folder: `$GOOSE_PATH_ROOT/data/sessions`
//!   when the variable is set, else `$XDG_DATA_HOME/goose/sessions` or
//!   `~/.local/share/goose/sessions` (Goose's XDG data dir, on Linux and
//!   macOS), and the places ccusage also probes,
//!   `~/Library/Application Support/goose/sessions` and
//!   `~/.local/share/Block/goose/sessions` (each only when it exists). A
//!   root is such a folder, or a folder with `sessions/` or
//!   `data/sessions/` below it (a data dir, a `GOOSE_PATH_ROOT`). A
//!   folder holds `sessions.db` and legacy `*.jsonl` sessions; a database
//!   or legacy file named as a PATH is read too. The database is opened
//!   read-only without writing beside it ([`crate::lines::rows::open`]).
//! - **Sessions**: each row of `sessions` (`working_dir`, `project` =
//!   `workspace` = its folder name, `parent` = `parent_session_id`, `model`
//!   = `model_config_json.model_name`, else the first ledger row's,
//!   `started_at`/`last_event_at` = `created_at`/`updated_at`, `tags` =
//!   `provider:` its provider); each legacy file (id: its stem,
//!   `working_dir` from its metadata line, times from its messages,
//!   `tags` = `legacy`, no model).
//! - **Events**: one record per row ([`store`]: the session row, then its
//!   messages and `usage_ledger` rows by time) or per legacy line. A
//!   session row or legacy metadata line is `session:start`; a message is
//!   `prompt:submit` (a user message with text), else `goose:message`, and
//!   each of its `toolRequest` items is a `tool:pre`, each `toolResponse`
//!   a `tool:post`, or `tool:error` when its `toolResult.status` is
//!   `error` (a message of tool items only has no event of its own); a
//!   ledger row is `llm:response`, followed by a `context:compaction`
//!   (part 1) when its `is_compaction` is set.
//! - **Tokens**: each `usage_ledger` row is one request: `input_tokens`,
//!   `output_tokens`, `cache_read_tokens`, `cache_write_tokens` as written
//!   (whether Goose's input includes the cache reads is unverified), and
//!   `cost_usd` = its recorded `cost`. A session with no ledger row counts
//!   its `accumulated_*` totals once, as a second event (part 1) of its
//!   session row (dated at `created_at`); with ledger rows they are never
//!   added on top. A database before schema v15 has no ledger: each of its
//!   sessions counts its totals so.
//!   `total/input/output_tokens` (the last request's) are never counted. A
//!   legacy file has no per-request usage: its metadata's
//!   `accumulated_input_tokens`/`accumulated_output_tokens` count once, as
//!   an `llm:response` of its first message, the part after its content
//!   items (dated at it; no model, so no cost).
//! - **Calls** are paired by the tool item's `id`.

mod dialect;
pub mod legacy;
pub mod store;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::{Cx, Detail, Format, Help, Layout, Profile, Section};
use crate::diag::Diag;
use crate::files::expand_tilde;
use crate::session::{Capture, SessionRecord};
use crate::time::Timestamp;

/// Env var naming Goose's root (`<root>/data/sessions`).
pub const ROOT_ENV: &str = "GOOSE_PATH_ROOT";

/// The Goose writer.
pub struct Goose;

/// The goose format (see the module docs).
pub static FORMAT: Format = Format {
    name: "goose",
    product: "Goose",
    root_env: &[ROOT_ENV],
    places: &PLACES,
    help: Help {
        roots: Some(
            "$GOOSE_PATH_ROOT/data/sessions, else $XDG_DATA_HOME/goose/sessions or\n    ~/.local/share/goose/sessions, ~/Library/Application Support/goose/sessions,\n    ~/.local/share/Block/goose/sessions (Goose)",
        ),
        find: Some(Section {
            title: "GOOSE",
            body: "  A sessions folder holds sessions.db (SQLite, opened read-only; schema v15
  with its usage_ledger, or an earlier one) and legacy <id>.jsonl files; each
  sessions row and each legacy file is a session, format goose: working_dir,
  project/workspace = its folder name, parent = parent_session_id, model =
  model_config_json's model_name, tags = provider:<name> (legacy files:
  legacy). A database or legacy file named as a PATH is read too.",
        }),
        agg: Some(Section {
            title: "GOOSE TOKENS",
            body: "  Each usage_ledger row is a response (cost_usd = its recorded cost); one marked
  is_compaction counts too and is followed by a context:compaction event. A
  session without ledger rows (every session of a database before schema v15)
  counts its accumulated_* totals once, dated at its creation, and never on
  top of ledger rows; columns a later schema added (model, cost, cache) read as
  null. A legacy file counts its metadata's accumulated_* once, at its first
  message. The last-request total/input/output_tokens are never counted.",
        }),
        ..Help::NONE
    },
    vocabulary: dialect::vocabulary,
    layout: &Goose,
    dialect: &Goose,
    profile: Profile {
        derived: true,
        multi_part: true,
        original_key: Some("goose"),
        reply_ends_turn: true,
        tables: &store::TABLES,
        ..Profile::new("active", "a Goose record, not an event")
    },
};

/// The default places of the sessions folder, without the variable.
const PLACES: [&str; 3] = [
    "~/.local/share/goose/sessions",
    "~/Library/Application Support/goose/sessions",
    "~/.local/share/Block/goose/sessions",
];

/// The session records of the database `db`; `None` when it is no Goose
/// database. One that cannot be read (locked, damaged, of an unknown schema)
/// is reported to `diag` and has none.
fn sessions_of(db: &Path, detail: Detail, diag: Option<&Diag>) -> Option<Vec<SessionRecord>> {
    let Some(path) = db.to_str() else {
        if let Some(d) = diag {
            d.error(&format_args!("{}: {}", db.display(), crate::files::NOT_UTF8));
        }
        return None;
    };
    let rows = crate::lines::rows::read_store(db, diag, store::is_goose, store::sessions)?;
    let mtime = std::fs::metadata(db).ok().and_then(|m| m.modified().ok()).and_then(|t| Timestamp::try_from(t).ok());
    let mut out = Vec::new();
    for row in rows {
        if crate::session::unsafe_name(&row.id) {
            if let Some(d) = diag {
                d.error(&format_args!("{}: {}, skipped", db.display(), crate::session::unsafe_id_message(&row.id)));
            }
            continue;
        }
        let project = row.working_dir.as_deref().map(|d| Goose.project_folder(d));
        out.push(SessionRecord {
            project: project.clone(),
            workspace: project,
            working_dir: row.working_dir,
            parent: row.parent,
            started_at: row.created,
            last_event_at: match detail {
                Detail::Full => row.updated,
                Detail::Reading => None,
            },
            bytes: row.bytes,
            mtime: mtime.map(crate::time::format_timestamp),
            model: row.model,
            tags: Some(row.provider.map(|p| format!("provider:{p}")).into_iter().collect()),
            ..SessionRecord::new(row.id, &FORMAT, path.to_owned())
        });
    }
    Some(out)
}

/// Whether a session record is a database's (else a legacy file's).
fn in_database(rec: &SessionRecord) -> bool {
    !rec.path.ends_with(".jsonl")
}

/// The sessions of the database in `root`, if any.
fn database_sessions(root: &Path, detail: Detail, diag: &Diag) -> Vec<SessionRecord> {
    store::database(root).and_then(|db| sessions_of(&db, detail, Some(diag))).unwrap_or_default()
}

/// The sessions folders a root names: itself, and the `sessions` folder of
/// a Goose data dir (`<root>/sessions`) or of a `$GOOSE_PATH_ROOT`
/// (`<root>/data/sessions`) when there is one.
fn sessions_folders(root: &Path) -> Vec<PathBuf> {
    let below = [root.join("sessions"), root.join("data").join("sessions")];
    std::iter::once(root.to_path_buf()).chain(below.into_iter().filter(|d| d.is_dir())).collect()
}

impl Layout for Goose {
    /// `$GOOSE_PATH_ROOT/data/sessions` (a missing one is an error like any
    /// root), else each of the default places that exists.
    fn default_roots(&self, _diag: &Diag) -> Vec<PathBuf> {
        if let Some(root) = super::env_dir(ROOT_ENV) {
            return vec![root.join("data").join("sessions")];
        }
        let first = super::xdg_data("goose/sessions", PLACES[0]);
        let others = PLACES[1..].iter().map(|p| expand_tilde(p));
        std::iter::once(first).chain(others).filter(|d| d.is_dir()).collect()
    }

    /// In each sessions folder of the root ([`sessions_folders`]): the
    /// database's sessions, then the legacy files'.
    fn discover(
        &self,
        root: &Path,
        detail: Detail,
        _cx: &Cx<'_>,
        diag: &Diag,
    ) -> crate::error::Result<Vec<SessionRecord>> {
        let mut out = Vec::new();
        for dir in sessions_folders(root) {
            out.extend(database_sessions(&dir, detail, diag));
            out.extend(legacy::FILES.discover(&dir, detail, diag)?);
        }
        Ok(out)
    }

    /// The first session of a Goose database, or a legacy file's.
    fn file_capture(&self, file: &Path, cx: &Cx<'_>, diag: &Diag) -> Option<Capture> {
        self.file_captures(file, cx, diag)?.into_iter().next()
    }

    /// Every session of a Goose database, or a legacy file's.
    fn file_captures(&self, file: &Path, _cx: &Cx<'_>, diag: &Diag) -> Option<Vec<Capture>> {
        if !crate::lines::rows::is_database(file) {
            return legacy::FILES.file_capture(file, diag).map(|c| vec![c]);
        }
        Some(sessions_of(file, Detail::Full, Some(diag))?.into_iter().map(super::capture).collect())
    }

    fn record_of_file(&self, file: &Path, session: &str, _cx: &Cx<'_>) -> Option<SessionRecord> {
        if !crate::lines::rows::is_database(file) {
            return legacy::FILES.record_of_file(file);
        }
        sessions_of(file, Detail::Full, None)?.into_iter().find(|r| r.session == session)
    }

    fn fresh(&self, root: &Path, seen: &mut HashSet<PathBuf>, _cx: &Cx<'_>, diag: &Diag) -> Vec<SessionRecord> {
        let mut out = Vec::new();
        for dir in sessions_folders(root) {
            let db = database_sessions(&dir, Detail::Full, diag);
            out.extend(db.into_iter().filter(|r| seen.insert(self.session_dir(r))));
            out.extend(legacy::FILES.fresh(&dir, seen, diag));
        }
        out
    }

    /// The database and the session id; a legacy file.
    fn session_dir(&self, rec: &SessionRecord) -> PathBuf {
        match in_database(rec) {
            true => Path::new(&rec.path).join(&rec.session),
            false => PathBuf::from(&rec.path),
        }
    }

    /// Its rows, or its file's lines.
    fn event_count(&self, rec: &SessionRecord) -> u64 {
        if !in_database(rec) {
            return crate::files::count_lines(Path::new(&rec.path));
        }
        let Ok(conn) = crate::lines::rows::open(Path::new(&rec.path)) else { return 0 };
        store::keys(&conn, &rec.session).map_or(0, |k| k.len() as u64)
    }

    fn files(&self, rec: &SessionRecord) -> Vec<PathBuf> {
        vec![PathBuf::from(&rec.path)]
    }

    /// A database session's rows by [`store::FINGERPRINTS`].
    fn row_fingerprints(&self, cap: &Capture) -> Option<&'static [&'static str]> {
        cap.record.as_ref().filter(|r| in_database(r)).map(|_| &store::FINGERPRINTS[..])
    }

    /// A database session's rows, in order ([`store::keys`]); a legacy
    /// file's lines.
    fn lines_of<'d>(
        &self,
        cap: &Capture,
        file: &Path,
        display: &str,
        _cx: &Cx<'_>,
        diag: &'d Diag,
    ) -> Option<Box<dyn crate::lines::LineSource + 'd>> {
        if !crate::lines::rows::is_database(file) {
            return None;
        }
        Some(crate::lines::rows::source(file, display, diag, |conn| store::keys(conn, &cap.session)))
    }
}

#[cfg(test)]
mod tests;
