//! GitHub Copilot CLI event logs: the hand-made tree (fixtures/copilot-cli:
//! the shared sample with its expected totals, a session whose counters a
//! compaction reset, an older build's flat log with two models) against its
//! expected facts and ccusage 20.0.24's answers for it, every tool on it,
//! and hostile logs.

use std::path::Path;

use serde_json::{json, Value};

use crate::util::{ci, root, Run};
use crate::writers_hostile::run_within;

/// The tree (a Copilot home).
const HOME: &str = "fixtures/copilot-cli/.copilot";
/// The shared sample: one session, two legs.
const SAMPLE: &str = "fixtures/copilot-cli/.copilot/session-state/5d0f3c2a-7b41-4e8e-9a6c-2f1e0d9c8b7a";
/// Two legs with a compaction between them, which resets the counters.
const RESET: &str = "fixtures/copilot-cli/.copilot/session-state/c0ffee00-0000-4000-8000-00000000000b";
/// An older build's `session-state/<id>.jsonl`, one shutdown naming two models.
const FLAT: &str = "fixtures/copilot-cli/.copilot/session-state/0a1b2c3d-0000-4000-8000-00000000000c.jsonl";

/// (fresh input, cache read, cache write, output) of a row.
fn counts(r: &Value) -> [u64; 4] {
    let n = |k: &str| r[k].as_u64().unwrap_or_else(|| panic!("no {k}: {r}"));
    [n("input_tokens"), n("cache_read_tokens"), n("cache_write_tokens"), n("output_tokens")]
}

/// The same of a ccusage row.
fn cc_counts(r: &Value) -> [u64; 4] {
    let n = |k: &str| r[k].as_u64().unwrap_or_else(|| panic!("no {k}: {r}"));
    [n("inputTokens"), n("cacheReadTokens"), n("cacheCreationTokens"), n("outputTokens")]
}

/// `ci-agg --tokens --by day` (with `more`) rows of `path`: day, model, counts, cost.
fn by_day(path: &str, more: &[&str]) -> Vec<(String, String, [u64; 4], f64)> {
    let run = ci("ci-agg").args(["--tokens", "--by", "day"]).args(more).arg(path).run();
    assert_eq!((run.stderr.as_str(), run.code), ("", 0), "{run:?}");
    let s = |r: &Value, k: &str| r[k].as_str().unwrap().to_owned();
    run.json().iter().map(|r| (s(r, "day"), s(r, "model"), counts(r), r["cost_usd"].as_f64().unwrap())).collect()
}

/// SOURCE.md's expected totals for the sample (the delta rule): 4,000 fresh
/// input, 44,000 cache reads, 4,000 cache writes, 700 output, and the
/// recorded cost 2.9e9 nano AI units = $0.029, the writer's.
#[test]
fn the_sample_counts_the_expected_totals_of_source_md() {
    let run = ci("ci-agg").args(["--tokens", SAMPLE]).run();
    assert_eq!(
        run.stdout,
        concat!(
            r#"{"model":"claude-sonnet-4.6","responses":2,"input_tokens":4000,"output_tokens":700,"cache_read_tokens":44000,"cache_write_tokens":4000,"cost_usd":0.029,"cost_source":"writer","unpriced_models":[]}"#,
            "\n"
        )
    );
    assert_eq!((run.stderr.as_str(), run.code), ("", 0));
    // Per leg, dated at its shutdown: leg 1 whole, leg 2 its growth.
    assert_eq!(
        by_day(SAMPLE, &[]),
        [
            ("2026-06-18".into(), "claude-sonnet-4.6".into(), [2000, 15000, 3000, 300], 0.012),
            ("2026-06-19".into(), "claude-sonnet-4.6".into(), [2000, 29000, 1000, 400], 0.017),
        ]
    );
    let run = ci("ci-agg").args(["--sessions", SAMPLE]).run();
    let s = &run.json()[0];
    assert_eq!(s["tokens"], json!({"input": 4000, "output": 700, "cache_read": 44000, "cache_write": 4000}));
    assert_eq!(
        json!([s["tool_calls"], s["tool_errors"], s["turns"], s["messages"], s["models"]]),
        json!([{"bash": 1}, 1, 2, 4, ["claude-sonnet-4.6"]])
    );
}

