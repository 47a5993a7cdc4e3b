//! A validating JSON scanner that indexes a record without building a DOM.
//!
//! Every byte of every line passes through here, so it never allocates per line:
//! [`Index::parse`] checks that a line is exactly one valid JSON object (the same
//! grammar `serde_json` accepts: UTF-8, escapes, surrogate pairs, no raw control
//! characters in strings, nesting at most [`MAX_DEPTH`]) and records where each
//! top-level member's key and value are. Values stay raw bytes ([`Raw`]); callers
//! decode only what they touch (`event`, `workspace`, a field for `--where`, …).
//!
//! Walking *inside* a value that was already validated ([`Raw::get`],
//! [`Raw::members`]) uses a cheaper structural skip that trusts the grammar but
//! still never panics on any input.

use std::borrow::Cow;
use std::cell::RefCell;
use std::fmt;
use std::ops::Range;

use memchr::memchr2;

pub mod dom;
pub mod path;
pub(crate) mod string;
pub mod write;

pub use path::{Path, PathError};

/// Deepest nesting accepted, counting the record itself. It is serde_json's
/// recursion limit, so both parsers agree on every input.
pub const MAX_DEPTH: usize = 127;

/// Why a line is not a valid record. Displayed as the `reason` of a
/// `path:line: reason` report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseError {
    /// Only whitespace.
    Blank,
    /// Not UTF-8 at this byte offset.
    InvalidUtf8(usize),
    /// Valid JSON start but not an object (`[1,2]`, `"x"`, `3`).
    NotObject,
    /// The line ends inside a value (a torn write).
    UnexpectedEnd,
    /// Something other than what the grammar allows, at this byte offset.
    Syntax(usize, &'static str),
    /// Nested deeper than [`MAX_DEPTH`] at this byte offset.
    TooDeep(usize),
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::Blank => f.write_str("blank line"),
            ParseError::InvalidUtf8(at) => write!(f, "invalid UTF-8 at byte {at}"),
            ParseError::NotObject => f.write_str("not a JSON object"),
            ParseError::UnexpectedEnd => f.write_str("torn record: line ends inside a JSON value"),
            ParseError::Syntax(at, what) => write!(f, "invalid JSON at byte {at}: {what}"),
            ParseError::TooDeep(at) => {
                write!(f, "JSON nested deeper than {MAX_DEPTH} levels at byte {at}")
            }
        }
    }
}

impl std::error::Error for ParseError {}

type Result<T> = std::result::Result<T, ParseError>;

/// One top-level member of a record: byte ranges into the line.
#[derive(Debug, Clone)]
struct Member {
    /// The key's raw content, without quotes (may hold escapes).
    key: Range<usize>,
    /// The value, from its first to one past its last byte.
    value: Range<usize>,
    /// [`key_tag`] of the raw key: a lookup compares keys only where the tags agree.
    tag: u32,
}

impl Member {
    fn new(line: &[u8], key: Range<usize>, value: Range<usize>) -> Member {
        let tag = key_tag(&line[key.clone()]);
        Member { key, value, tag }
    }

    /// Whether this member's key is `key` (whose [`key_tag`] is `tag`).
    fn is(&self, line: &[u8], key: &str, tag: u32) -> bool {
        (self.tag == tag || self.tag == ESCAPED) && key_eq(&line[self.key.clone()], key)
    }
}

/// The tag of a raw key that holds an escape: it may equal any key.
const ESCAPED: u32 = u32::MAX;

/// A cheap filter for key lookups: the length (up to 2^24 − 1) and first
/// byte of a key without escapes; [`ESCAPED`] for one with. Two keys without
/// escapes are equal only when their tags are.
fn key_tag(raw: &[u8]) -> u32 {
    if raw.contains(&b'\\') {
        return ESCAPED;
    }
    let len = raw.len().min(0xFF_FFFF) as u32;
    len << 8 | u32::from(raw.first().copied().unwrap_or(0))
}

/// A reusable index of one line's top-level members. Parse each line into the
/// same `Index` so the member list is allocated once per thread, not per line.
#[derive(Debug, Default)]
pub struct Index {
    members: Vec<Member>,
    close: usize,
    /// False after [`Index::skim`]: the insides of containers were not checked.
    validated: bool,
    /// The deepest nesting of the line, counting the record itself (known
    /// when validated).
    depth: usize,
    /// The members of one top-level object value, indexed on first use
    /// ([`Record::get_in`]): a writer that reads several keys of one nested
    /// object (a transcript's `message`) walks it once per line, not once
    /// per key.
    nested: RefCell<Nested>,
}

/// The member index of one top-level value ([`Index::nested`]).
#[derive(Debug, Default)]
struct Nested {
    /// Which top-level member it indexes (its position), when any.
    of: Option<usize>,
    /// Its members, as byte ranges of the line.
    members: Vec<Member>,
}

impl Index {
    /// Creates an empty index.
    pub fn new() -> Index {
        Index::default()
    }

