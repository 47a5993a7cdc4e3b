//! Copilot CLI's `session-store.db` (fixtures/copilot-db: the shared sample
//! session with the hand-made store of SOURCE.md, three usage rows, and the
//! compaction session, which has no rows): a session's tokens come from its
//! rows and not also from its shutdown roll-ups, a session without rows
//! falls back to the roll-ups, a cut row reads back whole, and a locked
//! store is reported.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::util::{ci, root};

/// The tree (a Copilot home with `session-store.db`).
const HOME: &str = "fixtures/copilot-db/.copilot";
/// The sample session: two legs, three usage rows in the store.
const SAMPLE: &str = "fixtures/copilot-db/.copilot/session-state/5d0f3c2a-7b41-4e8e-9a6c-2f1e0d9c8b7a";
/// The compaction session: no usage rows.
const NO_ROWS: &str = "fixtures/copilot-db/.copilot/session-state/c0ffee00-0000-4000-8000-00000000000b";
/// The same sample without a store (fixtures/copilot-cli).
const WITHOUT_STORE: &str = "fixtures/copilot-cli/.copilot/session-state/5d0f3c2a-7b41-4e8e-9a6c-2f1e0d9c8b7a";

/// `ci-agg --tokens` (with `more`) of `path`, which must succeed.
fn tokens(path: &str, more: &[&str]) -> Vec<Value> {
    let run = ci("ci-agg").arg("--tokens").args(more).arg(path).run();
    assert_eq!((run.stderr.as_str(), run.code), ("", 0), "{run:?}");
    run.json()
}

/// (responses, fresh input, cache read, cache write, output) of a row.
fn counts(r: &Value) -> [u64; 5] {
    let n = |k: &str| r[k].as_u64().unwrap_or_else(|| panic!("no {k}: {r}"));
    [n("responses"), n("input_tokens"), n("cache_read_tokens"), n("cache_write_tokens"), n("output_tokens")]
}

/// SOURCE.md's rows' totals: 4,000 fresh input (input_tokens counts the
/// cache), 44,000 cache reads, 4,000 cache writes, 700 output, over three
/// responses (the rows, not the two shutdowns), and the rows' recorded
/// cost, 2.9e9 nano AI units = $0.029; by day, each row at its own time.
#[test]
fn the_sample_counts_its_rows_totals_of_source_md() {
    let all = tokens(SAMPLE, &[]);
    assert_eq!(all.len(), 1, "{all:?}");
    assert_eq!((all[0]["model"].as_str(), counts(&all[0])), (Some("claude-sonnet-4.6"), [3, 4000, 44000, 4000, 700]));
    assert_eq!((all[0]["cost_usd"].as_f64(), all[0]["cost_source"].as_str()), (Some(0.029), Some("writer")));
    let days: Vec<(String, [u64; 5])> =
        tokens(SAMPLE, &["--by", "day"]).iter().map(|r| (r["day"].as_str().unwrap().to_owned(), counts(r))).collect();
    assert_eq!(
        days,
        [
            ("2026-06-18".to_owned(), [2, 2000, 15000, 3000, 300]),
            ("2026-06-19".to_owned(), [1, 2000, 29000, 1000, 400])
        ]
    );
}

/// The rows replace the roll-ups, never both: the shutdowns are
/// `session:end` with no response, the responses are the three rows (each
/// with its own time and provenance in the store), and the same session
/// without its store counts the roll-ups' equal totals over two responses.
#[test]
fn rows_and_roll_ups_are_never_both_counted() {
    let run = ci("ci-filter").args(["--event", "llm:response", "--event", "session:end", SAMPLE]).run();
    assert_eq!((run.stderr.as_str(), run.code), ("", 0), "{run:?}");
    let seen: Vec<(String, String, String)> = run
        .json()
        .iter()
        .map(|r| {
            let path = r["ci"]["path"].as_str().unwrap();
            let file = Path::new(path).file_name().unwrap().to_string_lossy().into_owned();
            (r["event"].as_str().unwrap().to_owned(), r["timestamp"].as_str().unwrap().to_owned(), file)
        })
        .collect();
    let row = |t: &str| ("llm:response".to_owned(), t.to_owned(), "session-store.db".to_owned());
    let end = |t: &str| ("session:end".to_owned(), t.to_owned(), "events.jsonl".to_owned());
    assert_eq!(
        seen,
        [
            row("2026-06-18T19:13:55.000Z"),
            row("2026-06-18T19:14:09.000Z"),
            row("2026-06-19T08:01:30.000Z"),
            end("2026-06-18T19:14:20.000Z"),
            end("2026-06-19T08:02:10.000Z"),
        ]
    );
    let without = tokens(WITHOUT_STORE, &[]);
    assert_eq!(counts(&without[0]), [2, 4000, 44000, 4000, 700]);
    // Piped records count what the session counts.
    let piped = ci("ci-agg").arg("--tokens").stdin(ci("ci-cat").arg(SAMPLE).run().stdout).run();
    assert_eq!((piped.stderr.as_str(), piped.code), ("", 0), "{piped:?}");
    assert_eq!(piped.json(), tokens(SAMPLE, &[]));
}