/// ccusage 20.0.24 (`ccusage copilot daily`, its report on the tree saved as
/// fixtures/copilot-cli/ccusage-daily.json) agrees on every leg it reads and,
/// priced from the tokens (`--cost computed`), on the cost. It differs in
/// two places: after the compaction reset its leg counts nothing (it
/// subtracts the previous, larger counters, saturating at 0), and it does
/// not read an older build's flat `session-state/<id>.jsonl`.
#[test]
fn ccusage_agrees_except_after_a_reset_and_on_flat_logs() {
    let text = std::fs::read_to_string(root().join("fixtures/copilot-cli/ccusage-daily.json")).unwrap();
    let cc: Value = serde_json::from_str(&text).unwrap();
    let theirs: Vec<(String, String, [u64; 4], f64)> = cc["daily"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let m = &d["modelBreakdowns"][0];
            let model = m["modelName"].as_str().unwrap().to_owned();
            (d["date"].as_str().unwrap().to_owned(), model, cc_counts(d), m["cost"].as_f64().unwrap())
        })
        .collect();
    let ours = by_day(HOME, &["--cost", "computed"]);
    let same_day = |day: &str| ours.iter().find(|r| r.0 == day).cloned();
    for (day, model, c, cost) in &theirs {
        let r = same_day(day).unwrap_or_else(|| panic!("no {day}"));
        assert_eq!((&r.1, &r.2), (model, c), "{day}");
        assert!((r.3 - cost).abs() < 1e-9, "{day}: {} vs {cost}", r.3);
    }
    let days: Vec<&str> = theirs.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(days, ["2026-06-18", "2026-06-19", "2026-06-20"]);
    // What ccusage leaves out: the leg after the reset, the flat log's day.
    let missing: Vec<_> = ours.iter().filter(|r| !days.contains(&r.0.as_str())).map(|r| (&r.0, &r.1, r.2)).collect();
    assert_eq!(
        missing,
        [
            (&"2026-06-21".to_owned(), &"gpt-5.4".to_owned(), [3000, 5000, 0, 500]),
            (&"2026-06-22".to_owned(), &"claude-sonnet-4.6".to_owned(), [2000, 6000, 1000, 250]),
            (&"2026-06-22".to_owned(), &"gpt-5-mini".to_owned(), [1000, 3000, 0, 150]),
        ]
    );
}

/// A compaction resets the counters: the shutdown after it (input 8,000
/// after 30,000) starts a new base and counts whole, and its response says so.
#[test]
fn a_compaction_reset_starts_a_new_base() {
    assert_eq!(
        by_day(RESET, &[]),
        [
            ("2026-06-20".into(), "gpt-5.4".into(), [10000, 20000, 0, 900], 0.008),
            ("2026-06-21".into(), "gpt-5.4".into(), [3000, 5000, 0, 500], 0.003),
        ]
    );
    let run = ci("ci-filter").args(["--event", "llm:response", RESET]).run();
    let legs: Vec<Value> =
        run.json().iter().map(|e| json!([e["data"]["counters_reset"], e["data"]["usage"]])).collect();
    assert_eq!(
        legs,
        [
            json!([false, {"input_tokens": 10000, "cache_read_tokens": 20000, "cache_write_tokens": 0, "output_tokens": 900, "reasoning_tokens": 200, "cost_usd": 0.008}]),
            json!([true, {"input_tokens": 3000, "cache_read_tokens": 5000, "cache_write_tokens": 0, "output_tokens": 500, "reasoning_tokens": 100, "cost_usd": 0.003}]),
        ]
    );
    let s = &ci("ci-agg").args(["--sessions", RESET]).run().json()[0];
    assert_eq!((&s["compactions"], &s["tool_calls"]), (&json!(1), &json!({"view": 1})));
}

/// A shutdown naming two models is one response per model; the recorded
/// cost, which the roll-up does not split, is the first's (the other's is
/// 0, never priced on top of it); `--cost computed` prices both.
#[test]
fn a_roll_up_of_two_models_counts_each_and_the_cost_once() {
    let rows = |more: &[&str]| -> Vec<Value> {
        let run = ci("ci-agg").args(["--tokens"]).args(more).arg(FLAT).run();
        assert_eq!((run.stderr.as_str(), run.code), ("", 0), "{run:?}");
        run.json().iter().map(|r| json!([r["model"], counts(r), r["cost_usd"], r["cost_source"]])).collect()
    };
    assert_eq!(
        rows(&[]),
        [
            json!(["claude-sonnet-4.6", [2000, 6000, 1000, 250], 0.005, "writer"]),
            json!(["gpt-5-mini", [1000, 3000, 0, 150], 0, "writer"]),
        ]
    );
    assert_eq!(
        rows(&["--cost", "computed"]),
        [
            json!(["claude-sonnet-4.6", [2000, 6000, 1000, 250], 0.0153, "computed"]),
            json!(["gpt-5-mini", [1000, 3000, 0, 150], 0.000625, "computed"]),
        ]
    );
}

