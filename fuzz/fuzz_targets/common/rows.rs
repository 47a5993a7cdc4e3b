//! A database session's records, as a row-reading writer makes them
//! (`lines::rows`), checked on the way: for the fuzz targets of database
//! stores (`opencode`, `goose`).

use ci_tools::lines::rows::{read_row, Table};

/// The records of the rows `keys` of `conn`, one line each. Each is made
/// (a record for every row), is one line of JSON, an object, and the same
/// bytes when read again (one nested deeper than serde_json reads is only
/// checked to be an object).
pub fn records(conn: &rusqlite::Connection, keys: Vec<(&'static Table, i64)>) -> Vec<u8> {
    let mut capture = Vec::new();
    let (mut record, mut again) = (Vec::new(), Vec::new());
    for (table, rowid) in keys {
        assert!(read_row(conn, table, rowid, &mut record).expect("a record is made"), "row {rowid} of {}", table.name);
        assert!(read_row(conn, table, rowid, &mut again).expect("made again"));
        assert_eq!(record, again, "reading a row again gives the same bytes");
        assert!(!record.contains(&b'\n'), "one line");
        match serde_json::from_slice::<serde_json::Value>(&record) {
            Ok(v) => assert!(v.is_object(), "a record is an object: {v}"),
            // Nested deeper than serde_json reads (a column's JSON 128
            // levels deep): the reader reports it as a bad record
            // (`format::fits_as_data`), which `normalise::check` reads.
            Err(e) if e.to_string().starts_with("recursion limit exceeded") => {
                assert!(record.starts_with(b"{"), "a record is an object")
            }
            Err(e) => panic!("a record is JSON: {e}"),
        }
        capture.extend_from_slice(&record);
        capture.push(b'\n');
    }
    capture
}
