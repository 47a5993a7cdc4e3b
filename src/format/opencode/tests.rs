use std::collections::HashMap;

use super::*;

const SQL: &str = include_str!("../../../fixtures/opencode/handmade/opencode-v1.16-minimal.sql");

/// A database built from `sql` in a temporary folder.
fn db(sql: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("opencode.db");
    rusqlite::Connection::open(&path).unwrap().execute_batch(sql).unwrap();
    (dir, path)
}

/// The records of session `id`, in order.
fn records(path: &Path, id: &str) -> Vec<String> {
    let conn = crate::lines::rows::open(path).unwrap();
    let mut rows =
        crate::lines::rows::Rows::new(conn, store::keys(&crate::lines::rows::open(path).unwrap(), id).unwrap());
    let mut out = Vec::new();
    while let Some(line) = crate::lines::LineSource::next_line(&mut rows).unwrap() {
        out.push(String::from_utf8(line.bytes.to_vec()).unwrap());
    }
    out
}

#[test]
fn a_session_is_its_row_then_each_message_and_its_parts() {
    let (_dir, path) = db(SQL);
    let recs = records(&path, "ses_parent0001");
    let ids: Vec<String> = recs
        .iter()
        .map(|r| serde_json::from_str::<serde_json::Value>(r).unwrap()["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        ids,
        [
            "ses_parent0001",
            "msg_u0001",
            "prt_u0001a",
            "msg_a0001",
            "prt_a0001a",
            "prt_a0001b",
            "prt_a0001c",
            "prt_a0001d",
            "prt_a0001e",
            "prt_a0001f",
            "prt_a0001g",
            "prt_a0001h"
        ]
    );
    assert!(recs[7].contains(
        r#""usage":{"input_tokens":2000,"output_tokens":300,"cache_read_tokens":14000,"cache_write_tokens":1100,"reasoning_tokens":100,"cost_usd":0.0165}"#
    ));
    assert!(recs[3].contains(r#""steps":2,"usage":null"#), "{}", recs[3]);
}

#[test]
fn a_message_without_step_parts_carries_its_own_tokens() {
    let sql = format!("{SQL}\nDELETE FROM part WHERE json_extract(data, '$.type') = 'step-finish';");
    let (_dir, path) = db(&sql);
    let recs = records(&path, "ses_child00001");
    assert_eq!(recs.len(), 2);
    assert!(recs[1].contains(
        r#""steps":0,"usage":{"input_tokens":300,"output_tokens":90,"cache_read_tokens":2000,"cache_write_tokens":0,"reasoning_tokens":0,"cost_usd":0.0021}"#
    ));
}

#[test]
fn data_that_is_not_json_is_kept_as_a_string_and_refused() {
    let sql = format!(
        "{SQL}\nINSERT INTO part VALUES ('prt_zz','msg_c0001','ses_child00001',1781085641000,1781085641000,'{{torn');"
    );
    let (_dir, path) = db(&sql);
    let recs = records(&path, "ses_child00001");
    let last = recs.last().unwrap();
    assert!(last.ends_with(r#""usage":null,"data":"{torn"}"#), "{recs:?}");
    let mut idx = crate::json::Index::new();
    let rec = idx.parse(last.as_bytes()).unwrap();
    assert_eq!(crate::format::Dialect::accept(&OpenCode, &rec), Err(dialect::NOT_JSON));
}

#[test]
fn sessions_are_read_with_their_parent_model_and_agent() {
    let (_dir, path) = db(SQL);
    let recs = sessions_of(&path, Detail::Full, None, None).unwrap();
    let got: Vec<_> =
        recs.iter().map(|r| (&*r.session, r.parent.as_deref(), r.model.as_deref(), r.agent.as_deref())).collect();
    assert_eq!(
        got,
        [
            ("ses_parent0001", None, Some("claude-sonnet-4-5"), Some("build")),
            ("ses_child00001", Some("ses_parent0001"), Some("claude-haiku-4-5"), Some("explore"))
        ]
    );
    assert_eq!(recs[0].started_at.as_deref(), Some("2026-06-10T10:00:00Z"));
    assert_eq!(recs[0].working_dir.as_deref(), Some("/home/dev/demo"));
}

#[test]
fn database_names_are_the_release_channels() {
    assert!(store::is_database_name("opencode.db"));
    assert!(store::is_database_name("opencode-beta.db"));
    assert!(!store::is_database_name("opencode.db-wal"));
    assert!(!store::is_database_name("other.db"));
}

/// The rows OpenCode still rewrites are unfinished; finished ones and the
/// sample's rows are not.
#[test]
fn rows_being_written_are_unfinished() {
    let unfinished = |record: &str| crate::format::Dialect::unfinished(&OpenCode, crate::json::Raw(record.as_bytes()));
    let message = |time: &str| format!(r#"{{"type":"message","data":{{"role":"assistant","time":{time}}}}}"#);
    assert!(unfinished(&message(r#"{"created":1}"#)));
    assert!(unfinished(&message(r#"{"created":1,"completed":null}"#)));
    assert!(!unfinished(&message(r#"{"created":1,"completed":2}"#)));
    let part = |data: &str| format!(r#"{{"type":"part","data":{data}}}"#);
    assert!(unfinished(&part(r#"{"type":"tool","state":{"status":"running"}}"#)));
    assert!(unfinished(&part(r#"{"type":"tool","state":{"status":"pending"}}"#)));
    assert!(!unfinished(&part(r#"{"type":"tool","state":{"status":"error"}}"#)));
    assert!(unfinished(&part(r#"{"type":"text","text":"Hel","time":{"start":1}}"#)));
    assert!(!unfinished(&part(r#"{"type":"text","text":"Hello","time":{"start":1,"end":2}}"#)));
    assert!(!unfinished(&part(r#"{"type":"text","text":"synthetic"}"#)));
    let (_dir, path) = db(SQL);
    for id in ["ses_parent0001", "ses_child00001"] {
        assert!(records(&path, id).iter().all(|r| !unfinished(r)), "{id}");
    }
}

/// A legacy file of the hand-made tree.
fn legacy_record(path: &str) -> String {
    let mut out = Vec::new();
    let len = crate::lines::documents::read(Path::new(path), &legacy::DOCUMENT, &mut out).unwrap();
    assert_eq!(len, Some(std::fs::metadata(path).unwrap().len()));
    String::from_utf8(out).unwrap()
}

#[test]
fn a_legacy_document_is_a_record_in_the_rows_shape() {
    let part = legacy_record("fixtures/opencode/handmade/storage/part/msg_legacyA01/prt_legacyA01a.json");
    assert_eq!(
        part,
        concat!(
            r#"{"type":"part","id":"prt_legacyA01a","message_id":"msg_legacyA01","session_id":"ses_legacy0001","#,
            r#""timestamp":"2025-11-24T16:00:01.000Z","model":"gpt-5","usage":{"input_tokens":1800,"output_tokens":300,"#,
            r#""cache_read_tokens":6400,"cache_write_tokens":0,"reasoning_tokens":256,"cost_usd":0.0042},"data":"#,
            r#"{"id":"prt_legacyA01a","sessionID":"ses_legacy0001","messageID":"msg_legacyA01","type":"step-finish","#,
            r#""reason":"stop","cost":0.0042,"tokens":{"input":1800,"output":300,"reasoning":256,"cache":{"read":6400,"write":0}}}}"#
        )
    );
    let msg = legacy_record("fixtures/opencode/handmade/storage/message/ses_legacy0001/msg_legacyA01.json");
    assert!(msg.starts_with(r#"{"type":"message","id":"msg_legacyA01","session_id":"ses_legacy0001","timestamp":"2025-11-24T16:00:01.000Z","steps":1,"usage":null,"data":{"#), "{msg}");
    let mut idx = crate::json::Index::new();
    for rec in [&part, &msg] {
        assert_eq!(crate::format::Dialect::accept(&OpenCode, &idx.parse(rec.as_bytes()).unwrap()), Ok(()));
    }
}

#[test]
fn a_legacy_session_file_is_a_session_record_with_its_files_in_order() {
    let file = Path::new("fixtures/opencode/planted/storage/session/global/ses_legacy0001.json");
    let rec = legacy_session(file, Detail::Full, None).unwrap();
    assert_eq!(
        (&*rec.session, rec.model.as_deref(), rec.agent.as_deref()),
        ("ses_legacy0001", Some("gpt-5"), Some("build"))
    );
    assert_eq!(rec.started_at.as_deref(), Some("2025-11-24T16:00:00Z"));
    let names: Vec<_> = legacy::files(file, "ses_legacy0001")
        .iter()
        .map(|f| f.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        ["ses_legacy0001", "msg_legacyU01", "prt_legacyU01a", "msg_legacyA01", "prt_legacyA00t", "prt_legacyA01a"]
    );
}

/// Damaged and doubtful rows beside the handmade ones: no JSON, an array, a
/// type twice, an escaped `step-finish`, a type of another kind, a control
/// character, a message with a numeric role, one that is no JSON, an
/// assistant message whose step parts are gone, a part of another
/// session's message.
const DOUBTS: &str = r#"
INSERT INTO part VALUES ('prt_z1','msg_c0001','ses_child00001',1781085641000,1781085641000,'{torn');
INSERT INTO part VALUES ('prt_z2','msg_c0001','ses_child00001',1781085641000,1781085641000,'[1,2]');
INSERT INTO part VALUES ('prt_z3','msg_c0001','ses_child00001',1781085641000,1781085641000,'{"type":"text","type":"step-finish"}');
INSERT INTO part VALUES ('prt_z4','msg_c0001','ses_child00001',1781085641000,1781085641000,'{"type":"step\u002dfinish","tokens":{"input":1}}');
INSERT INTO part VALUES ('prt_z5','msg_c0001','ses_child00001',1781085641000,1781085641000,'{"type":5}');
INSERT INTO part VALUES ('prt_z6','msg_c0001','ses_child00001',1781085641000,1781085641000,'{"type":"text","text":"a' || char(1) || 'b"}');
INSERT INTO part VALUES ('prt_z7','msg_x1','ses_parent0001',1781085641000,1781085641000,'{"type":"text"}');
INSERT INTO part VALUES ('prt_z8','msg_a0001','ses_child00001',1781085641000,1781085641000,'{"type":"text"}');
INSERT INTO message VALUES ('msg_x1','ses_child00001',1781085642000,1781085642000,'{"role":7,"tokens":{}}');
INSERT INTO message VALUES ('msg_x2','ses_child00001',1781085643000,1781085643000,'garbage');
INSERT INTO message VALUES ('msg_x3','ses_child00001',1781085644000,1781085644000,'{"role":"assistant","tokens":{"input":3}}');
INSERT INTO message VALUES ('msg_x4','ses_child00001',1781085645000,1781085645000,'{"role":"user","tokens":{"input":3}}');
"#;

/// The rowids of session `id`'s rows of `table` that its SQL `usage`
/// condition holds of.
fn by_sql(conn: &rusqlite::Connection, table: &crate::lines::rows::Table, id: &str) -> HashSet<i64> {
    let key = if table.name == "message" || table.name == "part" { "session_id" } else { "id" };
    let sql = format!("SELECT rowid FROM {} WHERE {key} = ?1 AND ({})", table.name, table.usage.unwrap());
    let mut stmt = conn.prepare(&sql).unwrap();
    let max = crate::lines::max_line() as i64;
    stmt.query_map(rusqlite::params![id, max], |r| r.get(0)).unwrap().map(Result::unwrap).collect()
}

#[test]
fn the_rows_chosen_for_a_tokens_count_hold_every_row_the_sql_conditions_hold_of() {
    let (_dir, path) = db(&format!("{SQL}\n{DOUBTS}"));
    let conn = crate::lines::rows::open(&path).unwrap();
    let rowid = |table: &str, id: &str| -> i64 {
        conn.query_row(&format!("SELECT rowid FROM {table} WHERE id = ?1"), [id], |r| r.get(0)).unwrap()
    };
    for id in ["ses_parent0001", "ses_child00001"] {
        for (table, chosen) in choose::usage_rows(&conn, id).unwrap() {
            let sql = by_sql(&conn, table, id);
            assert!(sql.is_subset(&chosen), "{id} {}: {sql:?} not in {chosen:?}", table.name);
        }
    }
    let chosen: HashMap<&str, HashSet<i64>> =
        choose::usage_rows(&conn, "ses_child00001").unwrap().into_iter().map(|(t, r)| (t.name, r)).collect();
    // Kept: the damaged and doubtful rows, the step-finish part, the
    // assistant message without steps; left out: plain valid rows.
    for part in ["prt_z1", "prt_z2", "prt_z3", "prt_z4", "prt_z5", "prt_z6"] {
        assert!(chosen["part"].contains(&rowid("part", part)), "{part}");
    }
    assert!(!chosen["part"].contains(&rowid("part", "prt_z8")));
    for message in ["msg_x1", "msg_x2", "msg_x3"] {
        assert!(chosen["message"].contains(&rowid("message", message)), "{message}");
    }
    assert!(!chosen["message"].contains(&rowid("message", "msg_x4")));
    assert!(!chosen["message"].contains(&rowid("message", "msg_c0001")));
}

#[test]
fn rows_sorted_here_are_in_sqlites_order() {
    let keys_by_sql = |conn: &rusqlite::Connection, id: &str| {
        crate::lines::rows::keys_of(conn, store::KEYS, id, &store::TABLES).unwrap()
    };
    // Sorted here; by SQLite when a part's message is another session's,
    // or a time is no integer.
    // (database, whether each session is sorted here)
    for (sql, here) in [
        (SQL.to_owned(), [true, true]),
        (format!("{SQL}\n{DOUBTS}"), [false, false]),
        (format!("{SQL}\nUPDATE message SET time_created = 'x' WHERE id = 'msg_c0001';"), [true, false]),
    ] {
        let (_dir, path) = db(&sql);
        let conn = crate::lines::rows::open(&path).unwrap();
        for (id, here) in ["ses_parent0001", "ses_child00001"].into_iter().zip(here) {
            assert_eq!(store::sorted_keys(&conn, id).unwrap().is_some(), here, "{id}");
            assert_eq!(store::keys(&conn, id).unwrap(), keys_by_sql(&conn, id), "{id}");
        }
    }
}