/// A session the store has no rows for counts its shutdown roll-ups, as
/// without a store (fixtures/copilot-cli's same session).
#[test]
fn a_session_without_rows_falls_back_to_its_roll_ups() {
    let same = NO_ROWS.replace("copilot-db", "copilot-cli");
    assert_eq!(tokens(NO_ROWS, &["--by", "day"]), tokens(&same, &["--by", "day"]));
    let home: Vec<[u64; 5]> = tokens(HOME, &[]).iter().map(counts).collect();
    assert_eq!(home, [[3, 4000, 44000, 4000, 700], [2, 13000, 25000, 0, 1400]]);
}

/// A copy of the tree in a temporary folder, and its store.
pub(crate) fn tree_copy() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join(".copilot");
    let sample = home.join("session-state").join(Path::new(SAMPLE).file_name().unwrap());
    std::fs::create_dir_all(&sample).unwrap();
    for f in ["events.jsonl", "workspace.yaml"] {
        std::fs::copy(root().join(SAMPLE).join(f), sample.join(f)).unwrap();
    }
    let db = home.join("session-store.db");
    std::fs::copy(root().join(HOME).join("session-store.db"), &db).unwrap();
    (dir, db)
}

/// A store a writer holds locked (rollback journal) is reported with its
/// path, and the session counts its roll-ups.
#[test]
fn a_locked_store_is_reported_and_the_roll_ups_count() {
    let (dir, db) = tree_copy();
    let home = dir.path().join(".copilot");
    let lock = "BEGIN EXCLUSIVE; DELETE FROM assistant_usage_events WHERE rowid = 1;";
    let run = crate::kit::live_db::while_locked(&db, lock, || ci("ci-agg").arg("--tokens").arg(&home).run());
    assert_eq!(run.code, 2, "{run:?}");
    assert_eq!(counts(&run.json()[0]), [2, 4000, 44000, 4000, 700]);
}

