//! Copilot's `session-store.db` (formats-next.md §4.3): its
//! `assistant_usage_events` table, one row per API request, whose rows are
//! a session's responses when it has any (module docs of [`super`]).
//!
//! A row's record is a JSON object SQLite builds ([`USAGE`]):
//! `{"type":"assistant_usage_event","id":…,"session_id":…,"timestamp":…,
//! "usage":{…},"data":{the row's columns}}` (`model` and `initiator` in
//! `data`), its
//! `usage` in the toolkit's names (Copilot's `input_tokens` includes both
//! cache counts) and `cost_usd` its `total_nano_aiu` at one US cent per AI
//! unit.

use std::path::{Path, PathBuf};

use rusqlite::Connection;

use crate::lines::rows::Table;

/// The name of a Copilot home's store, beside its `session-state/`.
pub(super) const STORE: &str = "session-store.db";

/// The `type` of a usage row's record.
pub(super) const ROW_TYPE: &str = "assistant_usage_event";

/// The columns a usage row's record reads: a store without one of them (an
/// older build's) is read as having no rows.
const COLUMNS: [&str; 11] = [
    "id",
    "session_id",
    "model",
    "input_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "reasoning_tokens",
    "output_tokens",
    "created_at",
    "total_nano_aiu",
    "initiator",
];

/// A counter column as a whole number (absent or negative: 0).
macro_rules! count {
    ($col:literal) => {
        concat!("max(coalesce(CAST(", $col, " AS INTEGER), 0), 0)")
    };
}

/// A row's `created_at` as RFC 3339: text as written; a number as seconds,
/// or milliseconds past 1e11.
macro_rules! created {
    () => {
        "CASE WHEN typeof(created_at) IN ('integer', 'real') THEN strftime('%Y-%m-%dT%H:%M:%fZ', \
         CASE WHEN created_at > 1e11 THEN created_at / 1000.0 ELSE created_at END, 'unixepoch') \
         ELSE created_at END"
    };
}

/// A usage row: one `llm:response`.
pub(super) static USAGE: Table = Table {
    writer: "copilot-cli",
    name: "assistant_usage_events",
    record: concat!(
        "json_object('type', 'assistant_usage_event', 'id', id, 'session_id', session_id, 'timestamp', ",
        created!(),
        ", 'usage', json_object(",
        "'input_tokens', max(",
        count!("input_tokens"),
        " - ",
        count!("cache_read_tokens"),
        " - ",
        count!("cache_write_tokens"),
        ", 0), 'cache_read_tokens', ",
        count!("cache_read_tokens"),
        ", 'cache_write_tokens', ",
        count!("cache_write_tokens"),
        ", 'output_tokens', ",
        count!("output_tokens"),
        ", 'reasoning_tokens', ",
        count!("reasoning_tokens"),
        ", 'cost_usd', CASE WHEN total_nano_aiu > 0 THEN total_nano_aiu / 1e11 END), 'data', json_object(",
        "'id', id, 'session_id', session_id, 'model', model, 'input_tokens', input_tokens, ",
        "'cache_read_tokens', cache_read_tokens, 'cache_write_tokens', cache_write_tokens, ",
        "'reasoning_tokens', reasoning_tokens, 'output_tokens', output_tokens, 'created_at', created_at, ",
        "'total_nano_aiu', total_nano_aiu, 'initiator', initiator))"
    ),
    usage: None,
};

/// What changes when a session's usage rows change
/// ([`crate::lines::rows::fingerprints`], the capture cache): every row's
/// columns its record reads, by `rowid` (usage rows are a few numbers each,
/// so the rows themselves are the fingerprint: exact, and cheap).
pub(super) static FINGERPRINTS: [&str; 1] = [concat!(
    "SELECT session_id, rowid, id, model, input_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, ",
    "output_tokens, created_at, total_nano_aiu, initiator FROM assistant_usage_events ORDER BY rowid"
)];

/// The tables whose rows are records.
pub(super) static TABLES: [&Table; 1] = [&USAGE];

