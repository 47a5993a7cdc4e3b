//! The grammar of a JSON value, checked as serde_json checks it: numbers,
//! literals, strings ([`super::string`]), nesting at most [`MAX_DEPTH`],
//! with the exact error and position of the first damage.

use super::error::{ParseError, Result, MAX_DEPTH};
use super::string::string_checked;

/// Skips JSON whitespace.
#[inline]
pub(super) fn ws(b: &[u8], mut i: usize) -> usize {
    while let Some(b' ' | b'\t' | b'\n' | b'\r') = b.get(i) {
        i += 1;
    }
    i
}

pub(super) fn unexpected(b: &[u8], i: usize, what: &'static str) -> ParseError {
    if i >= b.len() {
        ParseError::UnexpectedEnd
    } else {
        ParseError::Syntax(i, what)
    }
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
pub(super) fn skip_checked(b: &[u8], mut i: usize, depth: usize, deepest: &mut usize) -> Result<usize> {
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
pub(super) fn number(b: &[u8], mut i: usize) -> Result<usize> {
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
