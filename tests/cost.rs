//! Cost: the writer's `cost_usd` or one computed from the built-in price
//! table (`--cost`, `--pricing`, `CI_PRICING`), its `cost_source`, and models
//! without a price (`unpriced_models`, never a silent 0).
//!
//! Expected costs come from outside our tools: ccusage 20.0.24's stored
//! answers for the fixture trees, and for generated lines the rates of
//! LiteLLM's price list (the entries named in each test) multiplied out by hand.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{json, Value};

use crate::util::{ci, root};

const TRANSCRIPTS: &str = "fixtures/claude-transcripts";

/// ccusage's `daily --breakdown` costs: (day, model) → USD.
fn ccusage_costs() -> BTreeMap<(String, String), f64> {
    let path = root().join(TRANSCRIPTS).join("ccusage/daily-breakdown.json");
    let v: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let mut out = BTreeMap::new();
    for day in v["daily"].as_array().unwrap() {
        for m in day["modelBreakdowns"].as_array().unwrap() {
            let key = (day["date"].as_str().unwrap().to_owned(), m["modelName"].as_str().unwrap().to_owned());
            out.insert(key, m["cost"].as_f64().unwrap());
        }
    }
    out
}

/// Our `--tokens --by day` rows by (day, model).
fn rows_by_day(args: &[&str]) -> BTreeMap<(Option<String>, Option<String>), Value> {
    let run = ci("ci-agg").args(["--tokens", "--by", "day"]).args(args).arg(TRANSCRIPTS).run();
    assert_eq!(run.code, 0, "{run:?}");
    run.json()
        .into_iter()
        .map(|r| ((r["day"].as_str().map(str::to_owned), r["model"].as_str().map(str::to_owned)), r))
        .collect()
}

fn key(day: &str, model: &str) -> (Option<String>, Option<String>) {
    (Some(day.to_owned()), Some(model.to_owned()))
}

#[test]
fn claude_costs_per_day_and_model_equal_ccusage_within_half_a_percent() {
    let ours = rows_by_day(&[]);
    let cc = ccusage_costs();
    assert_eq!(cc.len(), 8);
    for ((day, model), want) in &cc {
        // ccusage names a fast response's model `<model>-fast` (see tests/transcripts.rs).
        let model = model.strip_suffix("-fast").unwrap_or(model);
        let row = &ours[&key(day, model)];
        let got = row["cost_usd"].as_f64().unwrap_or_else(|| panic!("no cost for ({day}, {model}): {row}"));
        assert!((got - want).abs() <= 0.005 * want, "({day}, {model}): ours {got}, ccusage {want}");
    }
    // Where the lines carry costUSD (ryoppippi's fixtures), both use it.
    for (day, model, usd) in [
        ("2026-01-09", "claude-sonnet-4-20250514", 0.12),
        ("2026-01-09", "claude-opus-4-20250514", 0.34),
        ("2026-01-10", "claude-sonnet-4-20250514", 0.56),
        ("2026-02-03", "claude-haiku-4-5-20251001", 0.07),
    ] {
        let row = &ours[&key(day, model)];
        assert_eq!((row["cost_usd"].as_f64(), row["cost_source"].as_str()), (Some(usd), Some("writer")), "{row}");
    }
    // Computed, exactly: 177 responses of claude-sonnet-4-20250514 (LiteLLM's
    // anthropic.claude-sonnet-4-20250514-v1:0: $3 input, $15 output, $0.30
    // cache read, $3.75 cache write per million): 911×3 + 52886×15 +
    // 3751073×0.3 + 150674×3.75 = 2486372.4 µ$.
    let row = &ours[&key("2025-09-03", "claude-sonnet-4-20250514")];
    assert_eq!(row["cost_usd"], json!(2.4863724));
    assert_eq!(row["cost_source"], "computed");
    assert_eq!(row["unpriced_models"], json!([]));
    // `claude-sonnet-4` (no date) is priced as the latest dated entry of
    // that name, as ccusage does: 883×3 + 328×15 = 7569 µ$.
    assert_eq!(ours[&key("2025-06-14", "claude-sonnet-4")]["cost_usd"], json!(0.007569));
    // The responses without a model have no price: null, never 0.
    let none = &ours[&(None, None)];
    assert_eq!((&none["cost_usd"], &none["cost_source"]), (&Value::Null, &json!("unpriced")));
}

