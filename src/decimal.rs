//! Exact decimal numbers for sums, minima and maxima.
//!
//! Capture payloads carry money as decimal strings (`"cost_usd":"0.0123"`) and
//! token counts as integers. Summing them as `f64` would print
//! `0.08199999999999999` for four costs that add up to `0.082`, so every value
//! that can be is held as a fixed-point [`Decimal`]: an `i128` counting units of
//! 10⁻¹⁸. That covers ±1.7·10²⁰ with 18 fractional digits, far beyond any token
//! count or bill, and adds without rounding. A value that does not fit exactly
//! (beyond that range, or with a nonzero digit below 10⁻¹⁸, such as `1e-30`) is
//! never rounded: [`Decimal::parse`] returns `None` and the caller falls back
//! to `f64`, and says so (`"approximate"` in ci-agg's records).
//!
//! Why not a decimal crate: `rust_decimal`'s `FromStr` rejects exponent forms
//! (`"1E-7"`, which Python's `str(Decimal)` writes for small costs), and all that
//! is needed here is parse, add, compare, divide by a count and print — a few
//! dozen lines over `i128`.

use std::cmp::Ordering;
use std::fmt;

/// Fractional digits kept.
pub const SCALE: u32 = 18;
const ONE: i128 = 1_000_000_000_000_000_000;

/// A decimal number with exactly [`SCALE`] fractional digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Decimal(i128);

impl Decimal {
    /// Zero.
    pub const ZERO: Decimal = Decimal(0);

    /// Its value in units of 10⁻¹⁸, as stored (the capture cache's binary form).
    pub fn to_bits(self) -> i128 {
        self.0
    }

    /// The decimal of [`Decimal::to_bits`].
    pub fn from_bits(units: i128) -> Decimal {
        Decimal(units)
    }

    /// The decimal as an `i64` when it is a whole number that fits one
    /// (what [`Decimal::from_int`] makes).
    pub fn whole(self) -> Option<i64> {
        (self.0 % ONE == 0).then(|| i64::try_from(self.0 / ONE).ok()).flatten()
    }

    /// An integer.
    pub fn from_int(n: i64) -> Decimal {
        Decimal(i128::from(n) * ONE)
    }

    /// Parses a decimal number as JSON writes it, also inside a string:
    /// optional sign, digits with an optional `.`, optional exponent
    /// (`12`, `-0.0123`, `+.5`, `1E-7`, `2.5e3`). Surrounding ASCII whitespace
    /// is ignored. `None` for anything else (`NaN`, `""`, `1,5`) and for values
    /// a `Decimal` cannot hold exactly (beyond ±1.7·10²⁰, or a nonzero digit
    /// below 10⁻¹⁸).
    ///
    /// ```
    /// use ci_tools::decimal::Decimal;
    /// let a = Decimal::parse("0.0123").unwrap();
    /// let b = Decimal::parse("1E-4").unwrap();
    /// assert_eq!(a.checked_add(b).unwrap().to_string(), "0.0124");
    /// ```
    pub fn parse(s: &str) -> Option<Decimal> {
        // Token counts: a plain integer of up to 18 digits (no i128
        // arithmetic per digit).
        if !s.is_empty() && s.len() <= 18 && s.bytes().all(|c| c.is_ascii_digit()) {
            let n = s.bytes().fold(0i64, |n, c| n * 10 + i64::from(c - b'0'));
            return Some(Decimal::from_int(n));
        }
        let b = s.trim_matches(|c: char| c.is_ascii_whitespace()).as_bytes();
        let mut i = 0;
        let neg = match b.first() {
            Some(b'-') => {
                i = 1;
                true
            }
            Some(b'+') => {
                i = 1;
                false
            }
            _ => false,
        };
        let (mut mant, mut frac, mut digits, mut dot) = (0i128, 0i64, 0u64, false);
        while let Some(&c) = b.get(i) {
            match c {
                b'0'..=b'9' => {
                    digits = digits.saturating_add(1);
                    match mant.checked_mul(10).and_then(|m| m.checked_add(i128::from(c - b'0'))) {
                        Some(m) => {
                            mant = m;
                            if dot {
                                frac = frac.saturating_add(1);
                            }
                        }
                        // More significant digits than an i128 holds: a
                        // further zero after the point changes nothing;
                        // anything else cannot be held exactly. (Every
                        // value a `Decimal` prints reads back: a sum's
                        // 38 digits on the `--partial` wire, issue 38.)
                        None if dot && c == b'0' => {}
                        None => return None,
                    }
                }
                b'.' if !dot => dot = true,
                _ => break,
            }
            i += 1;
        }
        if digits == 0 {
            return None;
        }
        let mut exp = 0i64;
        if let Some(&c) = b.get(i) {
            if c != b'e' && c != b'E' {
                return None;
            }
            i += 1;
            let eneg = match b.get(i) {
                Some(b'-') => {
                    i += 1;
                    true
                }
                Some(b'+') => {
                    i += 1;
                    false
                }
                _ => false,
            };
            let start = i;
            while let Some(&c @ b'0'..=b'9') = b.get(i) {
                if exp < 100_000 {
                    exp = exp * 10 + i64::from(c - b'0');
                }
                i += 1;
            }
            if i == start || i != b.len() {
                return None;
            }
            if eneg {
                exp = -exp;
            }
        }
        let shift = i64::from(SCALE) - frac + exp;
        let v = if mant == 0 {
            0
        } else if shift >= 0 {
            mant.checked_mul(10i128.checked_pow(shift as u32)?)?
        } else {
            // Digits below 10⁻¹⁸: exact only when they are all zeros.
            let unit = 10i128.checked_pow(u32::try_from(-shift).ok()?)?;
            if mant % unit != 0 {
                return None;
            }
            mant / unit
        };
        Some(Decimal(if neg { -v } else { v }))
    }

