//! A small deterministic generator of Qwen Code trees (a runtime directory
//! with `projects/<folder>/chats/<session>.jsonl`, formats-next.md §2) for
//! the Qwen tests. Test-only.
//!
//! [`generate`] returns what a correct reader must find ([`Expected`]),
//! computed from the figures it wrote, not by reading the files. The files
//! hold the shapes a reader must tell apart: prompts and responses whose
//! `promptTokenCount` includes the cached tokens; thoughts counted apart by
//! the total (billed output) or inside the candidates; calls and their
//! results, some failed; sidechain responses; forks that copy every record
//! of an earlier session (with `forkedFrom`) before their own; sub-sessions
//! naming their parent in a `parent_session` record.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{json, Value};

use crate::codexgen::Tokens;

/// What the generated tree holds.
#[derive(Debug, Default)]
pub struct Expected {
    /// Session id → (responses, tokens): its own responses only.
    pub by_session: BTreeMap<String, (u64, Tokens)>,
    /// Session id → its parent (forks and sub-sessions).
    pub parents: BTreeMap<String, String>,
    /// Tool → (calls, errors), each call counted in the session that made it.
    pub tools: BTreeMap<String, (u64, u64)>,
}

/// A deterministic source of numbers below a bound (xorshift), seeded by `seed`.
pub fn below_from(seed: u64) -> impl FnMut(u64) -> u64 {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    move |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    }
}

/// Writes `sessions` sessions under `root` (seeded by `seed`) and returns
/// what they hold.
pub fn generate(root: &Path, seed: u64, sessions: usize) -> Expected {
    let chats = root.join("projects/-home-u-app/chats");
    std::fs::create_dir_all(&chats).unwrap();
    let mut below = below_from(seed);
    let mut expected = Expected::default();
    let mut written: Vec<(String, Vec<Value>)> = vec![];
    for s in 0..sessions {
        let id = format!("00000000-0000-4000-8000-{s:012}");
        let mut records: Vec<Value> = vec![];
        let day = 1 + s % 28;
        let at = |i: usize| format!("2026-05-{day:02}T10:{:02}:{:02}Z", i / 60 % 60, i % 60);
        let kind = if s == 0 { 0 } else { below(4) };
        if kind == 1 {
            // A fork of an earlier session: its records first, copied.
            let (parent, theirs) = &written[below(s as u64) as usize];
            for r in theirs {
                let mut c = r.clone();
                c["sessionId"] = json!(id);
                c["forkedFrom"] = json!({"sessionId": parent, "messageUuid": r["uuid"]});
                records.push(c);
            }
            expected.parents.insert(id.clone(), parent.clone());
        } else if kind == 2 {
            let parent = &written[below(s as u64) as usize].0;
            records.push(json!({"uuid": format!("{id}-p"), "sessionId": id, "type": "system",
                "subtype": "parent_session", "timestamp": at(0), "cwd": "/home/u/app",
                "systemPayload": {"parentSessionId": parent}}));
            expected.parents.insert(id.clone(), parent.clone());
        }
        let own = expected.by_session.entry(id.clone()).or_default();
        for t in 0..1 + below(4) as usize {
            let u = |k: &str| format!("{id}-{t}-{k}");
            let base = json!({"sessionId": id, "cwd": "/home/u/app", "version": "0.15.0"});
            let rec = |uuid: String, typ: &str, i: usize, more: Value| {
                let mut r = base.clone();
                r["uuid"] = json!(uuid);
                r["type"] = json!(typ);
                r["timestamp"] = json!(at(1 + t * 10 + i));
                for (k, v) in more.as_object().unwrap() {
                    r[k] = v.clone();
                }
                r
            };
            records.push(rec(
                u("u"),
                "user",
                0,
                json!({"message": {"role": "user", "parts": [{"text": format!("turn {t}")}]}}),
            ));
            let prompt = 100 + below(5000);
            let cached = if below(3) == 0 { 0 } else { below(prompt + 1) };
            let candidates = 1 + below(300);
            let thoughts = below(3) * below(100);
            let apart = below(2) == 0;
            let total = prompt + candidates + if apart { thoughts } else { 0 };
            let tool = ["read_file", "run_shell_command", "edit"][below(3) as usize];
            let calls = below(3) == 0;
            let mut parts = vec![json!({"text": "working"})];
            if calls {
                parts.push(
                    json!({"functionCall": {"id": u("c"), "name": tool, "args": {"file_path": "/home/u/app/x"}}}),
                );
            }
            let sidechain = below(5) == 0;
            let mut response = json!({"model": "qwen3-coder-plus", "message": {"role": "model", "parts": parts},
                "usageMetadata": {"promptTokenCount": prompt, "cachedContentTokenCount": cached,
                    "candidatesTokenCount": candidates, "thoughtsTokenCount": thoughts, "totalTokenCount": total}});
            if sidechain {
                response["isSidechain"] = json!(true);
                response["agentId"] = json!("explore-1");
            }
            records.push(rec(u("a"), "assistant", 1, response));
            own.0 += 1;
            own.1.input += prompt - cached;
            own.1.cache_read += cached;
            own.1.output += candidates + if apart { thoughts } else { 0 };
            if calls {
                let failed = below(3) == 0;
                let status = if failed { "error" } else { "success" };
                let answer = if failed { json!({"error": "no"}) } else { json!({"output": "yes"}) };
                records.push(rec(u("r"), "tool_result", 2, json!({
                    "message": {"role": "user", "parts": [{"functionResponse": {"id": u("c"), "name": tool, "response": answer}}]},
                    "toolCallResult": {"callId": u("c"), "status": status}})));
                let counts = expected.tools.entry(tool.to_owned()).or_default();
                counts.0 += 1;
                counts.1 += u64::from(failed);
            }
        }
        let text: String = records.iter().map(|r| format!("{r}\n")).collect();
        std::fs::write(chats.join(format!("{id}.jsonl")), text).unwrap();
        written.push((id, records));
    }
    expected
}