#[test]
fn cost_computed_ignores_the_writers_cost() {
    let ours = rows_by_day(&["--cost", "computed"]);
    // 2026-01-09, claude-sonnet-4-20250514 (costUSD 0.12 written): input 100,
    // output 50, cache read 10, cache write 25 → 300 + 750 + 3 + 93.75 µ$.
    let row = &ours[&key("2026-01-09", "claude-sonnet-4-20250514")];
    assert_eq!((&row["cost_usd"], &row["cost_source"]), (&json!(0.00114675), &json!("computed")));
    assert!(ours.values().all(|r| r["cost_source"] != "writer"), "{ours:?}");
}

/// Writes one Claude Code transcript with these assistant responses (model, usage) under `dir`.
fn transcript(dir: &Path, responses: &[(&str, Value)]) {
    let project = dir.join("projects/-work-demo");
    std::fs::create_dir_all(&project).unwrap();
    let mut text = String::new();
    for (i, (model, usage)) in responses.iter().enumerate() {
        let line = json!({
            "type": "assistant", "sessionId": "s-1", "cwd": "/work/demo", "uuid": format!("u{i}"),
            "timestamp": format!("2026-04-0{}T10:00:00.000Z", i + 1), "requestId": format!("req_{i}"),
            "message": {"id": format!("msg_{i}"), "role": "assistant", "model": model,
                        "content": [{"type": "text", "text": "ok"}], "usage": usage}
        });
        text.push_str(&line.to_string());
        text.push('\n');
    }
    std::fs::write(project.join("s-1.jsonl"), text).unwrap();
}

fn usage(input: u64, output: u64, read: u64, write_5m: u64, write_1h: u64) -> Value {
    json!({"input_tokens": input, "output_tokens": output, "cache_read_input_tokens": read,
           "cache_creation_input_tokens": write_5m + write_1h,
           "cache_creation": {"ephemeral_5m_input_tokens": write_5m, "ephemeral_1h_input_tokens": write_1h}})
}

#[test]
fn one_hour_cache_writes_and_the_long_context_tier_are_priced_per_response() {
    let dir = tempfile::tempdir().unwrap();
    let m = "claude-sonnet-4-20250514";
    transcript(
        dir.path(),
        &[
            // Prompt 100 + 100,000 + 1,000 ≤ 200k: base rates; the 600 1-hour
            // writes at 2× input ($6/M: LiteLLM lists no 1-hour rate for this
            // model, Anthropic's multiplier applies): 100×3 + 2000×15 +
            // 100000×0.3 + 400×3.75 + 600×6 = 65400 µ$.
            (m, usage(100, 2000, 100_000, 400, 600)),
            // Prompt 241,100 > 200k: the whole request at the tier's rates ($6
            // input, $22.50 output, $0.60 read, $7.50 write, 1-hour 2× $6):
            // 100×6 + 2000×22.5 + 240000×0.6 + 400×7.5 + 600×12 = 199800 µ$.
            (m, usage(100, 2000, 240_000, 400, 600)),
        ],
    );
    let run = ci("ci-agg").args(["--tokens", "--by", "day"]).arg(dir.path()).run();
    assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{run:?}");
    let costs: Vec<(String, Value)> =
        run.json().iter().map(|r| (r["day"].as_str().unwrap().to_owned(), r["cost_usd"].clone())).collect();
    assert_eq!(costs, [("2026-04-01".to_owned(), json!(0.0654)), ("2026-04-02".to_owned(), json!(0.1998))]);
}

