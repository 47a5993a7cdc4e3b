//! A small deterministic generator of Goose sessions folders (formats-next.md
//! §7) for the Goose tests. Test-only.
//!
//! [`generate`] writes a `sessions.db` (schema v15) and legacy JSONL files
//! and returns what a correct reader must find ([`Expected`]), computed
//! from the figures it wrote, not by reading them. It holds the shapes a
//! reader must tell apart: sessions with one to four `usage_ledger` rows
//! whose `accumulated_*` hold the same sums (never added on top), sessions
//! without ledger rows (their `accumulated_*` count once), the last
//! request's `total/input/output_tokens` (never counted), tool requests
//! whose responses succeed or fail, and legacy files whose metadata's
//! `accumulated_*` count once.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::json;

use crate::kit::Rng;
use crate::util::{ci, root};

/// What the generated folder holds.
#[derive(Debug, Default)]
pub struct Expected {
    /// Session id → (responses, input, output, cache read, cache write).
    pub by_session: BTreeMap<String, [u64; 5]>,
    /// Tool → (calls, failures).
    pub tools: BTreeMap<String, (u64, u64)>,
}

const TOOLS: [&str; 3] = ["developer__shell", "developer__text_editor", "todo__write"];

/// The messages of one exchange: a prompt, a call, its response, a reply
/// (content arrays), with the tool's failure recorded in `exp`.
fn exchange(rng: &mut Rng, n: u64, exp: &mut Expected) -> [(&'static str, serde_json::Value); 4] {
    let tool = TOOLS[rng.below(3) as usize];
    let failed = rng.below(3) == 0;
    let e = exp.tools.entry(tool.to_owned()).or_default();
    e.0 += 1;
    e.1 += u64::from(failed);
    let call = format!("toolu_{n}");
    let result = match failed {
        true => json!({"status": "error", "error": "exit 1"}),
        false => json!({"status": "success", "value": [{"type": "text", "text": "ok"}]}),
    };
    [
        ("user", json!([{"type": "text", "text": format!("prompt {n}")}])),
        (
            "assistant",
            json!([{"type": "text", "text": "on it"}, {"type": "toolRequest", "id": call,
                "toolCall": {"status": "success", "value": {"name": tool, "arguments": {"path": "/w/a.rs"}}}}]),
        ),
        ("user", json!([{"type": "toolResponse", "id": call, "toolResult": result}])),
        ("assistant", json!([{"type": "text", "text": "done"}])),
    ]
}

/// Writes `sessions` database sessions and `legacy` legacy files into the
/// sessions folder `dir` (the database in WAL mode, left open by the
/// returned connection, as Goose running) and returns what they hold.
pub fn generate(dir: &Path, seed: u64, sessions: usize, legacy: usize) -> (rusqlite::Connection, Expected) {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let conn = rusqlite::Connection::open(dir.join("sessions.db")).unwrap();
    conn.pragma_update(None, "journal_mode", "wal").unwrap();
    let sql = std::fs::read_to_string(root().join("fixtures/goose/handmade/sessions-v15-minimal.sql")).unwrap();
    // The sample's schema, without its rows.
    let schema: String = sql.split(";\n").filter(|s| s.contains("CREATE TABLE")).map(|s| format!("{s};\n")).collect();
    conn.execute_batch(&schema).unwrap();
    let mut exp = Expected::default();
    let t0: i64 = 1_785_579_300;
    let mut n = 0u64;
    for s in 0..sessions {
        let id = format!("20260801_{seed}{s:05}");
        let mut t = t0 + s as i64 * 3600;
        let mut totals = [0u64; 5];
        let mut last = [0u64; 2];
        let ledger = rng.below(4) != 0;
        for _ in 0..1 + rng.below(3) {
            n += 1;
            for (role, content) in exchange(&mut rng, n, &mut exp) {
                t += 1 + rng.below(30) as i64;
                conn.execute(
                    "INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp) \
                     VALUES (?1, ?2, ?3, ?4, ?5)",
                    rusqlite::params![format!("msg_{n}_{t}"), id, role, content.to_string(), t],
                )
                .unwrap();
            }
            for _ in 0..1 + rng.below(2) {
                let (i, o, cr, cw) = (rng.below(20000), rng.below(900), rng.below(40000), rng.below(2000));
                if ledger {
                    conn.execute(
                        "INSERT INTO usage_ledger (session_id, created_timestamp, model, input_tokens, output_tokens, \
                         total_tokens, cache_read_tokens, cache_write_tokens, cost, cost_source, is_compaction) \
                         VALUES (?1, ?2, 'claude-sonnet-4-5', ?3, ?4, ?5, ?6, ?7, 0.001, 'estimated', 0)",
                        rusqlite::params![id, t, i as i64, o as i64, (i + o) as i64, cr as i64, cw as i64],
                    )
                    .unwrap();
                }
                totals = [totals[0] + 1, totals[1] + i, totals[2] + o, totals[3] + cr, totals[4] + cw];
                last = [i, o];
            }
        }
        // The accumulated columns hold the sums (a reader that added them
        // to the ledger would count twice); the last request's are its own.
        conn.execute(
            "INSERT INTO sessions VALUES (?1, 'name', 'name', 'user', '/w/demo', datetime(?2, 'unixepoch'), \
             datetime(?3, 'unixepoch'), NULL, 'anthropic', '{\"model_name\":\"claude-sonnet-4-5\"}', ?4, ?5, ?6, \
             ?7, ?8, ?9, ?10, ?11, 0.01)",
            rusqlite::params![
                id,
                t0 + s as i64 * 3600,
                t,
                (last[0] + last[1]) as i64,
                last[0] as i64,
                last[1] as i64,
                (totals[1] + totals[2]) as i64,
                totals[1] as i64,
                totals[2] as i64,
                totals[3] as i64,
                totals[4] as i64
            ],
        )
        .unwrap();
        if !ledger {
            totals[0] = 1; // the accumulated totals, one response
        }
        exp.by_session.insert(id, totals);
    }
    for f in 0..legacy {
        let id = format!("20250901_{seed}{f:05}");
        let (input, output) = (rng.below(90000), rng.below(5000));
        let meta = json!({"working_dir": "/w/old", "description": "d", "message_count": 4, "total_tokens": 10,
            "input_tokens": 8, "output_tokens": 2, "accumulated_total_tokens": input + output,
            "accumulated_input_tokens": input, "accumulated_output_tokens": output});
        let mut text = meta.to_string() + "\n";
        n += 1;
        let t = 1_756_721_700 + f as i64 * 600;
        for (k, (role, content)) in exchange(&mut rng, n, &mut exp).into_iter().enumerate() {
            let line = json!({"id": format!("msg_{k}"), "role": role, "created": t + k as i64, "content": content});
            text += &(line.to_string() + "\n");
        }
        std::fs::write(dir.join(format!("{id}.jsonl")), text).unwrap();
        exp.by_session.insert(id, [1, input, output, 0, 0]);
    }
    (conn, exp)
}

/// ci-agg and ci-find on a generated folder whose database Goose still has
/// open (its `-wal` holds the rows): each session's responses and tokens,
/// the tools' calls and failures, as written.
#[test]
fn generated_folders_give_the_figures_written() {
    for seed in [1, 2] {
        let dir = tempfile::tempdir().unwrap();
        let (conn, exp) = generate(dir.path(), seed, 40, 10);
        assert!(dir.path().join("sessions.db-wal").exists());
        assert_eq!(crate::kit::live_db::tokens_by_session(dir.path()), exp.by_session, "seed {seed}");
        let n = |r: &serde_json::Value, k: &str| r[k].as_u64().unwrap();
        let tools: BTreeMap<String, (u64, u64)> = ci("ci-agg")
            .args(["--tools", "--no-cache"])
            .arg(dir.path())
            .run()
            .json()
            .iter()
            .map(|r| (r["tool"].as_str().unwrap().to_owned(), (n(r, "calls"), n(r, "errors"))))
            .collect();
        assert_eq!(tools, exp.tools, "seed {seed}");
        let found = ci("ci-find").args(["--root"]).arg(dir.path()).run().json();
        assert_eq!(found.len(), 50, "seed {seed}");
        drop(conn);
    }
}
