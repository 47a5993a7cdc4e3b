//! `--follow` of database rows (issues 36 and 37): rows committed while
//! `ci-cat -f` follows an OpenCode database or a Copilot store are printed,
//! each once, an unfinished row (a message streaming, a tool running) only
//! once it is finished; `ci-agg -f` and a pipe into `ci-agg` count every
//! response once. The writer has its own connection with no busy timeout,
//! so SQLITE_BUSY caused by a reader would fail it.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use rusqlite::Connection;
use serde_json::Value;

use crate::follow::{follow_command, let_polls_pass, Live};
use crate::util::{ci, root};

/// The OpenCode sample's script (2,700 input tokens over its step parts).
const SQL: &str = "fixtures/opencode/handmade/opencode-v1.16-minimal.sql";

/// The sample's input tokens.
const SAMPLE_INPUT: u64 = 2700;

/// A WAL OpenCode database made from the sample's script in a temporary
/// folder, and the writer's connection (busy timeout 0).
fn live_opencode() -> (tempfile::TempDir, PathBuf, Connection) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("opencode.db");
    let conn = crate::kit::live_db::wal_from_sql(&db, SQL);
    conn.busy_timeout(std::time::Duration::ZERO).unwrap();
    (dir, db, conn)
}

/// Runs `sql` with `params` on the writer's connection: it must never meet
/// SQLITE_BUSY.
fn write(conn: &Connection, sql: &str, params: impl rusqlite::Params) {
    conn.execute(sql, params).expect("the writer is never blocked");
}

/// Turn `i` of the child session, as OpenCode writes it: the assistant
/// message and a tool part are inserted unfinished (no `time.completed`;
/// `running`), with a finished `step-finish` part of `i` input tokens.
fn start_turn(conn: &Connection, i: u64) {
    let t = 1_781_085_700_000 + i * 1000;
    let msg = format!("msg_live{i:03}");
    let message = |done: &str| {
        format!(
            r#"{{"role":"assistant","time":{{"created":{t}{done}}},"modelID":"claude-haiku-4-5","agent":"explore"}}"#
        )
    };
    write(
        conn,
        "INSERT INTO message VALUES (?1, 'ses_child00001', ?2, ?2, ?3)",
        rusqlite::params![msg, t, message("")],
    );
    let tool = r#"{"type":"tool","callID":"CALL","tool":"bash","state":{"status":"running","input":{"command":"ls"}}}"#;
    let part = "INSERT INTO part VALUES (?1, ?2, 'ses_child00001', ?3, ?3, ?4)";
    let tool = tool.replace("CALL", &format!("call{i}"));
    write(conn, part, rusqlite::params![format!("prt_live{i:03}a"), msg, t, tool]);
    let step = format!(
        r#"{{"type":"step-finish","reason":"stop","cost":0,"tokens":{{"input":{i},"output":0,"reasoning":0,"cache":{{"read":0,"write":0}}}}}}"#
    );
    write(conn, part, rusqlite::params![format!("prt_live{i:03}b"), msg, t, step]);
}

/// Finishes turn `i`: the tool part completed, the message completed.
fn finish_turn(conn: &Connection, i: u64) {
    let t = 1_781_085_700_000 + i * 1000;
    let tool = format!(
        r#"{{"type":"tool","callID":"call{i}","tool":"bash","state":{{"status":"completed","input":{{"command":"ls"}},"output":"ok"}}}}"#
    );
    write(conn, "UPDATE part SET data = ?1 WHERE id = ?2", rusqlite::params![tool, format!("prt_live{i:03}a")]);
    let message = format!(
        r#"{{"role":"assistant","time":{{"created":{t},"completed":{}}},"modelID":"claude-haiku-4-5","agent":"explore"}}"#,
        t + 500
    );
    write(conn, "UPDATE message SET data = ?1 WHERE id = ?2", rusqlite::params![message, format!("msg_live{i:03}")]);
}

/// The printed records naming `id` (a row's id in `data.id`).
fn of_row<'a>(lines: &'a [String], id: &str) -> Vec<&'a String> {
    let key = format!(r#""id":"{id}""#);
    lines.iter().filter(|l| l.contains(&key)).collect()
}

/// Records as a sorted list without their `ci.line` (a row's place in the
/// session when it was read, which rows inserted before it move).
fn without_line(lines: &[String]) -> Vec<Value> {
    let mut out: Vec<Value> = lines
        .iter()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"));
            v["ci"].as_object_mut().unwrap().remove("line");
            v
        })
        .collect();
    out.sort_by_key(|v| v.to_string());
    out
}

