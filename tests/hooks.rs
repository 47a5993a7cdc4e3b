//! Claude Code hook captures (`fixtures/sessiondata`, see fixtures/README.md):
//! discovery and filters, normalised events, `--sessions` analytics, search,
//! mixed roots and path safety. Expected values are counted by hand from the
//! fixture files.

use serde_json::{json, Value};

use crate::util::{ci, without_mtime, Run, DEMO};

const HOOKS: &str = "fixtures/sessiondata";
const S1: &str = "11111111-aaaa-4000-8000-000000000001";
const S2: &str = "22222222-bbbb-4000-8000-000000000002";

fn dir(s: &str) -> String {
    format!("{HOOKS}/{s}")
}

/// Session ids printed by `ci-find --root HOOKS ARGS`.
fn ids(args: &[&str]) -> Vec<String> {
    let run = ci("ci-find").args(["--root", HOOKS]).args(args).run();
    run.json().iter().map(|r| r["session"].as_str().unwrap().to_owned()).collect()
}

/// Total size of the named files of a session directory.
fn size_of(session: &str, files: &[&str]) -> u64 {
    files.iter().map(|f| std::fs::metadata(format!("{}/{f}", dir(session))).unwrap().len()).sum()
}

const S1_FILES: [&str; 14] = [
    "_claude_session_starts.jsonl",
    "_claude_user_inputs.jsonl",
    "_claude_PreToolUse.jsonl",
    "_claude_PermissionRequest.jsonl",
    "_claude_PostToolUse.jsonl",
    "_claude_PostToolUseFailure.jsonl",
    "_claude_Notification.jsonl",
    "_claude_PreCompact.jsonl",
    "_claude_SubagentStart.jsonl",
    "_claude_SubagentStop.jsonl",
    "_claude_Stop.jsonl",
    "_claude_CorrectiveFeedback.jsonl",
    "_claude_AcceptedRedirection.jsonl",
    "_claude_SessionEnd.jsonl",
];
const S2_FILES: [&str; 5] = [
    "_claude_session_starts.jsonl",
    "_claude_user_inputs.jsonl",
    "_claude_PreToolUse.jsonl",
    "_claude_PostToolUse.jsonl",
    "_claude_Stop.jsonl",
];

#[test]
fn listing_finds_both_sessions_and_skips_data_underscore_and_dot_dirs() {
    let run = ci("ci-find").args(["--root", HOOKS]).run();
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    let recs = without_mtime(&run.stdout);
    // S1 has timestamps (synthetic events only) so it sorts first; S2 has none.
    let want = [
        json!({
            "session": S1, "project": "-home-dev-webapp", "workspace": "-home-dev-webapp",
            "parent": null, "agent": null, "status": "ended",
            "started_at": "2026-03-01T10:05:00Z", "last_event_at": "2026-03-01T10:20:00.5Z",
            "ended_at": null, "working_dir": "/home/dev/webapp", "recipe": null, "recipe_step": null,
            "parallel_group_id": null, "format": "claude-hooks", "path": dir(S1),
            "bytes": size_of(S1, &S1_FILES), "metadata": null, "model": "claude-sonnet-4-5",
            "files": S1_FILES, "transcript": true,
            // 1+2+4+1+3+1+1+1+1+1+2+1+1+1 lines; the AssistantResponse copy is not counted.
            "events": 21,
            "tags": ["agent:Explore", "permission:default", "source:startup"]
        }),
        json!({
            "session": S2, "project": "-home-dev-cli-tool", "workspace": "-home-dev-cli-tool",
            "parent": null, "agent": null, "status": "active",
            "started_at": null, "last_event_at": null,
            "ended_at": null, "working_dir": "/home/dev/cli-tool", "recipe": null, "recipe_step": null,
            "parallel_group_id": null, "format": "claude-hooks", "path": dir(S2),
            "bytes": size_of(S2, &S2_FILES), "metadata": null, "model": "claude-opus-4-1",
            "files": S2_FILES, "transcript": false,
            // 1 + 1 (the second prompt line is torn) + 2 + 2 + 1.
            "events": 7,
            "tags": ["permission:plan", "source:resume"]
        }),
    ];
    assert_eq!(recs, want);
    assert!(run.stdout.contains("\"mtime\":\"20"));
}

