//! Hostile paths under a root: symlink loops, dangling links, FIFOs and
//! non-UTF-8 names are reported and skipped; nothing hangs or panics.

use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use crate::util::ci;

const EVENT: &str = "{\"event\":\"session:start\",\"data\":{}}\n";

/// `root/-p/sessions/<id>/context-intelligence/`, with `events.jsonl` when `events`.
fn session(root: &Path, id: &std::ffi::OsStr, events: bool) -> PathBuf {
    let ci = root.join("-p").join("sessions").join(id).join("context-intelligence");
    std::fs::create_dir_all(&ci).unwrap();
    std::fs::write(ci.join("metadata.json"), "{}").unwrap();
    if events {
        std::fs::write(ci.join("events.jsonl"), EVENT).unwrap();
    }
    ci
}

fn listed(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["session"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn symlink_loops_do_not_hang_discovery() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    session(root, "good".as_ref(), true);
    // Loops at every level of the fixed-depth walk.
    symlink(root, root.join("-loop")).unwrap();
    symlink(".", root.join("-p/sessions/dot")).unwrap();
    symlink("..", root.join("-p/sessions/good/context-intelligence/up")).unwrap();
    // An events.jsonl that is a two-link loop.
    let cid = session(root, "looped".as_ref(), false);
    symlink("a", cid.join("events.jsonl")).unwrap();
    symlink("events.jsonl", cid.join("a")).unwrap();
    let run = ci("ci-find").args(["--root".as_ref(), root.as_os_str()]).run();
    assert_eq!(listed(&run.stdout), ["good"]);
    let looped = cid.join("events.jsonl");
    assert_eq!(
        run.stderr,
        format!("ci-find: {}: Too many levels of symbolic links (os error 40), skipped\n", looped.display())
    );
    assert_eq!(run.code, 2);
}

#[test]
fn dangling_links_and_fifos_are_reported_not_opened() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    session(root, "good".as_ref(), true);
    let dangling = session(root, "dangling".as_ref(), false).join("events.jsonl");
    symlink("gone.jsonl", &dangling).unwrap();
    let fifo = session(root, "fifo".as_ref(), false).join("events.jsonl");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    for tool in ["ci-find", "ci-cat"] {
        let cmd = if tool == "ci-find" { ci(tool).arg("--root") } else { ci(tool) };
        let run = cmd.arg(root).run();
        assert_eq!(
            run.stderr,
            format!(
                "{tool}: {}: dangling symbolic link, skipped\n{tool}: {}: not a regular file, skipped\n",
                dangling.display(),
                fifo.display()
            ),
            "{tool}"
        );
        assert_eq!(run.code, 2, "{tool}");
        if tool == "ci-find" {
            assert_eq!(listed(&run.stdout), ["good"]);
        } else {
            assert_eq!(run.lines().len(), 1);
        }
    }
}

#[test]
fn non_utf8_session_names_are_reported_and_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    session(root, "good".as_ref(), true);
    let bad = std::ffi::OsStr::from_bytes(b"bad-\xff\xfe");
    let ci_dir = session(root, bad, true);
    let sess = ci_dir.parent().unwrap();
    let want = |tool: &str| {
        format!(
            "{tool}: {}: path is not valid UTF-8 (not supported: records carry paths as JSON strings), skipped\n",
            sess.display()
        )
    };
    let run = ci("ci-find").args(["--root".as_ref(), root.as_os_str()]).run();
    assert_eq!(listed(&run.stdout), ["good"]);
    assert_eq!(run.stderr, want("ci-find"));
    assert_eq!(run.code, 2);
    // Named directly: the same report, no panic.
    let run = ci("ci-cat").arg(sess).run();
    assert_eq!(run.stdout, "");
    assert_eq!(run.stderr, want("ci-cat"));
    assert_eq!(run.code, 2);
    // A non-UTF-8 file named directly is read (its path is shown lossily).
    let file = root.join(std::ffi::OsStr::from_bytes(b"x-\xff.jsonl"));
    std::fs::write(&file, EVENT).unwrap();
    let run = ci("ci-cat").arg(&file).run();
    let rec: serde_json::Value = serde_json::from_str(run.stdout.trim_end()).unwrap();
    assert_eq!(rec["ci"]["path"], file.to_string_lossy().as_ref());
    assert_eq!(rec["ci"]["session"], "x-\u{fffd}");
    assert_eq!((run.stderr.as_str(), run.code), ("", 0));
    // A Claude hook session directory with such a name, named directly.
    let hooks = root.join(std::ffi::OsStr::from_bytes(b"hooks-\xff"));
    std::fs::create_dir(&hooks).unwrap();
    std::fs::write(hooks.join("_claude_Stop.jsonl"), "{\"hook_event_name\":\"Stop\"}\n").unwrap();
    let run = ci("ci-cat").arg(&hooks).run();
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        format!(
            "ci-cat: {}: path is not valid UTF-8 (not supported: records carry paths as JSON strings), skipped\n",
            hooks.display()
        )
    );
    assert_eq!(run.code, 2);
}
