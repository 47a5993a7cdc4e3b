//! Database sessions in the capture cache (issues 33 and 36): each session
//! of an OpenCode database is an entry, answered while the database's and
//! its `-wal`'s stats are as they were, else while its rows' fingerprint
//! is; a session whose rows were inserted, updated or deleted is read
//! again. Every answer equals `--no-cache`, on one thread and on several.

use std::path::Path;
use std::time::{Duration, SystemTime};

use crate::util::ci;

/// The questions asked of each state of the database.
const QUESTIONS: [&[&str]; 4] = [&["--tokens", "--by", "day"], &["--sessions"], &["--tools"], &["--by", "event"]];

/// ci-agg's stdout and stderr on `path` with `threads`, the cache in
/// `home` or without it.
fn agg(home: &Path, q: &[&str], path: &Path, cache: bool, threads: &str) -> (String, String) {
    let mut c = ci("ci-agg").env("XDG_CACHE_HOME", home).args(q).args(["-j", threads]);
    if !cache {
        c = c.arg("--no-cache");
    }
    let r = c.arg(path).run();
    assert_eq!(r.code, 0, "{r:?}");
    (r.stdout, r.stderr)
}

/// Every question answers as `--no-cache` does, building the cache and
/// warm, on one thread and on four; returns the `--tokens` answer.
fn as_without_cache(home: &Path, db: &Path, what: &str) -> String {
    for q in QUESTIONS {
        for j in ["1", "4"] {
            let cold = agg(home, q, db, false, j);
            assert_eq!(agg(home, q, db, true, j), cold, "{what}: {q:?} -j{j}, building");
            assert_eq!(agg(home, q, db, true, j), cold, "{what}: {q:?} -j{j}, warm");
        }
    }
    agg(home, QUESTIONS[0], db, false, "1").0
}

/// Sets `path`'s modification time `secs` seconds before now.
fn set_age(path: &Path, secs: u64) {
    let t = SystemTime::now() - Duration::from_secs(secs);
    std::fs::File::options().append(true).open(path).unwrap().set_modified(t).unwrap();
}

/// SQL that adds a copy of a `step-finish` part to its session.
const INSERT: &str = "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data)
    SELECT id || 'x', message_id, session_id, time_created + 1, time_updated + 1, data FROM part
    WHERE json_extract(data, '$.type') = 'step-finish' ORDER BY rowid LIMIT 1";

/// SQL that rewrites a `step-finish` part in place, as OpenCode rewrites a
/// part: new data, a new `time_updated`.
const UPDATE: &str = "UPDATE part SET data = json_set(data, '$.tokens.input', json_extract(data, '$.tokens.input') + 1000), time_updated = time_updated + 7
    WHERE rowid = (SELECT rowid FROM part WHERE json_extract(data, '$.type') = 'step-finish' ORDER BY rowid LIMIT 1 OFFSET 3)";

/// SQL that deletes a session's last `step-finish` part.
const DELETE: &str = "DELETE FROM part
    WHERE rowid = (SELECT max(rowid) FROM part WHERE json_extract(data, '$.type') = 'step-finish')";

/// On `tree`, whose database `db` is closed (put in WAL mode): warm, then after each of
/// `changes` (SQL, what it does) made while a writer holds the database
/// open (its `-wal` there), then again each made by a connection closed
/// after it (the `-wal` checkpointed and gone): every answer as
/// `--no-cache`'s, and each change changes the `--tokens` answer.
fn each_change_answers_as_without_the_cache(tree: &Path, db: &Path, changes: &[(&str, &str)]) {
    let home = tempfile::tempdir().unwrap();
    // In WAL mode, as the agents write (a no-op for those generated so).
    rusqlite::Connection::open(db).unwrap().pragma_update(None, "journal_mode", "wal").unwrap();
    set_age(db, 3600);
    let mut answer = as_without_cache(home.path(), tree, "closed, old");
    let wal = Path::new(&format!("{}-wal", db.display())).to_path_buf();
    let mut running = Some(rusqlite::Connection::open(db).unwrap());
    for open in [true, false] {
        for (sql, what) in changes {
            match &running {
                Some(conn) => conn.execute_batch(sql).unwrap(),
                None => rusqlite::Connection::open(db).unwrap().execute_batch(sql).unwrap(),
            }
            let what = format!("{what}, writer open: {open}");
            assert_eq!(wal.exists(), open, "{what}");
            let now = as_without_cache(home.path(), tree, &what);
            assert_ne!(now, answer, "{what} changes the answer");
            answer = now;
        }
        running = None;
    }
}

/// A generated OpenCode database: an insert into one session, an update
/// of one row (as OpenCode rewrites a part) and a delete.
#[test]
fn opencode_sessions_answer_as_without_the_cache_after_each_change() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("opencode.db");
    drop(crate::opencodegen::generate(&db, 5, 12).0);
    let changes = [(INSERT, "insert"), (UPDATE, "update"), (DELETE, "delete")];
    each_change_answers_as_without_the_cache(&db, &db, &changes);
}