#[test]
fn listing_filters() {
    assert_eq!(ids(&["--model", "claude-opus-4-1"]), [S2]);
    assert_eq!(ids(&["--model", "claude-sonnet-4-5", "--model", "claude-opus-4-1"]), [S1, S2]);
    assert_eq!(ids(&["--min-events", "8"]), [S1]);
    assert_eq!(ids(&["--min-events", "7", "--max-events", "7"]), [S2]);
    assert_eq!(ids(&["--max-events", "21"]), [S1, S2]);
    assert_eq!(ids(&["--active"]), [S2]);
    assert_eq!(ids(&["--status", "ended"]), [S1]);
    assert_eq!(ids(&["--tag", "source:resume"]), [S2]);
    assert_eq!(ids(&["--tag", "source:startup", "--tag", "agent:Explore"]), [S1]);
    // Tags are ANDed.
    assert!(ids(&["--tag", "source:startup", "--tag", "permission:plan"]).is_empty());
    // S1's activity is 10:05:00 .. 10:20:00.5; S2 has no time and never matches a bound.
    assert_eq!(ids(&["--since", "2026-03-01T10:20:00Z"]), [S1]);
    assert!(ids(&["--since", "2026-03-01T10:21:00Z"]).is_empty());
    assert!(ids(&["--until", "2026-03-01T10:05:00Z"]).is_empty());
    assert_eq!(ids(&["--session", "22222222"]), [S2]);
    assert_eq!(ids(&["--workspace", "-home-dev-webapp"]), [S1]);
    // No match: exit 1.
    let run = ci("ci-find").args(["--root", HOOKS, "--model", "gpt-5"]).run();
    assert_eq!((run.code, run.stdout.as_str()), (1, ""));
}

#[test]
fn amplifier_records_have_null_hook_fields_and_event_filters_count_lines() {
    // Amplifier captures have no tags: that filter drops them (their models
    // come from llm:response events: tests/writers.rs).
    let run = ci("ci-find").args(["--root", DEMO, "--tag", "source:startup"]).run();
    assert_eq!((run.code, run.stdout.as_str()), (1, ""));
    // --min-events counts non-blank lines of events.jsonl for Amplifier:
    // session a7c3e9d1 has 28 lines, the others fewer than 20.
    let run =
        ci("ci-find").args(["--root", DEMO, "--root", HOOKS, "--min-events", "20", "--sort", "id", "--paths"]).run();
    assert_eq!(
        run.lines(),
        [
            dir(S1).as_str(),
            format!("{DEMO}/-home-user-my-api/sessions/a7c3e9d1-4b2f-4e8a-9d61-0c5b7e2f3a10/context-intelligence/events.jsonl").as_str(),
        ]
    );
}

#[test]
fn session_data_dir_is_a_default_root() {
    let run = ci("ci-find")
        .env("AMPLIFIER_CONTEXT_INTELLIGENCE_BASE_PATH", crate::util::root().join(DEMO))
        .env("SESSION_DATA_DIR", HOOKS)
        .args(["--format-check-dummy"])
        .run();
    // (a bad flag is a usage error: proves args are parsed before roots)
    assert_eq!(run.code, 2);
    let run = ci("ci-find")
        .env("AMPLIFIER_CONTEXT_INTELLIGENCE_BASE_PATH", crate::util::root().join(DEMO))
        .env("SESSION_DATA_DIR", HOOKS)
        .args(["--sort", "id", "--paths"])
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines = run.lines();
    assert_eq!(lines.len(), 12, "10 demo captures + 2 hook sessions");
    assert!(lines.contains(&dir(S1).as_str()) && lines.contains(&dir(S2).as_str()));
    // A missing SESSION_DATA_DIR is an error like any missing root.
    let run = ci("ci-find")
        .env("AMPLIFIER_CONTEXT_INTELLIGENCE_BASE_PATH", crate::util::root().join(DEMO))
        .env("SESSION_DATA_DIR", "fixtures/no-such-dir")
        .args(["--paths"])
        .run();
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("root does not exist: fixtures/no-such-dir"), "{}", run.stderr);
}

