//! Qwen Code chat records: the hand-made trees (fixtures/qwen-code, the
//! shared sample with its expected totals; fixtures/qwen-fork, a session, a
//! fork of it and a sub-session) against their expected facts and ccusage
//! 20.0.24's answers for them, every tool on them, and hostile chat files.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{json, Value};

use crate::util::{ci, root, Run};

/// The shared sample tree (a Qwen runtime directory).
const QWEN: &str = "fixtures/qwen-code/.qwen";
/// A session (`…001`), its fork (`…002`) and a sub-session of it (`…003`).
const FORK: &str = "fixtures/qwen-fork/.qwen";
const CHATS: &str = "fixtures/qwen-fork/.qwen/projects/-home-dev-demo/chats";
const SAMPLE: &str =
    "fixtures/qwen-code/.qwen/projects/-home-dev-demo/chats/9e8d7c6b-5a49-4382-b1a0-f9e8d7c6b5a4.jsonl";
const UNPRICED: &str = "ci-agg: warning: no price for models \"qwen3-coder-flash\", \"qwen3-coder-plus\" in litellm 1.110.2 (built in): their cost is null and named in unpriced_models (--pricing FILE adds prices)\n";

fn id(n: u8) -> String {
    format!("aaaaaaaa-0000-4000-8000-00000000000{n}")
}

/// (input, cache read, output) of a row.
fn counts(r: &Value) -> (u64, u64, u64) {
    let n = |k: &str| r[k].as_u64().unwrap_or_else(|| panic!("no {k}: {r}"));
    (n("input_tokens"), n("cache_read_tokens"), n("output_tokens"))
}

/// (input, cache read, output) of a ccusage row.
fn cc_counts(r: &Value) -> (u64, u64, u64) {
    assert_eq!(r["cacheCreationTokens"], 0, "{r}");
    let n = |k: &str| r[k].as_u64().unwrap_or_else(|| panic!("no {k}: {r}"));
    (n("inputTokens"), n("cacheReadTokens"), n("outputTokens"))
}

