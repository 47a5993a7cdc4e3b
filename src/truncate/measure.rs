//! Measuring the rest of a long string 64 bytes at a time.
//!
//! [`super::shrink_raw`] needs, for every long string of a record, its
//! decoded length, its size as serde_json writes it and where its first
//! `head` decoded bytes end. Capture text escapes every non-ASCII character
//! (`\u00e9`, emoji as surrogate pairs `\ud83d\ude80`), so hopping escape to
//! escape ([`super::Hop`]) stops every few bytes. Here a block is counted with
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

use super::{Hop, Scan, ESCAPED};
use crate::json::simd::{block_at, escaped, Classify, Digits, BLOCK};
use crate::json::string::escape_at;

/// Bytes of content hopped through before the block scan starts.
pub(super) const SHORT: usize = 32;

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
pub(super) fn scan_long<C: Classify>(cls: C, b: &[u8], mut hop: Hop, head: usize) -> Option<Scan> {
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
    use crate::truncate::{scan_string, scan_string_scalar};

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
