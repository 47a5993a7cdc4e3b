//! A streaming reader of one JSON array file: each element in turn, as one
//! compact line, with bounded memory.
//!
//! Some writers keep their events as the elements of one pretty-printed JSON
//! array (`[ {...}, {...} ]`, Claude Code hook logs, formats.md §7) instead
//! of one JSON object per line. [`ElementReader`] turns such a file into the
//! lines the rest of the engine reads: each element with the whitespace
//! outside its strings removed — strings, numbers and literals byte for byte
//! as written — so that parsing, provenance and NDJSON output work unchanged
//! and every printed record stays one line. A raw newline inside a string
//! (which makes the element invalid JSON anyway) becomes a raw carriage
//! return, so the element stays one line and still fails to parse.
//!
//! Memory is one read buffer (256 KiB) and the element being read: bounded
//! by the largest element, never by the file. The whole file is never read.
//!
//! Each element comes with its 1-based number, the physical line and byte
//! offset of its first byte, and its length on disk. A file cut mid-write
//! ends in a [`ArrayError::Torn`] naming the element it cut; the elements
//! before it have been returned. A file whose first byte (after whitespace
//! and a UTF-8 byte-order mark) is not `[` is [`ArrayError::NotArray`]; an
//! empty (or whitespace-only) file is an empty array.

use std::fmt;
use std::io::{self, Read, Seek, SeekFrom};

/// Bytes asked of one read.
const BUF: usize = 256 * 1024;

/// The UTF-8 byte-order mark.
const BOM: &[u8; 3] = b"\xEF\xBB\xBF";

/// One element of the array, compacted.
#[derive(Debug, Clone, Copy)]
pub struct Element<'a> {
    /// The compact element (no `\n` in it).
    pub bytes: &'a [u8],
    /// 1-based element number.
    pub index: u64,
    /// 1-based physical line of its first byte.
    pub line: u64,
    /// Byte offset of its first byte.
    pub offset: u64,
    /// Its length on disk, in bytes (from its first byte to its last).
    pub len: u64,
    /// True for an element whose compact form is longer than
    /// [`crate::lines::max_line`]: it was skipped without being kept, and
    /// `bytes` is empty (a bad line, [`crate::lines::TooLong`]).
    pub too_long: bool,
}

/// What is wrong with the array itself (not with one element's JSON).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArrayError {
    /// The file does not start with `[`: it is not a JSON array.
    NotArray {
        /// The line of the first byte that is not whitespace.
        line: u64,
    },
    /// The file ends inside element `element`, which starts on `line`.
    Torn {
        /// 1-based number of the cut element.
        element: u64,
        /// Its first line.
        line: u64,
    },
    /// The file ends after `after` complete elements (and a separator) without
    /// the closing `]`.
    Unclosed {
        /// Complete elements before the end.
        after: u64,
        /// The last line of the file.
        line: u64,
    },
    /// After element `after`, a byte that is neither `,` nor `]` (or, after a
    /// `,`, one that cannot start an element).
    Unexpected {
        /// Complete elements before it.
        after: u64,
        /// Its line.
        line: u64,
    },
    /// Bytes after the closing `]`.
    Trailing {
        /// The line of the first of them.
        line: u64,
    },
}

impl ArrayError {
    /// Where the report names: `element N` or `line L`.
    pub fn site(&self) -> String {
        match self {
            ArrayError::Torn { element, .. } => format!("element {element}"),
            ArrayError::Unclosed { after, .. } => format!("element {}", after + 1),
            ArrayError::NotArray { line } | ArrayError::Unexpected { line, .. } | ArrayError::Trailing { line } => {
                format!("line {line}")
            }
        }
    }
}

impl fmt::Display for ArrayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let before = |n: u64| match n {
            0 => "no element before it".to_owned(),
            1 => "the element before it is read".to_owned(),
            n => format!("the {n} elements before it are read"),
        };
        match self {
            ArrayError::NotArray { .. } => write!(f, "not a JSON array (a hook log file holds one array), not read"),
            ArrayError::Torn { element, line } => write!(
                f,
                "torn array: the file ends inside this element (it starts on line {line}; cut mid-write?); {}",
                before(element - 1)
            ),
            ArrayError::Unclosed { after, line } => write!(
                f,
                "torn array: the file ends on line {line} without closing the array (cut mid-write?); {}",
                before(*after)
            ),
            ArrayError::Unexpected { after, .. } => {
                write!(
                    f,
                    "malformed array: expected \",\" or \"]\" or an element here; {}, none after it",
                    before(*after)
                )
            }
            ArrayError::Trailing { .. } => write!(f, "data after the array's closing \"]\", ignored"),
        }
    }
}

