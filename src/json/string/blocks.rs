//! Validating the rest of a long string 64 bytes at a time.
//!
//! Most bytes of a capture sit in a few long strings (conversation text in
//! `llm:request` payloads), and canonical writers escape every non-ASCII
//! character as `\uXXXX`, so a scalar scan stops every few bytes. Here a block
//! is classified with bit masks instead, as in the structural skim
//! ([`crate::json::skim`]): quotes, backslashes and control characters, then (only
//! in blocks that hold escapes) `u`, hex digits and `d`/`D`; the other escapes
//! (`\n`, `\"`: few) are checked one by one.
//! The characters escaped by a backslash come from the odd-run rule, and each
//! `\u` escape marks the four positions that must be hex digits (carried into
//! the next block when they run past this one).
//!
//! The block scan proves a string valid when every escape is one of
//! `\" \\ \/ \b \f \n \r \t \uXXXX` and no control character occurs, and
//! every surrogate escape is half of a pair (emoji are written as pairs).
//! Pairs are checked with masks too, at the second digit of each `\uD`
//! escape (`8`-`B` for a high half, `C`-`F` for a low one): each high half
//! has a low half's second digit six bytes later, and no other low half
//! occurs. Anything else hands back to the scalar scanner, which gives the
//! exact verdict and error position, from the last block boundary where no
//! escape or pair was open. On CPUs with AVX2 (detected at run time) blocks
//! are classified in 32-byte lanes.

use crate::json::simd::{self, block_at, escaped, Classify, Scan, BLOCK};

/// Skips string content from `from` (inside a string, not inside an escape).
///
/// `Ok(end)`: the string is valid and `end` is one past its closing quote.
/// `Err(resume)`: the scalar scanner must decide, starting at `resume`
/// (`from`, or a later position where no escape is open).
pub(super) fn skip_plain(b: &[u8], from: usize) -> Result<usize, usize> {
    simd::fastest(SkipPlain { b, from })
}

/// [`skip_plain`] as a block scan, for every classifier.
struct SkipPlain<'a> {
    b: &'a [u8],
    from: usize,
}

impl Scan for SkipPlain<'_> {
    type Out = Result<usize, usize>;

    #[inline(always)]
    fn run<C: Classify>(self, c: C) -> Self::Out {
        skip_plain_with(c, self.b, self.from)
    }
}