/// The hook file and line every event of S1 comes from, with its canonical name.
const S1_EVENTS: [(&str, &str, &str, u64); 21] = [
    ("session:start", "SessionStart", "_claude_session_starts.jsonl", 1),
    ("prompt:submit", "UserPromptSubmit", "_claude_user_inputs.jsonl", 1),
    ("prompt:submit", "UserPromptSubmit", "_claude_user_inputs.jsonl", 2),
    ("tool:pre", "PreToolUse", "_claude_PreToolUse.jsonl", 1),
    ("tool:pre", "PreToolUse", "_claude_PreToolUse.jsonl", 2),
    ("tool:pre", "PreToolUse", "_claude_PreToolUse.jsonl", 3),
    ("tool:pre", "PreToolUse", "_claude_PreToolUse.jsonl", 4),
    ("approval:required", "PermissionRequest", "_claude_PermissionRequest.jsonl", 1),
    ("tool:post", "PostToolUse", "_claude_PostToolUse.jsonl", 1),
    ("tool:post", "PostToolUse", "_claude_PostToolUse.jsonl", 2),
    ("tool:post", "PostToolUse", "_claude_PostToolUse.jsonl", 3),
    ("tool:error", "PostToolUseFailure", "_claude_PostToolUseFailure.jsonl", 1),
    ("user:notification", "Notification", "_claude_Notification.jsonl", 1),
    ("context:compaction", "PreCompact", "_claude_PreCompact.jsonl", 1),
    ("delegate:agent_spawned", "SubagentStart", "_claude_SubagentStart.jsonl", 1),
    ("delegate:agent_completed", "SubagentStop", "_claude_SubagentStop.jsonl", 1),
    ("prompt:complete", "Stop", "_claude_Stop.jsonl", 1),
    ("prompt:complete", "Stop", "_claude_Stop.jsonl", 2),
    ("hook:CorrectiveFeedback", "CorrectiveFeedback", "_claude_CorrectiveFeedback.jsonl", 1),
    ("hook:AcceptedRedirection", "AcceptedRedirection", "_claude_AcceptedRedirection.jsonl", 1),
    ("session:end", "SessionEnd", "_claude_SessionEnd.jsonl", 1),
];

fn source_line(session: &str, file: &str, line: u64) -> String {
    let text = std::fs::read_to_string(format!("{}/{file}", dir(session))).unwrap();
    text.lines().nth(line as usize - 1).unwrap().to_owned()
}

#[test]
fn cat_normalises_every_hook_line_in_lifecycle_order() {
    let run = ci("ci-cat").args(["--full", &dir(S1)]).run();
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    let lines = run.lines();
    assert_eq!(lines.len(), S1_EVENTS.len());
    for (got, (event, hook, file, line)) in lines.iter().zip(S1_EVENTS) {
        let src = source_line(S1, file, line);
        let v: Value = serde_json::from_str(&src).unwrap();
        let ts = match hook {
            "CorrectiveFeedback" => json!("2026-03-01T10:05:00Z"),
            "AcceptedRedirection" => json!("2026-03-01T10:20:00.500Z"),
            _ => Value::Null,
        };
        // The record is printed with `data` = the original bytes, unchanged.
        let want = format!(
            "{{\"event\":\"{event}\",\"hook\":\"{hook}\",\"workspace\":\"-home-dev-webapp\",\"timestamp\":{ts},\"data\":{src},\"ci\":{{\"session\":\"{S1}\",\"path\":\"{}/{file}\",\"line\":{line}}}}}",
            dir(S1)
        );
        assert_eq!(*got, want);
        assert_eq!(v["hook_event_name"], hook);
    }
    // --raw prints the original lines.
    let raw = ci("ci-cat").args(["--raw", &dir(S1)]).run();
    let want: Vec<String> = S1_EVENTS.iter().map(|(_, _, f, l)| source_line(S1, f, *l)).collect();
    assert_eq!(raw.lines(), want);
    // The copy, the snapshot, the transcript and codex files are never read.
    assert!(!run.stdout.contains("AssistantResponse") && !run.stdout.contains("_transcript_final"));
    assert!(!run.stdout.contains("last_claude") && !run.stdout.contains("_codex_"));
}

