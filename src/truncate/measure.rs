//! Measuring a string of JSON text without decoding it: a few hops escape
//! to escape, then the rest of a long string 64 bytes at a time.
//!
//! [`super::shrink_raw`] needs, for every long string of a record, its
//! decoded length, its size as serde_json writes it and where its first
//! `head` decoded bytes end. Capture text escapes every non-ASCII character
//! (`\u00e9`, emoji as surrogate pairs `\ud83d\ude80`), so hopping escape to
//! escape ([`Hop`]) stops every few bytes. Here a block is counted with
//! bit masks, the way [`crate::json::string`] validates it:
//!
//! * decoded length = raw content bytes, less 1 per simple escape (`\n` is one
//!   byte), 3 per `\u` escape (six bytes for at most three), one more for a
//!   code point below U+0800 (digits `0`, `0-7`), one more below U+0080
//!   (digits `0`, `0`, `0-7`), and 2 more for the low half of a surrogate pair
//!   (`d`, `c-f`): a pair is 12 bytes for 4, counted as 3 for the high half
//!   and 1 for the low one;
//! * serialised size = decoded length, plus 1 per simple escape other than `\/`
//!   (serde_json writes `"` `\` and `\b \f \n \r \t` as two bytes), plus
//!   `ESCAPED[c] - 1` for each `\u00XX` escape of an ASCII character `c` (rare:
//!   taken one by one).
//!
//! Each escape is counted at its last byte, so the digit classes are read at
//! the `u` shifted by one to four positions, with the top bits of the previous
//! block carried in. At every block boundary the count is exact up to the
//! backslash of the escape still open there (backed up to the high half when
//! that is a low surrogate): a checkpoint from which the scalar hops can take
//! over. They do in the block where `head` decoded bytes are reached (to place
//! `head_end` exactly, as the hops would), and for anything that is not plain
//! valid content (control characters, a missing closing quote), which they
//! judge as before.

use super::ESCAPED;
use crate::json::simd::{block_at, escaped, next_special, Baseline, Classify, Digits, BLOCK};
use crate::json::string::escape_at;

/// Bytes of content hopped through before the block scan starts.
const SHORT: usize = 32;

/// What [`scan_string`] measured of one string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Scan {
    /// One past the closing quote.
    pub(super) end: usize,
    /// Decoded length in bytes.
    pub(super) len: usize,
    /// Serialised size as [`super::json_str_len`] counts it (quotes included).
    pub(super) size: usize,
    /// Raw index (a character and escape boundary) before which at least the
    /// first `head` decoded bytes lie (the closing quote if the string is shorter).
    pub(super) head_end: usize,
}

/// Measures the (valid) JSON string whose opening quote is at `start`
/// without decoding it: a few hops for a short string, then a block at a time
/// ([`scan_long`]). `None` on malformed input (which it does not
/// always detect: the line must have been validated).
#[inline]
pub(super) fn scan_string(b: &[u8], start: usize, head: usize) -> Option<Scan> {
    let mut hop = Hop::new(start);
    // Most strings (keys, ids, short values) end within a few hops.
    while hop.j <= start + SHORT {
        if hop.step(b, head)? {
            return Some(hop.scan());
        }
    }
    scan_long(Baseline::new(), b, hop, head)
}

/// The reference for [`scan_string`]: one hop per escape all the way.
#[cfg(test)]
pub(super) fn scan_string_scalar(b: &[u8], start: usize, head: usize) -> Option<Scan> {
    let mut hop = Hop::new(start);
    while !hop.step(b, head)? {}
    Some(hop.scan())
}

/// A scan of one string in progress, hopping escape to escape: `len` and
/// `size` measure the content before `j`, a raw index that is neither inside
/// an escape nor between the halves of a surrogate pair; `head_end` as in
/// [`Scan`], once found.
#[derive(Debug, Clone, Copy)]
struct Hop {
    j: usize,
    len: usize,
    size: usize,
    head_end: Option<usize>,
}

