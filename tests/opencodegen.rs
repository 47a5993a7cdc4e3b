//! A small deterministic generator of OpenCode databases (formats-next.md
//! §3) for the OpenCode tests. Test-only.
//!
//! [`generate`] returns what a correct reader must find ([`Expected`]),
//! computed from the figures it wrote, not by reading the database. It
//! holds the shapes a reader must tell apart: assistant messages of one to
//! four steps whose `tokens` hold the last step only (the `step-finish`
//! parts count), older messages without step parts (their own `tokens`
//! count), reasoning billed as output, tool calls completed, failed
//! (`error`, or a bash exit code) and still running, child sessions, and
//! the session roll-up columns (never added). [`generate_legacy`] writes a
//! legacy `storage/` tree beside it (a file per session, message and part,
//! some pretty-printed), with sessions of its own and copies of database
//! sessions with other figures (OpenCode migrated them: the database's
//! count, once).

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::json;

use crate::util::ci;

/// What the generated database holds.
#[derive(Debug, Default)]
pub struct Expected {
    /// Session id → (responses, input, output with reasoning, cache read, cache write).
    pub by_session: BTreeMap<String, [u64; 5]>,
    /// Child session id → its parent.
    pub parents: BTreeMap<String, String>,
    /// Tool → (calls, failures): finished calls only.
    pub tools: BTreeMap<String, (u64, u64)>,
}

struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

/// The tables (shared with bench/gen-opencode.py).
const SCHEMA: &str = include_str!("../fixtures/opencode/schema.sql");

const TOOLS: [&str; 3] = ["bash", "edit", "read"];

/// Writes `sessions` sessions into the database `db` (WAL mode, left open
/// by the returned connection, as OpenCode running) and returns what they hold.
pub fn generate(db: &Path, seed: u64, sessions: usize) -> (rusqlite::Connection, Expected) {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.pragma_update(None, "journal_mode", "wal").unwrap();
    conn.execute_batch(SCHEMA).unwrap();
    let mut exp = Expected::default();
    let t0: i64 = 1_781_085_600_000;
    let (mut msg, mut prt) = (0u64, 0u64);
    for s in 0..sessions {
        let id = format!("ses_{seed:04x}{s:06}");
        let parent = (s > 0 && rng.below(3) == 0).then(|| format!("ses_{seed:04x}{:06}", rng.below(s as u64)));
        let t = t0 + s as i64 * 3_600_000;
        let mut totals = [0u64; 5];
        let at = std::cell::Cell::new(t);
        let tick = || {
            at.set(at.get() + 1000);
            at.get()
        };
        for _ in 0..1 + rng.below(3) {
            msg += 1;
            let user = format!("msg_{msg:08}");
            let u = json!({"role": "user", "time": {"created": tick()}, "agent": "build"});
            conn.execute(
                "INSERT INTO message VALUES (?1, ?2, ?3, ?3, ?4)",
                rusqlite::params![user, id, at.get(), u.to_string()],
            )
            .unwrap();
            prt += 1;
            let p = json!({"type": "text", "text": format!("prompt {msg}")});
            conn.execute(
                "INSERT INTO part VALUES (?1, ?2, ?3, ?4, ?4, ?5)",
                rusqlite::params![format!("prt_{prt:08}"), user, id, at.get(), p.to_string()],
            )
            .unwrap();
            msg += 1;
            let asst = format!("msg_{msg:08}");
            let created = tick();
            let steps = rng.below(5); // 0: an older build's message without step parts
            let mut last = json!({});
            let mut cost = 0.0;
            for _ in 0..steps {
                prt += 1;
                let p = json!({"type": "step-start"});
                conn.execute(
                    "INSERT INTO part VALUES (?1, ?2, ?3, ?4, ?4, ?5)",
                    rusqlite::params![format!("prt_{prt:08}"), asst, id, tick(), p.to_string()],
                )
                .unwrap();
                if rng.below(2) == 0 {
                    let tool = TOOLS[rng.below(3) as usize];
                    let (status, failed) = match rng.below(4) {
                        0 => ("error", true),
                        1 => ("running", false),
                        2 if tool == "bash" => ("completed", true),
                        _ => ("completed", false),
                    };
                    let exit = if failed && status == "completed" { 2 } else { 0 };
                    let state = json!({"status": status, "input": {"filePath": "/w/a.rs"}, "output": "ok",
                        "error": if status == "error" { json!("boom") } else { json!(null) }, "metadata": {"exit": exit}});
                    prt += 1;
                    let p = json!({"type": "tool", "callID": format!("call_{prt}"), "tool": tool, "state": state});
                    conn.execute(
                        "INSERT INTO part VALUES (?1, ?2, ?3, ?4, ?4, ?5)",
                        rusqlite::params![format!("prt_{prt:08}"), asst, id, tick(), p.to_string()],
                    )
                    .unwrap();
                    if status != "running" {
                        let e = exp.tools.entry(tool.to_owned()).or_default();
                        e.0 += 1;
                        e.1 += u64::from(failed);
                    }
                }
                let (i, o, r, cr, cw) =
                    (rng.below(5000), rng.below(900), rng.below(300), rng.below(40000), rng.below(2000));
                let tokens = json!({"input": i, "output": o, "reasoning": r, "cache": {"read": cr, "write": cw}});
                let step_cost = (1 + rng.below(100)) as f64 / 10000.0;
                cost += step_cost;
                prt += 1;
                let p = json!({"type": "step-finish", "reason": "stop", "cost": step_cost, "tokens": tokens});
                conn.execute(
                    "INSERT INTO part VALUES (?1, ?2, ?3, ?4, ?4, ?5)",
                    rusqlite::params![format!("prt_{prt:08}"), asst, id, tick(), p.to_string()],
                )
                .unwrap();
                totals = [totals[0] + 1, totals[1] + i, totals[2] + o + r, totals[3] + cr, totals[4] + cw];
                last = tokens;
            }
            if steps == 0 {
                let (i, o, r) = (rng.below(5000), rng.below(900), rng.below(300));
                last = json!({"input": i, "output": o, "reasoning": r, "cache": {"read": 0, "write": 0}});
                cost = 0.001;
                totals = [totals[0] + 1, totals[1] + i, totals[2] + o + r, totals[3], totals[4]];
            }
            let a = json!({"role": "assistant", "time": {"created": created, "completed": tick()}, "modelID": "claude-sonnet-4-5",
                "providerID": "anthropic", "path": {"cwd": "/w", "root": "/w"}, "cost": cost, "tokens": last, "finish": "stop"});
            conn.execute(
                "INSERT INTO message VALUES (?1, ?2, ?3, ?4, ?5)",
                rusqlite::params![asst, id, created, at.get(), a.to_string()],
            )
            .unwrap();
        }
        // The roll-up columns hold the sums: a reader that added them would count twice.
        conn.execute(
            "INSERT INTO session VALUES (?1, 'global', ?2, 'slug', '/w', 'title', '1.17.13', 1.0, ?3, ?4, ?5, ?6)",
            rusqlite::params![id, parent, totals[1] as i64, totals[2] as i64, t, at.get()],
        )
        .unwrap();
        if let Some(p) = parent {
            exp.parents.insert(id.clone(), p);
        }
        exp.by_session.insert(id, totals);
    }
    (conn, exp)
}

