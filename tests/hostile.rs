//! Hostile paths under a root: symlink loops, dangling links, FIFOs and
//! non-UTF-8 names are reported and skipped; nothing hangs or panics.

use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use crate::kit::Tree;
use crate::util::ci;

const EVENT: &str = "{\"event\":\"session:start\",\"data\":{}}\n";

/// `root/-p/sessions/<id>/context-intelligence/`, with `events.jsonl` when `events`.
fn session(root: &Path, id: &std::ffi::OsStr, events: bool) -> PathBuf {
    let capture = Tree::at(root).amplifier("-p", id).metadata("{}");
    if events { capture.raw(EVENT) } else { capture.no_events() }.write().dir
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
    crate::kit::tree::mkfifo(&fifo);
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

// ---------------------------------------------------------------------------
// Names that would escape a root

/// A root with one good capture, for tools that need one.
fn one_good_root() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    session(dir.path(), "good-session".as_ref(), true);
    dir
}

/// `--session` values that no session directory can be named (`/`, `\`, `.`,
/// `..`; NUL cannot be passed in argv, see the piped records below) are
/// refused before anything is read, by every tool that takes `--session`.
#[test]
fn session_ids_that_would_escape_the_root_are_refused() {
    let dir = one_good_root();
    let root = dir.path().to_str().unwrap();
    for id in ["../x", "../../etc/passwd", "a/b", "..", ".", "/etc", "a\\b"] {
        for (tool, args) in [
            ("ci-find", vec!["--root", root, "--session", id]),
            ("ci-filter", vec!["--session", id, root]),
            ("ci-grep", vec!["--session", id, "x", root]),
        ] {
            let run = ci(tool).args(&args).run();
            assert_eq!(run.stdout, "", "{tool} {id}");
            assert_eq!(run.stderr, format!("{tool}: --session: unsafe session id {id:?}\n"), "{tool} {id}");
            assert_eq!(run.code, 2, "{tool} {id}");
        }
    }
}

