//! Codex CLI rollouts: the committed real files (fixtures/codex, a
//! `CODEX_HOME`) against ccusage 20.0.24's answers for them, and generated
//! trees (tests/codexgen.rs) against their expected facts.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::codexgen::{generate, Expected, Tokens};
use crate::util::{ci, root};

const FIXTURE: &str = "fixtures/codex";

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

/// Our `--tokens --by day` rows: (day, model) → (responses, tokens).
fn ours_by_day(stdout: &str) -> BTreeMap<(String, String), (u64, Tokens)> {
    let mut out = BTreeMap::new();
    for l in stdout.lines() {
        let r: Value = serde_json::from_str(l).unwrap();
        assert_eq!(r["cache_write_tokens"], 0, "Codex writes no cache: {l}");
        let key = (r["day"].as_str().unwrap().to_owned(), r["model"].as_str().unwrap().to_owned());
        let t = Tokens {
            input: u(&r["input_tokens"]),
            cache_read: u(&r["cache_read_tokens"]),
            output: u(&r["output_tokens"]),
        };
        assert!(out.insert(key, (u(&r["responses"]), t)).is_none(), "one row per day and model: {l}");
    }
    out
}

/// `ci-agg --tokens --by session ROOT`: session → tokens over its models.
fn ours_by_session(root: &str) -> BTreeMap<String, Tokens> {
    let run = ci("ci-agg").args(["--tokens", "--by", "session", root]).run();
    assert_eq!(run.code, 0, "{run:?}");
    let mut ours: BTreeMap<String, Tokens> = BTreeMap::new();
    for l in run.stdout.lines() {
        let r: Value = serde_json::from_str(l).unwrap();
        let t = ours.entry(r["session"].as_str().unwrap().to_owned()).or_default();
        t.input += u(&r["input_tokens"]);
        t.cache_read += u(&r["cache_read_tokens"]);
        t.output += u(&r["output_tokens"]);
    }
    ours
}

