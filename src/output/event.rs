//! The event-record printer: event records leave the toolkit as one JSON
//! object per line:
//!
//! - the line as read, byte for byte, with one key appended before the closing
//!   brace: `"ci":{"session":ID,"path":FILE,"line":N}` (not added again when the
//!   record already has it, e.g. when piped from another ci-* tool);
//! - `"workspace":W` appended too when the line had no `workspace` (older
//!   writers): W is the session's metadata workspace, else its project slug;
//! - when the result would exceed the byte budget (`--max-bytes`, default
//!   [`DEFAULT_MAX_BYTES`]), the record is re-serialised compactly with long
//!   strings in `data` cut and long arrays elided (see [`crate::truncate`]); the
//!   envelope (`event`, `workspace`, `timestamp`, `ci`) is never cut, and
//!   `ci` gets the cut marker ([`write_cut`]) naming the whole line, which a
//!   later tool reads again ([`crate::reread`]);
//! - a capture line that holds a `ci` key of its own gets the real one, and
//!   its own is printed as `ci_original` (a file's bytes never claim where
//!   they came from);
//! - `--raw` prints the exact source bytes and nothing else;
//! - `--no-provenance` leaves `ci` out (also the one a piped record carries);
//! - `--fields` prints a projection ([`crate::pick`]).

use std::borrow::Cow;
use std::io::Write;

use crate::format::Format;
use crate::json::{Path, Raw};
use crate::record::{Event, ENVELOPE, PROVENANCE_KEY, TOOL_KEY};
use crate::truncate;

/// The name a capture line's own `ci` key is printed under (it is never
/// taken for provenance).
pub const ORIGINAL_PROVENANCE: &str = "ci_original";

/// Default output budget per event record, in bytes.
pub const DEFAULT_MAX_BYTES: usize = 4096;

/// Env var that sets the default budget.
pub const MAX_BYTES_ENV: &str = "CI_MAX_BYTES";

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

/// Writes the cut marker, the member `"cut":{"offset":O,"bytes":L,"xxh3":H}`
/// (`{"table":T,"rowid":R,"bytes":L,"xxh3":H,"writer":W}` for a database
/// row, [`crate::lines::rows`]; `{"document":D,"bytes":L,"xxh3":H,"writer":W}`
/// for a file that is one record, [`crate::lines::documents`]; with `"element":true` for an array element, `"writer":W` when the
/// record may not tell its writer — a projection, a ci-grep match record —
/// and for a projection `"fields":[…]`, the paths it picked): the line's byte offset and
/// length in its file and the XXH3 hash of the line as read (hex), which is
/// what a later tool needs to read the whole line again and to check that it
/// is still the same ([`crate::reread`]). Without an origin (a piped record
/// that arrived whole and is cut here): `"cut":true`.
pub fn write_cut(
    out: &mut Vec<u8>,
    origin: Option<(crate::lines::Site, u64)>,
    writer: Option<&'static Format>,
    fields: Option<&[Path]>,
) {
    out.extend_from_slice(b"\"cut\":");
    let Some((site, hash)) = origin else {
        out.extend_from_slice(b"true");
        return;
    };
    // Writing into a Vec cannot fail.
    let writer = match site.framing {
        crate::lines::Framing::Row(table) => {
            out.extend_from_slice(b"{\"table\":");
            json_str(out, table.name);
            let _ = write!(out, ",\"rowid\":{},\"bytes\":{},\"xxh3\":\"{hash:016x}\"", site.offset as i64, site.len);
            writer.or_else(|| Format::named(table.writer))
        }
        crate::lines::Framing::Document(doc) => {
            out.extend_from_slice(b"{\"document\":");
            json_str(out, doc.name);
            let _ = write!(out, ",\"bytes\":{},\"xxh3\":\"{hash:016x}\"", site.len);
            writer.or_else(|| Format::named(doc.writer))
        }
        framing => {
            let _ = write!(out, "{{\"offset\":{},\"bytes\":{},\"xxh3\":\"{hash:016x}\"", site.offset, site.len);
            if framing == crate::lines::Framing::Element {
                out.extend_from_slice(b",\"element\":true");
            }
            writer
        }
    };
    if let Some(writer) = writer {
        out.extend_from_slice(b",\"writer\":");
        json_str(out, writer.name);
    }
    if let Some(fields) = fields {
        out.extend_from_slice(b",\"fields\":[");
        for (i, f) in fields.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            json_str(out, f.as_str());
        }
        out.push(b']');
    }
    out.push(b'}');
}