fn ccusage(tree: &str, name: &str) -> Value {
    let text = std::fs::read_to_string(root().join("fixtures").join(tree).join(name)).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// `ci-agg --tokens --by day` rows: (day, model) → counts.
fn by_day(path: &str) -> BTreeMap<(String, String), (u64, u64, u64)> {
    let run = ci("ci-agg").args(["--tokens", "--by", "day", path]).run();
    assert_eq!((run.stderr.as_str(), run.code), (UNPRICED, 0), "{run:?}");
    let row = |r: &Value| ((r["day"].as_str().unwrap().to_owned(), r["model"].as_str().unwrap().to_owned()), counts(r));
    run.json().iter().map(row).collect()
}

/// formats-next §2 / SOURCE.md: the sample's three responses (one of them a
/// sidechain's) count uncached input = prompt − cached: 4,404 in, 23,040
/// cache reads, 194 out.
#[test]
fn the_sample_counts_the_expected_totals_of_source_md() {
    let run = ci("ci-agg").args(["--tokens", QWEN]).run();
    assert_eq!(
        run.stdout,
        concat!(
            r#"{"model":"qwen3-coder-plus","responses":2,"input_tokens":1404,"output_tokens":154,"cache_read_tokens":23040,"cache_write_tokens":0,"cost_usd":null,"cost_source":"unpriced","unpriced_models":["qwen3-coder-plus"]}"#,
            "\n",
            r#"{"model":"qwen3-coder-flash","responses":1,"input_tokens":3000,"output_tokens":40,"cache_read_tokens":0,"cache_write_tokens":0,"cost_usd":null,"cost_source":"unpriced","unpriced_models":["qwen3-coder-flash"]}"#,
            "\n"
        )
    );
    assert_eq!((run.stderr.as_str(), run.code), (UNPRICED, 0));
    let run = ci("ci-agg").args(["--sessions", QWEN]).run();
    let s = &run.json()[0];
    assert_eq!(s["tokens"], json!({"input": 4404, "output": 194, "cache_read": 23040, "cache_write": 0}));
    assert_eq!(s["tool_calls"], json!({"run_shell_command": 1}));
    assert_eq!((&s["tool_errors"], &s["turns"], &s["avg_response_ms"]), (&json!(1), &json!(1), &json!(4000)));
}

/// ccusage 20.0.24 (`ccusage qwen daily`, its report saved as
/// fixtures/qwen-code/ccusage-daily.json) agrees on cache reads and output,
/// and takes `promptTokenCount` whole as input although it holds the cache
/// reads it also counts: its input is ours plus the cache reads (27,444 =
/// 4,404 + 23,040).
#[test]
fn ccusage_counts_the_sample_cache_reads_twice() {
    let ours = by_day(QWEN);
    let mut theirs = BTreeMap::new();
    for d in ccusage("qwen-code", "ccusage-daily.json")["daily"].as_array().unwrap() {
        for m in d["modelBreakdowns"].as_array().unwrap() {
            let key = (d["date"].as_str().unwrap().to_owned(), m["modelName"].as_str().unwrap().to_owned());
            theirs.insert(key, cc_counts(m));
        }
    }
    assert_eq!(theirs.len(), 2);
    let doubled: BTreeMap<_, _> = ours.iter().map(|(k, &(i, c, o))| (k.clone(), (i + c, c, o))).collect();
    assert_eq!(doubled, theirs);
    let totals = ccusage("qwen-code", "ccusage-daily.json")["totals"].clone();
    assert_eq!(cc_counts(&totals), (27444, 23040, 194));
}

/// A fork (`/branch`) copies its parent's records verbatim, each with
/// `forkedFrom`: they are `copy:qwen:forked` events and count nothing in the
/// fork, so every response counts once, in the session that made it. A
/// sub-session names its parent in a `parent_session` record. Thoughts the
/// total counts apart are billed output (the parent's second response:
/// 30 + 20).
#[test]
fn forks_count_their_own_records_only_and_children_name_their_parent() {
    let run = ci("ci-agg").args(["--tokens", "--by", "session", FORK]).run();
    let rows: Vec<(String, (u64, u64, u64), u64)> = run
        .json()
        .iter()
        .map(|r| (r["session"].as_str().unwrap().to_owned(), counts(r), r["responses"].as_u64().unwrap()))
        .collect();
    assert_eq!(rows, [(id(1), (1100, 1200, 100), 2), (id(2), (500, 1500, 10), 1), (id(3), (500, 0, 5), 1)], "{run:?}");
    let run = ci("ci-find").args(["--root", FORK, "--sort", "id"]).run();
    assert_eq!(run.code, 0, "{run:?}");
    let records = run.json();
    let picked: Vec<Value> = records
        .iter()
        .map(|r| json!([r["session"], r["parent"], r["started_at"], r["last_event_at"], r["model"]]))
        .collect();
    let (plus, flash) = ("qwen3-coder-plus", "qwen3-coder-flash");
    assert_eq!(
        picked,
        [
            json!([id(1), null, "2026-06-01T09:00:00Z", "2026-06-01T09:00:10Z", plus]),
            json!([id(2), id(1), "2026-06-02T10:00:00Z", "2026-06-02T10:00:04Z", plus]),
            json!([id(3), id(1), "2026-06-02T11:00:00Z", "2026-06-02T11:00:03Z", flash]),
        ]
    );
    for r in &records {
        let same = json!([r["tags"], r["project"], r["workspace"], r["working_dir"], r["format"]]);
        assert_eq!(same, json!([["cli:0.15.0"], "-home-dev-demo", "-home-dev-demo", "/home/dev/demo", "qwen-code"]));
    }
    let run = ci("ci-agg").args(["--sessions", FORK]).run();
    let parent = run.json().into_iter().find(|s| s["session"] == id(1)).unwrap();
    assert_eq!(parent["children"], json!([id(2), id(3)]));
    assert_eq!(parent["files_edited"], json!(["/home/dev/demo/hello.txt"]));
    let fork = ci("ci-agg").args(["--sessions", &format!("{CHATS}/{}.jsonl", id(2))]).run();
    assert_eq!(fork.json()[0]["events"], json!({"llm:response": 1, "prompt:submit": 1, "copy:qwen:forked": 4}));
    assert_eq!(fork.json()[0]["tool_calls"], json!({}));
}

/// ccusage 20.0.24 on the fork tree (fixtures/qwen-fork/ccusage-*.json):
/// besides the cache reads counted twice, it counts the fork's copies
/// again (the fork's session holds the parent's two responses) and leaves
/// thoughts out of output; the sub-session, uncached and without thoughts,
/// is the one row where it agrees with us.
#[test]
fn ccusage_counts_the_fork_copies_again() {
    let theirs: BTreeMap<String, (u64, u64, u64)> = ccusage("qwen-fork", "ccusage-session.json")["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["sessionId"].as_str().unwrap().to_owned(), cc_counts(s)))
        .collect();
    // Parent: (1000 + 1300) prompt, 200 + 1000 cached, 50 + 30 candidates.
    // Fork: the parent's again plus its own 2000 / 1500 / 10.
    let expected = [(id(1), (2300, 1200, 80)), (id(2), (4300, 2700, 90)), (id(3), (500, 0, 5))];
    assert_eq!(theirs, expected.into_iter().collect());
    let ours = by_day(FORK);
    let flash = ("2026-06-02".to_owned(), "qwen3-coder-flash".to_owned());
    assert_eq!(ours[&flash], theirs[&id(3)]);
    let days: BTreeMap<String, (u64, u64, u64)> = ccusage("qwen-fork", "ccusage-daily.json")["daily"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["date"].as_str().unwrap().to_owned(), cc_counts(d)))
        .collect();
    assert_eq!(days, [("2026-06-01".into(), (4600, 2400, 160)), ("2026-06-02".into(), (2500, 1500, 15))].into());
    let plus = |day: &str| ours[&(day.to_owned(), "qwen3-coder-plus".to_owned())];
    assert_eq!((plus("2026-06-01"), plus("2026-06-02")), ((1100, 1200, 100), (500, 1500, 10)));
}

/// The event of each record, in the toolkit's vocabulary, with its part.
#[test]
fn records_are_events_in_the_toolkit_vocabulary() {
    let names = |path: &str| -> Vec<Value> {
        let run = ci("ci-cat").arg(path).run();
        assert_eq!((run.stderr.as_str(), run.code), ("", 0), "{path}");
        run.json().iter().map(|e| json!([e["event"], e["qwen"], e["ci"]["line"], e["ci"]["part"]])).collect()
    };
    assert_eq!(
        names(SAMPLE),
        [
            json!(["prompt:submit", "user", 1, 0]),
            json!(["llm:response", "assistant", 2, 0]),
            json!(["tool:pre", "assistant", 2, 2]),
            json!(["tool:error", "tool_result", 3, 0]),
            json!(["llm:response", "assistant", 4, 0]),
            json!(["qwen:ui_telemetry", "system", 5, 0]),
            json!(["llm:response", "assistant", 6, 0]),
        ]
    );
    let fork: Vec<Value> = names(&format!("{CHATS}/{}.jsonl", id(2)));
    assert_eq!(fork.iter().filter(|e| e[0] == "copy:qwen:forked").count(), 4);
    assert_eq!(fork[4..], [json!(["prompt:submit", "user", 5, 0]), json!(["llm:response", "assistant", 6, 0])]);
    // A response's data is its record with the toolkit's usage first; a
    // call's is its part.
    let run = ci("ci-cat").args(["--fields", "event,data.usage,data.functionCall.id", SAMPLE]).run();
    let second: Value = serde_json::from_str(run.lines()[1]).unwrap();
    assert_eq!(
        second["data"]["usage"],
        json!({"input_tokens": 1026, "cache_read_tokens": 11008, "output_tokens": 58, "reasoning_tokens": 0})
    );
    let third: Value = serde_json::from_str(run.lines()[2]).unwrap();
    assert_eq!(third["data"]["functionCall"]["id"], "call_01");
}

/// The tools' filters: tool names, errors, time windows.
#[test]
fn filters_and_time_windows_read_qwen_events() {
    let run = ci("ci-filter").args(["--errors", QWEN]).run();
    let e = run.json();
    assert_eq!(e.len(), 1, "{run:?}");
    assert_eq!((&e[0]["event"], &e[0]["data"]["toolCallResult"]["callId"]), (&json!("tool:error"), &json!("call_01")));
    let run = ci("ci-filter").args(["--tool", "write_file", FORK]).run();
    let names: Vec<Value> = run.json().iter().map(|e| json!([e["event"], e["ci"]["session"]])).collect();
    assert_eq!(names, [json!(["tool:pre", id(1)]), json!(["tool:post", id(1)])]);
    let run = ci("ci-agg").args(["--tokens", "--since", "2026-06-02", FORK]).run();
    let rows: Vec<_> = run.json().iter().map(|r| (r["model"].as_str().unwrap().to_owned(), counts(r))).collect();
    assert_eq!(rows, [("qwen3-coder-flash".into(), (500, 0, 5)), ("qwen3-coder-plus".into(), (500, 1500, 10))]);
    let run = ci("ci-agg").args(["--tools", FORK, QWEN]).run();
    let tools: Vec<Value> = run.json().iter().map(|r| json!([r["tool"], r["calls"], r["errors"]])).collect();
    assert_eq!(tools, [json!(["run_shell_command", 1, 1]), json!(["write_file", 1, 0])]);
}

/// `ci-find | ci-filter --event '*' | ci-agg X` answers as `ci-agg X`, with
/// or without the capture cache, on one thread or several.
#[test]
fn pipelines_give_the_answers_of_the_files() {
    for tree in [QWEN, FORK] {
        let found = ci("ci-find").args(["--root", tree]).run();
        let events = ci("ci-filter").args(["--event", "*"]).stdin(found.stdout.clone()).run();
        assert_eq!((events.stderr.as_str(), events.code), ("", 0), "{tree}");
        for args in
            [&["--tokens"][..], &["--tokens", "--by", "session"], &["--tools"], &["--sessions"], &["--by", "event"]]
        {
            let direct = ci("ci-agg").args(args).arg(tree).run();
            let piped = ci("ci-agg").args(args).stdin(events.stdout.clone()).run();
            assert_eq!((piped.stdout.as_str(), piped.code), (direct.stdout.as_str(), direct.code), "{tree} {args:?}");
            // The capture cache (the second run reads it) and threads change nothing.
            for more in [&["--no-cache", "-j1"][..], &["-j4"]] {
                let run = ci("ci-agg").args(args).args(more).arg(tree).run();
                assert_eq!(run.stdout, direct.stdout, "{tree} {args:?} {more:?}");
            }
        }
    }
}

/// Records cut by one tool are made whole by the next: a response (whose
/// data is made from its line), a call, a result.
#[test]
fn cut_records_are_made_whole_by_the_next_tool() {
    let dir = tempfile::tempdir().unwrap();
    let long = "word ".repeat(600);
    let call = json!({"uuid": "c", "sessionId": "s", "type": "assistant", "timestamp": "2026-06-01T00:00:01Z",
        "model": "m", "message": {"role": "model", "parts": [{"text": long}, {"functionCall": {"id": "k", "name": "read_file", "args": {"absolute_path": "/a", "note": long}}}]},
        "usageMetadata": {"promptTokenCount": 9, "cachedContentTokenCount": 4, "candidatesTokenCount": 2}});
    let result = json!({"uuid": "r", "sessionId": "s", "type": "tool_result", "timestamp": "2026-06-01T00:00:02Z",
        "message": {"role": "user", "parts": [{"functionResponse": {"id": "k", "name": "read_file", "response": {"output": long}}}]},
        "toolCallResult": {"callId": "k", "status": "success"}});
    let path =
        chat(dir.path(), "s.jsonl", &format!("{}\n{call}\n{result}\n{}\n", response("a", 10, 4), response("b", 5, 0)));
    let whole = ci("ci-cat").arg("--full").arg(&path).run();
    let cut = ci("ci-cat").args(["--max-bytes", "1k"]).arg(&path).run();
    assert_eq!(cut.json().iter().filter(|e| e["ci"]["cut"].is_object()).count(), 3, "{cut:?}");
    let again = ci("ci-cat").arg("--full").stdin(cut.stdout).run();
    assert_eq!((again.stdout.as_str(), again.stderr.as_str()), (whole.stdout.as_str(), ""));
    assert_eq!(whole.json().len(), 5);
}

/// ci-grep finds the decoded text of any string, with the site it was read at.
#[test]
fn grep_finds_text_with_its_provenance() {
    let run = ci("ci-grep").args(["1 failing", QWEN]).run();
    let m = &run.json()[0];
    assert_eq!(
        json!([m["event"], m["path"], m["ci"]["path"], m["ci"]["line"], m["ci"]["part"], m["ci"]["cut"]["writer"]]),
        json!(["tool:error", "data.toolCallResult.resultDisplay", SAMPLE, 3, 0, "qwen-code"])
    );
    let run = ci("ci-grep").args(["-c", "Bonjour", FORK]).run();
    assert_eq!(run.json(), [json!({"session": id(2), "path": format!("{CHATS}/{}.jsonl", id(2)), "count": 1})]);
}

/// Qwen's runtime directory as Qwen resolves it: `$QWEN_RUNTIME_DIR`, else
/// `$QWEN_HOME`, else `~/.qwen`.
#[test]
fn default_roots_are_qwen_runtime_directories() {
    let ids =
        |run: Run| -> Vec<String> { run.json().iter().map(|r| r["session"].as_str().unwrap().to_owned()).collect() };
    let home = ci("ci-find").args(["--sort", "id"]).env("HOME", root().join("fixtures/qwen-code")).run();
    assert_eq!(ids(home), ["9e8d7c6b-5a49-4382-b1a0-f9e8d7c6b5a4"]);
    let qwen_home = ci("ci-find").args(["--sort", "id"]).env("QWEN_HOME", FORK).run();
    assert_eq!(ids(qwen_home), [id(1), id(2), id(3)]);
    let both = ci("ci-find").args(["--sort", "id"]).env("QWEN_HOME", FORK).env("QWEN_RUNTIME_DIR", QWEN).run();
    assert_eq!(ids(both), ["9e8d7c6b-5a49-4382-b1a0-f9e8d7c6b5a4"]);
    // A project folder or its chats folder as a root; a chat file as a PATH.
    for path in ["fixtures/qwen-fork/.qwen/projects/-home-dev-demo", CHATS] {
        assert_eq!(ids(ci("ci-find").args(["--sort", "id", "--root", path]).run()), [id(1), id(2), id(3)]);
    }
    let run = ci("ci-agg").args(["--tokens", &format!("{CHATS}/{}.jsonl", id(2))]).run();
    assert_eq!(counts(&run.json()[0]), (500, 1500, 10));
}

// ---------------------------------------------------------------------------
// Hostile chat files

/// `<dir>/projects/-p/chats/<name>` holding `text`.
fn chat(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let folder = dir.join("projects/-p/chats");
    std::fs::create_dir_all(&folder).unwrap();
    let path = folder.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// A response record of session `s` (uuid `u`) with these token counts.
fn response(u: &str, prompt: i64, cached: i64) -> String {
    json!({"uuid": u, "sessionId": "s", "type": "assistant", "timestamp": "2026-06-01T00:00:00Z", "model": "m",
           "message": {"role": "model", "parts": [{"text": "ok"}]},
           "usageMetadata": {"promptTokenCount": prompt, "cachedContentTokenCount": cached, "candidatesTokenCount": 1}})
    .to_string()
}

/// A line nested past the parser's limit, one that is no JSON and a torn
/// last line (a record being written) are reported with their site; the
/// good records around them count.
#[test]
fn bad_and_torn_lines_are_reported_and_the_rest_counts() {
    let dir = tempfile::tempdir().unwrap();
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let text = format!(
        "{}\n{{\"type\":\"user\",\"message\":{{\"parts\":{deep}}}}}\nnot json\n{}\n{}",
        response("a", 10, 4),
        response("b", 20, 20),
        &response("c", 30, 0)[..40]
    );
    let path = chat(dir.path(), "s.jsonl", &text);
    let run = ci("ci-agg").arg("--tokens").arg(&path).run();
    assert_eq!(counts(&run.json()[0]), (6, 24, 2), "{run:?}");
    let p = path.display();
    let byte = r#"{"type":"user","message":{"parts":"#.len() + 125;
    assert_eq!(
        run.stderr,
        format!(
            "{p}:2: JSON nested deeper than 127 levels at byte {byte}\n\
             {p}:3: invalid JSON at byte 0: expected a value\n\
             ci-agg: warning: no price for model \"m\" in litellm 1.110.2 (built in): their cost is null and named in unpriced_models (--pricing FILE adds prices)\n\
             ci-agg: 2 bad lines skipped, 1 unfinished last line held back (capture still being written?) (--strict makes bad lines an error)\n"
        )
    );
    assert_eq!(run.code, 0, "{run:?}");
}

/// Counters that are no whole numbers count nothing; a cache larger than
/// the prompt never makes the input negative; a usage key the line spells
/// itself is not ours.
#[test]
fn odd_usage_counts_nothing_and_never_underflows() {
    let dir = tempfile::tempdir().unwrap();
    let odd = json!({"uuid": "x", "sessionId": "s", "type": "assistant", "timestamp": "2026-06-01T00:00:00Z",
        "model": "m", "usage": {"input_tokens": 1000000},
        "usageMetadata": {"promptTokenCount": -5, "cachedContentTokenCount": 1e300, "candidatesTokenCount": "7"}});
    let path = chat(dir.path(), "s.jsonl", &format!("{}\n{odd}\n", response("a", 10, 50)));
    let run = ci("ci-agg").args(["--tokens"]).arg(&path).run();
    assert_eq!(counts(&run.json()[0]), (0, 10, 1), "{run:?}");
    assert_eq!(run.json()[0]["responses"], 2);
}

// ---------------------------------------------------------------------------
// A session being written

/// The lines `cmd` prints, collected as they come.
fn live(mut cmd: std::process::Command) -> (std::process::Child, std::sync::Arc<std::sync::Mutex<Vec<String>>>) {
    use std::io::BufRead;
    let mut child = cmd.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::null()).spawn().unwrap();
    let lines = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let (out, kept) = (child.stdout.take().unwrap(), lines.clone());
    std::thread::spawn(move || {
        for l in std::io::BufReader::new(out).lines().map_while(Result::ok) {
            kept.lock().unwrap().push(l);
        }
    });
    (child, lines)
}

/// Waits (at most 10 s) until `n` lines were printed; then lets two polls
/// of the follower pass, and returns what was printed.
fn printed(lines: &std::sync::Mutex<Vec<String>>, n: usize) -> Vec<String> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while lines.lock().unwrap().len() < n && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(400));
    lines.lock().unwrap().clone()
}