/// Each line one event (a shutdown also one response per model that grew),
/// in the toolkit's vocabulary; the rest `copilot:<type>`.
#[test]
fn records_are_events_in_the_toolkit_vocabulary() {
    let run = ci("ci-cat").arg(FLAT).run();
    assert_eq!((run.stderr.as_str(), run.code), ("", 0));
    let names: Vec<Value> =
        run.json().iter().map(|e| json!([e["event"], e["copilot"], e["ci"]["line"], e["ci"]["part"]])).collect();
    assert_eq!(
        names,
        [
            json!(["session:start", "session.start", 1, 0]),
            json!(["prompt:submit", "user.message", 2, 0]),
            json!(["llm:content", "assistant.message", 3, 0]),
            json!(["tool:pre", "tool.execution_start", 4, 0]),
            json!(["tool:post", "tool.execution_complete", 5, 0]),
            json!(["copilot:subagent.started", "subagent.started", 6, 0]),
            json!(["copilot:session.future_thing", "session.future_thing", 7, 0]),
            json!(["session:end", "session.shutdown", 8, 0]),
            json!(["llm:response", "session.shutdown", 8, 1]),
            json!(["llm:response", "session.shutdown", 8, 2]),
        ]
    );
    // A call's end names no tool: its start's.
    let run = ci("ci-filter").args(["--tool", "edit", FLAT]).run();
    let calls: Vec<Value> = run.json().iter().map(|e| json!([e["event"], e["tool"]])).collect();
    assert_eq!(calls, [json!(["tool:pre", null]), json!(["tool:post", "edit"])]);
    let run = ci("ci-filter").args(["--errors", HOME]).run();
    let e = run.json();
    assert_eq!((e.len(), &e[0]["data"]["data"]["toolCallId"]), (1, &json!("toolu_vrtx_01")), "{run:?}");
}

