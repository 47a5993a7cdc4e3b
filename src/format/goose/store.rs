//! Goose's database (`sessions.db`): the tables whose rows are
//! records, the SQL that makes each row's record, a session's rows in
//! order, and the session records.
//!
//! A row's record is a JSON object SQLite builds ([`Table::record`]) in the
//! shape of a legacy JSONL line where there is one (a message: `id`,
//! `role`, `created`, `content`), plus `type` (`session`, `message`,
//! `usage`), `session_id` and `timestamp` (RFC 3339). A `usage_ledger` row,
//! and a session row of a session with no ledger row, carry the toolkit's
//! `usage` (module docs of [`super`]).
//!
//! A database before schema v15 (Goose's migrations, `session_manager.rs`)
//! has no `usage_ledger`: its rows are read by [`OLD_SESSION`] and
//! [`OLD_MESSAGE`], which read each column a later schema added as NULL
//! when the table lacks it (the row joined with NULL defaults), and every
//! session counts its totals. One lacking a column every schema has is
//! reported ([`is_goose`]).

use std::path::Path;

use rusqlite::Connection;

use crate::lines::rows::Table;

/// A time column `$c` (Unix seconds, or milliseconds when 10^11 or more;
/// text as SQLite reads it) as RFC 3339.
macro_rules! time_of {
    ($c:literal) => {
        concat!(
            "CASE WHEN typeof(",
            $c,
            ") IN ('integer', 'real') THEN strftime('%Y-%m-%dT%H:%M:%SZ', CASE WHEN ",
            $c,
            " >= 100000000000 THEN ",
            $c,
            " / 1000.0 ELSE ",
            $c,
            " END, 'unixepoch') ELSE strftime('%Y-%m-%dT%H:%M:%SZ', ",
            $c,
            ") END"
        )
    };
}

/// A text column `$c` as JSON: itself when it is JSON, else a string.
macro_rules! json_of {
    ($c:literal) => {
        concat!("json(CASE WHEN json_valid(", $c, ") THEN ", $c, " ELSE json_quote(", $c, ") END)")
    };
}

/// The toolkit's `usage` of four count columns and a cost column.
macro_rules! usage_of {
    ($input:literal, $output:literal, $read:literal, $write:literal, $cost:literal) => {
        concat!(
            "json_object('input_tokens', coalesce(",
            $input,
            ", 0), 'output_tokens', coalesce(",
            $output,
            ", 0), 'cache_read_tokens', coalesce(",
            $read,
            ", 0), 'cache_write_tokens', coalesce(",
            $write,
            ", 0), 'cost_usd', ",
            $cost,
            ")"
        )
    };
}

/// The number of ledger rows of the session row in scope.
macro_rules! ledger_rows {
    () => {
        "(SELECT count(*) FROM usage_ledger u WHERE u.session_id = sessions.id)"
    };
}

/// A session row's record, whose session has `$ledger_rows` ledger rows:
/// `session:start`, and the session's accumulated totals as `usage` when
/// it has none.
macro_rules! session_record {
    ($($ledger_rows:tt)*) => {
        concat!(
            "json_object('type', 'session', 'id', id, 'name', name, 'description', description, ",
            "'session_type', session_type, 'working_dir', working_dir, 'created_at', created_at, ",
            "'updated_at', updated_at, 'parent_session_id', parent_session_id, 'provider_name', provider_name, ",
            "'model', CASE WHEN json_valid(model_config_json) THEN json_extract(model_config_json, '$.model_name') END, ",
            "'total_tokens', total_tokens, 'input_tokens', input_tokens, 'output_tokens', output_tokens, ",
            "'accumulated_total_tokens', accumulated_total_tokens, 'accumulated_input_tokens', accumulated_input_tokens, ",
            "'accumulated_output_tokens', accumulated_output_tokens, ",
            "'accumulated_cache_read_tokens', accumulated_cache_read_tokens, ",
            "'accumulated_cache_write_tokens', accumulated_cache_write_tokens, 'accumulated_cost', accumulated_cost, ",
            "'timestamp', ",
            time_of!("created_at"),
            ", 'ledger_rows', ",
            $($ledger_rows)*,
            ", 'usage', CASE WHEN ",
            $($ledger_rows)*,
            " = 0 AND coalesce(accumulated_input_tokens, accumulated_output_tokens) IS NOT NULL THEN ",
            usage_of!(
                "accumulated_input_tokens",
                "accumulated_output_tokens",
                "accumulated_cache_read_tokens",
                "accumulated_cache_write_tokens",
                "accumulated_cost"
            ),
            " END)"
        )
    };
}

