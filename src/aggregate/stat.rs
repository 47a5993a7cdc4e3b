//! Metric state: every metric implements `add(value)` and `merge(other)`, so the
//! per-thread states of one run and the partial states of several runs
//! (`--partial` / `--merge`) are combined by the same code.
//!
//! - count, sum, mean, min and max are exact and merge exactly: sums are
//!   [`Decimal`]s (numeric strings such as `"0.0123"` included), with an `f64`
//!   fallback for values beyond ±1.7·10²⁰ or finer than 10⁻¹⁸, summed
//!   exactly and rounded once ([`Fsum`]), so a float sum too is the same
//!   whatever the order, the threads, the cache or the shards.
//! - Percentiles are exact (linear interpolation between the two closest
//!   ranks, as numpy's default and DuckDB's `quantile_cont`) while a group
//!   holds at most [`EXACT_MAX`] values; past that they are estimated by a
//!   t-digest (compression 100, the `tdigest` crate), whose merge is the
//!   digest merge, so a merged answer is close to, not always equal to, a
//!   single run's.
//! - distinct counts are exact (the set of distinct values is kept).

use std::collections::HashSet;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tdigest::{Centroid, TDigest};

use super::decimal::Decimal;
use super::field::{KeyVal, Num, Numeric, Val};
use super::fsum::Fsum;
use super::json_num;

/// Groups with at most this many values get exact percentiles.
pub const EXACT_MAX: usize = 1024;
/// t-digest compression (maximum centroids).
const DIGEST_SIZE: usize = 100;

/// One output of a metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Out {
    /// Number of numeric values.
    Count,
    /// Sum (`--sum`).
    Sum,
    /// Mean (`--avg`).
    Avg,
    /// Mean (`--stats`).
    Mean,
    /// Minimum.
    Min,
    /// Maximum.
    Max,
    /// Median.
    P50,
    /// 95th percentile.
    P95,
    /// 99th percentile.
    P99,
    /// Number of distinct non-null values.
    Distinct,
}

impl Out {
    /// Every output, in the order they are printed.
    pub const ALL: [Out; 10] =
        [Out::Count, Out::Sum, Out::Avg, Out::Mean, Out::Min, Out::Max, Out::P50, Out::P95, Out::P99, Out::Distinct];

    /// What `--stats` prints.
    pub const STATS: [Out; 8] = [Out::Count, Out::Sum, Out::Mean, Out::Min, Out::Max, Out::P50, Out::P95, Out::P99];

    /// The output key.
    pub fn name(self) -> &'static str {
        match self {
            Out::Count => "count",
            Out::Sum => "sum",
            Out::Avg => "avg",
            Out::Mean => "mean",
            Out::Min => "min",
            Out::Max => "max",
            Out::P50 => "p50",
            Out::P95 => "p95",
            Out::P99 => "p99",
            Out::Distinct => "distinct",
        }
    }

    /// Parses an output key.
    pub fn parse(s: &str) -> Option<Out> {
        Out::ALL.into_iter().find(|o| o.name() == s)
    }

    /// The percentile of a percentile output.
    pub fn quantile(self) -> Option<u32> {
        match self {
            Out::P50 => Some(50),
            Out::P95 => Some(95),
            Out::P99 => Some(99),
            _ => None,
        }
    }
}

/// A sum: the exact [`Decimal`] sum of the values that are decimals, and
/// the exact sum ([`Fsum`]) of those that are not (`1e-30`, `1e21`). Its
/// value is exact while every value was a decimal; else the float sum of
/// both, rounded once: the same digits whatever the order or grouping of
/// the additions. (Only a decimal total beyond ±1.7·10²⁰ is moved into the
/// float sum as it stands when it overflows.)
#[derive(Debug, Clone, PartialEq)]
pub struct Sum {
    /// The sum of the decimal values; `None` once it overflowed.
    exact: Option<Decimal>,
    /// The sum of the other values (and of the decimals, after an overflow).
    float: Fsum,
}