/// The store of the Copilot home an event log is in
/// (`<home>/session-state/<id>/events.jsonl` or `<home>/session-state/<id>.jsonl`),
/// when it is there and starts as a SQLite database does.
pub(super) fn store_of(log: &Path) -> Option<PathBuf> {
    let in_folder = log.file_name().is_some_and(|n| n == super::sessions::EVENTS);
    let state = if in_folder { log.parent()?.parent()? } else { log.parent()? };
    if state.file_name().is_none_or(|n| n != super::sessions::STATE) {
        return None;
    }
    let db = state.parent()?.join(STORE);
    crate::lines::rows::is_database(&db).then_some(db)
}

/// Whether `path` is a store: a SQLite database named `session-store.db`.
pub(super) fn is_store(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == STORE) && crate::lines::rows::is_database(path)
}

/// Whether `table` has every column of `columns`.
fn has_columns(conn: &Connection, table: &str, columns: &[&str]) -> Result<bool, String> {
    let mut stmt = conn.prepare("SELECT name FROM pragma_table_info(?1)").map_err(|e| e.to_string())?;
    let names = stmt.query_map([table], |r| r.get::<_, String>(0)).map_err(|e| e.to_string())?;
    let names: Vec<String> = names.collect::<Result<_, _>>().map_err(|e| e.to_string())?;
    Ok(columns.iter().all(|c| names.iter().any(|n| n == c)))
}

/// The usage rows of session `id`, by time then id; none when the store
/// has no `assistant_usage_events` table with [`COLUMNS`].
pub(super) fn keys(conn: &Connection, id: &str) -> Result<Vec<(&'static Table, i64)>, String> {
    if !has_columns(conn, USAGE.name, &COLUMNS)? {
        return Ok(Vec::new());
    }
    let sql = concat!("SELECT rowid FROM assistant_usage_events WHERE session_id = ?1 ORDER BY ", created!(), ", id");
    let mut stmt = conn.prepare(sql).map_err(|e| e.to_string())?;
    let rows = stmt.query_map([id], |r| r.get::<_, i64>(0)).map_err(|e| e.to_string())?;
    rows.map(|r| r.map(|rowid| (&USAGE, rowid)).map_err(|e| e.to_string())).collect()
}

/// What discovery reads of a session the store has usage rows for.
#[derive(Debug, Default, PartialEq)]
pub(super) struct StoreSession {
    /// Its id (`session_id`).
    pub id: String,
    /// The `cwd` of its `sessions` row, when the store has that table.
    pub cwd: Option<String>,
    /// Its first and last rows' times (RFC 3339, as [`USAGE`] makes them).
    pub first: Option<String>,
    pub last: Option<String>,
    /// Its first row's `model`.
    pub model: Option<String>,
}

/// Every session the store has usage rows for, by id; none when it has no
/// `assistant_usage_events` table with [`COLUMNS`].
pub(super) fn sessions(conn: &Connection) -> Result<Vec<StoreSession>, String> {
    if !has_columns(conn, USAGE.name, &COLUMNS)? {
        return Ok(Vec::new());
    }
    let cwd = match has_columns(conn, "sessions", &["id", "cwd"])? {
        true => "(SELECT s.cwd FROM sessions s WHERE s.id = e.session_id AND typeof(s.cwd) = 'text')",
        false => "NULL",
    };
    let sql = format!(
        concat!(
            "SELECT session_id, {cwd}, min(",
            created!(),
            "), max(",
            created!(),
            "), (SELECT f.model FROM assistant_usage_events f WHERE f.session_id = e.session_id ",
            "AND typeof(f.model) = 'text' ORDER BY f.rowid LIMIT 1) ",
            "FROM assistant_usage_events e WHERE typeof(session_id) = 'text' GROUP BY session_id ORDER BY session_id"
        ),
        cwd = cwd
    );
    let mut stmt = conn.prepare(&sql).map_err(|e| e.to_string())?;
    let rows = stmt
        .query_map([], |r| {
            Ok(StoreSession {
                id: r.get(0)?,
                cwd: r.get::<_, Option<String>>(1)?.filter(|c| !c.trim().is_empty()),
                first: r.get::<_, Option<String>>(2).ok().flatten(),
                last: r.get::<_, Option<String>>(3).ok().flatten(),
                model: r.get::<_, Option<String>>(4)?.filter(|m| !m.trim().is_empty()),
            })
        })
        .map_err(|e| e.to_string())?;
    rows.map(|r| r.map_err(|e| e.to_string())).collect()
}
