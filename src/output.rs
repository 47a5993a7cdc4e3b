//! Everything that reaches stdout: the writer, and the event-record printer.
//!
//! Event records leave the toolkit as one JSON object per line:
//!
//! - the line as read, byte for byte, with one key appended before the closing
//!   brace: `"ci":{"session":ID,"path":FILE,"line":N}` (not added again when the
//!   record already has it, e.g. when piped from another ci-* tool);
//! - `"workspace":W` appended too when the line had no `workspace` (older
//!   writers): W is the session's metadata workspace, else its project slug;
//! - when the result would exceed the byte budget (`--max-bytes`, default
//!   [`DEFAULT_MAX_BYTES`]), the record is re-serialised compactly with long
//!   strings in `data` cut and long arrays elided (see [`crate::truncate`]); the
//!   envelope (`event`, `workspace`, `timestamp`, `ci`) is never cut;
//! - a capture line that holds a `ci` key of its own gets the real one, and
//!   its own is printed as `ci_original` (a file's bytes never claim where
//!   they came from);
//! - `--raw` prints the exact source bytes and nothing else.

use std::io::{self, IsTerminal, Write};

use crate::error::{Error, Result};
use crate::json::{Path, Raw};
use crate::record::{Event, PROVENANCE_KEY};
use crate::truncate;

/// The name a capture line's own `ci` key is printed under (it is never
/// taken for provenance).
pub const ORIGINAL_PROVENANCE: &str = "ci_original";

/// Default output budget per event record, in bytes.
pub const DEFAULT_MAX_BYTES: usize = 4096;

/// Env var that sets the default budget.
pub const MAX_BYTES_ENV: &str = "CI_MAX_BYTES";

/// The one owner of stdout: block-buffered into a pipe or file, flushed after
/// each batch on a terminal so output appears as it is produced.
pub struct Output {
    w: io::BufWriter<io::Stdout>,
    tty: bool,
    /// Whether anything was written (the exit status: 0 printed, 1 nothing).
    wrote: bool,
}

impl Output {
    /// Wraps stdout.
    pub fn stdout() -> Output {
        let out = io::stdout();
        let tty = out.is_terminal();
        Output { w: io::BufWriter::with_capacity(256 * 1024, out), tty, wrote: false }
    }

    /// Whether stdout is a terminal.
    pub fn is_terminal(&self) -> bool {
        self.tty
    }

    /// Whether anything was written so far.
    pub fn wrote(&self) -> bool {
        self.wrote
    }

    /// Writes bytes. Callers pass whole records (lines), so that what has
    /// reached stdout after any call ends on a record boundary; the write
    /// holds [`crate::signal::write_guard`], so a signal's safety-net exit
    /// never cuts it.
    pub fn write(&mut self, bytes: &[u8]) -> Result<()> {
        self.wrote |= !bytes.is_empty();
        let _writing = crate::signal::write_guard();
        self.w.write_all(bytes).map_err(Error::stream)?;
        if self.tty {
            self.w.flush().map_err(Error::stream)?;
        }
        Ok(())
    }

    /// Flushes.
    pub fn flush(&mut self) -> Result<()> {
        let _writing = crate::signal::write_guard();
        self.w.flush().map_err(Error::stream)
    }
}

impl Drop for Output {
    /// The last flush holds the write guard too (the buffer's own flush on
    /// drop would not).
    fn drop(&mut self) {
        let _ = self.flush();
    }
}

pub use crate::json::write::json_str;

/// Writes the provenance object `{"session":ID,"path":FILE,"line":N}` (the
/// value of the `ci` key) for a record read from a file, with `"part":K`
/// after the line for an event that is one of several on its line.
pub fn write_provenance(out: &mut Vec<u8>, session: Option<&str>, path: &str, line: u64, part: Option<u32>) {
    out.extend_from_slice(b"{\"session\":");
    match session {
        Some(s) => json_str(out, s),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"path\":");
    json_str(out, path);
    // Writing into a Vec cannot fail.
    let _ = write!(out, ",\"line\":{line}");
    if let Some(part) = part {
        let _ = write!(out, ",\"part\":{part}");
    }
    out.push(b'}');
}

/// How event records are printed.
#[derive(Debug, Clone, Default)]
pub struct EventFormat {
    /// Byte budget per record; `None` prints records whole (`--full`).
    pub max_bytes: Option<usize>,
    /// Print the exact source line (`--raw`).
    pub raw: bool,
    /// Print only these paths (`--fields`), nested as in the record, plus `ci`.
    pub fields: Option<Vec<Path>>,
}

