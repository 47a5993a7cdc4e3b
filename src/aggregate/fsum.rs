//! [`Fsum`]: an exact sum of `f64` values, rounded once when it is read, so
//! that its answer does not depend on the order or grouping of the
//! additions: one thread's `--no-cache` run, several threads, the capture
//! cache's per-capture states and `--partial | --merge` shards all print the
//! same digits (issue 38, D3: `1.0000000000000000001`, `1e21`, `-1e21` summed
//! to 0 read in one run and to 1 merged from two).
//!
//! The state is Shewchuk's expansion (the algorithm of Python's
//! `math.fsum`): a few non-overlapping partial sums in increasing
//! magnitude whose exact sum is the exact sum of every value added. Adding
//! a value or another sum's partials is exact; [`Fsum::value`] rounds the
//! exact sum to the nearest `f64` (ties to even). Usually one or two
//! partials; at most about 40 for values spread over the whole `f64` range.
//! A sum that passes beyond ±1.8·10³⁰⁸ while it is added is infinite.

/// An exact sum of `f64` values (see the module documentation).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Fsum {
    partials: Vec<f64>,
}

impl Fsum {
    /// Adds `x` exactly.
    pub fn add(&mut self, mut x: f64) {
        if !x.is_finite() || self.partials.last().is_some_and(|p| !p.is_finite()) {
            // Past the range: the sum is infinite (or NaN), as f64 addition says.
            let total = self.value() + x;
            self.partials.clear();
            self.partials.push(total);
            return;
        }
        let mut kept = 0;
        for j in 0..self.partials.len() {
            let mut y = self.partials[j];
            if x.abs() < y.abs() {
                std::mem::swap(&mut x, &mut y);
            }
            let hi = x + y;
            if !hi.is_finite() {
                self.partials.truncate(kept);
                self.partials.push(hi);
                return;
            }
            let lo = y - (hi - x);
            if lo != 0.0 {
                self.partials[kept] = lo;
                kept += 1;
            }
            x = hi;
        }
        self.partials.truncate(kept);
        self.partials.push(x);
    }

    /// Adds another sum exactly.
    pub fn merge(&mut self, o: &Fsum) {
        for &p in &o.partials {
            self.add(p);
        }
    }

    /// The exact sum, rounded to the nearest `f64` (ties to even).
    pub fn value(&self) -> f64 {
        let p = &self.partials;
        let Some(&top) = p.last() else { return 0.0 };
        let (mut hi, mut lo) = (top, 0.0);
        let mut n = p.len() - 1;
        while n > 0 {
            let x = hi;
            let y = p[n - 1];
            n -= 1;
            hi = x + y;
            lo = y - (hi - x);
            if lo != 0.0 {
                break;
            }
        }
        // Round half to even: when the rest of the partials push a tie the
        // way of `lo`, the correction is applied.
        if n > 0 && ((lo < 0.0 && p[n - 1] < 0.0) || (lo > 0.0 && p[n - 1] > 0.0)) {
            let y = lo * 2.0;
            let x = hi + y;
            if y == x - hi {
                hi = x;
            }
        }
        // -0.0 only when every value was: a sum starts at +0.0, as `+=` does.
        hi + 0.0
    }

    /// The partials (for the wire and cache forms).
    pub fn partials(&self) -> &[f64] {
        &self.partials
    }

    /// A sum of the given partials (any finite numbers: they are added
    /// one by one, so a forged list still gives an exact sum of its numbers).
    pub fn from_partials(partials: impl IntoIterator<Item = f64>) -> Fsum {
        let mut s = Fsum::default();
        for p in partials {
            s.add(p);
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn sum(v: &[f64]) -> f64 {
        Fsum::from_partials(v.iter().copied()).value()
    }

    #[test]
    fn exact_where_plain_addition_is_not() {
        assert_eq!(sum(&[1.0, 1e21, -1e21]), 1.0);
        assert_eq!(sum(&[1e21, -1e21, 1.0]), 1.0);
        assert_eq!(sum(&[0.1, 0.2, 0.3]), 0.6);
        assert_eq!(sum(&[1e308, -1e308, 1e308]), 1e308);
        assert_eq!(sum(&[]), 0.0);
        assert_eq!(sum(&[1e308, 1e308]), f64::INFINITY);
        // Ties round to even: 2^53 + 1 is between two f64s.
        assert_eq!(sum(&[9007199254740992.0, 1.0]), 9007199254740992.0);
        assert_eq!(sum(&[9007199254740992.0, 1.0, 1e-300]), 9007199254740994.0);
    }

    proptest! {
        /// Any order and any grouping into merged shards give the same digits.
        #[test]
        fn order_and_grouping_do_not_matter(
            v in prop::collection::vec(prop_oneof![any::<f64>().prop_filter("finite", |x| x.is_finite() && x.abs() < 1e300), -1e6f64..1e6, -1e-20f64..1e-20], 0..40),
            cut in 0usize..40,
            seed in any::<u64>(),
        ) {
            let whole = sum(&v);
            let mut shuffled = v.clone();
            let mut s = seed;
            for i in (1..shuffled.len()).rev() {
                s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                shuffled.swap(i, (s >> 33) as usize % (i + 1));
            }
            prop_assert_eq!(sum(&shuffled).to_bits(), whole.to_bits());
            let cut = cut.min(v.len());
            let mut a = Fsum::from_partials(v[..cut].iter().copied());
            let b = Fsum::from_partials(v[cut..].iter().copied());
            a.merge(&b);
            prop_assert_eq!(a.value().to_bits(), whole.to_bits());
            let again = Fsum::from_partials(a.partials().iter().copied());
            prop_assert_eq!(again.value().to_bits(), whole.to_bits());
        }
    }
}
