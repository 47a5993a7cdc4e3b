//! Gemini CLI chat recordings: the shared hand-made home (fixtures/gemini-cli,
//! with SOURCE.md's expected totals) and the mutation-log traps
//! (fixtures/gemini-traps) against their expected facts and ccusage
//! 20.0.24's answers for them, and hostile chat files.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use crate::util::{ci, root, Run};

/// The shared sample home (its `.gemini` folder).
const HOME: &str = "fixtures/gemini-cli/.gemini";
const MAIN: &str = "fixtures/gemini-cli/.gemini/tmp/demo/chats/session-2026-06-10T10-00-3b0c1d2e.jsonl";
const MAIN_ID: &str = "3b0c1d2e-5f60-4a71-8b92-a3b4c5d6e7f8";
const SUB_ID: &str = "7c1e9a40-0d2b-4c3e-9f8a-1b2c3d4e5f60";
/// The traps tree: last copy wins, a rewind, a checkpoint, a hash folder.
const TRAPS: &str = "fixtures/gemini-traps/.gemini";
const APP: &str = "fixtures/gemini-traps/.gemini/tmp/app/chats/session-2026-07-01T09-00-aaaa0001.jsonl";
/// The sample's torn last line, held back.
const HELD: &str = "1 unfinished last line held back (capture still being written?)\n";

/// (input, cache read, output) of a row.
fn counts(r: &Value) -> (u64, u64, u64) {
    let n = |k: &str| r[k].as_u64().unwrap_or_else(|| panic!("no {k}: {r}"));
    (n("input_tokens"), n("cache_read_tokens"), n("output_tokens"))
}

/// Per day, (input, cache read, output, cost) summed over the models.
type Day = BTreeMap<String, ((u64, u64, u64), f64)>;

/// Our `--tokens --by day` rows summed per day.
fn our_days(path: &str) -> Day {
    let run = ci("ci-agg").args(["--tokens", "--by", "day", path]).run();
    assert_eq!(run.code, 0, "{run:?}");
    let mut out = Day::new();
    for r in run.json() {
        let ((i, c, o), cost) = (counts(&r), r["cost_usd"].as_f64().unwrap());
        let e = out.entry(r["day"].as_str().unwrap().to_owned()).or_default();
        e.0 = (e.0 .0 + i, e.0 .1 + c, e.0 .2 + o);
        e.1 += cost;
    }
    out
}

/// ccusage's daily report saved beside a tree, per day: its output with
/// the thoughts it keeps in no column (its total less its columns).
fn ccusage_days(tree: &str) -> Day {
    let text = std::fs::read_to_string(root().join("fixtures").join(tree).join("ccusage-daily.json")).unwrap();
    let report: Value = serde_json::from_str(&text).unwrap();
    let n = |r: &Value, k: &str| r[k].as_u64().unwrap();
    let row = |d: &Value| {
        let (i, c, o) = (n(d, "inputTokens"), n(d, "cacheReadTokens"), n(d, "outputTokens"));
        let thoughts = n(d, "totalTokens") - i - c - o - n(d, "cacheCreationTokens");
        (d["date"].as_str().unwrap().to_owned(), ((i, c, o + thoughts), d["totalCost"].as_f64().unwrap()))
    };
    report["daily"].as_array().unwrap().iter().map(row).collect()
}