#[test]
fn cat_reports_the_torn_line_with_its_hook_file() {
    let run = ci("ci-cat").args(["--fields", "event", &dir(S2)]).run();
    assert_eq!(run.code, 0);
    let events: Vec<String> = run.json().iter().map(|r| r["event"].as_str().unwrap().to_owned()).collect();
    assert_eq!(
        events,
        ["session:start", "prompt:submit", "tool:pre", "tool:pre", "tool:post", "tool:post", "prompt:complete"]
    );
    assert_eq!(
        run.stderr,
        format!(
            "{}/_claude_user_inputs.jsonl:2: torn record: line ends inside a JSON value\n\
             ci-cat: 1 bad line skipped (--strict makes bad lines an error)\n",
            dir(S2)
        )
    );
}

#[test]
fn cat_of_one_hook_file_and_of_the_copy_file() {
    let run = ci("ci-cat")
        .args(["--fields", "event,data.last_assistant_message", &format!("{}/_claude_Stop.jsonl", dir(S1))])
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    let msgs: Vec<String> =
        run.json().iter().map(|r| r["data"]["last_assistant_message"].as_str().unwrap().to_owned()).collect();
    assert_eq!(
        msgs,
        [
            "Fixed the login bug: login now checks the password hash.",
            "Added test_auth.py; pytest needs bcrypt installed."
        ]
    );
    // Named directly, the copy file is not a hooks event file: its lines are refused.
    let run = ci("ci-cat").arg(format!("{}/_claude_AssistantResponse.jsonl", dir(S1))).run();
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr.contains(
            "_claude_AssistantResponse.jsonl:1: a Claude Code hook line where an Amplifier event was expected"
        ),
        "{}",
        run.stderr
    );
}

#[test]
fn sessions_analytics_hand_checked() {
    let run = ci("ci-find").args(["--root", HOOKS]).run();
    let run = ci("ci-agg").arg("--sessions").stdin(run.stdout).run();
    assert_eq!(run.code, 0);
    let got = run.json();
    // S1: 4 distinct tool_use_ids (toolu_01 Read, _02 Edit, _03 Bash, _04 Write);
    // toolu_03 failed (PostToolUseFailure). Stop lines 2, counted once each (the
    // AssistantResponse copy is not read). Only the synthetic events carry a
    // timestamp: 10:05:00 and 10:20:00.500 -> 900500 ms; no turn is timed.
    // Hook input carries no usage and the transcript copy (hand-made) has
    // none either: tokens are unknown, null (not 0).
    let s1 = json!({
        "session": S1, "project": "-home-dev-webapp", "workspace": "-home-dev-webapp",
        "parent": null, "agent": null, "status": "ended", "outcome": null,
        "started": "2026-03-01T10:05:00Z", "last_event": "2026-03-01T10:20:00.5Z", "duration_ms": 900500,
        "events": {
            "approval:required": 1, "context:compaction": 1, "delegate:agent_completed": 1,
            "delegate:agent_spawned": 1, "hook:AcceptedRedirection": 1, "hook:CorrectiveFeedback": 1,
            "prompt:complete": 2, "prompt:submit": 2, "session:end": 1, "session:start": 1,
            "tool:error": 1, "tool:post": 3, "tool:pre": 4, "user:notification": 1
        },
        "tool_calls": {"Bash": 1, "Edit": 1, "Read": 1, "Write": 1},
        "tool_errors": 1, "turns": 2, "messages": 4, "avg_response_ms": null,
        "tokens": null,
        "cost_usd": null, "cost_source": null, "unpriced_models": [],
        "models": ["claude-sonnet-4-5"], "compactions": 1, "children": [],
        "subagents": 1,
        "files_read": ["/home/dev/webapp/auth.py"],
        "files_edited": ["/home/dev/webapp/auth.py", "/home/dev/webapp/test_auth.py"]
    });
    // S2: Grep (no file_path) and Read of parser.rs; no timestamps at all.
    let s2 = json!({
        "session": S2, "project": "-home-dev-cli-tool", "workspace": "-home-dev-cli-tool",
        "parent": null, "agent": null, "status": "active", "outcome": null,
        "started": null, "last_event": null, "duration_ms": null,
        "events": {"prompt:complete": 1, "prompt:submit": 1, "session:start": 1, "tool:post": 2, "tool:pre": 2},
        "tool_calls": {"Grep": 1, "Read": 1},
        "tool_errors": 0, "turns": 1, "messages": 2, "avg_response_ms": null,
        "tokens": null,
        "cost_usd": null, "cost_source": null, "unpriced_models": [],
        "models": ["claude-opus-4-1"], "compactions": 0, "children": [],
        "subagents": 0,
        "files_read": ["/home/dev/cli-tool/src/parser.rs"],
        "files_edited": []
    });
    assert_eq!(got, [s1, s2]);
}

