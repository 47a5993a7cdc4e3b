//! Validating the rest of a long string 64 bytes at a time.
//!
//! Most bytes of a capture sit in a few long strings (conversation text in
//! `llm:request` payloads), and canonical writers escape every non-ASCII
//! character as `\uXXXX`, so a scalar scan stops every few bytes. Here a block
//! is classified with bit masks instead, as in the structural skim
//! ([`crate::skim`]): quotes, backslashes and control characters, then (only
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

use crate::skim::escaped;

/// Bytes per block.
pub(crate) const BLOCK: usize = 64;

/// Byte classes of one block that every block needs: bit `k` is byte `k`.
pub(crate) struct Plain {
    pub(crate) quote: u64,
    pub(crate) backslash: u64,
    pub(crate) control: u64,
}

/// Byte classes needed only in blocks with escapes.
struct Escapes {
    /// `u`.
    u: u64,
    /// `0-9 a-f A-F`.
    hex: u64,
    /// `d` or `D` (the first hex digit of a surrogate).
    d: u64,
    /// `8 9 a b A B` (the second digit of a high surrogate).
    high: u64,
    /// `c-f C-F` (the second digit of a low surrogate).
    low: u64,
}

/// Skips string content from `from` (inside a string, not inside an escape).
///
/// `Ok(end)`: the string is valid and `end` is one past its closing quote.
/// `Err(resume)`: the scalar scanner must decide, starting at `resume`
/// (`from`, or a later position where no escape is open).
pub(super) fn skip_plain(b: &[u8], from: usize) -> Result<usize, usize> {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2, the one feature the function enables.
            return unsafe { skip_plain_avx2(b, from) };
        }
    }
    // SAFETY: the baseline classifier needs nothing beyond the target's baseline.
    unsafe { skip_plain_with::<Baseline>(b, from) }
}

/// [`skip_plain`] with 32-byte AVX2 lanes (half the instructions of SSE2's).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn skip_plain_avx2(b: &[u8], from: usize) -> Result<usize, usize> {
    // SAFETY: this function runs only on CPUs with AVX2, all `Avx2` needs.
    unsafe { skip_plain_with::<avx2::Avx2>(b, from) }
}

/// How blocks are classified: the baseline (SSE2 on x86_64) or AVX2.
///
/// # Safety
/// Implementations may use CPU features beyond the target's baseline: call
/// their functions only on a CPU that has them (see each implementation).
trait Classify {
    /// Quotes, backslashes and control characters.
    unsafe fn plain(block: &[u8; BLOCK]) -> Plain;
    /// `u`, hex digits, `d`/`D` and the second digits of surrogates.
    unsafe fn escapes(block: &[u8; BLOCK]) -> Escapes;
}

/// The classifier every CPU of the target has.
struct Baseline;

impl Classify for Baseline {
    #[inline(always)]
    unsafe fn plain(block: &[u8; BLOCK]) -> Plain {
        plain(block)
    }

    #[inline(always)]
    unsafe fn escapes(block: &[u8; BLOCK]) -> Escapes {
        escapes(block)
    }
}