/// SOURCE.md: last record per id, rewound messages still billed, the
/// subagent file added: main 5,200 / 32,300 / 500, subagent 3,000 / 0 / 120;
/// one tool call (`run_shell_command`, error); messages after the rewind
/// `u-1, g-1, g-2, u-3, g-3`.
#[test]
fn the_sample_counts_the_expected_totals_of_source_md() {
    let run = ci("ci-agg").args(["--tokens", HOME]).run();
    assert_eq!(
        run.stdout,
        concat!(
            r#"{"model":"gemini-2.5-pro","responses":3,"input_tokens":5200,"output_tokens":500,"cache_read_tokens":32300,"cache_write_tokens":0,"cost_usd":0.0155375,"cost_source":"computed","unpriced_models":[]}"#,
            "\n",
            r#"{"model":"gemini-2.5-flash","responses":1,"input_tokens":3000,"output_tokens":120,"cache_read_tokens":0,"cache_write_tokens":0,"cost_usd":0.0012,"cost_source":"computed","unpriced_models":[]}"#,
            "\n"
        )
    );
    assert_eq!((run.stderr.as_str(), run.code), (format!("ci-agg: {HELD}").as_str(), 0));
    let run = ci("ci-agg").args(["--sessions", HOME]).run();
    let rows = run.json();
    let main = rows.iter().find(|s| s["session"] == MAIN_ID).unwrap();
    assert_eq!(main["tokens"], json!({"input": 5200, "output": 500, "cache_read": 32300, "cache_write": 0}));
    assert_eq!(main["tool_calls"], json!({"run_shell_command": 1}));
    assert_eq!((&main["tool_errors"], &main["messages"], &main["turns"]), (&json!(1), &json!(5), &json!(2)));
    assert_eq!(main["children"], json!([SUB_ID]));
    let sub = rows.iter().find(|s| s["session"] == SUB_ID).unwrap();
    assert_eq!(
        (&sub["parent"], &sub["tokens"]["input"], &sub["tokens"]["output"]),
        (&json!(MAIN_ID), &json!(3000), &json!(120))
    );
}

/// ccusage 20.0.24 (`ccusage gemini daily`, saved beside each tree) agrees
/// on input, cache reads and cost, and leaves the thoughts out of its
/// `outputTokens` (they are only in its `totalTokens`; it bills them at the
/// output rate, as we do), except on 2026-07-03 of the traps: it counts
/// again the two responses the `.jsonl` copied from the legacy `.json` of
/// the same session (input 1,000 + 500, cache 1,000 + 2,000, output 60 + 40).
#[test]
fn ccusage_agrees_once_its_hidden_thoughts_are_output_but_for_legacy_copies() {
    let real = "fixtures/gemini-legacy/kvsankar__agent-history/tests/fixtures/real_sessions/gemini/session-01.json";
    let trees = [("gemini-cli", HOME), ("gemini-traps", TRAPS), ("gemini-legacy/kvsankar__agent-history", real)];
    for (tree, path) in trees {
        let (ours, theirs) = (our_days(path), ccusage_days(tree));
        assert_eq!(ours.keys().collect::<Vec<_>>(), theirs.keys().collect::<Vec<_>>(), "{tree}");
        for (day, ((i, c, o), cost)) in &ours {
            let ((ti, tc, to), tcost) = theirs[day];
            if day == "2026-07-03" {
                assert_eq!((i + 1500, c + 3000, o + 100), (ti, tc, to), "{tree} {day}");
                assert!((cost + 0.00079 - tcost).abs() < 1e-12, "{tree} {day}: {cost} vs {tcost}");
                continue;
            }
            assert_eq!((*i, *c, *o), (ti, tc, to), "{tree} {day}");
            assert!((cost - tcost).abs() < 1e-12, "{tree} {day}: {cost} vs {tcost}");
        }
    }
}

/// A legacy `.json` (before v0.39) is one document: each message of its
/// `messages` is an event whose provenance is its own byte range, so a cut
/// record is read back whole. The real session: 4,383 in, 36 out (8 + 28
/// thoughts), SOURCE.md's figures.
#[test]
fn legacy_documents_are_read_message_by_message() {
    let real = "fixtures/gemini-legacy/kvsankar__agent-history/tests/fixtures/real_sessions/gemini/session-01.json";
    let run = ci("ci-agg").args(["--tokens", real]).run();
    assert_eq!(counts(&run.json()[0]), (4383, 0, 36), "{run:?}");
    let full = ci("ci-cat").args(["--full", real]).run();
    let names: Vec<(Value, Value)> =
        full.json().iter().map(|r| (r["event"].clone(), r["ci"]["line"].clone())).collect();
    assert_eq!(names, [(json!("prompt:submit"), json!(7)), (json!("llm:response"), json!(17))]);
    let legacy = "fixtures/gemini-traps/.gemini/tmp/app/chats/session-2026-07-03T08-00-cccc0003.json";
    let full = ci("ci-cat").args(["--full", legacy]).run();
    let grep = ci("ci-grep").args(["-F", "Updated three call sites", legacy]).run();
    let cut = &grep.json()[0]["ci"]["cut"];
    let (at, len) = (cut["offset"].as_u64().unwrap() as usize, cut["bytes"].as_u64().unwrap() as usize);
    let text = std::fs::read(root().join(legacy)).unwrap();
    let member: Value = serde_json::from_slice(&text[at..at + len]).unwrap();
    assert_eq!((&member["id"], &cut["element"]), (&json!("c-g2"), &json!(true)));
    let cut = ci("ci-cat").args(["--max-bytes", "1k", legacy]).run();
    let back = ci("ci-cat").arg("--full").stdin(cut.stdout).run();
    assert_eq!((back.stdout, back.code), (full.stdout, 0));
}

