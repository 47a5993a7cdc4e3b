//! One exit-code rule in every tool (issue 15, item 9): 0 something
//! printed, 1 nothing, 2 an error; a root with no session is "nothing",
//! with a one-line note, in all five tools; a file that is no capture at
//! all is an error naming it.

use crate::util::ci;

const R: &str = "fixtures/demo-clean";

/// `tool`'s command line: ci-find takes the root as `--root`, ci-grep a
/// pattern first, the others PATHs.
fn line<'a>(tool: &str, flags: &[&'a str], path: &'a str) -> Vec<&'a str> {
    let mut v: Vec<&str> = flags.to_vec();
    match tool {
        "ci-find" => v.extend(["--root", path]),
        _ => v.push(path),
    }
    v
}

/// Printed / nothing / error, per tool.
#[test]
fn printed_nothing_error_in_every_tool() {
    let empty = tempfile::tempdir().unwrap();
    let empty_capture = empty.path().join("empty.jsonl");
    std::fs::write(&empty_capture, "").unwrap();
    let empty_capture = empty_capture.to_str().unwrap();
    let missing = "fixtures/no-such-root";
    #[rustfmt::skip]
    let cases: &[(&str, &[&str], &[&str], &str)] = &[
        // (tool, flags that print, flags that print nothing, path for nothing)
        ("ci-find", &[], &["--status", "no-such-status"], R),
        ("ci-cat", &["--head", "1"], &["--lines", "1000"], R),
        ("ci-filter", &["--event", "tool:pre"], &["--errors"], empty_capture),
        ("ci-agg", &["--by", "event"], &["--by", "event"], empty_capture),
        ("ci-grep", &["ошибка"], &["no-such-text-anywhere"], R),
    ];
    for &(tool, some, none, none_path) in cases {
        let run = ci(tool).args(line(tool, some, R)).run();
        assert_eq!(run.code, 0, "{tool} printed: {run:?}");
        assert!(!run.stdout.is_empty(), "{tool}");
        let run = ci(tool).args(line(tool, none, none_path)).run();
        assert_eq!((run.code, run.stdout.as_str(), run.stderr.as_str()), (1, "", ""), "{tool} nothing");
        let run = ci(tool).args(line(tool, some, missing)).run();
        assert_eq!((run.code, run.stdout.as_str()), (2, ""), "{tool} error: {}", run.stderr);
        assert!(run.stderr.starts_with(&format!("{tool}: ")) && run.stderr.contains(missing), "{}", run.stderr);
    }
}

/// An empty root is "nothing found" in every tool: one note, exit 1. On the
/// old code ci-find exited 1 and the other four 2.
#[test]
fn an_empty_root_is_nothing_found_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap();
    for (tool, flags) in [
        ("ci-find", &[][..]),
        ("ci-cat", &[]),
        ("ci-filter", &["--event", "tool:pre"]),
        ("ci-agg", &["--by", "event"]),
        ("ci-grep", &["x"]),
    ] {
        let run = ci(tool).args(line(tool, flags, root)).run();
        assert_eq!(
            (run.code, run.stdout.as_str(), run.stderr.clone()),
            (1, "", format!("{tool}: looked in {root}, found 0\n")),
            "{tool}"
        );
    }
    // The total of nothing is printed, and is still "nothing" (as grep -c).
    let run = ci("ci-agg").arg(root).run();
    assert_eq!((run.code, run.stdout.as_str()), (1, "{\"count\":0}\n"));
}

/// The cases of the issue: `ci-cat --lines 1000 F` (a range past the end)
/// printed nothing and exited 0; a file that is no capture (`/etc/hostname`)
/// printed nothing and exited 0. Now 1, and 2 naming the file, in every tool
/// that reads PATHs.
#[test]
fn a_range_past_the_end_and_a_file_that_is_no_capture() {
    let f = format!(
        "{R}/-C-Users-dev-tools/sessions/c0ffee00-d1a2-4b3c-9d4e-5f6a7b8c9d0e/context-intelligence/events.jsonl"
    );
    let run = ci("ci-cat").args(["--lines", "1000", &f]).run();
    assert_eq!((run.code, run.stdout.as_str(), run.stderr.as_str()), (1, "", ""));
    let run = ci("ci-cat").args(["--tail", "2"]).stdin("").run();
    assert_eq!((run.code, run.stdout.as_str()), (1, ""));

    let dir = tempfile::tempdir().unwrap();
    let host = dir.path().join("hostname");
    std::fs::write(&host, "build-host-1\n").unwrap();
    let host = host.to_str().unwrap();
    for (tool, flags) in
        [("ci-cat", &[][..]), ("ci-filter", &[]), ("ci-agg", &["--by", "event"]), ("ci-grep", &["build"])]
    {
        let run = ci(tool).args(flags).arg(host).run();
        assert_eq!(
            (run.code, run.stdout.as_str(), run.stderr.clone()),
            (
                2,
                "",
                format!(
                    "{host}:1: invalid JSON at byte 0: expected a value\n\
                     {tool}: {host}: not a capture: no line of it is an event of a writer the tools read\n\
                     {tool}: 1 bad line skipped (--strict makes bad lines an error)\n"
                )
            ),
            "{tool}"
        );
    }
    // A file of events outside any layout is a capture; one damaged line in
    // it is a bad line, not "no capture".
    let mixed = dir.path().join("mixed.jsonl");
    std::fs::write(&mixed, "{\"event\":\"a:b\",\"data\":{},\"timestamp\":\"\",\"workspace\":\"w\"}\nnot json\n")
        .unwrap();
    let run = ci("ci-cat").args(["--fields", "event"]).arg(&mixed).run();
    assert_eq!(run.code, 0, "{run:?}");
    assert!(!run.stderr.contains("not a capture"), "{}", run.stderr);
}
