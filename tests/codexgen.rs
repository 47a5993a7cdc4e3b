//! A small deterministic generator of Codex CLI rollout trees (a
//! `CODEX_HOME` with `sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl` and
//! `archived_sessions/`, formats.md §6) for the Codex tests. Test-only.
//!
//! [`generate`] returns what a correct reader must find ([`Expected`]),
//! computed from what was written. The files hold the shapes a reader must
//! tell apart:
//!
//! - `session_meta` first (id, cwd, originator, cli_version), `turn_context`
//!   lines naming the model (it changes between turns of some sessions);
//! - `token_count` events with `last_token_usage` and the running
//!   `total_token_usage`; re-emits of the previous event (the same total: no
//!   new usage); events with only the total (their usage is its growth);
//!   events with `info: null` (rate limits only); `input_tokens` that include
//!   `cached_input_tokens` and `output_tokens` that include
//!   `reasoning_output_tokens`;
//! - `function_call`/`function_call_output` pairs by `call_id`, failures
//!   written both as JSON metadata (`exit_code`) and as `Exit code: N` text;
//! - damaged lines (a cut `reasoning` line, always followed by a good line)
//!   and torn last lines (a cut line without a final newline);
//! - an archived copy of a session under `archived_sessions/` (the
//!   `sessions/` copy counts), and an archived-only session (it counts).

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

/// Token figures in the toolkit's names: uncached input, cache read, output.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Tokens {
    pub input: u64,
    pub cache_read: u64,
    pub output: u64,
}

impl Tokens {
    fn add(&mut self, o: Tokens) {
        self.input += o.input;
        self.cache_read += o.cache_read;
        self.output += o.output;
    }
}

/// Calls of one tool: (calls, errors).
pub type ToolCounts = BTreeMap<String, (u64, u64)>;

