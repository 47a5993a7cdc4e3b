use super::*;

static T: Table = Table { writer: "test", name: "t", record: "json_object('id', id, 'v', v)", usage: None };

/// A database with table `t` in the journal mode `mode`, `n` rows.
fn make(dir: &Path, mode: &str, n: i64) -> (std::path::PathBuf, Connection) {
    let path = dir.join("x.db");
    let c = Connection::open(&path).unwrap();
    c.pragma_update(None, "journal_mode", mode).unwrap();
    c.execute_batch("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)").unwrap();
    for i in 1..=n {
        c.execute("INSERT INTO t (v) VALUES (?1)", [format!("row {i}")]).unwrap();
    }
    (path, c)
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

fn all(path: &Path) -> Result<Vec<String>, String> {
    let conn = open(path)?;
    let max: i64 =
        conn.query_row("SELECT coalesce(max(rowid), 0) FROM t", [], |r| r.get(0)).map_err(|e| e.to_string())?;
    let keys = (1..=max).map(|i| (&T, i)).collect();
    let mut rows = Rows::new(conn, keys);
    let mut out = Vec::new();
    while let Some(line) = rows.next_line().map_err(|e| e.to_string())? {
        assert_eq!(line.site.framing, Framing::Row(&T));
        assert_eq!(line.site.len, line.bytes.len() as u64);
        out.push(String::from_utf8(line.bytes.to_vec()).unwrap());
    }
    Ok(out)
}

#[test]
fn a_closed_wal_database_is_read_without_a_file_left_beside_it() {
    let dir = tempfile::tempdir().unwrap();
    let (path, c) = make(dir.path(), "wal", 2);
    drop(c);
    let before = names(dir.path());
    assert_eq!(before, ["x.db"]);
    assert_eq!(all(&path).unwrap(), [r#"{"id":1,"v":"row 1"}"#, r#"{"id":2,"v":"row 2"}"#]);
    assert_eq!(names(dir.path()), before);
}

#[test]
fn a_live_wal_database_is_read_with_its_wal_and_the_writer_is_never_blocked() {
    let dir = tempfile::tempdir().unwrap();
    let (path, c) = make(dir.path(), "wal", 3);
    // The rows are in the -wal file only, not yet checkpointed.
    assert!(dir.path().join("x.db-wal").exists());
    assert_eq!(all(&path).unwrap().len(), 3);
    // A writer inserting while we read: every committed row is seen, the
    // writer (no busy timeout) never gets SQLITE_BUSY.
    c.busy_timeout(Duration::ZERO).unwrap();
    let writer = std::thread::spawn(move || {
        for i in 0..300 {
            c.execute("INSERT INTO t (v) VALUES (?1)", [format!("live {i}")]).expect("the writer is never blocked");
        }
        c
    });
    let mut last = 3;
    while !writer.is_finished() {
        let n = all(&path).unwrap().len();
        assert!(n >= last, "rows went from {last} to {n}");
        last = n;
    }
    let c = writer.join().unwrap();
    assert_eq!(all(&path).unwrap().len(), 303);
    drop(c);
}

#[test]
fn a_locked_database_is_reported_as_locked() {
    let dir = tempfile::tempdir().unwrap();
    let (path, c) = make(dir.path(), "delete", 1);
    c.execute_batch("BEGIN EXCLUSIVE; INSERT INTO t (v) VALUES ('pending');").unwrap();
    let err = all(&path).unwrap_err();
    assert!(err.contains("database is locked"), "{err}");
    c.execute_batch("COMMIT").unwrap();
    assert_eq!(all(&path).unwrap().len(), 2);
}

#[test]
fn a_database_in_a_read_only_folder_is_read() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let (path, c) = make(dir.path(), "wal", 1);
    drop(c);
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o555)).unwrap();
    let got = all(&path);
    let left = names(dir.path());
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(got.unwrap(), [r#"{"id":1,"v":"row 1"}"#]);
    assert_eq!(left, ["x.db"]);
}

#[test]
fn what_is_no_database_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.db");
    std::fs::write(&path, "{\"not\":\"sqlite\"}\n").unwrap();
    assert_eq!(open(&path).err().as_deref(), Some("not a SQLite database"));
    assert!(open(dir.path()).err().unwrap().contains("not a regular file"));
}

#[test]
fn a_path_with_uri_characters_is_opened_as_named() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("a?b#c%d");
    std::fs::create_dir(&sub).unwrap();
    let (path, c) = make(&sub, "delete", 1);
    drop(c);
    assert_eq!(all(&path).unwrap().len(), 1);
}

#[test]
fn a_database_is_told_by_its_first_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let (path, c) = make(dir.path(), "delete", 0);
    drop(c);
    assert!(is_database(&path));
    std::fs::write(dir.path().join("short"), "SQLite").unwrap();
    assert!(!is_database(&dir.path().join("short")));
    assert!(!is_database(dir.path()));
    assert!(!is_database(&dir.path().join("missing")));
}

/// Followed: rows taken before are left out with their line numbers kept,
/// unfinished rows are held (not taken) by `next_complete_line` only.
#[test]
fn a_follower_leaves_out_taken_rows_and_holds_unfinished_ones() {
    let dir = tempfile::tempdir().unwrap();
    let (path, c) = make(dir.path(), "wal", 4);
    c.execute("UPDATE t SET v = 'open' WHERE id = 3", []).unwrap();
    let keys = || (1..=4).map(|i| (&T, i)).collect::<Vec<_>>();
    let mut rows = Rows::new(open(&path).unwrap(), keys());
    rows.leave_out(&[("t", 1)].into_iter().collect());
    rows.hold_unfinished(|record| record.ends_with(br#""open"}"#));
    let mut got = Vec::new();
    while let Some(line) = rows.next_complete_line().unwrap() {
        got.push((line.number, line.site.offset));
    }
    assert_eq!(got, [(2, 2), (4, 4)]);
    assert_eq!(rows.taken().collect::<Vec<_>>(), [("t", 2), ("t", 4)]);
    // Read whole (not followed), the unfinished row is a line like any.
    let mut rows = Rows::new(open(&path).unwrap(), keys());
    rows.hold_unfinished(|record| record.ends_with(br#""open"}"#));
    let mut n = 0;
    while rows.next_line().unwrap().is_some() {
        n += 1;
    }
    assert_eq!(n, 4);
}
