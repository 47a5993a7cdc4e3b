//! Records printed cut, made whole again from their lines: the stream between
//! ci-* tools is exact.
//!
//! A record printed over the byte budget says so in its provenance:
//! `"ci":{…,"cut":{"offset":O,"bytes":L,"xxh3":H}}` ([`crate::output::write_cut`]):
//! where its line is in `ci.path` and the hash of that line. A tool reading
//! such a record from stdin never works on the cut text: [`Reread::fetch`]
//! reads the `L` bytes at offset `O` again (for a JSON array file, the
//! element that starts there), checks that they hash to `H`, and rebuilds the
//! record ([`Reread::build`]) as the first tool would have printed it with `--full`: a line as
//! written plus the keys the first tool added, each member of a re-serialised
//! line (one with its own `ci`) from the line's member, a derived record's
//! `data` made again by its writer, a projection projected again from the
//! line (its marker names the paths), and `ci` without the marker. When the line cannot be read
//! again (the file is gone, shorter, or the line changed) the record is
//! reported, with its stream line, and dropped: the run ends with exit 2.
//!
//! A record that was cut by a tool that got it whole from a pipe carries
//! `"cut":true`: it has no line to go back to and is reported the same way.

use std::borrow::Cow;
use std::fs::File;

use crate::elements::ElementReader;

use crate::format::{self, Format, ReadState};
use crate::json::{decode_str, key_eq, Index, Kind, Path, Raw, Record};
use crate::lines::documents::Document;
use crate::lines::rows::Table;
use crate::lines::{Framing, Site};
use crate::output::EventPrinter;
use crate::record::{line_hash, Event, ENVELOPE, PROVENANCE_KEY, TOOL_KEY};

/// Where a cut record says its line is.
struct Marker<'a> {
    path: Cow<'a, str>,
    line: u64,
    part: Option<u32>,
    site: Site,
    hash: u64,
    fields: Option<Vec<Path>>,
    writer: Option<&'static Format>,
}

/// A worker's re-reader of cut records: it keeps the last file it read from
/// open (a cut record is usually followed by others of the same capture).
#[derive(Default)]
pub struct Reread {
    open: Option<(String, File)>,
    /// The last database a cut row was read from.
    open_db: Option<(String, rusqlite::Connection)>,
    line: Vec<u8>,
    idx: Index,
    state: ReadState,
    full: Vec<u8>,
    /// The part of its line the fetched record is.
    part: Option<u32>,
    /// The paths of a fetched projection, and its writer.
    fields: Option<Vec<Path>>,
    writer: Option<&'static Format>,
    /// The path and byte offset of the fetched record's line.
    at: (String, u64),
    /// The index of the line's record for a projection.
    whole_idx: Index,
    whole: Vec<u8>,
    /// The capture read up to a line whose event is made from the lines
    /// before it ([`Replay`]).
    replay: Option<Replay>,
}

/// A capture's lines observed in order up to a line whose event's `data`
/// its writer makes from the lines before it (a Codex response's usage), as
/// the tool that printed the match read them: kept, so that the next such
/// line further on goes on from here.
struct Replay {
    path: String,
    lines: crate::lines::LineReader<File>,
    idx: Index,
    state: ReadState,
    /// Where the next line to observe starts.
    at: u64,
}

impl Replay {
    /// Observes the lines of `path` up to and including the one at
    /// `offset`, going on from `replay` when it is there before it.
    fn to<'r>(
        replay: &'r mut Option<Replay>,
        path: &str,
        offset: u64,
        fmt: &dyn format::Dialect,
    ) -> Result<&'r ReadState, String> {
        if replay.as_ref().is_none_or(|r| r.path != path || r.at > offset) {
            let file = crate::files::open_regular(std::path::Path::new(path)).map_err(|e| e.to_string())?;
            let lines = crate::lines::LineReader::new(file);
            *replay =
                Some(Replay { path: path.to_owned(), lines, idx: Index::new(), state: ReadState::default(), at: 0 });
        }
        let Some(r) = replay.as_mut() else { return Err("not open".into()) };
        loop {
            let line = match r.lines.next_line() {
                Ok(Some(line)) => line,
                Ok(None) => return Err("the line is no longer in the file".into()),
                Err(e) => return Err(e.to_string()),
            };
            r.at = line.site.offset + line.site.len + 1;
            if line.site.offset > offset {
                return Err("the line is no longer in the file".into());
            }
            let target = line.site.offset == offset;
            if target || fmt.observes(line.bytes) {
                if let Ok(rec) = r.idx.skim(line.bytes) {
                    if fmt.accept(&rec).is_ok() {
                        fmt.observe(&rec, &mut r.state);
                    }
                }
            }
            if target {
                return Ok(&r.state);
            }
        }
    }
}

