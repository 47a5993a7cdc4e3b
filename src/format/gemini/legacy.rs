//! Legacy recordings (before v0.39): one pretty-printed JSON document per
//! session, `{"sessionId", "projectHash", "startTime", "lastUpdated",
//! "messages": [...], "kind"}`, rewritten whole on every change. Each
//! member of `messages` is a record whose provenance is its byte range in
//! the file ([`crate::elements::ElementReader::nested`]).

use std::io;
use std::path::Path;

use crate::diag::Diag;
use crate::elements::{ElementReader, ReadError};
use crate::lines::{Line, LineSource};

/// The key of the document's list of messages.
const MESSAGES: &str = "messages";

/// `<something>.json`.
pub(super) fn is_legacy_name(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "json")
}

/// The members of a legacy document's `messages`, as compact lines; a
/// damaged document is reported (naming its site) and read up to the damage.
pub(super) struct Members<'d> {
    reader: ElementReader<std::fs::File>,
    display: String,
    diag: &'d Diag,
    number: u64,
}

impl<'d> Members<'d> {
    /// The members of `file` (shown as `display`); `None` when it cannot be
    /// opened (reported).
    pub(super) fn open(file: &Path, display: &str, diag: &'d Diag) -> Option<Members<'d>> {
        match crate::files::open_regular(file) {
            Ok(f) => {
                let mut reader = ElementReader::nested(f, MESSAGES);
                reader.set_max_line(crate::lines::max_line());
                Some(Members { reader, display: display.to_owned(), diag, number: 0 })
            }
            Err(e) => {
                diag.error(&format_args!("{display}: {e}"));
                None
            }
        }
    }
}

impl LineSource for Members<'_> {
    fn next_line(&mut self) -> io::Result<Option<Line<'_>>> {
        match self.reader.next_element() {
            Ok(Some(el)) => {
                self.number = el.line;
                Ok(Some(Line::of_element(el)))
            }
            Ok(None) => Ok(None),
            Err(ReadError::Io(e)) => Err(e),
            Err(ReadError::Array(e)) => {
                self.diag.error(&format_args!("{}: {}: {e}", self.display, e.site()));
                Ok(None)
            }
        }
    }

    /// Documents are rewritten whole, never appended to.
    fn next_complete_line(&mut self) -> io::Result<Option<Line<'_>>> {
        self.next_line()
    }

    fn line_number(&self) -> u64 {
        self.number
    }
}

/// How much of a document's start (and of what follows its `messages`)
/// discovery reads.
pub(super) const HEAD: usize = 64 * 1024;

/// The document's keys but `messages`, as a JSON object: what discovery
/// reads of a legacy session. Those before `messages` are in its first
/// 64 KiB; when they hold no `sessionId` (a document written with its keys
/// sorted, `messages` before `projectHash`, `sessionId` and `startTime`),
/// the list is skipped (streamed, not kept) and the keys after it are read,
/// at most 64 KiB of them.
pub(super) fn head(file: &Path) -> Option<serde_json::Value> {
    let mut f = crate::files::open_regular(file).ok()?;
    let text = read_up_to(&mut f, HEAD)?;
    let Some(at) = memchr::memmem::find(&text, b"\"messages\"") else {
        return object(text);
    };
    let before = text[..at].trim_ascii_end();
    let before = before.strip_suffix(b",").unwrap_or(before);
    let mut object_text = before.to_vec();
    let sorted = object(before.iter().copied().chain(*b"}").collect()).is_some_and(|o| o.get("sessionId").is_none());
    // The keys after the list, from the `,` (or `}`) that ends it.
    let after = sorted.then(|| after_list(&mut f, &text, at + b"\"messages\"".len())).flatten();
    match after {
        Some(rest) if before.ends_with(b"{") => object_text.extend(rest.strip_prefix(b",").unwrap_or(&rest)),
        Some(rest) => object_text.extend(rest),
        None => object_text.push(b'}'),
    }
    object(object_text)
}

/// `text` as a JSON object.
fn object(text: Vec<u8>) -> Option<serde_json::Value> {
    serde_json::from_slice(&text).ok().filter(serde_json::Value::is_object)
}

/// At most `limit` bytes from where `f` is.
pub(super) fn read_up_to(f: &mut std::fs::File, limit: usize) -> Option<Vec<u8>> {
    let mut text = Vec::new();
    io::Read::read_to_end(&mut io::Read::take(f, limit as u64), &mut text).ok()?;
    Some(text)
}

/// What follows the value after the key that ends at `from` in `start`
/// (the file's first bytes, `f` being after them): the value (an array) is
/// skipped byte by byte, its strings' brackets aside; then at most
/// [`HEAD`] bytes are read. `None` when the value is no array or the file
/// ends inside it.
fn after_list(f: &mut std::fs::File, start: &[u8], from: usize) -> Option<Vec<u8>> {
    let colon = from + start[from..].iter().position(|b| !b.is_ascii_whitespace())?;
    let open = colon + 1 + start.get(colon + 1..)?.iter().position(|b| !b.is_ascii_whitespace())?;
    if start[colon] != b':' || start[open] != b'[' {
        return None;
    }
    let mut skip = Skip::default();
    let mut chunk = start[open..].to_vec();
    loop {
        if let Some(end) = skip.through(&chunk) {
            let mut rest = chunk[end..].to_vec();
            rest.truncate(HEAD);
            rest.extend(read_up_to(f, HEAD - rest.len())?);
            return Some(rest);
        }
        chunk = read_up_to(f, HEAD)?;
        if chunk.is_empty() {
            return None;
        }
    }
}

/// Where a scan through one JSON value is: its nesting depth, and whether
/// it is inside a string (just after a backslash).
#[derive(Default)]
struct Skip {
    depth: usize,
    in_str: bool,
    escape: bool,
}

impl Skip {
    /// Scans `bytes`, the next ones of the value: the offset just after its
    /// end, when it ends in them.
    fn through(&mut self, bytes: &[u8]) -> Option<usize> {
        for (i, &b) in bytes.iter().enumerate() {
            match b {
                _ if self.escape => self.escape = false,
                b'\\' if self.in_str => self.escape = true,
                b'"' => self.in_str = !self.in_str,
                _ if self.in_str => {}
                b'[' | b'{' => self.depth += 1,
                b']' | b'}' => {
                    self.depth = self.depth.saturating_sub(1);
                    if self.depth == 0 {
                        return Some(i + 1);
                    }
                }
                _ => {}
            }
        }
        None
    }
}
