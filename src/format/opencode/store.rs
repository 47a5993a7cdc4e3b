//! OpenCode's database (`opencode.db`): the tables whose rows are records,
//! the SQL that makes each row's record, a session's rows in order, and
//! the session records.
//!
//! A row's record is a JSON object SQLite builds ([`Table::record`]): the
//! row's columns the events need, its time as RFC 3339 (`timestamp`), the
//! `data` column as JSON (a `data` that is not JSON becomes a string), and
//! for a response the toolkit's `usage` made from OpenCode's `tokens` and
//! `cost` (module docs of [`super`]).

use std::path::Path;

use rusqlite::Connection;

use crate::lines::rows::Table;

/// A row's `time_created` (milliseconds since the epoch) as RFC 3339.
macro_rules! time_of {
    () => {
        "strftime('%Y-%m-%dT%H:%M:%fZ', time_created / 1000.0, 'unixepoch')"
    };
}

/// The `data` column as JSON: itself when it is JSON, else a string.
macro_rules! data_json {
    ($col:literal) => {
        concat!("json(CASE WHEN json_valid(", $col, ") THEN ", $col, " ELSE json_quote(", $col, ") END)")
    };
}

/// The toolkit's `usage` of an OpenCode `tokens` + `cost` object `$d`
/// (JSON text): output with the reasoning, which OpenCode keeps apart.
macro_rules! usage_of {
    ($d:literal) => {
        concat!(
            "json_object('input_tokens', coalesce(json_extract(",
            $d,
            ", '$.tokens.input'), 0), ",
            "'output_tokens', coalesce(json_extract(",
            $d,
            ", '$.tokens.output'), 0) + coalesce(json_extract(",
            $d,
            ", '$.tokens.reasoning'), 0), ",
            "'cache_read_tokens', coalesce(json_extract(",
            $d,
            ", '$.tokens.cache.read'), 0), ",
            "'cache_write_tokens', coalesce(json_extract(",
            $d,
            ", '$.tokens.cache.write'), 0), ",
            "'reasoning_tokens', coalesce(json_extract(",
            $d,
            ", '$.tokens.reasoning'), 0), ",
            "'cost_usd', json_extract(",
            $d,
            ", '$.cost'))"
        )
    };
}

/// The number of `step-finish` parts of the message row in scope.
macro_rules! steps {
    () => {
        "(SELECT count(*) FROM part p WHERE p.message_id = message.id AND json_valid(p.data) \
          AND json_extract(p.data, '$.type') = 'step-finish')"
    };
}

/// Whether the row's `data` may make a record longer than `?2` bytes
/// ([`Table::usage`]).
macro_rules! long {
    () => {
        "2 * length(CAST(data AS BLOB)) + 4096 > ?2"
    };
}

/// A session row: `session:start`.
pub static SESSION: Table = Table {
    writer: "opencode",
    name: "session",
    record: concat!(
        "json_object('type', 'session', 'id', id, 'project_id', project_id, 'parent_id', parent_id, ",
        "'directory', directory, 'title', title, 'version', version, 'timestamp', ",
        time_of!(),
        ")"
    ),
    // No usage; only a record too long is reported.
    usage: Some(
        "2 * length(CAST(coalesce(id, '') || coalesce(project_id, '') || coalesce(parent_id, '') \
         || coalesce(directory, '') || coalesce(title, '') || coalesce(version, '') AS BLOB)) + 4096 > ?2",
    ),
};

/// A message row; an assistant message without `step-finish` parts carries
/// its own `tokens` as `usage` (older builds wrote no step parts).
pub static MESSAGE: Table = Table {
    writer: "opencode",
    name: "message",
    record: concat!(
        "json_object('type', 'message', 'id', id, 'session_id', session_id, 'timestamp', ",
        time_of!(),
        ", 'steps', ",
        steps!(),
        ", 'usage', CASE WHEN json_valid(data) AND json_extract(data, '$.role') = 'assistant' ",
        "AND json_type(data, '$.tokens') = 'object' AND ",
        steps!(),
        " = 0 THEN ",
        usage_of!("data"),
        " END, 'data', ",
        data_json!("data"),
        ")"
    ),
    usage: Some(concat!(
        "CASE WHEN json_valid(data) THEN json_type(data) <> 'object' OR (json_extract(data, '$.role') = 'assistant' ",
        "AND json_type(data, '$.tokens') = 'object' AND ",
        steps!(),
        " = 0) ELSE 1 END OR ",
        long!()
    )),
};

