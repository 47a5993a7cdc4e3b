//! Files that are one JSON document each as records: the document framing.
//!
//! Some writers keep a record per file (OpenCode's legacy `storage/` tree:
//! a file per session, message and part). Such a file is one record whose
//! [`Site`] is the whole file (offset 0, the file's length) with framing
//! [`Framing::Document`]: the writer's [`Document`], which makes the
//! record's line from the document compacted ([`compact`]) and may add
//! what it reads of files the document names (as a database row's record
//! may name other rows). A document is read again the same way ([`read`]),
//! so a record cut by one tool is made whole by the next; a file whose
//! length changed, or whose record hashes differently, is told.
//!
//! A file that is not JSON is handed on compacted as its line, so the
//! reader reports it as a bad line of that file; one longer than
//! [`super::max_line`] is a bad line too ([`super::TooLong`]), never read.

use std::io::Read as _;
use std::path::Path;

use super::{Framing, Line, LineSource, Site};

/// Writes into `out` (empty) the record of the document at `path`, whose
/// bytes compacted are `doc` (one line); `Err` when it is no document of
/// its kind (not JSON). A function of the files only, so that a re-read
/// makes the same bytes.
pub type MakeRecord = fn(path: &Path, doc: &[u8], out: &mut Vec<u8>) -> Result<(), String>;

/// A kind of document that is one record, and how its record is made.
pub struct Document {
    /// The writer (format name) whose documents they are.
    pub writer: &'static str,
    /// The kind's name (in a cut record's marker).
    pub name: &'static str,
    /// How its record is made.
    pub record: MakeRecord,
}

impl std::fmt::Debug for Document {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Document({}:{})", self.writer, self.name)
    }
}

/// Kinds are told apart by writer and name.
impl PartialEq for Document {
    fn eq(&self, other: &Document) -> bool {
        self.writer == other.writer && self.name == other.name
    }
}

impl Eq for Document {}

/// Removes the JSON whitespace outside strings; strings, numbers and
/// literals stay byte for byte, a raw newline inside a string (invalid
/// JSON anyway) becomes a CR, so the result is one line. A leading UTF-8
/// byte-order mark is dropped.
pub fn compact(doc: &[u8], out: &mut Vec<u8>) {
    let doc = doc.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(doc);
    out.reserve(doc.len());
    let (mut in_str, mut escaped) = (false, false);
    for &b in doc {
        if in_str {
            out.push(if b == b'\n' { b'\r' } else { b });
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_str = false,
                _ => {}
            }
        } else if !matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
            in_str = b == b'"';
            out.push(b);
        }
    }
}

/// Reads the document at `path` as `doc`'s record into `out` (cleared
/// first): `Ok(Some(len))`, the file's length, or `Ok(None)` when it is
/// longer than [`super::max_line`] (not read). A document `doc` refuses is
/// left in `out` compacted.
pub fn read(path: &Path, doc: &Document, out: &mut Vec<u8>) -> std::io::Result<Option<u64>> {
    out.clear();
    // What is not a regular file is never opened (a FIFO would block).
    if !std::fs::metadata(path)?.is_file() {
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a regular file, skipped"));
    }
    let file = std::fs::File::open(path)?;
    let len = file.metadata()?.len();
    if len > super::max_line() as u64 {
        return Ok(None);
    }
    let mut raw = Vec::with_capacity(len as usize);
    file.take(len).read_to_end(&mut raw)?;
    if raw.len() as u64 != len {
        return Err(std::io::Error::other("the file changed while it was read"));
    }
    let mut line = Vec::with_capacity(raw.len());
    compact(&raw, &mut line);
    if (doc.record)(path, &line, out).is_err() {
        out.clear();
        out.extend_from_slice(&line);
    }
    Ok(Some(len))
}

/// The one record of the document at `file`, as a [`LineSource`] (line 1;
/// its site: the whole file, [`Framing::Document`]). A file that cannot be
/// read is reported to `diag` (as `display`) and has no record.
pub fn source<'d>(
    file: &Path,
    display: &str,
    diag: &crate::diag::Diag,
    doc: &'static Document,
) -> Box<dyn LineSource + 'd> {
    let mut buf = Vec::new();
    match read(file, doc, &mut buf) {
        Ok(len) => Box::new(One { doc, len, buf, done: false }),
        Err(e) => {
            diag.error(&format_args!("{display}: {e}"));
            Box::new(super::NoLines)
        }
    }
}

/// One document's record.
struct One {
    doc: &'static Document,
    /// The file's length; `None` for one over the limit.
    len: Option<u64>,
    buf: Vec<u8>,
    done: bool,
}

impl LineSource for One {
    fn next_line(&mut self) -> std::io::Result<Option<Line<'_>>> {
        if std::mem::replace(&mut self.done, true) {
            return Ok(None);
        }
        let site = |len| Site { offset: 0, len, framing: Framing::Document(self.doc) };
        Ok(Some(match self.len {
            Some(len) => Line { bytes: &self.buf, number: 1, site: site(len), terminated: true, too_long: false },
            None => Line { bytes: &[], number: 1, site: site(0), terminated: true, too_long: true },
        }))
    }

    /// A document is read whole (a writer writes it at once).
    fn next_complete_line(&mut self) -> std::io::Result<Option<Line<'_>>> {
        self.next_line()
    }

    fn line_number(&self) -> u64 {
        u64::from(self.done)
    }
}

#[cfg(test)]
mod tests;