/// The sum of `input_tokens` over `ci-agg --tokens`' records.
fn input_of(records: &[String]) -> u64 {
    records.iter().map(|l| serde_json::from_str::<Value>(l).unwrap()["input_tokens"].as_u64().unwrap_or(0)).sum()
}

/// Turns written while `ci-cat -f` and `ci-agg -f` read: each turn's
/// finished step is printed before its unfinished message and tool part,
/// which are held until the writer finishes them and then printed once
/// (tool:pre and tool:post together); then a burst of steps committed as
/// fast as a writer thread can; at the end the followed output is the
/// one-shot output of the finished database, record for record, and
/// `ci-agg` over it, `ci-agg -f`'s last snapshot and a one-shot `ci-agg`
/// count every response once.
#[test]
fn opencode_rows_written_while_followed_are_printed_once_finished() {
    let (_dir, db, conn) = live_opencode();
    let path = db.to_str().unwrap();
    let mut cat = Live::start(follow_command("ci-cat", &[path]), Stdio::null());
    let mut agg = Live::start(follow_command("ci-agg", &["--tokens", "--no-cache", path]), Stdio::null());
    const N: u64 = 8;
    for i in 1..=N {
        start_turn(&conn, i);
        let step = format!("prt_live{i:03}b");
        cat.wait_until(&format!("turn {i}'s step printed"), |out, _| !of_row(out, &step).is_empty());
        finish_turn(&conn, i);
        let msg = format!("msg_live{i:03}");
        cat.wait_until(&format!("turn {i} printed"), |out, _| !of_row(out, &msg).is_empty());
    }
    // Then a burst: a writer thread commits the steps of one more message
    // as fast as it can while both poll (it must never meet SQLITE_BUSY),
    // and the message is finished last, as OpenCode does.
    const BURST: u64 = 300;
    let conn = std::thread::spawn(move || {
        start_turn(&conn, N + 1);
        let step = r#"{"type":"step-finish","reason":"stop","cost":0,"tokens":{"input":1,"output":0,"reasoning":0,"cache":{"read":0,"write":0}}}"#;
        let part = "INSERT INTO part VALUES (?1, ?2, 'ses_child00001', 1781085709000, 1781085709000, ?3)";
        for i in 0..BURST {
            write(&conn, part, rusqlite::params![format!("prt_live{:03}z{i:04}", N + 1), format!("msg_live{:03}", N + 1), step]);
        }
        finish_turn(&conn, N + 1);
        conn
    })
    .join()
    .unwrap();
    let one_shot = ci("ci-cat").arg(&db).run();
    assert_eq!((one_shot.stderr.as_str(), one_shot.code), ("", 0), "{one_shot:?}");
    let expected = SAMPLE_INPUT + (N + 1) * (N + 2) / 2 + BURST;
    let all = one_shot.stdout.lines().count();
    cat.wait_until("the burst printed", |out, _| out.len() >= all);
    agg.wait_until("ci-agg -f counted every step", |out, _| {
        let last = out.iter().rposition(|l| l.starts_with(r#"{"snapshot""#));
        last.is_some_and(|at| input_of(&out[at + 1..]) == expected)
    });
    let_polls_pass();
    let (code, out, err) = cat.end();
    assert_eq!((code, err), (Some(0), Vec::<String>::new()));
    for i in 1..=N {
        let tool: Vec<Value> =
            of_row(&out, &format!("prt_live{i:03}a")).iter().map(|l| serde_json::from_str(l).unwrap()).collect();
        let events: Vec<&str> = tool.iter().map(|v| v["event"].as_str().unwrap()).collect();
        assert_eq!(events, ["tool:pre", "tool:post"], "turn {i}: the tool part printed once, finished");
        let message = of_row(&out, &format!("msg_live{i:03}"));
        assert_eq!(message.len(), 1, "turn {i}: {message:?}");
        assert!(message[0].contains(r#""completed":"#), "held until finished: {}", message[0]);
    }
    assert_eq!(without_line(&out), without_line(&one_shot.stdout.lines().map(String::from).collect::<Vec<_>>()));
    let piped = ci("ci-agg").arg("--tokens").stdin(out.join("\n")).run();
    assert_eq!((piped.stderr.as_str(), piped.code), ("", 0), "{piped:?}");
    assert_eq!(input_of(&piped.stdout.lines().map(String::from).collect::<Vec<_>>()), expected);
    let (_, printed, err) = agg.end();
    assert_eq!(err, Vec::<String>::new());
    // Every snapshot counts what was committed by then: never more.
    let inputs: Vec<u64> = crate::agg_follow::snapshots(&printed).iter().map(|(_, r)| input_of(r)).collect();
    assert!(inputs.windows(2).all(|w| w[0] <= w[1]), "{inputs:?}");
    assert_eq!(inputs.last(), Some(&expected));
    drop(conn);
}

/// A database that had no writer at start (WAL mode, no `-wal`: opened
/// immutable) is followed once a writer opens it: its rows are read then.
#[test]
fn a_closed_database_is_followed_once_a_writer_opens_it() {
    let (_dir, db, conn) = live_opencode();
    drop(conn);
    assert!(!Path::new(&format!("{}-wal", db.display())).exists());
    let mut cat = Live::start(follow_command("ci-cat", &[db.to_str().unwrap()]), Stdio::null());
    cat.wait_until("the sample printed", |out, _| !of_row(out, "prt_c0001a").is_empty());
    let conn = Connection::open(&db).unwrap();
    conn.busy_timeout(std::time::Duration::ZERO).unwrap();
    start_turn(&conn, 1);
    cat.wait_until("the new step printed", |out, _| !of_row(out, "prt_live001b").is_empty());
    let_polls_pass();
    let (code, out, err) = cat.end();
    assert_eq!((code, err), (Some(0), Vec::<String>::new()));
    assert_eq!(of_row(&out, "prt_live001b").len(), 1);
    // Unfinished: held.
    assert_eq!(of_row(&out, "prt_live001a").len(), 0);
}

/// The Copilot sample session with its store (fixtures/copilot-db), in WAL
/// mode: a usage row written while `ci-cat -f` follows the session is
/// printed once, as a response, and `ci-agg` over the followed output
/// equals a one-shot `ci-agg` of the store as it is then.
#[test]
fn copilot_store_rows_written_while_followed_are_printed_once() {
    let (dir, db) = crate::copilot_db::tree_copy();
    let conn = Connection::open(&db).unwrap();
    conn.pragma_update(None, "journal_mode", "wal").unwrap();
    conn.busy_timeout(std::time::Duration::ZERO).unwrap();
    let home = dir.path().join(".copilot");
    let mut cat = Live::start(follow_command("ci-cat", &[home.to_str().unwrap()]), Stdio::null());
    cat.wait_until("the session printed", |out, _| out.iter().any(|l| l.contains(r#""event":"session:end""#)));
    let insert = "INSERT INTO assistant_usage_events (session_id, model, input_tokens, cache_read_tokens, \
        cache_write_tokens, reasoning_tokens, output_tokens, created_at, total_nano_aiu, request_multiplier, initiator) \
        VALUES ('5d0f3c2a-7b41-4e8e-9a6c-2f1e0d9c8b7a', 'claude-sonnet-4.6', 1000, 0, 0, 0, 10, \
        '2026-06-19T08:01:40.000Z', 0, 1.0, 'user')";
    write(&conn, insert, []);
    let rows = |out: &[String]| out.iter().filter(|l| l.contains(r#""type":"assistant_usage_event""#)).count();
    // The sample's three rows, then the new one.
    cat.wait_until("the new row printed", |out, _| rows(out) >= 4);
    let_polls_pass();
    let (code, out, err) = cat.end();
    assert_eq!((code, err), (Some(0), Vec::<String>::new()));
    assert_eq!(rows(&out), 4, "{out:?}");
    let piped = ci("ci-agg").arg("--tokens").stdin(out.join("\n")).run();
    let one_shot = ci("ci-agg").arg("--tokens").arg(&home).run();
    assert_eq!((piped.stderr.as_str(), piped.code), ("", 0), "{piped:?}");
    assert_eq!(piped.stdout, one_shot.stdout);
}

/// Two Copilot sessions followed together each keep their own writer
/// state: the one whose store has rows, read first, does not make the
/// other's shutdown roll-ups (it has no rows) count nothing; the followed
/// output counts what a one-shot `ci-agg` counts.
#[test]
fn copilot_sessions_followed_together_keep_their_own_counts() {
    let home = root().join("fixtures/copilot-db/.copilot");
    let found = ci("ci-find").arg("--root").arg(&home).run();
    assert_eq!((found.stderr.as_str(), found.code), ("", 0), "{found:?}");
    let mut records: Vec<&str> = found.stdout.lines().collect();
    // The session with rows (5d0f…) before the one without (c0ffee…).
    records.sort();
    assert!(records[0].contains("5d0f3c2a") && records[1].contains("c0ffee00"), "{records:?}");
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("records.ndjson");
    std::fs::write(&input, records.join("\n") + "\n").unwrap();
    let stdin = Stdio::from(std::fs::File::open(&input).unwrap());
    let mut cat = Live::start(follow_command("ci-cat", &[]), stdin);
    let ended = |out: &[String], id: &str| out.iter().any(|l| l.contains(r#""event":"session:end""#) && l.contains(id));
    cat.wait_until("both sessions printed", |out, _| ended(out, "5d0f3c2a") && ended(out, "c0ffee00"));
    let_polls_pass();
    let (code, out, err) = cat.end();
    assert_eq!((code, err), (Some(0), Vec::<String>::new()));
    let piped = ci("ci-agg").args(["--tokens", "--by", "session"]).stdin(out.join("\n")).run();
    let one_shot = ci("ci-agg").args(["--tokens", "--by", "session"]).arg(&home).run();
    assert_eq!((piped.stderr.as_str(), piped.code), ("", 0), "{piped:?}");
    assert_eq!(piped.stdout, one_shot.stdout);
}

/// `ci-grep -f` and `ci-filter -f` share the engine: a row committed later
/// that matches is printed once, with its provenance.
#[test]
fn grep_and_filter_follow_a_database() {
    let (_dir, db, conn) = live_opencode();
    let path = db.to_str().unwrap();
    let mut grep = Live::start(follow_command("ci-grep", &["violet heron", path]), Stdio::null());
    let mut filter = Live::start(follow_command("ci-filter", &["--event", "prompt:submit", path]), Stdio::null());
    filter.wait_until("the sample's prompt printed", |out, _| out.len() == 1);
    let t = 1_781_085_660_000_i64;
    let user = format!(r#"{{"role":"user","time":{{"created":{t}}}}}"#);
    write(&conn, "INSERT INTO message VALUES ('msg_z1', 'ses_child00001', ?1, ?1, ?2)", rusqlite::params![t, user]);
    let text = r#"{"type":"text","text":"the violet heron report"}"#;
    write(
        &conn,
        "INSERT INTO part VALUES ('prt_z1', 'msg_z1', 'ses_child00001', ?1, ?1, ?2)",
        rusqlite::params![t, text],
    );
    grep.wait_until("the match printed", |out, _| !out.is_empty());
    filter.wait_until("the new prompt printed", |out, _| out.len() == 2);
    let_polls_pass();
    let (code, out, err) = grep.end();
    assert_eq!((code, err, out.len()), (Some(0), Vec::<String>::new(), 1), "{out:?}");
    let found: Value = serde_json::from_str(&out[0]).unwrap();
    assert_eq!((found["session"].as_str(), found["event"].as_str()), (Some("ses_child00001"), Some("opencode:text")));
    let (code, out, err) = filter.end();
    assert_eq!((code, err), (Some(0), Vec::<String>::new()));
    assert_eq!(of_row(&out, "msg_z1").len(), 1, "{out:?}");
}

/// A Copilot store made after the session was first read (none at the
/// start) is found with the session's new files and followed by its rows:
/// each of its rows for the session is printed once.
#[test]
fn a_copilot_store_made_later_is_followed() {
    let (dir, db) = crate::copilot_db::tree_copy();
    std::fs::remove_file(&db).unwrap();
    let session = dir.path().join(".copilot/session-state/5d0f3c2a-7b41-4e8e-9a6c-2f1e0d9c8b7a");
    let mut cat = Live::start(follow_command("ci-cat", &[session.to_str().unwrap()]), Stdio::null());
    cat.wait_until("the session printed", |out, _| out.iter().any(|l| l.contains(r#""event":"session:end""#)));
    let conn = Connection::open(&db).unwrap();
    conn.pragma_update(None, "journal_mode", "wal").unwrap();
    conn.busy_timeout(std::time::Duration::ZERO).unwrap();
    let sql = std::fs::read_to_string(root().join("fixtures/copilot-db/session-store-minimal.sql")).unwrap();
    conn.execute_batch(&sql).expect("the writer is never blocked");
    let rows = |out: &[String]| out.iter().filter(|l| l.contains(r#""type":"assistant_usage_event""#)).count();
    cat.wait_until("the store's three rows printed", |out, _| rows(out) >= 3);
    let_polls_pass();
    let (code, out, err) = cat.end();
    assert_eq!((code, err), (Some(0), Vec::<String>::new()));
    assert_eq!(rows(&out), 3, "{out:?}");
    drop(conn);
}
