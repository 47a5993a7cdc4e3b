//! Bounded outputs for agents: ci-find --limit and --fields, ci-grep
//! --max-total, the capped arrays of ci-agg --sessions.

use crate::util::*;

const METADATA_WARNINGS: &str = "\
ci-find: warning: fixtures/demo/-home-user-webapp/sessions/8c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f/context-intelligence/metadata.json: missing
ci-find: warning: fixtures/demo/-home-user-webapp/sessions/9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d/context-intelligence/metadata.json: invalid JSON: EOF while parsing a string at line 1 column 24
";

#[test]
fn find_limit_prints_the_first_sessions_of_the_order_and_says_so() {
    let run = ci("ci-find").args(["--root", DEMO, "--limit", "2", "--fields", "status,session,workspace"]).run();
    assert_eq!(run.code, 0);
    assert_eq!(
        run.stdout,
        "{\"session\":\"abcdef12-0000-4000-8000-000000000002\",\"workspace\":\"pipeline\",\"status\":\"completed\"}\n\
         {\"session\":\"abcdef12-0000-4000-8000-000000000001\",\"workspace\":\"pipeline\",\"status\":\"completed\"}\n"
    );
    assert_eq!(run.stderr, format!("{METADATA_WARNINGS}ci-find: 2 of 10 sessions shown (--limit 2)\n"));
    // After --sort and -r; a limit above the count says nothing.
    let run = ci("ci-find").args(["--root", DEMO, "--sort", "id", "-r", "--limit", "1", "--paths"]).run();
    assert_eq!(
        run.stdout,
        "fixtures/demo/-home-user-my-api/sessions/e1f2a3b4-c5d6-4e7f-8a9b-0c1d2e3f4a5b/context-intelligence/events.jsonl\n"
    );
    let run = ci("ci-find").args(["--root", DEMO, "--limit", "10", "--paths"]).run();
    assert_eq!((run.code, run.lines().len(), run.stderr.as_str()), (0, 10, METADATA_WARNINGS));
    // --limit 0 prints nothing: exit 1, as for no match.
    let run = ci("ci-find").args(["--root", DEMO, "--limit", "0"]).run();
    assert_eq!((run.code, run.stdout.as_str()), (1, ""));
}

#[test]
fn find_fields_keep_the_records_pipeable_when_they_keep_session_format_and_path() {
    let listing =
        ci("ci-find").args(["--root", DEMO, "--session", "a7c3e9d1", "--fields", "path,format,session"]).run();
    assert_eq!(
        listing.stdout,
        "{\"session\":\"a7c3e9d1-4b2f-4e8a-9d61-0c5b7e2f3a10\",\"format\":\"amplifier\",\
         \"path\":\"fixtures/demo/-home-user-my-api/sessions/a7c3e9d1-4b2f-4e8a-9d61-0c5b7e2f3a10/context-intelligence/events.jsonl\"}\n"
    );
    let whole = ci("ci-agg").args(["--by", "event"]).stdin(find_demo(&["--session", "a7c3e9d1"])).run();
    let picked = ci("ci-agg").args(["--by", "event"]).stdin(listing.stdout).run();
    assert_eq!((picked.code, picked.stdout), (0, whole.stdout));
}

#[test]
fn find_fields_refuse_an_unknown_key_before_reading_anything() {
    let run = ci("ci-find").args(["--root", DEMO, "--fields", "session,sesion"]).run();
    assert_eq!(run.code, 2);
    assert_eq!(run.stderr, "ci-find: --fields: no key \"sesion\" in session records; did you mean \"session\"?\n");
    let run = ci("ci-find").args(["--root", DEMO, "--fields", "session", "--format", "table"]).run();
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.starts_with("error: the argument '--fields <KEY[,KEY…]>' cannot be used with '--format <FORMAT>'"),
        "{}",
        run.stderr
    );
}

const GREP_STDERR: &str = "\
ci-grep: warning: fixtures/demo/-home-user-webapp/sessions/8c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f/context-intelligence/metadata.json: missing
ci-grep: warning: fixtures/demo/-home-user-webapp/sessions/9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d/context-intelligence/metadata.json: invalid JSON: EOF while parsing a string at line 1 column 24
";

