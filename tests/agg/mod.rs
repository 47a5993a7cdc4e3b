//! ci-agg on the demo fixtures and on small generated captures. Every
//! expected number is taken from fixtures/README.md or computed by hand from
//! the fixture lines (the comments show the arithmetic).
//!
//! Here: the shared capture-root helpers, counts and metrics (sums,
//! percentiles, distinct counts, `--tokens`, tables, usage errors);
//! `presets.rs`: `--sessions` and `--tools`; `merge.rs`: `--partial`/`--merge`,
//! fan-out through xargs and GNU parallel, answers that do not depend on how
//! the input is split or paced, and the nearest-field hint.

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use serde_json::{json, Value};

use crate::kit::Tree;
use crate::util::*;

mod merge;
mod presets;
mod views;

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
    // Model names shortened, dollars with cents; the total sums the rows
    // shown and says so.
    assert_eq!(
        run.stdout,
        "model           count  cost_usd.sum  cost_source      unpriced_models\n\
         null               63          null  null             []\n\
         sonnet-4.5          7         $0.08  writer           []\n\
         haiku-4.5           4         $0.01  writer+computed  []\n\
         total (3 of 5)     74         $0.09  writer+computed  []\n"
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

/// Amplifier's failed calls name their tool (`data.tool_name` on every tool
/// event), from the files and through a pipe alike; the other errors name none.
#[test]
fn amplifier_failed_calls_name_their_tools() {
    let e = |name: &str| (name.to_owned(), 1);
    let want = [
        (None, vec![e("orchestrator:complete"), e("provider:error")]),
        (Some("bash".to_owned()), vec![e("tool:post")]),
        (Some("read_file".to_owned()), vec![e("tool:error")]),
    ]
    .into();
    assert_eq!(errors_by_tool(DEMO), want);
}