    /// Validates `line` as one JSON object and indexes its top-level members.
    pub fn parse<'a>(&'a mut self, line: &'a [u8]) -> Result<Record<'a>> {
        self.index(line, true)
    }

    /// Indexes `line` like [`Index::parse`], checking everything except the
    /// grammar *inside* top-level objects and arrays (such as `data`), which
    /// are only skimmed for balanced strings and brackets
    /// ([`crate::skim::skip_container`]). UTF-8, the top-level structure, keys
    /// and scalar values are fully checked. For every valid line the result is
    /// the same as `parse`; a line damaged only inside a container may be
    /// accepted, so confirm a line with [`validate`] before relying on more
    /// than its envelope (see [`Record::is_validated`]).
    /// A line the skim refuses is parsed again in full, so it is reported
    /// with the same reason as by `parse`.
    pub fn skim<'a>(&'a mut self, line: &'a [u8]) -> Result<Record<'a>> {
        if self.index(line, false).is_err() {
            return self.index(line, true);
        }
        Ok(Record { line, index: self })
    }

    fn index<'a>(&'a mut self, line: &'a [u8], full: bool) -> Result<Record<'a>> {
        self.members.clear();
        self.nested.get_mut().of = None;
        self.validated = full;
        self.depth = 1;
        if let Err(e) = simdutf8::basic::from_utf8(line) {
            let _ = e;
            let at = match simdutf8::compat::from_utf8(line) {
                Err(e) => e.valid_up_to(),
                Ok(_) => 0,
            };
            return Err(ParseError::InvalidUtf8(at));
        }
        let mut i = ws(line, 0);
        match line.get(i) {
            None => return Err(ParseError::Blank),
            Some(b'{') => {}
            Some(_) => {
                // Tell "valid JSON but not an object" from garbage.
                let end = skip_checked(line, i, 0, &mut self.depth)?;
                return if ws(line, end) == line.len() {
                    Err(ParseError::NotObject)
                } else {
                    Err(ParseError::Syntax(ws(line, end), "trailing characters"))
                };
            }
        }
        i = ws(line, i + 1);
        if line.get(i) == Some(&b'}') {
            self.close = i;
        } else {
            loop {
                if line.get(i) != Some(&b'"') {
                    return Err(unexpected(line, i, "expected a key"));
                }
                let key_end = string_checked(line, i)?;
                let key = i + 1..key_end - 1;
                i = ws(line, key_end);
                if line.get(i) != Some(&b':') {
                    return Err(unexpected(line, i, "expected ':'"));
                }
                i = ws(line, i + 1);
                let start = i;
                i = match line.get(i) {
                    Some(b'{' | b'[') if !full => crate::skim::skip_container(line, i)?,
                    _ => skip_checked(line, i, 1, &mut self.depth)?,
                };
                self.members.push(Member::new(line, key, start..i));
                i = ws(line, i);
                match line.get(i) {
                    Some(b',') => i = ws(line, i + 1),
                    Some(b'}') => {
                        self.close = i;
                        break;
                    }
                    _ => return Err(unexpected(line, i, "expected ',' or '}'")),
                }
            }
        }
        let after = ws(line, self.close + 1);
        if after != line.len() {
            return Err(ParseError::Syntax(after, "trailing characters after the record"));
        }
        Ok(Record { line, index: self })
    }
}

/// A validated line and its top-level members.
#[derive(Clone, Copy)]
pub struct Record<'a> {
    line: &'a [u8],
    index: &'a Index,
}

