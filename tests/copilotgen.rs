//! A small deterministic generator of GitHub Copilot CLI homes
//! (`session-state/<id>/events.jsonl`, formats-next.md §4) for the Copilot
//! tests, and the test that reads them. Test-only.
//!
//! [`generate`] returns what a correct reader must find ([`Expected`]),
//! computed from the figures it wrote, not by reading the files: each leg's
//! own usage per model, which the shutdown that ends it writes on top of
//! the previous shutdown's counters (cumulative), or alone after a
//! compaction (a reset, which some legs have: they read nothing cached, so
//! some counter goes down); legs of one or two models;
//! calls and their ends, some failed; the recorded cost, cumulative too.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{json, Value};

use crate::util::ci;

/// Counters of one model: input (cache-inclusive), output, cache read, cache write.
type Counters = [u64; 4];

/// What the generated tree holds.
#[derive(Debug, Default)]
pub struct Expected {
    /// (session, model) → (responses, [fresh input, cache read, cache write, output]).
    pub by_session: BTreeMap<(String, String), (u64, [u64; 4])>,
    /// Tool → (calls, errors).
    pub tools: BTreeMap<String, (u64, u64)>,
    /// Nano AI units recorded, over the tree.
    pub nano: u64,
    /// Legs whose counters were reset.
    pub resets: u64,
}

/// Writes `sessions` sessions under `home` (seeded by `seed`) and returns
/// what they hold.
pub fn generate(home: &Path, seed: u64, sessions: usize) -> Expected {
    let mut below = crate::qwengen::below_from(seed);
    let mut expected = Expected::default();
    const MODELS: [&str; 2] = ["claude-sonnet-4.6", "gpt-5.4"];
    for s in 0..sessions {
        let id = format!("00000000-0000-4000-8000-{s:012}");
        let day = 1 + s % 28;
        let mut lines: Vec<Value> = vec![];
        let mut n = 0;
        let mut line = |lines: &mut Vec<Value>, kind: &str, data: Value| {
            n += 1;
            let ts = format!("2026-05-{day:02}T{:02}:{:02}:00Z", n / 60 % 24, n % 60);
            lines.push(json!({"type": kind, "data": data, "id": format!("e{n}"), "timestamp": ts, "parentId": null}));
        };
        line(&mut lines, "session.start", json!({"sessionId": id, "context": {"cwd": "/home/u/app"}}));
        let mut totals: BTreeMap<&str, Counters> = BTreeMap::new();
        let mut nano = 0u64;
        // The first leg has nothing to reset.
        let mut last_reset = true;
        for leg in 0..1 + below(4) {
            // Not twice in a row: a reset leg is told by the cache reads
            // the one before it had (a reset that lowers no counter is one
            // no reader can see).
            let reset = !last_reset && below(3) == 0;
            last_reset = reset;
            if reset {
                line(&mut lines, "session.compaction_complete", json!({"success": true}));
                totals.clear();
                nano = 0;
                expected.resets += 1;
            }
            line(&mut lines, "user.message", json!({"content": format!("task {s}.{leg}")}));
            let models = if below(4) == 0 { &MODELS[..] } else { &MODELS[..1] };
            for &m in models {
                // A reset leg reads nothing cached: its counters are below the
                // last shutdown's (every cache read counter there is over 0),
                // which is how a reader tells a reset.
                let read = if reset { 0 } else { 1 + below(5000) };
                let (write, fresh, out) = (below(500), 1 + below(2000), 1 + below(300));
                for c in 0..below(3) {
                    let call = format!("call_{s}_{leg}_{m}_{c}");
                    let tool = ["bash", "view", "edit"][below(3) as usize];
                    let ok = below(4) != 0;
                    line(&mut lines, "tool.execution_start", json!({"toolCallId": call, "toolName": tool}));
                    line(&mut lines, "tool.execution_complete", json!({"toolCallId": call, "success": ok}));
                    let e = expected.tools.entry(tool.to_owned()).or_default();
                    e.0 += 1;
                    e.1 += u64::from(!ok);
                }
                line(&mut lines, "assistant.message", json!({"content": "done", "model": m, "outputTokens": out}));
                let t = totals.entry(m).or_default();
                *t = [t[0] + fresh + read + write, t[1] + out, t[2] + read, t[3] + write];
                let e = expected.by_session.entry((id.clone(), m.to_owned())).or_default();
                e.0 += 1;
                e.1 = [e.1[0] + fresh, e.1[1] + read, e.1[2] + write, e.1[3] + out];
            }
            let grown = 1 + below(1_000_000);
            nano += grown;
            expected.nano += grown;
            let metrics: serde_json::Map<String, Value> = totals
                .iter()
                .map(|(m, c)| {
                    let usage = json!({"inputTokens": c[0], "outputTokens": c[1], "cacheReadTokens": c[2], "cacheWriteTokens": c[3], "reasoningTokens": 0});
                    ((*m).to_owned(), json!({"usage": usage}))
                })
                .collect();
            line(&mut lines, "session.shutdown", json!({"totalNanoAiu": nano, "modelMetrics": metrics}));
        }
        let dir = home.join("session-state").join(&id);
        std::fs::create_dir_all(&dir).unwrap();
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(dir.join("events.jsonl"), text).unwrap();
    }
    expected
}

/// Every leg counts once, whatever the resets: tokens per session and
/// model, calls per tool, the recorded cost over the tree, on one thread
/// or several.
#[test]
fn generated_homes_count_each_leg_once() {
    let dir = tempfile::tempdir().unwrap();
    let expected = generate(dir.path(), 11, 150);
    assert!(expected.resets > 40, "resets: {}", expected.resets);
    let home = dir.path().to_str().unwrap();
    for threads in ["-j1", "-j3"] {
        let run = ci("ci-agg").args(["--tokens", "--by", "session", "--no-cache", threads, home]).run();
        assert_eq!((run.stderr.as_str(), run.code), ("", 0));
        let n = |r: &Value, k: &str| r[k].as_u64().unwrap();
        let ours: BTreeMap<(String, String), (u64, [u64; 4])> = run
            .json()
            .iter()
            .map(|r| {
                let key = (r["session"].as_str().unwrap().to_owned(), r["model"].as_str().unwrap().to_owned());
                let c = [
                    n(r, "input_tokens"),
                    n(r, "cache_read_tokens"),
                    n(r, "cache_write_tokens"),
                    n(r, "output_tokens"),
                ];
                (key, (n(r, "responses"), c))
            })
            .collect();
        assert_eq!(ours, expected.by_session, "{threads}");
        let run = ci("ci-agg").args(["--tools", threads, home]).run();
        let tools: BTreeMap<String, (u64, u64)> = run
            .json()
            .iter()
            .map(|r| (r["tool"].as_str().unwrap().to_owned(), (n(r, "calls"), n(r, "errors"))))
            .collect();
        assert_eq!(tools, expected.tools, "{threads}");
    }
    // The recorded cost, summed exactly: nano AI units / 10^11 dollars.
    let total = ci("ci-agg").args(["--tokens", "--by", "writer", home]).run();
    let usd = total.json()[0]["cost_usd"].as_f64().unwrap();
    assert!((usd - expected.nano as f64 / 1e11).abs() < 1e-9, "{usd} vs {}", expected.nano);
}
