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

const V5: &str = include_str!("../../../fixtures/goose/v5.sql");

#[test]
fn a_database_before_the_ledger_is_its_sessions_and_messages_with_the_totals() {
    let (_dir, path) = db(V5);
    let recs = records(&path, "20251010_1");
    let ids: Vec<_> = recs.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["20251010_1", "msg_20251010_1_1", "msg_20251010_1_2", "msg_20251010_1_3", "msg_20251010_1_4"]);
    let usage = &recs[0]["usage"];
    assert_eq!((usage["input_tokens"].as_u64(), usage["output_tokens"].as_u64()), (Some(3000), Some(150)));
    assert_eq!((recs[0]["model"].as_str(), recs[0]["ledger_rows"].as_u64()), (None, Some(0)));
    assert_eq!(recs[1]["metadata"]["userVisible"], true);
    assert_eq!(records(&path, "20251011_1")[0]["usage"], serde_json::Value::Null, "no totals, no usage");
}

#[test]
fn a_later_schema_before_the_ledger_gives_its_model_cache_and_cost() {
    let later =
        "ALTER TABLE sessions ADD COLUMN provider_name TEXT; ALTER TABLE sessions ADD COLUMN model_config_json TEXT;
        ALTER TABLE messages ADD COLUMN message_id TEXT; ALTER TABLE sessions ADD COLUMN accumulated_cost REAL;
        ALTER TABLE sessions ADD COLUMN accumulated_cache_read_tokens INTEGER;
        ALTER TABLE sessions ADD COLUMN accumulated_cache_write_tokens INTEGER;
        UPDATE sessions SET model_config_json = '{\"model_name\":\"gpt-4o\"}', accumulated_cost = 0.5,
          accumulated_cache_read_tokens = 70, accumulated_cache_write_tokens = 9 WHERE id = '20251010_1';
        UPDATE messages SET message_id = 'm' || id;";
    let (_dir, path) = db(&format!("{V5}\n{later}"));
    let recs = records(&path, "20251010_1");
    let usage = &recs[0]["usage"];
    let got = [&usage["cache_read_tokens"], &usage["cache_write_tokens"], &usage["cost_usd"], &recs[0]["model"]];
    assert_eq!(got.map(|v| v.to_string()), ["70", "9", "0.5", "\"gpt-4o\""]);
    assert_eq!(recs[1]["id"], "m1");
}

#[test]
fn a_database_of_an_unknown_schema_is_reported() {
    let sql = format!("{V5}\nALTER TABLE sessions DROP COLUMN accumulated_input_tokens;");
    let (_dir, path) = db(&sql);
    let conn = crate::lines::rows::open(&path).unwrap();
    let want = "a Goose database of a schema not known (schema_version 5): its sessions table has no column \
                accumulated_input_tokens; not read";
    assert_eq!(store::is_goose(&conn), Err(want.to_owned()));
}
