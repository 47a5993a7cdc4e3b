//! Cline, Roo Code and Kilo Code task folders (formats-next.md §5): the VS
//! Code extensions keep each task in
//! `<VS Code user dir>/globalStorage/<extension id>/tasks/<task id>/`. Three
//! formats, one per extension (`cline`, `roo-code`, `kilo-code`: the
//! product that wrote a session is its extension's), sharing this module:
//! Roo Code and Kilo Code are forks of Cline and write its files.
//!
//! - **Roots**: `$CI_VSCODE_DIR` when set (for all three), else every VS
//!   Code build's user folder ([`tasks::HOSTS`]: Code, Code - Insiders,
//!   VSCodium, Cursor, Windsurf) under `~/.config` (Linux), `~/Library/Application
//!   Support` (macOS) and `%APPDATA%` (Windows) whose
//!   `globalStorage/<extension id>/tasks` exists; Cline also
//!   `~/.cline/data` (its standalone and JetBrains hosts). A root is a user
//!   folder, its `globalStorage`, an extension's folder (or `~/.cline/data`)
//!   or a `tasks` folder. Extension ids: Cline `saoudrizwan.claude-dev`, Roo
//!   Code `rooveterinaryinc.roo-cline`, Kilo Code `kilocode.kilo-code`.
//! - **Sessions**: each task folder holding a `ui_messages.json`; the id is
//!   the folder's name (Cline: the creation time in ms). Its format is the
//!   extension whose folder holds it; a `tasks` folder elsewhere is Roo
//!   Code's when the task has a `history_item.json`, else Cline's. `path` =
//!   its `ui_messages.json`; `working_dir` = Roo's `history_item.json`
//!   `workspace`, else the task's `cwdOnTaskInitialization` in Cline's
//!   `state/taskHistory.json` (`project`/`workspace` = its slug); `model` =
//!   the first `task_metadata.json` `model_usage` entry's `model_id`;
//!   `parent` = Roo's `parentTaskId`; `started_at`/`last_event_at` = the
//!   first and last rows' `ts`.
//! - **Events**: the elements of `ui_messages.json` (`ClineMessage` rows),
//!   read one at a time ([`crate::elements`]: provenance names each
//!   element, re-reads work). `api_conversation_history.json` (what was sent
//!   to the model: the same turns again, without times or usage) is not
//!   read, nor are the task indexes' totals. Names: `say:task` and
//!   `say:user_feedback` are `prompt:submit`, and so is a first `say:text`
//!   (Roo writes its task so); other `text`/`reasoning` rows `llm:content`;
//!   a `say:api_req_started` row whose `text` (a JSON string,
//!   `ClineApiReqInfo`) holds counts or a cost is `llm:response`, as are
//!   `say:deleted_api_reqs` (requests removed by a checkpoint restore) and
//!   `say:subagent_usage` rows; `tool`, `use_mcp_server` and `command` rows
//!   `tool:pre`, `command_output` rows `tool:post` (paired with the command
//!   in order; other tools have no result rows); `say:completion_result`
//!   `prompt:complete`; anything else `cline:say:<say>` or `cline:ask:<ask>`.
//!   The record keeps the row's `say`/`ask` as `cline` (`roo`, `kilo`).
//! - **Tokens**: a usage row's `data` is the row with the toolkit's `usage`
//!   put first (and `model`: its `modelId` or the row's `modelInfo`, else
//!   the nearest earlier row's, else the `task_metadata.json` choice in
//!   effect at its `ts`, [`Layout::prime`]; a `subagent_usage` row only its own):
//!   `tokensIn` is uncached input over the Anthropic protocol but includes
//!   the cache reads over the OpenAI protocol (`apiProtocol: "openai"`, Roo
//!   and Kilo), so `input_tokens` = `tokensIn` − `cacheReads` there;
//!   `cache_read_tokens` = `cacheReads`, `cache_write_tokens` =
//!   `cacheWrites`, `output_tokens` = `tokensOut`, `cost_usd` = the
//!   extension's `cost` (the writer's cost). Each row counts once: the
//!   extension updates a request's row in place. A tool row's `data` is the
//!   row with the `tool` and `path` its `text` names put first.
//! - **Rewrites**: the extensions rewrite the whole array on every change.
//!   A file rewritten in place while it is read is reported at its end
//!   ([`array::CHANGED`], exit status 2); a torn array is reported with the
//!   element it cuts, the elements before it read.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::{Cx, Detail, Format, Help, Layout, Profile, Section};
use crate::diag::Diag;
use crate::files::expand_tilde;
use crate::session::{Capture, SessionRecord};

mod array;
mod rows;
mod tasks;

pub use rows::usage_counts;

/// The env var naming the root of all three (any root form, module docs).
pub const ROOT_ENV: &str = "CI_VSCODE_DIR";

/// A task's rows: the file a session is.
pub const UI_MESSAGES: &str = "ui_messages.json";