/// A row printed cut (a long model name) names its table and rowid; the
/// next tool reads it again whole and counts it.
#[test]
fn a_cut_row_reads_back_whole() {
    let (dir, db) = tree_copy();
    let model = "m".repeat(3000);
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute("UPDATE assistant_usage_events SET model = ?1 WHERE rowid = 3", [&model]).unwrap();
    drop(conn);
    let home = dir.path().join(".copilot");
    let cut = ci("ci-cat").args(["--max-bytes", "1k"]).arg(&home).run();
    assert_eq!((cut.stderr.as_str(), cut.code), ("", 0), "{cut:?}");
    let marked: Vec<&str> = cut.stdout.lines().filter(|l| l.contains(r#""cut":{"#)).collect();
    assert_eq!(marked.len(), 1, "{}", cut.stdout);
    assert!(marked[0].contains(r#""table":"assistant_usage_events","rowid":3,"#), "{}", marked[0]);
    assert!(marked[0].contains(r#""writer":"copilot-cli""#), "{}", marked[0]);
    let whole = ci("ci-cat").arg("--full").stdin(marked[0]).run();
    assert_eq!((whole.stderr.as_str(), whole.code), ("", 0), "{whole:?}");
    assert_eq!(whole.json()[0]["data"]["data"]["model"].as_str(), Some(model.as_str()));
    let piped = ci("ci-agg").arg("--tokens").stdin(cut.stdout.clone()).run();
    assert_eq!((piped.stderr.as_str(), piped.code), ("", 0), "{piped:?}");
    let models: Vec<(String, [u64; 5])> =
        piped.json().iter().map(|r| (r["model"].as_str().unwrap().to_owned(), counts(r))).collect();
    assert_eq!(
        models,
        [("claude-sonnet-4.6".to_owned(), [2, 2000, 15000, 3000, 300]), (model, [1, 2000, 29000, 1000, 400])]
    );
}

/// The tree's copy with its store rebuilt by `sql` (the sample session's rows).
fn store_of(sql: &str) -> (tempfile::TempDir, PathBuf) {
    let (dir, db) = tree_copy();
    std::fs::remove_file(&db).unwrap();
    rusqlite::Connection::open(&db).unwrap().execute_batch(sql).unwrap();
    (dir, db)
}

/// A `created_at` written as a number (seconds, or milliseconds past 1e11)
/// dates its row; a compaction's request (`initiator`) is a response like
/// any; a row without `total_nano_aiu` has no recorded cost.
#[test]
fn numeric_times_and_compaction_requests_are_read() {
    let (dir, _db) = store_of(concat!(
        "CREATE TABLE assistant_usage_events (id INTEGER PRIMARY KEY, session_id TEXT, model TEXT, input_tokens INTEGER, ",
        "cache_read_tokens INTEGER, cache_write_tokens INTEGER, reasoning_tokens INTEGER, output_tokens INTEGER, ",
        "created_at, total_nano_aiu INTEGER, request_multiplier REAL, initiator TEXT);",
        "INSERT INTO assistant_usage_events VALUES (1, '5d0f3c2a-7b41-4e8e-9a6c-2f1e0d9c8b7a', 'gpt-5.4', 500, 100, 0, 7, 50, ",
        "1781800000123, NULL, 1.0, 'compaction');",
        "INSERT INTO assistant_usage_events VALUES (2, '5d0f3c2a-7b41-4e8e-9a6c-2f1e0d9c8b7a', 'gpt-5.4', 300, 0, 0, 0, 30, ",
        "1781900000, NULL, 1.0, NULL);"
    ));
    let home = dir.path().join(".copilot");
    let run = ci("ci-filter").args(["--event", "llm:response"]).arg(&home).run();
    assert_eq!((run.stderr.as_str(), run.code), ("", 0), "{run:?}");
    let seen: Vec<(String, Value)> = run
        .json()
        .iter()
        .map(|r| (r["timestamp"].as_str().unwrap().to_owned(), r["data"]["data"]["initiator"].clone()))
        .collect();
    assert_eq!(
        seen,
        [
            ("2026-06-18T16:26:40.123Z".to_owned(), Value::from("compaction")),
            ("2026-06-19T20:13:20.000Z".to_owned(), Value::Null)
        ]
    );
    let all = ci("ci-agg").arg("--tokens").arg(&home).run();
    assert_eq!((all.stderr.as_str(), all.code), ("", 0), "{all:?}");
    assert_eq!(counts(&all.json()[0]), [2, 700, 100, 0, 80]);
}

/// A store of an older build, without the `output_tokens` column, is read as
/// having no rows: the session counts its roll-ups.
#[test]
fn a_store_without_output_tokens_falls_back_to_the_roll_ups() {
    let (dir, _db) = store_of(concat!(
        "CREATE TABLE assistant_usage_events (id INTEGER PRIMARY KEY, session_id TEXT, model TEXT, input_tokens INTEGER, ",
        "cache_read_tokens INTEGER, cache_write_tokens INTEGER, reasoning_tokens INTEGER, created_at TEXT, ",
        "total_nano_aiu INTEGER, initiator TEXT);",
        "INSERT INTO assistant_usage_events VALUES (1, '5d0f3c2a-7b41-4e8e-9a6c-2f1e0d9c8b7a', 'gpt-5.4', 500, 100, 0, 0, ",
        "'2026-06-18T19:13:55.000Z', 1, NULL);"
    ));
    let all: Vec<[u64; 5]> = tokens(dir.path().join(".copilot").to_str().unwrap(), &[]).iter().map(counts).collect();
    assert_eq!(all, [[2, 4000, 44000, 4000, 700]]);
}

/// A session with a store is read again every run (the capture cache never
/// answers for it): a row changed since the last run counts as it is now.
#[test]
fn a_changed_store_is_read_again() {
    let (dir, db) = tree_copy();
    let home = dir.path().join(".copilot");
    let home = home.to_str().unwrap();
    assert_eq!(counts(&tokens(home, &[])[0]), [3, 4000, 44000, 4000, 700]);
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute("UPDATE assistant_usage_events SET output_tokens = 1400 WHERE rowid = 3", []).unwrap();
    drop(conn);
    assert_eq!(counts(&tokens(home, &[])[0]), [3, 4000, 44000, 4000, 1700]);
}

/// A live store (WAL mode, a writer connected, a row committed in its
/// `-wal`) is read with what was committed, and the writer is not blocked.
#[test]
fn a_live_wal_store_is_read_with_its_committed_rows() {
    let (dir, db) = tree_copy();
    let conn = rusqlite::Connection::open(&db).unwrap();
    let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0)).unwrap();
    assert_eq!(mode, "wal");
    let insert = "INSERT INTO assistant_usage_events (session_id, model, input_tokens, cache_read_tokens, \
        cache_write_tokens, reasoning_tokens, output_tokens, created_at, total_nano_aiu, request_multiplier, initiator) \
        VALUES ('5d0f3c2a-7b41-4e8e-9a6c-2f1e0d9c8b7a', 'claude-sonnet-4.6', 1000, 0, 0, 0, 10, \
        '2026-06-19T08:01:40.000Z', 0, 1.0, 'compaction')";
    conn.execute(insert, []).unwrap();
    assert!(db.with_extension("db-wal").exists());
    let home = dir.path().join(".copilot");
    assert_eq!(counts(&tokens(home.to_str().unwrap(), &[])[0]), [4, 5000, 44000, 4000, 710]);
    conn.execute(insert, []).expect("the writer is never blocked");
}

/// A session the store has rows for but no event log under `session-state/`
/// (its folder deleted) is a session of its own: found under the home and
/// its `session-state` folder (path = the store, working_dir = its
/// `sessions` row's cwd, times = its first and last rows'), its rows its
/// events, its tokens counted once; the other sessions are unchanged. A
/// session folder named as the root has no store sessions.
#[test]
fn a_session_only_the_store_knows_is_found_and_counted() {
    let (dir, db) = tree_copy();
    const ORPHAN: &str = "0a0a0a0a-0000-4000-8000-000000000001";
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute(
        "INSERT INTO sessions VALUES (?1, '/home/dev/gone', NULL, 'main', 'Deleted', '2026-06-20T09:00:00.000Z', NULL)",
        [ORPHAN],
    )
    .unwrap();
    for (at, input, output) in [("2026-06-20T09:00:10.000Z", 5000, 50), ("2026-06-21T09:00:10.000Z", 3000, 30)] {
        conn.execute(
            "INSERT INTO assistant_usage_events (session_id, model, input_tokens, cache_read_tokens, cache_write_tokens, \
             reasoning_tokens, output_tokens, created_at, total_nano_aiu, request_multiplier, initiator) \
             VALUES (?1, 'gpt-5.4', ?2, 1000, 0, 0, ?3, ?4, 200000000, 1.0, NULL)",
            rusqlite::params![ORPHAN, input, output, at],
        )
        .unwrap();
    }
    drop(conn);
    let home = dir.path().join(".copilot");
    let found = ci("ci-find").arg("--root").arg(&home).run();
    assert_eq!((found.stderr.as_str(), found.code), ("", 0), "{found:?}");
    let orphan: Vec<Value> = found.json().into_iter().filter(|r| r["session"] == ORPHAN).collect();
    assert_eq!(orphan.len(), 1, "{}", found.stdout);
    let fields = ["path", "working_dir", "project", "started_at", "last_event_at", "model", "format"];
    let got: Vec<&Value> = fields.iter().map(|f| &orphan[0][*f]).collect();
    let want = [
        db.to_str().unwrap(),
        "/home/dev/gone",
        "-home-dev-gone",
        "2026-06-20T09:00:10Z",
        "2026-06-21T09:00:10Z",
        "gpt-5.4",
        "copilot-cli",
    ];
    assert_eq!(got, want.map(Value::from).iter().collect::<Vec<_>>());
    let state = home.join("session-state");
    let paths = ci("ci-find").arg("--paths").arg("--root").arg(&state).run();
    assert_eq!(paths.stdout.lines().filter(|l| *l == db.to_str().unwrap()).count(), 1, "{paths:?}");
    let sample =
        ci("ci-find").arg("--paths").arg("--root").arg(state.join(Path::new(SAMPLE).file_name().unwrap())).run();
    assert_eq!(sample.stdout.lines().count(), 1, "{sample:?}");
    let by_session: Vec<(String, [u64; 5])> = tokens(home.to_str().unwrap(), &["--by", "session"])
        .iter()
        .map(|r| (r["session"].as_str().unwrap().to_owned(), counts(r)))
        .collect();
    assert_eq!(
        by_session,
        [
            ("5d0f3c2a-7b41-4e8e-9a6c-2f1e0d9c8b7a".to_owned(), [3, 4000, 44000, 4000, 700]),
            (ORPHAN.to_owned(), [2, 6000, 2000, 0, 80]),
        ]
    );
    let events = ci("ci-cat").args(["--session", ORPHAN]).arg(&home).run();
    assert_eq!((events.stderr.as_str(), events.code), ("", 0), "{events:?}");
    let names: Vec<Value> = events.json().iter().map(|e| e["event"].clone()).collect();
    assert_eq!(names, ["llm:response", "llm:response"]);
}
