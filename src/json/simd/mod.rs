//! Classifying string and structure bytes many at a time: the one home of
//! the crate's SIMD code (and of all its `unsafe`).
//!
//! Every byte of every line passes through a scan of this module, so each is
//! cheap for short hops as well as long runs:
//!
//! * [`next_special`] hops to the next `"`, `\` or control character, 16
//!   bytes at a time (the validating scanner's and the measure's short hops);
//! * a [`Classify`] turns a 64-byte block into bit masks (bit `k` is byte
//!   `k`): [`Plain`] string bytes, the [`Escapes`] classes that validate
//!   escapes, the [`Digits`] classes that measure them and the [`Structure`]
//!   of the skim. Each variant provides a few byte tests on its vectors, and
//!   the classes are defined once, from those. The block scans of the layers
//!   above are written once too, generic over the classifier, and run as a
//!   [`Scan`];
//! * [`escaped`] and [`prefix_xor`] turn masks into the escaped characters
//!   and the inside of strings, with no branch per escape.
//!
//! # Variants and dispatch
//!
//! [`Baseline`] is the classifier every CPU of the target has: SSE2 on
//! x86_64, NEON on aarch64, `Swar` (eight bytes in a `u64`) elsewhere.
//! [`Avx2`] classifies in 32-byte lanes where the CPU has AVX2, and the
//! x86_64 skim counts brackets with `popcnt` where the CPU has it. The CPU is
//! asked once per scan, at its entry ([`fastest`], [`with_popcnt`]; std
//! caches the answer), never per block: the whole scan is then compiled for
//! those features. (The truncation measure runs on the baseline.) A classifier is a token that only exists on a CPU that
//! can run it ([`Avx2::detect`]), so the scans above are safe code.
//! The portable `Swar` variant is tested against the byte-at-a-time
//! reference on every target, like the others.
//!
//! # Unsafe
//!
//! The only `unsafe` operations of the crate are here: unaligned vector loads
//! from a `&[u8; BLOCK]` or from a slice with the bytes checked in bounds,
//! and calls into `#[target_feature]` functions: a scan's dispatch, and each
//! byte test of a classifier, whose token (or the target's baseline) vouches
//! for the feature. Value-only intrinsics need no `unsafe` inside a function
//! compiled for their feature (Rust 1.87); there is no `unsafe fn`.

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "aarch64")]
mod neon;
#[cfg(test)]
mod scalar;
#[cfg(target_arch = "x86_64")]
mod sse2;
#[cfg(any(test, not(any(target_arch = "x86_64", target_arch = "aarch64"))))]
mod swar;
#[cfg(test)]
mod tests;

#[cfg(target_arch = "x86_64")]
pub(crate) use avx2::Avx2;
#[cfg(target_arch = "aarch64")]
pub(crate) use neon::Neon;
#[cfg(test)]
pub(crate) use scalar::Scalar;
#[cfg(target_arch = "x86_64")]
pub(crate) use sse2::Sse2;
#[cfg(any(test, not(any(target_arch = "x86_64", target_arch = "aarch64"))))]
pub(crate) use swar::Swar;

/// The classifier every CPU of the target has.
#[cfg(target_arch = "x86_64")]
pub(crate) type Baseline = Sse2;
/// The classifier every CPU of the target has.
#[cfg(target_arch = "aarch64")]
pub(crate) type Baseline = Neon;
/// The classifier every CPU of the target has.
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
pub(crate) type Baseline = Swar;

/// Bytes per block.
pub(crate) const BLOCK: usize = 64;

/// Quotes, backslashes and control characters of a block: what every block
/// of string content needs.
pub(crate) struct Plain {
    pub(crate) quote: u64,
    pub(crate) backslash: u64,
    /// Below 0x20.
    pub(crate) control: u64,
}

/// The classes that validate escapes, needed only in blocks with escapes.
pub(crate) struct Escapes {
    /// `u`.
    pub(crate) u: u64,
    /// `0-9 a-f A-F`.
    pub(crate) hex: u64,
    /// `d` or `D` (the first hex digit of a surrogate).
    pub(crate) d: u64,
    /// `8 9 a b A B` (the second digit of a high surrogate).
    pub(crate) high: u64,
    /// `c-f C-F` (the second digit of a low surrogate).
    pub(crate) low: u64,
}