/// The Cline format.
pub static CLINE: &Format = &CLINE_FORMAT;
/// The Roo Code format.
pub static ROO: &Format = &ROO_FORMAT;
/// The Kilo Code format.
pub static KILO: &Format = &KILO_FORMAT;

/// The three formats, in registry order.
pub static FAMILY: [&Format; 3] = [&CLINE_FORMAT, &ROO_FORMAT, &KILO_FORMAT];

/// The task folders of one extension.
pub struct Tasks {
    /// Its extension ids (the `globalStorage` folder names).
    ids: &'static [&'static str],
    /// Extra default roots (`~`-relative) beside the VS Code folders.
    extra: &'static [&'static str],
    /// Its format.
    format: &'static Format,
}

static CLINE_TASKS: Tasks =
    Tasks { ids: &["saoudrizwan.claude-dev"], extra: &["~/.cline/data"], format: &CLINE_FORMAT };
static ROO_TASKS: Tasks = Tasks { ids: &["rooveterinaryinc.roo-cline"], extra: &[], format: &ROO_FORMAT };
static KILO_TASKS: Tasks = Tasks { ids: &["kilocode.kilo-code"], extra: &[], format: &KILO_FORMAT };

/// The profile of the three.
const fn profile(key: &'static str) -> Profile {
    Profile {
        derived: true,
        original_key: Some(key),
        ..Profile::new("active", "a Cline, Roo Code or Kilo Code task row, not an event")
    }
}

/// The cline format, holding the family's help (module docs).
pub static CLINE_FORMAT: Format = Format {
    name: "cline",
    product: "Cline",
    root_env: &[ROOT_ENV],
    places: &["~/.config/Code/User/globalStorage/saoudrizwan.claude-dev", "~/.cline/data"],
    help: Help {
        roots: Some(
            "$CI_VSCODE_DIR, else the globalStorage of every VS Code build (Code, Code -\n    Insiders, VSCodium, Cursor, Windsurf) holding Cline, Roo Code or Kilo Code\n    tasks, and ~/.cline/data",
        ),
        find: Some(Section {
            title: "CLINE, ROO CODE, KILO CODE",
            body: "  A VS Code user folder, its globalStorage, an extension's folder
  (saoudrizwan.claude-dev, rooveterinaryinc.roo-cline, kilocode.kilo-code) or a
  tasks folder holds tasks/<task-id>/ui_messages.json; each is a session, format
  cline, roo-code or kilo-code (the extension's folder): working_dir = Roo's
  history_item.json workspace, else Cline's state/taskHistory.json
  cwdOnTaskInitialization; model = task_metadata.json's first model_id; parent =
  Roo's parentTaskId. Events are the rows of ui_messages.json;
  api_conversation_history.json is not read.",
        }),
        agg: Some(Section {
            title: "CLINE, ROO CODE, KILO CODE TOKENS",
            body: "  Each api_req_started, deleted_api_reqs and subagent_usage row is one response:
  its tokensIn is uncached input, except over the OpenAI protocol (apiProtocol
  \"openai\") where it includes the cache reads: input_tokens = tokensIn -
  cacheReads there. cost_usd is the extension's recorded cost. The model is the
  row's modelId (modelInfo.modelId), else the nearest earlier row's, else the
  task_metadata.json model_usage entry chosen last at the row's ts (else the
  first); a subagent_usage row keeps its own or none. The task indexes' totals
  (taskHistory.json, history_item.json) are never added.
  --sessions files: readFile rows read, editedExistingFile, newFileCreated,
  appliedDiff, insertContent and searchAndReplace rows edit (their path).",
        }),
        ..Help::NONE
    },
    vocabulary: rows::vocabulary,
    layout: &CLINE_TASKS,
    dialect: &rows::Rows,
    profile: profile("cline"),
};

/// A fork's format: Cline's rows and layout rules, its own name, product,
/// place and extension folder; the family's help is Cline's.
const fn fork(
    name: &'static str,
    product: &'static str,
    places: &'static [&'static str],
    layout: &'static Tasks,
    key: &'static str,
) -> Format {
    Format {
        name,
        product,
        root_env: &[],
        places,
        help: Help::NONE,
        vocabulary: rows::vocabulary,
        layout,
        dialect: &rows::Rows,
        profile: profile(key),
    }
}

/// The roo-code format (module docs).
pub static ROO_FORMAT: Format =
    fork("roo-code", "Roo Code", &["~/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline"], &ROO_TASKS, "roo");

/// The kilo-code format (module docs).
pub static KILO_FORMAT: Format =
    fork("kilo-code", "Kilo Code", &["~/.config/Code/User/globalStorage/kilocode.kilo-code"], &KILO_TASKS, "kilo");

/// The extension ids of a Cline-family format (none for others).
fn ids_of(format: &Format) -> &'static [&'static str] {
    let tasks = [&CLINE_TASKS, &ROO_TASKS, &KILO_TASKS];
    tasks.into_iter().find(|t| std::ptr::eq(t.format, format)).map_or(&[], |t| t.ids)
}