#[test]
fn grep_max_total_prints_the_first_matches_of_the_whole_run_and_says_so() {
    let every = ci("ci-grep").args(["-F", "e", "--field", "data", DEMO, "-j", "1"]).run();
    assert_eq!(every.code, 0);
    let all = every.lines();
    assert!(all.len() > 20, "the demo root holds more matches than the bound: {}", all.len());
    // Several threads print what one prints: the first N in output order.
    for threads in ["1", "4"] {
        let run = ci("ci-grep").args(["-F", "e", "--field", "data", DEMO, "--max-total", "7", "-j", threads]).run();
        assert_eq!(run.code, 0, "{run:?}");
        assert_eq!(run.lines(), all[..7], "-j {threads}");
        assert!(run.stderr.contains("\nci-grep: stopped after 7 matches (--max-total 7)\n"), "{}", run.stderr);
    }
    // A bound the run does not reach says nothing.
    let two = ci("ci-grep").args(["error", DEMO, "--max-total", "2"]).run();
    let unbounded = ci("ci-grep").args(["error", DEMO]).run();
    assert_eq!((two.code, two.lines().len()), (0, 2));
    assert_eq!((&two.stdout, &two.stderr), (&unbounded.stdout, &unbounded.stderr));
    assert!(!two.stderr.contains("--max-total"));
}

#[test]
fn grep_max_total_counts_sessions_with_c_and_l() {
    let run = ci("ci-grep").args(["-l", "-F", "e", DEMO, "--max-total", "1", "--format", "text"]).run();
    assert_eq!(run.code, 0);
    assert_eq!(
        run.stdout,
        "fixtures/demo/-srv-build-data pipeline/sessions/abcdef12-0000-4000-8000-000000000002/context-intelligence/events.jsonl\n"
    );
    assert_eq!(run.stderr, format!("{GREP_STDERR}ci-grep: stopped after 1 session (--max-total 1)\n"));
    let run = ci("ci-grep").args(["-c", "-F", "e", DEMO, "--max-total", "2", "--format", "text"]).run();
    assert_eq!(run.stdout, "abcdef12-0000-4000-8000-000000000002:13\nabcdef12-0000-4000-8000-000000000001:9\n");
    // 0 prints nothing: exit 1, as -m 0.
    let run = ci("ci-grep").args(["-F", "e", DEMO, "--max-total", "0"]).run();
    assert_eq!((run.code, run.stdout.as_str(), run.stderr.as_str()), (1, "", ""));
}

#[test]
fn grep_max_total_bounds_matches_of_piped_event_records() {
    let events = ci("ci-cat").args([DEMO]).run().stdout;
    let every = ci("ci-grep").args(["-F", "tool"]).stdin(events.clone()).run();
    let run = ci("ci-grep").args(["-F", "tool", "--max-total", "3"]).stdin(events).run();
    assert_eq!(run.code, 0);
    assert_eq!(run.lines(), every.lines()[..3]);
    assert!(run.stderr.ends_with("ci-grep: stopped after 3 matches (--max-total 3)\n"), "{}", run.stderr);
}