/// A part row; a `step-finish` part carries its `tokens` and `cost` as
/// `usage`, and every part its message's model.
pub static PART: Table = Table {
    writer: "opencode",
    name: "part",
    record: concat!(
        "json_object('type', 'part', 'id', id, 'message_id', message_id, 'session_id', session_id, 'timestamp', ",
        time_of!(),
        ", 'model', (SELECT json_extract(m.data, '$.modelID') FROM message m WHERE m.id = part.message_id ",
        "AND json_valid(m.data)), 'usage', CASE WHEN json_valid(data) AND json_extract(data, '$.type') = 'step-finish' THEN ",
        usage_of!("data"),
        " END, 'data', ",
        data_json!("data"),
        ")"
    ),
    usage: Some(concat!(
        "CASE WHEN json_valid(data) THEN json_type(data) <> 'object' OR json_extract(data, '$.type') = 'step-finish' ",
        "ELSE 1 END OR ",
        long!()
    )),
};

/// The tables, in the order their rows come in a session.
pub static TABLES: [&Table; 3] = [&SESSION, &MESSAGE, &PART];

/// A session's rows in order: the session, then each message (by time,
/// then id) followed by its parts (by id, OpenCode's ids sort by time).
pub(super) const KEYS: &str = "SELECT t, rid FROM (
    SELECT 0 AS t, rowid AS rid, -1 AS k1, '' AS k2, 0 AS k3, '' AS k4 FROM session WHERE id = ?1
    UNION ALL SELECT 1, rowid, time_created, id, 0, '' FROM message WHERE session_id = ?1
    UNION ALL SELECT 2, p.rowid, m.time_created, m.id, 1, p.id
        FROM part p JOIN message m ON m.id = p.message_id WHERE p.session_id = ?1
) ORDER BY k1, k2, k3, k4";

/// The rows of session `id`, in order ([`KEYS`]): sorted here when every
/// key is of the usual type ([`sorted_keys`]), else by SQLite.
pub fn keys(conn: &Connection, id: &str) -> Result<Vec<(&'static Table, i64)>, String> {
    match sorted_keys(conn, id) {
        Ok(Some(keys)) => Ok(keys),
        _ => crate::lines::rows::keys_of(conn, KEYS, id, &TABLES),
    }
}

/// A row's place in its session: [`KEYS`]'s `k1, k2, k3, k4`.
type Place = (i64, Vec<u8>, i64, Vec<u8>);

