//! Reading only some lines of a file, each at its place ([`super::Pick`]):
//! the lines a visitor's index says can matter, read with one positioned
//! read each, numbered and placed as a whole read would number and place
//! them.

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;

use crate::lines::{Line, LineSource, Site};

/// The picked lines of one file, as a [`LineSource`].
pub(super) struct Picked<'a> {
    file: &'a File,
    lines: std::slice::Iter<'a, (u64, Site)>,
    buf: Vec<u8>,
    number: u64,
}

impl<'a> Picked<'a> {
    /// The `lines` of `file`, read into `buf` (a worker's reused buffer).
    pub(super) fn new(file: &'a File, lines: &'a [(u64, Site)], buf: Vec<u8>) -> Picked<'a> {
        Picked { file, lines: lines.iter(), buf, number: 0 }
    }

    /// The buffer back.
    pub(super) fn into_buffer(self) -> Vec<u8> {
        self.buf
    }
}

impl LineSource for Picked<'_> {
    /// The next picked line. A file that no longer holds it whole (it
    /// shrank since it was indexed, which the index's identity check rules
    /// out unless it shrank since) is an error, not a short line.
    fn next_line(&mut self) -> io::Result<Option<Line<'_>>> {
        let Some(&(number, site)) = self.lines.next() else {
            return Ok(None);
        };
        if site.len > crate::lines::max_line() as u64 {
            self.number = number;
            return Ok(Some(Line { bytes: &[], number, site, terminated: true, too_long: true }));
        }
        // An error names this line (`path:N:`, from the line before it).
        self.number = number.saturating_sub(1);
        let len = usize::try_from(site.len).map_err(|_| io::Error::other("line too long"))?;
        self.buf.clear();
        self.buf.resize(len, 0);
        self.file.read_exact_at(&mut self.buf, site.offset).map_err(|e| match e.kind() {
            io::ErrorKind::UnexpectedEof => io::Error::other("the file is shorter than when it was indexed"),
            _ => e,
        })?;
        self.number = number;
        Ok(Some(Line { bytes: &self.buf, number, site, terminated: true, too_long: false }))
    }

    fn next_complete_line(&mut self) -> io::Result<Option<Line<'_>>> {
        self.next_line()
    }

    fn line_number(&self) -> u64 {
        self.number
    }
}
