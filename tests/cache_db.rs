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

/// A generated database, written while OpenCode holds it open (its `-wal`
/// there) and after it closed it: warm, after an insert into one session,
/// an update of one row and a delete, each answer as `--no-cache`'s.
#[test]
fn database_sessions_answer_as_without_the_cache_after_each_change() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let db = dir.path().join("opencode.db");
    let (conn, _) = crate::opencodegen::generate(&db, 5, 12);
    drop(conn);
    set_age(&db, 3600);
    let mut answer = as_without_cache(home.path(), &db, "closed, old");
    // OpenCode running (one connection: its `-wal` stays), then each change
    // made by a connection closed after it (the `-wal` checkpointed and gone).
    let mut running = Some(rusqlite::Connection::open(&db).unwrap());
    for open in [true, false] {
        for (sql, what) in [(INSERT, "insert"), (UPDATE, "update"), (DELETE, "delete")] {
            match &running {
                Some(conn) => conn.execute_batch(sql).unwrap(),
                None => rusqlite::Connection::open(&db).unwrap().execute_batch(sql).unwrap(),
            }
            let what = format!("{what}, writer open: {open}");
            assert_eq!(dir.path().join("opencode.db-wal").exists(), open, "{what}");
            let now = as_without_cache(home.path(), &db, &what);
            assert_ne!(now, answer, "{what} changes the answer");
            answer = now;
        }
        running = None;
    }
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