impl Reread {
    /// When `rec` is a cut record, reads its line again ([`Reread::line`])
    /// and checks it, and returns where it is and its hash; `Ok(None)` for a
    /// record that is not cut; `Err` with the reason when the line cannot be
    /// read again. [`Reread::build`] then makes the record whole.
    pub fn fetch(&mut self, rec: &Record<'_>) -> Result<Option<(Site, u64)>, String> {
        let Some(ci) = rec.get(PROVENANCE_KEY) else { return Ok(None) };
        let Some(cut) = ci.get("cut") else { return Ok(None) };
        let m = marker(ci, cut)?;
        let changed = || format!("{}:{}: the line changed since this record was printed cut", m.path, m.line);
        if !self.read_line(&m)? || line_hash(&self.line) != m.hash {
            return Err(changed());
        }
        // The hash is no signature (a marker can be forged): the line is
        // checked as a read from the capture checks it.
        if let Err(e) = crate::json::validate(&self.line) {
            return Err(format!("{}:{}: the line read again is not a record: {e}", m.path, m.line));
        }
        self.part = m.part;
        self.fields = m.fields;
        self.writer = m.writer;
        self.at = (m.path.into_owned(), m.site.offset);
        Ok(Some((m.site, m.hash)))
    }

    /// The line [`Reread::fetch`] read.
    pub fn line(&self) -> &[u8] {
        &self.line
    }

    /// Makes the cut record `rec`, whose line [`Reread::fetch`] read, whole
    /// ([`Reread::full`]); `Err` with the reason when it cannot be.
    pub fn build(&mut self, rec: &Record<'_>) -> Result<(), String> {
        let Self { idx, line, state, full, part, fields, writer, whole_idx, whole, replay, at, .. } = self;
        let here = || {
            let ci = rec.get(PROVENANCE_KEY);
            let path = ci.and_then(|c| c.get("path")).and_then(|p| p.as_str()).unwrap_or_default();
            format!("{path}:{}", ci.and_then(|c| c.get("line")).and_then(as_u64).unwrap_or(0))
        };
        // Skimmed, not validated again: [`Reread::fetch`] validated them.
        let orig = idx.skim(line).map_err(|e| format!("{}: the line read again is not a record: {e}", here()))?;
        let format = writer.unwrap_or_else(|| format::of_record(rec));
        let fmt = format.dialect;
        full.clear();
        full.push(b'{');
        if format.profile.derived {
            state.clear();
            if fmt.observes(line) {
                fmt.observe(&orig, state);
            }
            // An event whose data its writer makes (a Codex token count's
            // usage from the lines before it, a Qwen response's from its
            // line): those lines are read again too.
            let state = match state.line_data.is_empty() {
                true => &*state,
                false => Replay::to(replay, &at.0, at.1, fmt).map_err(|e| format!("{}: {e}", here()))?,
            };
            let data = fmt.data(&orig, part.unwrap_or(0), state);
            if let Some(fields) = fields {
                // The normalised record the projection picked from.
                whole.clear();
                whole.extend_from_slice(b"{\"event\":");
                whole.extend_from_slice(rec.get("event").map_or(&b"null"[..], |e| e.bytes()));
                whole.extend_from_slice(b",\"data\":");
                whole.extend_from_slice(data.map_or(&b"null"[..], |d| d.bytes()));
                whole.push(b'}');
                let w = whole_idx.skim(whole).map_err(|e| format!("{}: {e}", here()))?;
                project(full, rec, &w, fields);
                return Ok(());
            }
            for (i, (key, value)) in rec.members().enumerate() {
                let filled = (key_eq(key, "data")).then_some(data).flatten();
                member(full, i, key, value, filled);
            }
        } else if let Some(fields) = fields {
            project(full, rec, &orig, fields);
            return Ok(());
        } else if orig.get(PROVENANCE_KEY).is_none() {
            // As the first tool prints a whole line: the line as written, then
            // the keys it added (a filled-in workspace, `ci` without the marker).
            full.clear();
            full.extend_from_slice(line[..orig.close()].trim_ascii_end());
            let added = rec.members().filter(|(k, _)| get_raw(orig.members(), k).is_none());
            for (i, (key, value)) in (usize::from(!orig.is_empty())..).zip(added) {
                member(full, i, key, value, None);
            }
            full.push(b'}');
            return Ok(());
        } else {
            // A line with its own `ci`, re-serialised by the printer: its
            // members in order (its `ci` renamed `ci_original`, all but the
            // last of repeated `data` keys dropped), then the keys it added.
            // So the cut record's members are filled from the line's by
            // position, whatever their names.
            let last_data = orig.members().enumerate().filter(|(_, (k, _))| key_eq(k, "data")).last().map(|(i, _)| i);
            let mut line_members = orig
                .members()
                .enumerate()
                .filter(|(i, (k, _))| !key_eq(k, "data") || Some(*i) == last_data)
                .map(|(_, m)| m);
            for (i, (key, value)) in rec.members().enumerate() {
                let filled = match line_members.next() {
                    Some((k, v)) if !ENVELOPE.iter().any(|e| key_eq(k, e)) => Some(v),
                    _ => None,
                };
                member(full, i, key, value, filled);
            }
        }
        full.push(b'}');
        Ok(())
    }