impl EventFormat {
    /// Appends `ev` as one NDJSON line to `out`. The common case (a record
    /// within budget) copies the line and appends the added keys in place,
    /// without any allocation.
    pub fn write(&self, ev: &Event<'_>, out: &mut Vec<u8>) {
        if self.raw {
            out.extend_from_slice(ev.rec.line());
            out.push(b'\n');
            return;
        }
        if let Some(fields) = &self.fields {
            let mut extra = Vec::with_capacity(128);
            self.extra_keys(ev, false, &mut extra);
            self.write_projection(ev, fields, &extra, out);
            return;
        }
        if ev.derived() {
            self.write_derived(ev, out);
            return;
        }
        if ev.shadows_provenance() {
            // The line's own `ci` is kept as `ci_original`; ours is added.
            let mut extra = Vec::with_capacity(128);
            self.extra_keys(ev, true, &mut extra);
            self.write_shrunk(ev, &extra, out);
            return;
        }
        let start = out.len();
        let line = ev.rec.line();
        // Drop whitespace before the closing brace so the comma sits right.
        out.extend_from_slice(line[..ev.rec.close()].trim_ascii_end());
        let before_extra = out.len();
        if !ev.rec.is_empty() {
            out.push(b',');
        }
        self.extra_keys(ev, true, out);
        if out.len() == before_extra + 1 {
            out.truncate(before_extra); // nothing was added
        }
        out.extend_from_slice(b"}\n");
        if self.max_bytes.is_some_and(|max| out.len() - start > max + 1) {
            let mut extra = Vec::with_capacity(128);
            self.extra_keys(ev, true, &mut extra);
            out.truncate(start);
            self.write_shrunk(ev, &extra, out);
        }
    }

    /// Appends the keys this toolkit adds: provenance, and (with `workspace`)
    /// a filled-in workspace, comma-separated.
    fn extra_keys(&self, ev: &Event<'_>, workspace: bool, extra: &mut Vec<u8>) {
        let empty = extra.len();
        if workspace && ev.lacks_workspace() {
            if let Some(w) = ev.workspace() {
                extra.extend_from_slice(b"\"workspace\":");
                json_str(extra, &w);
            }
        }
        if ev.provenance().is_none() {
            if extra.len() > empty {
                extra.push(b',');
            }
            extra.extend_from_slice(b"\"ci\":");
            write_provenance(extra, ev.session().as_deref(), ev.source, ev.line, ev.part);
        }
    }

    /// A record derived from a writer's line (a Claude Code hook line),
    /// normalised: `{"event":NAME,ORIGINAL_KEY:ITS_NAME,"workspace":W,"timestamp":TS|null,"data":DATA,"ci":{…}}`
    /// (for a hook line `"hook":NAME` and `data` the line unchanged), `data`
    /// shrunk like any `data` over budget.
    fn write_derived(&self, ev: &Event<'_>, out: &mut Vec<u8>) {
        let mut head = Vec::with_capacity(160);
        head.extend_from_slice(b"{\"event\":");
        json_str(&mut head, &ev.name());
        if let Some((key, value)) = ev.original() {
            head.extend_from_slice(b",\"");
            head.extend_from_slice(key.as_bytes());
            head.extend_from_slice(b"\":");
            match value.and_then(|v| v.as_str()) {
                Some(h) => json_str(&mut head, &h),
                None => head.extend_from_slice(b"null"),
            }
        }
        head.extend_from_slice(b",\"workspace\":");
        match ev.workspace() {
            Some(w) => json_str(&mut head, &w),
            None => head.extend_from_slice(b"null"),
        }
        head.extend_from_slice(b",\"timestamp\":");
        match ev.timestamp_str() {
            Some(t) => json_str(&mut head, &t),
            None => head.extend_from_slice(b"null"),
        }
        head.extend_from_slice(b",\"data\":");
        let mut tail = Vec::with_capacity(128);
        tail.push(b',');
        self.extra_keys(ev, false, &mut tail);
        tail.extend_from_slice(b"}\n");
        let data = ev.data().map_or(&b"null"[..], |d| d.bytes());
        out.extend_from_slice(&head);
        match self.max_bytes {
            Some(max) if head.len() + data.len() + tail.len() > max + 1 => {
                let room = max.saturating_sub(head.len() + tail.len() - 1);
                out.extend_from_slice(&shrink(Raw(data), room));
            }
            _ => out.extend_from_slice(data),
        }
        out.extend_from_slice(&tail);
    }

