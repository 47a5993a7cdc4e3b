//! Classification with SSE2, part of every x86_64 CPU: four 16-byte lanes.

use std::arch::x86_64::*;

use super::{Classify, Scan, BLOCK};

/// The SSE2 classifier (every x86_64 CPU has it).
#[derive(Clone, Copy)]
pub(crate) struct Sse2(());

impl Sse2 {
    /// The classifier: SSE2 is part of the x86_64 baseline.
    #[inline(always)]
    pub(crate) const fn new() -> Sse2 {
        Sse2(())
    }
}

/// Runs `scan` with SSE2, compiled with `popcnt`.
#[target_feature(enable = "popcnt")]
pub(super) fn run_popcnt<S: Scan>(scan: S) -> S::Out {
    scan.run(Sse2::new())
}

// SAFETY (every `unsafe` call of this impl): the functions called enable
// only SSE2, part of the x86_64 baseline.
impl Classify for Sse2 {
    type V = __m128i;
    type Lanes = [__m128i; 4];

    #[inline(always)]
    fn lanes(self, block: &[u8; BLOCK]) -> [__m128i; 4] {
        unsafe { lanes(block) }
    }

    #[inline(always)]
    fn mask(self, lanes: &[__m128i; 4], f: impl Fn(__m128i) -> __m128i) -> u64 {
        let mut m = 0u64;
        for (k, &v) in lanes.iter().enumerate() {
            m |= u64::from(unsafe { movemask(f(v)) }) << (16 * k);
        }
        m
    }

    #[inline(always)]
    fn eq(self, v: __m128i, c: u8) -> __m128i {
        unsafe { eq(v, c) }
    }

    #[inline(always)]
    fn within(self, v: __m128i, lo: u8, hi: u8) -> __m128i {
        unsafe { within(v, lo, hi) }
    }

    #[inline(always)]
    fn or(self, a: __m128i, b: __m128i) -> __m128i {
        unsafe { or(a, b) }
    }

    #[inline(always)]
    fn lower(self, v: __m128i) -> __m128i {
        unsafe { lower(v) }
    }
}

/// The four 16-byte lanes of a block.
#[target_feature(enable = "sse2")]
#[inline]
fn lanes(block: &[u8; BLOCK]) -> [__m128i; 4] {
    // SAFETY: each unaligned load reads 16 bytes at offset 0, 16, 32 or 48
    // of a 64-byte array.
    [0, 16, 32, 48].map(|k| unsafe { _mm_loadu_si128(block.as_ptr().add(k) as *const __m128i) })
}

/// The high bits of the 16 bytes of `v`.
#[target_feature(enable = "sse2")]
#[inline]
fn movemask(v: __m128i) -> u16 {
    _mm_movemask_epi8(v) as u16
}

#[target_feature(enable = "sse2")]
#[inline]
fn eq(v: __m128i, c: u8) -> __m128i {
    _mm_cmpeq_epi8(v, _mm_set1_epi8(c as i8))
}

#[target_feature(enable = "sse2")]
#[inline]
fn within(v: __m128i, lo: u8, hi: u8) -> __m128i {
    let ge = _mm_cmpeq_epi8(_mm_max_epu8(v, _mm_set1_epi8(lo as i8)), v);
    let le = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(hi as i8)), v);
    _mm_and_si128(ge, le)
}

#[target_feature(enable = "sse2")]
#[inline]
fn or(a: __m128i, b: __m128i) -> __m128i {
    _mm_or_si128(a, b)
}

#[target_feature(enable = "sse2")]
#[inline]
fn lower(v: __m128i) -> __m128i {
    _mm_or_si128(v, _mm_set1_epi8(0x20))
}

/// [`super::next_special`] with SSE2.
#[target_feature(enable = "sse2")]
#[inline]
pub(super) fn next_special(b: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    let quote = _mm_set1_epi8(b'"' as i8);
    let backslash = _mm_set1_epi8(b'\\' as i8);
    let below = _mm_set1_epi8(0x1f);
    while i + 16 <= b.len() {
        // SAFETY: the 16 bytes at `i` are inside the slice (`i + 16 <= b.len()`).
        let x = unsafe { _mm_loadu_si128(b.as_ptr().add(i) as *const __m128i) };
        let ctrl = _mm_cmpeq_epi8(_mm_max_epu8(x, below), below);
        let hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, backslash)), ctrl);
        let mask = _mm_movemask_epi8(hit) as u32;
        if mask != 0 {
            return Some(i + mask.trailing_zeros() as usize);
        }
        i += 16;
    }
    b.get(i..)?.iter().position(|&c| super::is_special(c)).map(|k| i + k)
}