#[test]
fn tools_table_pairs_by_tool_use_id() {
    let run = ci("ci-agg").args(["--tools", HOOKS]).run();
    let calls: Vec<(String, u64, u64)> = run
        .json()
        .iter()
        .map(|r| (r["tool"].as_str().unwrap().to_owned(), r["calls"].as_u64().unwrap(), r["errors"].as_u64().unwrap()))
        .collect();
    let want = [("Read", 2, 0), ("Bash", 1, 1), ("Edit", 1, 0), ("Grep", 1, 0), ("Write", 1, 0)];
    assert_eq!(calls, want.map(|(t, c, e)| (t.to_owned(), c, e)));
}

#[test]
fn by_tool_across_mixed_roots() {
    let find = ci("ci-find").args(["--root", DEMO, "--root", HOOKS]).run();
    let run = ci("ci-agg").args(["--by", "tool"]).stdin(find.stdout).run();
    // Demo (tests/agg.rs): null 57, bash 10, read_file 4, delegate 2, edit_file 2, grep 2.
    // Hooks: Read 2+2, Bash 3 (pre, permission request, failure), Edit 2, Grep 2,
    // Write 2, and 12 + 3 events without tool_name.
    assert_eq!(
        run.lines(),
        [
            r#"{"tool":null,"count":72}"#,
            r#"{"tool":"bash","count":10}"#,
            r#"{"tool":"Read","count":4}"#,
            r#"{"tool":"read_file","count":4}"#,
            r#"{"tool":"Bash","count":3}"#,
            r#"{"tool":"Edit","count":2}"#,
            r#"{"tool":"Grep","count":2}"#,
            r#"{"tool":"Write","count":2}"#,
            r#"{"tool":"delegate","count":2}"#,
            r#"{"tool":"edit_file","count":2}"#,
            r#"{"tool":"grep","count":2}"#,
        ]
    );
}

#[test]
fn filter_sees_the_normalised_view() {
    let run = ci("ci-filter").args(["--event", "tool:post", "--where", "data.tool_name == \"Read\"", HOOKS]).run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    // Piped on, a normalised record is an ordinary event record.
    let run = ci("ci-cat").args(["--fields", "event,hook,data.tool_use_id"]).stdin(run.stdout).run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    let got: Vec<Value> = run
        .json()
        .into_iter()
        .map(|mut r| {
            r.as_object_mut().unwrap().remove("ci");
            r
        })
        .collect();
    assert_eq!(
        got,
        [
            json!({"event": "tool:post", "hook": "PostToolUse", "data": {"tool_use_id": "toolu_01"}}),
            json!({"event": "tool:post", "hook": "PostToolUse", "data": {"tool_use_id": "toolu_06"}}),
        ]
    );
}

