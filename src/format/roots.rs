//! Where a writer's default roots are: the directory its environment
//! variable names, else its default place when that holds its sessions.

use std::path::{Path, PathBuf};

use crate::files::expand_tilde;

/// The directory the environment variable `var` names, when it is set and
/// not blank: trimmed and `~`-expanded (a missing one is an error later,
/// like any root given).
pub(crate) fn env_dir(var: &str) -> Option<PathBuf> {
    std::env::var(var).ok().filter(|v| !v.trim().is_empty()).map(|v| expand_tilde(v.trim()))
}

/// `$XDG_DATA_HOME/<sub>` when `XDG_DATA_HOME` is an absolute path (the XDG
/// rule: a relative one is ignored), else `fallback`, `~`-expanded.
pub(crate) fn xdg_data(sub: &str, fallback: &str) -> PathBuf {
    match std::env::var("XDG_DATA_HOME").ok().filter(|v| Path::new(v.trim()).is_absolute()) {
        Some(x) => Path::new(x.trim()).join(sub),
        None => expand_tilde(fallback),
    }
}

/// The roots of a writer with one variable and one default place: the
/// variable's directory ([`env_dir`]), else `place` (`~`-expanded) when
/// `holds` says it holds the writer's sessions, else none.
pub(crate) fn env_or_place(var: &str, place: &str, holds: impl Fn(&Path) -> bool) -> Vec<PathBuf> {
    match env_dir(var) {
        Some(dir) => vec![dir],
        None => Some(expand_tilde(place)).filter(|p| holds(p)).into_iter().collect(),
    }
}