/// Writes the provenance of a record that stands for the event `ev`
/// without holding it (a ci-grep match record): `ev`'s `ci` with a cut
/// marker naming its line and writer, so that a later tool reads the event
/// again ([`crate::reread`]); `"cut":true` when its line is not known (an
/// event record that came whole from a pipe).
pub fn write_event_site(out: &mut Vec<u8>, ev: &Event<'_>) {
    match ev.provenance() {
        Some(ci) => with_cut(out, ci, ev.cut_origin(), Some(ev.format())),
        None => {
            write_provenance(out, ev.session().as_deref(), ev.source, ev.line, ev.part);
            out.pop();
            out.push(b',');
            write_cut(out, ev.cut_origin(), Some(ev.format()), None);
            out.push(b'}');
        }
    }
}

/// Writes a provenance object `ci` as it was, with the cut marker added.
fn with_cut(
    out: &mut Vec<u8>,
    ci: Raw<'_>,
    origin: Option<(crate::lines::Site, u64)>,
    writer: Option<&'static Format>,
) {
    let body = ci.bytes().trim_ascii_end();
    match body.strip_suffix(b"}") {
        Some(open) if ci.kind() == crate::json::Kind::Object => {
            let open = open.trim_ascii_end();
            out.extend_from_slice(open);
            if open != b"{" {
                out.push(b',');
            }
            write_cut(out, origin, writer, None);
            out.push(b'}');
        }
        // Not an object: nothing to add to; kept as it was.
        _ => out.extend_from_slice(ci.bytes()),
    }
}

/// How event records are printed.
#[derive(Debug, Clone, Default)]
pub struct EventPrinter {
    /// Byte budget per record; `None` prints records whole (`--full`).
    pub max_bytes: Option<usize>,
    /// Print the exact source line (`--raw`).
    pub raw: bool,
    /// Print only these paths (`--fields`), nested as in the record
    /// ([`crate::pick`]), plus `ci`.
    pub fields: Option<Vec<Path>>,
    /// Leave the provenance key `ci` out (`--no-provenance`).
    pub no_provenance: bool,
}