impl Default for Sum {
    fn default() -> Sum {
        Sum { exact: Some(Decimal::ZERO), float: Fsum::default() }
    }
}

impl Sum {
    /// Adds a number.
    pub fn add(&mut self, n: Num) {
        match (self.exact, n) {
            (Some(a), Num::Exact(b)) => match a.checked_add(b) {
                Some(s) => self.exact = Some(s),
                None => self.overflow(b),
            },
            (None, Num::Exact(b)) => self.float.add(b.to_f64()),
            (_, Num::Float(f)) => self.float.add(f),
        }
    }

    /// The decimal total is past its range: it moves into the float sum.
    fn overflow(&mut self, b: Decimal) {
        if let Some(a) = self.exact.take() {
            self.float.add(a.to_f64());
        }
        self.float.add(b.to_f64());
    }

    /// Adds another sum.
    pub fn merge(&mut self, o: &Sum) {
        self.float.merge(&o.float);
        match o.exact {
            Some(b) => self.add(Num::Exact(b)),
            None => {
                if let Some(a) = self.exact.take() {
                    self.float.add(a.to_f64());
                }
            }
        }
    }

    /// Whether every value was a decimal (and the total fits one).
    fn is_exact(&self) -> bool {
        self.exact.is_some() && self.float.partials().is_empty()
    }

    /// Its decimal sum (`None` after an overflow) and the partials of its
    /// float sum, as kept.
    pub fn parts(&self) -> (Option<Decimal>, &[f64]) {
        (self.exact, self.float.partials())
    }

    /// The sum of [`Sum::parts`].
    pub fn from_parts(exact: Option<Decimal>, float: impl IntoIterator<Item = f64>) -> Sum {
        Sum { exact, float: Fsum::from_partials(float) }
    }

    /// The total: exact while every value was a decimal, else both sums
    /// added exactly and rounded once.
    pub fn value(&self) -> Num {
        match self.exact {
            Some(d) if self.is_exact() => Num::Exact(d),
            _ => Num::Float(self.float_total()),
        }
    }

    /// Both sums as one float, rounded once.
    fn float_total(&self) -> f64 {
        let mut total = self.float.clone();
        if let Some(d) = self.exact {
            total.add(d.to_f64());
        }
        total.value()
    }

    /// The mean of `n` values.
    pub fn mean(&self, n: u64) -> Option<Num> {
        if n == 0 {
            return None;
        }
        Some(match self.exact.filter(|_| self.is_exact()).and_then(|d| d.div_count(n)) {
            Some(d) => Num::Exact(d),
            None => Num::Float(self.float_total() / n as f64),
        })
    }

    /// Wire form: exact decimal text, or a JSON number when inexact.
    /// Exact: its decimal text. Else `[DECIMAL|null, PARTIAL…]`: the decimal
    /// sum and the float sum's partials, so a merge adds them exactly.
    pub fn to_wire(&self) -> Value {
        if self.is_exact() {
            return num_wire(self.value());
        }
        let mut parts = vec![self.exact.map_or(Value::Null, |d| Value::String(d.to_string()))];
        parts.extend(self.float.partials().iter().map(|&f| num_wire(Num::Float(f))));
        Value::Array(parts)
    }

    /// Reads the wire form (a plain number too: a float sum of one partial).
    pub fn from_wire(v: &Value) -> Result<Sum, String> {
        if let Value::Array(parts) = v {
            let exact = match parts.first() {
                None | Some(Value::Null) => None,
                Some(d) => match num_from_wire(d)? {
                    Num::Exact(d) => Some(d),
                    Num::Float(_) => return Err("a sum's decimal part is not a decimal".into()),
                },
            };
            let floats = parts.iter().skip(1).map(partial_from_wire).collect::<Result<Vec<_>, _>>()?;
            return Ok(Sum::from_parts(exact, floats));
        }
        Ok(match num_from_wire(v)? {
            Num::Exact(d) => Sum { exact: Some(d), float: Fsum::default() },
            Num::Float(f) => Sum { exact: Some(Decimal::ZERO), float: Fsum::from_partials([f]) },
        })
    }
}