/// ci-agg and ci-find on a generated database OpenCode still has open
/// (its `-wal` holds the rows): each session's responses and tokens, the
/// tools' calls and failures, the child sessions' parents, as written.
#[test]
fn generated_databases_give_the_figures_written() {
    for seed in [1, 2, 3] {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("opencode.db");
        let (conn, exp) = generate(&db, seed, 40);
        assert!(dir.path().join("opencode.db-wal").exists());
        assert_figures(&db, dir.path(), 40, &exp, seed);
        drop(conn);
    }
}

/// ci-agg on `path` gives each session's responses and tokens, the tools'
/// finished calls and failures of `exp`; ci-find under `root` finds
/// `sessions` sessions, with `exp`'s parents.
fn assert_figures(path: &Path, root: &Path, sessions: usize, exp: &Expected, seed: u64) {
    assert_eq!(crate::kit::live_db::tokens_by_session(path), exp.by_session, "seed {seed}");
    let n = |r: &serde_json::Value, k: &str| r[k].as_u64().unwrap();
    let tools = ci("ci-agg").args(["--tools", "--no-cache"]).arg(path).run().json();
    let tools: BTreeMap<String, (u64, u64)> = tools
        .iter()
        .map(|r| (r["tool"].as_str().unwrap().to_owned(), (n(r, "calls") - n(r, "unfinished"), n(r, "errors"))))
        .collect();
    assert_eq!(tools, exp.tools, "seed {seed}");
    let found = ci("ci-find").args(["--root"]).arg(root).run().json();
    assert_eq!(found.len(), sessions, "seed {seed}");
    let parents: BTreeMap<String, String> = found
        .iter()
        .filter_map(|r| Some((r["session"].as_str()?.to_owned(), r["parent"].as_str()?.to_owned())))
        .collect();
    assert_eq!(parents, exp.parents, "seed {seed}");
}

