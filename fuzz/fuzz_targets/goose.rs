//! The Goose reader (`format::goose`): legacy JSONL files and database
//! message rows whose `content_json` the fuzzer writes.
//!
//! Input: as for `transcript` ([`normalise::capture_bytes`]): raw bytes or
//! lines of JSON objects built from Goose's own keys and strings.
//! Properties: the bytes read as a legacy file satisfy [`normalise::check`]
//! (nothing panics, every printed event is JSON with its envelope and read
//! back piped gives the same answers, reading is deterministic); each line
//! inserted as a message row's `content_json` of an in-memory copy of the
//! hand-made database gives a record (a content that is no JSON becomes a
//! string), one line of JSON, the same bytes when read again, and the
//! session's records pass the same checks; the same for a database before
//! schema v15 (fixtures/goose/v5.sql: its rows read by the old tables).
#![no_main]

use ci_tools::format::goose::{store, FORMAT};
use libfuzzer_sys::fuzz_target;

#[path = "common/rows.rs"]
mod rows;

#[path = "common/normalise.rs"]
#[allow(dead_code)] // its `run` does only the legacy half
mod normalise;

/// The hand-made database's script: its tables and one session.
const SQL: &str = include_str!("../../fixtures/goose/handmade/sessions-v15-minimal.sql");

/// The hand-made database of schema v5 (no ledger, no `message_id`).
const V5: &str = include_str!("../../fixtures/goose/v5.sql");

/// The records' keys and strings.
const WORDS: &[&str] = &[
    "working_dir",
    "description",
    "message_count",
    "total_tokens",
    "accumulated_total_tokens",
    "accumulated_input_tokens",
    "accumulated_output_tokens",
    "id",
    "role",
    "user",
    "assistant",
    "created",
    "content",
    "type",
    "text",
    "thinking",
    "toolRequest",
    "toolResponse",
    "toolCall",
    "toolResult",
    "status",
    "success",
    "error",
    "value",
    "name",
    "developer__shell",
    "arguments",
    "path",
    "usage",
    "session",
    "message",
    "session_id",
    "ledger_rows",
    "is_compaction",
    "\\u0000",
];

fuzz_target!(|data: &[u8]| {
    let bytes = normalise::capture_bytes(data, WORDS);
    let printed = normalise::check(&FORMAT, &bytes);
    assert_eq!(normalise::check(&FORMAT, &bytes), printed, "reading is deterministic");

    let v15 = "INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp) \
               VALUES ('msg_f' || ?4, '20260801_1', ?1, ?2, ?3)";
    let v5 = "INSERT INTO messages (session_id, role, content_json, created_timestamp) \
              VALUES ('20251010_1', ?1, ?2, ?3 + 0 * ?4)";
    for (script, insert, session) in [(SQL, v15, "20260801_1"), (V5, v5, "20251010_1")] {
        let conn = rusqlite::Connection::open_in_memory().expect("an in-memory database");
        conn.execute_batch(script).expect("the fixture's script");
        for (i, line) in bytes.split(|b| *b == b'\n').take(48).enumerate() {
            let text = String::from_utf8_lossy(line);
            let role = if i % 2 == 0 { "user" } else { "assistant" };
            let t = 1_785_579_330i64 + i as i64;
            conn.execute(insert, rusqlite::params![role, text, t, i as i64]).expect("a message row");
        }
        let capture = rows::records(&conn, store::keys(&conn, session).expect("the session's rows"));
        let printed = normalise::check(&FORMAT, &capture);
        assert_eq!(normalise::check(&FORMAT, &capture), printed, "reading is deterministic");
    }
});