impl<'a> Record<'a> {
    /// The whole line as read (without its newline).
    pub fn line(&self) -> &'a [u8] {
        self.line
    }

    /// The value of a top-level key. With duplicate keys the last wins, as in
    /// serde_json.
    pub fn get(&self, key: &str) -> Option<Raw<'a>> {
        let tag = key_tag(key.as_bytes());
        self.index.members.iter().rev().find(|m| m.is(self.line, key, tag)).map(|m| Raw(&self.line[m.value.clone()]))
    }

    /// `self.get(top)?.get(key)`, with the members of `top` indexed once per
    /// line when it is an object (one nested object is kept: the last asked
    /// for). With duplicate keys the last wins, as in [`Raw::get`].
    pub fn get_in(&self, top: &str, key: &str) -> Option<Raw<'a>> {
        let line = self.line;
        let members = &self.index.members;
        let tag = key_tag(top.as_bytes());
        let pos = members.iter().rposition(|m| m.is(line, top, tag))?;
        let value = Raw(&line[members[pos].value.clone()]);
        if value.kind() != Kind::Object {
            return value.get(key);
        }
        let mut nested = self.index.nested.borrow_mut();
        if nested.of != Some(pos) {
            let base = line.as_ptr() as usize;
            let at = |s: &[u8]| s.as_ptr() as usize - base;
            nested.members.clear();
            for (k, v) in value.members() {
                let (k0, v0) = (at(k), at(v.0));
                nested.members.push(Member::new(line, k0..k0 + k.len(), v0..v0 + v.0.len()));
            }
            nested.of = Some(pos);
        }
        let tag = key_tag(key.as_bytes());
        nested.members.iter().rev().find(|m| m.is(line, key, tag)).map(|m| Raw(&line[m.value.clone()]))
    }

    /// A string-valued top-level key, decoded. `None` when absent or not a string.
    pub fn get_str(&self, key: &str) -> Option<Cow<'a, str>> {
        self.get(key).and_then(|v| v.as_str())
    }

    /// Top-level members in line order: raw key content (without quotes) and value.
    pub fn members(&self) -> impl Iterator<Item = (&'a [u8], Raw<'a>)> + '_ {
        let line = self.line;
        self.index.members.iter().map(move |m| (&line[m.key.clone()], Raw(&line[m.value.clone()])))
    }

    /// Byte offset of the closing `}` of the record.
    pub fn close(&self) -> usize {
        self.index.close
    }

    /// Whether the whole line was validated ([`Index::parse`]) rather than
    /// skimmed ([`Index::skim`]).
    pub fn is_validated(&self) -> bool {
        self.index.validated
    }

    /// How deep the line nests, counting the record itself (`{}` is 1, at
    /// most [`MAX_DEPTH`]); `None` for a skimmed line, whose insides were
    /// not walked.
    pub fn depth(&self) -> Option<usize> {
        self.index.validated.then_some(self.index.depth)
    }

    /// Whether the record has no members.
    pub fn is_empty(&self) -> bool {
        self.index.members.is_empty()
    }

    /// Looks up a path (`data.usage.output_tokens`, `data.raw.messages[0]`).
    pub fn path(&self, path: &Path) -> Option<Raw<'a>> {
        let (first, rest) = path.segments().split_first()?;
        let mut v = self.get(first)?;
        for seg in rest {
            v = v.get(seg)?;
        }
        Some(v)
    }
}

/// The JSON type of a raw value, from its first byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `{…}`
    Object,
    /// `[…]`
    Array,
    /// `"…"`
    String,
    /// A number.
    Number,
    /// `true`/`false`.
    Bool,
    /// `null`.
    Null,
}

/// The bytes of one JSON value inside a validated line.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Raw<'a>(pub &'a [u8]);

impl fmt::Debug for Raw<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Raw({})", String::from_utf8_lossy(self.0))
    }
}

impl<'a> Raw<'a> {
    /// The raw bytes.
    pub fn bytes(&self) -> &'a [u8] {
        self.0
    }

    /// The value's type.
    pub fn kind(&self) -> Kind {
        match self.0.first() {
            Some(b'{') => Kind::Object,
            Some(b'[') => Kind::Array,
            Some(b'"') => Kind::String,
            Some(b't' | b'f') => Kind::Bool,
            Some(b'n') => Kind::Null,
            _ => Kind::Number,
        }
    }

    /// Decodes a string value (`None` for other types).
    pub fn as_str(&self) -> Option<Cow<'a, str>> {
        if self.kind() != Kind::String || self.0.len() < 2 {
            return None;
        }
        decode_str(&self.0[1..self.0.len() - 1])
    }

    /// The raw content of a string value between its quotes, escapes kept.
    pub fn str_content(&self) -> Option<&'a [u8]> {
        (self.kind() == Kind::String && self.0.len() >= 2).then(|| &self.0[1..self.0.len() - 1])
    }

    /// A number value as `f64`.
    pub fn as_f64(&self) -> Option<f64> {
        if self.kind() != Kind::Number {
            return None;
        }
        std::str::from_utf8(self.0).ok()?.parse().ok()
    }

    /// A boolean value.
    pub fn as_bool(&self) -> Option<bool> {
        match self.0 {
            b"true" => Some(true),
            b"false" => Some(false),
            _ => None,
        }
    }

    /// Whether this is `null`.
    pub fn is_null(&self) -> bool {
        self.0 == b"null"
    }

    /// Member `key` of an object, or item `key` (a decimal index) of an array.
    pub fn get(&self, key: &str) -> Option<Raw<'a>> {
        match self.kind() {
            Kind::Object => {
                let mut found = None;
                for (k, v) in self.members() {
                    if key_eq(k, key) {
                        found = Some(v); // last duplicate wins
                    }
                }
                found
            }
            Kind::Array => {
                let n: usize = key.parse().ok()?;
                self.items().nth(n)
            }
            _ => None,
        }
    }

    /// The members of an object (raw key content, value); empty for other types.
    pub fn members(&self) -> Members<'a> {
        Members { b: self.0, i: if self.kind() == Kind::Object { 1 } else { usize::MAX }, object: true }
    }

    /// The items of an array; empty for other types.
    pub fn items(&self) -> impl Iterator<Item = Raw<'a>> {
        Members { b: self.0, i: if self.kind() == Kind::Array { 1 } else { usize::MAX }, object: false }.map(|(_, v)| v)
    }

    /// Parses the value into a serde_json DOM (for the few jobs that need
    /// one), every number kept as written ([`dom`]).
    pub fn to_value(&self) -> Option<serde_json::Value> {
        dom::parse(self.0)
    }
}

