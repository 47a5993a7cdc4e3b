//! A fingerprint of each session's rows of a database, for the capture
//! cache (`docs/cache.md`, "Databases"): one grouped statement per table
//! gives, per session, figures that change when any of its rows is
//! inserted, updated or deleted (the writer chooses them: counts, sums and
//! maxima of `rowid`, of its update time and of the rows' lengths); the
//! figures of every statement are hashed together per session.

use std::collections::HashMap;

use rusqlite::types::ValueRef;
use rusqlite::Connection;

/// The fingerprint of each session of the database `conn` by the writer's
/// grouped `statements`: each result row is a session id (text; rows with
/// another type are passed over) and any number of figures. A session
/// without rows in a table has no figures of it.
pub fn fingerprints(conn: &Connection, statements: &[&str]) -> Result<HashMap<String, u64>, String> {
    let mut figures: HashMap<String, Vec<u8>> = HashMap::new();
    for (i, sql) in statements.iter().enumerate() {
        let mut stmt = conn.prepare(sql).map_err(|e| e.to_string())?;
        let columns = stmt.column_count();
        let mut rows = stmt.query([]).map_err(|e| e.to_string())?;
        while let Some(row) = rows.next().map_err(|e| e.to_string())? {
            let ValueRef::Text(id) = row.get_ref(0).map_err(|e| e.to_string())? else { continue };
            let out = figures.entry(String::from_utf8_lossy(id).into_owned()).or_default();
            out.extend_from_slice(&(i as u32).to_le_bytes());
            for c in 1..columns {
                put(out, row.get_ref(c).map_err(|e| e.to_string())?);
            }
        }
    }
    Ok(figures.into_iter().map(|(id, f)| (id, xxhash_rust::xxh3::xxh3_64(&f))).collect())
}

/// A value, tagged with its type (so that `1` and `'1'` differ).
fn put(out: &mut Vec<u8>, v: ValueRef<'_>) {
    match v {
        ValueRef::Null => out.push(0),
        ValueRef::Integer(n) => {
            out.push(1);
            out.extend_from_slice(&n.to_le_bytes());
        }
        ValueRef::Real(f) => {
            out.push(2);
            out.extend_from_slice(&f.to_bits().to_le_bytes());
        }
        ValueRef::Text(t) | ValueRef::Blob(t) => {
            out.push(3);
            out.extend_from_slice(&(t.len() as u64).to_le_bytes());
            out.extend_from_slice(t);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BY_SESSION: &str =
        "SELECT session_id, count(*), max(rowid), sum(rowid), sum(length(CAST(data AS BLOB))) FROM t GROUP BY session_id";

    fn db() -> Connection {
        let c = Connection::open_in_memory().unwrap();
        c.execute_batch("CREATE TABLE t (session_id TEXT, data TEXT); INSERT INTO t VALUES ('a', 'x'), ('b', 'yy');")
            .unwrap();
        c
    }

    #[test]
    fn a_change_to_one_session_changes_its_fingerprint_only() {
        let c = db();
        let before = fingerprints(&c, &[BY_SESSION]).unwrap();
        assert_eq!(before.len(), 2);
        c.execute_batch("INSERT INTO t VALUES ('a', 'z')").unwrap();
        let after = fingerprints(&c, &[BY_SESSION]).unwrap();
        assert_ne!(before["a"], after["a"]);
        assert_eq!(before["b"], after["b"]);
        c.execute_batch("UPDATE t SET data = 'yyy' WHERE session_id = 'b'").unwrap();
        assert_ne!(fingerprints(&c, &[BY_SESSION]).unwrap()["b"], after["b"]);
    }

    #[test]
    fn a_statement_that_fails_is_an_error() {
        assert!(fingerprints(&db(), &["SELECT session_id FROM nothing"]).is_err());
    }
}