fn ccusage(name: &str) -> Value {
    let text = std::fs::read_to_string(root().join(FIXTURE).join("ccusage").join(name)).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn cc_tokens(m: &Value) -> Tokens {
    assert_eq!(m["cacheCreationTokens"], 0);
    Tokens { input: u(&m["inputTokens"]), cache_read: u(&m["cacheReadTokens"]), output: u(&m["outputTokens"]) }
}

#[test]
fn fixture_tokens_by_day_equal_ccusage_codex_daily() {
    let run = ci("ci-agg").args(["--tokens", "--by", "day", FIXTURE]).run();
    assert_eq!(run.code, 0, "{run:?}");
    // The one-line session_meta file has no final newline, but its line is whole.
    assert_eq!(run.stderr, "");
    let ours: BTreeMap<_, Tokens> = ours_by_day(&run.stdout).into_iter().map(|(k, (_, t))| (k, t)).collect();
    let mut theirs = BTreeMap::new();
    for d in ccusage("daily.json")["daily"].as_array().unwrap() {
        for (model, m) in d["models"].as_object().unwrap() {
            theirs.insert((d["date"].as_str().unwrap().to_owned(), model.clone()), cc_tokens(m));
        }
    }
    assert_eq!(theirs.len(), 3);
    assert_eq!(ours, theirs);
}

#[test]
fn fixture_session_tokens_equal_ccusage_codex_session() {
    let ours = ours_by_session(FIXTURE);
    // ccusage names a session by its path under sessions/; ours by its id
    // (session_meta.payload.id, else the file name's).
    let mut theirs = BTreeMap::new();
    for s in ccusage("session.json")["sessions"].as_array().unwrap() {
        let file = s["sessionFile"].as_str().unwrap();
        let id = if file.len() > 36 && file.as_bytes()[file.len() - 36..].iter().filter(|&&b| b == b'-').count() == 4 {
            file[file.len() - 36..].to_owned()
        } else {
            file.to_owned()
        };
        let mut t = Tokens::default();
        for m in s["models"].as_object().unwrap().values() {
            let x = cc_tokens(m);
            t.input += x.input;
            t.cache_read += x.cache_read;
            t.output += x.output;
        }
        theirs.insert(id, t);
    }
    assert_eq!(ours, theirs);
}

#[test]
fn fixture_sessions_are_found_once_with_their_records() {
    let run = ci("ci-find").args(["--root", FIXTURE]).run();
    assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{run:?}");
    let recs = run.json();
    let ids: Vec<&str> = recs.iter().map(|r| r["session"].as_str().unwrap()).collect();
    // Newest first; the archived copy of 019e9625… is not listed again.
    assert_eq!(
        ids,
        [
            "019e9625-802f-7e91-840a-cfe88d14117a",
            "rollout-2026-05-13T09-00-00-alpha",
            "019ab22c-95af-7160-b11d-8f552d0ce721"
        ]
    );
    let r = &recs[0];
    assert_eq!(r["format"], "codex");
    assert!(r["path"].as_str().unwrap().contains("/sessions/2026/06/05/"), "{r}");
    assert_eq!(r["model"], "gpt-5.5");
    assert_eq!(r["working_dir"], "/tmp/agent-history-real-agent/codex/workspace");
    assert_eq!(r["project"], "-tmp-agent-history-real-agent-codex-workspace");
    assert_eq!(r["started_at"], "2026-06-05T04:58:20.593Z");
    assert_eq!(r["last_event_at"], "2026-06-05T04:58:26.713Z");
    assert_eq!(r["tags"], serde_json::json!(["cli:0.135.0", "originator:codex_exec", "source:exec"]));
    let meta_only = &recs[2];
    assert_eq!(meta_only["working_dir"], "/home/user/projects/temp/codex-session-view");
    assert_eq!(meta_only["model"], Value::Null);
    // --project takes the working directory too.
    let p = ci("ci-find").args(["--root", FIXTURE, "--project", "/tmp/agent-history-real-agent/codex/workspace"]).run();
    assert_eq!(p.json().len(), 1, "{p:?}");
}

#[test]
fn fixture_events_are_named_and_pipe_to_the_same_answers() {
    let cat = ci("ci-cat").arg(format!("{FIXTURE}/sessions/2026/06/05")).run();
    assert_eq!(cat.code, 0, "{cat:?}");
    let names: Vec<String> = cat.json().iter().map(|e| e["event"].as_str().unwrap().to_owned()).collect();
    assert_eq!(
        names,
        [
            "session:start",
            "codex:task_started",
            "codex:message",
            "codex:message",
            "codex:turn_context",
            "codex:message",
            "prompt:submit",
            "codex:agent_message",
            "codex:message",
            "llm:response",
            "prompt:complete"
        ]
    );
    let resp = &cat.json()[9];
    assert_eq!(resp["codex"], "event_msg");
    assert_eq!(resp["data"]["model"], "gpt-5.5");
    assert_eq!(
        resp["data"]["usage"],
        serde_json::json!({"input_tokens": 1675, "cache_read_tokens": 20864, "output_tokens": 10,
                           "reasoning_output_tokens": 0, "total_tokens": 22549})
    );
    for args in [&["--tokens", "--by", "day"][..], &["--sessions"], &["--by", "event"]] {
        let direct = ci("ci-agg").args(args).arg(FIXTURE).run();
        let all = ci("ci-cat").arg(FIXTURE).run();
        let piped = ci("ci-agg").args(args).stdin(all.stdout).run();
        assert_eq!((piped.code, &piped.stdout), (direct.code, &direct.stdout), "{args:?}");
    }
}

fn generated(sessions: usize, seed: u64) -> (tempfile::TempDir, Expected) {
    let dir = tempfile::tempdir().unwrap();
    let exp = generate(dir.path(), sessions, seed);
    (dir, exp)
}

fn path_of(dir: &tempfile::TempDir) -> String {
    dir.path().to_str().unwrap().to_owned()
}

/// The `path:line` sites of the bad-line reports, sorted.
fn bad_sites(stderr: &str) -> Vec<(String, u64)> {
    let mut sites: Vec<(String, u64)> = stderr
        .lines()
        .filter(|l| l.contains(": bad line") || l.contains("JSON") || l.contains("expected"))
        .filter_map(|l| {
            let mut it = l.splitn(3, ':');
            let (p, n) = (it.next()?, it.next()?);
            Some((p.to_owned(), n.trim().parse().ok()?))
        })
        .collect();
    sites.sort();
    sites
}

const CASES: [(usize, u64); 3] = [(5, 1), (9, 7), (12, 42)];

#[test]
fn generated_tokens_by_day_and_session_are_the_generators() {
    for (n, seed) in CASES {
        let (dir, exp) = generated(n, seed);
        let run = ci("ci-agg").args(["--tokens", "--by", "day", &path_of(&dir)]).run();
        assert_eq!(run.code, 0, "{run:?}");
        assert_eq!(ours_by_day(&run.stdout), exp.by_day_model, "generate({n}, {seed})");
        let mut want: Vec<(String, u64)> =
            exp.damaged.iter().map(|(p, l)| (p.to_string_lossy().into_owned(), *l)).collect();
        want.sort();
        assert_eq!(bad_sites(&run.stderr), want, "generate({n}, {seed}): {}", run.stderr);
        assert!(!want.is_empty() && exp.torn > 0, "generate({n}, {seed}) has no damage to test");

        assert_eq!(ours_by_session(&path_of(&dir)), exp.by_session, "generate({n}, {seed}) by session");

        // From ci-find's records, on one thread and three, and through ci-cat.
        let records = ci("ci-find").args(["--root", &path_of(&dir)]).run();
        assert_eq!(records.json().len(), n, "one record per session (the archived copy is not one)");
        for j in ["-j1", "-j3"] {
            let other = ci("ci-agg").args(["--tokens", "--by", "day", j]).stdin(records.stdout.clone()).run();
            assert_eq!(other.stdout, run.stdout, "generate({n}, {seed}) {j}");
        }
        let cat = ci("ci-cat").stdin(records.stdout.clone()).run();
        let piped = ci("ci-agg").args(["--tokens", "--by", "day"]).stdin(cat.stdout).run();
        assert_eq!(piped.stdout, run.stdout, "generate({n}, {seed}) via ci-cat");
    }
}

#[test]
fn generated_tool_calls_are_the_generators() {
    for (n, seed) in CASES {
        let (dir, exp) = generated(n, seed);
        let run = ci("ci-agg").args(["--tools", &path_of(&dir)]).run();
        assert_eq!(run.code, 0, "{run:?}");
        let ours: BTreeMap<String, (u64, u64)> = run
            .json()
            .iter()
            .map(|r| {
                assert_eq!(r["unfinished"], 0, "{r}");
                (r["tool"].as_str().unwrap().to_owned(), (u(&r["calls"]), u(&r["errors"])))
            })
            .collect();
        assert_eq!(ours, exp.tools, "generate({n}, {seed})");
    }
}

#[test]
fn generated_search_finds_a_call_argument_and_skipped_lines_keep_the_totals() {
    let (dir, exp) = generated(9, 7);
    let run = ci("ci-grep").args(["-F", &exp.marker, &path_of(&dir)]).run();
    assert_eq!(run.code, 0, "{run:?}");
    let hits = run.json();
    assert_eq!(hits.len(), 1, "{run:?}");
    assert_eq!(hits[0]["event"], "tool:pre");
    assert_eq!(hits[0]["path"], "data.arguments");
    assert_eq!(
        (hits[0]["session"].as_str().unwrap(), hits[0]["line"].as_u64().unwrap()),
        (exp.marker_at.0.as_str(), exp.marker_at.1)
    );

    // Responses filtered, searched or cut by line range carry the usage a
    // whole read gives them (the lines a tool skips are still observed).
    let all = ci("ci-cat").arg(path_of(&dir)).run();
    let responses = |stdout: &str| -> Vec<Value> {
        stdout
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .filter(|e| e["event"] == "llm:response")
            .map(|e| serde_json::json!([e["ci"]["path"], e["ci"]["line"], e["data"]["usage"], e["data"]["model"]]))
            .collect()
    };
    let whole = responses(&all.stdout);
    assert!(whole.len() > 10);
    let filtered = ci("ci-filter").args(["--event", "llm:response", &path_of(&dir)]).run();
    assert_eq!(responses(&filtered.stdout), whole);
    for w in &whole {
        let (file, line) = (w[0].as_str().unwrap(), w[1].as_u64().unwrap());
        let one = ci("ci-cat").args(["--lines", &line.to_string(), file]).run();
        assert_eq!(responses(&one.stdout), std::slice::from_ref(w), "ci-cat --lines {line} {file}");
    }
    let grep = ci("ci-grep").args(["--keys", "-F", "total_tokens", "--event", "llm:response", &path_of(&dir)]).run();
    let mut found: Vec<Value> = vec![];
    for h in grep.json() {
        found.push(serde_json::json!([h["ci"]["path"], h["ci"]["line"]]));
    }
    found.dedup();
    let want: Vec<Value> = whole.iter().map(|w| serde_json::json!([w[0], w[1]])).collect();
    assert_eq!(found, want, "every response's made data holds the key");
}

/// A parent (2 responses on 06-01) and a fork of it (fixtures/codex-fork):
/// the fork replays the parent's history, restamped at its start, then
/// makes 1 response of its own on 06-02.
const FORK: &str = "fixtures/codex-fork";
const PARENT_ID: &str = "019e8000-0000-7000-8000-00000000000a";
const FORK_ID: &str = "019e8000-0000-7000-8000-00000000000b";

#[test]
fn fork_counts_only_its_own_responses_cold_warm_and_uncached() {
    let (mut answers, pipe) = (vec![], ci("ci-cat").arg(FORK).run());
    for cache in [None, None, Some("--no-cache")] {
        let run = ci("ci-agg").args(["--tokens", "--by", "day"]).args(cache).arg(FORK).run();
        assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{run:?}");
        let days: Vec<(String, u64, u64, u64)> = run
            .json()
            .iter()
            .map(|r| {
                (
                    r["day"].as_str().unwrap().to_owned(),
                    u(&r["responses"]),
                    u(&r["input_tokens"]),
                    u(&r["output_tokens"]),
                )
            })
            .collect();
        assert_eq!(days, [("2026-06-01".into(), 2, 2500, 250), ("2026-06-02".into(), 1, 500, 100)], "{cache:?}");
        answers.push(run.stdout);
        let sessions = ci("ci-agg").arg("--sessions").args(cache).arg(FORK).run();
        let fork = sessions.json().into_iter().find(|s| s["session"] == FORK_ID).expect("the fork's session");
        assert_eq!(fork["parent"], PARENT_ID);
        assert_eq!(fork["tokens"], serde_json::json!({"input": 500, "output": 100, "cache_read": 0, "cache_write": 0}));
        assert_eq!(fork["events"]["llm:response"], 1, "{fork}");
    }
    assert_eq!(answers[0], answers[1]);
    let piped = ci("ci-agg").args(["--tokens", "--by", "day"]).stdin(pipe.stdout).run();
    assert_eq!(piped.stdout, answers[0]);
}

/// Issue 38: a fork's `--sessions` record counts none of what it copied from
/// its parent (prompts, turns, tools, the parent's start), as `--tokens`
/// counts none of its tokens: cold, warm, uncached and through a pipe. The
/// copied lines are printed, named `copy:` and the name they would have.
#[test]
fn fork_sessions_record_counts_only_its_own_lines() {
    let tree = crate::kit::Tree::new();
    let fork = std::fs::read_to_string(format!(
        "{FORK}/sessions/2026/06/02/rollout-2026-06-02T09-00-00-019e8000-0000-7000-8000-00000000000b.jsonl"
    ))
    .unwrap();
    // The copy also holds a parent's tool call and its failed output.
    let call = r#"{"timestamp":"2026-06-02T09:00:00.012Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{}","call_id":"c1"}}"#;
    let out = r#"{"timestamp":"2026-06-02T09:00:00.012Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"Exit code: 1"}}"#;
    let mut lines: Vec<&str> = fork.lines().collect();
    lines.splice(4..4, [call, out]);
    let text = lines.join("\n") + "\n";
    tree.rollout("sessions", "rollout-2026-06-02T09-00-00-019e8000-0000-7000-8000-00000000000b.jsonl", &text);
    let dir = tree.path().to_str().unwrap().to_owned();

    let cat = ci("ci-cat").arg(&dir).run();
    assert_eq!((cat.code, cat.stderr.as_str()), (0, ""));
    let names: Vec<String> = cat.json().iter().map(|r| r["event"].as_str().unwrap().to_owned()).collect();
    let copies = [
        "copy:session:start",
        "copy:codex:turn_context",
        "copy:prompt:submit",
        "copy:tool:pre",
        "copy:tool:error",
        "copy:codex:token_count",
        "copy:prompt:submit",
        "copy:codex:token_count",
    ];
    let own = ["codex:turn_context", "prompt:submit", "llm:response"];
    let want: Vec<&str> = ["session:start"].into_iter().chain(copies).chain(own).collect();
    assert_eq!(names, want);

    let mut answers = vec![];
    for cache in [None, None, Some("--no-cache")] {
        let run = ci("ci-agg").arg("--sessions").args(cache).arg(&dir).run();
        assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{run:?}");
        let rec = &run.json()[0];
        let pick = |k: &str| rec[k].clone();
        assert_eq!(
            ["started", "last_event", "duration_ms", "turns", "messages", "tool_calls", "tool_errors"].map(pick),
            [
                Value::from("2026-06-02T09:00:00Z"),
                Value::from("2026-06-02T09:05:06Z"),
                Value::from(306000),
                Value::from(1),
                Value::from(1),
                serde_json::json!({}),
                Value::from(0),
            ],
            "{cache:?}: {rec}"
        );
        assert_eq!(rec["tokens"], serde_json::json!({"input": 500, "output": 100, "cache_read": 0, "cache_write": 0}));
        assert_eq!(rec["events"]["copy:prompt:submit"], 2, "{rec}");
        answers.push(run.stdout);
    }
    assert_eq!(answers[0], answers[1]);
    assert_eq!(answers[0], answers[2]);
    let piped = ci("ci-agg").arg("--sessions").stdin(cat.stdout).run();
    assert_eq!(piped.stdout, answers[0]);
    let tools = ci("ci-agg").args(["--tools", &dir]).run();
    assert_eq!((tools.stdout.as_str(), tools.code), ("", 1), "{tools:?}");
}

#[test]
fn fork_record_names_its_parent_and_its_own_start() {
    let run = ci("ci-find").args(["--root", FORK]).run();
    assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{run:?}");
    let recs = run.json();
    let fork = recs.iter().find(|r| r["session"] == FORK_ID).expect("the fork's record");
    assert_eq!((&fork["parent"], &fork["started_at"]), (&Value::from(PARENT_ID), &Value::from("2026-06-02T09:00:00Z")));
    let parent = recs.iter().find(|r| r["session"] == PARENT_ID).expect("the parent's record");
    assert_eq!((&parent["parent"], &parent["started_at"]), (&Value::Null, &Value::from("2026-06-01T10:00:00Z")));
}

/// A `function_call_output` names no tool: its `tool:post`/`tool:error` is
/// the tool of the `function_call` with its `call_id`, from the rollout and
/// through a pipe alike (`ci-cat | ci-filter --errors | ci-agg --by tool`).
#[test]
fn generated_failed_calls_name_their_tools() {
    for (n, seed) in CASES {
        let (dir, exp) = generated(n, seed);
        let got: BTreeMap<String, u64> = crate::util::errors_by_tool(&path_of(&dir))
            .into_iter()
            .map(|(tool, events)| {
                assert_eq!(events.iter().map(|e| e.0.as_str()).collect::<Vec<_>>(), ["tool:error"], "{tool:?}");
                (tool.expect("a failed call names its tool"), events[0].1)
            })
            .collect();
        let want: BTreeMap<String, u64> =
            exp.tools.iter().filter(|(_, c)| c.1 > 0).map(|(t, c)| (t.clone(), c.1)).collect();
        assert!(!want.is_empty(), "generate({n}, {seed}) has no failed call");
        assert_eq!(got, want, "generate({n}, {seed})");
    }
}
