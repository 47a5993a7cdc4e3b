//! ci-agg on the demo fixtures and on small generated captures. Every
//! expected number is taken from fixtures/README.md or computed by hand from
//! the fixture lines (the comments show the arithmetic).

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use serde_json::{json, Value};

use crate::kit::Tree;
use crate::util::*;

fn agg(args: &[&str]) -> Run {
    ci("ci-agg").args(args).run()
}

/// `ci-agg ARGS fixtures/demo`, stdout parsed; stderr must hold only the
/// demo's known reports (session 5's bad lines, metadata warnings).
fn demo(args: &[&str]) -> Vec<Value> {
    let run = ci("ci-agg").args(args).arg(DEMO).run();
    assert_eq!(run.code, 0, "{run:?}");
    run.json()
}

fn one_line(v: &[Value]) -> Vec<String> {
    v.iter().map(|r| r.to_string()).collect()
}

/// A canonical event line.
fn ev(event: &str, ts: &str, data: Value) -> String {
    json!({"data": data, "event": event, "timestamp": ts, "workspace": "w"}).to_string()
}

/// A capture root with one session per entry: (id, lines).
fn root_with(sessions: &[(&str, Vec<String>)]) -> Tree {
    let tree = Tree::new();
    for (id, lines) in sessions {
        let meta = json!({"format":"context-intelligence","version":"1.0.0","session_id":id,"workspace":"w",
            "parent_id":"","started_at":"2026-01-01T00:00:00Z","status":"completed","working_dir":"/proj"});
        tree.amplifier("-proj", id).metadata(meta.to_string()).lines(lines).write();
    }
    tree
}

