//! How reading a file's lines ended: where its whole lines stop and what
//! follows them, what a reader keeping what it read (the cache) records.

/// How reading a capture's one file ended, for a visitor that keeps what it
/// read ([`Visitor::read_end`](crate::source::Visitor::read_end)): the
/// file, how far its whole lines went, and what was after the last one.
pub struct ReadEnd<'f> {
    /// Which of the capture's files it is
    /// ([`Capture::files`](crate::session::Capture::files) order; 0 for a
    /// capture of one file); `files.len()` for the session's companion file,
    /// read after them
    /// ([`Visitor::companions`](crate::source::Visitor::companions)).
    pub index: usize,
    /// The file read (still open, at its end).
    pub file: &'f std::fs::File,
    /// The offset after the last `\n`-terminated line (where reading would
    /// go on; 0 when no line ended).
    pub whole: u64,
    /// Where that last whole line starts, if any line ended.
    pub last_line_at: Option<u64>,
    /// The number of that line (the lines before `whole`).
    pub lines: u64,
    /// What came after it.
    pub tail: Tail,
}

/// The bytes after a file's last whole line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tail {
    /// None: the file ends with a newline (or is empty).
    None,
    /// An unfinished line, held back (not read as an event).
    Held,
    /// An unfinished line that was read: an event, or reported as bad.
    Read,
}
