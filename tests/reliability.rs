//! Issue 18 ("Reliability: defects found by hostile input"): one test per
//! item, each the case the issue reproduced on the release binaries.

use crate::kit::Tree;
use crate::util::ci;

/// An Amplifier capture root holding one session `s1` of project `p` whose
/// events.jsonl is `lines`; returns the temp dir (the root) and the file.
fn capture(lines: &[String]) -> (Tree, String) {
    let tree = Tree::new();
    let events = tree.amplifier("p", "s1").metadata(r#"{"session_id":"s1"}"#).lines(lines).write().events;
    let path = events.to_str().unwrap().to_owned();
    (tree, path)
}

const NUMBERS: &str = "[123456789012345678901234567890,18446744073709551616,1E5,1e5,1E+5,-0,1e-400,1e400,0.10]";

/// Item 1: a re-serialised record (over budget, `--fields`, a group key)
/// prints every number exactly as the line holds it; `1e400` is not a bad line.
#[test]
fn numbers_are_printed_as_written() {
    let long = "z".repeat(5000);
    let (dir, path) = capture(&[
        format!(r#"{{"event":"x","data":{{"v":{NUMBERS},"s":"{long}"}}}}"#),
        r#"{"event":"y","data":{"v":12345678901234567890123}}"#.into(),
        r#"{"event":"y","data":{"v":12345678901234567890124}}"#.into(),
        r#"{"event":"y","data":{"v":1e400}}"#.into(),
    ]);
    let ci_of = |line: u32| format!(r#"{{"session":"s1","path":"{path}","line":{line}}}"#);
    let cat = ci("ci-cat").arg(dir.path()).run();
    assert_eq!((cat.stderr.as_str(), cat.code), ("", 0));
    let first = cat.lines()[0];
    assert!(first.starts_with(&format!(r#"{{"event":"x","data":{{"v":{NUMBERS},"s":"zzz"#)), "{first}");
    assert_eq!(cat.lines()[3], format!(r#"{{"event":"y","data":{{"v":1e400}},"workspace":"p","ci":{}}}"#, ci_of(4)));

    let fields = ci("ci-cat").args(["--fields", "data.v"]).arg(dir.path()).run();
    assert_eq!((fields.stderr.as_str(), fields.code), ("", 0));
    assert_eq!(fields.lines()[0], format!(r#"{{"data":{{"v":{NUMBERS}}},"ci":{}}}"#, ci_of(1)));
    assert_eq!(fields.lines()[2], format!(r#"{{"data":{{"v":12345678901234567890124}},"ci":{}}}"#, ci_of(3)));

    let groups = ci("ci-agg").args(["--by", "data.v"]).arg(dir.path()).run();
    assert_eq!((groups.stderr.as_str(), groups.code), ("", 0));
    assert_eq!(
        groups.stdout,
        format!(
            "{}{}{}{{\"data.v\":{NUMBERS},\"count\":1}}\n",
            "{\"data.v\":12345678901234567890123,\"count\":1}\n",
            "{\"data.v\":12345678901234567890124,\"count\":1}\n",
            "{\"data.v\":1e400,\"count\":1}\n",
        )
    );
}

/// Item 6: top-level members beside `data` are content: over budget they
/// are cut in place (and a later tool makes the record whole again).
#[test]
fn extra_top_level_keys_are_cut() {
    let (dir, _) = capture(&[
        format!(r#"{{"event":"x","extra":"{}","data":{{}}}}"#, "z".repeat(100_000)),
        format!(
            r#"{{"event":"x","extra":"{}","more":[{}],"data":{{"a":"{}"}}}}"#,
            "z".repeat(100_000),
            vec!["1"; 3000].join(","),
            "b".repeat(30_000)
        ),
    ]);
    let cat = ci("ci-cat").arg(dir.path()).run();
    assert_eq!((cat.stderr.as_str(), cat.code), ("", 0));
    for line in cat.lines() {
        assert!(line.len() <= 4096, "{} bytes", line.len());
    }
    let first = cat.json()[0].clone();
    let extra = first["extra"].as_str().unwrap_or_default();
    assert!(extra.ends_with(" bytes]") && extra.starts_with("zzzz"), "{extra}");
    assert_eq!(first["data"], serde_json::json!({}));
    let second = cat.json()[1].clone();
    assert_eq!(second["more"], serde_json::json!(["…[+3000 items]"]));
    assert!(second["data"]["a"].as_str().is_some_and(|a| a.len() > 3000), "data keeps the room left");
    let full = ci("ci-cat").arg("--full").arg(dir.path()).run();
    let whole = ci("ci-cat").arg("--full").stdin(cat.stdout.clone()).run();
    assert_eq!((whole.stdout, whole.stderr, whole.code), (full.stdout, String::new(), 0));
}

/// Item 8: min, max and percentiles are never rounded to 18 places, and a
/// figure computed in floating point says so.
#[test]
fn aggregates_are_exact_or_say_approximate() {
    let lines = |vs: &[&str]| vs.iter().map(|v| format!(r#"{{"event":"x","data":{{"v":{v}}}}}"#)).collect::<Vec<_>>();
    let (dir, _) = capture(&lines(&["1e-30", "-1e-30", "1.5e-7"]));
    let run = ci("ci-agg").args(["--min", "data.v", "--max", "data.v", "--p50", "data.v"]).arg(dir.path()).run();
    assert_eq!(
        (run.stdout.as_str(), run.stderr.as_str(), run.code),
        (
            "{\"count\":3,\"data.v\":{\"min\":-1e-30,\"max\":0.00000015,\"p50\":1e-30,\"approximate\":[\"min\",\"p50\"]}}\n",
            "",
            0
        )
    );
    let (dir, _) = capture(&lines(&["170000000000000000000", "170000000000000000000", "0.000000000000000001"]));
    let run = ci("ci-agg").args(["--sum", "data.v", "--min", "data.v"]).arg(dir.path()).run();
    assert_eq!(
        (run.stdout.as_str(), run.code),
        ("{\"count\":3,\"data.v\":{\"sum\":3.4e+20,\"min\":0.000000000000000001,\"approximate\":[\"sum\"]}}\n", 0)
    );
    // Exact decimals keep every digit and carry no mark.
    let (dir, _) = capture(&lines(&["0.123456789012345678", "1"]));
    let run = ci("ci-agg").args(["--sum", "data.v"]).arg(dir.path()).run();
    assert_eq!(run.stdout, "{\"count\":2,\"data.v\":{\"sum\":1.123456789012345678}}\n");
}

/// Item 3: a merge of damaged partial streams refuses what it cannot trust.
#[test]
fn merge_refuses_damaged_partial_state() {
    let header = |tz: &str| {
        format!(
            r#"{{"kind":"header","format":"ci-agg-partial","version":1,"query":{{"preset":"group","by":["event"],"measures":[["data.v",["min","max"]]],"tz":"{tz}","cost":"auto","pricing":"litellm 1.110.2 (built in)"}}}}"#
        )
    };
    let group = |count: u64, min: &str, max: &str| {
        format!(r#"{{"kind":"group","key":["x"],"count":{count},"stats":[{{"n":1,"min":"{min}","max":"{max}"}}]}}"#)
    };
    let merge = |lines: Vec<String>| {
        let run = ci("ci-agg").arg("--merge").stdin(lines.join("\n") + "\n").run();
        (run.stdout, run.stderr, run.code)
    };
    let max = u64::MAX;
    assert_eq!(
        merge(vec![header("UTC"), group(max, "1", "2"), group(5, "1", "2")]),
        (
            format!("{{\"event\":\"x\",\"count\":{max},\"data.v\":{{\"min\":1,\"max\":2}}}}\n"),
            "ci-agg: -:3: merged counts overflow a 64-bit integer\n".into(),
            2
        )
    );
    assert_eq!(
        merge(vec![header("UTC"), group(1, "3", "2")]).1,
        "ci-agg: -:2: bad metric state: min 3 is above max 2\n"
    );
    let (out, err, code) =
        merge(vec![r#"{"kind":"skipped","bad_lines":1,"unfinished_lines":0}"#.into(), header("UTC")]);
    assert_eq!((out.as_str(), code), ("", 2));
    assert!(err.starts_with("ci-agg: -:1: partial state before its header line\n"), "{err}");
    let (out, err, code) = merge(vec![header("Mars/Olympus"), group(1, "1", "2")]);
    assert_eq!((out.as_str(), code), ("", 2), "{err}");
    assert!(err.starts_with("ci-agg: -:1: header: "), "{err}");
    assert!(err.contains("Mars/Olympus"), "{err}");
}

/// Item 2: what discovery cannot read is reported, never skipped silently:
/// a project folder of mode 000, an unreadable hooks session directory, a
/// non-UTF-8 hooks session or event file name, an unreadable hook file
/// (whose session's `events` would be short). Each once, exit 2.
#[test]
fn unreadable_and_unnamable_discovery_entries_are_reported() {
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::PermissionsExt;
    if crate::util::unprivileged("ci-find").is_none() {
        return crate::kit::skip("setpriv", crate::util::NO_UNPRIVILEGED);
    }
    let mode = |p: &std::path::Path, m: u32| std::fs::set_permissions(p, std::fs::Permissions::from_mode(m)).unwrap();
    let run = |args: &[&std::ffi::OsStr]| {
        let out = crate::util::unprivileged("ci-find").unwrap().args(args).output().unwrap();
        (
            String::from_utf8_lossy(&out.stdout).lines().count(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
            out.status.code(),
        )
    };
    let denied = "Permission denied (os error 13)";
    // Amplifier: a project folder that cannot be searched.
    let (dir, _) = capture(&[r#"{"event":"x","data":{}}"#.into()]);
    let closed = dir.path().join("q");
    std::fs::create_dir_all(closed.join("sessions/s2/context-intelligence")).unwrap();
    mode(dir.path(), 0o755);
    mode(&closed, 0o000);
    let (listed, stderr, code) = run(&["--strict".as_ref(), "--root".as_ref(), dir.path().as_os_str()][..]);
    mode(&closed, 0o755);
    assert_eq!((listed, stderr, code), (1, format!("ci-find: {}: {denied}, skipped\n", closed.display()), Some(2)));

    // Claude Code hooks (_sessiondata layout).
    let root = tempfile::tempdir().unwrap();
    mode(root.path(), 0o755);
    let line = r#"{"session_id":"S","hook_event_name":"PreToolUse","tool_name":"Bash","cwd":"/w"}"#;
    let session = |name: &std::ffi::OsStr| {
        let d = root.path().join(name);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("_claude_PreToolUse.jsonl"), format!("{line}\n")).unwrap();
        mode(&d, 0o755);
        d
    };
    let good = session("11111111-aaaa-4000-8000-000000000001".as_ref());
    let locked = session("22222222-bbbb-4000-8000-000000000002".as_ref());
    let odd = session(std::ffi::OsStr::from_bytes(b"bad\xff"));
    let odd_file = good.join(std::ffi::OsStr::from_bytes(b"_claude_X\xff.jsonl"));
    std::fs::write(&odd_file, format!("{line}\n")).unwrap();
    let unreadable = good.join("_claude_PostToolUse.jsonl");
    std::fs::write(&unreadable, format!("{line}\n")).unwrap();
    mode(&unreadable, 0o000);
    mode(&locked, 0o000);
    let (listed, stderr, code) = run(&["--root".as_ref(), root.path().as_os_str()][..]);
    mode(&locked, 0o755);
    let not_utf8 = "path is not valid UTF-8 (not supported: records carry paths as JSON strings), skipped";
    let mut reports: Vec<String> = stderr.lines().map(str::to_owned).collect();
    reports.sort();
    let mut want = vec![
        format!("ci-find: {}: {denied}, skipped", locked.display()),
        format!("ci-find: {}: {not_utf8}", odd.display()),
        format!("ci-find: {}: {not_utf8}", odd_file.display()),
        format!("ci-find: {}: {denied}, skipped", unreadable.display()),
    ];
    want.sort();
    assert_eq!((listed, reports, code), (1, want, Some(2)));
}

/// Item 10: a hostile file name can neither forge a report line nor reach
/// the terminal as an escape sequence.
#[test]
fn control_characters_in_names_are_escaped_on_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let name = "evil\nfake.jsonl:99: x\u{1b}[2J";
    let tree = Tree::at(dir.path());
    let ci_dir = tree.amplifier("p", name).no_metadata().line("{\"event\":\"x\",\"data\":{}}").line("bad").write().dir;
    let run = ci("ci-cat").arg(dir.path()).run();
    let shown = ci_dir.display().to_string().replace('\n', "\\n").replace('\u{1b}', "\\u{1b}");
    assert_eq!(
        run.stderr,
        format!(
            "ci-cat: warning: {shown}/metadata.json: missing\n{shown}/events.jsonl:2: invalid JSON at byte 0: expected a value\nci-cat: 1 bad line skipped (--strict makes bad lines an error)\n"
        )
    );
    assert_eq!(run.code, 0);
}

/// Item 19: a file whose lines end in a bare CR is a bad line (no newline
/// will ever come), not an unfinished one held back with exit 0.
#[test]
fn bare_cr_line_ends_are_reported() {
    let (dir, path) = capture(&["{\"event\":\"x\",\"data\":{}}\r{\"event\":\"y\",\"data\":{}}\r".into()]);
    std::fs::write(&path, "{\"event\":\"x\",\"data\":{}}\r{\"event\":\"y\",\"data\":{}}\r").unwrap();
    let why = "its lines end in a bare CR, not a newline (convert them: tr '\\r' '\\n')";
    let run = ci("ci-cat").arg("--strict").arg(dir.path()).run();
    assert_eq!(
        (run.stdout.as_str(), run.stderr.as_str(), run.code),
        ("", format!("{path}:1: {why}\nci-cat: 1 bad line skipped\n").as_str(), 2)
    );
    let piped = ci("ci-cat").stdin(std::fs::read(&path).unwrap()).run();
    assert_eq!(
        (piped.stderr.as_str(), piped.code),
        (format!("-:1: {why}\nci-cat: 1 bad line skipped (--strict makes bad lines an error)\n").as_str(), 1)
    );
}