/// Iterator over the members of an object or the items of an array.
pub struct Members<'a> {
    b: &'a [u8],
    i: usize,
    object: bool,
}

impl<'a> Iterator for Members<'a> {
    type Item = (&'a [u8], Raw<'a>);

    fn next(&mut self) -> Option<Self::Item> {
        let b = self.b;
        let mut i = ws(b, self.i.min(b.len()));
        if matches!(b.get(i), None | Some(b'}' | b']')) {
            self.i = usize::MAX;
            return None;
        }
        let mut key: &[u8] = &[];
        if self.object {
            let end = string_end(b, i)?;
            key = b.get(i + 1..end - 1)?;
            i = ws(b, end);
            if b.get(i) != Some(&b':') {
                self.i = usize::MAX;
                return None;
            }
            i = ws(b, i + 1);
        }
        let end = skip_trusted(b, i)?;
        let value = Raw(b.get(i..end)?);
        i = ws(b, end);
        self.i = if b.get(i) == Some(&b',') { i + 1 } else { usize::MAX };
        Some((key, value))
    }
}

/// Fully validates a line as one JSON object, as [`Index::parse`] does.
pub fn validate(line: &[u8]) -> Result<()> {
    Index::new().parse(line).map(|_| ())
}

/// Compares a raw (possibly escaped) key with a plain one.
pub fn key_eq(raw: &[u8], key: &str) -> bool {
    // Every escape decodes to fewer bytes than it takes, so a raw key that is
    // not longer than `key` matches only byte for byte (the common case, and
    // no search for a backslash in every key compared).
    if raw == key.as_bytes() {
        true
    } else if raw.len() <= key.len() || key.as_bytes().first().is_some_and(|&k| raw[0] != k && raw[0] != b'\\') {
        // An escaped key that decodes to `key` starts with `key`'s first byte
        // or with an escape.
        false
    } else if !raw.contains(&b'\\') {
        false
    } else {
        decode_str(raw).is_some_and(|k| k == key)
    }
}

/// Decodes the content of a JSON string (between its quotes). Borrowed when it
/// holds no escape. `None` only for content that was never validated and is bad.
pub fn decode_str(raw: &[u8]) -> Option<Cow<'_, str>> {
    let text = simdutf8::basic::from_utf8(raw).ok()?;
    if memchr::memchr(b'\\', raw).is_none() {
        return Some(Cow::Borrowed(text));
    }
    // Validated once above (SIMD); the slices below start and end at ASCII
    // backslashes or after escapes, so they are always on char boundaries.
    let mut out = String::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        let Some(k) = memchr::memchr(b'\\', &raw[i..]) else {
            out.push_str(text.get(i..)?);
            break;
        };
        out.push_str(text.get(i..i + k)?);
        i += k;
        let c = *raw.get(i + 1)?;
        i += 2;
        match c {
            b'"' => out.push('"'),
            b'\\' => out.push('\\'),
            b'/' => out.push('/'),
            b'b' => out.push('\u{8}'),
            b'f' => out.push('\u{c}'),
            b'n' => out.push('\n'),
            b'r' => out.push('\r'),
            b't' => out.push('\t'),
            b'u' => {
                let hi = hex4(raw.get(i..i + 4)?)?;
                i += 4;
                let cp = if (0xD800..0xDC00).contains(&hi) {
                    if raw.get(i..i + 2) != Some(b"\\u") {
                        return None;
                    }
                    let lo = hex4(raw.get(i + 2..i + 6)?)?;
                    if !(0xDC00..0xE000).contains(&lo) {
                        return None;
                    }
                    i += 6;
                    0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                } else {
                    hi
                };
                out.push(char::from_u32(cp)?);
            }
            _ => return None,
        }
    }
    Some(Cow::Owned(out))
}

fn hex4(b: &[u8]) -> Option<u32> {
    let mut v = 0u32;
    for &c in b {
        v = v * 16 + (c as char).to_digit(16)?;
    }
    Some(v)
}

/// Skips JSON whitespace.
#[inline]
fn ws(b: &[u8], mut i: usize) -> usize {
    while let Some(b' ' | b'\t' | b'\n' | b'\r') = b.get(i) {
        i += 1;
    }
    i
}

fn unexpected(b: &[u8], i: usize, what: &'static str) -> ParseError {
    if i >= b.len() {
        ParseError::UnexpectedEnd
    } else {
        ParseError::Syntax(i, what)
    }
}

/// Strings longer than this are checked by [`string::skip_plain`].
const LONG_STRING: usize = 32;

/// Validates a string starting at the quote at `i`; returns one past its closing quote.
fn string_checked(b: &[u8], i: usize) -> Result<usize> {
    string_from(b, i, LONG_STRING)
}

