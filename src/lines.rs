//! A reusable line buffer: complete lines with physical line numbers.
//!
//! One buffer serves a whole file (and can be reused for the next one with
//! [`LineReader::reset`]): only bytes up to a newline are handed out as lines;
//! a partial tail is moved to the front and completed by the next read. The
//! buffer grows only when a single line does not fit, so memory is bounded by
//! the longest line, never by the file.

use std::io::{self, Read};

pub mod documents;
mod end;
pub mod rows;
pub use end::{ReadEnd, Tail};

const INITIAL: usize = 256 * 1024;

/// The most a full buffer's initialised length grows by at once.
const GROW_STEP: usize = 4 << 20;
/// The most bytes asked of one read.
const READ_CHUNK: usize = 256 * 1024;

/// The environment variable that sets the longest record read ([`max_line`]).
pub const MAX_LINE_ENV: &str = "CI_MAX_LINE_BYTES";

/// The default longest record: 256 MiB. The longest lines of real logs
/// (a transcript line with a few base64 images, a tool's whole output) are
/// tens of megabytes; a line past this is damage, and refusing it bounds what
/// one record costs (each reading thread buffers at most one).
pub const DEFAULT_MAX_LINE: usize = crate::elements::DEFAULT_MAX;

/// The longest record (line, array element, re-read line) any reader
/// buffers: `CI_MAX_LINE_BYTES` (a size such as `1024`, `64K`, `256M`), else
/// [`DEFAULT_MAX_LINE`]. A longer record is a bad line ([`TooLong`]),
/// skipped without being buffered. A value that is not a size of at least 1
/// is warned about once and the default used.
pub fn max_line() -> usize {
    static MAX: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *MAX.get_or_init(|| {
        let Ok(v) = std::env::var(MAX_LINE_ENV) else { return DEFAULT_MAX_LINE };
        match crate::units::size(&v).map(usize::try_from) {
            Ok(Ok(n)) if n > 0 => n,
            _ => {
                let prog = std::env::args().next().unwrap_or_default();
                let prog = std::path::Path::new(&prog).file_name().map(|p| p.to_string_lossy().into_owned());
                crate::diag::eprint(format_args!(
                    "{}: warning: {MAX_LINE_ENV}={v:?} is not a size of at least 1 byte; using {DEFAULT_MAX_LINE}",
                    prog.unwrap_or_default()
                ));
                DEFAULT_MAX_LINE
            }
        }
    })
}

/// Why a record over [`max_line`] is a bad line, as reported.
pub struct TooLong;

impl std::fmt::Display for TooLong {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "longer than the limit of {} bytes ({MAX_LINE_ENV}); skipped unread", max_line())
    }
}

/// Whether a line that failed to parse, without a newline after it, is a
/// torn write to hold back until its newline arrives: not when it is blank,
/// and not when its lines end in a bare CR (`{…}\r{…}\r`, a classic Mac
/// file): no newline will ever come, so it is a bad line ([`BadLine`]).
pub fn held_back(bytes: &[u8], terminated: bool, e: &crate::json::ParseError) -> bool {
    !terminated && *e != crate::json::ParseError::Blank && !cr_separated(bytes)
}

/// Whether `bytes` hold records separated by a bare CR.
fn cr_separated(bytes: &[u8]) -> bool {
    memchr::memmem::find(bytes, b"\r{").is_some()
}

/// Why a line is bad, as reported: the parse error, or for records separated
/// by bare CRs, that (with the fix).
pub struct BadLine<'a>(pub &'a [u8], pub &'a crate::json::ParseError);

impl std::fmt::Display for BadLine<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if cr_separated(self.0) {
            f.write_str("its lines end in a bare CR, not a newline (convert them: tr '\\r' '\\n')")
        } else {
            self.1.fmt(f)
        }
    }
}

