//! Reading a task's `ui_messages.json`, one JSON array the extension
//! rewrites whole on every change: its elements in order, each one compact
//! line ([`crate::elements`]), and a rewrite during the read reported.

use std::fs::File;
use std::io;
use std::path::Path;
use std::time::SystemTime;

use crate::diag::Diag;
use crate::elements::{ArrayError, ElementReader, ReadError};
use crate::lines::{Line, LineSource};

/// The size and modification time of an open file.
fn stamp(file: &File) -> Option<(u64, Option<SystemTime>)> {
    file.metadata().ok().map(|m| (m.len(), m.modified().ok()))
}

/// Why what was read of a file may not be one version of it.
pub(super) const CHANGED: &str = "the file was rewritten while it was read: what was read may mix two versions of it \
                           (some rows missing or counted twice); read it again";

/// The elements of one array file as lines. At its end (or a torn array)
/// the open file's size and time are compared with those it was opened
/// with: a rewrite in place is reported ([`CHANGED`], an error); a file
/// replaced by a rename is still the old one here, read whole. An array cut
/// inside an element (or before its `]`) in a file that did not change is a
/// bad line at the cut element's first line (the elements before it read);
/// any other damage to the array is an error.
pub(super) struct Elements<'d> {
    reader: ElementReader<File>,
    /// The open file (another handle), to tell a rewrite in place.
    file: File,
    /// [`stamp`] when the file was opened.
    before: Option<(u64, Option<SystemTime>)>,
    display: String,
    diag: &'d Diag,
    number: u64,
    done: bool,
}

impl<'d> Elements<'d> {
    /// Opens `path`; an error is reported and gives `None`.
    pub(super) fn open(path: &Path, display: &str, diag: &'d Diag) -> Option<Elements<'d>> {
        let opened = crate::files::open_regular(path).and_then(|f| Ok((f.try_clone()?, f)));
        let (file, read) = match opened {
            Ok(f) => f,
            Err(e) => {
                diag.error(&format_args!("{display}: {e}"));
                return None;
            }
        };
        let mut reader = ElementReader::new(read);
        reader.set_max_line(crate::lines::max_line());
        let before = stamp(&file);
        Some(Elements { reader, file, before, display: display.to_owned(), diag, number: 0, done: false })
    }
}

impl LineSource for Elements<'_> {
    fn next_line(&mut self) -> io::Result<Option<Line<'_>>> {
        if self.done {
            return Ok(None);
        }
        let damage = match self.reader.next_element() {
            Ok(Some(el)) => {
                self.number = el.line;
                return Ok(Some(Line::of_element(el)));
            }
            Ok(None) => None,
            Err(ReadError::Array(e)) => Some(e),
            Err(ReadError::Io(e)) => return Err(e),
        };
        self.done = true;
        match (stamp(&self.file) != self.before, damage) {
            (true, _) => self.diag.error(&format_args!("{}: {CHANGED}", self.display)),
            // The cut element is the damaged record: a bad line at its site.
            (false, Some(e @ (ArrayError::Torn { line, .. } | ArrayError::Unclosed { line, .. }))) => {
                self.diag.bad_line(&self.display, line, &format_args!("{}: {e}", e.site()))
            }
            (false, Some(e)) => self.diag.error(&format_args!("{}:{}: {e}", self.display, e.site())),
            (false, None) => {}
        }
        Ok(None)
    }

    /// The array is rewritten whole, never appended to: every element is complete.
    fn next_complete_line(&mut self) -> io::Result<Option<Line<'_>>> {
        self.next_line()
    }

    fn line_number(&self) -> u64 {
        self.number
    }
}

/// The number of elements of an array file (0 when it cannot be read).
pub(super) fn count(path: &Path) -> u64 {
    let Ok(file) = crate::files::open_regular(path) else { return 0 };
    let mut reader = ElementReader::new(file);
    let mut n = 0;
    while let Ok(Some(_)) = reader.next_element() {
        n += 1;
    }
    n
}