/// The record `$record` of the row of `$table` in scope, read from the row
/// joined with NULL for each of `$later` (the columns a migration after the
/// first schema added; a column the table has is its own).
macro_rules! with_later_columns {
    ($table:literal, $later:literal, $($record:tt)*) => {
        concat!(
            "(SELECT ",
            $($record)*,
            " FROM (SELECT * FROM ",
            $table,
            " r WHERE r.rowid = ",
            $table,
            ".rowid) NATURAL LEFT JOIN (SELECT ",
            $later,
            "))"
        )
    };
}

/// A session row (schema v15 on: the database has a `usage_ledger`).
pub static SESSION: Table =
    Table { writer: "goose", name: "sessions", record: session_record!(ledger_rows!()), usage: None };

/// A session row of a database before schema v15 (no `usage_ledger`):
/// its columns of later schemas are NULL when it has none. Named `main.sessions` to tell it apart.
pub static OLD_SESSION: Table = Table {
    writer: "goose",
    name: "main.sessions",
    record: with_later_columns!(
        "sessions",
        "NULL AS name, NULL AS session_type, NULL AS provider_name, NULL AS model_config_json, \
         NULL AS accumulated_cost, NULL AS accumulated_cache_read_tokens, NULL AS accumulated_cache_write_tokens, \
         NULL AS parent_session_id",
        session_record!("0")
    ),
    usage: None,
};

/// A message row's record, shaped as a legacy line (`id` = `$id`, `role`,
/// `created`, `content`).
macro_rules! message_record {
    ($($id:tt)*) => {
        concat!(
            "json_object('type', 'message', 'id', ",
            $($id)*,
            ", 'session_id', session_id, 'role', role, ",
            "'created', created_timestamp, 'timestamp', ",
            time_of!("created_timestamp"),
            ", 'tokens', tokens, 'content', ",
            json_of!("content_json"),
            ", 'metadata', CASE WHEN metadata_json IS NOT NULL THEN ",
            json_of!("metadata_json"),
            " END)"
        )
    };
}

/// A message row.
pub static MESSAGE: Table =
    Table { writer: "goose", name: "messages", record: message_record!("message_id"), usage: None };

/// A message row of a database before schema v15: without a `message_id`
/// (before v7) its id is the one Goose's v7 migration gives it,
/// `msg_<session>_<row id>`; without `metadata_json` (before v3) none.
/// Named `main.messages` to tell it apart.
pub static OLD_MESSAGE: Table = Table {
    writer: "goose",
    name: "main.messages",
    record: with_later_columns!(
        "messages",
        "NULL AS message_id, NULL AS metadata_json",
        message_record!("coalesce(message_id, 'msg_' || session_id || '_' || id)")
    ),
    usage: None,
};