/// [`skip_plain`] with the classifier `c`.
#[inline(always)]
fn skip_plain_with<C: Classify>(c: C, b: &[u8], from: usize) -> Result<usize, usize> {
    let mut prev_escaped = 0u64;
    // Carried from escapes near the end of the previous block, as masks of
    // this block: digits that must be hex; first digits of a `\u` escape;
    // second digits of a `\uD` escape; where a low half's second digit must
    // be (six bytes after a high half's).
    let (mut need_hex, mut first_in, mut second_in, mut low_in) = (0u64, 0u64, 0u64, 0u64);
    let mut clean = from;
    let mut at = from;
    let mut pad = [b' '; BLOCK];
    while at < b.len() {
        if prev_escaped == 0 && need_hex == 0 && low_in == 0 {
            // No escape open, and not between the halves of a pair.
            clean = at;
        }
        let block = block_at(b, at, &mut pad);
        let p = c.plain(block);
        let esc = escaped(p.backslash, &mut prev_escaped);
        let quotes = p.quote & !esc;
        // Bits before the closing quote (all of them when it is not here).
        let before = if quotes == 0 { !0 } else { (1u64 << quotes.trailing_zeros()) - 1 };
        if p.control & before != 0 {
            return Err(clean);
        }
        let esc = esc & before;
        if esc != 0 || need_hex != 0 || low_in != 0 {
            let e = c.escapes(block);
            let u = esc & e.u;
            // The four positions after each `u` must be hex digits: one
            // multiplication spreads each bit over them (and the ones past
            // this block into the high half). Bits of `u` 5 or more apart
            // spread without carries; closer ones (`\u\u`) put the second
            // backslash among the first's digits, a position the lower bit
            // spreads to exactly (carries only go up): an error either way.
            let spread = (u128::from(u) << 1) * 0b1111;
            let hex = need_hex | spread as u64;
            // Past this check every `\u` of the string has its four digits
            // before the closing quote (a quote is not a hex digit).
            if hex & !e.hex != 0 {
                return Err(clean);
            }
            // Escapes other than `\u` are few (`\n`, `\"`): checked one by one.
            let mut other = esc & !e.u;
            while other != 0 {
                let k = other.trailing_zeros() as usize;
                other &= other - 1;
                if !matches!(block[k], b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') {
                    return Err(clean);
                }
            }
            // Surrogates (`\uD800`-`\uDFFF`), at their second digit.
            let d = (first_in | (u << 1)) & e.d;
            let second = second_in | (d << 1);
            let (high, low) = (second & e.high, second & e.low);
            // A lone half, or a high half at the end of the string.
            if (low_in | (high << 6)) != low || (quotes != 0 && (high >> 58) != 0) {
                return Err(clean);
            }
            need_hex = (spread >> 64) as u64;
            first_in = u >> 63;
            second_in = d >> 63;
            low_in = high >> 58;
        }
        if quotes != 0 {
            return Ok(at + quotes.trailing_zeros() as usize + 1);
        }
        at += BLOCK;
    }
    Err(clean)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every classifier finds the same ends as the dispatched scan, on
    /// blocks of assorted bytes.
    #[test]
    fn every_classifier_finds_the_same_ends() {
        use crate::json::simd::{Baseline, Scalar, Swar};
        for seed in 0..256usize {
            let block: [u8; BLOCK] = std::array::from_fn(|k| ((seed * 131 + k * 37) ^ (k << 3)) as u8);
            let mut line = vec![b'"'];
            line.extend_from_slice(&block);
            line.extend_from_slice(b"\" tail");
            let want = skip_plain_with(Scalar, &line, 1);
            assert_eq!(skip_plain_with(Swar::new(), &line, 1), want);
            assert_eq!(skip_plain_with(Baseline::new(), &line, 1), want);
            assert_eq!(skip_plain(&line, 1), want);
        }
    }

    #[test]
    fn plain_strings_end_at_their_quote() {
        for pad in 0..140 {
            for body in
                [r#"\\"#, r#"\""#, r#"\\\""#, r#"\u00e9\u4e2d"#, r#"\ud83d\ude80\uD55C"#, r#"\/\b\f\n\r\t"#, "é"]
            {
                let s = format!(r#""{}{}{}" tail"#, "x".repeat(pad), body, "y".repeat(pad % 7));
                let end = s.find(" tail").unwrap();
                assert_eq!(skip_plain(s.as_bytes(), 1), Ok(end), "{s}");
            }
        }
    }

    #[test]
    fn what_needs_the_scalar_scanner() {
        for pad in 0..140 {
            let x = "x".repeat(pad);
            for body in [r#"\ud83d"#, r#"\ud83d\u0041"#, r#"\uDC00"#, r#"\u12g4"#, r#"\q"#, "\t", r#"\u12"#] {
                let s = format!(r#""{x}{body}" tail"#);
                let resume = skip_plain(s.as_bytes(), 1).unwrap_err();
                // It resumes at a block boundary before the trouble.
                assert!(resume >= 1 && resume <= 1 + pad, "{s}: {resume}");
                assert_eq!((resume - 1) % BLOCK, 0, "{s}");
            }
        }
        assert_eq!(skip_plain(br#""never closed"#, 1), Err(1));
    }

    #[test]
    fn a_pair_on_a_block_boundary_is_resumed_before_its_high_half() {
        for pad in 0..BLOCK {
            for tail in ["\t", "", r"\q"] {
                // Escapes every few bytes keep the scalar hops short.
                let s = format!(r#""{}{}\ud83d\ude80xx{tail}"#, r"ab\n".repeat(10), "p".repeat(pad));
                let b = s.as_bytes();
                assert_eq!(super::super::string_checked(b, 0), super::super::string_from(b, 0, usize::MAX), "{s}");
            }
        }
    }

    /// Surrogate escapes at every offset to a block boundary, paired or
    /// not, and `\u` escapes cut short by the next one: the same verdict and
    /// position as the scalar scanner.
    #[test]
    fn surrogates_at_every_offset_as_the_scalar_scanner() {
        let cases = [
            r"\ud83d\ude80",
            r"\uD83D\uDE80\udbff\udfff",
            r"\ud83d\ude80\ud83d\ude80",
            r"\ud83d",
            r"\ude80",
            r"\ud83d\\ude80",
            r"\ud83d\u0041",
            r"\ud83d\ud83d",
            r"\ud7ff\uD000",
            r"\ude80\ud83d",
            // `\u` escapes closer than six bytes (the digit spread's carries).
            r"\u\u0041",
            r"\u0\u0041",
            r"\u00\u0041",
            r"\u004\u0041",
            r"\u\\u0041",
            r"\u0041\u0042\u",
        ];
        for pad in 0..=2 * BLOCK + 8 {
            for case in cases {
                for end in ["\"", "x\"", r#"\u00e9""#] {
                    let s = format!("\"{}{case}{end} tail", "p".repeat(pad));
                    let b = s.as_bytes();
                    assert_eq!(super::super::string_checked(b, 0), super::super::string_from(b, 0, usize::MAX), "{s}");
                }
            }
        }
    }
}