/// The classes that measure `\u` escapes, needed only in blocks with escapes.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Digits {
    /// `u`.
    pub(crate) u: u64,
    /// `/`.
    pub(crate) slash: u64,
    /// `0`.
    pub(crate) zero: u64,
    /// `0-7`.
    pub(crate) oct: u64,
    /// `d D`.
    pub(crate) d: u64,
    /// `c-f C-F`.
    pub(crate) cf: u64,
}

/// What the structural skim needs of a block.
pub(crate) struct Structure {
    pub(crate) quote: u64,
    pub(crate) backslash: u64,
    /// `{` or `[`.
    pub(crate) open: u64,
    /// `}` or `]`.
    pub(crate) close: u64,
}

/// A way to classify the bytes of a block: a few byte tests on vectors
/// (the required methods), from which every class is defined once (the
/// provided ones). A value of the type is proof that the CPU can run it.
pub(crate) trait Classify: Copy {
    /// A vector of bytes; a byte test sets all bits of the bytes that pass.
    type V: Copy;
    /// A block as vectors.
    type Lanes;

    /// The vectors of a block.
    fn lanes(self, block: &[u8; BLOCK]) -> Self::Lanes;
    /// The 64-bit mask of the byte test `f` over a block (bit `k` is byte `k`).
    fn mask(self, lanes: &Self::Lanes, f: impl Fn(Self::V) -> Self::V) -> u64;
    /// Bytes equal to `c`.
    fn eq(self, v: Self::V, c: u8) -> Self::V;
    /// Bytes in `lo..=hi` (unsigned; `hi` below 0x80).
    fn within(self, v: Self::V, lo: u8, hi: u8) -> Self::V;
    /// Bytes in `a` or in `b`.
    fn or(self, a: Self::V, b: Self::V) -> Self::V;
    /// ASCII letters folded to lower case (other bytes may change too:
    /// compare the result with lower-case letters only).
    fn lower(self, v: Self::V) -> Self::V;

    /// Quotes, backslashes and control characters.
    #[inline(always)]
    fn plain(self, block: &[u8; BLOCK]) -> Plain {
        let l = self.lanes(block);
        Plain {
            quote: self.mask(&l, |v| self.eq(v, b'"')),
            backslash: self.mask(&l, |v| self.eq(v, b'\\')),
            control: self.mask(&l, |v| self.within(v, 0, 0x1f)),
        }
    }

    /// `u`, hex digits, `d`/`D` and the second digits of surrogates.
    #[inline(always)]
    fn escapes(self, block: &[u8; BLOCK]) -> Escapes {
        let l = self.lanes(block);
        Escapes {
            u: self.mask(&l, |v| self.eq(v, b'u')),
            hex: self.mask(&l, |v| self.or(self.within(v, b'0', b'9'), self.within(self.lower(v), b'a', b'f'))),
            d: self.mask(&l, |v| self.eq(self.lower(v), b'd')),
            high: self.mask(&l, |v| self.or(self.within(v, b'8', b'9'), self.within(self.lower(v), b'a', b'b'))),
            low: self.mask(&l, |v| self.within(self.lower(v), b'c', b'f')),
        }
    }

    /// `u`, `/` and the digit classes of [`Digits`].
    #[inline(always)]
    fn digits(self, block: &[u8; BLOCK]) -> Digits {
        let l = self.lanes(block);
        Digits {
            u: self.mask(&l, |v| self.eq(v, b'u')),
            slash: self.mask(&l, |v| self.eq(v, b'/')),
            zero: self.mask(&l, |v| self.eq(v, b'0')),
            oct: self.mask(&l, |v| self.within(v, b'0', b'7')),
            d: self.mask(&l, |v| self.eq(self.lower(v), b'd')),
            cf: self.mask(&l, |v| self.within(self.lower(v), b'c', b'f')),
        }
    }

    /// Quotes, backslashes and brackets.
    #[inline(always)]
    fn structure(self, block: &[u8; BLOCK]) -> Structure {
        let l = self.lanes(block);
        // `{` 0x7B and `[` 0x5B differ only in bit 0x20, as do `}` and `]`.
        Structure {
            quote: self.mask(&l, |v| self.eq(v, b'"')),
            backslash: self.mask(&l, |v| self.eq(v, b'\\')),
            open: self.mask(&l, |v| self.eq(self.lower(v), b'{')),
            close: self.mask(&l, |v| self.eq(self.lower(v), b'}')),
        }
    }
}