/// Checks a kept state's `min` and `max` (a `--partial` line read by
/// `--merge`, a capture cache entry read back: the same check for both):
/// a min above its max is no state a run makes.
pub fn check_bounds(min: Option<Num>, max: Option<Num>) -> Result<(), String> {
    match (min, max) {
        (Some(lo), Some(hi)) if lo.total_cmp(hi).is_gt() => {
            Err(format!("bad metric state: min {} is above max {}", json_num(lo), json_num(hi)))
        }
        _ => Ok(()),
    }
}

/// A number's wire form: exact values as decimal strings (so no digit is lost),
/// others as JSON numbers. A float JSON has no number for — a float sum's
/// partial past ±1.8·10³⁰⁸ is infinite, one of both signs NaN — is
/// `"inf"`, `"-inf"` or `"nan"` ([`Sum::from_wire`] reads them back).
pub fn num_wire(n: Num) -> Value {
    match n {
        Num::Exact(d) => Value::String(d.to_string()),
        Num::Float(f) => match serde_json::Number::from_f64(f) {
            Some(n) => Value::Number(n),
            None if f.is_nan() => Value::String("nan".into()),
            None => Value::String(if f > 0.0 { "inf" } else { "-inf" }.into()),
        },
    }
}

/// Reads a float sum's partial: a number's wire form, or an infinite or
/// NaN one ([`num_wire`]); only a sum holds those (values read are finite).
fn partial_from_wire(v: &Value) -> Result<f64, String> {
    match v.as_str() {
        Some("inf") => Ok(f64::INFINITY),
        Some("-inf") => Ok(f64::NEG_INFINITY),
        Some("nan") => Ok(f64::NAN),
        _ => num_from_wire(v).map(Num::to_f64),
    }
}

/// Reads a number's wire form (finite).
pub fn num_from_wire(v: &Value) -> Result<Num, String> {
    match v {
        Value::String(s) => Decimal::parse(s).map(Num::Exact).ok_or_else(|| format!("bad decimal {s:?}")),
        Value::Number(n) => n.as_f64().filter(|f| f.is_finite()).map(Num::Float).ok_or_else(|| "bad number".into()),
        _ => Err(format!("expected a number, got {v}")),
    }
}

/// Percentile state: the values themselves while few, else a t-digest.
///
/// A *tape* keeps every value in the order added, however many (one
/// capture's state read for the capture cache): [`Quantiles::merge`]
/// replays it into another state, adding its values one by one, so the result
/// is the one adding them directly gives, t-digest included — which merging
/// two digests would not be.
#[derive(Debug, Clone, Default)]
pub struct Quantiles {
    exact: Vec<Num>,
    digest: Option<TDigest>,
    tape: bool,
}

impl Quantiles {
    /// An empty tape.
    pub fn tape() -> Quantiles {
        Quantiles { tape: true, ..Quantiles::default() }
    }

    /// Adds a value.
    pub fn add(&mut self, v: Num) {
        match &mut self.digest {
            Some(d) => d.push(v.to_f64()),
            None if self.tape || self.exact.len() < EXACT_MAX => self.exact.push(v),
            None => {
                let mut d = TDigest::new_with_size(DIGEST_SIZE);
                d.extend_values(self.exact.drain(..).map(Num::to_f64));
                d.push(v.to_f64());
                self.digest = Some(d);
            }
        }
    }

    /// Number of values.
    /// The values, while they are kept exactly (no t-digest yet).
    pub fn exact_values(&self) -> Option<&[Num]> {
        self.digest.is_none().then_some(&self.exact[..])
    }

