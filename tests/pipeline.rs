//! The mission's headline pipelines, end to end through several binaries.

use crate::util::*;

fn pipe(input: String, bin: &str, args: &[&str]) -> String {
    let run = ci(bin).args(args).stdin(input).run();
    assert!(run.code == 0 || run.code == 1, "{bin} {args:?}: {run:?}");
    run.stdout
}

#[test]
fn filter_then_agg_equals_cat_filter_agg_for_every_workspace() {
    for w in ["my-api", "-home-user-webapp", "pipeline", "", "-C-Users-dev-tools", "nope"] {
        let flag = format!("--workspace={w}");
        let direct = pipe(pipe(find_demo(&[]), "ci-filter", &[&flag]), "ci-agg", &["--by", "event"]);
        let via_cat =
            pipe(pipe(pipe(find_demo(&[]), "ci-cat", &[]), "ci-filter", &[&flag]), "ci-agg", &["--by", "event"]);
        assert_eq!(direct, via_cat, "workspace {w:?}");
    }
    // The my-api answer, counted by hand from fixtures/README.md (sessions 1 and 2; 6 is empty).
    let direct = pipe(pipe(find_demo(&[]), "ci-filter", &["--workspace", "my-api"]), "ci-agg", &["--by", "event"]);
    let total: u64 =
        direct.lines().map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["count"].as_u64().unwrap()).sum();
    assert_eq!(total, 40);
}

#[test]
fn grep_list_pipes_into_agg() {
    // Sessions that mention 日本語 (stored as \u escapes in session 1), then their events by type.
    let sessions = pipe(find_demo(&[]), "ci-grep", &["-l", "日本語"]);
    let ids: Vec<String> = sessions
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["session"].as_str().unwrap().to_owned())
        .collect();
    assert!(ids.contains(&"a7c3e9d1-4b2f-4e8a-9d61-0c5b7e2f3a10".to_owned()), "{ids:?}");
    let by_event = pipe(sessions, "ci-agg", &["--by", "session"]);
    assert_eq!(by_event.lines().count(), ids.len());
}

/// The README's main job, on the clean demo: the table, and not one warning.
#[test]
fn the_readme_main_job_runs_without_a_warning() {
    let records = ci("ci-find").args(["--root", "fixtures/demo-clean"]).run();
    assert_eq!((records.code, records.stderr.as_str(), records.lines().len()), (0, "", 6), "{records:?}");
    let run = ci("ci-agg").args(["--by", "event", "--format", "table"]).stdin(records.stdout).run();
    assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{run:?}");
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 19, "{}", run.stdout);
    assert_eq!(lines[0], "event                     count");
    assert_eq!(lines[1], "tool:pre                      9");
    assert_eq!(lines[18], "tool:error                    1");
}

/// Every writer's fixtures (a root each; hook logs: the folder's repository).
const WRITER_ROOTS: [&str; 8] = [
    "fixtures/demo-clean",
    "fixtures/claude-transcripts",
    "fixtures/codex",
    "fixtures/sessiondata",
    "fixtures/sessiondata-transcript",
    "fixtures/hook-logs/ranaroussi__quantstats",
    "fixtures/claude-progress",
    "fixtures/codex-fork",
];

/// The session-level and event-level questions of an exact pipeline.
const QUESTIONS: [&[&str]; 4] = [&["--tokens", "--by", "day"], &["--sessions"], &["--by", "event"], &["--tools"]];

