//! The rows of a session a tokens count reads, told in Rust from the raw
//! rows ([`crate::lines::rows::Rows::choose_usage`]) instead of by the
//! tables' SQL conditions ([`super::store::MESSAGE`], [`super::store::PART`]
//! `usage`), which run SQLite's JSON functions over every part (and over
//! every part of each assistant message again, to count its steps).
//!
//! The choice keeps every row those conditions hold of, and a few more
//! when in doubt: a row is left out only when its `data` is text that
//! `serde_json` parses as one JSON object (strict RFC 8259, so SQLite's
//! `json_valid` holds of it too) whose fields show the condition is false.
//! A part is left out when its `type` is a string other than `step-finish`
//! (or absent); a message when its `role` is a string other than
//! `assistant` (or absent), or it has no `tokens` (or null), or a part of
//! the session that is surely a `step-finish` names it. A row whose record
//! may be too long is always kept, as the conditions keep it.

use std::borrow::Cow;
use std::collections::HashSet;

use rusqlite::types::ValueRef;
use rusqlite::Connection;
use serde::de::IgnoredAny;
use serde::Deserialize;

use super::store::{MESSAGE, PART};
use crate::lines::rows::Chosen;

/// The fields of a row's `data` the choice reads; the rest is validated
/// and skipped. A field of another type, or twice, fails the parse (the
/// row is kept).
#[derive(Deserialize)]
struct Head<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    role: Option<Cow<'a, str>>,
    #[serde(default)]
    tokens: Option<IgnoredAny>,
}

/// The fields of `data` when it is surely one valid JSON object (`None`:
/// it may not be, or it is too long to leave out).
fn head(data: ValueRef<'_>) -> Option<Head<'_>> {
    let ValueRef::Text(bytes) = data else { return None };
    let long = 2 * bytes.len() + 4096 > crate::lines::max_line();
    // Only an object: a struct would also take a JSON array.
    let object = bytes.iter().find(|b| !b" \t\r\n".contains(b)) == Some(&b'{');
    if long || !object || simdutf8::basic::from_utf8(bytes).is_err() {
        return None;
    }
    serde_json::from_slice(bytes).ok()
}

/// The rows of session `id` whose message or part a tokens count reads
/// (module docs).
pub(super) fn usage_rows(conn: &Connection, id: &str) -> Result<Chosen, String> {
    let err = |e: rusqlite::Error| e.to_string();
    let mut parts = HashSet::new();
    let mut stepped = HashSet::new();
    let mut stmt =
        conn.prepare_cached("SELECT rowid, message_id, data FROM part WHERE session_id = ?1").map_err(err)?;
    let mut rows = stmt.query([id]).map_err(err)?;
    while let Some(row) = rows.next().map_err(err)? {
        match head(row.get_ref(2).map_err(err)?) {
            Some(h) if h.kind.as_deref() != Some("step-finish") => continue,
            Some(_) => {
                if let ValueRef::Text(m) = row.get_ref(1).map_err(err)? {
                    stepped.insert(m.to_vec());
                }
            }
            None => {}
        }
        parts.insert(row.get::<_, i64>(0).map_err(err)?);
    }
    let mut messages = HashSet::new();
    let mut stmt = conn.prepare_cached("SELECT rowid, id, data FROM message WHERE session_id = ?1").map_err(err)?;
    let mut rows = stmt.query([id]).map_err(err)?;
    while let Some(row) = rows.next().map_err(err)? {
        let steps = match row.get_ref(1).map_err(err)? {
            ValueRef::Text(m) => stepped.contains(m),
            _ => false,
        };
        if let Some(h) = head(row.get_ref(2).map_err(err)?) {
            if h.role.as_deref() != Some("assistant") || h.tokens.is_none() || steps {
                continue;
            }
        }
        messages.insert(row.get::<_, i64>(0).map_err(err)?);
    }
    Ok(vec![(&PART, parts), (&MESSAGE, messages)])
}
