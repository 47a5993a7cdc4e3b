//! Classification with NEON, part of every aarch64 CPU: four 16-byte lanes.

use core::arch::aarch64::*;

use super::{Classify, BLOCK};

/// The NEON classifier (every aarch64 CPU has it).
#[derive(Clone, Copy)]
pub(crate) struct Neon(());

impl Neon {
    /// The classifier: NEON is part of the aarch64 baseline.
    #[inline(always)]
    pub(crate) const fn new() -> Neon {
        Neon(())
    }
}

// SAFETY (every `unsafe` call of this impl): the functions called enable
// only NEON, part of the aarch64 baseline.
impl Classify for Neon {
    type V = uint8x16_t;
    type Lanes = [uint8x16_t; 4];

    #[inline(always)]
    fn lanes(self, block: &[u8; BLOCK]) -> [uint8x16_t; 4] {
        unsafe { lanes(block) }
    }

    #[inline(always)]
    fn mask(self, lanes: &[uint8x16_t; 4], f: impl Fn(uint8x16_t) -> uint8x16_t) -> u64 {
        unsafe { mask(lanes.map(f)) }
    }

    #[inline(always)]
    fn eq(self, v: uint8x16_t, c: u8) -> uint8x16_t {
        unsafe { eq(v, c) }
    }

    #[inline(always)]
    fn within(self, v: uint8x16_t, lo: u8, hi: u8) -> uint8x16_t {
        unsafe { within(v, lo, hi) }
    }

    #[inline(always)]
    fn or(self, a: uint8x16_t, b: uint8x16_t) -> uint8x16_t {
        unsafe { or(a, b) }
    }

    #[inline(always)]
    fn lower(self, v: uint8x16_t) -> uint8x16_t {
        unsafe { lower(v) }
    }
}

/// The four 16-byte lanes of a block.
#[target_feature(enable = "neon")]
#[inline]
fn lanes(block: &[u8; BLOCK]) -> [uint8x16_t; 4] {
    // SAFETY: each load reads 16 bytes at offset 0, 16, 32 or 48 of a
    // 64-byte array.
    [0, 16, 32, 48].map(|k| unsafe { vld1q_u8(block.as_ptr().add(k)) })
}

/// Bit `k % 8` in byte `k`: what a lane's mask keeps of each byte.
const BITS: [u8; 16] = [1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128];

/// The 64-bit mask of four lanes of byte tests (simdjson's pairwise adds).
#[target_feature(enable = "neon")]
#[inline]
fn mask(tests: [uint8x16_t; 4]) -> u64 {
    // SAFETY: reads the 16 bytes of a 16-byte array.
    let bits = unsafe { vld1q_u8(BITS.as_ptr()) };
    let [a, b, c, d] = tests.map(|v| vandq_u8(v, bits));
    let abcd = vpaddq_u8(vpaddq_u8(a, b), vpaddq_u8(c, d));
    vgetq_lane_u64::<0>(vreinterpretq_u64_u8(vpaddq_u8(abcd, abcd)))
}

#[target_feature(enable = "neon")]
#[inline]
fn eq(v: uint8x16_t, c: u8) -> uint8x16_t {
    vceqq_u8(v, vdupq_n_u8(c))
}

#[target_feature(enable = "neon")]
#[inline]
fn within(v: uint8x16_t, lo: u8, hi: u8) -> uint8x16_t {
    vandq_u8(vcgeq_u8(v, vdupq_n_u8(lo)), vcleq_u8(v, vdupq_n_u8(hi)))
}

#[target_feature(enable = "neon")]
#[inline]
fn or(a: uint8x16_t, b: uint8x16_t) -> uint8x16_t {
    vorrq_u8(a, b)
}

#[target_feature(enable = "neon")]
#[inline]
fn lower(v: uint8x16_t) -> uint8x16_t {
    vorrq_u8(v, vdupq_n_u8(0x20))
}

/// [`super::next_special`] with NEON: 16 bytes narrowed to four bits each.
#[target_feature(enable = "neon")]
#[inline]
pub(super) fn next_special(b: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    while i + 16 <= b.len() {
        // SAFETY: the 16 bytes at `i` are inside the slice (`i + 16 <= b.len()`).
        let x = unsafe { vld1q_u8(b.as_ptr().add(i)) };
        let hit = or(or(eq(x, b'"'), eq(x, b'\\')), vcltq_u8(x, vdupq_n_u8(0x20)));
        let nibbles = vget_lane_u64::<0>(vreinterpret_u64_u8(vshrn_n_u16::<4>(vreinterpretq_u16_u8(hit))));
        if nibbles != 0 {
            return Some(i + nibbles.trailing_zeros() as usize / 4);
        }
        i += 16;
    }
    b.get(i..)?.iter().position(|&c| super::is_special(c)).map(|k| i + k)
}