/// The folders VS Code builds keep their user folders in, on this machine.
fn user_bases() -> Vec<PathBuf> {
    let mut out = vec![expand_tilde("~/.config"), expand_tilde("~/Library/Application Support")];
    out.extend(std::env::var_os("APPDATA").map(PathBuf::from));
    out
}

impl Layout for Tasks {
    /// `$CI_VSCODE_DIR` (trimmed, `~`-expanded; given by the first format
    /// of the family only), else each VS Code build's
    /// `globalStorage/<id>` holding `tasks`, and the extra places.
    fn default_roots(&self, _diag: &Diag) -> Vec<PathBuf> {
        if let Some(root) = super::env_dir(ROOT_ENV) {
            // One root, given once: each format reads its own tasks there.
            return std::ptr::eq(self.format, FAMILY[0]).then_some(root).into_iter().collect();
        }
        let storage = user_bases()
            .into_iter()
            .flat_map(|b| tasks::HOSTS.map(|h| b.join(h).join("User").join("globalStorage")))
            .flat_map(|g| self.ids.iter().map(move |id| g.join(id)));
        let extra = self.extra.iter().map(|e| expand_tilde(e));
        storage.chain(extra).filter(|r| r.join("tasks").is_dir()).collect()
    }

    fn discover(
        &self,
        root: &Path,
        detail: Detail,
        cx: &Cx<'_>,
        diag: &Diag,
    ) -> crate::error::Result<Vec<SessionRecord>> {
        let mine: Vec<PathBuf> = tasks::task_dirs(root).into_iter().filter(|d| self.owns(d)).collect();
        Ok(crate::files::in_parallel(&mine, |d| self.session_of(d, detail, Some(cx.memo), Some(diag)), diag))
    }

    /// A task folder of this extension.
    fn session_in(&self, dir: &Path, diag: &Diag) -> Option<Option<SessionRecord>> {
        (tasks::is_task_dir(dir) && self.owns(dir)).then(|| self.session_of(dir, Detail::Full, None, Some(diag)))
    }

    /// A task folder's `ui_messages.json`.
    fn file_capture(&self, file: &Path, cx: &Cx<'_>, diag: &Diag) -> Option<Capture> {
        let task = self.task_of_file(file)?;
        Some(super::capture(self.session_of(&task, Detail::Full, Some(cx.memo), Some(diag))?))
    }

    fn record_of_file(&self, file: &Path, _session: &str, cx: &Cx<'_>) -> Option<SessionRecord> {
        self.session_of(&self.task_of_file(file)?, Detail::Full, Some(cx.memo), None)
    }

    /// Task folders not seen yet.
    fn fresh(&self, root: &Path, seen: &mut HashSet<PathBuf>, cx: &Cx<'_>, diag: &Diag) -> Vec<SessionRecord> {
        let new: Vec<PathBuf> =
            tasks::task_dirs(root).into_iter().filter(|d| self.owns(d) && seen.insert(d.clone())).collect();
        new.iter().filter_map(|d| self.session_of(d, Detail::Full, Some(cx.memo), Some(diag))).collect()
    }

    /// The task folder.
    fn session_dir(&self, rec: &SessionRecord) -> PathBuf {
        Path::new(&rec.path).parent().map_or_else(|| PathBuf::from(&rec.path), Path::to_path_buf)
    }

    /// The rows of `ui_messages.json`.
    fn event_count(&self, rec: &SessionRecord) -> u64 {
        array::count(Path::new(&rec.path))
    }

    fn files(&self, rec: &SessionRecord) -> Vec<PathBuf> {
        vec![PathBuf::from(&rec.path)]
    }

    /// The models the task's `task_metadata.json` names, for its rows that
    /// name none ([`rows`]).
    fn prime(&self, cap: &Capture, state: &mut crate::format::ReadState) {
        if let Some(task) = cap.path.parent() {
            state.models = tasks::models_by_time(task);
        }
    }

    /// The elements of `ui_messages.json`, a rewrite while reading reported.
    fn lines_of<'d>(
        &self,
        _cap: &Capture,
        file: &Path,
        display: &str,
        _cx: &Cx<'_>,
        diag: &'d Diag,
    ) -> Option<Box<dyn crate::lines::LineSource + 'd>> {
        match array::Elements::open(file, display, diag) {
            Some(rows) => Some(Box::new(rows)),
            // Reported: no rows.
            None => Some(Box::new(crate::lines::LineReader::with_capacity(std::io::empty(), 0))),
        }
    }
}

impl Tasks {
    /// Whether a task folder is this extension's ([`tasks::family_of`]).
    fn owns(&self, task: &Path) -> bool {
        std::ptr::eq(tasks::family_of(task), self.format)
    }

    /// The task folder of a `ui_messages.json` of this extension.
    fn task_of_file(&self, file: &Path) -> Option<PathBuf> {
        if file.file_name()? != UI_MESSAGES {
            return None;
        }
        let task = file.parent().map(|p| if p.as_os_str().is_empty() { Path::new(".") } else { p })?;
        self.owns(task).then(|| task.to_path_buf())
    }
}

#[cfg(test)]
mod tests;