#[test]
fn grep_finds_a_prompt_and_a_tool_output() {
    // The match records with the marker of their line taken out (it names
    // the hooks writer; ci-grep's tests check the rest).
    let unmarked = |run: &Run| {
        let mut all = run.json();
        for m in &mut all {
            let cut = m["ci"].as_object_mut().unwrap().remove("cut").unwrap();
            assert_eq!((cut["offset"].is_u64(), &cut["writer"]), (true, &json!("claude-hooks")));
        }
        all
    };
    let run = ci("ci-grep").args(["explain the", HOOKS]).run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        unmarked(&run),
        [json!({
            "session": S2, "line": 1, "event": "prompt:submit", "timestamp": null,
            "workspace": "-home-dev-cli-tool", "path": "data.prompt", "key": false, "offset": 0, "char_offset": 0,
            "match": "explain the", "snippet": "explain the parser",
            "ci": {"session": S2, "path": format!("{}/_claude_user_inputs.jsonl", dir(S2)), "line": 1}
        })]
    );
    let run = ci("ci-grep").args(["parse_tokens", HOOKS]).run();
    assert_eq!(
        unmarked(&run),
        [json!({
            "session": S2, "line": 1, "event": "tool:post", "timestamp": null, "workspace": "-home-dev-cli-tool",
            "path": "data.tool_response.output", "key": false, "offset": 25, "char_offset": 25,
            "match": "parse_tokens", "snippet": "src/parser.rs:12: pub fn parse_tokens(input: &str)",
            "ci": {"session": S2, "path": format!("{}/_claude_PostToolUse.jsonl", dir(S2)), "line": 1}
        })]
    );
    // The transcript copy and the AssistantResponse copy are not searched:
    // "Fixed the login bug" is in both, and in S1's Stop line 1 only once here.
    let run = ci("ci-grep").args(["--count", "Fixed the login", HOOKS]).run();
    assert_eq!(run.json(), [json!({"session": S1, "path": dir(S1), "count": 1})]);
}