impl EventPrinter {
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
            self.write_projection(ev, fields, out);
            return;
        }
        if ev.derived() {
            self.write_derived(ev, out);
            return;
        }
        if ev.shadows_provenance() || self.drops_provenance(ev) {
            // The line's own `ci` is kept as `ci_original`; ours is added
            // (or, with --no-provenance, a piped record's `ci` is dropped).
            self.write_shrunk(ev, out);
            return;
        }
        let start = out.len();
        self.write_whole(ev, out);
        if self.max_bytes.is_some_and(|max| out.len() - start > max + 1) {
            out.truncate(start);
            self.write_shrunk(ev, out);
        }
    }

    /// The line as written, with the keys this toolkit adds appended.
    fn write_whole(&self, ev: &Event<'_>, out: &mut Vec<u8>) {
        let line = ev.rec.line();
        // Drop whitespace before the closing brace so the comma sits right.
        out.extend_from_slice(line[..ev.rec.close()].trim_ascii_end());
        let before_extra = out.len();
        if !ev.rec.is_empty() {
            out.push(b',');
        }
        self.extra_keys(ev, true, false, out);
        if out.len() == before_extra + 1 {
            out.truncate(before_extra); // nothing was added
        }
        out.extend_from_slice(b"}\n");
    }

    /// With `--no-provenance`, whether `ev` carries a `ci` of its own to drop
    /// (a piped event record).
    fn drops_provenance(&self, ev: &Event<'_>) -> bool {
        self.no_provenance && ev.provenance().is_some()
    }

    /// Appends the keys this toolkit adds: provenance, and (with `workspace`)
    /// a filled-in workspace, comma-separated; with `cut`, the provenance
    /// says the record is cut ([`write_cut`]).
    fn extra_keys(&self, ev: &Event<'_>, workspace: bool, cut: bool, extra: &mut Vec<u8>) {
        let empty = extra.len();
        if workspace && ev.lacks_workspace() {
            if let Some(w) = ev.workspace() {
                extra.extend_from_slice(b"\"workspace\":");
                json_str(extra, &w);
            }
        }
        if ev.provenance().is_none() && !self.no_provenance {
            if extra.len() > empty {
                extra.push(b',');
            }
            extra.extend_from_slice(b"\"ci\":");
            write_provenance(extra, ev.session().as_deref(), ev.source, ev.line, ev.part);
            if cut {
                extra.pop();
                extra.push(b',');
                self.write_marker(ev, extra);
                extra.push(b'}');
            }
        }
    }

    /// The cut marker of `ev` as printed: a projection names its writer
    /// (it may leave out what tells it) and its paths.
    fn write_marker(&self, ev: &Event<'_>, out: &mut Vec<u8>) {
        let fields = self.fields.as_deref();
        write_cut(out, ev.cut_origin(), fields.map(|_| ev.format()), fields);
    }

    /// A record derived from a writer's line (a Claude Code hook line),
    /// normalised: `{"event":NAME,ORIGINAL_KEY:ITS_NAME,"workspace":W,"timestamp":TS|null,"data":DATA,"ci":{…}}`
    /// (for a hook line `"hook":NAME` and `data` the line unchanged), `data`
    /// shrunk like any `data` over budget. A call's end whose `data` does not
    /// name its tool has `"tool":NAME` before `data` ([`Event::paired_tool`]).
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
        if let Some(tool) = ev.paired_tool() {
            head.extend_from_slice(b",\"");
            head.extend_from_slice(TOOL_KEY.as_bytes());
            head.extend_from_slice(b"\":");
            head.extend_from_slice(tool.bytes());
        }
        head.extend_from_slice(b",\"data\":");
        let tail = |cut: bool| {
            let mut tail = Vec::with_capacity(128);
            tail.push(b',');
            self.extra_keys(ev, false, cut, &mut tail);
            if tail.len() == 1 {
                tail.clear(); // --no-provenance: nothing added
            }
            tail.extend_from_slice(b"}\n");
            tail
        };
        let data = ev.data().map_or(&b"null"[..], |d| d.bytes());
        out.extend_from_slice(&head);
        let whole = tail(false);
        match self.max_bytes {
            Some(max) if head.len() + data.len() + whole.len() > max + 1 => {
                let cut_tail = tail(true);
                let room = max.saturating_sub(head.len() + cut_tail.len() - 1);
                let shrunk = shrink(Raw(data), room);
                let cut = shrunk != data;
                out.extend_from_slice(&shrunk);
                out.extend_from_slice(if cut { &cut_tail } else { &whole });
            }
            _ => {
                out.extend_from_slice(data);
                out.extend_from_slice(&whole);
            }
        }
    }

    /// Re-serialises the record with `data` shrunk to fit the budget; when
    /// anything was cut, the provenance says so ([`write_cut`]).
    fn write_shrunk(&self, ev: &Event<'_>, out: &mut Vec<u8>) {
        let start = out.len();
        let mut extra = Vec::with_capacity(160);
        self.extra_keys(ev, true, true, &mut extra);
        if !self.write_members(ev, &extra, true, out) {
            let reserialised = ev.shadows_provenance() || self.drops_provenance(ev);
            let fits = self.max_bytes.is_none_or(|max| out.len() - start <= max + 1);
            if fits && !reserialised {
                // Compact, it fits: not the line's bytes, so marked, and a
                // later tool reads the line again.
                return;
            }
            // Nothing could be cut (a record at its floor, or one
            // re-serialised only for its own `ci`): printed as --full prints
            // it, without a marker — the line as written, or re-serialised
            // when its `ci` is renamed or dropped.
            out.truncate(start);
            if !reserialised {
                self.write_whole(ev, out);
                return;
            }
            extra.clear();
            self.extra_keys(ev, true, false, &mut extra);
            self.write_members(ev, &extra, false, out);
        }
    }

    /// Writes the record's members, then `extra`; over budget, the values of
    /// members outside the envelope are shrunk: first the top-level members
    /// other than `data` (in order, each into the room left with `data`
    /// whole), then `data` into the room the rest leaves. Every member keeps
    /// its key and place (a later tool fills them back by position,
    /// [`crate::reread`]). With `cut`, a piped record's own provenance gets
    /// the cut marker. Returns whether anything was cut.
    fn write_members(&self, ev: &Event<'_>, extra: &[u8], cut: bool, out: &mut Vec<u8>) -> bool {
        let max = self.max_bytes.unwrap_or(usize::MAX);
        let start = out.len();
        out.push(b'{');
        // Where each shrinkable value goes, in record order; `data` is the
        // one at index `data`. Filled in below.
        let mut holes: Vec<(usize, Raw<'_>)> = Vec::new();
        let mut data = None;
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
            let is_ci = crate::json::key_eq(key, PROVENANCE_KEY);
            if is_data && Some(i) != last_data || is_ci && self.drops_provenance(ev) {
                continue;
            }
            if !first {
                out.push(b',');
            }
            first = false;
            out.push(b'"');
            if ev.shadows_provenance() && is_ci {
                out.extend_from_slice(ORIGINAL_PROVENANCE.as_bytes());
            } else {
                out.extend_from_slice(key);
            }
            out.extend_from_slice(b"\":");
            if is_data {
                data = Some(holes.len());
                holes.push((out.len(), value));
            } else if is_ci && cut && !ev.shadows_provenance() {
                with_cut(out, value, ev.cut_origin(), None);
            } else if is_ci && !ev.shadows_provenance() || is_envelope(key) {
                out.extend_from_slice(value.bytes());
            } else {
                holes.push((out.len(), value));
            }
        }
        if !extra.is_empty() {
            if !first {
                out.push(b',');
            }
            out.extend_from_slice(extra);
        }
        out.extend_from_slice(b"}\n");
        let len = |i: usize| holes[i].1.bytes().len();
        // The others first, in order, then `data`.
        let order: Vec<usize> = (0..holes.len()).filter(|&i| Some(i) != data).chain(data).collect();
        // Bytes of the values not decided yet, and of `data` while it is not.
        let mut undecided: usize = (0..holes.len()).map(len).sum();
        let mut data_left = data.map_or(0, len);
        // The record without the shrinkable values, then with those decided.
        let mut used = out.len() - start;
        // +1: the budget does not count the newline.
        let room = max.saturating_add(1);
        let mut fills: Vec<Cow<'_, [u8]>> = holes.iter().map(|(_, v)| Cow::Borrowed(v.bytes())).collect();
        let mut was_cut = false;
        for i in order {
            undecided -= len(i);
            if Some(i) == data {
                data_left = 0;
            }
            if used + len(i) + undecided > room {
                // Into the room left with `data` whole (the later others are
                // cut in their turn).
                let shrunk = shrink(holes[i].1, room.saturating_sub(used + data_left));
                was_cut |= shrunk != holes[i].1.bytes();
                fills[i] = Cow::Owned(shrunk);
            }
            used += fills[i].len();
        }
        // Fill from the last hole back, so earlier positions stay valid.
        for ((at, _), bytes) in holes.iter().zip(fills).rev() {
            out.splice(*at..*at, bytes.iter().copied());
        }
        was_cut
    }

    fn write_projection(&self, ev: &Event<'_>, fields: &[Path], out: &mut Vec<u8>) {
        let mut obj = crate::pick::pick(ev, fields);
        let piped_ci = ev.provenance().filter(|_| !self.no_provenance).and_then(|p| p.to_value());
        if let Some(p) = &piped_ci {
            obj.insert(PROVENANCE_KEY.into(), p.clone());
        }
        let mut extra = Vec::with_capacity(160);
        self.extra_keys(ev, false, false, &mut extra);
        let mut body = serde_json::to_vec(&obj).unwrap_or_default();
        if let Some(max) = self.max_bytes {
            if body.len() + extra.len() > max {
                // The marker is counted in the room before anything is cut.
                extra.clear();
                self.extra_keys(ev, false, true, &mut extra);
                if let Some(serde_json::Value::Object(ci)) = obj.get_mut(PROVENANCE_KEY) {
                    let mut marker = b"{".to_vec();
                    self.write_marker(ev, &mut marker);
                    marker.push(b'}');
                    // The marker is our own valid JSON.
                    if let Ok(serde_json::Value::Object(m)) = serde_json::from_slice(&marker) {
                        ci.extend(m);
                    }
                    body = serde_json::to_vec(&obj).unwrap_or(body);
                }
                let room = max.saturating_sub(extra.len() + 1);
                // With a projected `data`, only it is shrunk (its direct members
                // are the protected ones) and the envelope is never cut; a
                // record without `data` is shrunk as a whole, as before.
                let cut = if let Some(data) = obj.get_mut("data") {
                    let data_len = serde_json::to_vec(&*data).map_or(0, |d| d.len());
                    let others = body.len().saturating_sub(data_len);
                    let cut = truncate::shrink_data(data, room.saturating_sub(others));
                    body = serde_json::to_vec(&obj).unwrap_or(body);
                    cut
                } else {
                    let mut v = serde_json::Value::Object(obj.clone());
                    let cut = truncate::shrink_data(&mut v, room);
                    body = serde_json::to_vec(&v).unwrap_or(body);
                    cut
                };
                if cut == truncate::Cut::default() {
                    // Nothing could be cut: printed without the marker.
                    if let Some(p) = piped_ci {
                        obj.insert(PROVENANCE_KEY.into(), p);
                    }
                    extra.clear();
                    self.extra_keys(ev, false, false, &mut extra);
                    body = serde_json::to_vec(&obj).unwrap_or(body);
                }
            }
        }
        if body.len() >= 2 {
            out.extend_from_slice(&body[..body.len() - 1]);
            if !extra.is_empty() {
                if body.len() > 2 {
                    out.push(b',');
                }
                out.extend_from_slice(extra.as_slice());
            }
            out.extend_from_slice(b"}\n");
        }
    }
}

/// Whether a raw top-level key is one of [`ENVELOPE`]: never cut (nor `ci`,
/// which is ours). Every other member's value is content, shrunk like `data`.
fn is_envelope(key: &[u8]) -> bool {
    ENVELOPE.iter().any(|e| crate::json::key_eq(key, e))
}

/// Shrinks a raw value to at most `room` bytes where possible.
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