impl Hop {
    /// At the start of the string whose opening quote is at `start`.
    fn new(start: usize) -> Self {
        Hop { j: start + 1, len: 0, size: 0, head_end: None }
    }

    /// Passes one plain run and the escape after it; `Some(true)` when the
    /// run ends at the closing quote (then `j` is that quote).
    #[inline]
    fn step(&mut self, b: &[u8], head: usize) -> Option<bool> {
        // Valid content has no control characters: the hop stops at `"` or `\`.
        let run = next_special(b, self.j)? - self.j;
        if self.head_end.is_none() && self.len + run >= head {
            // Inside this plain run: step to the next character boundary.
            let mut at = self.j + head.saturating_sub(self.len);
            while b.get(at).is_some_and(|&c| (0x80..0xC0).contains(&c)) {
                at += 1;
            }
            self.head_end = Some(at);
        }
        self.len += run;
        self.size += run;
        self.j += run;
        if b.get(self.j)? == &b'"' {
            return Some(true);
        }
        let (cp, used) = escape_at(b, self.j)?;
        let (n, s) = match cp {
            0..0x80 => (1, usize::from(ESCAPED[cp as usize])),
            0x80..0x800 => (2, 2),
            0x800..0x10000 => (3, 3),
            _ => (4, 4),
        };
        self.len += n;
        self.size += s;
        self.j += used;
        if self.head_end.is_none() && self.len >= head {
            self.head_end = Some(self.j);
        }
        Some(false)
    }

    /// The measure of a string whose closing quote is at `j`.
    fn scan(&self) -> Scan {
        Scan { end: self.j + 1, len: self.len, size: self.size + 2, head_end: self.head_end.unwrap_or(self.j) }
    }
}

/// What one call of [`blocks`] found.
enum Measured {
    /// The whole string.
    Done(Scan),
    /// `head` is reached after this checkpoint (and before the next).
    Head(Hop),
    /// Something the block count does not handle after this checkpoint.
    Scalar(Hop),
}

/// Finishes the scan of the string that `hop` is in.
fn scan_long<C: Classify>(cls: C, b: &[u8], mut hop: Hop, head: usize) -> Option<Scan> {
    loop {
        match blocks(cls, b, hop, head)? {
            Measured::Done(scan) => return Some(scan),
            Measured::Head(from) => {
                hop = from;
                while hop.head_end.is_none() {
                    if hop.step(b, head)? {
                        return Some(hop.scan());
                    }
                }
            }
            Measured::Scalar(mut hop) => {
                while !hop.step(b, head)? {}
                return Some(hop.scan());
            }
        }
    }
}

/// The bits of `m` moved `k` positions up (`1..=63`), with the top bits of
/// `prev` (the same class in the previous block) carried in.
#[inline(always)]
fn shl(m: u64, prev: u64, k: u32) -> u64 {
    m << k | prev >> (64 - k)
}

