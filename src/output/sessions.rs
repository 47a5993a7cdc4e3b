//! `ci-find`'s session records on stdout: whole, one NDJSON object per line
//! ([`SessionRecord::write_json`]), with only the `--fields` keys, or their
//! paths alone (`--paths`, `-0`); and as the rows a table shows.

use crate::error::{Error, Result};
use crate::session::SessionRecord;

use super::table::Record;
use super::Output;

/// What of each session record is printed.
#[derive(Debug, Clone, Copy)]
pub enum Shape<'a> {
    /// The path, ended by a NUL (`null`) or a newline.
    Path {
        /// End each path with a NUL (`-0`), not a newline.
        null: bool,
    },
    /// The record with only these keys, in the record's order (so
    /// `session` stays first, and a record keeping session, format and
    /// path still pipes into the other tools).
    Fields(&'a [String]),
    /// The whole record.
    Whole,
}

/// Prints session records in `shape`, in batches of whole records; stops
/// early (whole records only) when a signal asks to.
pub fn write_records(list: &[SessionRecord], shape: Shape<'_>, out: &mut Output) -> Result<()> {
    let mut buf = Vec::with_capacity(64 * 1024);
    for r in list {
        if crate::signal::stop_requested() {
            break; // interrupted: whole records only, exit 130 (src/signal.rs)
        }
        match shape {
            Shape::Path { null } => {
                buf.extend_from_slice(r.path.as_bytes());
                buf.push(if null { 0 } else { b'\n' });
            }
            Shape::Fields(fields) => write_fields(r, fields, &mut buf)?,
            Shape::Whole => {
                r.write_json(&mut buf);
                buf.push(b'\n');
            }
        }
        if buf.len() > 60 * 1024 {
            out.write(&buf)?;
            buf.clear();
        }
    }
    out.write(&buf)
}

/// The record `r` with only `fields`, in the record's order.
fn write_fields(r: &SessionRecord, fields: &[String], buf: &mut Vec<u8>) -> Result<()> {
    let internal = |e: serde_json::Error| Error::Msg(format!("internal error: {e}"));
    let serde_json::Value::Object(all) = serde_json::to_value(r).map_err(internal)? else {
        return Err(Error::Msg("internal error: a session record is no object".into()));
    };
    let picked: serde_json::Map<String, serde_json::Value> =
        all.into_iter().filter(|(k, _)| fields.contains(k)).collect();
    serde_json::to_writer(&mut *buf, &picked).map_err(internal)?;
    buf.push(b'\n');
    Ok(())
}

/// Session records as the table renderer takes them.
pub fn as_records(list: &[SessionRecord]) -> Vec<Record> {
    list.iter()
        .filter_map(|r| match serde_json::to_value(r) {
            Ok(serde_json::Value::Object(m)) => Some(m),
            _ => None,
        })
        .collect()
}