#[test]
fn unsafe_session_ids_and_file_names_are_refused() {
    let rec = |session: &str, files: &str| {
        format!(
            "{{\"session\":{},\"path\":\"{}\",\"format\":\"claude-hooks\",\"files\":{files}}}\n",
            serde_json::to_string(session).unwrap(),
            dir(S1)
        )
    };
    for bad in ["..", ".", "a/b", "a\\b", "a\u{0}b"] {
        let run = ci("ci-cat").stdin(rec(bad, "null")).run();
        assert_eq!(run.code, 2, "{bad:?}");
        assert_eq!(run.stdout, "");
        assert_eq!(run.stderr, format!("ci-cat: -:1: unsafe session id {bad:?}\n"));
    }
    let run = ci("ci-cat").stdin(rec(S1, r#"["../../../etc/passwd"]"#)).run();
    assert_eq!((run.code, run.stdout.as_str()), (2, ""));
    assert_eq!(run.stderr, "ci-cat: -:1: unsafe file name \"../../../etc/passwd\"\n");
    let run = ci("ci-find").args(["--root", HOOKS, "--session", "../x"]).run();
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("--session: unsafe session id \"../x\""), "{}", run.stderr);
    // A safe piped record is read: only the event files it lists, in lifecycle order.
    let run = ci("ci-cat")
        .args(["--fields", "event"])
        .stdin(rec(S1, r#"["_claude_Stop.jsonl","_claude_session_starts.jsonl","_claude_AssistantResponse.jsonl"]"#))
        .run();
    let events: Vec<String> = run.json().iter().map(|r| r["event"].as_str().unwrap().to_owned()).collect();
    assert_eq!(events, ["session:start", "prompt:complete", "prompt:complete"]);
}

/// fixtures/sessiondata-timed: two sessions with the same events; in 3333… every
/// line has a timestamp (so events come in time order, across files), in 4444…
/// the PreToolUse line has none (so the fixed lifecycle file order holds).
#[test]
fn time_order_only_when_every_event_has_a_timestamp() {
    let run = ci("ci-cat").args(["--fields", "event,timestamp", "fixtures/sessiondata-timed"]).run();
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    let got: Vec<String> = run
        .json()
        .iter()
        .map(|r| {
            let file = r["ci"]["path"].as_str().unwrap().rsplit('/').next().unwrap().to_owned();
            format!(
                "{} {} {}:{}",
                &r["ci"]["session"].as_str().unwrap()[..4],
                r["event"].as_str().unwrap(),
                file,
                r["ci"]["line"]
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            "3333 session:start _claude_session_starts.jsonl:1",
            "3333 prompt:submit _claude_user_inputs.jsonl:1",
            "3333 tool:pre _claude_PreToolUse.jsonl:1",
            "3333 tool:post _claude_PostToolUse.jsonl:1",
            "3333 prompt:complete _claude_Stop.jsonl:1",
            "3333 prompt:submit _claude_user_inputs.jsonl:2",
            "3333 prompt:complete _claude_Stop.jsonl:2",
            "4444 session:start _claude_session_starts.jsonl:1",
            "4444 prompt:submit _claude_user_inputs.jsonl:1",
            "4444 prompt:submit _claude_user_inputs.jsonl:2",
            "4444 tool:pre _claude_PreToolUse.jsonl:1",
            "4444 tool:post _claude_PostToolUse.jsonl:1",
            "4444 prompt:complete _claude_Stop.jsonl:1",
            "4444 prompt:complete _claude_Stop.jsonl:2",
        ]
    );
}

/// A hook line as Claude Code 1.0.x/2.0.x writes it: no `tool_use_id`.
fn old_hook(hook: &str, tool: &str, input: Value, extra: Value) -> String {
    let mut v = json!({"session_id": "old-1", "transcript_path": "/t.jsonl", "cwd": "/home/u/p",
        "hook_event_name": hook, "tool_name": tool, "tool_input": input});
    if let (Some(o), Some(e)) = (v.as_object_mut(), extra.as_object()) {
        o.extend(e.clone());
    }
    v.to_string()
}

/// Without `tool_use_id`, a PreToolUse and its PostToolUse (or
/// PostToolUseFailure) are one call, paired in order per session, tool and
/// input: calls = pres, unfinished = pres without an end. (A real 1.0.119
/// session with 59 pres and 40 posts was reported as 99 calls, 59 unfinished.)
#[test]
fn calls_without_tool_use_id_pair_in_order() {
    let root = tempfile::tempdir().unwrap();
    let session = root.path().join("old-1");
    std::fs::create_dir_all(&session).unwrap();
    let ls = json!({"command": "ls"});
    let read = json!({"file_path": "/home/u/p/a.rs"});
    let pres = [
        old_hook("PreToolUse", "Bash", ls.clone(), json!({})),
        old_hook("PreToolUse", "Read", read.clone(), json!({})),
        old_hook("PreToolUse", "Bash", ls.clone(), json!({})),
        old_hook("PreToolUse", "Bash", json!({"command": "pwd"}), json!({})),
        old_hook("PreToolUse", "Bash", ls.clone(), json!({})),
    ];
    let posts = [
        old_hook("PostToolUse", "Bash", ls.clone(), json!({"tool_response": {"stdout": "a"}})),
        old_hook("PostToolUse", "Read", read.clone(), json!({"tool_response": {}})),
        old_hook("PostToolUse", "Bash", ls.clone(), json!({"tool_response": {"stdout": "a"}})),
    ];
    let failures = [old_hook("PostToolUseFailure", "Bash", json!({"command": "pwd"}), json!({"error": "boom"}))];
    for (name, lines) in [
        ("_claude_PreToolUse.jsonl", &pres[..]),
        ("_claude_PostToolUse.jsonl", &posts[..]),
        ("_claude_PostToolUseFailure.jsonl", &failures[..]),
    ] {
        std::fs::write(session.join(name), lines.join("\n") + "\n").unwrap();
    }
    let path = session.to_str().unwrap();
    let tools = ci("ci-agg").args(["--tools", path]).run();
    assert_eq!((tools.code, tools.stderr.as_str()), (0, ""), "{tools:?}");
    // Bash: ls x3 (two ended), pwd x1 (failed) = 4 calls, 2 ok, 1 error, 1 unfinished.
    assert_eq!(
        tools.lines(),
        [
            r#"{"tool":"Bash","calls":4,"ok":2,"errors":1,"unfinished":1,"success_rate":0.6667,"p50_ms":null,"p95_ms":null,"max_ms":null}"#,
            r#"{"tool":"Read","calls":1,"ok":1,"errors":0,"unfinished":0,"success_rate":1,"p50_ms":null,"p95_ms":null,"max_ms":null}"#,
        ]
    );
    let sessions = ci("ci-agg").args(["--sessions", path]).run().json();
    assert_eq!(
        (sessions[0]["tool_calls"].clone(), sessions[0]["tool_errors"].clone()),
        (json!({"Bash": 4, "Read": 1}), json!(1))
    );
    // The same through piped event records read by two threads.
    let events = ci("ci-cat").arg(path).run().stdout;
    let piped = ci("ci-agg").args(["--tools", "-j2"]).stdin(events).run();
    assert_eq!(piped.lines(), tools.lines());
}

/// A hooks session whose folder holds `_transcript_final.jsonl`: its record's
/// time and model, `ci-find --since/--model`, and the `--sessions`/`--tokens`
/// figures come from the copy (the numbers are ccusage's for that transcript,
/// fixtures/README.md); the event stream stays the hook events.
#[test]
fn transcript_copy_gives_time_model_and_tokens() {
    const ROOT: &str = "fixtures/sessiondata-transcript";
    let find = ci("ci-find").args(["--root", ROOT]).run();
    assert_eq!((find.code, find.stderr.as_str()), (0, ""));
    let rec = &find.json()[0];
    assert_eq!(
        (&rec["started_at"], &rec["last_event_at"], &rec["model"], &rec["transcript"]),
        (
            &json!("2025-09-03T00:47:19.293Z"),
            &json!("2025-09-03T00:47:52.264Z"),
            &json!("claude-sonnet-4-20250514"),
            &json!(true)
        )
    );
    let count = |args: &[&str]| ci("ci-find").args(["--root", ROOT]).args(args).run().json().len();
    assert_eq!(count(&["--since", "2025-09-03", "--until", "2025-09-04"]), 1);
    assert_eq!(count(&["--since", "2025-09-04"]), 0);
    assert_eq!(count(&["--model", "claude-sonnet-4-20250514"]), 1);
    let s = ci("ci-agg").args(["--sessions", ROOT]).run().json();
    assert_eq!(
        (&s[0]["started"], &s[0]["duration_ms"], &s[0]["tokens"], &s[0]["models"], &s[0]["events"]),
        (
            &json!("2025-09-03T00:47:19.293Z"),
            &json!(32971),
            &json!({"input": 93, "output": 953, "cache_read": 103219, "cache_write": 12698}),
            &json!(["claude-sonnet-4-20250514"]),
            &json!({"prompt:complete": 1, "prompt:submit": 1, "session:start": 1})
        )
    );
    // Cost computed from the copy's usage: 93×3 + 953×15 + 103219×0.3 +
    // 12698×3.75 µ$ (LiteLLM's claude-sonnet-4-20250514 rates).
    let tokens = ci("ci-agg").args(["--tokens", "--by", "day", ROOT]).run();
    assert_eq!(
        tokens.lines(),
        [
            r#"{"day":"2025-09-03","tz":"UTC","model":"claude-sonnet-4-20250514","responses":7,"input_tokens":93,"output_tokens":953,"cache_read_tokens":103219,"cache_write_tokens":12698,"cost_usd":0.0931572,"cost_source":"computed","unpriced_models":[]}"#
        ]
    );
    let events: Vec<Value> = ci("ci-cat").arg(ROOT).run().json().iter().map(|e| e["event"].clone()).collect();
    assert_eq!(events, [json!("session:start"), json!("prompt:submit"), json!("prompt:complete")]);
}

/// A failed call of a hooks session names its tool (PostToolUseFailure's
/// `tool_name`), from the files and through a pipe alike.
#[test]
fn a_failed_call_names_its_tool() {
    let want = [(Some("Bash".to_owned()), vec![("tool:error".to_owned(), 1)])].into();
    assert_eq!(crate::util::errors_by_tool(HOOKS), want);
}