/// A `usage_ledger` row: one request's usage.
pub static LEDGER: Table = Table {
    writer: "goose",
    name: "usage_ledger",
    record: concat!(
        "json_object('type', 'usage', 'id', id, 'session_id', session_id, 'timestamp', ",
        time_of!("created_timestamp"),
        ", 'model', model, 'total_tokens', total_tokens, 'cost_source', cost_source, ",
        "'is_compaction', is_compaction, 'usage', ",
        usage_of!("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "cost"),
        ")"
    ),
    usage: None,
};

/// What changes when any row of a session changes
/// ([`crate::lines::rows::fingerprints`], the capture cache): its session
/// row whole (one a session); per session, of its messages the count, the
/// maximum and sum of `rowid` (Goose replaces a conversation by deleting
/// and inserting its rows), the sums of the lengths of every column the
/// record reads (an update in place); its ledger rows whole (a few numbers
/// each: exact, and cheap).
pub static FINGERPRINTS: [&str; 3] = [
    "SELECT id, * FROM sessions",
    concat!(
        "SELECT session_id, count(*), max(rowid), sum(rowid % 4294967296), sum(length(CAST(message_id AS BLOB))), ",
        "sum(length(CAST(role AS BLOB))), sum(length(CAST(created_timestamp AS BLOB))), ",
        "sum(length(CAST(tokens AS BLOB))), sum(length(CAST(content_json AS BLOB))), ",
        "sum(length(CAST(metadata_json AS BLOB))) FROM messages GROUP BY session_id"
    ),
    "SELECT session_id, rowid, * FROM usage_ledger ORDER BY rowid",
];

/// The tables, in the order their rows come at one time in a session;
/// a database before schema v15 has the last two instead of the first two.
pub static TABLES: [&Table; 5] = [&SESSION, &MESSAGE, &LEDGER, &OLD_SESSION, &OLD_MESSAGE];

/// A session's rows in order: the session, then its messages and ledger
/// rows by time (a message before a ledger row of the same second), then
/// row id.
const KEYS: &str = "SELECT t, rid FROM (
    SELECT 0 AS t, rowid AS rid, 0 AS k FROM sessions WHERE id = ?1
    UNION ALL SELECT 1, rowid, 1 + created_timestamp FROM messages WHERE session_id = ?1
    UNION ALL SELECT 2, rowid, 1 + created_timestamp FROM usage_ledger WHERE session_id = ?1
) ORDER BY k, t, rid";

/// [`KEYS`] of a database before schema v15: the session, then its
/// messages by time, then row id.
const OLD_KEYS: &str = "SELECT t, rid FROM (
    SELECT 3 AS t, rowid AS rid, 0 AS k FROM sessions WHERE id = ?1
    UNION ALL SELECT 4, rowid, 1 + created_timestamp FROM messages WHERE session_id = ?1
) ORDER BY k, t, rid";

/// The rows of session `id`, in order ([`KEYS`], [`OLD_KEYS`]).
pub fn keys(conn: &Connection, id: &str) -> Result<Vec<(&'static Table, i64)>, String> {
    let sql = if has_ledger(conn)? { KEYS } else { OLD_KEYS };
    crate::lines::rows::keys_of(conn, sql, id, &TABLES)
}

/// What discovery reads of a session row.
#[derive(Debug, Default, PartialEq)]
pub struct SessionRow {
    pub id: String,
    pub parent: Option<String>,
    pub working_dir: Option<String>,
    pub provider: Option<String>,
    /// `created_at`, `updated_at` as RFC 3339.
    pub created: Option<String>,
    pub updated: Option<String>,
    /// `model_config_json.model_name`, else the first ledger row's model.
    pub model: Option<String>,
    /// The length of its messages' `content_json`.
    pub bytes: u64,
}

/// The query of [`sessions`]: `$from` names the sessions as `s`, `$model`
/// is the model of a session without one in its `model_config_json`.
macro_rules! sessions_query {
    ($from:literal, $model:literal) => {
        concat!(
            "SELECT s.id, s.parent_session_id, s.working_dir, s.provider_name, ",
            time_of!("s.created_at"),
            ", ",
            time_of!("s.updated_at"),
            ", ",
            "coalesce(CASE WHEN json_valid(s.model_config_json) THEN json_extract(s.model_config_json, '$.model_name') END, ",
            $model,
            "), coalesce((SELECT sum(length(content_json)) FROM messages m WHERE m.session_id = s.id), 0) FROM ",
            $from,
            " ORDER BY s.created_at, s.id"
        )
    };
}