#[test]
fn a_model_without_a_price_is_null_named_and_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    transcript(
        dir.path(),
        &[("claude-imaginary-9", usage(10, 20, 0, 0, 0)), ("claude-sonnet-4-5", usage(1000, 100, 0, 0, 0))],
    );
    let run = ci("ci-agg").args(["--tokens"]).arg(dir.path()).run();
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        run.stderr,
        "ci-agg: warning: no price for model \"claude-imaginary-9\" in litellm 1.110.2 (built in): their cost is null \
         and named in unpriced_models (--pricing FILE adds prices)\n"
    );
    let rows = run.json();
    let by_model: BTreeMap<&str, &Value> = rows.iter().map(|r| (r["model"].as_str().unwrap(), r)).collect();
    let odd = by_model["claude-imaginary-9"];
    assert_eq!((&odd["cost_usd"], &odd["cost_source"]), (&Value::Null, &json!("unpriced")));
    assert_eq!(odd["unpriced_models"], json!(["claude-imaginary-9"]));
    // 1000×3 + 100×15 = 4500 µ$.
    assert_eq!(by_model["claude-sonnet-4-5"]["cost_usd"], json!(0.0045));

    // --sessions: the session's cost is what could be priced, and says so.
    let run = ci("ci-agg").args(["--sessions"]).arg(dir.path()).run();
    assert_eq!(run.code, 0, "{run:?}");
    let s = &run.json()[0];
    assert_eq!(s["cost_usd"], json!(0.0045));
    assert_eq!(s["cost_source"], "computed+unpriced");
    assert_eq!(s["unpriced_models"], json!(["claude-imaginary-9"]));

    // A price table of the user's own prices it.
    let table = dir.path().join("prices.json");
    std::fs::write(
        &table,
        r#"{"claude-imaginary-9": {"input_cost_per_token": 1e-3, "output_cost_per_token": 2e-3, "litellm_provider": "anthropic"}}"#,
    )
    .unwrap();
    for via_env in [false, true] {
        let cmd = ci("ci-agg").args(["--tokens"]);
        let cmd = if via_env { cmd.env("CI_PRICING", &table) } else { cmd.arg("--pricing").arg(&table) };
        let run = cmd.arg(dir.path().join("projects")).run();
        let rows = run.json();
        let by_model: BTreeMap<&str, &Value> = rows.iter().map(|r| (r["model"].as_str().unwrap(), r)).collect();
        // 10×0.001 + 20×0.002 = 0.05; claude-sonnet-4-5 is not in that table.
        assert_eq!(by_model["claude-imaginary-9"]["cost_usd"], json!(0.05), "{run:?}");
        assert_eq!(by_model["claude-sonnet-4-5"]["cost_usd"], Value::Null, "{run:?}");
        assert!(run.stderr.contains("no price for model \"claude-sonnet-4-5\" in "), "{run:?}");
    }
}

#[test]
fn a_broken_price_table_is_an_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("prices.json");
    std::fs::write(&table, r#"{"m": {"input_cost_per_token": "cheap", "output_cost_per_token": 1}}"#).unwrap();
    let run = ci("ci-agg").args(["--tokens", "--pricing"]).arg(&table).arg(TRANSCRIPTS).run();
    assert_eq!((run.code, run.stdout.as_str()), (2, ""), "{run:?}");
    assert_eq!(
        run.stderr,
        format!(
            "ci-agg: {}: model \"m\": input_cost_per_token is \"cheap\", not a non-negative number\n",
            table.display()
        )
    );
    let run = ci("ci-agg").args(["--tokens", "--pricing", "no/such/prices.json", TRANSCRIPTS]).run();
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.starts_with("ci-agg: no/such/prices.json: cannot read the price table: "), "{run:?}");
}

#[test]
fn writer_costs_and_computed_costs_are_told_apart() {
    // The demo captures: Amplifier writes cost_usd on most responses.
    let auto = ci("ci-agg").args(["--tokens", "fixtures/demo"]).run();
    let computed = ci("ci-agg").args(["--tokens", "--cost", "computed", "fixtures/demo"]).run();
    let sources = |run: &crate::util::Run| -> Vec<String> {
        run.json().iter().map(|r| r["cost_source"].as_str().unwrap_or("null").to_owned()).collect()
    };
    assert!(sources(&auto).iter().any(|s| s == "writer"), "{auto:?}");
    assert!(sources(&computed).iter().all(|s| s == "computed" || s.contains("unpriced")), "{computed:?}");
    // --by with --sum cost_usd says where the cost came from too.
    let run = ci("ci-agg").args(["--by", "model", "--sum", "cost_usd", "fixtures/demo"]).run();
    assert!(run.json().iter().all(|r| r.get("cost_source").is_some()), "{run:?}");
}