    /// Re-serialises the record with `data` shrunk to fit the budget.
    fn write_shrunk(&self, ev: &Event<'_>, extra: &[u8], out: &mut Vec<u8>) {
        let max = self.max_bytes.unwrap_or(usize::MAX);
        let start = out.len();
        out.push(b'{');
        let mut data_at = None;
        // With duplicate `data` keys only the last one counts (as everywhere
        // else); the earlier ones are dropped, not copied whole.
        let last_data = ev
            .rec
            .members()
            .enumerate()
            .filter(|(_, (key, _))| crate::json::key_eq(key, "data"))
            .last()
            .map(|(i, _)| i);
        let mut first = true;
        for (i, (key, value)) in ev.rec.members().enumerate() {
            let is_data = crate::json::key_eq(key, "data");
            if is_data && Some(i) != last_data {
                continue;
            }
            if !first {
                out.push(b',');
            }
            first = false;
            out.push(b'"');
            if ev.shadows_provenance() && crate::json::key_eq(key, PROVENANCE_KEY) {
                out.extend_from_slice(ORIGINAL_PROVENANCE.as_bytes());
            } else {
                out.extend_from_slice(key);
            }
            out.extend_from_slice(b"\":");
            if is_data {
                data_at = Some((out.len(), value));
            } else {
                out.extend_from_slice(value.bytes());
            }
        }
        if !extra.is_empty() {
            if !ev.rec.is_empty() {
                out.push(b',');
            }
            out.extend_from_slice(extra);
        }
        out.extend_from_slice(b"}\n");
        if let Some((at, value)) = data_at {
            let others = out.len() - start;
            let room = max.saturating_sub(others);
            let shrunk = shrink(value, room);
            out.splice(at..at, shrunk);
        }
    }

    fn write_projection(&self, ev: &Event<'_>, fields: &[Path], extra: &[u8], out: &mut Vec<u8>) {
        let mut obj = serde_json::Map::new();
        for path in fields {
            // The provenance object is always appended whole: `ci` or a path
            // into it is not projected a second time (a duplicate key).
            if path.segments().first().is_some_and(|k| k == PROVENANCE_KEY) {
                continue;
            }
            let value = match path.as_str() {
                "workspace" => ev.workspace().map(|w| serde_json::Value::String(w.into_owned())),
                "event" if ev.derived() => Some(serde_json::Value::String(ev.name().into_owned())),
                _ => ev.path(path).and_then(|r| r.to_value()),
            };
            let value = value.unwrap_or(serde_json::Value::Null);
            insert_path(&mut obj, path.segments(), value);
        }
        if let Some(p) = ev.provenance().and_then(|p| p.to_value()) {
            obj.insert(PROVENANCE_KEY.into(), p);
        }
        let mut body = serde_json::to_vec(&obj).unwrap_or_default();
        if let Some(max) = self.max_bytes {
            if body.len() + extra.len() > max {
                let room = max.saturating_sub(extra.len() + 1);
                // With a projected `data`, only it is shrunk (its direct members
                // are the protected ones) and the envelope is never cut; a
                // record without `data` is shrunk as a whole, as before.
                if let Some(data) = obj.get_mut("data") {
                    let data_len = serde_json::to_vec(&*data).map_or(0, |d| d.len());
                    let others = body.len().saturating_sub(data_len);
                    truncate::shrink_data(data, room.saturating_sub(others));
                    body = serde_json::to_vec(&obj).unwrap_or(body);
                } else {
                    let mut v = serde_json::Value::Object(obj);
                    truncate::shrink_data(&mut v, room);
                    body = serde_json::to_vec(&v).unwrap_or(body);
                }
            }
        }
        if body.len() >= 2 {
            out.extend_from_slice(&body[..body.len() - 1]);
            if !extra.is_empty() {
                if body.len() > 2 {
                    out.push(b',');
                }
                out.extend_from_slice(extra);
            }
            out.extend_from_slice(b"}\n");
        }
    }
}

/// Shrinks a raw `data` value to at most `room` bytes where possible.
fn shrink(value: Raw<'_>, room: usize) -> Vec<u8> {
    // Records with a few huge strings (the common oversized ones) skip the
    // DOM of those strings; the result is the same bytes.
    if let Some(bytes) = truncate::shrink_raw(value.bytes(), room) {
        return bytes;
    }
    match value.to_value() {
        Some(mut v) => {
            truncate::shrink_data(&mut v, room);
            serde_json::to_vec(&v).unwrap_or_else(|_| value.bytes().to_vec())
        }
        // Unreachable for validated lines (serde_json accepts what the
        // scanner accepts); keep the record valid rather than panic.
        None => b"null".to_vec(),
    }
}

fn insert_path(obj: &mut serde_json::Map<String, serde_json::Value>, path: &[String], value: serde_json::Value) {
    let Some((first, rest)) = path.split_first() else {
        return;
    };
    if rest.is_empty() {
        obj.insert(first.clone(), value);
        return;
    }
    let entry = obj.entry(first.clone()).or_insert_with(|| serde_json::Value::Object(Default::default()));
    if let serde_json::Value::Object(inner) = entry {
        insert_path(inner, rest, value);
    }
}