/// Every session of the database, by creation time then id.
pub fn sessions(conn: &Connection) -> Result<Vec<SessionRow>, String> {
    let sql = match has_ledger(conn)? {
        true => sessions_query!(
            "sessions s",
            "(SELECT u.model FROM usage_ledger u WHERE u.session_id = s.id ORDER BY u.created_timestamp, u.id LIMIT 1)"
        ),
        false => sessions_query!(
            "(SELECT * FROM sessions NATURAL LEFT JOIN \
             (SELECT NULL AS parent_session_id, NULL AS provider_name, NULL AS model_config_json)) s",
            "NULL"
        ),
    };
    let mut stmt = conn.prepare(sql).map_err(|e| e.to_string())?;
    let text = crate::lines::rows::text_at;
    let rows = stmt
        .query_map([], |r| {
            Ok(SessionRow {
                id: text(r, 0)?.unwrap_or_default(),
                parent: text(r, 1)?.filter(|p| !p.is_empty()),
                working_dir: text(r, 2)?.filter(|d| !d.is_empty()),
                provider: text(r, 3)?.filter(|v| !v.is_empty()),
                created: text(r, 4)?,
                updated: text(r, 5)?,
                model: text(r, 6)?.filter(|m| !m.is_empty()),
                bytes: r.get::<_, Option<i64>>(7).ok().flatten().unwrap_or(0).max(0) as u64,
            })
        })
        .map_err(|e| e.to_string())?;
    rows.map(|r| r.map_err(|e| e.to_string())).collect()
}

/// The columns every Goose schema has (v0 on) that a record or discovery
/// reads, by table.
const FIRST_COLUMNS: [(&str, &[&str]); 2] = [
    (
        "sessions",
        &[
            "id",
            "description",
            "working_dir",
            "created_at",
            "updated_at",
            "total_tokens",
            "input_tokens",
            "output_tokens",
            "accumulated_total_tokens",
            "accumulated_input_tokens",
            "accumulated_output_tokens",
        ],
    ),
    ("messages", &["id", "session_id", "role", "content_json", "created_timestamp", "tokens"]),
];

/// Whether the database has the `usage_ledger` table (schema v15 on).
fn has_ledger(conn: &Connection) -> Result<bool, String> {
    let sql = "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'usage_ledger'";
    conn.query_row(sql, [], |r| r.get::<_, i64>(0)).map(|n| n > 0).map_err(|e| e.to_string())
}

/// The database's `schema_version` (0 without that table, as Goose reads it).
fn schema_version(conn: &Connection) -> Result<i64, String> {
    let sql = "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'";
    let has = conn.query_row(sql, [], |r| r.get::<_, i64>(0)).map_err(|e| e.to_string())? > 0;
    match has {
        true => conn
            .query_row("SELECT coalesce(max(version), 0) FROM schema_version", [], |r| r.get::<_, i64>(0))
            .map_err(|e| e.to_string()),
        false => Ok(0),
    }
}

/// Whether `conn` is a Goose database: it has the `sessions` and
/// `messages` tables. One of a schema whose tables lack a column every
/// Goose schema has is an error naming its version and the column.
pub fn is_goose(conn: &Connection) -> Result<bool, String> {
    let sql = "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('sessions', 'messages')";
    if conn.query_row(sql, [], |r| r.get::<_, i64>(0)).map_err(|e| e.to_string())? != 2 {
        return Ok(false);
    }
    let mut stmt = conn.prepare("SELECT name FROM pragma_table_info(?1)").map_err(|e| e.to_string())?;
    for (table, columns) in FIRST_COLUMNS {
        let have: Vec<String> = stmt
            .query_map([table], |r| r.get(0))
            .map_err(|e| e.to_string())?
            .collect::<Result<_, _>>()
            .map_err(|e| e.to_string())?;
        if let Some(missing) = columns.iter().find(|c| !have.iter().any(|h| h == *c)) {
            let version = schema_version(conn)?;
            return Err(format!(
                "a Goose database of a schema not known (schema_version {version}): its {table} table has no column {missing}; not read"
            ));
        }
    }
    Ok(true)
}

/// The database of a sessions folder: `sessions.db`, when it is a file.
pub fn database(dir: &Path) -> Option<std::path::PathBuf> {
    Some(dir.join(DB_NAME)).filter(|p| p.is_file())
}

/// The database's file name.
pub const DB_NAME: &str = "sessions.db";