fn path_arg(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

// ---------------------------------------------------------------- counts

#[test]
fn count_by_event_matches_the_fixture_table() {
    // fixtures/README.md, "Events by type" (count descending, then name).
    let want = DEMO_EVENTS;
    let run = agg(&["--by", "event", DEMO]);
    let lines: Vec<String> = want.iter().map(|(e, n)| format!("{{\"event\":\"{e}\",\"count\":{n}}}")).collect();
    assert_eq!(run.lines(), lines);
    assert_eq!(run.code, 0);
    // The damaged session is reported, not silently dropped.
    assert!(run.stderr.contains("events.jsonl:4: invalid JSON"), "{}", run.stderr);
    assert!(run.stderr.contains("ci-agg: 4 bad lines skipped, 1 unfinished last line held back"), "{}", run.stderr);
}

#[test]
fn every_input_route_gives_the_same_counts() {
    let direct = agg(&["--by", "event", DEMO]).stdout;
    let records = find_demo(&[]);
    let via_find = ci("ci-agg").args(["--by", "event"]).stdin(records.clone()).run();
    assert_eq!(via_find.stdout, direct);
    let events = ci("ci-cat").stdin(records).run().stdout;
    let via_cat = ci("ci-agg").args(["--by", "event", "-"]).stdin(events.clone()).run();
    assert_eq!(via_cat.stdout, direct);
    let one_thread = ci("ci-agg").args(["-j1", "--by", "event"]).stdin(events).run();
    assert_eq!(one_thread.stdout, direct);
}

#[test]
fn total_count_without_keys() {
    assert_eq!(agg(&[DEMO]).lines(), ["{\"count\":77}"]);
}

#[test]
fn count_by_workspace_fills_older_writers() {
    // README: my-api 40, key absent 10 (session 3, filled from the slug
    // -home-user-webapp) + 5 written = 15, pipeline 8, "" 7, -C-Users-dev-tools 7.
    assert_eq!(
        one_line(&demo(&["--by", "workspace"])),
        [
            r#"{"workspace":"my-api","count":40}"#,
            r#"{"workspace":"-home-user-webapp","count":15}"#,
            r#"{"workspace":"pipeline","count":8}"#,
            r#"{"workspace":"","count":7}"#,
            r#"{"workspace":"-C-Users-dev-tools","count":7}"#,
        ]
    );
}

#[test]
fn count_by_tool_groups_missing_keys_under_null() {
    // tool events carry data.tool_name: bash 2 calls x pre/post in session 1,
    // 1 call each in sessions 3, 4, 5 -> 10; read_file pre+post, pre+error -> 4;
    // delegate 2; edit_file 2; grep 2. The other 57 events have no tool: null.
    assert_eq!(
        one_line(&demo(&["--by", "tool"])),
        [
            r#"{"tool":null,"count":57}"#,
            r#"{"tool":"bash","count":10}"#,
            r#"{"tool":"read_file","count":4}"#,
            r#"{"tool":"delegate","count":2}"#,
            r#"{"tool":"edit_file","count":2}"#,
            r#"{"tool":"grep","count":2}"#,
        ]
    );
}

#[test]
fn count_by_day_in_utc_and_across_midnight_elsewhere() {
    // UTC: session 4 on 03-01 (7), sessions 1+2 on 03-02 (29+11), 3 on 03-03
    // (10), 5 on 03-04 (7), 9a+9b on 03-06 (4+4), 8a+8b on 03-07 (3+2).
    let day = |tz: &str| one_line(&demo(&["--by", "day", "--tz", tz, "--sort", "key"]));
    assert_eq!(
        day("UTC"),
        [
            r#"{"day":"2026-03-01","tz":"UTC","count":7}"#,
            r#"{"day":"2026-03-02","tz":"UTC","count":40}"#,
            r#"{"day":"2026-03-03","tz":"UTC","count":10}"#,
            r#"{"day":"2026-03-04","tz":"UTC","count":7}"#,
            r#"{"day":"2026-03-06","tz":"UTC","count":8}"#,
            r#"{"day":"2026-03-07","tz":"UTC","count":5}"#,
        ]
    );
    // Los Angeles is UTC-8 before 2026-03-08: 9a/9b (02:00Z on the 6th) fall on
    // the evening of the 5th; 8a/8b (10:00-11:00Z on the 7th) stay on the 7th.
    assert_eq!(
        day("America/Los_Angeles"),
        [
            r#"{"day":"2026-03-01","tz":"America/Los_Angeles","count":7}"#,
            r#"{"day":"2026-03-02","tz":"America/Los_Angeles","count":40}"#,
            r#"{"day":"2026-03-03","tz":"America/Los_Angeles","count":10}"#,
            r#"{"day":"2026-03-04","tz":"America/Los_Angeles","count":7}"#,
            r#"{"day":"2026-03-05","tz":"America/Los_Angeles","count":8}"#,
            r#"{"day":"2026-03-07","tz":"America/Los_Angeles","count":5}"#,
        ]
    );
    // Tokyo is UTC+9: session 4 (21:25Z on the 1st, incl. its line written as
    // 23:30+02:00) moves to the 2nd; session 5 (18:40Z on the 4th) to the 5th;
    // 9a/9b (02:00Z) stay on the 6th (11:00 local).
    assert_eq!(
        day("Asia/Tokyo"),
        [
            r#"{"day":"2026-03-02","tz":"Asia/Tokyo","count":47}"#,
            r#"{"day":"2026-03-03","tz":"Asia/Tokyo","count":10}"#,
            r#"{"day":"2026-03-05","tz":"Asia/Tokyo","count":7}"#,
            r#"{"day":"2026-03-06","tz":"Asia/Tokyo","count":8}"#,
            r#"{"day":"2026-03-07","tz":"Asia/Tokyo","count":5}"#,
        ]
    );
}

#[test]
fn local_zone_is_named_in_the_output() {
    let run = ci("ci-agg").env("TZ", "Asia/Tokyo").args(["--by", "week", "--tz", "local", DEMO]).run();
    // 2026-03-02 .. 2026-03-07 (Tokyo) are Monday to Saturday of ISO week 10.
    assert_eq!(run.lines(), [r#"{"week":"2026-W10","tz":"Asia/Tokyo","count":77}"#]);
}

#[test]
fn records_without_timestamp_are_grouped_under_null_and_counted() {
    let root = root_with(&[(
        "s1",
        vec![
            ev("session:start", "2026-03-01T10:00:00Z", json!({})),
            ev("prompt:submit", "", json!({})),
            ev("prompt:complete", "not a time", json!({})),
        ],
    )]);
    // Time buckets print in time order; the untimed group comes last.
    let run = agg(&["--by", "hour", &path_arg(root.path())]);
    assert_eq!(
        run.lines(),
        [r#"{"hour":"2026-03-01T10","tz":"UTC","count":1}"#, r#"{"hour":null,"tz":"UTC","count":2}"#]
    );
    let run = agg(&["--by", "hour", "--sort", "count", &path_arg(root.path())]);
    assert_eq!(
        run.lines(),
        [r#"{"hour":null,"tz":"UTC","count":2}"#, r#"{"hour":"2026-03-01T10","tz":"UTC","count":1}"#]
    );
    assert!(run.stderr.contains("2 records without a usable timestamp"), "{}", run.stderr);
}

#[test]
fn several_keys_and_paths() {
    let rows = demo(&["--by", "event,data.status", "--top", "3", "--sort", "key"]);
    // Key order: event first; within context:compaction no status -> null.
    assert_eq!(
        one_line(&rows),
        [
            r#"{"event":"context:compaction","data.status":null,"count":1}"#,
            r#"{"event":"delegate:agent_completed","data.status":null,"count":1}"#,
            r#"{"event":"delegate:agent_spawned","data.status":null,"count":1}"#,
        ]
    );
    // status of orchestrator:complete: success in 1, 2, 9b; error in 9a.
    let rows = demo(&["--by", "status,event", "--top", "2"]);
    assert_eq!(
        one_line(&rows),
        [r#"{"status":null,"event":"tool:pre","count":10}"#, r#"{"status":null,"event":"tool:post","count":9}"#]
    );
    let rows = demo(&["--by", "status"]);
    assert_eq!(
        one_line(&rows),
        [r#"{"status":null,"count":73}"#, r#"{"status":"success","count":3}"#, r#"{"status":"error","count":1}"#]
    );
}

#[test]
fn agent_comes_from_metadata_or_the_fork_line() {
    // Session 2 (11 events) names its agent only on its fork line; 9b (4) in
    // its metadata; every other event belongs to a session without an agent.
    let want = [
        r#"{"agent":null,"count":62}"#,
        r#"{"agent":"foundation:explorer","count":11}"#,
        r#"{"agent":"foundation:bug-hunter","count":4}"#,
    ];
    assert_eq!(one_line(&demo(&["--by", "agent"])), want);
    let events = ci("ci-cat").stdin(find_demo(&[])).run().stdout;
    let piped = ci("ci-agg").args(["--by", "agent"]).stdin(events).run();
    assert_eq!(piped.lines(), want);
}

// ---------------------------------------------------------------- metrics

#[test]
fn sums_read_both_usage_key_generations() {
    // README usage table: input per model; gpt-5.1 uses the old key `input`.
    // cost_usd is the writer's where written, else computed (tests/cost.rs):
    // haiku's second response (5302 gross input incl. 5120 cache reads, 240
    // output) at LiteLLM's $1/$0.10/$5 per million is 182 + 512 + 1200 µ$
    // beside the written 0.0041; gpt-5.1's (9120 gross incl. 4096 read, 388
    // output) at $1.25/$0.125/$10 is 6280 + 512 + 3880 µ$.
    let rows = demo(&["--by", "model", "--sum", "input_tokens", "--sum", "cost_usd", "--sort", "key"]);
    let got: Vec<(Value, Value, Value, Value)> = rows
        .iter()
        .map(|r| {
            (
                r["model"].clone(),
                r["input_tokens"]["sum"].clone(),
                r["cost_usd"]["sum"].clone(),
                r["cost_source"].clone(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (Value::Null, Value::Null, Value::Null, Value::Null),
            (json!("claude-haiku-4-5"), json!(10422), json!(0.005994), json!("writer+computed")),
            (json!("claude-sonnet-4-5"), json!(66560), json!(0.082), json!("writer")),
            (json!("gpt-5-mini"), json!(2100), json!(0.0007), json!("writer")),
            (json!("gpt-5.1"), json!(9120), json!(0.010672), json!("computed")),
        ]
    );
    // A plain path reads one generation only.
    let rows = demo(&["--by", "model", "--sum", "data.usage.input_tokens"]);
    let sums: Vec<Value> = rows.iter().map(|r| r["data.usage.input_tokens"]["sum"].clone()).collect();
    assert_eq!(sums, [Value::Null, json!(66560), json!(10422), Value::Null, json!(2100)]);
}

#[test]
fn tokens_preset_matches_the_usage_table() {
    let rows = demo(&["--tokens"]);
    assert_eq!(
        one_line(&rows),
        [
            r#"{"model":"claude-sonnet-4-5","responses":4,"input_tokens":66560,"output_tokens":2500,"cache_read_tokens":46500,"cache_write_tokens":12148,"cost_usd":0.082,"cost_source":"writer","unpriced_models":[]}"#,
            r#"{"model":"claude-haiku-4-5","responses":2,"input_tokens":10422,"output_tokens":336,"cache_read_tokens":9216,"cache_write_tokens":0,"cost_usd":0.005994,"cost_source":"writer+computed","unpriced_models":[]}"#,
            r#"{"model":"gpt-5-mini","responses":1,"input_tokens":2100,"output_tokens":150,"cache_read_tokens":0,"cache_write_tokens":0,"cost_usd":0.0007,"cost_source":"writer","unpriced_models":[]}"#,
            r#"{"model":"gpt-5.1","responses":1,"input_tokens":9120,"output_tokens":388,"cache_read_tokens":4096,"cache_write_tokens":0,"cost_usd":0.010672,"cost_source":"computed","unpriced_models":[]}"#,
        ]
    );
    // Per day: sonnet splits into session 1 (03-02: 18234+19876+21040 = 59150,
    // costs 0.0123+0.0089+0.0311 = 0.0523) and session 5 (03-04: 7410, 0.0297).
    let rows = demo(&["--tokens", "--by", "day", "--sort", "key"]);
    let got: Vec<String> = rows
        .iter()
        .map(|r| format!("{} {} {} {} {}", r["day"], r["tz"], r["model"], r["input_tokens"], r["cost_usd"]))
        .collect();
    assert_eq!(
        got,
        [
            r#""2026-03-01" "UTC" "gpt-5-mini" 2100 0.0007"#,
            r#""2026-03-02" "UTC" "claude-haiku-4-5" 10422 0.005994"#,
            r#""2026-03-02" "UTC" "claude-sonnet-4-5" 59150 0.0523"#,
            r#""2026-03-03" "UTC" "gpt-5.1" 9120 0.010672"#,
            r#""2026-03-04" "UTC" "claude-sonnet-4-5" 7410 0.0297"#,
        ]
    );
}

fn durations_root(values: &[&str]) -> Tree {
    let lines = values
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let d: Value = serde_json::from_str(v).unwrap_or_else(|_| Value::String((*v).to_owned()));
            ev("llm:response", &format!("2026-03-01T10:00:{:02}Z", i % 60), json!({"model": "m", "duration_ms": d}))
        })
        .collect();
    root_with(&[("s1", lines)])
}

#[test]
fn percentiles_on_known_data() {
    // 10..100 in steps of 10, shuffled; numbers in strings count.
    let root = durations_root(&["70", "10", "\"100\"", "40", "20", "90", "30", "60", "50", "80"]);
    let run = agg(&["--by", "model", "--stats", "data.duration_ms", &path_arg(root.path())]);
    // Type-7 interpolation: rank (n-1)q. p50: 4.5 -> 55; p95: 8.55 -> 90 + .55*10
    // = 95.5; p99: 8.91 -> 99.1.
    assert_eq!(
        run.lines(),
        [
            r#"{"model":"m","count":10,"data.duration_ms":{"count":10,"sum":550,"mean":55,"min":10,"max":100,"p50":55,"p95":95.5,"p99":99.1}}"#
        ]
    );
    let run = agg(&[
        "--p50",
        "data.duration_ms",
        "--avg",
        "data.duration_ms",
        "--max",
        "data.duration_ms",
        &path_arg(root.path()),
    ]);
    assert_eq!(run.lines(), [r#"{"count":10,"data.duration_ms":{"avg":55,"max":100,"p50":55}}"#]);
}

#[test]
fn values_that_are_not_numbers_are_reported() {
    let root = durations_root(&["1", "\"0.5\"", "\"abc\"", "true", "null", "{\"a\":1}"]);
    let run = agg(&["--sum", "data.duration_ms", "--min", "data.duration_ms", &path_arg(root.path())]);
    assert_eq!(run.lines(), [r#"{"count":6,"data.duration_ms":{"sum":1.5,"min":0.5}}"#]);
    assert!(
        run.stderr.contains("ci-agg: warning: 3 values of data.duration_ms were not numbers and skipped"),
        "{}",
        run.stderr
    );
}

#[test]
fn percentiles_of_large_groups_are_close_and_merge() {
    let values: Vec<String> = (1..=3000).map(|i| ((i * 7919) % 3000 + 1).to_string()).collect();
    let refs: Vec<&str> = values.iter().map(String::as_str).collect();
    let root = durations_root(&refs);
    let p = path_arg(root.path());
    let one = agg(&["--stats", "data.duration_ms", &p]).json();
    let s = &one[0]["data.duration_ms"];
    assert_eq!(
        (s["count"].clone(), s["sum"].clone(), s["min"].clone(), s["max"].clone()),
        (json!(3000), json!(4501500), json!(1), json!(3000))
    );
    for (k, want) in [("p50", 1500.5), ("p95", 2850.05), ("p99", 2970.01)] {
        let got = s[k].as_f64().unwrap();
        assert!((got - want).abs() / want < 0.01, "{k}: {got} vs {want}");
    }
    let partial = agg(&["--partial", "--stats", "data.duration_ms", &p]);
    assert!(partial.stdout.lines().all(|l| l.len() < 4096), "a partial line exceeds PIPE_BUF");
    let twice = format!("{}{}", partial.stdout, partial.stdout);
    let merged = ci("ci-agg").arg("--merge").stdin(twice).run().json();
    let m = &merged[0]["data.duration_ms"];
    assert_eq!((m["count"].clone(), m["sum"].clone(), m["mean"].clone()), (json!(6000), json!(9003000), json!(1500.5)));
    let got = m["p50"].as_f64().unwrap();
    assert!((got - 1500.5).abs() < 30.0, "{got}");
}

#[test]
fn distinct_counts() {
    // Sessions with events per workspace: my-api 1 and 2 (6 has none),
    // -home-user-webapp 3, 8a, 8b; pipeline 9a, 9b; "" 5; -C-Users-dev-tools 4.
    let rows = demo(&["--by", "workspace", "--distinct", "session", "--sort", "key"]);
    let got: Vec<(Value, Value)> =
        rows.iter().map(|r| (r["workspace"].clone(), r["session"]["distinct"].clone())).collect();
    assert_eq!(
        got,
        [
            (json!(""), json!(1)),
            (json!("-C-Users-dev-tools"), json!(1)),
            (json!("-home-user-webapp"), json!(3)),
            (json!("my-api"), json!(2)),
            (json!("pipeline"), json!(2)),
        ]
    );
}

#[test]
fn tables_for_people() {
    let run = agg(&["--by", "model", "--sum", "cost_usd", "--format", "table", "--top", "3", DEMO]);
    assert_eq!(
        run.stdout,
        "model              count  cost_usd.sum  cost_source      unpriced_models\n\
         null                  63          null  null             []\n\
         claude-sonnet-4-5      7         0.082  writer           []\n\
         claude-haiku-4-5       4      0.005994  writer+computed  []\n\
         total                 77      0.099366  writer+computed  []\n"
    );
    let run = agg(&["--by", "workspace", "--format", "csv", "--sort", "key", DEMO]);
    assert_eq!(run.stdout, "workspace,count\n,7\n-C-Users-dev-tools,7\n-home-user-webapp,15\nmy-api,40\npipeline,8\n");
    let run = agg(&["--by", "workspace", "--format", "tsv", "--top", "1", DEMO]);
    assert_eq!(run.stdout, "workspace\tcount\nmy-api\t40\n");
}

#[test]
fn usage_errors() {
    for (args, msg) in [
        (vec!["--by", "data..x"], "invalid field path"),
        (vec!["--by", "day", "--tz", "Mars/Base"], "error: invalid value 'Mars/Base' for '--tz <TZ>'"),
        (vec!["--sessions", "--by", "event"], "takes no --by"),
        (vec!["--tools", "--sum", "x.y"], "has its own columns"),
        (vec!["--by", "event,event"], "named twice"),
    ] {
        let run = agg(&[args.as_slice(), &[DEMO]].concat());
        assert_eq!(run.code, 2, "{args:?}: {run:?}");
        assert!(run.stderr.contains(msg), "{args:?}: {}", run.stderr);
    }
}

// ---------------------------------------------------------------- presets

#[test]
fn sessions_every_field_of_session_1() {
    let rows = demo(&["--sessions"]);
    let ids: Vec<&str> = rows.iter().map(|r| r["session"].as_str().unwrap()).collect();
    // Newest first by first event time; the empty capture (no timestamps) last.
    assert_eq!(
        ids,
        [
            "8c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f",
            "9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d",
            "abcdef12-0000-4000-8000-000000000002",
            "abcdef12-0000-4000-8000-000000000001",
            "d4a7b1e3-9c2f-4d85-a0b6-3e1f7c9d2b84",
            "b2d4f6a8-1c3e-4a5b-8c7d-9e0f1a2b3c4d",
            "0000000000000000-5f3c9a1e7b2d4c60_foundation-explorer",
            "a7c3e9d1-4b2f-4e8a-9d61-0c5b7e2f3a10",
            "c0ffee00-d1a2-4b3c-9d4e-5f6a7b8c9d0e",
            "e1f2a3b4-c5d6-4e7f-8a9b-0c1d2e3f4a5b",
        ]
    );
    let s1 = rows.iter().find(|r| r["session"] == "a7c3e9d1-4b2f-4e8a-9d61-0c5b7e2f3a10").unwrap();
    // Hand-checked against the 29 lines of session 1:
    // - started/last: lines 1 (09:15:00) and 29 (09:16:28.461750218);
    //   duration 88461.75 ms, whole ms 88461;
    // - tool calls: 5 distinct ids, bash A1 A3, read_file A2 A4, delegate A5;
    //   errors: A3 (post success false) and A4 (tool:error) = 2;
    // - one turn: submit 09:15:01.250 (line 2) -> orchestrator:complete
    //   09:16:28.461 (line 28) = 87211 ms; messages = submit + prompt:complete;
    // - tokens: in 18234+19876+21040, out 412+655+1203, cache read
    //   12000+18000+16500, write 3100+0+2048; cost 0.0123+0.0089+0.0311;
    // - child: delegate events name session 2 (whose parent is session 1 too).
    let want = json!({
        "session": "a7c3e9d1-4b2f-4e8a-9d61-0c5b7e2f3a10",
        "project": "-home-user-my-api",
        "workspace": "my-api",
        "parent": null,
        "agent": null,
        "status": "completed",
        "outcome": "success",
        "started": "2026-03-02T09:15:00Z",
        "last_event": "2026-03-02T09:16:28.461750218Z",
        "duration_ms": 88461,
        "events": {
            "context:compaction": 1, "delegate:agent_completed": 1, "delegate:agent_spawned": 1,
            "execution:end": 1, "execution:start": 1, "llm:request": 3, "llm:response": 3,
            "orchestrator:complete": 1, "prompt:complete": 1, "prompt:submit": 1, "provider:error": 1,
            "provider:request": 3, "session:start": 1, "tool:error": 1, "tool:post": 4, "tool:pre": 5
        },
        "tool_calls": {"bash": 2, "delegate": 1, "read_file": 2},
        "tool_errors": 2,
        "turns": 1,
        "messages": 2,
        "avg_response_ms": 87211,
        "tokens": {"input": 59150, "output": 2270, "cache_read": 46500, "cache_write": 5148},
        "cost_usd": 0.0523,
        "cost_source": "writer",
        "unpriced_models": [],
        "models": ["claude-sonnet-4-5"],
        "compactions": 1,
        "children": ["0000000000000000-5f3c9a1e7b2d4c60_foundation-explorer"],
        // read_file A2 (src/café.rs, pre + post) and A4 (docs/日本語.md, pre only).
        "subagents": 1,
        "files_read": ["docs/日本語.md", "src/café.rs"],
        "files_edited": []
    });
    assert_eq!(*s1, want);
    // Key order is part of the format.
    let keys: Vec<&String> = s1.as_object().unwrap().keys().collect();
    let want_keys: Vec<&String> = want.as_object().unwrap().keys().collect();
    assert_eq!(keys, want_keys);
}

#[test]
fn sessions_other_rules() {
    let rows = demo(&["--sessions"]);
    let get = |id: &str| rows.iter().find(|r| r["session"].as_str().unwrap().starts_with(id)).unwrap().clone();
    // Session 2: agent only on its fork line; one cost written (0.0041), the
    // other computed (182 + 512 + 1200 µ$, see sums_read_both_usage_key_generations); no turns.
    let s2 = get("0000000000000000");
    assert_eq!(s2["agent"], "foundation:explorer");
    assert_eq!(s2["parent"], "a7c3e9d1-4b2f-4e8a-9d61-0c5b7e2f3a10");
    assert_eq!(
        (s2["cost_usd"].clone(), s2["turns"].clone(), s2["avg_response_ms"].clone()),
        (json!(0.005994), json!(0), Value::Null)
    );
    assert_eq!(s2["cost_source"], "writer+computed");
    assert_eq!(s2["tokens"], json!({"input": 10422, "output": 336, "cache_read": 9216, "cache_write": 0}));
    // Session 4: line order is not time order (line 5 is 60.25 s before line 4);
    // no orchestrator:complete, so the turn ends at prompt:complete:
    // 21:25:02.500 -> 21:31:05.000 = 362500 ms.
    let s4 = get("c0ffee00");
    assert_eq!(
        (s4["started"].clone(), s4["last_event"].clone()),
        (json!("2026-03-01T21:25:00Z"), json!("2026-03-01T21:31:06Z"))
    );
    assert_eq!((s4["duration_ms"].clone(), s4["avg_response_ms"].clone()), (json!(366000), json!(362500)));
    assert_eq!((s4["messages"].clone(), s4["outcome"].clone()), (json!(2), Value::Null));
    // Session 3: old usage keys, no cost written: computed (gpt-5.1, see
    // sums_read_both_usage_key_generations); unfinished turn has no response time.
    let s3 = get("b2d4f6a8");
    assert_eq!(s3["tokens"], json!({"input": 9120, "output": 388, "cache_read": 4096, "cache_write": 0}));
    assert_eq!((s3["cost_usd"].clone(), s3["avg_response_ms"].clone()), (json!(0.010672), Value::Null));
    assert_eq!(s3["cost_source"], "computed");
    assert_eq!(s3["workspace"], "-home-user-webapp");
    // 9a: error outcome; its child 9b is known only from 9b's parent.
    let s9a = get("abcdef12-0000-4000-8000-000000000001");
    assert_eq!(s9a["outcome"], "error");
    assert_eq!(s9a["children"], json!(["abcdef12-0000-4000-8000-000000000002"]));
    assert_eq!(s9a["avg_response_ms"], json!(190250));
    // Session 5: bad lines skipped; the read_file call exists only on a bad line.
    let s5 = get("d4a7b1e3");
    assert_eq!(s5["tool_calls"], json!({"bash": 1}));
    assert_eq!((s5["cost_usd"].clone(), s5["tokens"]["cache_write"].clone()), (json!(0.0297), json!(7000)));
    // Session 6 (zero bytes): a record, with null time fields.
    let s6 = get("e1f2a3b4");
    assert_eq!(
        (s6["started"].clone(), s6["duration_ms"].clone(), s6["events"].clone()),
        (Value::Null, Value::Null, json!({}))
    );
}

fn tool_root() -> Tree {
    let t = |s: &str| format!("2026-03-01T10:00:{s}Z");
    root_with(&[(
        "s1",
        vec![
            ev("tool:pre", &t("00"), json!({"tool_name": "bash", "tool_call_id": "c1"})),
            ev(
                "tool:post",
                &t("01.500"),
                json!({"tool_name": "bash", "tool_call_id": "c1", "result": {"success": true}}),
            ),
            // A pre whose post never came.
            ev("tool:pre", &t("02"), json!({"tool_name": "read_file", "tool_call_id": "c2"})),
            ev("tool:pre", &t("03"), json!({"tool_name": "bash", "tool_call_id": "c3"})),
            ev("tool:error", &t("03.250"), json!({"tool_name": "bash", "tool_call_id": "c3", "error": {"type": "E"}})),
            // A post without its pre, failed, with an older writer's duration.
            ev(
                "tool:post",
                &t("04"),
                json!({"tool_name": "bash", "tool_call_id": "c4", "duration_ms": 40, "result": {"success": false}}),
            ),
            // No tool_call_id: a call of its own.
            ev("tool:pre", &t("05"), json!({"tool_name": "grep"})),
        ],
    )])
}

#[test]
fn tools_pairing_on_the_demo() {
    // bash latencies: A1 07.410 -> 09.833 = 2423, A3 14.006 -> 31.554 = 17548,
    // session 3 duration_ms 8520, session 4 03.120 -> 31:00.250 = 357130,
    // session 5 09.960 -> 12.204 = 2244. Sorted 2244 2423 8520 17548 357130:
    // p50 8520; p95 rank 3.8 -> 17548 + .8*339582 = 289213.6.
    // read_file: A2 2429, A4 (pre -> tool:error) 1: p50 1215, p95 2307.6.
    assert_eq!(
        one_line(&demo(&["--tools"])),
        [
            r#"{"tool":"bash","calls":5,"ok":4,"errors":1,"unfinished":0,"success_rate":0.8,"p50_ms":8520,"p95_ms":289213.6,"max_ms":357130}"#,
            r#"{"tool":"read_file","calls":2,"ok":1,"errors":1,"unfinished":0,"success_rate":0.5,"p50_ms":1215,"p95_ms":2307.6,"max_ms":2429}"#,
            r#"{"tool":"delegate","calls":1,"ok":1,"errors":0,"unfinished":0,"success_rate":1,"p50_ms":49550,"p95_ms":49550,"max_ms":49550}"#,
            r#"{"tool":"edit_file","calls":1,"ok":1,"errors":0,"unfinished":0,"success_rate":1,"p50_ms":45,"p95_ms":45,"max_ms":45}"#,
            r#"{"tool":"grep","calls":1,"ok":1,"errors":0,"unfinished":0,"success_rate":1,"p50_ms":177,"p95_ms":177,"max_ms":177}"#,
        ]
    );
}

#[test]
fn tools_pairing_with_error_missing_post_and_missing_pre() {
    let root = tool_root();
    let p = path_arg(root.path());
    // bash: c1 ok 1500 ms, c3 error 250 ms (pre -> tool:error), c4 error 40 ms
    // (duration_ms); sorted 40 250 1500: p50 250, p95 250 + .9*1250 = 1375.
    let want = [
        r#"{"tool":"bash","calls":3,"ok":1,"errors":2,"unfinished":0,"success_rate":0.3333,"p50_ms":250,"p95_ms":1375,"max_ms":1500}"#,
        r#"{"tool":"grep","calls":1,"ok":0,"errors":0,"unfinished":1,"success_rate":null,"p50_ms":null,"p95_ms":null,"max_ms":null}"#,
        r#"{"tool":"read_file","calls":1,"ok":0,"errors":0,"unfinished":1,"success_rate":null,"p50_ms":null,"p95_ms":null,"max_ms":null}"#,
    ];
    assert_eq!(agg(&["--tools", &p]).lines(), want);
    // The same through a pipe of event records, where pre and post may be
    // read by different threads.
    let events = ci("ci-cat").arg(&p).run().stdout;
    assert_eq!(ci("ci-agg").args(["--tools", "-j2"]).stdin(events).run().lines(), want);
    let s = agg(&["--sessions", &p]).json();
    assert_eq!(
        (s[0]["tool_calls"].clone(), s[0]["tool_errors"].clone()),
        (json!({"bash": 3, "grep": 1, "read_file": 1}), json!(2))
    );
}

/// Above 1024 latencies a group's p50/p95 come from a t-digest, whose estimate
/// depends on the order values go in: calls are handed to it in key order,
/// so the same input gives the same answer every run (it came from a hash
/// map's random order before).
#[test]
fn tools_percentiles_are_the_same_every_run() {
    let mut lines = vec![];
    for i in 0..3000u64 {
        let id = format!("c{i:05}");
        // Latencies spread over 1..=997 ms in a scrambled order.
        let ms = 1 + (i * 7919) % 997;
        let pre = format!("2026-03-01T10:{:02}:{:02}.000Z", i / 60 % 60, i % 60);
        let post = format!("2026-03-01T10:{:02}:{:02}.{ms:03}Z", i / 60 % 60, i % 60);
        lines.push(ev("tool:pre", &pre, json!({"tool_name": "bash", "tool_call_id": id})));
        lines.push(ev(
            "tool:post",
            &post,
            json!({"tool_name": "bash", "tool_call_id": id, "result": {"success": true}}),
        ));
    }
    let root = root_with(&[("s1", lines)]);
    let p = path_arg(root.path());
    let first = agg(&["--tools", &p]);
    assert_eq!(first.code, 0, "{first:?}");
    assert!(first.stdout.contains("\"calls\":3000"), "{}", first.stdout);
    for _ in 0..4 {
        assert_eq!(agg(&["--tools", &p]).stdout, first.stdout);
    }
}

#[test]
fn tools_by_a_key() {
    let rows = demo(&["--tools", "--by", "workspace", "--top", "2"]);
    assert_eq!(
        one_line(&rows).iter().map(|l| l.split(",\"ok\"").next().unwrap_or("").to_owned()).collect::<Vec<_>>(),
        [r#"{"workspace":"my-api","tool":"bash","calls":2"#, r#"{"workspace":"my-api","tool":"read_file","calls":2"#]
    );
}

// ---------------------------------------------------------------- partial and merge

const QUERIES: &[&[&str]] = &[
    &["--by", "event"],
    &[
        "--by",
        "day,workspace",
        "--tz",
        "America/Los_Angeles",
        "--stats",
        "data.usage.output_tokens",
        "--distinct",
        "session",
    ],
    &["--by", "model", "--sum", "cost_usd", "--p95", "data.duration_ms", "--max", "data.iteration"],
    &["--tools"],
    &["--tokens", "--by", "hour"],
    &["--sessions"],
];

fn demo_paths() -> Vec<String> {
    find_demo(&["--paths"]).lines().map(str::to_owned).collect()
}

#[test]
fn fan_out_with_xargs_equals_one_run() {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_ci-agg"));
    let dir = bin.parent().unwrap().to_string_lossy().into_owned();
    for q in [&["--by", "event"][..], &["--sessions"], &["--tools"]] {
        let single = agg(&[q, &[DEMO]].concat()).stdout;
        let script = format!(
            "ci-find --root {DEMO} --paths -0 | xargs -0 -n 3 -P 2 sh -c 'ci-agg --partial {} \"$@\"' _ | ci-agg --merge",
            q.join(" ")
        );
        let run = ci_sh(&dir, &script);
        assert_eq!(run.0, single, "{script}\n{}", run.1);
    }
}

#[test]
fn fan_out_with_gnu_parallel_equals_one_run() {
    if !crate::kit::skip::runs("parallel", &["--version"]) {
        return crate::kit::skip("GNU parallel is not installed (Debian: apt-get install parallel)");
    }
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_ci-agg"));
    let dir = bin.parent().unwrap().to_string_lossy().into_owned();
    let single = agg(&["--by", "event", DEMO]).stdout;
    let script = format!(
        "ci-find --root {DEMO} --paths | parallel --will-cite -X -n 3 -j 2 ci-agg --partial --by event | ci-agg --merge"
    );
    let run = ci_sh(&dir, &script);
    assert_eq!(run.0, single, "{}", run.1);
}

/// Runs a shell pipeline from the repository root with the binaries on PATH,
/// in the pinned environment but for `HOME`: a temporary directory, since
/// GNU parallel writes `~/.parallel` (the pinned one is in the checkout).
fn ci_sh(bin_dir: &str, script: &str) -> (String, String) {
    let path = format!("{bin_dir}:{}", std::env::var("PATH").unwrap_or_default());
    let home = tempfile::tempdir().expect("tempdir");
    let out = pinned(std::process::Command::new("sh"))
        .arg("-c")
        .arg(script)
        .env("PATH", path)
        .env("HOME", home.path())
        .output()
        .expect("sh runs");
    (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn merge_reports_bad_input() {
    let partial = agg(&["--partial", "--by", "event", DEMO]).stdout;
    // A torn line: exit 2, named by line.
    let torn = format!("{partial}{{\"kind\":\"group\",\"key\":[\"x\"],\"cou\n");
    let run = ci("ci-agg").arg("--merge").stdin(torn).run();
    assert_eq!(run.code, 2);
    // Line 21: the header, the skipped-lines count (session 5), 18 groups, then the torn line.
    assert!(run.stderr.contains("-:21: not a ci-agg partial line"), "{}", run.stderr);
    // Streams of different queries.
    let other = agg(&["--partial", "--by", "tool", DEMO]).stdout;
    let run = ci("ci-agg").arg("--merge").stdin(format!("{partial}{other}")).run();
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("different queries"), "{}", run.stderr);
    // Nothing is printed for them (issue 18, item 3: event names came out as
    // tools), in either order.
    assert_eq!(run.stdout, "");
    assert_eq!(ci("ci-agg").arg("--merge").stdin(format!("{other}{partial}")).run().stdout, "");
    // Nothing to merge.
    let run = ci("ci-agg").arg("--merge").stdin("").run();
    assert_eq!((run.code, run.stdout.as_str()), (1, ""));
    // Query flags belong to the --partial runs.
    assert_eq!(ci("ci-agg").args(["--merge", "--by", "event"]).stdin("").run().code, 2);
}

#[test]
fn merge_reads_files() {
    let dir = tempfile::tempdir().unwrap();
    let paths = demo_paths();
    let (a, b) = paths.split_at(4);
    let fa = dir.path().join("a.ndjson");
    let fb = dir.path().join("b.ndjson");
    std::fs::write(
        &fa,
        agg(&[&["--partial", "--tokens"][..], &a.iter().map(String::as_str).collect::<Vec<_>>()].concat()).stdout,
    )
    .unwrap();
    std::fs::write(
        &fb,
        agg(&[&["--partial", "--tokens"][..], &b.iter().map(String::as_str).collect::<Vec<_>>()].concat()).stdout,
    )
    .unwrap();
    let merged = agg(&["--merge", &path_arg(&fa), &path_arg(&fb)]);
    assert_eq!(merged.stdout, agg(&["--tokens", DEMO]).stdout);
}

#[test]
fn long_session_states_are_split_under_pipe_buf() {
    // One session spawning 150 children with long ids: its summary is far
    // over 4096 bytes, written as several mergeable lines.
    let mut lines = vec![ev("session:start", "2026-03-01T10:00:00Z", json!({}))];
    for i in 0..150 {
        let id = format!("child-{i:04}-{}", "x".repeat(40));
        lines.push(ev("delegate:agent_spawned", "2026-03-01T10:00:01Z", json!({"sub_session_id": id})));
    }
    let root = root_with(&[("s1", lines)]);
    let p = path_arg(root.path());
    let partial = agg(&["--partial", "--sessions", &p]).stdout;
    assert!(partial.lines().count() > 2);
    assert!(partial.lines().all(|l| l.len() < 4096));
    let merged = ci("ci-agg").arg("--merge").stdin(partial).run();
    assert_eq!(merged.stdout, agg(&["--sessions", &p]).stdout);
    assert_eq!(merged.json()[0]["children"].as_array().unwrap().len(), 150);
}

/// Runs `--partial QUERY` on each shard and `--merge` on the lines of all
/// shards, shuffled (one header kept first).
fn sharded(query: &[&str], shards: &[Vec<String>], seed: u64) -> String {
    let mut header = None;
    let mut lines = vec![];
    for shard in shards.iter().filter(|s| !s.is_empty()) {
        let args: Vec<&str> = query.iter().copied().chain(shard.iter().map(String::as_str)).collect();
        let run = ci("ci-agg").arg("--partial").args(&args).run();
        for l in run.stdout.lines() {
            if l.contains("\"kind\":\"header\"") && header.is_none() {
                header = Some(l.to_owned());
            } else {
                lines.push(l.to_owned());
            }
        }
    }
    // Fisher-Yates with a small LCG: any whole-line interleaving must merge.
    let mut x = seed | 1;
    for i in (1..lines.len()).rev() {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        lines.swap(i, (x >> 33) as usize % (i + 1));
    }
    let input = header.into_iter().chain(lines).map(|l| l + "\n").collect::<String>();
    ci("ci-agg").arg("--merge").stdin(input).run().stdout
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10, ..ProptestConfig::default() })]

    #[test]
    fn partial_then_merge_equals_one_run(assign in proptest::collection::vec(0usize..4, 10), seed in any::<u64>()) {
        let paths = demo_paths();
        prop_assert_eq!(paths.len(), 10);
        let mut shards = vec![vec![]; 4];
        for (p, s) in paths.iter().zip(&assign) {
            shards[*s].push(p.clone());
        }
        for q in QUERIES {
            let single = agg(&[*q, &[DEMO]].concat()).stdout;
            prop_assert!(!single.is_empty());
            prop_assert_eq!(sharded(q, &shards, seed), single, "query {:?} shards {:?}", q, assign);
        }
    }
}

/// Runs `ci-agg ARGS` with `input` written to its stdin in pieces of
/// `piece` lines, pausing `pause` after each (a slow writer of the pipe).
fn agg_paced(args: &[&str], input: &str, piece: usize, pause: std::time::Duration) -> (String, i32) {
    use std::io::Write;
    let mut child = crate::util::ci_command("ci-agg")
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("spawn ci-agg");
    let mut stdin = child.stdin.take().expect("stdin");
    let lines: Vec<&str> = input.lines().collect();
    for chunk in lines.chunks(piece) {
        stdin.write_all((chunk.join("\n") + "\n").as_bytes()).expect("write");
        stdin.flush().expect("flush");
        std::thread::sleep(pause);
    }
    drop(stdin);
    let out = child.wait_with_output().expect("wait");
    (String::from_utf8(out.stdout).expect("utf-8"), out.status.code().unwrap_or(-1))
}

#[test]
fn estimates_do_not_depend_on_how_fast_the_pipe_fills() {
    // 60 sessions of 40 timed calls: 2,400 latencies of one tool, past the
    // 1,024 of exact percentiles, so p50/p95 are t-digest estimates that
    // depend on how the sessions are split among the threads. ci-agg deals
    // its input by a fixed rule only, never by when the writer of the pipe
    // pauses (it used to: `ci-find | ci-agg --tools` varied run to run).
    let sessions: Vec<(String, Vec<String>)> = (0..60u64)
        .map(|s| {
            let lines = (0..40u64)
                .flat_map(|c| {
                    let id = format!("call-{s}-{c}");
                    let ms = (s * 40 + c) * 7919 % 10007;
                    [
                        ev("tool:pre", "2026-03-01T10:00:00Z", json!({"tool_name": "bash", "tool_call_id": id})),
                        ev(
                            "tool:post",
                            "2026-03-01T10:00:01Z",
                            json!({"tool_name": "bash", "tool_call_id": id, "duration_ms": ms, "result": {"success": true}}),
                        ),
                    ]
                })
                .collect();
            (format!("s{s:02}"), lines)
        })
        .collect();
    let named: Vec<(&str, Vec<String>)> = sessions.iter().map(|(id, l)| (id.as_str(), l.clone())).collect();
    let root = root_with(&named);
    let records = ci("ci-find").args(["--root", &path_arg(root.path())]).run();
    assert_eq!(records.lines().len(), 60, "{records:?}");
    let args = ["-j2", "--tools"];
    let fast = agg_paced(&args, &records.stdout, 60, std::time::Duration::ZERO);
    assert_eq!(fast.1, 0);
    assert!(fast.0.starts_with(r#"{"tool":"bash","calls":2400,"ok":2400,"#), "{}", fast.0);
    for piece in [1, 5, 20] {
        let slow = agg_paced(&args, &records.stdout, piece, std::time::Duration::from_millis(3));
        assert_eq!(slow, fast, "written {piece} records at a time");
    }
}

#[test]
fn a_key_or_metric_no_record_has_is_named_with_the_nearest_field() {
    let root = root_with(&[(
        "s1",
        vec![
            ev("tool:pre", "2026-03-01T10:00:00Z", json!({"tool_name": "bash", "status": "ok"})),
            ev("tool:post", "2026-03-01T10:00:01Z", json!({"tool_name": "bash"})),
        ],
    )]);
    let path = path_arg(root.path());
    let run = agg(&["--by", "evnt", &path]);
    assert_eq!((run.code, run.stdout.as_str()), (0, "{\"evnt\":null,\"count\":2}\n"));
    assert_eq!(
        run.stderr,
        "ci-agg: warning: --by evnt: no record has this field (null in every group); did you mean \"event\"?\n"
    );
    let run = agg(&["--by", "modle", "--sum", "data.duraton_ms", &path]);
    assert_eq!(
        run.stderr,
        "ci-agg: warning: --by modle: no record has this field (null in every group); did you mean \"model\"?\n\
         ci-agg: warning: data.duraton_ms: no record has this field, so its metrics are empty\n"
    );
    // A key some records have is no typo: no warning.
    let run = agg(&["--by", "data.status", "--sum", "data.tool_name", &path]);
    assert_eq!(run.code, 0);
    assert!(!run.stderr.contains("no record has this field"), "{run:?}");
}