/// [`string_checked`], with the block scan used past `long` bytes of content
/// (`usize::MAX`: never, for tests).
#[inline(always)]
fn string_from(b: &[u8], i: usize, long: usize) -> Result<usize> {
    let mut j = i + 1;
    // Past this position the rest of the string is checked a block at a time
    // (short strings stay with the scalar hops).
    let mut blocks_from = (i + 1).saturating_add(long);
    loop {
        if j >= blocks_from {
            match string::skip_plain(b, j) {
                Ok(end) => return Ok(end),
                Err(resume) => {
                    j = resume;
                    blocks_from = resume.saturating_add(2 * long);
                }
            }
        }
        let k = find_special(b, j).ok_or(ParseError::UnexpectedEnd)?;
        match b[k] {
            b'"' => return Ok(k + 1),
            b'\\' => j = escape_checked(b, k)?,
            _ => {
                // A control character: an error, unless the line ends inside
                // this string (a torn write), which is reported as such.
                return match memchr2(b'"', b'\\', &b[k..]) {
                    Some(_) => Err(ParseError::Syntax(k, "control character in string")),
                    None => Err(ParseError::UnexpectedEnd),
                };
            }
        }
    }
}

/// Position of the first `"`, `\` or control character (below 0x20) at or
/// after `j`; see [`special`].
#[inline]
fn find_special(b: &[u8], j: usize) -> Option<usize> {
    special::next(b, j)
}

/// Position of the first `"`, `\` or control character (below 0x20) at or
/// after `j` (the SSE2 hop of the validating scanner, for other string scans).
#[inline]
pub(crate) fn next_special(b: &[u8], j: usize) -> Option<usize> {
    special::next(b, j)
}

/// Finding the next byte that ends a run of plain string content: `"`, `\`
/// or a control character (below 0x20). Strings are where the bytes are, and
/// in real captures escapes are dense (`\uXXXX` every few bytes), so this must
/// be cheap for short hops as well as long runs: 16 bytes are classified at
/// once with SSE2 (part of every x86_64 CPU), with a scalar loop elsewhere.
mod special {
    #[inline]
    fn is_special(c: u8) -> bool {
        c == b'"' || c == b'\\' || c < 0x20
    }

    /// Index of the first special byte at or after `from`.
    #[cfg(target_arch = "x86_64")]
    #[inline]
    pub(super) fn next(b: &[u8], from: usize) -> Option<usize> {
        use std::arch::x86_64::{
            __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_max_epu8, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
        };
        let mut i = from;
        // SAFETY: SSE2 is part of the x86_64 baseline, so the intrinsics are
        // always available; each load reads the 16 bytes at `i` only while
        // `i + 16 <= b.len()`, so it stays inside the slice.
        unsafe {
            let quote = _mm_set1_epi8(b'"' as i8);
            let backslash = _mm_set1_epi8(b'\\' as i8);
            let below = _mm_set1_epi8(0x1f);
            while i + 16 <= b.len() {
                let x = _mm_loadu_si128(b.as_ptr().add(i) as *const __m128i);
                let ctrl = _mm_cmpeq_epi8(_mm_max_epu8(x, below), below);
                let hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, backslash)), ctrl);
                let mask = _mm_movemask_epi8(hit) as u32;
                if mask != 0 {
                    return Some(i + mask.trailing_zeros() as usize);
                }
                i += 16;
            }
        }
        b.get(i..)?.iter().position(|&c| is_special(c)).map(|k| i + k)
    }

    /// Index of the first special byte at or after `from`.
    #[cfg(not(target_arch = "x86_64"))]
    #[inline]
    pub(super) fn next(b: &[u8], from: usize) -> Option<usize> {
        b.get(from..)?.iter().position(|&c| is_special(c)).map(|k| from + k)
    }

    #[cfg(test)]
    mod tests {
        #[test]
        fn agrees_with_a_plain_scan_at_every_offset() {
            let alphabet = [b'a', 0xc3, b'"', b'\\', 0x1f, 0x20, 0x7f, 0xff];
            let text: Vec<u8> = (0..200usize).map(|k| alphabet[k * 7 % 11 % 8]).collect();
            for from in 0..=text.len() + 1 {
                let want =
                    text.get(from..).and_then(|t| t.iter().position(|&c| super::is_special(c)).map(|k| from + k));
                assert_eq!(super::next(&text, from), want, "from {from}");
            }
        }
    }
}

/// Validates the escape at `j` (a backslash); returns the index after it.
fn escape_checked(b: &[u8], j: usize) -> Result<usize> {
    match b.get(j + 1) {
        None => Err(ParseError::UnexpectedEnd),
        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => Ok(j + 2),
        Some(b'u') => {
            let cp = hex_checked(b, j + 2)?;
            if (0xDC00..0xE000).contains(&cp) {
                return Err(ParseError::Syntax(j, "lone surrogate in \\u escape"));
            }
            if !(0xD800..0xDC00).contains(&cp) {
                return Ok(j + 6);
            }
            match b.get(j + 6..j + 8) {
                None if b.len() <= j + 7 => Err(ParseError::UnexpectedEnd),
                Some(b"\\u") => {
                    let lo = hex_checked(b, j + 8)?;
                    if (0xDC00..0xE000).contains(&lo) {
                        Ok(j + 12)
                    } else {
                        Err(ParseError::Syntax(j + 6, "invalid low surrogate in \\u escape"))
                    }
                }
                _ => Err(ParseError::Syntax(j, "lone surrogate in \\u escape")),
            }
        }
        Some(_) => Err(ParseError::Syntax(j, "invalid escape")),
    }
}