/// Counts blocks from `from` until the string ends, `head` is reached or the
/// block count cannot go on.
#[inline]
fn blocks<C: Classify>(cls: C, b: &[u8], from: Hop, head: usize) -> Option<Measured> {
    let mut checkpoint = from;
    // Counts up to `at`: exact but for the raw bytes of an escape still open there.
    let (mut len, mut size) = (from.len, from.size);
    let mut prev_escaped = 0u64;
    let mut prev = Digits::default();
    let mut pad = [b' '; BLOCK];
    let mut at = from.j;
    while at < b.len() {
        let block = block_at(b, at, &mut pad);
        let p = cls.plain(block);
        let esc = escaped(p.backslash, &mut prev_escaped);
        let quotes = p.quote & !esc;
        let (before, raw) = match quotes {
            0 => (!0, BLOCK),
            q => ((1u64 << q.trailing_zeros()) - 1, q.trailing_zeros() as usize),
        };
        if p.control & before != 0 {
            return Some(Measured::Scalar(checkpoint));
        }
        let esc = esc & before;
        let (mut minus, mut plus) = (0usize, 0usize);
        if esc != 0 || prev.u >> 60 != 0 {
            let mut c = cls.digits(block);
            c.u &= esc;
            let simple = esc & !c.u;
            // The last digit of each `\u` escape, and its class.
            let ends = shl(c.u, prev.u, 4) & before;
            let below_800 = ends & shl(c.zero, prev.zero, 3) & shl(c.oct, prev.oct, 2);
            let below_80 = below_800 & shl(c.zero, prev.zero, 2) & shl(c.oct, prev.oct, 1);
            let low = ends & shl(c.d, prev.d, 3) & shl(c.cf, prev.cf, 2);
            minus = (simple.count_ones() + 3 * ends.count_ones() + below_800.count_ones() + below_80.count_ones())
                as usize
                + 2 * low.count_ones() as usize;
            plus = (simple & !c.slash).count_ones() as usize;
            let mut ascii = below_80;
            while ascii != 0 {
                let backslash = (at + ascii.trailing_zeros() as usize).checked_sub(5)?;
                ascii &= ascii - 1;
                let (cp, _) = escape_at(b, backslash)?;
                plus += usize::from(*ESCAPED.get(cp as usize)?) - 1;
            }
            prev = c;
        } else {
            prev = Digits::default();
        }
        len = (len + raw).saturating_sub(minus);
        size = (size + raw + plus).saturating_sub(minus);
        if quotes != 0 {
            if checkpoint.head_end.is_none() && len >= head {
                return Some(Measured::Head(checkpoint));
            }
            let end = at + raw;
            return Some(Measured::Done(Scan {
                end: end + 1,
                len,
                size: size + 2,
                head_end: checkpoint.head_end.unwrap_or(end),
            }));
        }
        let next = at + BLOCK;
        if next >= b.len() {
            // The line ends inside the string.
            break;
        }
        // The backslash of the escape open at `next`, if any.
        let open = if prev_escaped != 0 {
            next - 1
        } else if prev.u >> 60 != 0 {
            at + 62 - prev.u.leading_zeros() as usize
        } else {
            next
        };
        let mut cut = Hop {
            j: open,
            len: len.saturating_sub(next - open),
            size: size.saturating_sub(next - open),
            head_end: checkpoint.head_end,
        };
        if is_low_surrogate(b, open) {
            // Back to the high half, which counted 3 of the pair's 4 bytes.
            cut = Hop {
                j: open.checked_sub(6)?,
                len: cut.len.saturating_sub(3),
                size: cut.size.saturating_sub(3),
                ..cut
            };
        }
        if cut.head_end.is_none() && cut.len >= head {
            return Some(Measured::Head(checkpoint));
        }
        checkpoint = cut;
        at = next;
    }
    // The line ends inside the string.
    Some(Measured::Scalar(checkpoint))
}

/// Whether `b[i..]` starts with the escape of a low surrogate (`\uDC00` to
/// `\uDFFF`).
fn is_low_surrogate(b: &[u8], i: usize) -> bool {
    matches!(b.get(i..i + 4), Some(&[b'\\', b'u', d, x]) if d | 0x20 == b'd' && (b'c'..=b'f').contains(&(x | 0x20)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::simd::{Scalar, Swar};

    /// The block measure with every classifier, against the hops alone.
    #[test]
    fn every_classifier_measures_alike() {
        let pieces = [r"\u00e9", r"\ud83d\ude80", r"\n", r"\/", r"\u0001", "x", "é", r"\\", r#"\""#];
        for pad in 0..70 {
            let body: String = (0..200).map(|k| pieces[(k * 7 + pad) % pieces.len()]).collect();
            let text = format!(r#""{}{body}" ,"#, "p".repeat(pad));
            let b = text.as_bytes();
            for head in [0, 40, 300, usize::MAX] {
                let want = scan_string_scalar(b, 0, head);
                assert!(want.is_some());
                let long = |hop: Hop| (scan_long(Scalar, b, hop, head), scan_long(Swar::new(), b, hop, head));
                let hop = Hop::new(0);
                assert_eq!(long(hop), (want, want), "{text} head {head}");
                assert_eq!(scan_string(b, 0, head), want);
            }
        }
    }
}