#[test]
fn partial_and_merge_keep_cost_sources_and_refuse_other_prices() {
    let dir = tempfile::tempdir().unwrap();
    transcript(
        dir.path(),
        &[("claude-imaginary-9", usage(10, 20, 0, 0, 0)), ("claude-sonnet-4-5", usage(1000, 100, 0, 0, 0))],
    );
    let whole = ci("ci-agg").args(["--tokens"]).arg(dir.path()).run();
    let part = ci("ci-agg").args(["--tokens", "--partial"]).arg(dir.path()).run();
    assert_eq!(part.code, 0, "{part:?}");
    let merged = ci("ci-agg").args(["--merge"]).stdin(part.stdout.clone()).run();
    assert_eq!((merged.code, &merged.stdout, &merged.stderr), (0, &whole.stdout, &whole.stderr), "{merged:?}");

    let table = dir.path().join("prices.json");
    std::fs::write(&table, r#"{"x": {"input_cost_per_token": 1e-6, "output_cost_per_token": 1e-6}}"#).unwrap();
    let other = ci("ci-agg").args(["--tokens", "--partial", "--pricing"]).arg(&table).arg(dir.path()).run();
    let both = format!("{}{}", part.stdout, other.stdout);
    let merged = ci("ci-agg").args(["--merge"]).stdin(both).run();
    assert_eq!((merged.code, merged.stdout.as_str()), (2, ""), "{merged:?}");
    assert!(merged.stderr.contains("partial streams of different queries cannot be merged"), "{merged:?}");
}

/// Writes one transcript per (session, timestamp, model, input, output) response under `dir`.
fn responses(dir: &Path, rows: &[(&str, &str, &str, u64, u64)]) {
    let project = dir.join("projects/-work-demo");
    std::fs::create_dir_all(&project).unwrap();
    let mut files: BTreeMap<&str, String> = BTreeMap::new();
    for (i, (session, ts, model, input, output)) in rows.iter().enumerate() {
        let line = json!({
            "type": "assistant", "sessionId": session, "cwd": "/work/demo", "uuid": format!("u{i}"),
            "timestamp": ts, "requestId": format!("req_{i}"),
            "message": {"id": format!("msg_{i}"), "role": "assistant", "model": model,
                        "content": [{"type": "text", "text": "ok"}], "usage": usage(*input, *output, 0, 0, 0)}
        });
        let text = files.entry(session).or_default();
        text.push_str(&line.to_string());
        text.push('\n');
    }
    for (session, text) in files {
        std::fs::write(project.join(format!("{session}.jsonl")), text).unwrap();
    }
}

#[test]
fn token_reports_by_day_week_month_and_session_in_time_order_with_a_total() {
    let dir = tempfile::tempdir().unwrap();
    let m = "claude-sonnet-4-5"; // $3 input, $15 output per million
    responses(
        dir.path(),
        &[
            ("s-b", "2026-03-31T23:00:00.000Z", m, 1000, 100), // Tue, ISO week 14, March
            ("s-a", "2026-04-01T08:00:00.000Z", m, 2000, 200), // Wed, week 14, April
            ("s-a", "2026-04-01T09:00:00.000Z", m, 3000, 300),
            ("s-a", "2026-03-02T10:00:00.000Z", m, 4000, 400), // Mon, week 10, March
        ],
    );
    let keys = |by: &str, extra: &[&str]| -> Vec<(String, u64, Value)> {
        let run = ci("ci-agg").args(["--tokens", "--by", by]).args(extra).arg(dir.path()).run();
        assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{run:?}");
        run.json()
            .iter()
            .map(|r| (r[by].as_str().unwrap().to_owned(), r["input_tokens"].as_u64().unwrap(), r["cost_usd"].clone()))
            .collect()
    };
    let s = |v: &str| v.to_owned();
    // Time order, not count order (2026-04-01 has the most responses).
    assert_eq!(
        keys("day", &[]),
        [
            (s("2026-03-02"), 4000, json!(0.018)),
            (s("2026-03-31"), 1000, json!(0.0045)),
            (s("2026-04-01"), 5000, json!(0.0225))
        ]
    );
    assert_eq!(keys("week", &[]), [(s("2026-W10"), 4000, json!(0.018)), (s("2026-W14"), 6000, json!(0.027))]);
    assert_eq!(keys("month", &[]), [(s("2026-03"), 5000, json!(0.0225)), (s("2026-04"), 5000, json!(0.0225))]);
    // In Tokyo (+09:00) the first response is on April 1st.
    assert_eq!(
        keys("month", &["--tz", "Asia/Tokyo"]),
        [(s("2026-03"), 4000, json!(0.018)), (s("2026-04"), 6000, json!(0.027))]
    );
    // Not a time key: count descending.
    assert_eq!(keys("session", &[]), [(s("s-a"), 9000, json!(0.0405)), (s("s-b"), 1000, json!(0.0045))]);

    // --top on time buckets keeps the newest; the table's total sums the
    // rows shown and says so; the zone is in the header.
    let run = ci("ci-agg").args(["--tokens", "--by", "month", "--format", "table", "--top", "1"]).arg(dir.path()).run();
    assert_eq!(
        run.stdout,
        "month (UTC)     model       responses  input_tokens  output_tokens  cache_read_tokens  cache_write_tokens  cost_usd\n\
         2026-04         sonnet-4.5          2         5,000            500                  0                   0     $0.02\n\
         total (1 of 2)                      2         5,000            500                  0                   0     $0.02\n"
    );
    // cost_source and unpriced_models are left out of a table unless named.
    let run = ci("ci-agg")
        .args([
            "--tokens",
            "--by",
            "month",
            "--format",
            "table",
            "--columns",
            "month,cost_usd,cost_source,unpriced_models",
        ])
        .arg(dir.path())
        .run();
    assert_eq!(
        run.stdout,
        "month (UTC)  cost_usd  cost_source  unpriced_models\n\
         2026-03         $0.02  computed     []\n\
         2026-04         $0.02  computed     []\n\
         total           $0.04  computed     []\n"
    );
    // NDJSON, TSV and CSV have no total row unless --total asks.
    let run = ci("ci-agg").args(["--tokens", "--by", "month", "--format", "csv"]).arg(dir.path()).run();
    assert_eq!(run.stdout.lines().count(), 3, "{run:?}");
}

/// Token counts that are no counts (negative, fractional, past 2^53, a
/// word) are damaged: each response is named with its count in a warning,
/// counts no tokens and no cost, and is not blamed on the price table (the
/// model has a price); cold, warm (the cache keeps no capture that warned)
/// and uncached alike, and through a pipe.
#[test]
fn damaged_token_counts_are_warned_about_not_summed_nor_unpriced() {
    let dir = tempfile::tempdir().unwrap();
    let m = "claude-sonnet-4-20250514";
    let bad = ["-3", "1.5", "1e30", "\"many\""];
    let mut rows = vec![(m, usage(10, 5, 0, 0, 0))];
    for b in bad {
        let mut u = usage(10, 0, 0, 0, 0);
        u["output_tokens"] = serde_json::from_str(b).unwrap();
        rows.push((m, u));
    }
    transcript(dir.path(), &rows);
    let file = dir.path().join("projects/-work-demo/s-1.jsonl");
    let warnings: String = bad
        .iter()
        .enumerate()
        .map(|(i, b)| {
            // As written in the file (serde_json writes 1e30 as 1e+30).
            let b = serde_json::from_str::<Value>(b).unwrap().to_string();
            let line = i + 2;
            format!("ci-agg: warning: {}:{line}: damaged token count output_tokens {b}: not counted\n", file.display())
        })
        .collect();
    for cache in [None, None, Some("--no-cache")] {
        let run = ci("ci-agg").arg("--tokens").args(cache).arg(dir.path()).run();
        assert_eq!((run.code, run.stderr.as_str()), (0, warnings.as_str()), "{cache:?}");
        let row = &run.json()[0];
        // 10×3 + 5×15 = 105 µ$: the first response only.
        assert_eq!(
            (&row["input_tokens"], &row["output_tokens"], &row["cost_usd"]),
            (&json!(10), &json!(5), &json!(0.000105))
        );
        assert_eq!((&row["cost_source"], &row["unpriced_models"]), (&json!("computed"), &json!([])), "{cache:?}");
        let run = ci("ci-agg").arg("--sessions").args(cache).arg(dir.path()).run();
        assert_eq!(run.json()[0]["tokens"], json!({"input": 10, "output": 5, "cache_read": 0, "cache_write": 0}));
    }
    let all = ci("ci-cat").arg(dir.path()).run();
    let piped = ci("ci-agg").arg("--tokens").stdin(all.stdout).run();
    assert_eq!(piped.json()[0]["output_tokens"], json!(5), "{piped:?}");
}
