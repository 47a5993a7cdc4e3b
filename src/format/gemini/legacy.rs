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

/// The document's keys before `messages` (at most its first 64 KiB), as a
/// JSON object: what discovery reads of a legacy session.
pub(super) fn head(file: &Path) -> Option<serde_json::Value> {
    let f = crate::files::open_regular(file).ok()?;
    let mut text = Vec::new();
    io::Read::read_to_end(&mut io::Read::take(f, 64 * 1024), &mut text).ok()?;
    let at = memchr::memmem::find(&text, b"\"messages\"").unwrap_or(text.len());
    let before = text[..at].trim_ascii_end();
    let before = before.strip_suffix(b",").unwrap_or(before);
    let mut object = before.to_vec();
    if at < text.len() {
        object.push(b'}');
    }
    serde_json::from_slice(&object).ok().filter(serde_json::Value::is_object)
}
