use super::*;

const SQL: &str = include_str!("../../../fixtures/goose/handmade/sessions-v15-minimal.sql");

/// A database built from `sql` in a temporary folder.
fn db(sql: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sessions.db");
    rusqlite::Connection::open(&path).unwrap().execute_batch(sql).unwrap();
    (dir, path)
}

/// The records of session `id`, in order, as JSON.
fn records(path: &Path, id: &str) -> Vec<serde_json::Value> {
    let conn = crate::lines::rows::open(path).unwrap();
    let keys = store::keys(&conn, id).unwrap();
    let mut rows = crate::lines::rows::Rows::new(conn, keys);
    let mut out = Vec::new();
    while let Some(line) = crate::lines::LineSource::next_line(&mut rows).unwrap() {
        out.push(serde_json::from_slice(line.bytes).unwrap());
    }
    out
}

#[test]
fn a_session_is_its_row_then_its_messages_and_ledger_rows_by_time() {
    let (_dir, path) = db(SQL);
    let recs = records(&path, "20260801_1");
    let kinds: Vec<_> = recs.iter().map(|r| (r["type"].as_str().unwrap(), r["id"].to_string())).collect();
    assert_eq!(
        kinds,
        [
            ("session", "\"20260801_1\"".to_owned()),
            ("message", "\"msg_1\"".to_owned()),
            ("message", "\"msg_2\"".to_owned()),
            ("usage", "1".to_owned()),
            ("message", "\"msg_3\"".to_owned()),
            ("message", "\"msg_4\"".to_owned()),
            ("usage", "2".to_owned()),
        ]
    );
    assert_eq!(recs[0]["usage"], serde_json::Value::Null, "a session with ledger rows: no totals on top");
    assert_eq!(recs[0]["timestamp"], "2026-08-01T10:15:00Z");
    assert_eq!(recs[1]["timestamp"], "2026-08-01T10:15:00Z");
    assert_eq!(recs[3]["usage"]["input_tokens"], 12000);
    assert_eq!(recs[3]["usage"]["cost_usd"], 0.0404);
}

#[test]
fn a_session_without_ledger_rows_carries_its_accumulated_totals() {
    let (_dir, path) = db(&format!("{SQL}\nDELETE FROM usage_ledger;"));
    let recs = records(&path, "20260801_1");
    let usage = &recs[0]["usage"];
    assert_eq!((usage["input_tokens"].as_u64(), usage["output_tokens"].as_u64()), (Some(24500), Some(490)));
    assert_eq!(recs.len(), 5);
}

#[test]
fn a_database_before_the_ledger_is_reported() {
    let sql = SQL
        .replace("CREATE TABLE usage_ledger", "CREATE TABLE other_ledger")
        .replace("INSERT INTO usage_ledger", "INSERT INTO other_ledger");
    let (_dir, path) = db(&sql);
    let conn = crate::lines::rows::open(&path).unwrap();
    assert_eq!(store::is_goose(&conn), Err(store::BEFORE_V15.to_owned()));
}