/// What the generated tree holds.
#[derive(Debug, Default)]
pub struct Expected {
    /// (UTC day, model) → (responses, tokens).
    pub by_day_model: BTreeMap<(String, String), (u64, Tokens)>,
    /// Session id → tokens.
    pub by_session: BTreeMap<String, Tokens>,
    /// Tool → (calls, errors).
    pub tools: ToolCounts,
    /// Damaged lines (path, 1-based line).
    pub damaged: Vec<(PathBuf, u64)>,
    /// Files with a torn last line.
    pub torn: usize,
    /// A string written once, in one `function_call`'s arguments.
    pub marker: String,
    /// Where the marker is: (session, line).
    pub marker_at: (String, u64),
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const MODELS: [&str; 3] = ["gpt-5-codex", "gpt-5.1-codex-max", "gpt-5.2"];
const TOOLS: [&str; 3] = ["shell_command", "apply_patch", "read_file"];

fn usage(input: u64, cached: u64, output: u64, reasoning: u64) -> Value {
    json!({"input_tokens": input, "cached_input_tokens": cached, "output_tokens": output,
           "reasoning_output_tokens": reasoning, "total_tokens": input + output})
}

fn line(ts: &str, kind: &str, payload: Value) -> String {
    json!({"timestamp": ts, "type": kind, "payload": payload}).to_string()
}

/// Writes `sessions` rollouts under `root` (a `CODEX_HOME`) and returns what they hold.
pub fn generate(root: &Path, sessions: usize, seed: u64) -> Expected {
    let mut rng = Rng(seed.wrapping_mul(0x9E3779B97F4A7C15) | 1);
    let mut exp = Expected { marker: format!("codex-marker-{seed}"), ..Expected::default() };
    let mut marker_done = false;
    for s in 0..sessions {
        let day = 1 + (s % 5) as u32;
        let id = format!("0199{seed:04x}-0000-7000-8000-{s:012x}");
        let archived_only = s == sessions - 1 && sessions > 2;
        let folder = if archived_only { "archived_sessions".to_owned() } else { format!("sessions/2026/03/{day:02}") };
        let name = format!("rollout-2026-03-{day:02}T10-00-00-{id}.jsonl");
        let path = root.join(&folder).join(&name);
        let mut lines: Vec<String> = vec![];
        let mut minute = 0u32;
        let mut ts = || {
            minute += 1;
            format!("2026-03-{day:02}T{:02}:{:02}:00.000Z", 8 + minute / 60, minute % 60)
        };
        lines.push(line(
            &ts(),
            "session_meta",
            json!({"id": id, "timestamp": "2026-03-01T08:00:00.000Z", "cwd": format!("/home/u/proj{}", s % 3),
                   "originator": "codex_cli_rs", "cli_version": "0.63.0", "instructions": "x".repeat(300)}),
        ));
        let mut model = MODELS[s % MODELS.len()];
        let mut total = (0u64, 0u64, 0u64, 0u64);
        let mut session_tokens = Tokens::default();
        let turns = 2 + rng.below(4);
        for t in 0..turns {
            if t > 0 && rng.below(3) == 0 {
                model = MODELS[rng.below(MODELS.len() as u64) as usize];
            }
            lines.push(line(&ts(), "turn_context", json!({"cwd": "/home/u", "model": model, "effort": "medium"})));
            lines.push(line(&ts(), "event_msg", json!({"type": "user_message", "message": format!("do step {t}")})));
            for c in 0..rng.below(3) {
                let tool = TOOLS[rng.below(TOOLS.len() as u64) as usize];
                let call = format!("call_{s}_{t}_{c}");
                let mut args = json!({"command": format!("echo {t}")}).to_string();
                if !marker_done {
                    args = json!({"command": format!("echo {}", exp.marker)}).to_string();
                    marker_done = true;
                    exp.marker_at = (id.clone(), lines.len() as u64 + 1);
                }
                lines.push(line(
                    &ts(),
                    "response_item",
                    json!({"type": "function_call", "name": tool, "arguments": args, "call_id": call}),
                ));
                let fail = rng.below(4) == 0;
                let output = match (fail, rng.below(2)) {
                    (true, 0) => {
                        json!({"output": "boom", "metadata": {"exit_code": 1, "duration_seconds": 0.1}}).to_string()
                    }
                    (true, _) => "Exit code: 2\nWall time: 0.1 seconds\nOutput:\nno".to_owned(),
                    (false, 0) => json!({"output": "ok", "metadata": {"exit_code": 0}}).to_string(),
                    (false, _) => "Exit code: 0\nOutput:\nok".to_owned(),
                };
                lines.push(line(
                    &ts(),
                    "response_item",
                    json!({"type": "function_call_output", "call_id": call, "output": output}),
                ));
                let e = exp.tools.entry(tool.to_owned()).or_default();
                e.0 += 1;
                e.1 += u64::from(fail);
            }
            if rng.below(4) == 0 {
                // Damaged: a cut reasoning line, then a good line.
                exp.damaged.push((path.clone(), lines.len() as u64 + 1));
                let good = line(&ts(), "response_item", json!({"type": "reasoning", "summary": []}));
                lines.push(good[..good.len() / 2].to_owned());
                lines.push(line(&ts(), "response_item", json!({"type": "reasoning", "summary": []})));
            }
            // One response (sometimes two) per turn.
            for _ in 0..1 + rng.below(2) {
                let input = 500 + rng.below(5000);
                let cached = rng.below(input);
                let output = 10 + rng.below(900);
                let reasoning = rng.below(output);
                total = (total.0 + input, total.1 + cached, total.2 + output, total.3 + reasoning);
                let tot = usage(total.0, total.1, total.2, total.3);
                let when = ts();
                let info = if rng.below(5) == 0 {
                    json!({"total_token_usage": tot})
                } else {
                    json!({"total_token_usage": tot, "last_token_usage": usage(input, cached, output, reasoning)})
                };
                lines.push(line(&when, "event_msg", json!({"type": "token_count", "info": info.clone()})));
                let tokens = Tokens { input: input - cached, cache_read: cached, output };
                let e = exp.by_day_model.entry((format!("2026-03-{day:02}"), model.to_owned())).or_default();
                e.0 += 1;
                e.1.add(tokens);
                session_tokens.add(tokens);
                if rng.below(3) == 0 {
                    // A re-emit: the same totals, a later time.
                    lines.push(line(&ts(), "event_msg", json!({"type": "token_count", "info": info})));
                }
                if rng.below(4) == 0 {
                    lines.push(line(
                        &ts(),
                        "event_msg",
                        json!({"type": "token_count", "info": null, "rate_limits": {}}),
                    ));
                }
            }
            lines.push(line(&ts(), "event_msg", json!({"type": "task_complete", "duration_ms": 1000 + t})));
        }
        let mut text = lines.join("\n");
        text.push('\n');
        if s % 4 == 3 {
            // Torn: a cut line, no final newline.
            let cut = line(&ts(), "event_msg", json!({"type": "agent_message", "message": "bye"}));
            text.push_str(&cut[..cut.len() / 2]);
            exp.torn += 1;
        }
        let tree = crate::kit::Tree::at(root);
        tree.rollout(&folder, &name, &text);
        if s == 0 {
            // An archived copy of the first session: the sessions/ one counts.
            tree.rollout("archived_sessions", &name, &text);
        }
        exp.by_session.insert(id, session_tokens);
    }
    exp
}