    /// A tape of these values, in this order.
    pub fn tape_of(values: Vec<Num>) -> Quantiles {
        Quantiles { exact: values, digest: None, tape: true }
    }

    /// This state as its owner keeps it: a tape for a tape's owner; for
    /// another, what adding its values to an empty state gives.
    pub fn kept_as(self, tape: bool) -> Quantiles {
        match (self.tape, tape) {
            (false, true) if self.digest.is_none() => Quantiles { tape: true, ..self },
            (true, false) => {
                let mut q = Quantiles::default();
                q.merge(self);
                q
            }
            _ => self,
        }
    }

    pub fn len(&self) -> u64 {
        match &self.digest {
            Some(d) => d.count() as u64,
            None => self.exact.len() as u64,
        }
    }

    /// Whether no value was added.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Combines two states (the states of two threads: a digest merge past
    /// [`EXACT_MAX`] values; a tape's owner appends the other's values).
    ///
    /// A tape merged in is replayed: its values are added one by one, in
    /// order, so the state is what adding them directly would have made.
    pub fn merge(&mut self, mut o: Quantiles) {
        if o.tape && !self.tape {
            // A tape never holds a digest: its values, one by one.
            return o.exact.into_iter().for_each(|v| self.add(v));
        }
        let (mine, theirs) = (self.exact.len(), o.exact.len());
        if self.digest.is_none() && o.digest.is_none() && (self.tape || mine + theirs <= EXACT_MAX) {
            self.exact.append(&mut o.exact);
            return;
        }
        let a = self.take_digest();
        let b = o.take_digest();
        self.digest = Some(TDigest::merge_digests(vec![a, b]));
    }

    /// Turns the state into a flushed digest, leaving `self` empty.
    fn take_digest(&mut self) -> TDigest {
        let mut d = self.digest.take().unwrap_or_else(|| TDigest::new_with_size(DIGEST_SIZE));
        d.extend_values(self.exact.drain(..).map(Num::to_f64));
        d.flush();
        d
    }

    /// The value at percentile `p` (0–100); `None` without values.
    pub fn quantile(&self, p: u32) -> Option<Num> {
        match &self.digest {
            Some(d) => {
                let mut d = d.clone();
                d.flush();
                d.estimate_quantile(f64::from(p) / 100.0).map(Num::Float)
            }
            None => exact_quantile(&self.exact, p),
        }
    }

    /// Wire form: `{"v":[values]}` or `{"c":[[mean,weight],…],"min":x,"max":y}`.
    pub fn to_wire(&self) -> Value {
        match &self.digest {
            None => {
                serde_json::json!({ "v": self.exact.iter().map(|&n| num_wire(n)).collect::<Vec<_>>() })
            }
            Some(d) => {
                let mut d = d.clone();
                d.flush();
                digest_wire(d.centroids(), d.min(), d.max())
            }
        }
    }

    /// Reads the wire form, checking what the digest code relies on.
    pub fn from_wire(v: &Value) -> Result<Quantiles, String> {
        let wire: QuantWire = serde_json::from_value(v.clone()).map_err(|e| format!("bad quantile state: {e}"))?;
        if let Some(values) = wire.v {
            if values.len() > EXACT_MAX {
                return Err("bad quantile state: too many values".into());
            }
            let exact = values.iter().map(num_from_wire).collect::<Result<Vec<_>, _>>()?;
            return Ok(Quantiles { exact, digest: None, tape: false });
        }
        let cs = wire.c.unwrap_or_default();
        if cs.is_empty() {
            return Ok(Quantiles::default());
        }
        let (min, max) = match (wire.min, wire.max) {
            (Some(a), Some(b)) if a.is_finite() && b.is_finite() && a <= b => (a, b),
            _ => return Err("bad quantile state: digest without min/max".into()),
        };
        if cs.iter().any(|&(m, w)| !m.is_finite() || !w.is_finite() || w <= 0.0) {
            return Err("bad quantile state: bad centroid".into());
        }
        let count: f64 = cs.iter().map(|c| c.1).sum();
        let sum: f64 = cs.iter().map(|c| c.0 * c.1).sum();
        let centroids = cs.into_iter().map(|(m, w)| Centroid::new(m, w)).collect();
        Ok(Quantiles {
            exact: vec![],
            digest: Some(TDigest::new(centroids, sum, count, Some(max), Some(min), DIGEST_SIZE)),
            tape: false,
        })
    }

