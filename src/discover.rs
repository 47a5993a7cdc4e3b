//! Discovery over every writer: which roots to search, the sessions under a
//! root, and what a path named on the command line is.
//!
//! The marker rules themselves belong to each writer ([`crate::format`]);
//! this module asks each one in registry order ([`crate::format::FORMATS`]).

use std::path::{Path, PathBuf};

use crate::diag::Diag;
use crate::error::Result;
use crate::files::expand_tilde;
pub(crate) use crate::format::Detail;
use crate::format::{Claimed, Cx, Memo, FORMATS};
use crate::session::{Capture, SessionRecord};

/// Resolves the roots to search: the `--root` values when given (`~`
/// expanded); else every writer's default roots, in registry order: those
/// its environment variable names (a missing one is an error, as a PATH
/// is), else its default places that exist. A home that has none of them
/// gets one note saying where the tools looked ([`crate::format::no_default_root`]), and
/// the run finds nothing (exit 1, never 2: a Claude-only home's cron job
/// has nothing to mail about).
pub(crate) fn resolve_roots(cli: &[PathBuf], diag: &Diag) -> Vec<PathBuf> {
    if !cli.is_empty() {
        return cli.iter().map(|p| expand_tilde(&p.to_string_lossy())).collect();
    }
    let roots: Vec<PathBuf> = FORMATS.iter().flat_map(|w| w.layout.default_roots(diag)).collect();
    if roots.is_empty() {
        diag.note(&crate::format::no_default_root());
    }
    roots
}

/// What the writers derive from whole files, for the process: shared by
/// discovery and reading ([`cx`]).
static MEMO: Memo = Memo::new();

/// What every writer's discovery and reading are handed ([`Cx`]): the run's
/// kept peeks ([`crate::cache::peeks::current`]: on in `ci-find` and
/// `ci-filter`) and the process's memo of per-file indexes. The writers
/// never reach either themselves.
pub(crate) fn cx() -> Cx<'static> {
    Cx { peeks: crate::cache::peeks::current(), memo: &MEMO, claimed: None }
}

/// Lists every session under `root`: each writer's, in registry order, each
/// in path order. Fails when the root does not exist; an empty result is
/// for the caller to report. Each writer is told the session directories
/// the writers before it found ([`Cx::claimed`]), so that one walking the
/// tree for its files does not list every folder of another's sessions.
pub(crate) fn discover(root: &Path, detail: Detail, diag: &Diag) -> Result<Vec<SessionRecord>> {
    let mut out: Vec<SessionRecord> = vec![];
    for w in FORMATS {
        let claimed = Claimed::new(&out);
        let found = w.layout.discover(root, detail, &Cx { claimed: Some(&claimed), ..cx() }, diag)?;
        out.extend(found);
    }
    Ok(out)
}

/// The sessions at a directory named as a root or an argument, as every
/// tool reads it: a writer's session directory is that session; anything
/// else is searched as a root ([`discover`]), which each writer also
/// reads at the levels of its layout below a root (an Amplifier or Claude
/// Code project folder, a Codex `sessions/YYYY/MM` folder, a project's
/// `logs/`). An error only when it cannot be listed; a root with no
/// session is noted (`looked in DIR, found 0`), not an error.
pub(crate) fn sessions_at(dir: &Path, detail: Detail, diag: &Diag) -> Result<Vec<SessionRecord>> {
    if let Some(rec) = session_in(dir, diag) {
        return Ok(rec.into_iter().collect());
    }
    let found = discover(dir, detail, diag)?;
    if found.is_empty() {
        diag.note(&format_args!("looked in {}, found 0", dir.display()));
    }
    Ok(found)
}

/// The session of a directory named as an argument, when it is one
/// writer's session directory (`Some(None)`: it is, but is unusable and
/// was reported); `None` when no writer recognises it (it may be a root).
pub(crate) fn session_in(dir: &Path, diag: &Diag) -> Option<Option<SessionRecord>> {
    FORMATS.iter().find_map(|w| w.layout.session_in(dir, diag))
}

/// The captures of a file named as an argument: the session it belongs to
/// when it sits in a writer's layout (the sessions it holds, for a writer
/// whose files mix sessions); any other file is its own session, named
/// after the file stem, read as Amplifier lines.
pub(crate) fn file_captures(path: &Path, diag: &Diag) -> Vec<Capture> {
    if let Some(caps) = FORMATS.iter().find_map(|w| w.layout.file_captures(path, &cx(), diag)) {
        return caps;
    }
    vec![file_capture(path)]
}

/// A file of no writer's layout as its own session (see [`file_captures`]).
fn file_capture(path: &Path) -> Capture {
    let display = path.to_string_lossy().into_owned();
    Capture {
        session: path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| display.clone()),
        path: path.to_path_buf(),
        display,
        workspace: None,
        format: crate::format::PLAIN,
        record: None,
        files: vec![path.to_path_buf()],
    }
}

/// The record of session `session` that a file belongs to, when a writer
/// knows it (no reports): for piped event records, looked up by provenance
/// path and session id ([`crate::format::Layout::record_of_file`]).
pub(crate) fn record_of_file(path: &Path, session: &str) -> Option<SessionRecord> {
    FORMATS.iter().find_map(|w| w.layout.record_of_file(path, session, &cx()))
}

/// The project folder a capture file's path names, by the first writer whose
/// layout it fits (no file is read).
pub(crate) fn project_of_path(path: &str) -> Option<String> {
    FORMATS.iter().find_map(|w| w.layout.project_of_path(path))
}
