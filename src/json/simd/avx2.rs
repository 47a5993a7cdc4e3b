//! Classification with AVX2 (detected at run time): two 32-byte lanes, half
//! the instructions of SSE2's.

use std::arch::x86_64::*;

use super::{Classify, Scan, BLOCK};

/// The AVX2 classifier: a value exists only on a CPU with AVX2.
#[derive(Clone, Copy)]
pub(crate) struct Avx2(());

impl Avx2 {
    /// The classifier, when the CPU has AVX2.
    #[inline(always)]
    pub(crate) fn detect() -> Option<Avx2> {
        std::is_x86_feature_detected!("avx2").then_some(Avx2(()))
    }
}

/// Runs `scan` with AVX2, the whole scan compiled for it.
#[target_feature(enable = "avx2")]
pub(super) fn run<S: Scan>(scan: S, avx2: Avx2) -> S::Out {
    scan.run(avx2)
}

// SAFETY (every `unsafe` call of this impl): the functions called enable
// only AVX2, and `self` exists only on a CPU with AVX2.
impl Classify for Avx2 {
    type V = __m256i;
    type Lanes = [__m256i; 2];

    #[inline(always)]
    fn lanes(self, block: &[u8; BLOCK]) -> [__m256i; 2] {
        unsafe { halves(block) }
    }

    #[inline(always)]
    fn mask(self, lanes: &[__m256i; 2], f: impl Fn(__m256i) -> __m256i) -> u64 {
        let [lo, hi] = *lanes;
        unsafe { u64::from(movemask(f(lo))) | u64::from(movemask(f(hi))) << 32 }
    }

    #[inline(always)]
    fn eq(self, v: __m256i, c: u8) -> __m256i {
        unsafe { eq(v, c) }
    }

    #[inline(always)]
    fn within(self, v: __m256i, lo: u8, hi: u8) -> __m256i {
        unsafe { within(v, lo, hi) }
    }

    #[inline(always)]
    fn or(self, a: __m256i, b: __m256i) -> __m256i {
        unsafe { or(a, b) }
    }

    #[inline(always)]
    fn lower(self, v: __m256i) -> __m256i {
        unsafe { lower(v) }
    }
}

/// The two 32-byte halves of a block.
#[target_feature(enable = "avx2")]
#[inline]
fn halves(block: &[u8; BLOCK]) -> [__m256i; 2] {
    // SAFETY: unaligned loads of 32 bytes at offsets 0 and 32 of a 64-byte array.
    unsafe {
        [
            _mm256_loadu_si256(block.as_ptr() as *const __m256i),
            _mm256_loadu_si256(block.as_ptr().add(32) as *const __m256i),
        ]
    }
}

/// The high bits of the 32 bytes of `v`.
#[target_feature(enable = "avx2")]
#[inline]
fn movemask(v: __m256i) -> u32 {
    _mm256_movemask_epi8(v) as u32
}

#[target_feature(enable = "avx2")]
#[inline]
fn eq(v: __m256i, c: u8) -> __m256i {
    _mm256_cmpeq_epi8(v, _mm256_set1_epi8(c as i8))
}

#[target_feature(enable = "avx2")]
#[inline]
fn within(v: __m256i, lo: u8, hi: u8) -> __m256i {
    let ge = _mm256_cmpeq_epi8(_mm256_max_epu8(v, _mm256_set1_epi8(lo as i8)), v);
    let le = _mm256_cmpeq_epi8(_mm256_min_epu8(v, _mm256_set1_epi8(hi as i8)), v);
    _mm256_and_si256(ge, le)
}

#[target_feature(enable = "avx2")]
#[inline]
fn or(a: __m256i, b: __m256i) -> __m256i {
    _mm256_or_si256(a, b)
}

#[target_feature(enable = "avx2")]
#[inline]
fn lower(v: __m256i) -> __m256i {
    _mm256_or_si256(v, _mm256_set1_epi8(0x20))
}
