//! ci-filter on the demo fixtures. Expected selections were derived by hand
//! from fixtures/README.md and checked with an independent Python reading of
//! the fixture files (json.loads per line), never copied from the tool.

use crate::util::*;

const S1: &str = "fixtures/demo/-home-user-my-api/sessions/a7c3e9d1-4b2f-4e8a-9d61-0c5b7e2f3a10";
const S3: &str = "fixtures/demo/-home-user-webapp/sessions/b2d4f6a8-1c3e-4a5b-8c7d-9e0f1a2b3c4d";
const S4: &str = "fixtures/demo/-C-Users-dev-tools/sessions/c0ffee00-d1a2-4b3c-9d4e-5f6a7b8c9d0e";
const S9A: &str = "fixtures/demo/-srv-build-data pipeline/sessions/abcdef12-0000-4000-8000-000000000001";

/// Stderr of any run over the whole demo root that reads every capture: the
/// two metadata warnings of discovery and session 5's bad lines.
const DEMO_STDERR: &str = "\
ci-filter: warning: fixtures/demo/-home-user-webapp/sessions/8c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f/context-intelligence/metadata.json: missing
ci-filter: warning: fixtures/demo/-home-user-webapp/sessions/9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d/context-intelligence/metadata.json: invalid JSON: EOF while parsing a string at line 1 column 24
fixtures/demo/-home-bob-myapp/sessions/d4a7b1e3-9c2f-4d85-a0b6-3e1f7c9d2b84/context-intelligence/events.jsonl:4: invalid JSON at byte 59: expected ',' or '}'
fixtures/demo/-home-bob-myapp/sessions/d4a7b1e3-9c2f-4d85-a0b6-3e1f7c9d2b84/context-intelligence/events.jsonl:6: blank line
fixtures/demo/-home-bob-myapp/sessions/d4a7b1e3-9c2f-4d85-a0b6-3e1f7c9d2b84/context-intelligence/events.jsonl:8: not a JSON object
fixtures/demo/-home-bob-myapp/sessions/d4a7b1e3-9c2f-4d85-a0b6-3e1f7c9d2b84/context-intelligence/events.jsonl:10: invalid UTF-8 at byte 257
ci-filter: 4 bad lines skipped, 1 unfinished last line held back (capture still being written?) (--strict makes bad lines an error)
";

/// Runs `ci-filter ARGS` with the given inputs appended.
fn filter(args: &[&str], inputs: &[&str]) -> Run {
    ci("ci-filter").args(args).args(inputs).run()
}

/// `session-prefix:line` of every printed event record, in output order.
fn picks(run: &Run) -> Vec<String> {
    run.json()
        .iter()
        .map(|v| {
            let ci = &v["ci"];
            let s = ci["session"].as_str().expect("ci.session");
            format!("{}:{}", &s[..8], ci["line"])
        })
        .collect()
}