    /// Makes the event that the ci-grep match record `rec` stands for, whose
    /// line (at `site`) [`Reread::fetch`] read, as `ci-cat --full` prints it
    /// from the capture ([`Reread::full`]): the line read through the writer
    /// its marker names, with the match record's event name (a derived name
    /// may depend on the lines before it) and workspace (a session's
    /// fallback for lines without one), and its `ci` without the marker.
    /// `Err` with the reason when it cannot be made.
    pub fn build_match(&mut self, rec: &Record<'_>, site: Site) -> Result<(), String> {
        let Self { idx, line, state, full, part, writer, replay, .. } = self;
        let ci = rec.get(PROVENANCE_KEY);
        let text = |key: &str| ci.and_then(|c| c.get(key)).and_then(|v| v.as_str()).map(Cow::into_owned);
        let (session, path) = (text("session"), text("path").unwrap_or_default());
        let number = ci.and_then(|c| c.get("line")).and_then(as_u64).unwrap_or(0);
        let here = format!("{path}:{number}");
        let orig = idx.skim(line).map_err(|e| format!("{here}: the line read again is not a record: {e}"))?;
        let writer = writer.unwrap_or(crate::format::PLAIN);
        let fmt = writer.dialect;
        state.clear();
        if fmt.observes(line) {
            fmt.observe(&orig, state);
        }
        // A call's end that does not name its tool has it from its start, an
        // earlier line: the match record carries it ([`TOOL_KEY`]).
        if let Some(tool) = rec.get(TOOL_KEY).filter(|t| t.kind() == Kind::String) {
            let id = match fmt.data(&orig, part.unwrap_or(0), state).map(|d| fmt.call_key(d)) {
                Some(format::CallKey::Id(id)) => Some(id.into_owned()),
                _ => None,
            };
            if let Some(id) = id {
                state.call_started(&id, tool);
            }
        }
        // An event made from the lines before it (a Codex response's usage):
        // those lines are read again too.
        let state = match state.line_data.is_empty() {
            true => &*state,
            false => Replay::to(replay, &path, site.offset, fmt).map_err(|e| format!("{here}: {e}"))?,
        };
        let capture = crate::session::Capture {
            session: session.unwrap_or_default(),
            path: path.clone().into(),
            display: path.clone(),
            workspace: rec.get_str("workspace").map(Cow::into_owned),
            format: writer,
            record: None,
            files: Vec::new(),
        };
        let name = rec.get_str("event").map(Cow::into_owned).unwrap_or_default();
        let ev = Event::read(orig, &capture, number, &path, *part, state, site).named(name);
        full.clear();
        EventPrinter::default().write(&ev, full);
        full.pop(); // its newline
        Ok(())
    }