/// Ends a follower with SIGTERM: its exit code.
fn stop(mut child: std::process::Child) -> Option<i32> {
    std::process::Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    crate::util::exits_within(&mut child, "a follower after SIGTERM")
}

/// Under `--follow`, a response written in two pieces (a torn last line)
/// is printed once, whole, when its line ends, with its usage; a session
/// file that appears is a new session.
#[test]
fn a_session_being_written_is_followed_record_by_record() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let path = chat(dir.path(), "s.jsonl", &format!("{}\n", response("a", 10, 4)));
    let (cat, lines) = live({
        let mut c = crate::util::ci_command("ci-cat");
        c.args(["-f", "--fields", "event,data.usage.input_tokens"]).arg(&path);
        c
    });
    assert_eq!(printed(&lines, 1).len(), 1);
    let line = response("b", 30, 10);
    let mut f = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
    f.write_all(&line.as_bytes()[..50]).unwrap();
    assert_eq!(printed(&lines, 2).len(), 1, "a torn line is held back");
    f.write_all(format!("{}\n", &line[50..]).as_bytes()).unwrap();
    let got = printed(&lines, 2);
    assert_eq!(stop(cat), Some(0));
    let got: Vec<Value> = got.iter().map(|l| serde_json::from_str(l).unwrap()).collect();
    let usage: Vec<Value> = got.iter().map(|e| json!([e["event"], e["data"]["usage"]["input_tokens"]])).collect();
    assert_eq!(usage, [json!(["llm:response", 6]), json!(["llm:response", 20])]);

    let root = dir.path().to_str().unwrap();
    let (find, found) = live({
        let mut c = crate::util::ci_command("ci-find");
        c.args(["--follow", "--root", root]);
        c
    });
    assert_eq!(printed(&found, 1).len(), 1);
    chat(dir.path(), "t.jsonl", &format!("{}\n", response("c", 5, 0)));
    let got = printed(&found, 2);
    assert_eq!(stop(find), Some(0));
    let ids: Vec<Value> = got.iter().map(|l| serde_json::from_str::<Value>(l).unwrap()["session"].clone()).collect();
    assert_eq!(ids, [json!("s"), json!("t")]);
}

