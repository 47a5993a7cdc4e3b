//! Sessions read whole and visited in another order than their files' (a
//! hooks session whose every event has a timestamp, in time order; a Gemini
//! CLI mutation log, last copies winning) are kept whole by the capture
//! cache (issue 33): unchanged, they are answered without being opened;
//! changed, they are read whole again. Answers equal `--no-cache`.

use std::path::{Path, PathBuf};

use crate::util::{ci, root};

/// `from` copied under `to`, every file's modification time an hour ago
/// (old enough that its `stat` proves it unchanged).
fn copy_old(from: &Path, to: &Path) {
    crate::conformance::copy_tree(from, to);
    let mut dirs = vec![to.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for p in std::fs::read_dir(d).unwrap().map(|e| e.unwrap().path()) {
            if p.is_dir() {
                dirs.push(p);
            } else {
                set_old(&p);
            }
        }
    }
}

fn set_old(path: &Path) {
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    std::fs::File::options().append(true).open(path).unwrap().set_modified(old).unwrap();
}

/// ci-agg's stdout and stderr, with the cache in `home` or without it.
fn agg(home: &Path, q: &[&str], path: &Path, cache: bool) -> (String, String) {
    let mut c = ci("ci-agg").env("XDG_CACHE_HOME", home).args(q);
    if !cache {
        c = c.arg("--no-cache");
    }
    let r = c.arg(path).run();
    (r.stdout, r.stderr)
}

/// The file of `tree` whose name is `name`, rewritten in place with `from`
/// replaced by `to` (as long), its size and time kept: the one change a
/// `stat` cannot see, so a run that answers from the cache keeps the old
/// answer, and one that reads the file shows the new one.
fn rewrite_unseen(file: &Path, from: &str, to: &str) {
    assert_eq!(from.len(), to.len());
    let text = std::fs::read_to_string(file).unwrap();
    assert!(text.contains(from), "{}", file.display());
    let time = file.metadata().unwrap().modified().unwrap();
    std::fs::write(file, text.replace(from, to)).unwrap();
    std::fs::File::options().append(true).open(file).unwrap().set_modified(time).unwrap();
}

/// The whole check on the copy at `tree` of a fixture: `q` answers as
/// `--no-cache` does, building and warm; a change the `stat` cannot see in
/// `file` keeps the kept answer (the session was not opened); an append
/// reads it whole again.
fn kept_whole(tree: &Path, file: &Path, q: &[&str], from: &str, to: &str) {
    let home = tempfile::tempdir().unwrap();
    let cold = agg(home.path(), q, tree, false);
    assert_eq!(agg(home.path(), q, tree, true), cold, "building");
    assert_eq!(agg(home.path(), q, tree, true), cold, "warm");
    rewrite_unseen(file, from, to);
    let changed = agg(home.path(), q, tree, false);
    assert_ne!(changed, cold, "the rewrite changes the answer");
    assert_eq!(agg(home.path(), q, tree, true), cold, "answered from the cache, not opened");
    // Grown: read whole again (its first line written once more).
    let text = std::fs::read_to_string(file).unwrap();
    let first = text.lines().next().unwrap();
    std::fs::write(file, format!("{text}{first}\n")).unwrap();
    for q in [q, &["--tokens"], &["--sessions"], &["--tools"]] {
        let cold = agg(home.path(), q, tree, false);
        assert_eq!(agg(home.path(), q, tree, true), cold, "{q:?} after the append, building");
        assert_eq!(agg(home.path(), q, tree, true), cold, "{q:?} after the append, warm");
    }
}

/// A hooks session whose every event has a timestamp (visited in time order).
#[test]
fn a_time_ordered_hooks_session_is_kept_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let tree = tmp.path().join("sessiondata");
    copy_old(&root().join("fixtures/sessiondata-timed"), &tree);
    let file: PathBuf = tree.join("33333333-cccc-4000-8000-000000000003/_claude_PreToolUse.jsonl");
    kept_whole(&tree, &file, &["--by", "event,tool"], "\"Read\"", "\"Reed\"");
}

/// A Gemini CLI mutation log (last copies win). The main session of the
/// fixture ends with a torn line (never kept: read every run); its
/// subagent's log is kept.
#[test]
fn a_gemini_mutation_log_is_kept_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let tree = tmp.path().join(".gemini");
    copy_old(&root().join("fixtures/gemini-cli/.gemini"), &tree);
    let file =
        tree.join("tmp/demo/chats/3b0c1d2e-5f60-4a71-8b92-a3b4c5d6e7f8/7c1e9a40-0d2b-4c3e-9f8a-1b2c3d4e5f60.jsonl");
    kept_whole(&tree, &file, &["--by", "event,model"], "gemini-2.5-flash", "gemini-2.5-flish");
}