    /// The record [`Reread::build`] made.
    pub fn full(&self) -> &[u8] {
        &self.full
    }

    /// Reads the line the marker names into `self.line`; `Ok(false)` when
    /// the bytes there cannot be the line the marker hashes. Nothing is
    /// allocated for bytes not checked first ([`scan`]): a marker names any
    /// length its file has (a sparse file's terabyte too).
    fn read_line(&mut self, m: &Marker<'_>) -> Result<bool, String> {
        if let Framing::Row(table) = m.site.framing {
            return self.read_row(m, table);
        }
        if let Framing::Document(doc) = m.site.framing {
            return self.read_document(m, doc);
        }
        let fail = |e: &dyn std::fmt::Display| format!("{}:{}: cannot read the line again: {e}", m.path, m.line);
        if self.open.as_ref().is_none_or(|(p, _)| *p != m.path) {
            let file = crate::files::open_regular(std::path::Path::new(m.path.as_ref())).map_err(|e| fail(&e))?;
            self.open = Some((m.path.clone().into_owned(), file));
        }
        let Some((_, file)) = &self.open else { return Err(fail(&"not open")) };
        let size = file.metadata().map_err(|e| fail(&e))?.len();
        let Some(end) = m.site.offset.checked_add(m.site.len).filter(|end| *end <= size) else {
            return Err(fail(&"the file is shorter than when the record was printed"));
        };
        self.line.clear();
        if m.site.framing == Framing::Element {
            // An element is hashed compacted: the bytes on disk are checked,
            // then the element read from them, never past its span.
            if !scan(file, m.site, None).map_err(|e| fail(&e))? {
                return Ok(false);
            }
            let mut rdr = ElementReader::new(Upto { file, at: 0, end });
            rdr.set_max_line(crate::lines::max_line());
            rdr.seek_element(m.site.offset, m.line, 1, m.site.len).map_err(|e| fail(&e))?;
            match rdr.next_element() {
                Ok(Some(el)) if el.too_long => return Err(fail(&crate::lines::TooLong)),
                Ok(Some(el)) => self.line.extend_from_slice(el.bytes),
                Ok(None) => return Err(fail(&"no element starts there")),
                Err(crate::elements::ReadError::Io(e)) => return Err(fail(&e)),
                Err(crate::elements::ReadError::Array(_)) => return Err(fail(&"no whole element starts there")),
            }
        } else {
            if m.site.len > crate::lines::max_line() as u64 {
                return Err(fail(&crate::lines::TooLong));
            }
            let mut hasher = xxhash_rust::xxh3::Xxh3::new();
            if !scan(file, m.site, Some(&mut hasher)).map_err(|e| fail(&e))? || hasher.digest() != m.hash {
                return Ok(false);
            }
            // Verified: the first tool held these very bytes as one line.
            self.line.resize(m.site.len as usize, 0);
            read_exact_at(file, &mut self.line, m.site.offset).map_err(|e| fail(&e))?;
        }
        Ok(true)
    }
}

impl Reread {
    /// Reads the row the marker names into `self.line` ([`crate::lines::rows`]);
    /// `Ok(false)` when it is not the record the marker hashes.
    fn read_row(&mut self, m: &Marker<'_>, table: &'static Table) -> Result<bool, String> {
        let fail = |e: &dyn std::fmt::Display| format!("{}:{}: cannot read the row again: {e}", m.path, m.line);
        if self.open_db.as_ref().is_none_or(|(p, _)| *p != m.path) {
            let conn = crate::lines::rows::open(std::path::Path::new(m.path.as_ref())).map_err(|e| fail(&e))?;
            self.open_db = Some((m.path.clone().into_owned(), conn));
        }
        let Some((_, conn)) = &self.open_db else { return Err(fail(&"not open")) };
        if !crate::lines::rows::read_row(conn, table, m.site.offset as i64, &mut self.line).map_err(|e| fail(&e))? {
            return Err(fail(&format_args!("no row {} in table {}", m.site.offset as i64, table.name)));
        }
        Ok(self.line.len() as u64 == m.site.len && line_hash(&self.line) == m.hash)
    }
}