/// `ci-find | ci-filter --event '*' | ci-agg X` answers as `ci-agg X`,
/// with or without the capture cache, on one thread or several; records
/// cut by one tool (a response's data is made from the log) are made whole
/// by the next.
#[test]
fn pipelines_and_cut_records_give_the_answers_of_the_files() {
    let found = ci("ci-find").args(["--root", HOME]).run();
    let events = ci("ci-filter").args(["--event", "*"]).stdin(found.stdout.clone()).run();
    assert_eq!((events.stderr.as_str(), events.code), ("", 0));
    for args in [&["--tokens"][..], &["--tokens", "--by", "session"], &["--tools"], &["--sessions"]] {
        let direct = ci("ci-agg").args(args).arg(HOME).run();
        let piped = ci("ci-agg").args(args).stdin(events.stdout.clone()).run();
        assert_eq!((piped.stdout.as_str(), piped.code), (direct.stdout.as_str(), direct.code), "{args:?}");
        for more in [&["--no-cache", "-j1"][..], &["-j4"]] {
            assert_eq!(ci("ci-agg").args(args).args(more).arg(HOME).run().stdout, direct.stdout, "{args:?} {more:?}");
        }
    }
    // A response whose data is over the budget (a long model name) is made
    // again from the log, the shutdowns before it observed.
    let dir = tempfile::tempdir().unwrap();
    let long = format!("model-{}", "x".repeat(1500));
    let usage = |n: u64| json!({"usage": {"inputTokens": n, "cacheReadTokens": n / 2, "outputTokens": n / 10}});
    let leg = |n: u64| {
        json!({"type": "session.shutdown", "id": "x", "parentId": null, "timestamp": "2026-06-01T00:00:00Z",
               "data": {"modelMetrics": {long.as_str(): usage(n), "m": usage(n)}}})
    };
    let path = log(dir.path(), &format!("{}\n{}\n", leg(100), leg(300)));
    let whole = ci("ci-cat").arg("--full").arg(&path).run();
    let cut = ci("ci-cat").args(["--max-bytes", "1k"]).arg(&path).run();
    let cut_responses =
        cut.json().iter().filter(|e| e["event"] == "llm:response" && e["ci"]["cut"].is_object()).count();
    assert_eq!(cut_responses, 2, "{cut:?}");
    let again = ci("ci-cat").arg("--full").stdin(cut.stdout.clone()).run();
    assert_eq!((again.stdout.as_str(), again.stderr.as_str()), (whole.stdout.as_str(), ""));
    let tokens = ci("ci-agg").args(["--tokens", "--no-cache"]).stdin(cut.stdout).run();
    assert_eq!(tokens.stdout, ci("ci-agg").args(["--tokens", "--no-cache"]).arg(&path).run().stdout);
    assert!(tokens.stdout.contains(r#""responses":2,"input_tokens":150,"#), "{tokens:?}");
}

/// ci-grep finds the decoded text of a string (one holding a raw U+2028,
/// which has broken readers), with its provenance.
#[test]
fn grep_finds_text_with_its_provenance() {
    let run = ci("ci-grep").args(["header\u{2028}component", HOME]).run();
    let m = &run.json()[0];
    assert_eq!(
        json!([m["event"], m["path"], m["ci"]["path"], m["ci"]["line"], m["ci"]["cut"]["writer"]]),
        json!(["prompt:submit", "data.data.content", FLAT, 2, "copilot-cli"])
    );
}

/// Copilot's home as Copilot resolves it: `$COPILOT_HOME`, else
/// `~/.copilot`; a `session-state` folder or a session folder as a root, a
/// log as a PATH.
#[test]
fn default_roots_are_copilot_homes() {
    let ids =
        |run: Run| -> Vec<String> { run.json().iter().map(|r| r["session"].as_str().unwrap().to_owned()).collect() };
    let all = [
        "0a1b2c3d-0000-4000-8000-00000000000c",
        "5d0f3c2a-7b41-4e8e-9a6c-2f1e0d9c8b7a",
        "c0ffee00-0000-4000-8000-00000000000b",
    ];
    let home = ci("ci-find").args(["--sort", "id"]).env("HOME", root().join("fixtures/copilot-cli")).run();
    assert_eq!(ids(home), all);
    let env = ci("ci-find").args(["--sort", "id"]).env("COPILOT_HOME", HOME).run();
    assert_eq!(ids(env), all);
    let state = ci("ci-find").args(["--sort", "id", "--root", "fixtures/copilot-cli/.copilot/session-state"]).run();
    assert_eq!(ids(state), all);
    assert_eq!(ids(ci("ci-find").args(["--root", RESET]).run()), [all[2]]);
    let run = ci("ci-agg").args(["--tokens", &format!("{RESET}/events.jsonl")]).run();
    assert_eq!(counts(&run.json()[0]), [13000, 25000, 0, 1400]);
}

// ---------------------------------------------------------------------------
// Hostile logs

/// `<dir>/session-state/s/events.jsonl` holding `text`.
fn log(dir: &Path, text: &str) -> std::path::PathBuf {
    let folder = dir.join("session-state/s");
    std::fs::create_dir_all(&folder).unwrap();
    let path = folder.join("events.jsonl");
    std::fs::write(&path, text).unwrap();
    path
}

/// A shutdown line with one model `m`'s counters.
fn shutdown(input: i64, read: i64, output: Value) -> String {
    json!({"type": "session.shutdown", "id": "x", "parentId": null, "timestamp": "2026-06-01T00:00:00Z",
           "data": {"modelMetrics": {"m": {"usage": {"inputTokens": input, "cacheReadTokens": read, "outputTokens": output}}}}})
    .to_string()
}

/// A line that is no JSON, one without a `type`, and a torn last line (a
/// shutdown being written) are reported with their site; the good
/// shutdowns around them count, and counters that are no whole numbers
/// count nothing.
#[test]
fn bad_and_torn_lines_are_reported_and_the_rest_counts() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "{}\nnot json\n{{\"data\":{{}}}}\n{}\n{}\n{}",
        shutdown(100, 40, json!(5)),
        shutdown(150, 60, json!(1.5)),
        shutdown(-1, 60, json!("7")),
        &shutdown(900, 0, json!(9))[..40]
    );
    let path = log(dir.path(), &text);
    let run = ci("ci-agg").arg("--tokens").arg(&path).run();
    // The first counts 60 fresh, 40 read, 5 out; the second's output is no
    // whole number (0 < 5: a reset), so it counts whole: 90 fresh, 60 read;
    // the third's input is no count (0 < 150: a reset): 60 read.
    let rows = run.json();
    assert_eq!(counts(&rows[0]), [60 + 90, 40 + 60 + 60, 0, 5], "{run:?}");
    let p = path.display();
    assert_eq!(
        run.stderr,
        format!(
            "{p}:2: invalid JSON at byte 0: expected a value\n\
             {p}:3: not a Copilot CLI event (needs a string \"type\")\n\
             ci-agg: warning: no price for model \"m\" in litellm 1.110.2 (built in): their cost is null and named in unpriced_models (--pricing FILE adds prices)\n\
             ci-agg: 2 bad lines skipped, 1 unfinished last line held back (capture still being written?) (--strict makes bad lines an error)\n"
        )
    );
    assert_eq!(run.code, 0, "{run:?}");
}