#[inline(always)]
/// [`skip_plain`] with the classifier `C`.
///
/// # Safety
/// The CPU has the features `C` needs.
unsafe fn skip_plain_with<C: Classify>(b: &[u8], from: usize) -> Result<usize, usize> {
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
        let block = crate::skim::block_at(b, at, &mut pad);
        // SAFETY: the caller vouches for `C`'s CPU features.
        let p = unsafe { C::plain(block) };
        let esc = escaped(p.backslash, &mut prev_escaped);
        let quotes = p.quote & !esc;
        // Bits before the closing quote (all of them when it is not here).
        let before = if quotes == 0 { !0 } else { (1u64 << quotes.trailing_zeros()) - 1 };
        if p.control & before != 0 {
            return Err(clean);
        }
        let esc = esc & before;
        if esc != 0 || need_hex != 0 || low_in != 0 {
            // SAFETY: as for `plain` above.
            let e = unsafe { C::escapes(block) };
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

/// Quotes, backslashes and control characters of a block.
#[inline(always)]
pub(crate) fn plain(block: &[u8; BLOCK]) -> Plain {
    #[cfg(target_arch = "x86_64")]
    {
        sse2::plain(block)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        scalar::plain(block)
    }
}

#[inline(always)]
fn escapes(block: &[u8; BLOCK]) -> Escapes {
    #[cfg(target_arch = "x86_64")]
    {
        sse2::escapes(block)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        scalar::escapes(block)
    }
}

/// Portable classification (the reference for the SSE2 one).
#[cfg(any(test, not(target_arch = "x86_64")))]
pub(crate) mod scalar {
    use super::{Escapes, Plain, BLOCK};

    /// The mask of the bytes of `block` for which `f` holds.
    pub(crate) fn mask(block: &[u8; BLOCK], f: impl Fn(u8) -> bool) -> u64 {
        block.iter().enumerate().filter(|&(_, &c)| f(c)).fold(0, |m, (k, _)| m | 1 << k)
    }

    pub(super) fn plain(block: &[u8; BLOCK]) -> Plain {
        Plain {
            quote: mask(block, |c| c == b'"'),
            backslash: mask(block, |c| c == b'\\'),
            control: mask(block, |c| c < 0x20),
        }
    }

    pub(super) fn escapes(block: &[u8; BLOCK]) -> Escapes {
        Escapes {
            u: mask(block, |c| c == b'u'),
            hex: mask(block, |c| c.is_ascii_hexdigit()),
            d: mask(block, |c| c | 0x20 == b'd'),
            high: mask(block, |c| matches!(c, b'8' | b'9' | b'a' | b'b' | b'A' | b'B')),
            low: mask(block, |c| matches!(c, b'c'..=b'f' | b'C'..=b'F')),
        }
    }
}

/// Classification with SSE2 (part of every x86_64 CPU), and its building
/// blocks for other block scans of string content.
#[cfg(target_arch = "x86_64")]
pub(crate) mod sse2 {
    use std::arch::x86_64::*;

    use super::{Escapes, Plain, BLOCK};

    /// The four 16-byte lanes of a block.
    #[inline(always)]
    pub(crate) fn lanes(block: &[u8; BLOCK]) -> [__m128i; 4] {
        // SAFETY: SSE2 is part of the x86_64 baseline; each unaligned load
        // reads 16 bytes at offset 0, 16, 32 or 48 of a 64-byte array.
        unsafe { [0, 16, 32, 48].map(|k| _mm_loadu_si128(block.as_ptr().add(k) as *const __m128i)) }
    }

    /// The 64-bit mask of `f` applied to each lane.
    #[inline(always)]
    pub(crate) fn mask(lanes: &[__m128i; 4], f: impl Fn(__m128i) -> __m128i) -> u64 {
        let mut m = 0u64;
        for (k, &v) in lanes.iter().enumerate() {
            // SAFETY: SSE2 is part of the x86_64 baseline.
            m |= u64::from(unsafe { _mm_movemask_epi8(f(v)) } as u16) << (16 * k);
        }
        m
    }

    /// Bytes equal to `c`.
    #[inline(always)]
    pub(crate) fn eq(v: __m128i, c: u8) -> __m128i {
        // SAFETY: SSE2 is part of the x86_64 baseline.
        unsafe { _mm_cmpeq_epi8(v, _mm_set1_epi8(c as i8)) }
    }

    /// Bytes in `lo..=hi` (unsigned).
    #[inline(always)]
    pub(crate) fn within(v: __m128i, lo: u8, hi: u8) -> __m128i {
        // SAFETY: SSE2 is part of the x86_64 baseline.
        unsafe {
            let ge = _mm_cmpeq_epi8(_mm_max_epu8(v, _mm_set1_epi8(lo as i8)), v);
            let le = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(hi as i8)), v);
            _mm_and_si128(ge, le)
        }
    }

    /// Bytes in `a` or in `b`.
    #[inline(always)]
    pub(crate) fn or(a: __m128i, b: __m128i) -> __m128i {
        // SAFETY: SSE2 is part of the x86_64 baseline.
        unsafe { _mm_or_si128(a, b) }
    }

    /// ASCII letters folded to lower case (other bytes may change too:
    /// compare the result with lower-case letters only).
    #[inline(always)]
    pub(crate) fn lower(v: __m128i) -> __m128i {
        // SAFETY: SSE2 is part of the x86_64 baseline.
        unsafe { _mm_or_si128(v, _mm_set1_epi8(0x20)) }
    }

    #[inline(always)]
    pub(super) fn plain(block: &[u8; BLOCK]) -> Plain {
        let l = lanes(block);
        Plain {
            quote: mask(&l, |v| eq(v, b'"')),
            backslash: mask(&l, |v| eq(v, b'\\')),
            control: mask(&l, |v| within(v, 0, 0x1f)),
        }
    }

    #[inline(always)]
    pub(super) fn escapes(block: &[u8; BLOCK]) -> Escapes {
        let l = lanes(block);
        Escapes {
            u: mask(&l, |v| eq(v, b'u')),
            hex: mask(&l, |v| or(within(v, b'0', b'9'), within(lower(v), b'a', b'f'))),
            d: mask(&l, |v| eq(lower(v), b'd')),
            high: mask(&l, |v| or(within(v, b'8', b'9'), within(lower(v), b'a', b'b'))),
            low: mask(&l, |v| within(lower(v), b'c', b'f')),
        }
    }
}