impl Reread {
    /// Reads the document the marker names into `self.line`
    /// ([`crate::lines::documents`]); `Ok(false)` when the file's length or
    /// the record's hash is not the marker's.
    fn read_document(&mut self, m: &Marker<'_>, doc: &'static Document) -> Result<bool, String> {
        let fail = |e: &dyn std::fmt::Display| format!("{}:{}: cannot read the document again: {e}", m.path, m.line);
        let path = std::path::Path::new(m.path.as_ref());
        // A file of another length is not read (a forged marker costs a stat).
        if std::fs::metadata(path).map_err(|e| fail(&e))?.len() != m.site.len {
            return Ok(false);
        }
        match crate::lines::documents::read(path, doc, &mut self.line).map_err(|e| fail(&e))? {
            None => Err(fail(&crate::lines::TooLong)),
            Some(len) => Ok(len == m.site.len && line_hash(&self.line) == m.hash),
        }
    }
}

/// Reads the `site` bytes of `file` a chunk at a time, keeping none (into
/// `hasher` when given); false at the first byte no record holds raw: a
/// control byte other than tab and CR, or a newline in a line (an array's
/// element may span lines). So checking a forged site costs at most one
/// line of the file and a chunk, however long the site says it is.
fn scan(file: &File, site: Site, mut hasher: Option<&mut xxhash_rust::xxh3::Xxh3>) -> std::io::Result<bool> {
    const CHUNK: u64 = 64 * 1024;
    let mut buf = vec![0u8; CHUNK.min(site.len) as usize];
    let raw = |b: &u8| *b < 0x20 && !matches!(b, b'\t' | b'\r') && !(site.framing == Framing::Element && *b == b'\n');
    let mut done = 0;
    while done < site.len {
        let n = CHUNK.min(site.len - done) as usize;
        read_exact_at(file, &mut buf[..n], site.offset + done)?;
        if buf[..n].iter().any(raw) {
            return Ok(false);
        }
        if let Some(h) = hasher.as_deref_mut() {
            h.update(&buf[..n]);
        }
        done += n as u64;
    }
    Ok(true)
}

/// A file read no further than `end` (the end of an element's span).
struct Upto<'a> {
    file: &'a File,
    at: u64,
    end: u64,
}

impl std::io::Read for Upto<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let room = usize::try_from(self.end.saturating_sub(self.at)).unwrap_or(usize::MAX).min(buf.len());
        let mut file = self.file;
        let n = file.read(&mut buf[..room])?;
        self.at += n as u64;
        Ok(n)
    }
}

impl std::io::Seek for Upto<'_> {
    fn seek(&mut self, to: std::io::SeekFrom) -> std::io::Result<u64> {
        let mut file = self.file;
        self.at = file.seek(to)?;
        Ok(self.at)
    }
}

/// Whether a raw line may be a cut record (a cheap test for lines a tool's
/// pre-check would skip: the pre-check saw only the cut text).
pub fn maybe_cut(raw: &[u8]) -> bool {
    // Forward, though the marker sits near the end: memchr's forward
    // searcher has a SIMD prefilter, its reverse one has none (about 4x
    // slower over lines without a marker, the common case).
    static FINDER: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"\"cut\":"));
    FINDER.find(raw).is_some()
}

