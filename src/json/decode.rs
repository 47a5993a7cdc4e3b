//! Reading values of a validated line: their type, strings decoded,
//! members and items walked with the trusted skip, keys compared.

use std::borrow::Cow;
use std::fmt;

use super::skim::{skip_trusted, string_end};
use super::string::escape_at;
use super::validate::ws;

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
        let (cp, used) = escape_at(raw, i)?;
        i += used;
        match u8::try_from(cp) {
            // `\n`, `\"`, …: one byte, pushed as such.
            Ok(ascii) if ascii.is_ascii() => out.push(char::from(ascii)),
            _ => out.push(char::from_u32(cp)?),
        }
    }
    Some(Cow::Owned(out))
}
