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
//!
//! # Layers
//!
//! Each module uses only the ones listed before it, never one after it nor
//! this one (whose re-exports are the public surface):
//!
//! 1. `simd`: byte classification over blocks and hops, the only `unsafe`;
//! 2. `error`: [`ParseError`] and [`MAX_DEPTH`];
//! 3. `string`: the one escape decoder, and the validating string scan
//!    (its long strings a block at a time, over `simd`);
//! 4. `validate`: the grammar of a value (numbers, literals, nesting);
//! 5. `skim`: the structural skim of containers (over `simd`) and the
//!    trusted walk inside validated values;
//! 6. `decode`: reading values ([`Raw`], [`Kind`], [`decode_str`],
//!    [`key_eq`]); then [`dom`], a serde_json DOM of a value
//!    ([`Raw::to_value`]) built over `validate`, `skim` and `decode`;
//! 7. this module: the [`Index`] of a line's top-level members and the
//!    [`Record`] that reads it.
//!
//! [`path`] (field paths) and [`mod@write`] (JSON text out) stand apart.

use std::borrow::Cow;
use std::cell::RefCell;
use std::ops::Range;

mod decode;
pub mod dom;
mod error;
pub mod path;
pub(crate) mod simd;
pub(crate) mod skim;
pub(crate) mod string;
#[cfg(test)]
mod tests;
pub(crate) mod validate;
pub mod write;

pub use decode::{decode_str, key_eq, Kind, Members, Raw};
pub use error::{ParseError, MAX_DEPTH};
pub use path::{Path, PathError};

use error::Result;
use string::string_checked;
use validate::{skip_checked, unexpected, ws};

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
    /// (`skim::skip_container`). UTF-8, the top-level structure, keys
    /// and scalar values are fully checked. For every valid line the result is
    /// the same as `parse`; a line damaged only inside a container may be
    /// accepted, so confirm a line with [`fn@validate`] before relying on more
    /// than its envelope (see [`Record::is_validated`]).
    /// A line the skim refuses is parsed again in full, so it is reported
    /// with the same reason as by `parse`.
    pub fn skim<'a>(&'a mut self, line: &'a [u8]) -> Result<Record<'a>> {
        if self.index(line, false).is_err() {
            return self.index(line, true);
        }
        Ok(Record { line, index: self })
    }

    /// The record of `line` as this index holds it, without reading `line`
    /// again: `line` must be the bytes it was last made of (by
    /// [`Index::parse`] or [`Index::skim`], which succeeded). A reader that
    /// keeps a line's index to visit it later parses it once.
    pub fn record<'a>(&'a self, line: &'a [u8]) -> Record<'a> {
        Record { line, index: self }
    }

    /// The bytes this index holds (its member lists), to bound what a
    /// reader keeping indexes holds.
    pub fn footprint(&self) -> usize {
        let nested = self.nested.borrow().members.capacity();
        std::mem::size_of::<Index>() + (self.members.capacity() + nested) * std::mem::size_of::<Member>()
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
                    Some(b'{' | b'[') if !full => skim::skip_container(line, i)?,
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

/// Fully validates a line as one JSON object, as [`Index::parse`] does.
pub fn validate(line: &[u8]) -> Result<()> {
    Index::new().parse(line).map(|_| ())
}
