//! The content of JSON strings: the one escape decoder, and the validating
//! scan of a string.
//!
//! [`escape_at`] decodes one escape (`\n`, `\uXXXX`, a surrogate pair) for
//! every reader of string content: the decoder of values
//! ([`super::decode_str`]), this validation and the measure of the
//! truncation pre-pass. [`string_checked`] validates a string the way
//! serde_json does, hopping from one special byte to the next
//! ([`simd::next_special`]) and handing long strings to a block scan
//! ([`blocks`]), with the exact error and position of a damaged one.

use super::error::{ParseError, Result};
use super::simd;

mod blocks;
#[cfg(test)]
mod tests;

/// Strings longer than this are checked by [`blocks::skip_plain`].
const LONG_STRING: usize = 32;

/// Validates a string starting at the quote at `i`; returns one past its closing quote.
pub(crate) fn string_checked(b: &[u8], i: usize) -> Result<usize> {
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
            match blocks::skip_plain(b, j) {
                Ok(end) => return Ok(end),
                Err(resume) => {
                    j = resume;
                    blocks_from = resume.saturating_add(2 * long);
                }
            }
        }
        let k = simd::next_special(b, j).ok_or(ParseError::UnexpectedEnd)?;
        match b[k] {
            b'"' => return Ok(k + 1),
            b'\\' => j = escape_checked(b, k)?,
            _ => {
                // A control character: an error, unless the line ends inside
                // this string (a torn write), which is reported as such.
                return match memchr::memchr2(b'"', b'\\', &b[k..]) {
                    Some(_) => Err(ParseError::Syntax(k, "control character in string")),
                    None => Err(ParseError::UnexpectedEnd),
                };
            }
        }
    }
}

/// Validates the escape at `j` (a backslash); returns the index after it.
#[inline]
fn escape_checked(b: &[u8], j: usize) -> Result<usize> {
    match escape_at(b, j) {
        Some((_, used)) => Ok(j + used),
        None => Err(escape_error(b, j)),
    }
}

/// Why the escape at `j` (a backslash) is not one [`escape_at`] accepts.
#[cold]
fn escape_error(b: &[u8], j: usize) -> ParseError {
    match b.get(j + 1) {
        None => ParseError::UnexpectedEnd,
        Some(b'u') => {
            let cp = match hex_checked(b, j + 2) {
                Ok(cp) => cp,
                Err(e) => return e,
            };
            if !(0xD800..0xDC00).contains(&cp) {
                // Not a high half, and not accepted: a low half alone.
                return ParseError::Syntax(j, "lone surrogate in \\u escape");
            }
            match b.get(j + 6..j + 8) {
                None if b.len() <= j + 7 => ParseError::UnexpectedEnd,
                Some(b"\\u") => match hex_checked(b, j + 8) {
                    Ok(_) => ParseError::Syntax(j + 6, "invalid low surrogate in \\u escape"),
                    Err(e) => e,
                },
                _ => ParseError::Syntax(j, "lone surrogate in \\u escape"),
            }
        }
        Some(_) => ParseError::Syntax(j, "invalid escape"),
    }
}

/// The four hex digits at `at`, or why they are not.
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

/// The code point of the escape at `b[i]` (a backslash) and the bytes it
/// takes (a surrogate pair takes 12). `None` for anything but `\" \\ \/ \b
/// \f \n \r \t \uXXXX`, a lone surrogate half, or an escape cut short.
/// Inlined into each hot loop that reads escapes (decoding, validating,
/// measuring), as each had its own copy before.
#[inline(always)]
pub(crate) fn escape_at(b: &[u8], i: usize) -> Option<(u32, usize)> {
    let c = match b.get(i + 1)? {
        b'"' => b'"',
        b'\\' => b'\\',
        b'/' => b'/',
        b'b' => 8,
        b'f' => 12,
        b'n' => b'\n',
        b'r' => b'\r',
        b't' => b'\t',
        b'u' => {
            let hi = hex4(b.get(i + 2..i + 6)?)?;
            if (0xD800..0xDC00).contains(&hi) {
                if b.get(i + 6..i + 8)? != b"\\u" {
                    return None;
                }
                let lo = hex4(b.get(i + 8..i + 12)?)?;
                if !(0xDC00..0xE000).contains(&lo) {
                    return None;
                }
                return Some((0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00), 12));
            }
            if (0xDC00..0xE000).contains(&hi) {
                return None;
            }
            return Some((hi, 6));
        }
        _ => return None,
    };
    Some((u32::from(c), 2))
}

/// Value of each byte as a hex digit (`0xFF`: not one).
static HEX: [u8; 256] = hex_table();

const fn hex_table() -> [u8; 256] {
    let mut table = [0xFFu8; 256];
    let mut i = 0;
    while i < 10 {
        table[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        table[b'a' as usize + i] = 10 + i as u8;
        table[b'A' as usize + i] = 10 + i as u8;
        i += 1;
    }
    table
}

/// The value of four hex digits.
#[inline(always)]
fn hex4(b: &[u8]) -> Option<u32> {
    let &[a, b, c, d] = b else {
        return None;
    };
    let [a, b, c, d] = [a, b, c, d].map(|x| HEX[usize::from(x)]);
    if (a | b | c | d) & 0xF0 != 0 {
        return None;
    }
    Some(u32::from(a) << 12 | u32::from(b) << 8 | u32::from(c) << 4 | u32::from(d))
}