/// A legacy session Gemini continued in a `.jsonl` (copying its messages)
/// is one session naming both files, the `.json` first: each message counts
/// once, its `.jsonl` copy winning (3 responses: 2,000 / 5,500 / 120).
#[test]
fn a_legacy_session_continued_in_jsonl_is_read_once() {
    let run = ci("ci-find").args(["--root", TRAPS]).run();
    let pair = run.json().into_iter().find(|r| r["session"] == "cccc0003-0000-4000-8000-000000000003").unwrap();
    let files = json!(["session-2026-07-03T08-00-cccc0003.json", "session-2026-07-03T08-05-cccc0003.jsonl"]);
    assert_eq!((&pair["files"], &pair["started_at"]), (&files, &json!("2026-07-03T08:00:00Z")));
    assert!(pair["path"].as_str().unwrap().ends_with(".jsonl"));
    let run = ci("ci-agg").args(["--sessions", TRAPS]).run();
    let s = run.json().into_iter().find(|r| r["session"] == "cccc0003-0000-4000-8000-000000000003").unwrap();
    assert_eq!(s["tokens"], json!({"input": 2000, "output": 120, "cache_read": 5500, "cache_write": 0}));
    assert_eq!((&s["messages"], &s["events"]["llm:response"]), (&json!(6), &json!(3)));
    let run = ci("ci-cat").arg(TRAPS).run();
    let ours: Vec<String> = run
        .json()
        .iter()
        .filter_map(|r| r["ci"]["path"].as_str().map(str::to_owned))
        .filter(|p| p.contains("cccc0003"))
        .collect();
    let paths: Vec<&str> = ours.iter().map(|p| &p[p.len() - 5..]).collect();
    assert!(paths.iter().all(|p| *p == "jsonl") && paths.len() == 7, "{paths:?}");
}

/// `g-1` is written three times (tokens, a call `executing`, the call
/// `error`): one `llm:response`, its last copy (line 7), one `tool:pre` and
/// one `tool:error`; the prompt `u-2` the user rewound is no event.
#[test]
fn a_message_written_again_is_one_event_its_last_copy() {
    let run = ci("ci-cat").arg(MAIN).run();
    assert_eq!((run.stderr.as_str(), run.code), (format!("ci-cat: {HELD}").as_str(), 0));
    let events: Vec<(String, Value, Value)> = run
        .json()
        .iter()
        .map(|r| (r["event"].as_str().unwrap().to_owned(), r["data"]["id"].clone(), r["ci"]["line"].clone()))
        .collect();
    let names: Vec<&str> = events.iter().map(|e| e.0.as_str()).collect();
    assert_eq!(
        names,
        [
            "session:start",
            "prompt:submit",
            "gemini:set",
            "gemini:set",
            "llm:response",
            "tool:pre",
            "tool:error",
            "llm:response",
            "gemini:set",
            "gemini:rewind",
            "prompt:submit",
            "llm:response",
            "gemini:set"
        ]
    );
    assert_eq!((&events[4].1, &events[4].2), (&json!("g-1"), &json!(7)));
    assert_eq!(events[6].1, json!("run_shell_command_1781085609000_0"));
    assert!(!events.iter().any(|e| e.1 == json!("u-2")), "{events:?}");
    let error = &run.json()[6];
    assert_eq!((&error["data"]["status"], &error["data"]["name"]), (&json!("error"), &json!("run_shell_command")));
}

