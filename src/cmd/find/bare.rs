//! A bare name given to `--workspace` or `--project` (`myapp`: not a
//! folder name, slug or path) that no session has: the name people type
//! first. It is taken as the working directories whose last component it
//! is (`/home/u/myapp`), said once on stderr; when it is only close to one
//! (a typo), that one is suggested.

use crate::diag::Diag;
use crate::session::SessionRecord;

/// The working directories the bare names among `values` of `flag` are
/// taken as, for the values that no session has (`has`); each value taken
/// or suggested is reported once.
pub(super) fn taken_as(
    flag: &str,
    values: &[String],
    all: &[SessionRecord],
    has: impl Fn(&SessionRecord, &str) -> bool,
    diag: &Diag,
) -> Vec<String> {
    let mut dirs = vec![];
    for v in values.iter().filter(|v| is_bare(v)) {
        if all.iter().any(|r| has(r, v)) {
            continue;
        }
        let mut found: Vec<&str> = vec![];
        let mut sessions = 0;
        for dir in all.iter().filter_map(|r| r.working_dir.as_deref()) {
            if last_component(dir) == v {
                sessions += 1;
                if !found.contains(&dir) {
                    found.push(dir);
                }
            }
        }
        if found.is_empty() {
            suggest(flag, v, all, diag);
            continue;
        }
        let s = if sessions == 1 { "" } else { "s" };
        diag.note(&format_args!("{flag} {v}: taken as {} ({sessions} session{s})", found.join(", ")));
        dirs.extend(found.into_iter().map(str::to_owned));
    }
    dirs
}

/// Says which working directory's name, workspace or project `v` is close
/// to, when it is close to one.
fn suggest(flag: &str, v: &str, all: &[SessionRecord], diag: &Diag) {
    let mut names: Vec<&str> = all.iter().filter_map(|r| r.working_dir.as_deref()).map(last_component).collect();
    names.extend(all.iter().flat_map(|r| [r.workspace.as_deref(), r.project.as_deref()]).flatten());
    names.sort_unstable();
    names.dedup();
    if let Some(near) = crate::text::nearest(v, &names) {
        diag.note(&format_args!("{flag} {v}: no session has it; did you mean {near:?}?"));
    }
}

/// Whether a value is a bare name: not a slug (`-home-u-x`), nor a path
/// (`/…`, `~…`, `.`, `..`, anything with a separator).
fn is_bare(v: &str) -> bool {
    !v.is_empty() && !v.starts_with(['-', '~']) && !v.contains(['/', '\\']) && v != "." && v != ".."
}

/// The last component of a working directory (either separator, so a
/// Windows path written on another system is split too).
fn last_component(dir: &str) -> &str {
    let dir = dir.trim_end_matches(['/', '\\']);
    dir.rsplit(['/', '\\']).next().unwrap_or(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_names_and_last_components() {
        assert!(is_bare("myapp") && is_bare("my-app") && is_bare("my.app"));
        assert!(![".", "..", "-home-u-x", "~/x", "a/b", "C:\\x", ""].iter().any(|v| is_bare(v)));
        assert_eq!(last_component("/home/u/myapp/"), "myapp");
        assert_eq!(last_component("C:\\Users\\dev\\tools"), "tools");
        assert_eq!(last_component("/"), "");
    }
}