    /// `self + other`, `None` on overflow.
    pub fn checked_add(self, other: Decimal) -> Option<Decimal> {
        self.0.checked_add(other.0).map(Decimal)
    }

    /// `self - other`, `None` on overflow.
    pub fn checked_sub(self, other: Decimal) -> Option<Decimal> {
        self.0.checked_sub(other.0).map(Decimal)
    }

    /// `self * n`, `None` on overflow.
    pub fn checked_mul_int(self, n: u64) -> Option<Decimal> {
        self.0.checked_mul(i128::from(n)).map(Decimal)
    }

    /// `self / n`, rounded half away from zero to [`SCALE`] digits.
    pub fn div_count(self, n: u64) -> Option<Decimal> {
        if n == 0 {
            return None;
        }
        let n = i128::from(n);
        if self.0 >= 0 {
            Some(Decimal(round_div(self.0, n)))
        } else {
            Some(Decimal(-round_div(self.0.checked_neg()?, n)))
        }
    }

    /// Whether the value has no fractional part.
    pub fn is_integer(self) -> bool {
        self.0 % ONE == 0
    }

    /// The integer value when it has no fractional part and fits an `i64`.
    pub fn to_i64(self) -> Option<i64> {
        if self.is_integer() {
            i64::try_from(self.0 / ONE).ok()
        } else {
            None
        }
    }

    /// The nearest `f64`.
    pub fn to_f64(self) -> f64 {
        // An integer below 2^53 converts exactly (token counts).
        if self.0 % ONE == 0 && (self.0 / ONE).unsigned_abs() < 1 << 53 {
            return (self.0 / ONE) as f64;
        }
        // Going through the shortest decimal text gives the correctly rounded value.
        self.to_string().parse().unwrap_or(f64::NAN)
    }

    /// Compares with an `f64` (used when one side of a min/max is not exact).
    pub fn cmp_f64(self, other: f64) -> Ordering {
        self.to_f64().total_cmp(&other)
    }
}

/// `a / b` for `a >= 0`, `b > 0`, rounded half up.
fn round_div(a: i128, b: i128) -> i128 {
    let (q, r) = (a / b, a % b);
    if r >= b - r {
        q + 1
    } else {
        q
    }
}

impl fmt::Display for Decimal {
    /// Plain notation with no trailing zeros: `12`, `-0.0123`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let abs = self.0.unsigned_abs();
        let one = ONE as u128;
        let (int, frac) = (abs / one, abs % one);
        if self.0 < 0 {
            f.write_str("-")?;
        }
        if frac == 0 {
            write!(f, "{int}")
        } else {
            let digits = format!("{frac:018}");
            write!(f, "{int}.{}", digits.trim_end_matches('0'))
        }
    }
}

#[cfg(test)]
mod tests;