// ---------------------------------------------------------------------------
// Generated trees

/// 120 generated sessions (forks copying earlier sessions, sub-sessions,
/// sidechains, thoughts in and out of the candidates, failed calls): every
/// session's tokens and responses, every tool's calls and errors and every
/// parent are what the generator wrote, whatever the threads.
#[test]
fn generated_trees_count_each_response_and_call_once() {
    let dir = tempfile::tempdir().unwrap();
    let expected = crate::qwengen::generate(dir.path(), 7, 120);
    assert!(expected.parents.len() > 30, "forks and sub-sessions: {}", expected.parents.len());
    let root = dir.path().to_str().unwrap();
    for threads in ["-j1", "-j3"] {
        let run = ci("ci-agg").args(["--tokens", "--by", "session", threads, root]).run();
        let ours: BTreeMap<String, (u64, crate::codexgen::Tokens)> = run
            .json()
            .iter()
            .map(|r| {
                let (input, cache_read, output) = counts(r);
                let t = crate::codexgen::Tokens { input, cache_read, output };
                (r["session"].as_str().unwrap().to_owned(), (r["responses"].as_u64().unwrap(), t))
            })
            .collect();
        assert_eq!(ours, expected.by_session, "{threads}");
        let run = ci("ci-agg").args(["--tools", threads, root]).run();
        let tools: BTreeMap<String, (u64, u64)> = run
            .json()
            .iter()
            .map(|r| {
                (r["tool"].as_str().unwrap().to_owned(), (r["calls"].as_u64().unwrap(), r["errors"].as_u64().unwrap()))
            })
            .collect();
        assert_eq!(tools, expected.tools, "{threads}");
    }
    let run = ci("ci-find").args(["--root", root]).run();
    let parents: BTreeMap<String, String> = run
        .json()
        .iter()
        .filter_map(|r| Some((r["session"].as_str()?.to_owned(), r["parent"].as_str()?.to_owned())))
        .collect();
    assert_eq!(parents, expected.parents);
}