fn strs(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// Every printed event record is its source line (read again from ci.path at
/// ci.line) plus the provenance key, and the filled-in workspace for lines
/// that have none; lines under the byte budget are printed byte for byte.
fn assert_faithful(run: &Run) {
    for line in run.lines() {
        let mut out: serde_json::Value = serde_json::from_str(line).unwrap();
        let path = out["ci"]["path"].as_str().unwrap().to_owned();
        let n = out["ci"]["line"].as_u64().unwrap() as usize;
        let bytes = std::fs::read(root().join(&path)).unwrap();
        let src = bytes.split(|&b| b == b'\n').nth(n - 1).unwrap();
        let src_v: serde_json::Value = serde_json::from_slice(src).unwrap();
        let o = out.as_object_mut().unwrap();
        o.remove("ci");
        if src_v.get("workspace").is_none() {
            o.remove("workspace");
        }
        if src.len() < 3000 {
            assert_eq!(out, src_v, "{path}:{n}");
            let body = std::str::from_utf8(src).unwrap().trim_end();
            let prefix = body.strip_suffix('}').unwrap().trim_end();
            assert!(line.starts_with(prefix), "{path}:{n} not printed byte for byte");
        }
    }
}

#[test]
fn event_exact_ignores_lookalike_payload_text() {
    let run = filter(&["--event", "tool:pre"], &[DEMO]);
    assert_eq!(run.code, 0);
    // Session 1 line 10 (a tool:post whose output contains the text
    // {"event":"tool:pre"}) is not selected.
    assert_eq!(
        picks(&run),
        strs(&[
            "d4a7b1e3:7",
            "b2d4f6a8:7",
            "b2d4f6a8:9",
            "00000000:6",
            "a7c3e9d1:8",
            "a7c3e9d1:9",
            "a7c3e9d1:15",
            "a7c3e9d1:17",
            "a7c3e9d1:19",
            "c0ffee00:3"
        ])
    );
    assert_eq!(run.stderr, DEMO_STDERR);
    assert_faithful(&run);
}

#[test]
fn event_globs_and_repeats() {
    let run = filter(&["--event", "tool:*"], &[S1]);
    let want = ["8", "9", "10", "11", "15", "16", "17", "18", "19", "22"];
    assert_eq!(picks(&run), want.iter().map(|n| format!("a7c3e9d1:{n}")).collect::<Vec<_>>());
    let run = filter(&["--event", "delegate:*"], &[S1]);
    assert_eq!(picks(&run), strs(&["a7c3e9d1:20", "a7c3e9d1:21"]));
    let run = filter(&["--event", "*:error", "--event", "session:start"], &[S1]);
    assert_eq!(picks(&run), strs(&["a7c3e9d1:1", "a7c3e9d1:6", "a7c3e9d1:18"]));
    let run = filter(&["--event", "t??l:p*"], &[S1]);
    assert_eq!(picks(&run).len(), 9);
    assert_eq!(run.stderr, "");
}

#[test]
fn not_event() {
    let run = filter(&["--not-event", "llm:*", "--not-event", "provider:*", "--not-event", "tool:*"], &[S1]);
    let want = ["1", "2", "3", "20", "21", "23", "27", "28", "29"];
    assert_eq!(picks(&run), want.iter().map(|n| format!("a7c3e9d1:{n}")).collect::<Vec<_>>());
    // --event and --not-event together: AND.
    let run = filter(&["--event", "tool:*", "--not-event", "tool:post"], &[S1]);
    assert_eq!(picks(&run).len(), 6);
}

#[test]
fn phantom_event_matches_nothing_and_says_why() {
    let run = filter(&["--event", "orchestrator:error"], &[S1, S9A]);
    assert_eq!((run.code, run.stdout.as_str()), (1, ""));
    assert_eq!(
        run.stderr,
        "ci-filter: warning: --event orchestrator:error: no writer emits this event, it never matches; errors surface \
         as provider:error, tool:error and orchestrator:complete with status error (--errors)\n"
    );
}

#[test]
fn errors() {
    let run = filter(&["--errors"], &[DEMO]);
    assert_eq!(run.code, 0);
    assert_eq!(picks(&run), strs(&["abcdef12:3", "a7c3e9d1:6", "a7c3e9d1:16", "a7c3e9d1:18"]));
    let v = run.json();
    let names: Vec<&str> = v.iter().map(|r| r["event"].as_str().unwrap()).collect();
    assert_eq!(names, ["orchestrator:complete", "provider:error", "tool:post", "tool:error"]);
    assert_faithful(&run);
}

#[test]
fn invert() {
    let run = filter(&["--errors", "--invert"], &[S9A]);
    assert_eq!(picks(&run), strs(&["abcdef12:1", "abcdef12:2", "abcdef12:4"]));
    let run = filter(&["-v", "--event", "*"], &[S9A]);
    assert_eq!((run.code, run.stdout.as_str()), (1, ""));
}

#[test]
fn tool() {
    let run = filter(&["--tool", "bash"], &[S1, S4, S3]);
    assert_eq!(
        picks(&run),
        strs(&[
            "a7c3e9d1:8",
            "a7c3e9d1:10",
            "a7c3e9d1:15",
            "a7c3e9d1:16",
            "c0ffee00:3",
            "c0ffee00:4",
            "b2d4f6a8:9",
            "b2d4f6a8:10"
        ])
    );
    let run = filter(&["--tool", "read_*", "--event", "tool:error"], &[S1]);
    assert_eq!(picks(&run), strs(&["a7c3e9d1:18"]));
}

#[test]
fn workspace_fills_older_writers_and_matches_project_folders() {
    // Session 3 (generation B, no workspace key, no metadata workspace) takes
    // its project slug; 8a and 8b write it. 10 + 2 + 3 = 15 events.
    let run = filter(&["--workspace", "-home-user-webapp"], &[DEMO]);
    let p = picks(&run);
    assert_eq!(p.len(), 15);
    assert_eq!(p.iter().filter(|s| s.starts_with("b2d4f6a8")).count(), 10);
    assert_eq!(&p[10..], strs(&["8c1d2e3f:1", "8c1d2e3f:2", "9a8b7c6d:1", "9a8b7c6d:2", "9a8b7c6d:3"]));
    for r in run.json().iter().take(10) {
        assert_eq!(r["workspace"], "-home-user-webapp");
    }
    assert_faithful(&run);
    // "my-api" is the field of sessions 1 and 2 (29 + 11); the folder
    // -home-user-my-api selects the same events.
    let a = filter(&["--workspace", "my-api"], &[DEMO]);
    let b = filter(&["--workspace", "-home-user-my-api"], &[DEMO]);
    assert_eq!(picks(&a).len(), 40);
    assert_eq!(a.stdout, b.stdout);
    // Session 5 writes workspace "".
    let run = filter(&["--workspace", ""], &[DEMO]);
    assert_eq!(
        picks(&run),
        strs(&["d4a7b1e3:1", "d4a7b1e3:2", "d4a7b1e3:3", "d4a7b1e3:5", "d4a7b1e3:7", "d4a7b1e3:9", "d4a7b1e3:11"])
    );
}

#[test]
fn session_exact_and_prefix() {
    // A prefix starting two ids is ambiguous (tests/session_ids.rs has the message).
    let run = filter(&["--session", "abcdef12"], &[DEMO]);
    assert_eq!((run.code, run.stdout.as_str()), (2, ""));
    // Two values (OR), each starting one id.
    let run = filter(
        &["--session", "abcdef12-0000-4000-8000-000000000001", "--session", "abcdef12-0000-4000-8000-0000000000"],
        &[DEMO],
    );
    assert_eq!(run.code, 2, "the second is still ambiguous");
    let run = filter(&["--session", "abcdef12-0000-4000-8000-000000000001"], &[DEMO]);
    assert_eq!(picks(&run), strs(&["abcdef12:1", "abcdef12:2", "abcdef12:3", "abcdef12:4"]));
    let run = filter(&["--session", "abcdef12-0000-4000-8000-000000000001", "--session", "a7c3e9d1"], &[DEMO]);
    let ids: Vec<String> = run.json().iter().map(|r| r["ci"]["session"].as_str().unwrap()[..8].to_owned()).collect();
    let a7 = filter(&["--session", "a7c3e9d1"], &[DEMO]).json().len();
    assert!(a7 > 0);
    assert_eq!(
        (ids.iter().filter(|s| *s == "abcdef12").count(), ids.iter().filter(|s| *s == "a7c3e9d1").count()),
        (4, a7)
    );
    // Shorter than 8 characters and no id: refused.
    let run = filter(&["--session", "abcdef1"], &[DEMO]);
    assert_eq!((run.code, run.stdout.as_str()), (2, ""));
}

#[test]
fn time_bounds_compare_instants_not_strings() {
    // Line 14 is 09:15:14+00:00 (no fraction): as strings it sorts before
    // "09:15:14Z", as an instant it equals it (--since is inclusive). The
    // --until bound is written with an offset and is exclusive: line 15 is
    // exactly 09:15:14.006Z.
    let run = filter(&["--since", "2026-03-02T09:15:14Z", "--until", "2026-03-02T10:15:14.006+01:00"], &[S1]);
    assert_eq!(picks(&run), strs(&["a7c3e9d1:14"]));
    // 0, 3, 6 and 9 fractional digits across one bound.
    let run = filter(&["--since", "2026-03-02T09:15:07.4101Z", "--until", "2026-03-02T09:15:09.84Z"], &[S1]);
    assert_eq!(picks(&run), strs(&["a7c3e9d1:9", "a7c3e9d1:10"]));
    let run = filter(&["--since", "2026-03-02T09:16:28.461750218Z"], &[S1]);
    assert_eq!(picks(&run), strs(&["a7c3e9d1:29"]));
    let run = filter(&["--since", "2026-03-02T09:16:28.4617502181Z"], &[S1]);
    assert_eq!(run.code, 2, "10 fractional digits are refused: {run:?}");
    // Session 4: line 5 is 23:30:00+02:00 = 21:30:00Z, before the bound,
    // though its text sorts after it.
    let run = filter(&["--since", "2026-03-01T21:30:30Z"], &[S4]);
    assert_eq!(picks(&run), strs(&["c0ffee00:4", "c0ffee00:6", "c0ffee00:7"]));
    assert_faithful(&run);
}

#[test]
fn time_dates_zones_and_ages() {
    // A date is its first instant in --tz (the tests' TZ is UTC), for
    // --until too (exclusive): --since D --until D+1 is the day D (issue 31,
    // item 7: --until D used to include D).
    let run = filter(&["--since", "2026-03-01", "--until", "2026-03-01"], &[S4, S1]);
    assert_eq!((picks(&run).len(), run.code), (0, 1));
    let run = filter(&["--since", "2026-03-01", "--until", "2026-03-02"], &[S4, S1]);
    assert_eq!(picks(&run).len(), 7);
    // In -10:00 the day 2026-03-01 runs 03-01T10:00Z..03-02T10:00Z: session 4
    // and all of session 1 (09:15-09:16Z on 03-02).
    let run = filter(&["--since", "2026-03-01", "--until", "2026-03-02", "--tz", "-10:00"], &[S4, S1]);
    assert_eq!(picks(&run).len(), 7 + 29);
    // Relative ages count back from CI_NOW (2026-03-10T00:00:00Z): 4d is
    // 03-06T00:00Z: sessions 9a, 9b, 8a, 8b.
    let run = filter(&["--since", "4d"], &[DEMO]);
    assert_eq!(picks(&run).len(), 4 + 4 + 3 + 2);
    // 7d is 03-03T00:00Z (exclusive): sessions 4, 1 and 2.
    let run = filter(&["--until", "7d"], &[DEMO]);
    assert_eq!(picks(&run).len(), 7 + 29 + 11);
    // Period words: CI_NOW is Tuesday 2026-03-10; last week began Monday
    // 03-02 and this week on 03-09: sessions 4 (03-01) and 9a, 9b, 8a, 8b
    // (03-06) are not in last week, 1 and 2 (03-02) are.
    let run = filter(&["--since", "last-week", "--until", "this-week"], &[DEMO]);
    assert_eq!(
        picks(&run).len(),
        29 + 11 + filter(&["--since", "2026-03-03", "--until", "2026-03-09"], &[DEMO]).lines().len()
    );
    let run = filter(&["--since", "tomorrow"], &[S4]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.starts_with("error: invalid value 'tomorrow' for '--since <TIME>': "), "{}", run.stderr);
}

#[test]
fn untimed_records_never_match_a_bound_and_are_counted() {
    let input = concat!(
        r#"{"data":{},"event":"a","timestamp":"","workspace":"w","ci":{"session":"s","path":"p","line":1}}"#,
        "\n",
        r#"{"data":{},"event":"b","workspace":"w","ci":{"session":"s","path":"p","line":2}}"#,
        "\n",
        r#"{"data":{},"event":"c","timestamp":"2026-03-01 noon","workspace":"w","ci":{"session":"s","path":"p","line":3}}"#,
        "\n",
        r#"{"data":{},"event":"d","timestamp":"2026-03-01T12:00:00.5-01:00","workspace":"w","ci":{"session":"s","path":"p","line":4}}"#,
        "\n",
    );
    let run = ci("ci-filter").args(["--since", "2026-03-01T13:00:00.5Z"]).stdin(input).run();
    assert_eq!(run.code, 0);
    assert_eq!(run.lines(), [input.lines().nth(3).unwrap()]);
    assert_eq!(run.stderr, "ci-filter: 3 records without a usable timestamp\n");
    // Without a bound nothing is counted.
    let run = ci("ci-filter").args(["--event", "a"]).stdin(input).run();
    assert_eq!((run.lines().len(), run.stderr.as_str()), (1, ""));
    // --invert prints exactly the others.
    let run = ci("ci-filter").args(["--since", "2026-03-01T13:00:00.5Z", "-v"]).stdin(input).run();
    assert_eq!(run.lines(), input.lines().take(3).collect::<Vec<_>>());
}

#[test]
fn where_predicates() {
    let cases: &[(&[&str], &[&str])] = &[
        (&["data.usage.output_tokens > 1000"], &["a7c3e9d1:26"]),
        (&["data.usage.output_tokens >= 1203", "data.usage.output_tokens <= 1203"], &["a7c3e9d1:26"]),
        (&["data.tool_input.agent == \"foundation:explorer\""], &["a7c3e9d1:19", "a7c3e9d1:22"]),
        (&["data.result.success == false"], &["a7c3e9d1:16"]),
        (&["data.error exists"], &["a7c3e9d1:6", "a7c3e9d1:18"]),
        (&["data.error exists and data.error != null"], &["a7c3e9d1:6", "a7c3e9d1:18"]),
        // \u-escaped text is matched decoded: the prompt stores caf\u00e9.
        (&["data.prompt ~ 'café'"], &["a7c3e9d1:2", "a7c3e9d1:3", "a7c3e9d1:27"]),
        (&["data.prompt ~ '\"quoted\"'", "event == 'prompt:submit'"], &["a7c3e9d1:2"]),
        (&["data.usage.cost_usd == \"0.0311\""], &["a7c3e9d1:26"]),
        (&["data.usage.cost_usd == 0.0311"], &[]),
        (&["data.status == 'error' or data.retryable == true"], &["a7c3e9d1:6"]),
        (&["data.raw.messages[0].content ~ 'END-OF-LONG-CONTENT'"], &["a7c3e9d1:5"]),
        (&["ci.line == 29"], &["a7c3e9d1:29"]),
        (&["workspace == 'my-api' and event == 'session:start'"], &["a7c3e9d1:1"]),
        (&["data.tool_input.agent == \"self\""], &[]),
    ];
    for (wheres, want) in cases {
        let mut args = vec![];
        for w in *wheres {
            args.extend(["--where", w]);
        }
        let run = filter(&args, &[S1]);
        assert_eq!(picks(&run), strs(want), "{wheres:?}");
        assert_eq!(run.code, if want.is_empty() { 1 } else { 0 }, "{wheres:?}");
    }
    let run = filter(&["--where", "data.prompt ~ '(?i)DEPLOY'"], &[DEMO]);
    assert_eq!(picks(&run), strs(&["d4a7b1e3:2", "d4a7b1e3:3"]));
}

#[test]
fn predicates_see_the_full_record_output_is_truncated() {
    let run = filter(&["--where", "data.raw.messages[0].content ~ '<<END-OF-LONG-CONTENT>>$'"], &[S1]);
    assert_eq!(picks(&run), strs(&["a7c3e9d1:5"]));
    // The record went through the printer's byte budget (re-serialised; what
    // exactly is cut is the truncate module's contract, tested there).
    assert!(run.stdout.len() < 6487, "{}", run.stdout.len());
    let run = filter(&["--full", "--where", "data.raw.messages[0].content ~ '<<END-OF-LONG-CONTENT>>$'"], &[S1]);
    assert!(run.stdout.contains("<<END-OF-LONG-CONTENT>>"));
    assert_faithful(&run);
}

#[test]
fn malformed_where_is_rejected_up_front() {
    let run = filter(&["--where", "data.x 5"], &["no-such-file"]);
    assert_eq!(run.code, 2);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        "ci-filter: --where: expected an operator after 'data.x', found '5' at column 8\n  data.x 5\n         ^\n"
    );
    let run = filter(&["--where", "data.n > 1", "--where", "data.s ~ 'a(b'"], &[S1]);
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        "ci-filter: --where: invalid regex 'a(b': unclosed group at column 10\n  data.s ~ 'a(b'\n           ^\n"
    );
}