/// Session records piped on stdin are checked before use: an id that is not a
/// plain directory name (here `..`-relative and with a NUL) or a hooks `files`
/// entry that is not a plain file name is reported as `-:LINE: reason` and
/// skipped (exit 2), by every tool that expands them. The `path` of a record
/// is used as given, like a path on the command line: the stream is the
/// user's own input (normally ci-find's output), not data from a capture, so
/// a path outside any root is read.
#[test]
fn piped_session_records_with_unsafe_names_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let outside = dir.path().join("outside.jsonl");
    std::fs::write(&outside, "{\"event\":\"x:y\",\"data\":{\"s\":\"hello\"}}\n").unwrap();
    let path = outside.to_str().unwrap();
    let records = [
        format!(r#"{{"session":"../x","project":"-p","path":"{path}","format":"amplifier"}}"#),
        format!(r#"{{"session":"a\u0000b","project":"-p","path":"{path}","format":"amplifier"}}"#),
        format!(
            r#"{{"session":"h1","path":"{}","format":"claude-hooks","files":["../../etc/passwd"]}}"#,
            dir.path().display()
        ),
        format!(r#"{{"session":"ok","project":"-p","path":"{path}","format":"amplifier"}}"#),
    ];
    let stdin = records.join("\n") + "\n";
    let event = format!(r#"{{"event":"x:y","data":{{"s":"hello"}},"ci":{{"session":"ok","path":"{path}","line":1}}}}"#);
    for (tool, args, want) in [
        ("ci-cat", vec![], event.clone()),
        ("ci-filter", vec!["--event", "x:y"], event.clone()),
        // Only session-level predicates: the safe record passes unexpanded.
        ("ci-filter", vec!["--workspace", "-p"], records[3].clone()),
        ("ci-agg", vec!["--by", "event"], r#"{"event":"x:y","count":1}"#.to_string()),
        ("ci-grep", vec!["-c", "hello"], format!(r#"{{"session":"ok","path":"{path}","count":1}}"#)),
    ] {
        let run = ci(tool).args(&args).stdin(stdin.clone()).run();
        assert_eq!(run.stdout, want + "\n", "{tool} {args:?}");
        assert_eq!(
            run.stderr,
            format!(
                "{tool}: -:1: unsafe session id \"../x\"\n{tool}: -:2: unsafe session id \"a\\0b\"\n\
                 {tool}: -:3: unsafe file name \"../../etc/passwd\"\n"
            ),
            "{tool} {args:?}"
        );
        assert_eq!(run.code, 2, "{tool} {args:?}");
    }
}

// ---------------------------------------------------------------------------
// Permissions

/// Unreadable captures and directories (mode 000) are reported with the OS
/// error and skipped; the readable capture is still read; exit 2.
#[test]
fn unreadable_files_and_directories_are_reported_and_skipped() {
    use std::os::unix::fs::PermissionsExt;
    let Some(_) = crate::util::unprivileged("ci-find") else {
        return crate::kit::skip("setpriv", crate::util::NO_UNPRIVILEGED);
    };
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    session(root, "good".as_ref(), true);
    let noread = session(root, "noread".as_ref(), true).join("events.jsonl");
    let nodir = session(root, "nodir".as_ref(), true).parent().unwrap().to_owned();
    let closed = root.join("-q/sessions");
    std::fs::create_dir_all(closed.join("x")).unwrap();
    let mode = |p: &Path, m: u32| std::fs::set_permissions(p, std::fs::Permissions::from_mode(m)).unwrap();
    mode(root, 0o755);
    for p in [&noread, &nodir, &closed] {
        mode(p, 0o000);
    }
    let denied = "Permission denied (os error 13)";
    let listing = |tool: &str| {
        format!(
            "{tool}: {}: {denied}\n{tool}: {}: {denied}, skipped\n",
            closed.display(),
            nodir.join("context-intelligence/events.jsonl").display()
        )
    };
    let run = |tool: &str, args: &[&std::ffi::OsStr]| {
        let out = crate::util::unprivileged(tool).unwrap().args(args).output().unwrap();
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
            out.status.code(),
        )
    };
    let (stdout, stderr, code) = run("ci-find", &["--root".as_ref(), root.as_os_str()]);
    // ci-find reads metadata only: the unreadable events.jsonl is listed (it exists).
    assert_eq!(listed(&stdout), ["good", "noread"]);
    assert_eq!((stderr, code), (listing("ci-find"), Some(2)));
    for (tool, want) in [("ci-cat", "\"session\":\"good\""), ("ci-agg", r#"{"event":"session:start","count":1}"#)] {
        let args: Vec<&std::ffi::OsStr> = if tool == "ci-agg" {
            vec!["--by".as_ref(), "event".as_ref(), root.as_os_str()]
        } else {
            vec![root.as_os_str()]
        };
        let (stdout, stderr, code) = run(tool, &args);
        assert_eq!(stdout.lines().count(), 1, "{tool}");
        assert!(stdout.contains(want), "{tool}: {stdout}");
        assert_eq!(stderr, format!("{}{tool}: {}: {denied}\n", listing(tool), noread.display()), "{tool}");
        assert_eq!(code, Some(2), "{tool}");
    }
    // Named directly. The directory is resolved by the reading thread while a
    // worker may already be opening the file, so the two reports come in
    // either order.
    let (stdout, stderr, code) = run("ci-cat", &[noread.as_os_str(), nodir.as_os_str()]);
    assert_eq!(stdout, "");
    let mut reports: Vec<&str> = stderr.lines().collect();
    reports.sort_unstable();
    let mut want =
        [format!("ci-cat: {}: {denied}", nodir.display()), format!("ci-cat: {}: {denied}", noread.display())];
    want.sort_unstable();
    assert_eq!(reports, want);
    assert_eq!(code, Some(2));
    for p in [&noread, &nodir, &closed] {
        mode(p, 0o755);
    }
}

// ---------------------------------------------------------------------------
// Deep nesting

/// Lines nested far deeper than the parser's limit (127 levels, serde_json's):
/// 100,000 `[` inside `data`, 200 nested objects inside `data`, and a bare
/// unterminated run of 100,000 `[`, between two good lines.
fn deep_capture(dir: &Path) -> PathBuf {
    let mut text = String::from("{\"event\":\"a\",\"data\":{\"n\":1}}\n");
    text += &format!("{{\"event\":\"b\",\"data\":{{\"x\":{}{}}}}}\n", "[".repeat(100_000), "]".repeat(100_000));
    text += &format!("{{\"event\":\"c\",\"data\":{}1{}}}\n", "{\"k\":".repeat(200), "}".repeat(200));
    text += &"[".repeat(100_000);
    text += "\n{\"event\":\"d\",\"data\":{\"n\":2,\"s\":\"needle\"}}\n";
    let path = dir.join("deep.jsonl");
    std::fs::write(&path, text).unwrap();
    path
}

/// The reports for the three deep lines of [`deep_capture`] named `name`: the
/// byte offset is where the 128th level opens (line 2: after 25 bytes of
/// envelope at depth 2; line 3: `{"k":` is 5 bytes, data opens at byte 20).
fn deep_reports(name: &str, lines: &[u64]) -> String {
    let at = |l: u64| match l {
        2 => 150,
        3 => 20 + 5 * 126,
        _ => 127,
    };
    lines.iter().map(|&l| format!("{name}:{l}: JSON nested deeper than 127 levels at byte {}\n", at(l))).collect()
}

/// Every tool reports each too-deep line as `path:line: reason` naming the
/// limit, does not overflow its stack, and still emits the good lines around
/// them. ci-filter and ci-grep validate only the lines they use (documented:
/// a line their envelope check or raw pre-check rules out is not parsed), so
/// they report all three with `--strict` or when the line is a candidate.
#[test]
fn deep_nesting_is_a_clear_error_in_every_tool() {
    let dir = tempfile::tempdir().unwrap();
    let file = deep_capture(dir.path());
    let name = file.to_str().unwrap();
    let summary = |tool: &str, n: usize, strict: bool| {
        if strict {
            format!("{tool}: {n} bad lines skipped\n")
        } else {
            format!("{tool}: {n} bad lines skipped (--strict makes bad lines an error)\n")
        }
    };
    let all = deep_reports(name, &[2, 3, 4]);
    let ev = |e: &str, l: u64, data: &str| {
        format!(r#"{{"event":"{e}","data":{data},"ci":{{"session":"deep","path":"{name}","line":{l}}}}}"#)
    };
    let good = format!("{}\n{}\n", ev("a", 1, r#"{"n":1}"#), ev("d", 5, r#"{"n":2,"s":"needle"}"#));
    let cases: Vec<(&str, Vec<&str>, String, String, i32)> = vec![
        ("ci-cat", vec![], good.clone(), all.clone() + &summary("ci-cat", 3, false), 0),
        ("ci-cat", vec!["--strict"], good.clone(), all.clone() + &summary("ci-cat", 3, true), 2),
        (
            "ci-agg",
            vec!["--by", "event"],
            "{\"event\":\"a\",\"count\":1}\n{\"event\":\"d\",\"count\":1}\n".into(),
            all.clone() + &summary("ci-agg", 3, false),
            0,
        ),
        (
            "ci-filter",
            vec!["--event", "c", "--event", "d"],
            ev("d", 5, r#"{"n":2,"s":"needle"}"#) + "\n",
            deep_reports(name, &[3, 4]) + &summary("ci-filter", 2, false),
            0,
        ),
        (
            "ci-filter",
            vec!["--strict", "--where", "data.n >= 1"],
            good.clone(),
            all.clone() + &summary("ci-filter", 3, true),
            2,
        ),
        (
            "ci-grep",
            vec!["-c", "--strict", "needle"],
            format!("{{\"session\":\"deep\",\"path\":\"{name}\",\"count\":1}}\n"),
            all.clone() + &summary("ci-grep", 3, true),
            2,
        ),
        // No literal to pre-check: every line is parsed.
        (
            "ci-grep",
            vec!["-c", r"\w+"],
            format!("{{\"session\":\"deep\",\"path\":\"{name}\",\"count\":1}}\n"),
            all.clone() + &summary("ci-grep", 3, false),
            0,
        ),
    ];
    for (tool, args, stdout, stderr, code) in cases {
        let run = ci(tool).args(&args).arg(&file).run();
        assert_eq!(run.stdout, stdout, "{tool} {args:?}");
        assert_eq!(run.stderr, stderr, "{tool} {args:?}");
        assert_eq!(run.code, code, "{tool} {args:?}");
    }
    // The same lines on stdin.
    let run = ci("ci-cat").stdin(std::fs::read(&file).unwrap()).run();
    assert_eq!(run.lines().len(), 2);
    assert_eq!(run.stderr, deep_reports("-", &[2, 3, 4]) + &summary("ci-cat", 3, false));
    assert_eq!(run.code, 0);
}

/// Deep nesting in a capture's metadata.json: ci-find reports it as corrupt
/// metadata (serde_json's recursion limit: the 128th `[` after the 25 bytes of
/// `{"session_id":"deep","x":` is column 152) and still lists the capture.
#[test]
fn deep_nesting_in_metadata_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let deep = format!("{{\"session_id\":\"deep\",\"x\":{}{}}}", "[".repeat(100_000), "]".repeat(100_000));
    let meta = Tree::at(dir.path()).amplifier("-p", "deep").metadata(deep).raw(EVENT).write().dir.join("metadata.json");
    let run = ci("ci-find").args(["--root".as_ref(), dir.path().as_os_str()]).run();
    assert_eq!(listed(&run.stdout), ["deep"]);
    assert_eq!(run.json()[0]["metadata"], "corrupt");
    assert_eq!(
        run.stderr,
        format!("ci-find: warning: {}: invalid JSON: recursion limit exceeded at line 1 column 152\n", meta.display())
    );
    assert_eq!(run.code, 0);
}

/// A Claude hooks session's event files are found by listing the session
/// directory, so their names cannot escape it; a symbolic link among them
/// (which could point anywhere) is not followed: not listed by ci-find, not
/// read by ci-cat (current behaviour, documented here; the Amplifier
/// `events.jsonl` link is followed, or reported when dangling or looping).
#[test]
fn symlinked_hook_event_files_are_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let outside = dir.path().join("outside.jsonl");
    std::fs::write(&outside, "{\"hook_event_name\":\"Stop\",\"session_id\":\"s1\"}\n").unwrap();
    let hooks = Tree::at(dir.path().join("sd")).hook_session("s1");
    let sess = hooks.dir.clone();
    symlink(&outside, sess.join("_claude_Stop.jsonl")).unwrap();
    hooks.hook("UserPromptSubmit", "{\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":\"hi\"}\n");
    let run = ci("ci-find").arg("--root").arg(dir.path().join("sd")).run();
    assert_eq!(run.json()[0]["files"], serde_json::json!(["_claude_UserPromptSubmit.jsonl"]));
    assert_eq!((run.stderr.as_str(), run.code), ("", 0));
    let run = ci("ci-cat").arg(&sess).run();
    assert_eq!(run.json().iter().map(|v| v["hook"].clone()).collect::<Vec<_>>(), ["UserPromptSubmit"]);
    assert_eq!((run.stderr.as_str(), run.code), ("", 0));
}

/// A stray file where session directories are expected (`sessions/.DS_Store`)
/// is ignored like a dangling link there, not reported as an error that makes
/// every tool exit 2 (issue 18, item 16).
#[test]
fn stray_files_in_a_sessions_folder_are_ignored() {
    let dir = tempfile::tempdir().unwrap();
    let tree = Tree::at(dir.path());
    tree.amplifier("-p", "s1").line(r#"{"event":"prompt:submit","data":{},"timestamp":"","workspace":"w"}"#).write();
    std::fs::write(dir.path().join("-p/sessions/.DS_Store"), b"\0\0\0\x01Bud1").unwrap();
    symlink(dir.path().join("nowhere"), dir.path().join("-p/sessions/dangling")).unwrap();
    let run = ci("ci-find").arg("--root").arg(dir.path()).run();
    assert_eq!((run.stderr.as_str(), run.code), ("", 0));
    assert_eq!(run.json().iter().map(|r| r["session"].clone()).collect::<Vec<_>>(), ["s1"]);
    let run = ci("ci-agg").args(["--by", "event"]).arg(dir.path()).run();
    assert_eq!(
        (run.stdout.as_str(), run.stderr.as_str(), run.code),
        ("{\"event\":\"prompt:submit\",\"count\":1}\n", "", 0)
    );
}

/// `-j` is capped at 256 threads with a warning: a huge value panicked
/// (capacity overflow) or aborted on a 64 GB allocation, 100,000 spent 20 s
/// starting threads (issue 18, item 13).
#[test]
fn huge_thread_counts_are_capped() {
    for n in ["18446744073709551615", "4294967296", "100000"] {
        let run = ci("ci-agg").args(["-j", n, "--by", "event", "fixtures/sessiondata-timed"]).run();
        assert_eq!(run.code, 0, "-j {n}: {run:?}");
        assert_eq!(run.stderr, format!("ci-agg: warning: -j {n} is more than 256: using 256\n"));
        assert!(run.stdout.contains("\"event\":\"prompt:submit\""));
    }
}

/// A `ci` key written in a capture file is the writer's data, never taken
/// for provenance: the record gets its real `ci` and keeps the on-disk one as
/// `ci_original`; `ci-grep -l` and `ci-agg --sessions` name the real session
/// and path, and `--where` on `ci.*` sees the real ones (issue 18, item 9).
#[test]
fn a_ci_key_on_disk_is_not_provenance() {
    let dir = tempfile::tempdir().unwrap();
    let forged = r#"{"session":"../../x","path":"/etc/passwd","line":5}"#;
    let line =
        format!(r#"{{"event":"tool:pre","data":{{"tool_name":"bash"}},"timestamp":"","workspace":"w","ci":{forged}}}"#);
    let events = Tree::at(dir.path()).amplifier("-p", "s1").line(line).write().events;
    let real = format!(r#"{{"session":"s1","path":"{}","line":1}}"#, events.display());
    let run = ci("ci-cat").arg(dir.path()).run();
    assert_eq!((run.stderr.as_str(), run.code), ("", 0));
    let want = format!(
        r#"{{"event":"tool:pre","data":{{"tool_name":"bash"}},"timestamp":"","workspace":"w","ci_original":{forged},"ci":{real}}}"#
    );
    assert_eq!(run.stdout, format!("{want}\n"));
    let listed = ci("ci-grep").args(["-l", "bash"]).stdin(run.stdout.clone()).run().json();
    assert_eq!((listed[0]["session"].as_str(), listed[0]["path"].as_str()), (Some("s1"), events.to_str()));
    let sessions = ci("ci-agg").arg("--sessions").stdin(run.stdout.clone()).run().json();
    assert_eq!(sessions[0]["session"], "s1");
    let forged_path = ci("ci-filter").args(["--where", "ci.path == \"/etc/passwd\""]).arg(dir.path()).run();
    assert_eq!((forged_path.code, forged_path.stdout.as_str()), (1, ""));
}

/// A UTF-8 byte-order mark at the start of a capture is skipped (as jq
/// does), not reported as a bad first line (issue 18, item 19).
#[test]
fn a_byte_order_mark_is_not_a_bad_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bom.jsonl");
    let line = r#"{"event":"prompt:submit","data":{},"timestamp":"","workspace":"w"}"#;
    std::fs::write(&file, format!("\u{feff}{line}\n{line}\n")).unwrap();
    let run = ci("ci-agg").args(["--by", "event", "--strict"]).arg(&file).run();
    assert_eq!(
        (run.stdout.as_str(), run.stderr.as_str(), run.code),
        ("{\"event\":\"prompt:submit\",\"count\":2}\n", "", 0)
    );
}

/// `--help`, `--version` and `--generate man` that cannot be written (a
/// full device) exit 2 with the reason, as normal output does; they exit
/// 0 as before when written (issue 18, item 17).
#[test]
fn help_and_generated_text_to_a_full_device_is_an_error() {
    for args in [&["--help"][..], &["--version"][..], &["--generate", "man"][..]] {
        for bin in ["ci-find", "ci-cat", "ci-filter", "ci-agg", "ci-grep"] {
            let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
            let out = crate::util::ci_command(bin).args(args).stdout(full).output().unwrap();
            assert_eq!(out.status.code(), Some(2), "{bin} {args:?}");
            assert_eq!(
                String::from_utf8_lossy(&out.stderr),
                format!("{bin}: stdout: No space left on device (os error 28)\n"),
                "{bin} {args:?}"
            );
            let ok = crate::util::ci_command(bin).args(args).output().unwrap();
            assert_eq!((ok.status.code(), ok.stderr.is_empty(), ok.stdout.is_empty()), (Some(0), true, false));
        }
    }
}

/// A FIFO `metadata.json` blocked every tool when it was opened (issue 18,
/// item 11): it is opened without waiting, reported as not a regular file
/// (a warning, as for corrupt metadata), and the capture is read.
#[test]
fn a_fifo_metadata_file_does_not_hang_any_tool() {
    let dir = tempfile::tempdir().unwrap();
    let line = r#"{"event":"prompt:submit","data":{"prompt":"hi"},"timestamp":"","workspace":"w"}"#;
    let ci_dir = Tree::at(dir.path()).amplifier("-p", "s1").fifo_metadata().line(line).write().dir;
    let meta = ci_dir.join("metadata.json");
    let warning = |bin: &str| format!("{bin}: warning: {}: not a regular file\n", meta.display());
    for args in [
        &["ci-find", "--root"][..],
        &["ci-cat"][..],
        &["ci-agg", "--by", "event"][..],
        &["ci-grep", "hi"][..],
        &["ci-filter", "--event", "prompt:submit"][..],
    ] {
        let mut child = crate::util::ci_command(args[0])
            .args(&args[1..])
            .arg(dir.path())
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let code = crate::util::exits_within(&mut child, "a tool over a FIFO metadata.json");
        let out = child.wait_with_output().unwrap();
        assert_eq!(code, Some(0), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), warning(args[0]), "{args:?}");
        assert!(!out.stdout.is_empty(), "{args:?}");
    }
}

/// A device or FIFO named by a piped session record is never read: `/dev/zero`
/// made ci-cat grow to gigabytes, a FIFO hung it (issue 18, item 12). Each is
/// reported (`path: not a regular file, skipped`, exit 2) at once.
#[test]
fn device_and_fifo_paths_in_piped_records_are_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo.jsonl");
    crate::kit::tree::mkfifo(&fifo);
    for path in [std::path::Path::new("/dev/zero"), fifo.as_path()] {
        let record = format!("{{\"session\":\"s1\",\"path\":{:?},\"format\":\"amplifier\"}}\n", path.to_str().unwrap());
        for args in [&["ci-cat"][..], &["ci-agg", "--by", "event"][..], &["ci-grep", "x"][..]] {
            let mut child = crate::util::ci_command(args[0])
                .args(&args[1..])
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            use std::io::Write as _;
            child.stdin.take().unwrap().write_all(record.as_bytes()).unwrap();
            let code = crate::util::exits_within(&mut child, "a tool over a device or FIFO path");
            let out = child.wait_with_output().unwrap();
            assert_eq!(code, Some(2), "{args:?} {path:?}");
            let want = format!("{}: {}: not a regular file, skipped\n", args[0], path.display());
            assert!(String::from_utf8_lossy(&out.stderr).starts_with(&want), "{args:?}: {:?}", out.stderr);
        }
    }
}

/// `ci-find --tree` shows sessions whose parents form a cycle (they were
/// dropped: 3 of 6 shown), marks the cycle, and caps the indentation of a
/// deep chain (a 20,000-deep one printed 600 MB) (issue 18, item 14).
#[test]
fn tree_shows_parent_cycles_and_caps_deep_chains() {
    let dir = tempfile::tempdir().unwrap();
    let tree = Tree::at(dir.path());
    let session = |id: &str, parent: &str| {
        let meta = format!(r#"{{"session_id":"{id}","workspace":"w","parent_id":"{parent}","status":"completed"}}"#);
        tree.amplifier("-p", id).metadata(meta).write();
    };
    session("root-1", "");
    session("cyc-a", "cyc-c");
    session("cyc-b", "cyc-a");
    session("cyc-c", "cyc-b");
    let depth = 300;
    for i in 0..depth {
        session(&format!("deep-{i:04}"), &if i == 0 { "root-1".to_owned() } else { format!("deep-{:04}", i - 1) });
    }
    let run = ci("ci-find").arg("--root").arg(dir.path()).arg("--tree").run();
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    let lines = run.lines();
    for id in ["root-1", "cyc-a", "cyc-b", "cyc-c", "deep-0000", "deep-0299"] {
        assert_eq!(lines.iter().filter(|l| l.contains(&format!("{id}  "))).count(), 1, "{id} once: {lines:?}");
    }
    assert_eq!(lines.iter().filter(|l| l.contains("(parent cycle) cyc-")).count(), 1);
    assert_eq!(lines.iter().filter(|l| l.contains("↺ cyc-")).count(), 1);
    assert_eq!(lines.len(), 4 + depth + 1);
    let widest = lines.iter().map(|l| l.chars().take_while(|c| !c.is_ascii_alphanumeric() && *c != '(').count()).max();
    assert!(widest.unwrap_or(0) <= 3 * 64 + 3, "indentation capped: {widest:?}");
}

/// `--fields ci` (or a path into it) printed the key twice, once null; the
/// provenance object is appended whole, once (issue 18, item 18, first part).
#[test]
fn fields_naming_ci_give_one_ci_key() {
    for fields in ["ci,event", "ci.line", "event,ci.path,ci"] {
        let run = ci("ci-cat").args(["--fields", fields, "fixtures/sessiondata-timed"]).run();
        assert_eq!(run.code, 0, "{fields}");
        for line in run.lines() {
            assert_eq!(line.matches("\"ci\":").count(), 1, "{fields}: {line}");
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            assert!(v["ci"]["line"].is_u64(), "{fields}: {line}");
        }
    }
}
