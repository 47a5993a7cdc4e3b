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