/// A rewind drops the prompt it names and later messages, but a billed
/// response stays (`g-2`); a `$set` checkpoint's `messages` replace the
/// list: each is an event read back from its own bytes inside the line.
#[test]
fn a_rewind_keeps_billed_responses_and_a_checkpoint_replaces_the_list() {
    let run = ci("ci-cat").args(["--full", APP]).run();
    assert_eq!((run.stderr.as_str(), run.code), ("", 0));
    let events: Vec<(String, Value, Value)> = run
        .json()
        .iter()
        .map(|r| (r["event"].as_str().unwrap().to_owned(), r["data"]["id"].clone(), r["ci"]["line"].clone()))
        .collect();
    let expected = [
        ("session:start", Value::Null, 1),
        ("gemini:set", Value::Null, 4),
        ("llm:response", json!("g-2"), 7),
        ("gemini:rewind", Value::Null, 8),
        ("prompt:submit", json!("u-1"), 11),
        ("llm:response", json!("g-1"), 11),
        ("tool:pre", json!("list_directory_1782896402000_0"), 11),
        ("tool:post", json!("list_directory_1782896402000_0"), 11),
        ("prompt:submit", json!("u-3"), 11),
        ("llm:response", json!("g-3"), 11),
        ("gemini:info", json!("i-1"), 11),
    ];
    let expected: Vec<(String, Value, Value)> =
        expected.into_iter().map(|(n, id, l)| (n.to_owned(), id, json!(l))).collect();
    assert_eq!(events, expected);
    // A member's text is found once, at its own byte site in line 11.
    let run = ci("ci-grep").args(["-F", "README says hello", APP]).run();
    assert_eq!(run.json().len(), 1, "{run:?}");
    let cut = &run.json()[0]["ci"]["cut"];
    let (at, len) = (cut["offset"].as_u64().unwrap() as usize, cut["bytes"].as_u64().unwrap() as usize);
    let text = std::fs::read(root().join(APP)).unwrap();
    assert!(text[at..at + len].starts_with(br#"{"id":"g-3""#) && text[at..at + len].ends_with(b"}"));
    assert_eq!((&cut["element"], text[..at].iter().filter(|&&b| b == b'\n').count()), (&json!(true), 10));
    let run = ci("ci-agg").args(["--sessions", APP]).run();
    let s = &run.json()[0];
    assert_eq!(s["tokens"], json!({"input": 1903, "output": 75, "cache_read": 1800, "cache_write": 0}));
    assert_eq!((&s["tool_calls"], &s["messages"]), (&json!({"list_directory": 1}), &json!(5)));
}

/// Sessions: the header's id, the project folder (a slug or a hash folder),
/// the working dir from `.project_root` or `projects.json`, the first
/// model, the kind as a tag, a subagent's parent from its folder.
#[test]
fn session_records_say_project_working_dir_model_and_parent() {
    let pick = |run: Run| -> Vec<Value> {
        assert_eq!(run.code, 0, "{run:?}");
        run.json()
            .iter()
            .map(|r| {
                json!([
                    r["session"],
                    r["project"],
                    r["working_dir"],
                    r["model"],
                    r["parent"],
                    r["tags"],
                    r["started_at"]
                ])
            })
            .collect()
    };
    let hash = "7432de7deef2dbfe16d96a8fafe10b19ea1b70797be1117be7bb3828c5a59249";
    assert_eq!(
        pick(ci("ci-find").args(["--sort", "id", "--root", TRAPS]).run()),
        [
            json!([
                "aaaa0001-0000-4000-8000-000000000001",
                "app",
                "/home/dev/app",
                "gemini-2.5-flash",
                null,
                ["kind:main"],
                "2026-07-01T09:00:00Z"
            ]),
            json!([
                "bbbb0002-0000-4000-8000-000000000002",
                hash,
                "/home/dev/other",
                "gemini-2.5-pro",
                null,
                ["kind:main"],
                "2026-07-02T10:00:00Z"
            ]),
            json!([
                "cccc0003-0000-4000-8000-000000000003",
                "app",
                "/home/dev/app",
                "gemini-2.5-flash",
                null,
                ["kind:main"],
                "2026-07-03T08:00:00Z"
            ]),
        ]
    );
    assert_eq!(
        pick(ci("ci-find").args(["--sort", "id", "--root", HOME]).run()),
        [
            json!([MAIN_ID, "demo", "/home/dev/demo", "gemini-2.5-pro", null, ["kind:main"], "2026-06-10T10:00:00Z"]),
            json!([
                SUB_ID,
                "demo",
                "/home/dev/demo",
                "gemini-2.5-flash",
                MAIN_ID,
                ["kind:subagent"],
                "2026-06-10T10:00:10Z"
            ]),
        ]
    );
}

/// Gemini's home as Gemini resolves it: `$GEMINI_CLI_HOME/.gemini/tmp`,
/// else `~/.gemini/tmp`; a `.gemini` or `tmp` folder, a project folder or
/// its chats folder as a root; a chat file as a PATH.
#[test]
fn default_roots_are_gemini_cli_home() {
    let ids = |run: Run| -> Vec<String> {
        assert_eq!(run.code, 0, "{run:?}");
        run.json().iter().map(|r| r["session"].as_str().unwrap().to_owned()).collect()
    };
    let both = [MAIN_ID, SUB_ID];
    let env = ci("ci-find").args(["--sort", "id"]).env("GEMINI_CLI_HOME", root().join("fixtures/gemini-cli")).run();
    assert_eq!(ids(env), both);
    let home = ci("ci-find").args(["--sort", "id"]).env("HOME", root().join("fixtures/gemini-cli")).run();
    assert_eq!(ids(home), both);
    for r in ["fixtures/gemini-cli", HOME, "fixtures/gemini-cli/.gemini/tmp", "fixtures/gemini-cli/.gemini/tmp/demo"] {
        assert_eq!(ids(ci("ci-find").args(["--sort", "id", "--root", r]).run()), both, "{r}");
    }
    let run = ci("ci-agg").args(["--tokens", "--by", "session", MAIN]).run();
    assert_eq!(counts(&run.json()[0]), (5200, 32300, 500));
}

/// A long prompt (above 200K tokens, cached ones included) is billed at
/// gemini-2.5-pro's long-context rates, output included: 200,000 × $2.50/M
/// + 100,000 × $0.25/M + 1,000 × $15/M = $0.54.
#[test]
fn a_prompt_above_200k_tokens_is_billed_at_the_long_context_rates() {
    let dir = tempfile::tempdir().unwrap();
    let chats = dir.path().join(".gemini/tmp/p/chats");
    std::fs::create_dir_all(&chats).unwrap();
    let lines = [
        r#"{"sessionId":"s","projectHash":"h","startTime":"2026-06-10T10:00:00Z","kind":"main"}"#,
        r#"{"id":"g","type":"gemini","content":"","timestamp":"2026-06-10T10:00:01Z","model":"gemini-2.5-pro","tokens":{"input":300000,"cached":100000,"output":1000,"thoughts":0,"tool":0,"total":301000}}"#,
        r#"{"id":"h","type":"gemini","content":"","timestamp":"2026-06-10T10:00:02Z","model":"gemini-2.5-pro","tokens":{"input":200000,"cached":0,"output":1000,"thoughts":0,"tool":0,"total":201000}}"#,
    ];
    std::fs::write(chats.join("session-x.jsonl"), lines.join("\n") + "\n").unwrap();
    let run = ci("ci-agg").args(["--tokens", "--by", "session"]).arg(dir.path()).run();
    assert_eq!((run.stderr.as_str(), run.code), ("", 0));
    // The second is at the threshold, not above it: 200,000 × $1.25/M + 1,000 × $10/M = $0.26.
    assert_eq!(run.json()[0]["cost_usd"], json!(0.8));
}

/// Damaged lines are reported with their file and line, the rest read; a
/// line of a later version's unknown type is an event of its own.
#[test]
fn damaged_and_unknown_lines_are_reported_or_kept() {
    let dir = tempfile::tempdir().unwrap();
    let chats = dir.path().join("tmp/p/chats");
    std::fs::create_dir_all(&chats).unwrap();
    let file = chats.join("session-y.jsonl");
    let lines = [
        r#"{"sessionId":"s","projectHash":"h","startTime":"2026-06-10T10:00:00Z"}"#,
        r#"{"id":"u","type":"user","content":"hi","timestamp":"2026-06-10T10:00:01Z"}"#,
        r#"{"id":"g","type":"gemini","content":"","timestamp":"2026-06-10T10:00:02Z","tokens":{"input":"#,
        r#"[1,2]"#,
        r#"{"id":"n","type":"notice","content":"later","timestamp":"2026-06-10T10:00:03Z"}"#,
        r#"{"id":"g","type":"gemini","content":"","timestamp":"2026-06-10T10:00:02Z","model":"gemini-2.5-flash","tokens":{"input":10,"output":1}}"#,
    ];
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let path = file.to_str().unwrap();
    let run = ci("ci-cat").arg(path).run();
    let names: Vec<Value> = run.json().iter().map(|r| r["event"].clone()).collect();
    assert_eq!(names, [json!("session:start"), json!("prompt:submit"), json!("gemini:notice"), json!("llm:response")]);
    assert!(run.stderr.contains(&format!("{path}:3: ")), "{}", run.stderr);
    assert!(run.stderr.contains(&format!("{path}:4: ")), "{}", run.stderr);
    assert_eq!(run.code, 0);
    assert_eq!(ci("ci-cat").args(["--strict", path]).run().code, 2);
}

/// `ci-cat --follow` on a recording being written (README: each message
/// printed once, its last copy, once the recording moved on): a response
/// written again with grown tokens and its finished call, its last line torn
/// for a while; a message without tokens then rewound; a prompt left last.
/// Nothing of a message is printed while it is the one being written; the
/// torn line is held back until whole; the rewound message is never
/// printed; the last prompt comes when the follow ends. The stream is the
/// finished file's `ci-cat`, byte for byte, so its tokens and calls are too.
#[test]
fn a_recording_being_written_prints_each_message_once_under_follow() {
    use crate::follow::{append, follow_command, let_polls_pass, Live};
    let (dir, path) = recording("dddd0001");
    let file = path.to_str().unwrap();
    let mut cmd = follow_command("ci-cat", &[file]);
    // Never quiet long enough to print what is held: only the recording
    // moving on, or the end, does.
    cmd.env("CI_FOLLOW_QUIET_MS", "600000");
    let mut live = Live::start(cmd, std::process::Stdio::null());
    live.wait_for_lines(1);
    append(&path, &format!("{}\n", response(10, "executing")));
    live.wait_for_lines(2);
    let last = response(40, "success");
    let (head, tail) = last.split_at(last.len() / 2);
    append(&path, head);
    let_polls_pass();
    append(&path, &format!("{tail}\n"));
    let_polls_pass();
    live.wait_until("the response held while being written", |out, _| out.len() == 2);
    // A message with no tokens and a call, then rewound: never printed.
    let dropped = json!({"id": "x-2", "timestamp": "2026-09-01T10:00:05.000Z", "type": "gemini", "content": "",
        "toolCalls": [{"id": "c-2", "name": "write_file", "args": {"file_path": "/app/x"}, "status": "cancelled"}]});
    append(&path, &format!("{dropped}\n{}\n", json!({"$rewindTo": "x-2"})));
    live.wait_for_lines(6);
    let prompt =
        json!({"id": "u-3", "timestamp": "2026-09-01T10:00:09.000Z", "type": "user", "content": [{"text": "and?"}]});
    append(&path, &format!("{prompt}\n"));
    let_polls_pass();
    let (code, out, err) = live.end();
    assert_eq!((code, err), (Some(0), vec![]));
    let names: Vec<Value> = out.iter().map(|l| serde_json::from_str::<Value>(l).unwrap()["event"].clone()).collect();
    let want = ["session:start", "prompt:submit", "llm:response", "tool:pre", "tool:post", "gemini:rewind"];
    assert_eq!(names, want.into_iter().chain(["prompt:submit"]).collect::<Vec<_>>());
    let followed: String = out.iter().map(|l| format!("{l}\n")).collect();
    let finished = ci("ci-cat").arg(file).run();
    assert_eq!((followed.as_str(), finished.stderr.as_str()), (finished.stdout.as_str(), ""));
    let tokens = ci("ci-agg").args(["--tokens"]).stdin(followed).run();
    assert_eq!(
        (tokens.json()[0]["responses"].clone(), tokens.json()[0]["output_tokens"].clone()),
        (json!(1), json!(45))
    );
    drop(dir);
}

/// A recording quiet for a while (`CI_FOLLOW_QUIET_MS`) under `--follow`:
/// the message held is printed; a copy of it written after that is printed
/// again, and `ci-agg` of the stream still counts its tokens once, as the
/// finished file's.
#[test]
fn a_quiet_recording_prints_what_it_held_and_a_later_copy_counts_once() {
    use crate::follow::{append, follow_command, Live};
    let (_dir, path) = recording("dddd0002");
    let file = path.to_str().unwrap();
    append(&path, &format!("{}\n", response(10, "executing")));
    let mut cmd = follow_command("ci-cat", &[file]);
    cmd.env("CI_FOLLOW_QUIET_MS", "300");
    let mut live = Live::start(cmd, std::process::Stdio::null());
    live.wait_until("the held response printed once quiet", |out, _| out.len() == 4);
    append(&path, &format!("{}\n", response(40, "success")));
    live.wait_until("its later copy printed once quiet", |out, _| out.len() == 7);
    let (code, out, err) = live.end();
    assert_eq!((code, err), (Some(0), vec![]));
    let followed: String = out.iter().map(|l| format!("{l}\n")).collect();
    for query in [&["--tokens"][..], &["--tokens", "--by", "session"]] {
        let piped = ci("ci-agg").args(query).stdin(followed.clone()).run();
        let finished = ci("ci-agg").args(query).arg(file).run();
        assert_eq!((&piped.stdout, piped.code), (&finished.stdout, 0), "{query:?}");
    }
}

/// A recording being written: its folder, and its file holding a header
/// and a prompt.
fn recording(id8: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(format!(".gemini/tmp/app/chats/session-2026-09-01T10-00-{id8}.jsonl"));
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let header = json!({"sessionId": format!("{id8}-0000-4000-8000-000000000001"), "projectHash": "h",
        "startTime": "2026-09-01T10:00:00.000Z", "lastUpdated": "2026-09-01T10:00:00.000Z", "kind": "main"});
    let prompt =
        json!({"id": "u-1", "timestamp": "2026-09-01T10:00:01.000Z", "type": "user", "content": [{"text": "ls"}]});
    std::fs::write(&path, format!("{header}\n{prompt}\n")).unwrap();
    (dir, path)
}

/// A copy of response `g-1` with `output` tokens, its call in `status`
/// (with a result once it is no longer executing).
fn response(output: u64, status: &str) -> String {
    let mut call = json!({"id": "c-1", "name": "list_directory", "args": {"path": "/app"}, "status": status});
    if status != "executing" {
        call["result"] =
            json!([{"functionResponse": {"id": "c-1", "name": "list_directory", "response": {"output": "a"}}}]);
    }
    json!({"id": "g-1", "timestamp": "2026-09-01T10:00:02.000Z", "type": "gemini", "content": "", "model": "gemini-2.5-flash",
        "tokens": {"input": 1000, "output": output, "cached": 200, "thoughts": 5, "tool": 0, "total": 1005 + output},
        "toolCalls": [call]})
    .to_string()
}

/// A legacy document written with its keys sorted (agentsview's fixtures'
/// shape: `messages` before `projectHash`, `sessionId` and `startTime`),
/// named as a path outside Gemini's folders, is a Gemini session: the keys
/// after its list are read (fixtures/gemini-sorted: 2 responses, 2,505 /
/// 4,000 / 75), also past a list longer than the 64 KiB read of its start,
/// whose strings hold brackets and escaped quotes.
#[test]
fn a_key_sorted_legacy_document_named_as_a_path_is_a_session() {
    let file = "fixtures/gemini-sorted/session-2026-08-01T09-00-dddd0004.json";
    let tokens = json!({"input": 2505, "output": 75, "cache_read": 4000, "cache_write": 0});
    let session = |run: &Run| {
        assert_eq!((run.stderr.as_str(), run.code), ("", 0), "{run:?}");
        let s = &run.json()[0];
        (s["session"].clone(), s["started"].clone(), s["tokens"].clone(), s["messages"].clone())
    };
    let expected = (json!("dddd0004-0000-4000-8000-000000000004"), json!("2026-08-01T09:00:00Z"), tokens, json!(4));
    assert_eq!(session(&ci("ci-agg").args(["--sessions", file]).run()), expected);
    let dir = tempfile::tempdir().unwrap();
    let long = format!("\"{}\\\"]}}[\"", "x".repeat(100 * 1024));
    let text = std::fs::read_to_string(root().join(file)).unwrap().replacen("\"Fixed.\"", &long, 1);
    assert!(text.len() > 100 * 1024 && text.find("\"messages\"") < text.find("\"sessionId\": \"dddd"));
    let path = dir.path().join("long.json");
    std::fs::write(&path, text).unwrap();
    assert_eq!(session(&ci("ci-agg").arg("--sessions").arg(&path).run()), expected);
}
