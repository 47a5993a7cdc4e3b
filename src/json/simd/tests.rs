use proptest::prelude::*;

use super::scalar::{self, Scalar};
use super::swar::{self, Swar};
use super::*;

/// Every class of every kind of mask of `block`, as `c` computes them.
fn classes<C: Classify>(c: C, block: &[u8; BLOCK]) -> [u64; 18] {
    let p = c.plain(block);
    let e = c.escapes(block);
    let d = c.digits(block);
    let s = c.structure(block);
    [
        p.quote,
        p.backslash,
        p.control,
        e.u,
        e.hex,
        e.d,
        e.high,
        e.low,
        d.u,
        d.slash,
        d.zero,
        d.oct,
        d.d,
        d.cf,
        s.quote,
        s.backslash,
        s.open,
        s.close,
    ]
}

/// The classes by every classifier this CPU can run, named.
fn every_variant(block: &[u8; BLOCK]) -> Vec<(&'static str, [u64; 18])> {
    #[cfg(target_arch = "x86_64")]
    let avx2 = Avx2::detect().map(|avx2| ("avx2", classes(avx2, block)));
    #[cfg(not(target_arch = "x86_64"))]
    let avx2 = None;
    [("swar", classes(Swar::new(), block)), ("baseline", classes(Baseline::new(), block))]
        .into_iter()
        .chain(avx2)
        .collect()
}

/// Every variant of [`next_special`] this CPU has.
fn every_hop(b: &[u8], from: usize) -> Vec<(&'static str, Option<usize>)> {
    vec![("swar", swar::next_special(b, from)), ("baseline", next_special(b, from))]
}

/// Bytes that every class tells apart: the bounds of each range and their
/// neighbours, bytes that fold onto a letter, and high bytes.
const ALPHABET: &[u8] = b"\"\\{}[]uU/0789aAbBcCdDeEfFgG:;@`x \x00\x1f\x20\x7f\x7b\x5b\x7d\x5d\xfb\xdb\xe4\xc4\x80\xff";

fn block_of(bytes: &[u8]) -> [u8; BLOCK] {
    std::array::from_fn(|k| bytes[k % bytes.len()])
}

#[test]
fn every_byte_value_at_every_position() {
    for shift in 0..BLOCK {
        let block: [u8; BLOCK] = std::array::from_fn(|k| ((k + shift) * 4 + shift / 16) as u8);
        let want = classes(Scalar, &block);
        for (name, got) in every_variant(&block) {
            assert_eq!(got, want, "{name} shift {shift}");
        }
    }
}

#[test]
fn hops_agree_at_every_offset() {
    let text: Vec<u8> = (0..200usize).map(|k| ALPHABET[k * 7 % 11 * 3 % ALPHABET.len()]).collect();
    for from in 0..=text.len() + 1 {
        let want = scalar::next_special(&text, from);
        for (name, got) in every_hop(&text, from) {
            assert_eq!(got, want, "{name} from {from}");
        }
    }
}

proptest! {
    /// Random blocks of the telling bytes, and of any bytes.
    #[test]
    fn classifiers_agree_with_the_reference(
        picks in prop::collection::vec(0..ALPHABET.len(), BLOCK),
        any_bytes in prop::collection::vec(any::<u8>(), BLOCK),
    ) {
        let picked: Vec<u8> = picks.iter().map(|&k| ALPHABET[k]).collect();
        for block in [block_of(&picked), block_of(&any_bytes)] {
            let want = classes(Scalar, &block);
            for (name, got) in every_variant(&block) {
                prop_assert_eq!(got, want, "{}", name);
            }
        }
    }

    /// The blocks a scan reads at every offset of a line, the padded last
    /// one included, and the hops from every offset.
    #[test]
    fn at_every_block_offset(picks in prop::collection::vec(0..ALPHABET.len(), 0..200)) {
        let line: Vec<u8> = picks.iter().map(|&k| ALPHABET[k]).collect();
        let mut pad = [0u8; BLOCK];
        for at in 0..line.len() {
            let block = *block_at(&line, at, &mut pad);
            let want: Vec<u8> = (at..at + BLOCK).map(|k| line.get(k).copied().unwrap_or(b' ')).collect();
            prop_assert_eq!(&block[..], &want[..]);
            let want = classes(Scalar, &block);
            for (name, got) in every_variant(&block) {
                prop_assert_eq!(got, want, "{} at {}", name, at);
            }
        }
        for from in 0..=line.len() + 1 {
            let want = scalar::next_special(&line, from);
            for (name, got) in every_hop(&line, from) {
                prop_assert_eq!(got, want, "{} from {}", name, from);
            }
        }
    }

    /// The odd-run rule (with its fast path for lone backslashes) against
    /// a walk of the block byte by byte, over chains of blocks: dense
    /// masks give runs of every length, sparse ones lone backslashes.
    #[test]
    fn escaped_as_a_byte_walk(blocks in prop::collection::vec((any::<u64>(), any::<u64>()), 1..8)) {
        let (mut prev, mut pending) = (0u64, false);
        for (a, b) in blocks {
            let backslash = if b % 3 == 0 { a & b } else { a };
            let mut want = 0u64;
            for k in 0..64 {
                if pending {
                    want |= 1 << k;
                    pending = false;
                } else if backslash >> k & 1 == 1 {
                    pending = true;
                }
            }
            prop_assert_eq!(escaped(backslash, &mut prev), want);
            prop_assert_eq!(prev, u64::from(pending));
        }
    }

    #[test]
    fn prefix_xor_as_a_running_parity(x in any::<u64>()) {
        let want = (0..64).fold(0u64, |m, k| m | (u64::from((x & (!0 >> (63 - k))).count_ones() % 2 == 1) << k));
        prop_assert_eq!(prefix_xor(x), want);
    }
}
