//! A structural skim: the end of a JSON object or array found without
//! validating what is inside it.
//!
//! Jobs that decide on a record's envelope (`event`, `workspace`, `timestamp`)
//! must not pay for its `data`, which holds almost all the bytes (97% of a
//! real capture sits in `llm:request` payloads). [`skip_container`] finds the
//! bracket that closes a container 64 bytes at a time, the way simdjson's
//! first stage does: bit masks of quotes, backslashes and brackets; escaped
//! characters from runs of backslashes; the inside of strings as a prefix XOR
//! of the unescaped quotes; then only brackets outside strings are counted.
//! No work is done per escape, so text dense with `\uXXXX` escapes skims as
//! fast as plain text.
//!
//! What the skim checks: strings are closed, brackets outside strings balance
//! (an opening bracket of either kind against a closing one of either kind),
//! and the line does not end inside the container. A torn line almost always
//! fails these. What it does not check: the grammar inside (escapes, numbers,
//! commas, colons, control characters, nesting depth) — [`fn@crate::json::validate`]
//! does, for the lines a tool goes on to use.
//!
//! The trusted walk lives here too: [`skip_trusted`] and [`string_end`] step
//! over a value inside a line that was already validated ([`super::Raw::get`],
//! [`super::Raw::members`]), trusting the grammar but never panicking.

use memchr::memchr2;

use super::error::ParseError;
use super::simd::{self, block_at, escaped, prefix_xor, Classify, Scan, BLOCK};

/// One past the bracket that closes the object or array opening at `b[i]`.
///
/// Fails with [`ParseError::UnexpectedEnd`] when the line ends first (inside
/// a string or with brackets open) and with a syntax error when a closing
/// bracket outside strings has no opening one. Never panics; `b[i]` must be
/// `{` or `[` for a meaningful answer.
pub(crate) fn skip_container(b: &[u8], i: usize) -> Result<usize, ParseError> {
    simd::with_popcnt(Skip { b, i })
}

/// [`skip_container`] as a block scan, for every classifier.
struct Skip<'a> {
    b: &'a [u8],
    i: usize,
}

impl Scan for Skip<'_> {
    type Out = Result<usize, ParseError>;

    #[inline(always)]
    fn run<C: Classify>(self, c: C) -> Self::Out {
        skip(c, self.b, self.i)
    }
}

/// [`skip_container`] with the classifier `c`.
#[inline(always)]
fn skip<C: Classify>(c: C, b: &[u8], i: usize) -> Result<usize, ParseError> {
    let mut prev_escaped = 0u64;
    let mut in_string = 0u64;
    let mut depth: u64 = 0;
    let mut at = i;
    let mut pad = [b' '; BLOCK];
    while at < b.len() {
        let block = block_at(b, at, &mut pad);
        let m = c.structure(block);
        let esc = escaped(m.backslash, &mut prev_escaped);
        let quotes = m.quote & !esc;
        let inside = prefix_xor(quotes) ^ in_string;
        in_string = ((inside as i64) >> 63) as u64;
        let open = m.open & !inside;
        let close = m.close & !inside;
        let closes = u64::from(close.count_ones());
        if depth > closes {
            // This block cannot close the container: count and move on.
            depth = depth + u64::from(open.count_ones()) - closes;
        } else {
            let mut brackets = open | close;
            while brackets != 0 {
                let k = brackets.trailing_zeros();
                let bit = 1u64 << k;
                if open & bit != 0 {
                    depth += 1;
                } else {
                    match depth.checked_sub(1) {
                        Some(0) => return Ok(at + k as usize + 1),
                        Some(d) => depth = d,
                        None => return Err(ParseError::Syntax(at + k as usize, "unbalanced bracket")),
                    }
                }
                brackets &= brackets - 1;
            }
        }
        at += BLOCK;
    }
    Err(ParseError::UnexpectedEnd)
}

/// One past the closing quote of the (trusted) string at `i`.
#[inline]
pub(crate) fn string_end(b: &[u8], i: usize) -> Option<usize> {
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
#[inline]
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
mod tests;