/// One physical line, without its `\n`.
#[derive(Debug, Clone, Copy)]
pub struct Line<'a> {
    /// The bytes of the line.
    pub bytes: &'a [u8],
    /// 1-based physical line number.
    pub number: u64,
    /// Where the line is in its file ([`Site`]), so that it can be read again.
    pub site: Site,
    /// False for a last line that had no `\n` (still being written, or a file
    /// whose writer left out the final newline).
    pub terminated: bool,
    /// True for a line longer than [`max_line`]: it was skipped without
    /// being buffered, and `bytes` is empty (a bad line, [`TooLong`]).
    pub too_long: bool,
}

/// Where a line is in its file: the byte offset of its first byte and its
/// length there, and how the file is cut into records ([`Framing`]). A
/// record printed with something cut carries it, so a later tool can read
/// the whole line again ([`crate::reread`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Site {
    /// Byte offset of the line's first byte (after a byte-order mark); for
    /// a row, its `rowid`; for a document, 0.
    pub offset: u64,
    /// Its length in the file, in bytes (without the `\n`); for a row, the
    /// length of its record; for a document, the file's length.
    pub len: u64,
    /// What the record is in its file.
    pub framing: Framing,
}

/// How a file is cut into records.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Framing {
    /// A physical line.
    #[default]
    Line,
    /// An element of a JSON array file, whose line is the element
    /// compacted ([`crate::elements`]).
    Element,
    /// A row of a database table ([`rows`]).
    Row(&'static rows::Table),
    /// A whole file, one JSON document ([`documents`]).
    Document(&'static documents::Document),
}

/// A place in the input to go on reading from ([`LineReader::restart_at`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Resume {
    /// Byte offset in the input.
    pub offset: u64,
    /// The number of the last line before it.
    pub number: u64,
    /// Whether `offset` is inside line `number + 1`, whose start was taken
    /// before: the bytes up to its newline are skipped, not returned (the
    /// next line returned is `number + 2`).
    pub mid_line: bool,
}

/// Splits a reader into lines with a single growing buffer.
pub struct LineReader<R> {
    rdr: R,
    buf: Vec<u8>,
    /// Start of the unconsumed bytes.
    pos: usize,
    /// End of the valid bytes.
    end: usize,
    /// Where to resume the newline search (bytes before it hold none).
    scanned: usize,
    eof: bool,
    number: u64,
    /// Offset in the input of `buf[0]`.
    base: u64,
    /// Whether the bytes up to the next newline are the rest of a line taken
    /// before ([`LineReader::restart_at`]): skipped, not returned.
    mid_line: bool,
    /// The longest line buffered ([`max_line`]).
    max: usize,
    /// Where the line being skipped for its length starts, when one is
    /// ([`Line::too_long`]): its bytes are dropped as they are read.
    over: Option<u64>,
}

impl<R: Read> LineReader<R> {
    /// Wraps a reader.
    pub fn new(rdr: R) -> LineReader<R> {
        LineReader::with_capacity(rdr, INITIAL)
    }

    /// Wraps a reader with an initial buffer of `capacity` bytes (at least 1;
    /// it still grows to hold the longest line). Tests and fuzzing use tiny
    /// capacities to exercise the moves and growth that big lines cause.
    pub fn with_capacity(rdr: R, capacity: usize) -> LineReader<R> {
        LineReader::with_buffer(rdr, vec![0; capacity.max(1)])
    }

    /// Wraps a reader, reusing a buffer from [`LineReader::into_buffer`] (an
    /// empty one is replaced by a new buffer of the default size).
    pub fn with_buffer(rdr: R, mut buf: Vec<u8>) -> LineReader<R> {
        if buf.is_empty() {
            buf = vec![0; INITIAL];
        }
        LineReader {
            rdr,
            buf,
            pos: 0,
            end: 0,
            scanned: 0,
            eof: false,
            number: 0,
            base: 0,
            mid_line: false,
            max: max_line(),
            over: None,
        }
    }

    /// Sets the longest line buffered (at least 1; [`max_line`] by default).
    /// Tests and fuzzing use small limits.
    pub fn set_max_line(&mut self, max: usize) {
        self.max = max.max(1);
    }