fn hex_checked(b: &[u8], at: usize) -> Result<u32> {
    let digits = match b.get(at..at + 4) {
        Some(d) => d,
        None => {
            // Either the line ends (torn) or a non-hex byte comes first.
            let avail = b.get(at..).unwrap_or(&[]);
            return if avail.iter().all(u8::is_ascii_hexdigit) {
                Err(ParseError::UnexpectedEnd)
            } else {
                Err(ParseError::Syntax(at, "invalid \\u escape"))
            };
        }
    };
    hex4(digits).ok_or(ParseError::Syntax(at, "invalid \\u escape"))
}

/// A stack of open containers as bits (1 = array), deep enough for [`MAX_DEPTH`].
struct Stack {
    bits: [u64; 2],
    len: usize,
}

impl Stack {
    fn push(&mut self, array: bool, at: usize) -> Result<()> {
        if self.len >= 128 {
            return Err(ParseError::TooDeep(at));
        }
        let (w, bit) = (self.len / 64, self.len % 64);
        if array {
            self.bits[w] |= 1 << bit;
        } else {
            self.bits[w] &= !(1 << bit);
        }
        self.len += 1;
        Ok(())
    }

    fn top_is_array(&self) -> Option<bool> {
        let n = self.len.checked_sub(1)?;
        Some(self.bits[n / 64] >> (n % 64) & 1 == 1)
    }
}

/// Validates one value starting at `i`, nested `depth` levels deep already;
/// returns one past its end. `deepest` is raised to the deepest level a
/// container of the value opens at (counting the `depth` levels around it).
fn skip_checked(b: &[u8], mut i: usize, depth: usize, deepest: &mut usize) -> Result<usize> {
    let mut stack = Stack { bits: [0; 2], len: 0 };
    let limit = MAX_DEPTH - depth;
    'value: loop {
        i = ws(b, i);
        match b.get(i) {
            None => return Err(ParseError::UnexpectedEnd),
            Some(&open @ (b'{' | b'[')) => {
                if stack.len >= limit {
                    return Err(ParseError::TooDeep(i));
                }
                *deepest = (*deepest).max(depth + stack.len + 1);
                let close = if open == b'{' { b'}' } else { b']' };
                i = ws(b, i + 1);
                if b.get(i) == Some(&close) {
                    i += 1;
                } else {
                    stack.push(open == b'[', i)?;
                    if open == b'{' {
                        i = key_colon(b, i)?;
                    }
                    continue 'value;
                }
            }
            Some(b'"') => i = string_checked(b, i)?,
            Some(b't') => i = literal(b, i, b"true")?,
            Some(b'f') => i = literal(b, i, b"false")?,
            Some(b'n') => i = literal(b, i, b"null")?,
            Some(b'-' | b'0'..=b'9') => i = number(b, i)?,
            Some(_) => return Err(ParseError::Syntax(i, "expected a value")),
        }
        // A value ended: close containers until one wants another value.
        loop {
            let Some(array) = stack.top_is_array() else {
                return Ok(i);
            };
            i = ws(b, i);
            match b.get(i) {
                Some(b',') => {
                    i += 1;
                    if !array {
                        i = key_colon(b, ws(b, i))?;
                    }
                    continue 'value;
                }
                Some(b'}') if !array => {
                    stack.len -= 1;
                    i += 1;
                }
                Some(b']') if array => {
                    stack.len -= 1;
                    i += 1;
                }
                None => return Err(ParseError::UnexpectedEnd),
                Some(_) => {
                    return Err(ParseError::Syntax(
                        i,
                        if array { "expected ',' or ']'" } else { "expected ',' or '}'" },
                    ))
                }
            }
        }
    }
}

/// Validates `"key"` `:` at `i`; returns the index after the colon.
fn key_colon(b: &[u8], i: usize) -> Result<usize> {
    if b.get(i) != Some(&b'"') {
        return Err(unexpected(b, i, "expected a key"));
    }
    let i = ws(b, string_checked(b, i)?);
    if b.get(i) != Some(&b':') {
        return Err(unexpected(b, i, "expected ':'"));
    }
    Ok(i + 1)
}

fn literal(b: &[u8], i: usize, word: &[u8]) -> Result<usize> {
    let end = i + word.len();
    match b.get(i..end) {
        Some(s) if s == word => Ok(end),
        _ if b.len() < end && word.starts_with(&b[i..]) => Err(ParseError::UnexpectedEnd),
        _ => Err(ParseError::Syntax(i, "expected a value")),
    }
}

fn digits(b: &[u8], mut i: usize) -> usize {
    while let Some(b'0'..=b'9') = b.get(i) {
        i += 1;
    }
    i
}

