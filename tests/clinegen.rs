//! Generated Cline, Roo Code and Kilo Code trees: many tasks of the three
//! extensions, requests over both protocols (over the OpenAI one `tokensIn`
//! holds the cache reads), `deleted_api_reqs` and `subagent_usage` rows,
//! requests still streaming (no counts), file tool rows, task models in
//! `task_metadata.json` and task index totals that must not be added. The
//! expected figures come from what was written, not from reading it back.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::{json, Value};

use crate::kit::Rng;
use crate::util::ci;

/// Uncached input, output, cache reads, cache writes, and the cost in
/// units of $0.0001.
type Counts = [u64; 5];

/// What a task should give: its counts, files read and edited, models.
#[derive(Debug, Default, PartialEq)]
struct Task {
    counts: Counts,
    read: BTreeSet<String>,
    edited: BTreeSet<String>,
    models: BTreeSet<String>,
}

/// The extensions: folder id, whether it records `apiProtocol`.
const EXTENSIONS: [(&str, bool); 3] =
    [("saoudrizwan.claude-dev", false), ("rooveterinaryinc.roo-cline", true), ("kilocode.kilo-code", true)];

/// A `say` row at `ts` whose `text` is `info` as a JSON string.
fn say(ts: u64, say: &str, info: &Value) -> Value {
    json!({"ts": ts, "type": "say", "say": say, "text": info.to_string()})
}

/// Writes one task of extension `ext` (index into [`EXTENSIONS`]) from
/// time `ts` (ms): its rows and small files; returns what it should give.
fn task(dir: &Path, ext: usize, rng: &mut Rng, ts: &mut u64) -> Task {
    let (_, protocols) = EXTENSIONS[ext];
    let mut want = Task::default();
    let model = format!("model-{}", rng.below(3));
    // Cline: the task's model in task_metadata.json, half the time; else
    // the rows name it (modelInfo) or nothing.
    let in_metadata = ext == 0 && rng.below(2) == 0;
    let on_rows = !in_metadata && rng.below(2) == 0;
    if in_metadata {
        let meta = json!({"model_usage": [{"ts": *ts, "model_id": model, "model_provider_id": "p", "mode": "act"}]});
        std::fs::write(dir.join("task_metadata.json"), meta.to_string()).unwrap();
    }
    let mut rows = vec![json!({"ts": *ts, "type": "say", "say": "task", "text": "do it"})];
    for r in 0..1 + rng.below(6) {
        *ts += 1000;
        let (fresh, out, reads, writes, cost) =
            (rng.below(5000), rng.below(900), rng.below(20000), rng.below(3000), rng.below(500));
        let openai = protocols && rng.below(2) == 0;
        let tokens_in = if openai { fresh + reads } else { fresh };
        let mut info = json!({"request": format!("req {r}"), "tokensIn": tokens_in, "tokensOut": out,
            "cacheWrites": writes, "cacheReads": reads, "cost": cost as f64 / 10000.0});
        if protocols {
            info["apiProtocol"] = json!(if openai { "openai" } else { "anthropic" });
        }
        let kind = match rng.below(8) {
            0 => "deleted_api_reqs",
            1 if ext == 0 => "subagent_usage",
            _ => "api_req_started",
        };
        let mut row = say(*ts, kind, &info);
        if on_rows && kind != "subagent_usage" {
            row["modelInfo"] = json!({"providerId": "p", "modelId": model, "mode": "act"});
        }
        rows.push(row);
        for (a, b) in want.counts.iter_mut().zip([fresh, out, reads, writes, cost]) {
            *a += b;
        }
        if kind != "subagent_usage" && (in_metadata || on_rows) {
            want.models.insert(model.clone());
        }
        // A file tool row, and now and then a request still streaming.
        *ts += 100;
        let path = format!("src/f{}.rs", rng.below(5));
        let (tool, list) = match rng.below(3) {
            0 => ("readFile", &mut want.read),
            1 => ("editedExistingFile", &mut want.edited),
            _ => ("newFileCreated", &mut want.edited),
        };
        list.insert(path.clone());
        rows.push(say(*ts, "tool", &json!({"tool": tool, "path": path, "content": "x"})));
        if rng.below(4) == 0 {
            *ts += 100;
            rows.push(say(*ts, "api_req_started", &json!({"request": "still streaming"})));
        }
    }
    *ts += 1000;
    rows.push(json!({"ts": *ts, "type": "say", "say": "completion_result", "text": "done"}));
    std::fs::write(dir.join("ui_messages.json"), Value::Array(rows).to_string()).unwrap();
    // The index totals repeat the task's: never added.
    let c = want.counts;
    let totals =
        json!({"tokensIn": c[0], "tokensOut": c[1], "cacheReads": c[2], "cacheWrites": c[3], "totalCost": c[4]});
    if ext != 0 {
        std::fs::write(dir.join("history_item.json"), totals.to_string()).unwrap();
    }
    want
}