    /// The buffer, for another reader ([`LineReader::with_buffer`]); the
    /// wrapped reader is dropped (a file is closed).
    pub fn into_buffer(self) -> Vec<u8> {
        self.buf
    }

    /// Starts over on a new reader, keeping the buffer.
    pub fn reset(&mut self, rdr: R) {
        self.rdr = rdr;
        self.restart_at(Resume::default());
    }

    /// Forgets what is buffered and goes on at `at` (see [`Resume`]), where
    /// the wrapped reader must now be positioned. For a followed file that is
    /// reopened or got shorter ([`crate::source::follow`]).
    pub fn restart_at(&mut self, at: Resume) {
        self.pos = 0;
        self.end = 0;
        self.scanned = 0;
        self.eof = false;
        self.number = at.number;
        self.base = at.offset;
        self.mid_line = at.mid_line;
        self.over = None;
    }

    /// Where reading stands: the first byte not yet returned in a line (the
    /// start of a held unfinished line, if any), to go on from there later
    /// with [`LineReader::restart_at`]. Inside a line skipped for its
    /// length, the rest of it is skipped silently from there.
    pub fn resume_point(&self) -> Resume {
        let mid_line = self.mid_line || self.over.is_some();
        Resume { offset: self.base + self.pos as u64, number: self.number, mid_line }
    }

    /// Reads until at least `len` bytes are buffered from the read position
    /// on, or the input ends, and returns the bytes buffered from there (a
    /// part of a capture loaded whole to count its lines first,
    /// [`crate::source`]'s chunked reading). The buffer grows to hold them.
    pub fn preload(&mut self, len: usize) -> io::Result<&[u8]> {
        while self.end - self.pos < len && !self.eof {
            self.fill()?;
        }
        Ok(&self.buf[self.pos..self.end])
    }

    /// Ends the input at byte `offset`: bytes buffered after it are dropped
    /// and nothing more is read. `offset` must be within what is buffered
    /// ([`LineReader::preload`]); one outside is clamped to it.
    pub fn end_at(&mut self, offset: u64) {
        let at = usize::try_from(offset.saturating_sub(self.base)).unwrap_or(usize::MAX);
        self.end = at.clamp(self.pos, self.end);
        self.scanned = self.scanned.min(self.end);
        self.eof = true;
    }

    /// Numbers the lines from here on after line `number` (the next line
    /// returned is `number + 1`). A first line is read past a byte-order mark
    /// only when `number` is 0.
    pub fn set_line_number(&mut self, number: u64) {
        self.number = number;
    }

    /// Offset in the input after the last byte read.
    pub fn read_end(&self) -> u64 {
        self.base + self.end as u64
    }

    /// The number of the last line returned.
    pub fn line_number(&self) -> u64 {
        self.number
    }