/// `ci-find --root R | ci-filter --event '*' | ci-agg X` answers what
/// `ci-agg X R` answers, byte for byte and with its exit code, on every
/// writer's fixtures: a piped hooks session's record is found by its
/// provenance path (project, status, tokens unknown), and its transcript copy
/// is read as the direct read reads it (issue 38, D6).
#[test]
fn event_stream_answers_what_the_direct_read_answers_on_every_writer() {
    for root in WRITER_ROOTS {
        let found = ci("ci-find").args(["--root", root]).run();
        assert_eq!(found.code, 0, "{root}: {found:?}");
        let events = ci("ci-filter").args(["--event", "*"]).stdin(found.stdout).run();
        assert!(!events.stdout.is_empty(), "{root}: {events:?}");
        for q in QUESTIONS {
            let direct = ci("ci-agg").args(q).arg(root).run();
            let piped = ci("ci-agg").args(q).stdin(events.stdout.clone()).run();
            // Every root has sessions and events (a fixture without tool
            // calls or usage answers nothing to --tools or --tokens).
            if matches!(q[0], "--sessions" | "--by") {
                assert!(!direct.stdout.is_empty(), "{root} {q:?}: {direct:?}");
            }
            assert_eq!((piped.code, &piped.stdout), (direct.code, &direct.stdout), "{root} {q:?}");
        }
    }
}

/// `ci-cat R | ci-agg --tokens` reads a hooks session's transcript copy as
/// `ci-agg --tokens R` does (`--sessions` too); so does a stream windowed by
/// ci-agg itself, whose hook events (no timestamp) are out of the window
/// while the copy's responses are judged by their own time.
#[test]
fn piped_hooks_session_reads_its_transcript_copy() {
    let root = "fixtures/sessiondata-transcript";
    let cat = ci("ci-cat").arg(root).run();
    for q in [&["--tokens", "--by", "day"][..], &["--sessions"]] {
        for window in [&[][..], &["--since", "2025-09-03T00:47:30Z"]] {
            let direct = ci("ci-agg").args(q).args(window).arg(root).run();
            let piped = ci("ci-agg").args(q).args(window).stdin(cat.stdout.clone()).run();
            assert_eq!(direct.code, 0, "{q:?} {window:?}: {direct:?}");
            assert_eq!((piped.code, &piped.stdout), (0, &direct.stdout), "{q:?} {window:?}");
        }
    }
    // The window leaves 5 of the copy's 7 responses; the session is listed
    // (as `ci-find --since` lists it) though none of its hook events is timed.
    let windowed = ci("ci-agg").args(["--tokens", "--by", "day", "--since", "2025-09-03T00:47:30Z", root]).run();
    assert_eq!(windowed.json()[0]["responses"], 5);
    let sessions = ci("ci-agg").args(["--sessions", "--since", "2025-09-03T00:47:30Z", root]).run();
    assert_eq!(sessions.json()[0]["started"], "2025-09-03T00:47:34.068Z");
}

/// A stream filtered to events that end no prompt holds none of the
/// session's responses: the transcript copy is not read (no answer, exit 1).
#[test]
fn filtered_hooks_stream_without_prompt_complete_reads_no_copy() {
    let cat = ci("ci-cat").arg("fixtures/sessiondata-transcript").run();
    let started = ci("ci-filter").args(["--event", "session:start"]).stdin(cat.stdout).run();
    assert_eq!(started.code, 0, "{started:?}");
    let tokens = ci("ci-agg").args(["--tokens", "--by", "day"]).stdin(started.stdout.clone()).run();
    assert_eq!((tokens.code, tokens.stdout.as_str()), (1, ""));
    let sessions = ci("ci-agg").arg("--sessions").stdin(started.stdout).run();
    assert_eq!(sessions.json()[0]["tokens"], serde_json::Value::Null);
}

/// A session record's window (`ci-find --since`) holds for the transcript
/// copy's responses as for the session's own events: the answer of
/// `ci-agg --since` over the root.
#[test]
fn session_record_window_holds_for_the_transcript_copy() {
    let root = "fixtures/sessiondata-transcript";
    let since = "2025-09-03T00:47:30Z";
    let found = ci("ci-find").args(["--root", root, "--since", since]).run();
    let piped = ci("ci-agg").args(["--tokens", "--by", "day"]).stdin(found.stdout).run();
    let direct = ci("ci-agg").args(["--tokens", "--by", "day", "--since", since, root]).run();
    assert_eq!((piped.code, &piped.stdout), (0, &direct.stdout));
}