/// Writes a tree of `tasks` tasks under `root`'s `globalStorage`; returns
/// each task's expected figures by id, and Cline's task index.
fn tree(root: &Path, seed: u64, tasks: u64) -> BTreeMap<String, Task> {
    let mut rng = Rng(seed);
    let mut ts = 1_760_000_000_000;
    let mut out = BTreeMap::new();
    let mut history = vec![];
    for n in 0..tasks {
        let ext = rng.below(3) as usize;
        let id = if ext == 0 { (ts + 1).to_string() } else { format!("{:08x}-task-{n}", rng.below(1 << 32)) };
        let dir = root.join("globalStorage").join(EXTENSIONS[ext].0).join("tasks").join(&id);
        std::fs::create_dir_all(&dir).unwrap();
        ts += 1;
        let want = task(&dir, ext, &mut rng, &mut ts);
        if ext == 0 {
            history.push(json!({"id": id, "tokensIn": want.counts[0], "tokensOut": want.counts[1]}));
        }
        out.insert(id, want);
    }
    let state = root.join("globalStorage").join(EXTENSIONS[0].0).join("state");
    std::fs::create_dir_all(&state).unwrap();
    std::fs::write(state.join("taskHistory.json"), Value::Array(history).to_string()).unwrap();
    out
}

/// The strings of a JSON array.
fn set(v: &Value) -> BTreeSet<String> {
    v.as_array().unwrap().iter().map(|s| s.as_str().unwrap().to_owned()).collect()
}

#[test]
fn generated_trees_count_every_usage_row_once_by_its_protocol() {
    for seed in [5, 4242, 777_777] {
        let dir = tempfile::tempdir().unwrap();
        let want = tree(dir.path(), seed, 40);
        let modelled = want.values().filter(|t| !t.models.is_empty()).count();
        assert!(modelled > 3 && modelled < want.len() - 3, "seed {seed}: {modelled} tasks with a model");
        let run = ci("ci-agg").args(["--tokens", "--by", "session"]).arg(dir.path()).run();
        assert_eq!((run.stderr.as_str(), run.code), ("", 0), "seed {seed}");
        let n = |r: &Value, k: &str| r[k].as_u64().unwrap();
        // A session's rows of several models (a subagent's usage names none) add up.
        let mut got: BTreeMap<String, Counts> = BTreeMap::new();
        for r in run.json() {
            let cost = (r["cost_usd"].as_f64().unwrap() * 10000.0).round() as u64;
            let c = [
                n(&r, "input_tokens"),
                n(&r, "output_tokens"),
                n(&r, "cache_read_tokens"),
                n(&r, "cache_write_tokens"),
                cost,
            ];
            let sum = got.entry(r["session"].as_str().unwrap().to_owned()).or_default();
            for (a, b) in sum.iter_mut().zip(c) {
                *a += b;
            }
        }
        let counts: BTreeMap<String, Counts> = want.iter().map(|(k, t)| (k.clone(), t.counts)).collect();
        assert_eq!(got, counts, "seed {seed}");
        // Files and models, session by session.
        let run = ci("ci-agg").arg("--sessions").arg(dir.path()).run();
        assert_eq!((run.stderr.as_str(), run.code), ("", 0), "seed {seed}");
        for r in run.json() {
            let id = r["session"].as_str().unwrap();
            let t = &want[id];
            let got = (set(&r["files_read"]), set(&r["files_edited"]), set(&r["models"]));
            assert_eq!(got, (t.read.clone(), t.edited.clone(), t.models.clone()), "seed {seed}, task {id}");
        }
        // Each extension's tasks are its own format.
        let find = ci("ci-find").arg("--root").arg(dir.path()).run();
        let mut formats: BTreeMap<String, usize> = BTreeMap::new();
        for r in find.json() {
            *formats.entry(r["format"].as_str().unwrap().to_owned()).or_default() += 1;
        }
        assert_eq!(formats.values().sum::<usize>(), want.len(), "seed {seed}: {formats:?}");
        assert_eq!(formats.len(), 3, "seed {seed}: {formats:?}");
    }
}