#[test]
fn spaced_lines_and_piped_events() {
    // Session 4 is hand-written: spaced JSON, key order event-first, raw UTF-8.
    let run = filter(&["--event", "tool:post"], &[S4]);
    assert_eq!(picks(&run), strs(&["c0ffee00:4"]));
    assert_faithful(&run);
    // The same through ci-cat: provenance is kept, not added twice.
    let cat = ci("ci-cat").arg(S1).run();
    let run = ci("ci-filter").args(["--event", "tool:pre"]).stdin(cat.stdout.clone()).run();
    assert_eq!(picks(&run), strs(&["a7c3e9d1:8", "a7c3e9d1:9", "a7c3e9d1:15", "a7c3e9d1:17", "a7c3e9d1:19"]));
    let want: Vec<&str> = cat.lines().into_iter().filter(|l| l.contains(r#""event":"tool:pre""#)).collect();
    assert_eq!(run.lines(), want);
}

#[test]
fn session_records_stay_session_records_with_session_level_predicates() {
    let found = find_demo(&[]);
    let lines: Vec<&str> = found.lines().collect();
    let by_id = |id: &str| lines.iter().find(|l| l.contains(&format!("\"session\":\"{id}"))).unwrap().to_string();
    let run = ci("ci-filter").args(["--workspace", "my-api"]).stdin(found.clone()).run();
    assert_eq!(run.code, 0);
    assert_eq!(
        run.lines(),
        [by_id("e1f2a3b4"), by_id("0000000000000000"), by_id("a7c3e9d1")]
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>()
    );
    let run = ci("ci-filter").args(["--status", "running"]).stdin(found.clone()).run();
    let ids: Vec<String> =
        without_mtime(&run.stdout).iter().map(|r| r["session"].as_str().unwrap()[..8].to_owned()).collect();
    assert_eq!(ids, strs(&["e1f2a3b4", "d4a7b1e3", "b2d4f6a8"]));
    let run = ci("ci-filter").args(["--agent", "foundation:explorer"]).stdin(found.clone()).run();
    assert_eq!(run.lines(), [by_id("0000000000000000").as_str()]);
    let run = ci("ci-filter").args(["--session", "a7c3e9d1", "--invert"]).stdin(found.clone()).run();
    assert_eq!(run.lines().len(), found.lines().count() - 1);
    assert_eq!(run.stderr, "");
}

#[test]
fn session_time_overlap_and_untimed_sessions() {
    // mtime depends on the checkout: blank it so 8a/8b (no metadata) have no time.
    let found: String = without_mtime(&find_demo(&[])).iter().map(|v| format!("{v}\n")).collect();
    // 9a runs 02:00:00-02:03:10.251 on 03-06, 9b 02:00:01.100-02:02:58.901.
    let run = ci("ci-filter")
        .args(["--since", "2026-03-06T02:03:00Z", "--until", "2026-03-06T03:00:00Z"])
        .stdin(found.clone())
        .run();
    let ids: Vec<String> = run.json().iter().map(|r| r["session"].as_str().unwrap().to_owned()).collect();
    assert_eq!(ids, ["abcdef12-0000-4000-8000-000000000001"]);
    assert_eq!(run.stderr, "ci-filter: 2 records without a usable timestamp\n");
    let run =
        ci("ci-filter").args(["--since", "2026-03-06T02:02:00Z", "--until", "2026-03-06T02:02:30Z"]).stdin(found).run();
    assert_eq!(run.json().len(), 2);
}

#[test]
fn event_level_predicates_expand_session_records() {
    let found = find_demo(&["--workspace", "pipeline"]);
    let run = ci("ci-filter").args(["--event", "execution:end"]).stdin(found.clone()).run();
    let ids: Vec<String> =
        run.json().iter().map(|r| format!("{}:{}", r["ci"]["session"].as_str().unwrap(), r["ci"]["line"])).collect();
    assert_eq!(ids, ["abcdef12-0000-4000-8000-000000000002:4", "abcdef12-0000-4000-8000-000000000001:4"]);
    // --expand with only session-level predicates prints events too.
    let run = ci("ci-filter").args(["--expand", "--agent", "foundation:bug-hunter"]).stdin(found).run();
    assert_eq!(picks(&run), strs(&["abcdef12:1", "abcdef12:2", "abcdef12:3", "abcdef12:4"]));
    assert_faithful(&run);
}

#[test]
fn filtering_session_records_then_expanding_equals_expanding_then_filtering() {
    let found = find_demo(&[]);
    let cat_all = ci("ci-cat").stdin(found.clone()).run().stdout;
    for w in ["my-api", "-home-user-my-api", "-home-user-webapp", "pipeline", "-C-Users-dev-tools", "", "nope"] {
        let sessions = ci("ci-filter").args(["--workspace", w]).stdin(found.clone()).run();
        let a = ci("ci-cat").stdin(sessions.stdout).run();
        let b = ci("ci-filter").args(["--workspace", w]).stdin(cat_all.clone()).run();
        assert_eq!(a.stdout, b.stdout, "--workspace {w:?}");
        let c = ci("ci-filter").args(["--workspace", w, "--expand"]).stdin(found.clone()).run();
        assert_eq!(a.stdout, c.stdout, "--workspace {w:?} --expand");
    }
}

#[test]
fn status_and_agent_need_session_records() {
    let cat = ci("ci-cat").arg(S9A).run();
    let run = ci("ci-filter").args(["--status", "completed"]).stdin(cat.stdout).run();
    assert_eq!((run.code, run.stdout.as_str()), (1, ""));
    assert_eq!(
        run.stderr,
        "ci-filter: warning: --status/--agent: 4 event records from a stream had no session metadata and did not \
         match (pipe ci-find's session records instead)\n"
    );
    // From a path, the capture's metadata is known.
    let run = filter(&["--status", "completed", "--event", "orchestrator:complete"], &[S9A]);
    assert_eq!(picks(&run), strs(&["abcdef12:3"]));
}

#[test]
fn exit_codes_and_bad_flags() {
    assert_eq!(filter(&["--event", "session:start"], &[S4]).code, 0);
    assert_eq!(filter(&["--event", "nothing"], &[S4]).code, 1);
    let run = filter(&["--event", ""], &[S4]);
    assert_eq!(
        (run.code, run.stderr.as_str()),
        (2, "ci-filter: --event \"\": an empty name pattern matches nothing\n")
    );
    let run = filter(&["--tz", "Mars/Olympus"], &[S4]);
    assert_eq!(run.code, 2);
    let run = filter(&["--event", "session:start", "--strict"], &[DEMO]);
    assert_eq!(run.code, 2);
}

#[test]
fn help_man_and_completions() {
    let help = ci("ci-filter").arg("--help").run();
    assert_eq!(help.code, 0);
    for needle in
        ["EXAMPLES:", "WHERE EXPRESSIONS:", "SESSION RECORDS:", "--since is inclusive", "LINE INDEX:", "EXIT STATUS:"]
    {
        assert!(help.stdout.contains(needle), "{needle}");
    }
    let man = ci("ci-filter").args(["--generate", "man"]).run();
    let committed = std::fs::read_to_string(root().join("man/ci-filter.1")).unwrap();
    assert_eq!(man.stdout, committed, "man/ci-filter.1 is stale: regenerate it");
    for kind in ["complete-bash", "complete-zsh", "complete-fish"] {
        let run = ci("ci-filter").args(["--generate", kind]).run();
        assert!(run.stdout.contains("not-event"), "{kind}");
    }
}

#[test]
fn lines_damaged_inside_data_are_reported_when_selected() {
    // Line 2 has an invalid escape inside data: structurally sound, so the
    // skim lets it through and it is validated only if a predicate selects it.
    let input = concat!(
        r#"{"data":{"a":1},"event":"x","timestamp":"","workspace":"w","ci":{"session":"s","path":"p","line":1}}"#,
        "\n",
        r#"{"data":{"a":"\q"},"event":"y","timestamp":"","workspace":"w","ci":{"session":"s","path":"p","line":2}}"#,
        "\n",
    );
    let run = ci("ci-filter").args(["--event", "x"]).stdin(input).run();
    assert_eq!((run.code, run.lines().len(), run.stderr.as_str()), (0, 1, ""));
    let run = ci("ci-filter").args(["--event", "y"]).stdin(input).run();
    assert_eq!((run.code, run.stdout.as_str()), (1, ""));
    assert_eq!(
        run.stderr,
        "-:2: invalid JSON at byte 14: invalid escape\nci-filter: 1 bad line skipped (--strict makes bad lines an error)\n"
    );
    // --strict validates every line.
    let run = ci("ci-filter").args(["--event", "x", "--strict"]).stdin(input).run();
    assert_eq!((run.code, run.lines().len()), (2, 1));
    assert_eq!(run.stderr, "-:2: invalid JSON at byte 14: invalid escape\nci-filter: 1 bad line skipped\n");
}

#[test]
fn an_event_pattern_that_matches_nothing_is_named_with_the_nearest_event() {
    let demo = crate::util::DEMO;
    let run = ci("ci-filter").args(["--event", "tool:pr", "--event", "prompt:submit", demo]).run();
    assert_eq!(run.code, 0, "{run:?}");
    let warnings: Vec<&str> = run.stderr.lines().filter(|l| l.contains("--event")).collect();
    assert_eq!(warnings, ["ci-filter: warning: --event tool:pr: no event read matched it; did you mean \"tool:pre\"?"]);
    // A glob gets no guess; a pattern that matched is never warned about.
    let run = ci("ci-filter").args(["--event", "nope:*", demo]).run();
    assert_eq!(run.code, 1, "{run:?}");
    let warnings: Vec<&str> = run.stderr.lines().filter(|l| l.contains("--event")).collect();
    assert_eq!(warnings, ["ci-filter: warning: --event nope:*: no event read matched it"]);
}