/// A FIFO, a device and a dangling link where logs go are reported
/// (`path: reason, skipped`, exit 2) and never opened; a line nested to the
/// parser's limit (its record, which holds the line, would nest deeper) is
/// a bad line with its site; the good session is read.
#[test]
fn unusable_files_and_lines_nested_to_the_limit_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let deep = format!("{}1{}", "[".repeat(125), "]".repeat(125));
    let nested = format!(r#"{{"type":"user.message","id":"d","parentId":null,"data":{{"content":{deep}}}}}"#);
    let good = log(dir.path(), &format!("{}\n{nested}\n", shutdown(10, 0, json!(1))));
    let state = dir.path().join("session-state");
    std::fs::create_dir_all(state.join("f")).unwrap();
    crate::kit::tree::mkfifo(&state.join("f/events.jsonl"));
    std::os::unix::fs::symlink("/dev/zero", state.join("z.jsonl")).unwrap();
    std::os::unix::fs::symlink(state.join("nothing"), state.join("gone.jsonl")).unwrap();
    let run = run_within("ci-agg", &[dir.path().as_os_str()]);
    let want = [
        format!("ci-agg: {}: dangling symbolic link, skipped", state.join("gone.jsonl").display()),
        format!("ci-agg: {}: not a regular file, skipped", state.join("f/events.jsonl").display()),
        format!("ci-agg: {}: not a regular file, skipped", state.join("z.jsonl").display()),
    ];
    for w in &want {
        assert!(run.stderr.contains(w.as_str()), "missing {w:?} in {}", run.stderr);
    }
    let site = format!("{}:2: JSON nested 127 levels deep, the limit", good.display());
    assert!(run.stderr.contains(&site), "{}", run.stderr);
    assert_eq!(run.code, 2, "{run:?}");
    assert_eq!(run.json().iter().map(|e| e["count"].as_u64().unwrap()).sum::<u64>(), 2, "{run:?}");
}

/// An `events.jsonl` outside `session-state/` (Amplifier's file name too)
/// is Copilot's only when its first line is a Copilot event.
#[test]
fn an_events_jsonl_elsewhere_is_read_by_its_first_line() {
    let dir = tempfile::tempdir().unwrap();
    let amplifier = dir.path().join("a/events.jsonl");
    std::fs::create_dir_all(amplifier.parent().unwrap()).unwrap();
    std::fs::write(&amplifier, "{\"event\":\"session:start\",\"timestamp\":\"2026-06-01T00:00:00Z\",\"data\":{}}\n")
        .unwrap();
    let run = ci("ci-cat").arg(&amplifier).run();
    assert_eq!((run.stderr.as_str(), run.code), ("", 0));
    assert_eq!(run.json()[0]["copilot"], Value::Null, "{run:?}");
    let copilot = dir.path().join("c/events.jsonl");
    std::fs::create_dir_all(copilot.parent().unwrap()).unwrap();
    std::fs::write(&copilot, format!("{}\n", shutdown(10, 0, json!(1)))).unwrap();
    let run = ci("ci-cat").arg(&copilot).run();
    let names: Vec<Value> = run.json().iter().map(|e| e["event"].clone()).collect();
    assert_eq!(names, [json!("session:end"), json!("llm:response")], "{run:?}");
}
