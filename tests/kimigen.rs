//! Generated Kimi CLI trees: sessions with subagents (whose usage the parent
//! mirrors in `SubagentEvent`s) and forks (and forks of forks) that copy
//! their parent's wire lines verbatim. The expected counts come from the
//! figures written, not from reading the files back.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{json, Value};

use crate::kit::Rng;
use crate::util::ci;

/// Input, cache read, cache write, output.
type Counts = [u64; 4];

/// One wire line at second `t` (Unix seconds, from 2026-06-10T00:00:00Z).
fn line(t: u64, kind: &str, payload: Value) -> String {
    json!({"timestamp": 1_781_049_600.0 + t as f64 / 10.0, "message": {"type": kind, "payload": payload}}).to_string()
}

/// A StatusUpdate's payload with these counts.
fn status(id: &str, c: Counts) -> Value {
    let usage = json!({"input_other": c[0], "input_cache_read": c[1], "input_cache_creation": c[2], "output": c[3]});
    json!({"token_usage": usage, "message_id": id})
}

/// A turn of `steps` responses from second `t`: its lines and their counts.
fn turn(rng: &mut Rng, t: &mut u64, tag: &str, steps: u64) -> (Vec<String>, Counts) {
    let mut lines = vec![line(*t, "TurnBegin", json!({"user_input": format!("do {tag}")}))];
    let mut sum = [0; 4];
    for s in 0..steps {
        *t += 1;
        let c = [rng.below(5000), rng.below(20000), rng.below(300), rng.below(900)];
        for (a, b) in sum.iter_mut().zip(c) {
            *a += b;
        }
        lines.push(line(*t, "StepBegin", json!({"n": s + 1})));
        *t += 1;
        lines.push(line(*t, "StatusUpdate", status(&format!("{tag}-{s}"), c)));
    }
    *t += 1;
    lines.push(line(*t, "TurnEnd", json!({})));
    (lines, sum)
}

fn write(path: &Path, lines: &[String]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut text = String::from("{\"type\":\"metadata\",\"protocol_version\":\"1.10\"}\n");
    for l in lines {
        text.push_str(l);
        text.push('\n');
    }
    std::fs::write(path, text).unwrap();
}

/// Writes a tree under `root`: each session a turn or two, some with a
/// subagent, some forks of an earlier session; returns each session's own
/// counts and how many sessions are forks.
fn tree(root: &Path, seed: u64, sessions: usize) -> (BTreeMap<String, Counts>, usize) {
    let mut rng = Rng(seed);
    let mut t = 0;
    let mut written: Vec<Vec<String>> = Vec::new();
    let mut own = BTreeMap::new();
    let mut forks = 0;
    let dir = root.join("sessions/h");
    for n in 0..sessions {
        let id = format!("s{n:03}");
        // A fork copies an earlier session's lines (its copies included) verbatim.
        let mut lines = match rng.below(3) {
            0 if n > 0 => written[rng.below(n as u64) as usize].clone(),
            _ => Vec::new(),
        };
        forks += usize::from(!lines.is_empty());
        let mut sum = [0; 4];
        for k in 0..1 + rng.below(2) {
            t += 10;
            let steps = 1 + rng.below(3);
            let (more, c) = turn(&mut rng, &mut t, &format!("{id}-{k}"), steps);
            lines.extend(more);
            for (a, b) in sum.iter_mut().zip(c) {
                *a += b;
            }
        }
        if rng.below(2) == 0 {
            let agent = format!("a{n:03}");
            t += 1;
            let steps = 1 + rng.below(2);
            let (sub, c) = turn(&mut rng, &mut t, &agent, steps);
            // The parent mirrors the subagent's lines, usage included.
            for l in &sub {
                let event: Value = serde_json::from_str::<Value>(l).unwrap()["message"].clone();
                lines.push(line(t, "SubagentEvent", json!({"agent_id": agent, "event": event})));
            }
            write(&dir.join(&id).join("subagents").join(&agent).join("wire.jsonl"), &sub);
            own.insert(agent, c);
        }
        write(&dir.join(&id).join("wire.jsonl"), &lines);
        own.insert(id, sum);
        written.push(lines);
    }
    (own, forks)
}

#[test]
fn generated_trees_count_each_response_once_in_its_own_session() {
    for seed in [7, 1234, 99991] {
        let dir = tempfile::tempdir().unwrap();
        let (expected, forks) = tree(dir.path(), seed, 24);
        let subagents = expected.keys().filter(|k| k.starts_with('a')).count();
        assert!(forks > 2 && subagents > 2, "seed {seed}: {forks} forks, {subagents} subagents");
        let run = ci("ci-agg").args(["--tokens", "--by", "session"]).arg(dir.path()).run();
        assert_eq!((run.stderr.as_str(), run.code), ("", 0), "seed {seed}");
        let n = |r: &Value, k: &str| r[k].as_u64().unwrap();
        let got: BTreeMap<String, Counts> = run
            .json()
            .iter()
            .map(|r| {
                let c = [
                    n(r, "input_tokens"),
                    n(r, "cache_read_tokens"),
                    n(r, "cache_write_tokens"),
                    n(r, "output_tokens"),
                ];
                (r["session"].as_str().unwrap().to_owned(), c)
            })
            .collect();
        assert_eq!(got, expected, "seed {seed}");
    }
}