/// A block scan, written once for every classifier: [`Scan::run`] is
/// compiled for each one it is dispatched to.
pub(crate) trait Scan {
    /// What the scan returns.
    type Out;
    /// Runs the scan with classifier `c`. Implementations are
    /// `#[inline(always)]`, so the scan is compiled inside the function
    /// that enables the classifier's CPU features.
    fn run<C: Classify>(self, c: C) -> Self::Out;
}

/// Runs `scan` with the fastest classifier the CPU has (AVX2 when present).
#[inline(always)]
pub(crate) fn fastest<S: Scan>(scan: S) -> S::Out {
    #[cfg(target_arch = "x86_64")]
    {
        if let Some(avx2) = Avx2::detect() {
            // SAFETY: `avx2` exists only on a CPU with AVX2, the one
            // feature the function enables.
            return unsafe { avx2::run(scan, avx2) };
        }
    }
    scan.run(Baseline::new())
}

/// Runs `scan` with the baseline classifier, compiled with `popcnt` where the
/// CPU has it (the x86_64 baseline lacks it, and a software popcount per
/// block costs a third of the skim).
#[inline(always)]
pub(crate) fn with_popcnt<S: Scan>(scan: S) -> S::Out {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("popcnt") {
            // SAFETY: the CPU supports the one feature the function enables.
            return unsafe { sse2::run_popcnt(scan) };
        }
    }
    scan.run(Baseline::new())
}

/// Whether `c` ends a run of plain string content: `"`, `\` or a control
/// character (below 0x20).
#[inline]
pub(crate) fn is_special(c: u8) -> bool {
    c == b'"' || c == b'\\' || c < 0x20
}

/// Position of the first `"`, `\` or control character (below 0x20) at or
/// after `from`. Strings are where the bytes are, and in real captures
/// escapes are dense (`\uXXXX` every few bytes), so this must be cheap for
/// short hops as well as long runs: 16 bytes are classified at once (SSE2
/// or NEON; eight in a `u64` elsewhere).
#[inline]
pub(crate) fn next_special(b: &[u8], from: usize) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: SSE2 is part of the x86_64 baseline.
        unsafe { sse2::next_special(b, from) }
    }
    #[cfg(target_arch = "aarch64")]
    {
        // SAFETY: NEON is part of the aarch64 baseline.
        unsafe { neon::next_special(b, from) }
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        swar::next_special(b, from)
    }
}

/// The 64 bytes of `b` at `at` (`at < b.len()`), or what is left of them
/// padded with spaces (which are neither quotes, backslashes, brackets nor
/// control characters) in `pad`.
#[inline(always)]
pub(crate) fn block_at<'a>(b: &'a [u8], at: usize, pad: &'a mut [u8; BLOCK]) -> &'a [u8; BLOCK] {
    match b.get(at..at + BLOCK).and_then(|s| s.try_into().ok()) {
        Some(full) => full,
        None => {
            let rest = b.get(at..).unwrap_or(&[]);
            pad[..rest.len()].copy_from_slice(rest);
            pad[rest.len()..].fill(b' ');
            pad
        }
    }
}

/// Characters escaped by a backslash, given the block's backslashes and
/// whether the previous block ended with an unfinished escape (simdjson's
/// branchless odd-run rule: in a run of backslashes, every second one is
/// escaped, and the character after an odd-length run is).
#[inline(always)]
pub(crate) fn escaped(backslash: u64, prev_escaped: &mut u64) -> u64 {
    const EVEN: u64 = 0x5555_5555_5555_5555;
    let backslash = backslash & !*prev_escaped;
    if backslash & (backslash << 1) == 0 {
        // No two backslashes in a row (the common case: `\u`, `\n`): each
        // escapes the character after it.
        let escaped = (backslash << 1) | *prev_escaped;
        *prev_escaped = backslash >> 63;
        return escaped;
    }
    let follows_escape = (backslash << 1) | *prev_escaped;
    let odd_starts = backslash & !EVEN & !follows_escape;
    let (on_even, overflow) = odd_starts.overflowing_add(backslash);
    *prev_escaped = u64::from(overflow);
    let invert = on_even << 1;
    (EVEN ^ invert) & follows_escape
}

/// XOR of all lower bits: 1 from an opening quote up to (not including) its
/// closing quote.
#[inline(always)]
pub(crate) fn prefix_xor(mut x: u64) -> u64 {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    x
}