    /// Splits into pieces whose wire forms hold at most `per` values or
    /// centroids each; merging the pieces gives this state back (digest pieces
    /// up to recompression).
    pub fn split(&self, per: usize) -> Vec<Quantiles> {
        let per = per.max(1);
        match &self.digest {
            None => {
                self.exact.chunks(per).map(|c| Quantiles { exact: c.to_vec(), digest: None, tape: false }).collect()
            }
            Some(d) => {
                let mut d = d.clone();
                d.flush();
                let cs = d.centroids();
                let n = cs.len();
                let mut out = vec![];
                let mut start = 0;
                while start < n {
                    let end = (start + per).min(n);
                    let part = &cs[start..end];
                    // The true min/max travel with the first/last piece; inner
                    // pieces use their own centroid means, which lie inside.
                    let min = if start == 0 { d.min() } else { Some(part[0].mean()) };
                    let max = if end == n { d.max() } else { Some(part[part.len() - 1].mean()) };
                    let wire = digest_wire(part, min, max);
                    if let Ok(q) = Quantiles::from_wire(&wire) {
                        out.push(q);
                    }
                    start = end;
                }
                out
            }
        }
    }
}

fn digest_wire(cs: &[Centroid], min: Option<f64>, max: Option<f64>) -> Value {
    let c: Vec<(f64, f64)> = cs.iter().map(|c| (c.mean(), c.weight())).collect();
    serde_json::json!({ "c": c, "min": min, "max": max })
}

#[derive(Deserialize)]
struct QuantWire {
    v: Option<Vec<Value>>,
    c: Option<Vec<(f64, f64)>>,
    min: Option<f64>,
    max: Option<f64>,
}

/// Percentile `p` (0–100) by linear interpolation between the closest ranks
/// (numpy's default, "type 7"): rank h = (n − 1)·p/100, value
/// x⌊h⌋ + (h − ⌊h⌋)·(x⌊h⌋+1 − x⌊h⌋). Exact in decimal when the values are.
pub fn exact_quantile(values: &[Num], p: u32) -> Option<Num> {
    if values.is_empty() {
        return None;
    }
    let p = p.min(100);
    let mut v = values.to_vec();
    v.sort_by(|a, b| a.total_cmp(*b));
    let h100 = (v.len() as u64 - 1) * u64::from(p);
    let lo = (h100 / 100) as usize;
    let rem = h100 % 100;
    let hi = (lo + 1).min(v.len() - 1);
    if let (Num::Exact(a), Num::Exact(b)) = (v[lo], v[hi]) {
        let step = b.checked_sub(a).and_then(|d| d.checked_mul_int(rem)).and_then(|d| d.div_count(100));
        if let Some(x) = step.and_then(|s| a.checked_add(s)) {
            return Some(Num::Exact(x));
        }
    }
    let (a, b) = (v[lo].to_f64(), v[hi].to_f64());
    Some(Num::Float(a + (rem as f64 / 100.0) * (b - a)))
}

/// The state of one metric column of one group.
#[derive(Debug, Clone, Default)]
pub struct Stat {
    /// Numeric values seen.
    pub n: u64,
    /// Their sum.
    pub sum: Sum,
    /// Smallest value.
    pub min: Option<Num>,
    /// Largest value.
    pub max: Option<Num>,
    /// Percentile state, when a percentile is wanted.
    pub quant: Option<Quantiles>,
    /// Distinct values, when `distinct` is wanted.
    pub distinct: Option<HashSet<KeyVal>>,
    /// Values that were present but not numbers.
    pub not_numbers: u64,
}