/// The rows of session `id` in [`KEYS`]'s order, without its join per part
/// (each part's message found among the session's, read once); `None`
/// when SQLite's order could differ from this sort's: a time that is not
/// an integer, an id that is not text, a message id twice, a part whose
/// message is not the session's, two rows in the same place.
pub(super) fn sorted_keys(conn: &Connection, id: &str) -> rusqlite::Result<Option<Vec<(&'static Table, i64)>>> {
    use rusqlite::types::ValueRef::{Integer, Text};
    let mut out: Vec<(Place, &'static Table, i64)> = Vec::new();
    let mut stmt = conn.prepare_cached("SELECT rowid FROM session WHERE id = ?1")?;
    let mut rows = stmt.query([id])?;
    while let Some(r) = rows.next()? {
        out.push(((-1, Vec::new(), 0, Vec::new()), &SESSION, r.get(0)?));
    }
    let mut times = std::collections::HashMap::new();
    let mut stmt = conn.prepare_cached("SELECT rowid, time_created, id FROM message WHERE session_id = ?1")?;
    let mut rows = stmt.query([id])?;
    while let Some(r) = rows.next()? {
        let (Integer(time), Text(mid)) = (r.get_ref(1)?, r.get_ref(2)?) else { return Ok(None) };
        if times.insert(mid.to_vec(), time).is_some() {
            return Ok(None);
        }
        out.push(((time, mid.to_vec(), 0, Vec::new()), &MESSAGE, r.get(0)?));
    }
    let mut stmt = conn.prepare_cached("SELECT rowid, message_id, id FROM part WHERE session_id = ?1")?;
    let mut rows = stmt.query([id])?;
    while let Some(r) = rows.next()? {
        let (Text(mid), Text(pid)) = (r.get_ref(1)?, r.get_ref(2)?) else { return Ok(None) };
        let Some(&time) = times.get(mid) else { return Ok(None) };
        out.push(((time, mid.to_vec(), 1, pid.to_vec()), &PART, r.get(0)?));
    }
    out.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    if out.windows(2).any(|w| w[0].0 == w[1].0) {
        return Ok(None);
    }
    Ok(Some(out.into_iter().map(|(_, table, rowid)| (table, rowid)).collect()))
}

/// What changes when any row of a session changes
/// ([`crate::lines::rows::fingerprints`], the capture cache): every column
/// its session row's record reads; per session, of its messages and of its
/// parts, the count, the maximum and sum of `rowid` (an insert or a delete),
/// the sum of `time_updated` (OpenCode rewrites a message or part in place
/// with a new `time_updated`: a streamed text, a tool part from `running`
/// to `completed`) and of `time_created` (the order), and the sum of the
/// `data` lengths (a rewrite that kept the time). The sums are taken modulo
/// 2^32 so that they cannot overflow.
pub static FINGERPRINTS: [&str; 3] = [
    "SELECT id, rowid, time_created, time_updated, project_id, parent_id, directory, title, version FROM session",
    concat!(
        "SELECT session_id, count(*), max(rowid), sum(rowid % 4294967296), sum(time_updated % 4294967296), ",
        "sum(time_created % 4294967296), sum(length(CAST(data AS BLOB))) FROM message GROUP BY session_id"
    ),
    concat!(
        "SELECT session_id, count(*), max(rowid), sum(rowid % 4294967296), sum(time_updated % 4294967296), ",
        "sum(time_created % 4294967296), sum(length(CAST(data AS BLOB))) FROM part GROUP BY session_id"
    ),
];

/// What discovery reads of a session row.
#[derive(Debug, Default, PartialEq)]
pub struct SessionRow {
    pub id: String,
    pub parent: Option<String>,
    pub directory: Option<String>,
    pub version: Option<String>,
    pub created_ms: Option<i64>,
    pub updated_ms: Option<i64>,
    /// The first assistant message's `modelID`.
    pub model: Option<String>,
    /// The `agent` of the first message that names one.
    pub agent: Option<String>,
    /// The length of its messages' and parts' `data`.
    pub bytes: u64,
}

/// Every session of the database, by creation time then id.
pub fn sessions(conn: &Connection) -> Result<Vec<SessionRow>, String> {
    const SQL: &str = "SELECT s.id, s.parent_id, s.directory, s.version, s.time_created, s.time_updated,
        (SELECT json_extract(m.data, '$.modelID') FROM message m WHERE m.session_id = s.id AND json_valid(m.data)
            AND json_extract(m.data, '$.role') = 'assistant' ORDER BY m.time_created, m.id LIMIT 1),
        (SELECT json_extract(m.data, '$.agent') FROM message m WHERE m.session_id = s.id AND json_valid(m.data)
            AND json_type(m.data, '$.agent') = 'text' ORDER BY m.time_created, m.id LIMIT 1),
        coalesce((SELECT sum(length(data)) FROM message m WHERE m.session_id = s.id), 0)
            + coalesce((SELECT sum(length(data)) FROM part p WHERE p.session_id = s.id), 0)
        FROM session s ORDER BY s.time_created, s.id";
    let mut stmt = conn.prepare(SQL).map_err(|e| e.to_string())?;
    let text = crate::lines::rows::text_at;
    let rows = stmt
        .query_map([], |r| {
            Ok(SessionRow {
                id: text(r, 0)?.unwrap_or_default(),
                parent: text(r, 1)?.filter(|p| !p.is_empty()),
                directory: text(r, 2)?.filter(|d| !d.is_empty()),
                version: text(r, 3)?.filter(|v| !v.is_empty()),
                created_ms: r.get::<_, Option<i64>>(4).ok().flatten(),
                updated_ms: r.get::<_, Option<i64>>(5).ok().flatten(),
                model: text(r, 6)?,
                agent: text(r, 7)?,
                bytes: r.get::<_, Option<i64>>(8).ok().flatten().unwrap_or(0).max(0) as u64,
            })
        })
        .map_err(|e| e.to_string())?;
    rows.map(|r| r.map_err(|e| e.to_string())).collect()
}

/// Whether `conn` is an OpenCode database: it has the `session`, `message`
/// and `part` tables.
pub fn is_opencode(conn: &Connection) -> Result<bool, String> {
    let sql = "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('session', 'message', 'part')";
    conn.query_row(sql, [], |r| r.get::<_, i64>(0)).map(|n| n == 3).map_err(|e| e.to_string())
}

/// The database files of a data directory: `opencode.db`, then the other
/// release channels' `opencode-<channel>.db`, by name.
pub fn databases(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out: Vec<_> = crate::files::read_dir_sorted(dir)
        .unwrap_or_default()
        .into_iter()
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(is_database_name))
        .filter(|p| p.is_file())
        .collect();
    out.sort_by_key(|p| p.file_name().is_some_and(|n| n != "opencode.db"));
    out
}

/// `opencode.db` or `opencode-<channel>.db`.
pub fn is_database_name(name: &str) -> bool {
    name == "opencode.db" || (name.starts_with("opencode-") && name.ends_with(".db"))
}