/// A session that read 23 files (r00.rs … r22.rs) and edited 2.
fn busy_session(tree: &crate::kit::Tree) {
    let tool = |n: usize, name: &str, file: &str| {
        format!(
            r#"{{"event":"tool:pre","timestamp":"2026-03-02T09:00:{:02}Z","data":{{"session_id":"busy","tool_call_id":"c{n}","tool_name":"{name}","tool_input":{{"file_path":"{file}"}}}}}}"#,
            n % 60
        )
    };
    let mut lines: Vec<String> = (0..23).map(|n| tool(n, "Read", &format!("r{n:02}.rs"))).collect();
    lines.extend((23..25).map(|n| tool(n, "Edit", &format!("e{n}.rs"))));
    tree.amplifier("-p", "busy").metadata(r#"{"session_id":"busy","workspace":"w"}"#).lines(lines).write();
}

#[test]
fn sessions_lists_are_capped_with_a_count_of_the_rest_unless_full() {
    let tree = crate::kit::Tree::new();
    busy_session(&tree);
    let root = tree.path().to_str().unwrap();
    let run = ci("ci-agg").args(["--sessions", root]).run();
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    let rec = &run.json()[0];
    let first: Vec<String> = (0..20).map(|n| format!("r{n:02}.rs")).collect();
    assert_eq!(rec["files_read"], serde_json::json!(first));
    assert_eq!(rec["files_read_more"], 3);
    assert_eq!(rec["files_edited"], serde_json::json!(["e23.rs", "e24.rs"]));
    assert!(rec.get("files_edited_more").is_none(), "a list within the cap has no count: {rec}");
    // The count follows its list.
    assert!(run.stdout.contains(r#""r19.rs"],"files_read_more":3,"files_edited":["#), "{}", run.stdout);
    let full = ci("ci-agg").args(["--sessions", "--full", root]).run();
    let rec = &full.json()[0];
    assert_eq!(rec["files_read"].as_array().map(Vec::len), Some(23));
    assert!(rec.get("files_read_more").is_none());
    // A merge of partial states caps the same lists.
    let partial = ci("ci-agg").args(["--sessions", "--partial", root]).run();
    let merged = ci("ci-agg").args(["--merge"]).stdin(partial.stdout.clone()).run();
    assert_eq!(merged.stdout, run.stdout);
    let merged = ci("ci-agg").args(["--merge", "--full"]).stdin(partial.stdout).run();
    assert_eq!(merged.stdout, full.stdout);
}

#[test]
fn columns_pick_ndjson_records_keyed_as_the_csv_header() {
    let run = ci("ci-agg").args(["--tokens", "--by", "day", "--columns", "day,model,cost_usd,input_tokens", "--total"]);
    let run = run.arg("fixtures/demo-clean").run();
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    assert_eq!(
        run.stdout,
        "\
{\"day\":\"2026-03-01\",\"model\":\"gpt-5-mini\",\"cost_usd\":0.0007,\"input_tokens\":2100}
{\"day\":\"2026-03-02\",\"model\":\"claude-sonnet-4-5\",\"cost_usd\":0.0523,\"input_tokens\":59150}
{\"day\":\"2026-03-02\",\"model\":\"claude-haiku-4-5\",\"cost_usd\":0.005994,\"input_tokens\":10422}
{\"day\":\"2026-03-03\",\"model\":\"gpt-5.1\",\"cost_usd\":0.010672,\"input_tokens\":9120}
{\"day\":\"total\",\"model\":null,\"cost_usd\":0.069666,\"input_tokens\":80792}
"
    );
    // The CSV of the same columns holds the same values.
    let csv = ci("ci-agg").args(["--tokens", "--by", "day", "--columns", "day,cost_usd", "--format", "csv", "--total"]);
    let csv = csv.arg("fixtures/demo-clean").run();
    assert_eq!(
        csv.stdout,
        "day,cost_usd\n2026-03-01,0.0007\n2026-03-02,0.0523\n2026-03-02,0.005994\n2026-03-03,0.010672\ntotal,0.069666\n"
    );
    // An object is every column under it, sum(NAME) one column.
    let run = ci("ci-agg")
        .args(["--sessions", "--top", "1", "--columns", "session,sum(events),tokens", "fixtures/demo-clean"])
        .run();
    assert_eq!(
        run.stdout,
        "{\"session\":\"abcdef12-0000-4000-8000-000000000002\",\"sum(events)\":4,\"tokens.input\":0,\"tokens.output\":0,\"tokens.cache_read\":0,\"tokens.cache_write\":0}\n"
    );
    let run = ci("ci-find").args(["--root", "fixtures/demo-clean", "--limit", "1", "--columns", "session,bytes"]).run();
    assert_eq!(run.stdout, "{\"session\":\"abcdef12-0000-4000-8000-000000000002\",\"bytes\":1214}\n");
}