impl Stat {
    /// An empty state for the given outputs.
    pub fn new(outs: &[Out]) -> Stat {
        Stat::new_in(outs, false)
    }

    /// An empty state for the given outputs; its percentile values kept as
    /// a tape ([`Quantiles`]) when `tape`.
    pub fn new_in(outs: &[Out], tape: bool) -> Stat {
        let quant = if tape { Quantiles::tape } else { Quantiles::default };
        Stat {
            quant: outs.iter().any(|o| o.quantile().is_some()).then(quant),
            distinct: outs.contains(&Out::Distinct).then(HashSet::new),
            ..Stat::default()
        }
    }

    /// Whether the state tracks numbers at all (not only distinct values).
    fn numeric(outs: &[Out]) -> bool {
        outs.iter().any(|&o| o != Out::Distinct)
    }

    /// Adds one value.
    pub fn add(&mut self, v: &Val<'_>, outs: &[Out]) {
        if let Some(set) = &mut self.distinct {
            if !v.is_null() {
                let k = v.key();
                if !set.contains(&k) {
                    set.insert(k);
                }
            }
        }
        if !Stat::numeric(outs) {
            return;
        }
        match v.numeric() {
            Numeric::Absent => {}
            Numeric::NotANumber => self.not_numbers += 1,
            Numeric::Num(n) => self.add_num(n),
        }
    }

    /// Adds one number.
    pub fn add_num(&mut self, n: Num) {
        self.n += 1;
        self.sum.add(n);
        if self.min.is_none_or(|m| n.total_cmp(m).is_lt()) {
            self.min = Some(n);
        }
        if self.max.is_none_or(|m| n.total_cmp(m).is_gt()) {
            self.max = Some(n);
        }
        if let Some(q) = &mut self.quant {
            q.add(n);
        }
    }

    /// Combines another state of the same column into this one.
    pub fn merge(&mut self, o: Stat) {
        self.n = self.n.saturating_add(o.n);
        self.sum.merge(&o.sum);
        self.not_numbers = self.not_numbers.saturating_add(o.not_numbers);
        if let Some(m) = o.min {
            if self.min.is_none_or(|s| m.total_cmp(s).is_lt()) {
                self.min = Some(m);
            }
        }
        if let Some(m) = o.max {
            if self.max.is_none_or(|s| m.total_cmp(s).is_gt()) {
                self.max = Some(m);
            }
        }
        match (&mut self.quant, o.quant) {
            (Some(a), Some(b)) => a.merge(b),
            (None, Some(b)) => self.quant = Some(b.kept_as(false)),
            _ => {}
        }
        match (&mut self.distinct, o.distinct) {
            (Some(a), Some(b)) => a.extend(b),
            (None, Some(b)) => self.distinct = Some(b),
            _ => {}
        }
    }

    /// This state as an owner keeps it: its percentile values a tape or not
    /// ([`Quantiles::kept_as`]).
    pub fn keep_as(&mut self, tape: bool) {
        if let Some(q) = self.quant.take() {
            self.quant = Some(q.kept_as(tape));
        }
    }

    /// The value of one output (`null` when there were no values).
    pub fn output(&self, out: Out) -> Value {
        match out {
            Out::Count => Value::from(self.n),
            Out::Distinct => Value::from(self.distinct.as_ref().map_or(0, HashSet::len)),
            _ => self.figure(out).map_or(Value::Null, json_num),
        }
    }

    /// Whether an output was computed in binary floating point, so it may
    /// differ from the exact answer in its last digits: a value or total
    /// beyond what a [`Decimal`] holds exactly, or a t-digest estimate.
    pub fn is_approximate(&self, out: Out) -> bool {
        matches!(self.figure(out), Some(Num::Float(_)))
    }