/// Reads the marker `cut` of the provenance `ci`.
fn marker<'a>(ci: Raw<'a>, cut: Raw<'a>) -> Result<Marker<'a>, String> {
    let path = ci.get("path").and_then(|p| p.as_str());
    let line = ci.get("line").and_then(as_u64);
    let here = match (&path, line) {
        (Some(p), Some(l)) => format!("{p}:{l}"),
        _ => "this record".to_owned(),
    };
    if cut.kind() != Kind::Object {
        return Err(format!(
            "{here}: the record was cut by a tool that read it whole from a pipe, so its line is not known; \
             print it with a larger --max-bytes (or --full) there"
        ));
    }
    let bad = || format!("{here}: the record's cut marker is damaged, so its line cannot be read again");
    let num = |k: &str| cut.get(k).and_then(as_u64);
    let hash = cut.get("xxh3").and_then(|h| h.as_str()).and_then(|h| u64::from_str_radix(&h, 16).ok());
    let fields = match cut.get("fields") {
        None => None,
        Some(list) => {
            let paths: Option<Vec<Path>> =
                list.items().map(|p| p.as_str().and_then(|p| Path::parse(&p).ok())).collect();
            Some(paths.ok_or_else(bad)?)
        }
    };
    let writer = match cut.get("writer").map(|w| w.as_str()) {
        None => None,
        Some(name) => Some(name.as_deref().and_then(Format::named).ok_or_else(bad)?),
    };
    // A row: its table (one of its writer's) and rowid stand for the offset.
    let (offset, framing) = match cut.get("table") {
        Some(name) => {
            let name = name.as_str().ok_or_else(bad)?;
            let table = writer.and_then(|w| w.profile.tables.iter().find(|t| t.name == name)).ok_or_else(bad)?;
            let rowid = cut.get("rowid").and_then(|r| r.as_f64()).filter(|r| r.fract() == 0.0 && r.abs() < 9.0e15);
            (rowid.map(|r| r as i64 as u64), Framing::Row(table))
        }
        // A document: its kind (one of its writer's); the file is the record.
        None if cut.get("document").is_some() => {
            let name = cut.get("document").and_then(|n| n.as_str()).ok_or_else(bad)?;
            let doc = writer.and_then(|w| w.profile.documents.iter().find(|d| d.name == name)).ok_or_else(bad)?;
            (Some(0), Framing::Document(doc))
        }
        None if cut.get("element").and_then(|e| e.as_bool()) == Some(true) => (num("offset"), Framing::Element),
        None => (num("offset"), Framing::Line),
    };
    match (path, line, offset, num("bytes"), hash) {
        (Some(path), Some(line), Some(offset), Some(len), Some(hash)) => Ok(Marker {
            fields,
            writer,
            path,
            line,
            part: ci.get("part").and_then(as_u64).and_then(|p| u32::try_from(p).ok()),
            site: Site { offset, len, framing },
            hash,
        }),
        _ => Err(bad()),
    }
}

/// Writes the projection on `fields` of the record `whole` (the line, or a
/// derived line's normalised record) made whole again, closing `out`'s
/// object: the picked members in their order, the envelope and any member
/// `whole` does not have as the cut record `rec` printed them (the filled-in
/// workspace, a hook's original name), then `ci` without its marker.
fn project(out: &mut Vec<u8>, rec: &Record<'_>, whole: &Record<'_>, fields: &[Path]) {
    let picked = crate::pick::pick(&crate::record::Event::piped(*whole, 0, "-"), fields);
    let mut i = 0;
    for (key, value) in &picked {
        let own = rec.get(key).filter(|_| ENVELOPE.contains(&key.as_str()) || whole.get(key).is_none());
        let bytes = match own {
            Some(raw) => raw.bytes().to_vec(),
            None => serde_json::to_vec(value).unwrap_or_else(|_| b"null".to_vec()),
        };
        let mut k = Vec::with_capacity(key.len() + 2);
        crate::json::write::json_str(&mut k, key);
        member(out, i, &k[1..k.len() - 1], Raw(&bytes), None);
        i += 1;
    }
    if let Some(ci) = rec.get(PROVENANCE_KEY) {
        member(out, i, PROVENANCE_KEY.as_bytes(), ci, None);
    }
    out.push(b'}');
}

/// A non-negative integer value.
fn as_u64(v: Raw<'_>) -> Option<u64> {
    std::str::from_utf8(v.bytes()).ok()?.parse().ok()
}