/// Writes a legacy `storage/` tree into the data dir `dir`: `sessions`
/// sessions of its own (added to `exp`), and a copy of each database
/// session in `migrated` with other figures (not added: the database's
/// count). Its messages have zero to three `step-finish` parts (none: the
/// message's own `tokens` count); `output` counts as written (the
/// reasoning in it, builds before AI SDK v6).
pub fn generate_legacy(dir: &Path, seed: u64, sessions: usize, migrated: &[String], exp: &mut Expected) {
    let mut rng = Rng(seed.wrapping_mul(0xD1B5_4A32_D192_ED03) | 1);
    let storage = dir.join("storage");
    let write = |rng: &mut Rng, path: std::path::PathBuf, v: serde_json::Value| {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let text = if rng.below(2) == 0 { serde_json::to_string_pretty(&v).unwrap() } else { v.to_string() };
        std::fs::write(path, text).unwrap();
    };
    let own = (0..sessions).map(|s| (format!("ses_L{seed:04x}{s:06}"), true));
    let copies = migrated.iter().map(|id| (id.clone(), false));
    let (mut msg, mut prt) = (0u64, 0u64);
    for (s, (id, counted)) in own.chain(copies).enumerate() {
        let parent =
            (counted && s > 0 && rng.below(3) == 0).then(|| format!("ses_L{seed:04x}{:06}", rng.below(s as u64)));
        let t = 1_764_000_000_000 + s as i64 * 3_600_000;
        let session = json!({"id": id, "version": "1.0.150", "projectID": "global", "directory": "/w",
            "parentID": parent, "title": "t", "time": {"created": t, "updated": t + 60_000}});
        write(&mut rng, storage.join("session/global").join(format!("{id}.json")), session);
        let mut totals = [0u64; 5];
        for m in 0..1 + rng.below(3) as i64 {
            msg += 1;
            let mid = format!("msg_L{msg:08}");
            let (mut last, mut cost) = (json!({}), 0.0);
            let steps = rng.below(4);
            for _ in 0..steps {
                if rng.below(2) == 0 {
                    prt += 1;
                    let (status, failed) = if rng.below(3) == 0 { ("error", true) } else { ("completed", false) };
                    let tool = TOOLS[rng.below(3) as usize];
                    let p = json!({"id": format!("prt_L{prt:08}"), "sessionID": id, "messageID": mid, "type": "tool",
                        "callID": format!("lcall_{prt}"), "tool": tool, "state": {"status": status, "input": {}}});
                    write(&mut rng, storage.join("part").join(&mid).join(format!("prt_L{prt:08}.json")), p);
                    if counted {
                        let e = exp.tools.entry(tool.to_owned()).or_default();
                        e.0 += 1;
                        e.1 += u64::from(failed);
                    }
                }
                let (i, o, r, cr, cw) =
                    (rng.below(5000), rng.below(900), rng.below(300), rng.below(40000), rng.below(2000));
                last = json!({"input": i, "output": o, "reasoning": r, "cache": {"read": cr, "write": cw}});
                let step_cost = (1 + rng.below(100)) as f64 / 10000.0;
                cost += step_cost;
                prt += 1;
                let p = json!({"id": format!("prt_L{prt:08}"), "sessionID": id, "messageID": mid, "type": "step-finish",
                    "cost": step_cost, "tokens": last});
                write(&mut rng, storage.join("part").join(&mid).join(format!("prt_L{prt:08}.json")), p);
                totals = [totals[0] + 1, totals[1] + i, totals[2] + o, totals[3] + cr, totals[4] + cw];
            }
            if steps == 0 {
                let (i, o, r) = (rng.below(5000), rng.below(900), rng.below(300));
                last = json!({"input": i, "output": o, "reasoning": r, "cache": {"read": 0, "write": 0}});
                cost = 0.001;
                totals = [totals[0] + 1, totals[1] + i, totals[2] + o, totals[3], totals[4]];
            }
            let a = json!({"id": mid, "sessionID": id, "role": "assistant", "time": {"created": t + 1000 * (m + 1)},
                "modelID": "gpt-5", "providerID": "openai", "mode": "build", "cost": cost, "tokens": last});
            write(&mut rng, storage.join("message").join(&id).join(format!("{mid}.json")), a);
        }
        if counted {
            if let Some(p) = parent {
                exp.parents.insert(id.clone(), p);
            }
            exp.by_session.insert(id, totals);
        }
    }
}

/// A data dir with a database and a legacy tree beside it: each session
/// counted once (a migrated one, in both, as the database's), its
/// responses, tokens, tools and parents as written.
#[test]
fn a_legacy_tree_beside_the_database_gives_the_figures_written_each_session_once() {
    for seed in [4, 5] {
        let dir = tempfile::tempdir().unwrap();
        let (conn, mut exp) = generate(&dir.path().join("opencode.db"), seed, 12);
        let migrated: Vec<String> = exp.by_session.keys().step_by(3).cloned().collect();
        generate_legacy(dir.path(), seed, 15, &migrated, &mut exp);
        assert_figures(dir.path(), dir.path(), 12 + 15, &exp, seed);
        drop(conn);
    }
}