/// The re-read of a cut record whose data its writer makes is the writer's
/// rule, not Qwen's: a Codex token count cut (its made data holds the
/// `info` object) is made again from the lines before it.
#[test]
fn a_cut_codex_response_is_made_whole_too() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("sessions/2026/05/01");
    std::fs::create_dir_all(&folder).unwrap();
    let path = folder.join("rollout-2026-05-01T10-00-00-0196a1b2-0000-7000-8000-000000000001.jsonl");
    let usage =
        |n: u64| json!({"input_tokens": n, "cached_input_tokens": 0, "output_tokens": 1, "total_tokens": n + 1});
    let lines = [
        json!({"timestamp": "2026-05-01T10:00:00Z", "type": "session_meta", "payload": {"id": "c1", "cwd": "/w"}}),
        json!({"timestamp": "2026-05-01T10:00:01Z", "type": "turn_context", "payload": {"model": "gpt-5"}}),
        json!({"timestamp": "2026-05-01T10:00:02Z", "type": "event_msg", "payload": {"type": "token_count",
            "info": {"total_token_usage": usage(10), "last_token_usage": usage(10), "note": "n".repeat(3000)}}}),
    ];
    std::fs::write(&path, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    let whole = ci("ci-cat").arg("--full").arg(&path).run();
    let cut = ci("ci-cat").args(["--max-bytes", "1k"]).arg(&path).run();
    assert_eq!(cut.json()[2]["event"], "llm:response");
    assert!(cut.json()[2]["ci"]["cut"].is_object(), "{cut:?}");
    let again = ci("ci-cat").arg("--full").stdin(cut.stdout).run();
    assert_eq!((again.stdout.as_str(), again.stderr.as_str()), (whole.stdout.as_str(), ""));
}
