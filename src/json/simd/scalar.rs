//! The byte-at-a-time reference every other classifier is tested against.

use super::{Classify, Digits, Escapes, Plain, Structure, BLOCK};

/// The reference classifier: one byte at a time.
#[derive(Clone, Copy)]
pub(crate) struct Scalar;

/// The mask of the bytes of `block` for which `f` holds.
fn mask(block: &[u8; BLOCK], f: impl Fn(u8) -> bool) -> u64 {
    block.iter().enumerate().filter(|&(_, &c)| f(c)).fold(0, |m, (k, _)| m | 1 << k)
}

/// The byte tests one byte at a time (0xFF: passes); the classes below
/// do not use them, but are written out byte by byte.
impl Classify for Scalar {
    type V = u8;
    type Lanes = [u8; BLOCK];

    fn lanes(self, block: &[u8; BLOCK]) -> [u8; BLOCK] {
        *block
    }

    fn mask(self, lanes: &[u8; BLOCK], f: impl Fn(u8) -> u8) -> u64 {
        mask(lanes, |c| f(c) != 0)
    }

    fn eq(self, v: u8, c: u8) -> u8 {
        if v == c {
            0xFF
        } else {
            0
        }
    }

    fn within(self, v: u8, lo: u8, hi: u8) -> u8 {
        if (lo..=hi).contains(&v) {
            0xFF
        } else {
            0
        }
    }

    fn or(self, a: u8, b: u8) -> u8 {
        a | b
    }

    fn lower(self, v: u8) -> u8 {
        v | 0x20
    }

    fn plain(self, block: &[u8; BLOCK]) -> Plain {
        Plain {
            quote: mask(block, |c| c == b'"'),
            backslash: mask(block, |c| c == b'\\'),
            control: mask(block, |c| c < 0x20),
        }
    }

    fn escapes(self, block: &[u8; BLOCK]) -> Escapes {
        Escapes {
            u: mask(block, |c| c == b'u'),
            hex: mask(block, |c| c.is_ascii_hexdigit()),
            d: mask(block, |c| c | 0x20 == b'd'),
            high: mask(block, |c| matches!(c, b'8' | b'9' | b'a' | b'b' | b'A' | b'B')),
            low: mask(block, |c| matches!(c, b'c'..=b'f' | b'C'..=b'F')),
        }
    }

    fn digits(self, block: &[u8; BLOCK]) -> Digits {
        Digits {
            u: mask(block, |c| c == b'u'),
            slash: mask(block, |c| c == b'/'),
            zero: mask(block, |c| c == b'0'),
            oct: mask(block, |c| (b'0'..=b'7').contains(&c)),
            d: mask(block, |c| c | 0x20 == b'd'),
            cf: mask(block, |c| (b'c'..=b'f').contains(&(c | 0x20))),
        }
    }

    fn structure(self, block: &[u8; BLOCK]) -> Structure {
        Structure {
            quote: mask(block, |c| c == b'"'),
            backslash: mask(block, |c| c == b'\\'),
            open: mask(block, |c| c == b'{' || c == b'['),
            close: mask(block, |c| c == b'}' || c == b']'),
        }
    }
}

/// [`super::next_special`] a byte at a time.
pub(crate) fn next_special(b: &[u8], from: usize) -> Option<usize> {
    b.get(from..)?.iter().position(|&c| super::is_special(c)).map(|k| from + k)
}