    /// The next line, or `None` at the end of input.
    pub fn next_line(&mut self) -> io::Result<Option<Line<'_>>> {
        self.next(false)
    }

    /// The next complete (`\n`-terminated) line, or `None` when no complete
    /// line is available yet. An unterminated tail is kept, not returned: the
    /// next call reads again and completes it when its newline has arrived.
    /// For following a file that is still being written (`ci-cat --follow`).
    pub fn next_complete_line(&mut self) -> io::Result<Option<Line<'_>>> {
        self.next(true)
    }

    /// Whether [`LineReader::next_line`] can answer without reading: a
    /// complete line is buffered, or the input has ended. On a pipe a read
    /// may wait for the writer, so a consumer hands on what it holds first.
    pub fn line_ready(&self) -> bool {
        self.eof || memchr::memchr(b'\n', &self.buf[self.scanned..self.end]).is_some()
    }

    /// The next line; at the end of input an unterminated tail is returned
    /// (`terminated: false`), or with `hold_tail` kept for the next call.
    /// A line longer than the limit is dropped as it is read and returned
    /// empty, [`Line::too_long`], once its end is known.
    fn next(&mut self, hold_tail: bool) -> io::Result<Option<Line<'_>>> {
        loop {
            if let Some(k) = memchr::memchr(b'\n', &self.buf[self.scanned..self.end]) {
                let nl = self.scanned + k;
                let start = self.first_line_start(self.pos, nl);
                self.pos = nl + 1;
                self.scanned = self.pos;
                self.number += 1;
                if std::mem::take(&mut self.mid_line) {
                    continue;
                }
                if let Some(at) = self.over.take() {
                    return Ok(Some(self.too_long(at, self.base + nl as u64, true)));
                }
                if nl - start > self.max {
                    return Ok(Some(self.too_long(self.base + start as u64, self.base + nl as u64, true)));
                }
                let site = self.site(start, nl);
                return Ok(Some(Line {
                    bytes: &self.buf[start..nl],
                    number: self.number,
                    site,
                    terminated: true,
                    too_long: false,
                }));
            }
            self.scanned = self.end;
            self.drop_overlong();
            if self.eof {
                if hold_tail {
                    // Retry on the next call: the writer may append more.
                    self.eof = false;
                    return Ok(None);
                }
                if self.pos == self.end || std::mem::take(&mut self.mid_line) {
                    self.pos = self.end;
                    if let Some(at) = self.over.take() {
                        self.number += 1;
                        return Ok(Some(self.too_long(at, self.base + self.end as u64, false)));
                    }
                    return Ok(None);
                }
                let start = self.first_line_start(self.pos, self.end);
                self.pos = self.end;
                self.number += 1;
                if self.end - start > self.max {
                    return Ok(Some(self.too_long(self.base + start as u64, self.base + self.end as u64, false)));
                }
                let site = self.site(start, self.end);
                return Ok(Some(Line {
                    bytes: &self.buf[start..self.end],
                    number: self.number,
                    site,
                    terminated: false,
                    too_long: false,
                }));
            }
            self.fill()?;
        }
    }

    /// Drops the buffered part of an unfinished line that is skipped: the
    /// rest of a line taken before, or one longer than the limit (which
    /// becomes one here, [`LineReader::over`]). So no line costs more than
    /// the limit in memory.
    fn drop_overlong(&mut self) {
        let start = self.first_line_start(self.pos, self.end);
        if self.over.is_none() && !self.mid_line && self.end - start > self.max {
            self.over = Some(self.base + start as u64);
        }
        if self.over.is_some() || self.mid_line {
            self.pos = self.end;
        }
    }

    /// The line skipped for its length, from offset `at` to `end`.
    fn too_long(&self, at: u64, end: u64, terminated: bool) -> Line<'static> {
        let site = Site { offset: at, len: end - at, framing: Framing::Line };
        Line { bytes: &[], number: self.number, site, terminated, too_long: true }
    }

    /// The site of the buffered line `start..end`.
    fn site(&self, start: usize, end: usize) -> Site {
        Site { offset: self.base + start as u64, len: (end - start) as u64, framing: Framing::Line }
    }

    /// Where the line `start..end` begins: past a UTF-8 byte-order mark when
    /// it is the input's first line (some editors write one; jq skips it too).
    fn first_line_start(&self, start: usize, end: usize) -> usize {
        const BOM: &[u8] = b"\xEF\xBB\xBF";
        if self.number == 0 && self.buf[start..end].starts_with(BOM) {
            start + BOM.len()
        } else {
            start
        }
    }

    /// Bytes read but not yet returned as a line (a held torn tail).
    pub fn pending(&self) -> usize {
        self.end - self.pos
    }

    /// The wrapped reader.
    pub fn get_ref(&self) -> &R {
        &self.rdr
    }

    /// The wrapped reader, to reposition it before [`LineReader::restart_at`].
    pub fn get_mut(&mut self) -> &mut R {
        &mut self.rdr
    }

    /// Gives back memory: a buffer longer than `keep` bytes (grown for a long
    /// line) is cut to `keep`, unless more than that is held unread. For a
    /// file that stays open between polls while new lines are short.
    pub fn shrink(&mut self, keep: usize) {
        if self.buf.len() <= keep.max(1) || self.end - self.pos > keep {
            return;
        }
        self.compact();
        self.buf.truncate(keep.max(1));
        self.buf.shrink_to_fit();
    }

    /// Moves the bytes not yet returned to the front of the buffer.
    fn compact(&mut self) {
        if self.pos > 0 {
            self.base += self.pos as u64;
            self.buf.copy_within(self.pos..self.end, 0);
            self.end -= self.pos;
            self.scanned -= self.pos;
            self.pos = 0;
        }
    }

    /// Reads more bytes, first making room by moving the partial line to the
    /// front or growing the buffer when the partial line fills it.
    fn fill(&mut self) -> io::Result<()> {
        self.compact();
        if self.end == self.buf.len() {
            self.grow();
        }
        // At most READ_CHUNK per read: what was just copied in is scanned while
        // it is still in the CPU's cache (the buffer may have grown to megabytes).
        let stop = self.buf.len().min(self.end + READ_CHUNK);
        loop {
            match self.rdr.read(&mut self.buf[self.end..stop]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(());
                }
                Ok(n) => {
                    self.end += n;
                    return Ok(());
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
    }

    /// Makes room after `end` when the partial line fills the buffer. The
    /// capacity doubles (amortised growth; for large buffers `realloc` moves
    /// pages without touching them), but the initialised length, which is
    /// what gets written and so becomes resident, grows by at most
    /// [`GROW_STEP`] at a time. So a 100 MB line costs about 100 MB of
    /// buffer, not the 128 MiB (zero-filled) of the next power of two.
    fn grow(&mut self) {
        if self.buf.len() == self.buf.capacity() {
            self.buf.reserve(self.buf.len());
        }
        let room = (self.buf.capacity() - self.buf.len()).min(GROW_STEP);
        self.buf.resize(self.buf.len() + room.max(1), 0);
    }
}

/// Where the engine ([`crate::source`]) takes a capture file's lines from:
/// its physical lines ([`LineReader`]), or for a writer whose files are JSON
/// arrays, one compact line per element ([`crate::elements`]) numbered by the
/// element's first physical line.
pub trait LineSource {
    /// The next line, or `None` at the end of input.
    fn next_line(&mut self) -> io::Result<Option<Line<'_>>>;

    /// The next complete line, holding an unterminated tail back
    /// ([`LineReader::next_complete_line`]).
    fn next_complete_line(&mut self) -> io::Result<Option<Line<'_>>>;

    /// The number of the last line returned.
    fn line_number(&self) -> u64;

    /// The rows of a database, when this source is that ([`rows::Rows`]):
    /// a follower leaves out the rows it took and holds unfinished ones.
    fn as_rows(&mut self) -> Option<&mut rows::Rows> {
        None
    }
}

impl<'a> Line<'a> {
    /// An element of a JSON array (or a member of a nested one) as a line:
    /// compact, numbered by its first physical line, with its element site.
    pub fn of_element(el: crate::elements::Element<'a>) -> Line<'a> {
        Line {
            bytes: el.bytes,
            number: el.line,
            site: Site { offset: el.offset, len: el.len, framing: Framing::Element },
            terminated: true,
            too_long: el.too_long,
        }
    }
}

/// A source without lines (a file that holds none of what is asked, or
/// could not be opened and was reported).
pub struct NoLines;

impl LineSource for NoLines {
    fn next_line(&mut self) -> io::Result<Option<Line<'_>>> {
        Ok(None)
    }

    fn next_complete_line(&mut self) -> io::Result<Option<Line<'_>>> {
        Ok(None)
    }

    fn line_number(&self) -> u64 {
        0
    }
}

impl<R: Read> LineSource for LineReader<R> {
    fn next_line(&mut self) -> io::Result<Option<Line<'_>>> {
        LineReader::next_line(self)
    }

    fn next_complete_line(&mut self) -> io::Result<Option<Line<'_>>> {
        LineReader::next_complete_line(self)
    }

    fn line_number(&self) -> u64 {
        LineReader::line_number(self)
    }
}

#[cfg(test)]
mod tests;