    /// A numeric output; `None` when there were no values (or for count and
    /// distinct, which are always exact integers).
    fn figure(&self, out: Out) -> Option<Num> {
        match out {
            Out::Count | Out::Distinct => None,
            Out::Sum => (self.n > 0).then(|| self.sum.value()),
            Out::Avg | Out::Mean => self.sum.mean(self.n),
            Out::Min => self.min,
            Out::Max => self.max,
            Out::P50 | Out::P95 | Out::P99 => {
                self.quant.as_ref().and_then(|q| q.quantile(out.quantile().unwrap_or(50)))
            }
        }
    }

    /// Wire form for `--partial`.
    pub fn to_wire(&self) -> Value {
        let mut w = serde_json::Map::new();
        w.insert("n".into(), Value::from(self.n));
        if self.n > 0 {
            w.insert("sum".into(), self.sum.to_wire());
        }
        if let Some(m) = self.min {
            w.insert("min".into(), num_wire(m));
        }
        if let Some(m) = self.max {
            w.insert("max".into(), num_wire(m));
        }
        if self.not_numbers > 0 {
            w.insert("nan".into(), Value::from(self.not_numbers));
        }
        if let Some(q) = &self.quant {
            w.insert("q".into(), q.to_wire());
        }
        if let Some(d) = &self.distinct {
            let mut keys: Vec<&KeyVal> = d.iter().collect();
            keys.sort();
            w.insert("d".into(), Value::Array(keys.into_iter().map(KeyVal::to_json).collect()));
        }
        Value::Object(w)
    }

    /// Reads the wire form.
    pub fn from_wire(v: &Value) -> Result<Stat, String> {
        #[derive(Deserialize, Serialize)]
        struct Wire {
            n: u64,
            sum: Option<Value>,
            min: Option<Value>,
            max: Option<Value>,
            nan: Option<u64>,
            q: Option<Value>,
            d: Option<Vec<Value>>,
        }
        let w: Wire = serde_json::from_value(v.clone()).map_err(|e| format!("bad metric state: {e}"))?;
        let min = w.min.as_ref().map(num_from_wire).transpose()?;
        let max = w.max.as_ref().map(num_from_wire).transpose()?;
        check_bounds(min, max)?;
        Ok(Stat {
            n: w.n,
            sum: w.sum.as_ref().map(Sum::from_wire).transpose()?.unwrap_or_default(),
            min,
            max,
            quant: w.q.as_ref().map(Quantiles::from_wire).transpose()?,
            distinct: w.d.map(|d| d.iter().map(KeyVal::from_json).collect()),
            not_numbers: w.nan.unwrap_or(0),
        })
    }

    /// Splits into a first piece holding the scalars and pieces holding at
    /// most `per` percentile values or distinct keys each, so every wire form
    /// stays short; merging the pieces gives this state back.
    pub fn split(&self, per: usize) -> Vec<Stat> {
        let mut first = Stat { quant: None, distinct: None, ..self.clone() };
        let mut rest = vec![];
        if let Some(q) = &self.quant {
            let mut parts = q.split(per).into_iter();
            first.quant = Some(parts.next().unwrap_or_default());
            rest.extend(parts.map(|p| Stat { quant: Some(p), ..Stat::default() }));
        }
        if let Some(d) = &self.distinct {
            let mut keys: Vec<KeyVal> = d.iter().cloned().collect();
            keys.sort();
            let mut chunks = keys.chunks(per.max(1));
            first.distinct = Some(chunks.next().map(|c| c.iter().cloned().collect()).unwrap_or_default());
            rest.extend(chunks.map(|c| Stat { distinct: Some(c.iter().cloned().collect()), ..Stat::default() }));
        }
        let mut out = vec![first];
        out.append(&mut rest);
        out
    }
}

#[cfg(test)]
mod tests;
