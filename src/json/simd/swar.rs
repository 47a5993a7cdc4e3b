//! Portable classification: eight bytes at a time in a `u64` ("SIMD within
//! a register"), for targets without a vector unit the crate knows. Each
//! byte test sets the high bit of the bytes that pass, exactly (no carry
//! crosses a byte), and one multiplication gathers the eight high bits.
//! Only the high bit of a byte counts: [`Classify::V`] bytes are 0x80 or 0.

use super::{Classify, BLOCK};

/// The portable classifier (every target has it).
#[derive(Clone, Copy)]
pub(crate) struct Swar;

impl Swar {
    /// The classifier.
    #[inline(always)]
    pub(crate) const fn new() -> Swar {
        Swar
    }
}

const ONES: u64 = 0x0101_0101_0101_0101;
const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// `c` in every byte.
#[inline(always)]
const fn splat(c: u8) -> u64 {
    c as u64 * ONES
}

/// The high bit of each zero byte of `x`.
#[inline(always)]
fn zero(x: u64) -> u64 {
    !(((x & LOW7) + LOW7) | x | LOW7)
}

/// Bytes equal to `c`.
#[inline(always)]
fn eq(v: u64, c: u8) -> u64 {
    zero(v ^ splat(c))
}

/// Bytes below `n` (at most 0x80).
#[inline(always)]
fn below(v: u64, n: u8) -> u64 {
    !(((v & LOW7) + splat(0x80 - n)) | v) & HIGH
}

impl Classify for Swar {
    /// Eight bytes; a test sets the high bit of the bytes that pass.
    type V = u64;
    /// The eight little-endian words of the block.
    type Lanes = [u64; 8];

    #[inline(always)]
    fn lanes(self, block: &[u8; BLOCK]) -> [u64; 8] {
        std::array::from_fn(|w| {
            let mut word = [0u8; 8];
            word.copy_from_slice(&block[8 * w..8 * w + 8]);
            u64::from_le_bytes(word)
        })
    }

    /// One multiplication gathers the eight high bits of a word.
    #[inline(always)]
    fn mask(self, lanes: &[u64; 8], f: impl Fn(u64) -> u64) -> u64 {
        let gather = |m: u64| (m & HIGH).wrapping_mul(0x0002_0408_1020_4081) >> 56;
        lanes.iter().enumerate().fold(0, |m, (w, &v)| m | gather(f(v)) << (8 * w))
    }

    #[inline(always)]
    fn eq(self, v: u64, c: u8) -> u64 {
        eq(v, c)
    }

    #[inline(always)]
    fn within(self, v: u64, lo: u8, hi: u8) -> u64 {
        below(v, hi + 1) & !below(v, lo)
    }

    #[inline(always)]
    fn or(self, a: u64, b: u64) -> u64 {
        a | b
    }

    #[inline(always)]
    fn lower(self, v: u64) -> u64 {
        v | splat(0x20)
    }
}

/// [`super::next_special`] eight bytes at a time.
#[inline]
pub(super) fn next_special(b: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    while let Some(chunk) = b.get(i..i + 8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let v = u64::from_le_bytes(word);
        let hit = eq(v, b'"') | eq(v, b'\\') | below(v, 0x20);
        if hit != 0 {
            return Some(i + hit.trailing_zeros() as usize / 8);
        }
        i += 8;
    }
    b.get(i..)?.iter().position(|&c| super::is_special(c)).map(|k| i + k)
}