/// Writes member `i` of the rebuilt record: `value`, or with what the line
/// has for it (`filled`) filled in; `ci` loses its cut marker.
fn member(out: &mut Vec<u8>, i: usize, key: &[u8], value: Raw<'_>, filled: Option<Raw<'_>>) {
    if i > 0 {
        out.push(b',');
    }
    out.push(b'"');
    out.extend_from_slice(key);
    out.extend_from_slice(b"\":");
    if key_eq(key, PROVENANCE_KEY) {
        without_cut(out, value);
        return;
    }
    // Cutting only shortens strings and elides items and members (and a
    // re-serialised object loses its repeated keys): what a cut member
    // stands for is the line's member, as written.
    out.extend_from_slice(filled.unwrap_or(value).bytes());
}

/// The provenance object without its `cut` member.
fn without_cut(out: &mut Vec<u8>, ci: Raw<'_>) {
    out.push(b'{');
    let mut first = true;
    for (key, value) in ci.members().filter(|(k, _)| !key_eq(k, "cut")) {
        if !first {
            out.push(b',');
        }
        first = false;
        out.push(b'"');
        out.extend_from_slice(key);
        out.extend_from_slice(b"\":");
        out.extend_from_slice(value.bytes());
    }
    out.push(b'}');
}

/// The last member whose (raw) key decodes to the same key as `key`.
fn get_raw<'a>(members: impl Iterator<Item = (&'a [u8], Raw<'a>)>, key: &[u8]) -> Option<Raw<'a>> {
    members.filter(|(k, _)| same_key(k, key)).last().map(|(_, v)| v)
}

/// Whether two raw keys decode to the same text (escapes may differ: one
/// side may have been re-serialised).
fn same_key(a: &[u8], b: &[u8]) -> bool {
    a == b || (a.contains(&b'\\') || b.contains(&b'\\')) && decode_str(a).is_some_and(|a| decode_str(b) == Some(a))
}

#[cfg(unix)]
fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

#[cfg(not(unix))]
fn read_exact_at(mut file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    file.seek(SeekFrom::Start(offset))?;
    file.read_exact(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A record whose marker says its line is `len` bytes at `offset` of
    /// `path`, hashing to `hash`.
    fn marked(path: &std::path::Path, offset: u64, len: u64, hash: u64) -> String {
        let cut = serde_json::json!({"offset": offset, "bytes": len, "xxh3": format!("{hash:016x}")});
        serde_json::json!({"event": "e:x", "data": {}, "ci": {"path": path, "line": 1, "cut": cut}}).to_string()
    }

    proptest::proptest! {
        /// Any marker on any bytes (forged: the right hash of bytes that are
        /// no line, or any hash): a line is fetched only when its bytes hash
        /// as the marker says and are one valid record, and then it is
        /// exactly those bytes.
        #[test]
        fn a_forged_marker_fetches_only_a_valid_line(
            bytes in proptest::collection::vec(proptest::sample::select(b"{}\"e:x,[]01\\q\n\t\x01 ".to_vec()), 0..200),
            at in 0usize..200,
            len in 0usize..200,
            right_hash in proptest::bool::ANY,
        ) {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("f.jsonl");
            std::fs::write(&path, &bytes).unwrap();
            let (at, len) = (at.min(bytes.len()), len.min(bytes.len() - at.min(bytes.len())));
            let range = &bytes[at..at + len];
            let hash = if right_hash { line_hash(range) } else { line_hash(range) ^ 1 };
            let text = marked(&path, at as u64, len as u64, hash);
            let mut idx = Index::new();
            let rec = idx.parse(text.as_bytes()).unwrap();
            let mut r = Reread::default();
            let fetched = r.fetch(&rec);
            let valid = right_hash && !range.contains(&b'\n') && crate::json::validate(range).is_ok();
            proptest::prop_assert_eq!(fetched.is_ok(), valid, "{:?}", fetched);
            if valid {
                proptest::prop_assert_eq!(r.line(), range);
            }
        }
    }
}