/// Validates a number (`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`), of
/// any size: its text is kept as written (serde_json's `arbitrary_precision`
/// accepts `1e400` too).
fn number(b: &[u8], mut i: usize) -> Result<usize> {
    if b.get(i) == Some(&b'-') {
        i += 1;
    }
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => i = digits(b, i + 1),
        None => return Err(ParseError::UnexpectedEnd),
        Some(_) => return Err(ParseError::Syntax(i, "invalid number")),
    }
    if b.get(i) == Some(&b'.') {
        let j = digits(b, i + 1);
        if j == i + 1 {
            return Err(unexpected(b, j, "invalid number"));
        }
        i = j;
    }
    if let Some(b'e' | b'E') = b.get(i) {
        i += 1;
        if let Some(b'+' | b'-') = b.get(i) {
            i += 1;
        }
        let j = digits(b, i);
        if j == i {
            return Err(unexpected(b, j, "invalid number"));
        }
        i = j;
    }
    Ok(i)
}

/// One past the closing quote of the (trusted) string at `i`.
fn string_end(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    loop {
        let k = memchr2(b'"', b'\\', b.get(j..)?)?;
        j += k;
        if b[j] == b'"' {
            return Some(j + 1);
        }
        j += 2;
    }
}

/// One past the end of the (trusted) value at `i`.
pub(crate) fn skip_trusted(b: &[u8], i: usize) -> Option<usize> {
    match *b.get(i)? {
        b'"' => string_end(b, i),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            loop {
                match *b.get(j)? {
                    b'"' => {
                        j = string_end(b, j)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth = depth.checked_sub(1)?;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
        }
        _ => {
            let mut j = i;
            while let Some(c) = b.get(j) {
                if matches!(c, b',' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n') {
                    break;
                }
                j += 1;
            }
            Some(j)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &[u8]) -> Result<Vec<(String, String)>> {
        let mut idx = Index::new();
        let rec = idx.parse(s)?;
        Ok(rec
            .members()
            .map(|(k, v)| (String::from_utf8_lossy(k).into_owned(), String::from_utf8_lossy(v.0).into_owned()))
            .collect())
    }

    fn serde_ok(s: &[u8]) -> bool {
        matches!(serde_json::from_slice::<serde_json::Value>(s), Ok(serde_json::Value::Object(_)))
    }

    #[test]
    fn canonical_and_spaced_lines_index_the_same_members() {
        let a = parse(br#"{"data":{"x":[1,{"y":"z"}]},"event":"tool:pre","timestamp":"t","workspace":"w"}"#).unwrap();
        let b =
            parse(br#" { "event" : "tool:pre", "workspace": "w", "timestamp": "t", "data": {"x": [1, {"y": "z"}]} } "#)
                .unwrap();
        let sorted = |mut v: Vec<(String, String)>| {
            v.sort();
            v.into_iter().map(|(k, v)| (k, v.replace(' ', ""))).collect::<Vec<_>>()
        };
        assert_eq!(sorted(a), sorted(b));
    }

    #[test]
    fn reports_each_kind_of_damage() {
        let cases: &[(&[u8], ParseError)] = &[
            (b"", ParseError::Blank),
            (b"   \r", ParseError::Blank),
            (b"[1,2,3]", ParseError::NotObject),
            (b"\"x\"", ParseError::NotObject),
            (b"{\"data\":{\"x\":\"ab", ParseError::UnexpectedEnd),
            (b"{\"a\":\"\xff\"}", ParseError::InvalidUtf8(6)),
            (b"{\"a\":1}{\"a\":2}", ParseError::Syntax(7, "trailing characters after the record")),
            (b"{\"a\":\"x{\"data\":1}", ParseError::Syntax(9, "expected ',' or '}'")),
            (b"{\"a\":01}", ParseError::Syntax(6, "expected ',' or '}'")),
            (b"{\"a\":\"\\x\"}", ParseError::Syntax(6, "invalid escape")),
            (b"{\"a\":\"\\udc00\"}", ParseError::Syntax(6, "lone surrogate in \\u escape")),
            (b"{\"a\":\"\x01\"}", ParseError::Syntax(6, "control character in string")),
            (b"{\"a\":tru}", ParseError::Syntax(5, "expected a value")),
            (b"{\"a\":[1,]}", ParseError::Syntax(8, "expected a value")),
            (b"{\"a\" 1}", ParseError::Syntax(5, "expected ':'")),
        ];
        for (line, want) in cases {
            assert_eq!(parse(line).unwrap_err(), *want, "{}", String::from_utf8_lossy(line));
            assert!(!serde_ok(line), "serde accepts {}", String::from_utf8_lossy(line));
        }
    }

    #[test]
    fn depth_limit_matches_serde_json() {
        for depth in [120, 126, 127, 128, 200] {
            let line = format!("{}1{}", "{\"a\":".repeat(depth), "}".repeat(depth));
            assert_eq!(parse(line.as_bytes()).is_ok(), serde_ok(line.as_bytes()), "depth {depth}");
        }
    }

    #[test]
    fn a_validated_line_knows_its_depth() {
        let mut idx = Index::new();
        for (line, depth) in
            [("{}", 1), (r#"{"a":1,"b":"[{"}"#, 1), (r#"{"a":[]}"#, 2), (r#"{"a":{"b":[1,{"c":[]}]},"d":[[]]}"#, 5)]
        {
            assert_eq!(idx.parse(line.as_bytes()).unwrap().depth(), Some(depth), "{line}");
        }
        let deepest = format!("{}{}", "{\"a\":".repeat(MAX_DEPTH - 1), "[]".to_owned() + &"}".repeat(MAX_DEPTH - 1));
        assert_eq!(idx.parse(deepest.as_bytes()).unwrap().depth(), Some(MAX_DEPTH));
        assert_eq!(idx.skim(br#"{"a":[[]]}"#).unwrap().depth(), None, "a skim does not walk containers");
    }

    #[test]
    fn decodes_escapes_and_surrogate_pairs() {
        let raw = br#"caf\u00e9 \ud83d\ude80 \"q\" a\\b\n\t\u65e5"#;
        assert_eq!(decode_str(raw).unwrap(), "café 🚀 \"q\" a\\b\n\t日");
        assert!(matches!(decode_str(b"plain"), Some(Cow::Borrowed("plain"))));
    }

    #[test]
    fn get_in_indexes_one_nested_object_per_line() {
        let mut idx = Index::new();
        let line = br#"{"message":{"id":"a","id":"b","m\u006fdel":"x","content":[1]},"other":{"id":"c"},"s":"t"}"#;
        let rec = idx.parse(line).unwrap();
        let get = |top: &str, k: &str| rec.get_in(top, k).map(|v| v.bytes().to_vec());
        assert_eq!(get("message", "id").as_deref(), Some(&b"\"b\""[..]), "the last duplicate");
        assert_eq!(get("message", "model").as_deref(), Some(&b"\"x\""[..]), "an escaped key");
        assert_eq!(get("other", "id").as_deref(), Some(&b"\"c\""[..]), "another object: indexed anew");
        assert_eq!(get("message", "content").as_deref(), Some(&b"[1]"[..]), "and back");
        assert_eq!(get("message", "absent"), None);
        assert_eq!(get("s", "id"), None, "not an object");
        assert_eq!(get("absent", "id"), None);
        // A new line forgets the last one's index.
        let rec = idx.parse(br#"{"message":{"id":"z"}}"#).unwrap();
        assert_eq!(rec.get_in("message", "id").map(|v| v.bytes().to_vec()), Some(b"\"z\"".to_vec()));
    }

    #[test]
    fn key_tags_never_hide_a_match() {
        let cases: [(&[u8], &str); 4] = [(b"event", "event"), (br"\u0065vent", "event"), (b"", ""), (br"a\\b", "a\\b")];
        for (raw, key) in cases {
            let t = key_tag(raw);
            assert!(t == key_tag(key.as_bytes()) || t == ESCAPED, "{raw:?}");
            assert!(key_eq(raw, key), "{raw:?}");
        }
        assert_ne!(key_tag(b"event"), key_tag(b"even"));
        assert_ne!(key_tag(b"event"), key_tag(b"fvent"));
    }

    #[test]
    fn nested_lookups() {
        let mut idx = Index::new();
        let line =
            br#"{"data":{"usage":{"output_tokens":1200},"list":[{"a":1},{"a":"two"}],"k\u0065y":true},"event":"e"}"#;
        let rec = idx.parse(line).unwrap();
        let p = |s: &str| rec.path(&Path::parse(s).unwrap());
        assert_eq!(p("data.usage.output_tokens").unwrap().as_f64(), Some(1200.0));
        assert_eq!(p("data.list.1.a").unwrap().as_str().unwrap(), "two");
        assert_eq!(p("data.key").unwrap().as_bool(), Some(true));
        assert_eq!(p("data.missing"), None);
        assert_eq!(p("data.list.5"), None);
        assert_eq!(rec.get_str("event").unwrap(), "e");
    }

    proptest::proptest! {
        /// The block scan of long strings agrees with the scalar scan on every
        /// input: same end, same error and position.
        #[test]
        fn block_and_scalar_string_scans_agree(
            parts in proptest::collection::vec(proptest::sample::select(vec![
                "x", "ab", "é", r"\\", r#"\""#, r"\", r"\u00e9", r"\u4E2D", r"\ud83d\ude80", r"\uDC00", r"\ud83d",
                r"\u12", r"\uzz00", r"\q", r"\/", r"\n", r"\t", r"\b\f\r", r"\\\", r"\u", r"\ud8", r"\uD",
                r"\uD800\u0041", r"\u00", "\t", r"\\u0041", "\"", r"\uD55c", r"\udbff\udfff", r"\ud83d\\ude80",
            ]), 0..120),
            pad in 0usize..70,
            close in proptest::bool::ANY,
        ) {
            let mut s = format!("\"{}", "p".repeat(pad));
            for p in &parts {
                s.push_str(p);
            }
            if close {
                s.push_str("\" tail");
            }
            let b = s.as_bytes();
            proptest::prop_assert_eq!(string_checked(b, 0), string_from(b, 0, usize::MAX), "{}", s);
        }
    }
}