/// 256 blocks of assorted bytes, for checking a classification against
/// [`scalar::mask`].
#[cfg(test)]
pub(crate) fn sample_blocks() -> impl Iterator<Item = [u8; BLOCK]> {
    (0..256usize).map(|seed| std::array::from_fn(|k| ((seed * 131 + k * 37) ^ (k << 3)) as u8))
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    use super::{Classify, Escapes, Plain, BLOCK};

    /// The AVX2 classifier: its functions need a CPU with AVX2.
    pub(super) struct Avx2;

    impl Classify for Avx2 {
        #[inline(always)]
        unsafe fn plain(block: &[u8; BLOCK]) -> Plain {
            // SAFETY: the caller runs on a CPU with AVX2 (the trait's contract).
            unsafe { plain(block) }
        }

        #[inline(always)]
        unsafe fn escapes(block: &[u8; BLOCK]) -> Escapes {
            // SAFETY: as for `plain`.
            unsafe { escapes(block) }
        }
    }

    /// The two 32-byte halves of a block.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn halves(block: &[u8; BLOCK]) -> (__m256i, __m256i) {
        // SAFETY: unaligned loads of 32 bytes at offsets 0 and 32 of a 64-byte array.
        unsafe {
            (
                _mm256_loadu_si256(block.as_ptr() as *const __m256i),
                _mm256_loadu_si256(block.as_ptr().add(32) as *const __m256i),
            )
        }
    }

    /// The 64-bit mask of a byte test applied to both halves.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn bits(lo: __m256i, hi: __m256i) -> u64 {
        u64::from(_mm256_movemask_epi8(lo) as u32) | u64::from(_mm256_movemask_epi8(hi) as u32) << 32
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn eq(v: __m256i, c: u8) -> __m256i {
        _mm256_cmpeq_epi8(v, _mm256_set1_epi8(c as i8))
    }

    /// Bytes in `lo..=hi` (unsigned).
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn within(v: __m256i, lo: u8, hi: u8) -> __m256i {
        let ge = _mm256_cmpeq_epi8(_mm256_max_epu8(v, _mm256_set1_epi8(lo as i8)), v);
        let le = _mm256_cmpeq_epi8(_mm256_min_epu8(v, _mm256_set1_epi8(hi as i8)), v);
        _mm256_and_si256(ge, le)
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn lower(v: __m256i) -> __m256i {
        _mm256_or_si256(v, _mm256_set1_epi8(0x20))
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn hex(v: __m256i) -> __m256i {
        _mm256_or_si256(within(v, b'0', b'9'), within(lower(v), b'a', b'f'))
    }

    /// `8 9 a b A B`.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn high(v: __m256i) -> __m256i {
        _mm256_or_si256(within(v, b'8', b'9'), within(lower(v), b'a', b'b'))
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    pub(super) unsafe fn plain(block: &[u8; BLOCK]) -> Plain {
        // SAFETY: the caller runs with AVX2 (this function's only feature).
        unsafe {
            let (a, b) = halves(block);
            Plain {
                quote: bits(eq(a, b'"'), eq(b, b'"')),
                backslash: bits(eq(a, b'\\'), eq(b, b'\\')),
                control: bits(within(a, 0, 0x1f), within(b, 0, 0x1f)),
            }
        }
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    pub(super) unsafe fn escapes(block: &[u8; BLOCK]) -> Escapes {
        // SAFETY: the caller runs with AVX2 (this function's only feature).
        unsafe {
            let (a, b) = halves(block);
            Escapes {
                u: bits(eq(a, b'u'), eq(b, b'u')),
                hex: bits(hex(a), hex(b)),
                d: bits(eq(lower(a), b'd'), eq(lower(b), b'd')),
                high: bits(high(a), high(b)),
                low: bits(within(lower(a), b'c', b'f'), within(lower(b), b'c', b'f')),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sse2_and_scalar_classes_agree() {
        for block in sample_blocks() {
            let (a, b) = (plain(&block), scalar::plain(&block));
            assert_eq!((a.quote, a.backslash, a.control), (b.quote, b.backslash, b.control));
            let (a, b) = (escapes(&block), scalar::escapes(&block));
            assert_eq!((a.u, a.hex, a.d, a.high, a.low), (b.u, b.hex, b.d, b.high, b.low));
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx2_and_scalar_classes_agree() {
        use avx2::Avx2;
        if !std::is_x86_feature_detected!("avx2") {
            return;
        }
        for block in sample_blocks() {
            // SAFETY: the CPU has AVX2 (checked above).
            let (a, b) = (unsafe { Avx2::plain(&block) }, scalar::plain(&block));
            assert_eq!((a.quote, a.backslash, a.control), (b.quote, b.backslash, b.control));
            // SAFETY: the CPU has AVX2 (checked above).
            let (a, b) = (unsafe { Avx2::escapes(&block) }, scalar::escapes(&block));
            assert_eq!((a.u, a.hex, a.d, a.high, a.low), (b.u, b.hex, b.d, b.high, b.low));
            // Both classifiers find the same string ends.
            let mut line = vec![b'"'];
            line.extend_from_slice(&block);
            line.extend_from_slice(b"\" tail");
            // SAFETY: the baseline classifier runs on every CPU of the target.
            assert_eq!(unsafe { skip_plain_with::<Baseline>(&line, 1) }, skip_plain(&line, 1));
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
