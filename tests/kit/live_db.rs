//! A database written while it is read: for the tests of database stores.

use std::path::Path;

use crate::util::ci;

/// Runs `n` times `insert` (each adds 1 input token) on `conn`, a WAL
/// database's writer with no busy timeout (SQLITE_BUSY would fail it: the
/// writer is never blocked), while ci-agg reads `db` again and again: every
/// answer counts a prefix of what was committed, from `base` up, and the
/// last one counts every row once.
pub fn written_while_read(
    db: &Path,
    conn: rusqlite::Connection,
    base: u64,
    n: u64,
    insert: fn(&rusqlite::Connection, u64),
) {
    conn.busy_timeout(std::time::Duration::ZERO).unwrap();
    let writer = std::thread::spawn(move || {
        for i in 0..n {
            insert(&conn, i);
        }
        conn
    });
    let input = |run: crate::util::Run| -> u64 {
        assert_eq!((run.stderr.as_str(), run.code), ("", 0));
        run.json().iter().map(|r| r["input_tokens"].as_u64().unwrap()).sum()
    };
    let mut last = 0;
    while !writer.is_finished() {
        let got = input(ci("ci-agg").args(["--tokens", "--no-cache"]).arg(db).run());
        assert!(got >= last && got <= base + n, "input went from {last} to {got}");
        last = got;
    }
    let conn = writer.join().unwrap();
    assert_eq!(input(ci("ci-agg").args(["--tokens", "--no-cache"]).arg(db).run()), base + n);
    drop(conn);
}

/// A new database at `db` in WAL mode, made by the SQL file `sql` (a path
/// from the repository's root): a writer's open connection to it.
pub fn wal_from_sql(db: &Path, sql: &str) -> rusqlite::Connection {
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.pragma_update(None, "journal_mode", "wal").unwrap();
    conn.execute_batch(&std::fs::read_to_string(crate::util::root().join(sql)).unwrap()).unwrap();
    conn
}

/// Runs `run` while a writer holds `db` locked (rollback journal: `lock`
/// is SQL that takes the lock, `BEGIN EXCLUSIVE; …`, rolled back after):
/// the run is reported with the database's path, and returned.
pub fn while_locked(db: &Path, lock: &str, run: impl FnOnce() -> crate::util::Run) -> crate::util::Run {
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.execute_batch(lock).unwrap();
    let run = run();
    conn.execute_batch("ROLLBACK").unwrap();
    assert_ne!(run.code, 0, "{run:?}");
    assert!(run.stderr.contains(&format!("{}: database is locked", db.display())), "{}", run.stderr);
    run
}

/// `ci-agg --tokens --by session` on `path`: each session's responses,
/// input, output, cache read and cache write tokens (no report, exit 0).
pub fn tokens_by_session(path: &Path) -> std::collections::BTreeMap<String, [u64; 5]> {
    let run = ci("ci-agg").args(["--tokens", "--by", "session", "--no-cache"]).arg(path).run();
    assert_eq!((run.stderr.as_str(), run.code), ("", 0), "{}", path.display());
    let keys = ["responses", "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens"];
    run.json()
        .iter()
        .map(|r| (r["session"].as_str().unwrap().to_owned(), keys.map(|k| r[k].as_u64().unwrap())))
        .collect()
}