/// A generated Goose folder (its legacy files beside the database): a
/// ledger row inserted, one rewritten, one deleted.
#[test]
fn goose_sessions_answer_as_without_the_cache_after_each_change() {
    let dir = tempfile::tempdir().unwrap();
    drop(crate::goosegen::generate(dir.path(), 3, 8, 2).0);
    let changes = [
        (
            "INSERT INTO usage_ledger (session_id, created_timestamp, model, input_tokens, output_tokens)
             SELECT session_id, created_timestamp + 1, model, 1000, 10 FROM usage_ledger ORDER BY rowid LIMIT 1",
            "insert",
        ),
        ("UPDATE usage_ledger SET input_tokens = input_tokens + 500 WHERE rowid = 3", "update"),
        ("DELETE FROM usage_ledger WHERE rowid = (SELECT max(rowid) FROM usage_ledger)", "delete"),
    ];
    each_change_answers_as_without_the_cache(dir.path(), &dir.path().join("sessions.db"), &changes);
}

/// Copilot CLI's store beside its event logs (a session is the store's
/// rows, then its log, kept by its stat): a usage row inserted, one
/// rewritten, one deleted.
#[test]
fn copilot_store_sessions_answer_as_without_the_cache_after_each_change() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join(".copilot");
    crate::conformance::copy_tree(&crate::util::root().join("fixtures/copilot-db/.copilot"), &home);
    for log in ["5d0f3c2a-7b41-4e8e-9a6c-2f1e0d9c8b7a", "c0ffee00-0000-4000-8000-00000000000b"] {
        for f in std::fs::read_dir(home.join("session-state").join(log)).unwrap() {
            set_age(&f.unwrap().path(), 3600);
        }
    }
    let changes = [
        (
            "INSERT INTO assistant_usage_events (session_id, model, input_tokens, output_tokens, created_at)
             SELECT session_id, model, 5000, 50, created_at FROM assistant_usage_events ORDER BY rowid LIMIT 1",
            "insert",
        ),
        ("UPDATE assistant_usage_events SET output_tokens = output_tokens + 5 WHERE rowid = 2", "update"),
        ("DELETE FROM assistant_usage_events WHERE rowid = (SELECT min(rowid) FROM assistant_usage_events)", "delete"),
    ];
    each_change_answers_as_without_the_cache(&home, &home.join("session-store.db"), &changes);
}

/// An unchanged database is answered by its stats, without its sessions'
/// rows being read: a row rewritten with the database's time and size put
/// back keeps the kept answer; once its time differs, the fingerprint tells
/// the session changed and it is read again.
#[test]
fn an_unchanged_database_is_answered_by_its_stats() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let db = dir.path().join("opencode.db");
    let (conn, _) = crate::opencodegen::generate(&db, 9, 6);
    drop(conn);
    set_age(&db, 3600);
    let q = QUESTIONS[0];
    let before = agg(home.path(), q, &db, false, "2");
    assert_eq!(agg(home.path(), q, &db, true, "2"), before, "building");
    let (time, len) = (db.metadata().unwrap().modified().unwrap(), db.metadata().unwrap().len());
    let writer = rusqlite::Connection::open(&db).unwrap();
    writer.execute_batch(UPDATE).unwrap();
    drop(writer);
    assert!(!dir.path().join("opencode.db-wal").exists());
    assert_eq!(db.metadata().unwrap().len(), len, "an update in place keeps the size");
    std::fs::File::options().append(true).open(&db).unwrap().set_modified(time).unwrap();
    let after = agg(home.path(), q, &db, false, "2");
    assert_ne!(after, before, "the update changes the answer");
    assert_eq!(agg(home.path(), q, &db, true, "2"), before, "answered by the stats: not read");
    set_age(&db, 1800);
    assert_eq!(agg(home.path(), q, &db, true, "2"), after, "the stat changed: the fingerprint tells");
    assert_eq!(agg(home.path(), q, &db, true, "2"), after, "warm");
}

/// Discovery's listing of an unchanged database is kept too (a warm run
/// opens no database): a session row rewritten with the database's time
/// and size put back keeps the kept listing; once its time differs, the
/// listing is read again.
#[test]
fn the_listing_of_an_unchanged_database_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let db = dir.path().join("opencode.db");
    drop(crate::opencodegen::generate(&db, 11, 3).0);
    set_age(&db, 3600);
    let q: &[&str] = &["--tokens", "--by", "workspace"];
    let before = agg(home.path(), q, &db, false, "1");
    assert_eq!(agg(home.path(), q, &db, true, "1"), before, "building");
    let (time, len) = (db.metadata().unwrap().modified().unwrap(), db.metadata().unwrap().len());
    let sql = "UPDATE session SET directory = directory || '-moved' WHERE rowid = 1";
    rusqlite::Connection::open(&db).unwrap().execute_batch(sql).unwrap();
    assert_eq!(db.metadata().unwrap().len(), len, "an update in place keeps the size");
    std::fs::File::options().append(true).open(&db).unwrap().set_modified(time).unwrap();
    let after = agg(home.path(), q, &db, false, "1");
    assert_ne!(after, before, "the move changes the answer");
    assert_eq!(agg(home.path(), q, &db, true, "1"), before, "the kept listing: not opened");
    set_age(&db, 1800);
    assert_eq!(agg(home.path(), q, &db, true, "1"), after, "the stat changed: listed and read again");
}