/// Why [`ElementReader::next_element`] failed.
#[derive(Debug)]
pub enum ReadError {
    /// Reading the file failed.
    Io(io::Error),
    /// The array is damaged (reported once; the reader then ends).
    Array(ArrayError),
}

/// Where the reader is in the array.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Before the `[`.
    Start,
    /// After `[`: an element or `]`.
    First,
    /// After an element: `,` or `]`.
    Next,
    /// After `,`: an element.
    Elem,
    /// Inside an element.
    In,
    /// After `]`: only whitespace.
    Done,
    /// Ended (after an error, or at the end).
    End,
}

/// Reads a JSON array one element at a time (module docs).
pub struct ElementReader<R> {
    rdr: R,
    buf: Vec<u8>,
    pos: usize,
    end: usize,
    /// Offset in the input of `buf[0]`.
    base: u64,
    eof: bool,
    /// 1-based line of `buf[pos]`.
    line: u64,
    state: State,
    /// Bytes of a byte-order mark matched at the start.
    bom: u8,
    /// Bytes of input the next reads need at most (0: no limit).
    want: u64,
    /// The element being read, compacted.
    out: Vec<u8>,
    /// The longest element kept ([`crate::lines::max_line`]).
    max: usize,
    /// Whether the element being read is longer than `max`: its bytes are
    /// dropped as they are read.
    over: bool,
    /// Elements returned so far (the number of the last one).
    count: u64,
    /// The element being read: first line and offset, nesting depth, and
    /// whether it is a bare scalar, inside a string, after a backslash.
    el_line: u64,
    el_offset: u64,
    el_len: u64,
    depth: u32,
    bare: bool,
    in_str: bool,
    escape: bool,
    /// For the members of a nested array ([`ElementReader::nested`]): its
    /// key, and where the scan of the object before it is.
    nested: Option<Prelude>,
}

/// The scan of a top-level object up to the array at `key`
/// ([`ElementReader::nested`]).
#[derive(Debug, Default)]
struct Prelude {
    key: Vec<u8>,
    /// Nesting depth (1: in the top-level object).
    depth: u32,
    in_str: bool,
    escape: bool,
    /// Whether the string being read is a key of the top-level object,
    /// and its bytes so far (kept while they can still be `key`).
    at_key: bool,
    name: Vec<u8>,
    /// Whether the last key read is `key`, and its colon was read.
    matched: bool,
    colon: bool,
}

/// The longest element an [`ElementReader`] keeps unless told
/// ([`ElementReader::set_max_line`]; the tools give it
/// `crate::lines::max_line`, which defaults to this).
pub const DEFAULT_MAX: usize = 256 << 20;

impl<R: Read> ElementReader<R> {
    /// Reads the array in `rdr` from its start, keeping elements of up to
    /// [`DEFAULT_MAX`] bytes ([`ElementReader::set_max_line`]).
    pub fn new(rdr: R) -> ElementReader<R> {
        ElementReader {
            rdr,
            buf: vec![0; BUF],
            pos: 0,
            end: 0,
            base: 0,
            eof: false,
            line: 1,
            state: State::Start,
            bom: 0,
            want: 0,
            out: Vec::new(),
            max: DEFAULT_MAX,
            over: false,
            count: 0,
            el_line: 0,
            el_offset: 0,
            el_len: 0,
            depth: 0,
            bare: false,
            in_str: false,
            escape: false,
            nested: None,
        }
    }

    /// Reads the members of the array at `key` of the JSON object in
    /// `rdr` (a document `{"…":…, "messages": [ {...}, … ], …}`), as
    /// [`ElementReader::new`] reads a top-level array's elements: each
    /// compacted, with its own line, offset and length, so it is read again
    /// from its site like any element. What comes before the array is
    /// scanned, not kept; what comes after it is not read. A document that
    /// is not an object is [`ArrayError::NotArray`]; one without the key (or
    /// whose value there is no array) has no members.
    pub fn nested(rdr: R, key: &str) -> ElementReader<R> {
        let mut r = ElementReader::new(rdr);
        r.nested = Some(Prelude { key: key.as_bytes().to_vec(), ..Prelude::default() });
        r
    }

    /// Sets the longest element kept (at least 1; [`DEFAULT_MAX`] unless
    /// set: the tools set `crate::lines::max_line`). Tests and fuzzing use
    /// small limits.
    pub fn set_max_line(&mut self, max: usize) {
        self.max = max.max(1);
    }

