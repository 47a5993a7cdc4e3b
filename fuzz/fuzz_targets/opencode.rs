//! The OpenCode row parser (`format::opencode`): rows of `message` and
//! `part` whose `data` the fuzzer writes, made into records by the writer's
//! SQL (`opencode::store`) and those read as events.
//!
//! Input: as for `transcript` ([`normalise::capture_bytes`]): each line is
//! one row's `data` (every third a message, the others parts of the last
//! message), raw bytes or JSON objects built from OpenCode's own keys and
//! strings. Properties: nothing panics; every row's record is made (a `data`
//! that is no JSON becomes a string) and is one line of JSON; reading a row
//! again gives the same bytes; the records read as a capture satisfy
//! [`normalise::check`] (every printed event is JSON with its envelope, and
//! read back piped gives the same answers).
#![no_main]

use ci_tools::format::opencode::{store, FORMAT};
use libfuzzer_sys::fuzz_target;

#[path = "common/rows.rs"]
mod rows;

#[path = "common/normalise.rs"]
#[allow(dead_code)] // its `run` reads a file's bytes, not rows
mod normalise;

/// The hand-made database's script: its tables and two sessions.
const SQL: &str = include_str!("../../fixtures/opencode/handmade/opencode-v1.16-minimal.sql");

#[path = "common/opencode_words.rs"]
mod opencode_words;
use opencode_words::WORDS;

fuzz_target!(|data: &[u8]| {
    let bytes = normalise::capture_bytes(data, WORDS);
    let conn = rusqlite::Connection::open_in_memory().expect("an in-memory database");
    conn.execute_batch(SQL).expect("the fixture's script");
    let mut message = "msg_c0001".to_owned();
    for (i, line) in bytes.split(|b| *b == b'\n').take(48).enumerate() {
        let text = String::from_utf8_lossy(line);
        let t = 1_781_085_650_000i64 + i as i64;
        if i % 3 == 0 {
            message = format!("msg_f{i:03}");
            let sql = "INSERT INTO message VALUES (?1, 'ses_child00001', ?2, ?2, ?3)";
            conn.execute(sql, rusqlite::params![message, t, text]).expect("a message row");
        } else {
            let sql = "INSERT INTO part VALUES (?1, ?2, 'ses_child00001', ?3, ?3, ?4)";
            conn.execute(sql, rusqlite::params![format!("prt_f{i:03}"), message, t, text]).expect("a part row");
        }
    }
    let capture = rows::records(&conn, store::keys(&conn, "ses_child00001").expect("the session's rows"));
    let printed = normalise::check(&FORMAT, &capture);
    assert_eq!(normalise::check(&FORMAT, &capture), printed, "reading is deterministic");
});