    /// Offset in the input of the next unread byte.
    fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// Reads more input; false at its end.
    fn fill(&mut self) -> io::Result<bool> {
        if self.eof {
            return Ok(false);
        }
        self.base += self.end as u64;
        self.pos = 0;
        self.end = 0;
        // After a seek, ask only for the bytes the caller said it needs.
        let size = if self.want == 0 { BUF } else { BUF.min(usize::try_from(self.want).unwrap_or(BUF)) };
        loop {
            match self.rdr.read(&mut self.buf[..size]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(false);
                }
                Ok(n) => {
                    self.end = n;
                    self.want = self.want.saturating_sub(n as u64);
                    return Ok(true);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
    }

    /// Ends the reader with an array error.
    fn fail(&mut self, e: ArrayError) -> ReadError {
        self.state = State::End;
        ReadError::Array(e)
    }

    /// The next element; `None` after the closing `]` (and for an empty
    /// file); an [`ArrayError`] once, then `None`.
    pub fn next_element(&mut self) -> Result<Option<Element<'_>>, ReadError> {
        if !self.advance()? {
            return Ok(None);
        }
        Ok(Some(Element {
            bytes: &self.out,
            index: self.count,
            line: self.el_line,
            offset: self.el_offset,
            len: self.el_len,
            too_long: self.over,
        }))
    }

    /// Reads up to the end of the next element (true) or of the array.
    fn advance(&mut self) -> Result<bool, ReadError> {
        loop {
            if self.pos == self.end && !self.fill().map_err(ReadError::Io)? {
                let e = match self.state {
                    State::Start if self.bom > 0 && self.bom < 3 => ArrayError::NotArray { line: self.line },
                    State::Start | State::Done | State::End => {
                        self.state = State::End;
                        return Ok(false);
                    }
                    State::In => ArrayError::Torn { element: self.count + 1, line: self.el_line },
                    State::First | State::Next | State::Elem => {
                        ArrayError::Unclosed { after: self.count, line: self.line }
                    }
                };
                return Err(self.fail(e));
            }
            match self.state {
                State::End => return Ok(false),
                State::In => {
                    let ended = self.element();
                    // An element over the limit is dropped as it comes in:
                    // it never holds more than the limit and one read.
                    if self.out.len() > self.max || self.over {
                        self.over = true;
                        self.out.clear();
                    }
                    if ended {
                        self.state = State::Next;
                        self.count += 1;
                        self.el_len = self.offset() - self.el_offset;
                        return Ok(true);
                    }
                }
                _ => self.between()?,
            }
        }
    }

    /// Outside elements: skips whitespace and separators up to the next
    /// element (entering it) or the end of the buffer.
    fn between(&mut self) -> Result<(), ReadError> {
        while self.pos < self.end {
            let b = self.buf[self.pos];
            // A UTF-8 byte-order mark first (as the line reader skips one),
            // matched byte by byte: reads may split it.
            if self.state == State::Start && self.offset() == u64::from(self.bom) && self.bom < 3 {
                if b == BOM[usize::from(self.bom)] {
                    self.bom += 1;
                    self.pos += 1;
                    continue;
                }
                if self.bom > 0 {
                    return Err(self.fail(ArrayError::NotArray { line: self.line }));
                }
            }
            match b {
                b'\n' => {
                    self.line += 1;
                    self.pos += 1;
                    continue;
                }
                b' ' | b'\t' | b'\r' => {
                    self.pos += 1;
                    continue;
                }
                _ => {}
            }
            if self.state == State::Start && self.nested.is_some() {
                self.prelude(b)?;
                self.pos += 1;
                if self.state != State::Start {
                    return Ok(());
                }
                continue;
            }
            match (self.state, b) {
                // The rest of a nested array's document is not read.
                (State::Done, _) if self.nested.is_some() => {
                    self.state = State::End;
                    return Ok(());
                }
                (State::Start, b'[') => self.state = State::First,
                (State::Start, _) => return Err(self.fail(ArrayError::NotArray { line: self.line })),
                (State::First | State::Next, b']') => self.state = State::Done,
                (State::Next, b',') => self.state = State::Elem,
                (State::First | State::Elem, b) if b != b',' && b != b']' => {
                    self.start_element(b);
                    return Ok(());
                }
                (State::Done, _) => return Err(self.fail(ArrayError::Trailing { line: self.line })),
                (_, _) => {
                    let after = self.count;
                    return Err(self.fail(ArrayError::Unexpected { after, line: self.line }));
                }
            }
            self.pos += 1;
        }
        Ok(())
    }

    /// One byte (not blank) of the object before a nested array ([`ElementReader::nested`]): at the
    /// array's `[`, its members come next.
    fn prelude(&mut self, b: u8) -> Result<(), ReadError> {
        let Some(p) = self.nested.as_mut() else { return Ok(()) };
        if p.in_str {
            if p.escape {
                p.escape = false;
            } else if b == b'\\' {
                p.escape = true;
            } else if b == b'"' {
                p.in_str = false;
                p.matched = p.at_key && p.name == p.key;
                return Ok(());
            }
            // (Blanks never get here: a key with one is not `key`.)
            if p.at_key && p.name.len() <= p.key.len() {
                p.name.push(b);
            }
            return Ok(());
        }
        if p.depth == 0 && b != b'{' {
            return Err(self.fail(ArrayError::NotArray { line: self.line }));
        }
        if p.colon {
            // The value of `key`: its members, or none.
            self.state = if b == b'[' { State::First } else { State::End };
            return Ok(());
        }
        match b {
            b'"' => {
                p.in_str = true;
                p.at_key = p.depth == 1 && !p.matched;
                p.name.clear();
            }
            b':' if p.depth == 1 && p.matched => p.colon = true,
            b',' if p.depth == 1 => p.matched = false,
            b'{' | b'[' => p.depth += 1,
            b'}' | b']' => {
                p.depth = p.depth.saturating_sub(1);
                if p.depth == 0 {
                    self.state = State::End;
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Enters an element whose first byte is `b` (at `pos`, not consumed).
    fn start_element(&mut self, b: u8) {
        self.state = State::In;
        self.out.clear();
        self.over = false;
        self.el_line = self.line;
        self.el_offset = self.offset();
        self.depth = 0;
        self.in_str = false;
        self.escape = false;
        self.bare = !matches!(b, b'{' | b'[');
    }

    /// Copies element bytes from the buffer; true when the element ended.
    fn element(&mut self) -> bool {
        while self.pos < self.end {
            if self.in_str {
                if self.escape {
                    self.escape = false;
                    let b = self.buf[self.pos];
                    self.push_str_byte(b);
                    self.pos += 1;
                    continue;
                }
                let rest = &self.buf[self.pos..self.end];
                match memchr::memchr3(b'"', b'\\', b'\n', rest) {
                    None => {
                        self.out.extend_from_slice(rest);
                        self.pos = self.end;
                    }
                    Some(k) => {
                        let b = rest[k];
                        self.out.extend_from_slice(&rest[..k]);
                        self.pos += k + 1;
                        match b {
                            b'"' => {
                                self.out.push(b);
                                self.in_str = false;
                                if self.depth == 0 {
                                    return true;
                                }
                            }
                            b'\\' => {
                                self.out.push(b);
                                self.escape = true;
                            }
                            _ => self.push_str_byte(b),
                        }
                    }
                }
                continue;
            }
            let b = self.buf[self.pos];
            match b {
                b' ' | b'\t' | b'\r' | b'\n' => {
                    if self.bare && self.depth == 0 {
                        return true;
                    }
                    if b == b'\n' {
                        self.line += 1;
                    }
                }
                b',' | b']' if self.bare && self.depth == 0 => return true,
                b'"' => {
                    self.in_str = true;
                    self.out.push(b);
                }
                b'{' | b'[' if !self.bare => {
                    self.depth = self.depth.saturating_add(1);
                    self.out.push(b);
                }
                b'}' | b']' if !self.bare => {
                    self.out.push(b);
                    self.depth = self.depth.saturating_sub(1);
                    if self.depth == 0 {
                        self.pos += 1;
                        return true;
                    }
                }
                _ => self.out.push(b),
            }
            self.pos += 1;
        }
        false
    }

    /// A byte inside a string: a raw newline is kept out of the line (module docs).
    fn push_str_byte(&mut self, b: u8) {
        if b == b'\n' {
            self.line += 1;
            self.out.push(b'\r');
        } else {
            self.out.push(b);
        }
    }
}

impl<R: Read + Seek> ElementReader<R> {
    /// Goes to the element numbered `index` that starts at byte `offset` on
    /// `line` (as an earlier pass returned it): the next call returns it, then
    /// the elements after it.
    ///
    /// `span`: the bytes from `offset` the caller will read (the elements it
    /// wants end there): reads ask for no more than that, so visiting
    /// scattered elements of a big file reads about their bytes, not a whole
    /// buffer each (past `span`, reads are whole buffers again).
    pub fn seek_element(&mut self, offset: u64, line: u64, index: u64, span: u64) -> io::Result<()> {
        let here = self.offset();
        let positioned = matches!(self.state, State::Next | State::Elem | State::First);
        if !(positioned && here == offset && self.count + 1 == index) {
            // Inside the buffer: no system call.
            if offset >= self.base && offset <= self.base + self.end as u64 {
                self.pos = (offset - self.base) as usize;
            } else {
                self.rdr.seek(SeekFrom::Start(offset))?;
                self.base = offset;
                self.pos = 0;
                self.end = 0;
                self.eof = false;
            }
        }
        self.want = (offset + span).saturating_sub(self.base + self.end as u64);
        self.line = line;
        self.count = index.saturating_sub(1);
        self.state = State::Elem;
        Ok(())
    }
}

#[cfg(test)]
mod tests;
