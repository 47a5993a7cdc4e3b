//! A compact binary form of a `--by`/`--tokens` state, for the capture cache
//! ([`super::cached`]).
//!
//! It holds what the `--partial` lines of the state hold (every group's key,
//! count, metric states and cost sources), bit for bit: exact decimals as
//! their 128-bit value, floating-point figures as their bits. A warm run
//! reads one such state per capture; as JSON lines that cost ~1 µs a line (50 ms for the
//! 3,600 captures of a 1 GB corpus), this a small fraction of it. Held
//! responses (`--tokens` over Claude Code) follow the groups
//! ([`Responses::write_bin`]). Percentile values are one capture's tape,
//! every value in order ([`Quantiles`]); a t-digest (a capture's state never
//! is one) is not covered. `--tools` states have their own tag
//! ([`encode_tools`]).
//!
//! Layout, little-endian: `u32` groups; per group: `u32` keys, each a tag
//! byte (0 null, 1 false, 2 true, 3 number, 4 string, 5 JSON) and for 3–5 a
//! `u32` length and the text; `u64` count; the cost sources (`u8` bits, `u32`
//! unpriced models, each a length and its name); `u32` metric states, each:
//! `u64` n, `u64` not-numbers, the sum (`u8` exact?, `i128`, `f64`), min and
//! max (`u8` tag 0 none, 1 exact + `i128`, 2 float + `f64`), percentile
//! values (`u8` present, `u32` values, each a number as min/max), distinct
//! values (`u8` present, `u32` keys, each a key as above).

use std::collections::{BTreeSet, HashSet};

use super::calls::{ToolGroup, Tools};
use super::copied_calls::CopiedCalls;
use super::cost::{Sources, Tally};
use super::decimal::Decimal;
use super::field::{KeyVal, Num};
use super::groups::{Group, Groups};
use super::query::Query;
use super::responses::Responses;
use super::session::{SessionKey, Summary};
use super::stat::{Quantiles, Stat, Sum};
use crate::time::Timestamp;

/// The first byte of a binary `--by`/`--tokens` state (a line-form state
/// starts with `{`).
pub const TAG: u8 = 1;

/// The first byte of a binary `--sessions` state.
pub const SESSIONS_TAG: u8 = 2;

/// The first byte of a binary `--tools` state.
pub const TOOLS_TAG: u8 = 3;

/// The binary form of a `--tools` state: per group its keys, its four
/// counts and its latency state; `None` when a latency state is a t-digest.
pub fn encode_tools(t: &Tools) -> Option<Vec<u8>> {
    let mut w = vec![TOOLS_TAG];
    len(&mut w, t.map.len());
    for (key, g) in &t.map {
        put_key(&mut w, key);
        for n in [g.calls, g.ok, g.errors, g.unfinished] {
            w.extend_from_slice(&n.to_le_bytes());
        }
        stat(&mut w, &g.latency)?;
    }
    t.held.write_bin(&mut w);
    Some(w)
}

/// Reads [`encode_tools`] back, as a capture's state (latencies as tapes);
/// `None` when it is not a state of `q`.
pub fn decode_tools(b: &[u8], q: &Query) -> Option<Tools> {
    let mut r = Reader(b);
    if r.u8()? != TOOLS_TAG {
        return None;
    }
    let mut t = Tools { tape: true, ..Tools::default() };
    for _ in 0..r.count()? {
        let key = r.key(q.keys.len())?;
        let (calls, ok, errors, unfinished) = (r.u64()?, r.u64()?, r.u64()?, r.u64()?);
        let latency = r.stat()?;
        // A --tools latency always has percentile values.
        latency.quant.as_ref()?;
        t.map.insert(key, ToolGroup { calls, ok, errors, unfinished, latency });
    }
    t.held = CopiedCalls::read_bin(&mut r)?;
    (r.left() == 0).then_some(t)
}

/// The binary form of a `--sessions` state, unsettled: each session's
/// summary (its `--partial` JSON), then the calls, responses and copied events it holds for
/// settling against other sessions' copies ([`super::session::settle`]),
/// which the line form settles away.
pub fn encode_sessions(sessions: &std::collections::BTreeMap<SessionKey, Summary>) -> Option<Vec<u8>> {
    let mut w = vec![SESSIONS_TAG];
    len(&mut w, sessions.len());
    for s in sessions.values() {
        put_bytes(&mut w, &serde_json::to_vec(s).ok()?);
        len(&mut w, s.calls_held.len());
        for (id, call) in &s.calls_held {
            text(&mut w, id);
            call.write_bin(&mut w);
        }
        len(&mut w, s.files_held.len());
        for (id, edited, path) in &s.files_held {
            text(&mut w, id);
            w.push(u8::from(*edited));
            text(&mut w, path);
        }
        s.responses.write_bin(&mut w);
        s.copied.write_bin(&mut w);
    }
    Some(w)
}

/// Reads [`encode_sessions`] back; `None` when it is not one.
pub fn decode_sessions(b: &[u8]) -> Option<Vec<Summary>> {
    let mut r = Reader(b);
    if r.u8()? != SESSIONS_TAG {
        return None;
    }
    let mut out = vec![];
    for _ in 0..r.count()? {
        let mut s: Summary = serde_json::from_slice(r.bytes()?).ok()?;
        for _ in 0..r.count()? {
            let id = r.text()?;
            s.calls_held.push((id, super::calls::Call::read_bin(&mut r)?));
        }
        for _ in 0..r.count()? {
            let id = r.text()?;
            let edited = match r.u8()? {
                0 => false,
                1 => true,
                _ => return None,
            };
            s.files_held.push((id, edited, r.text()?));
        }
        s.responses = Responses::read_bin(&mut r, 0)?;
        s.copied = super::copied::Copied::read_bin(&mut r)?;
        out.push(s);
    }
    (r.left() == 0).then_some(out)
}

/// The binary form of `g`, or `None` when it holds what this form does not
/// cover (a t-digest).
pub fn encode(g: &Groups) -> Option<Vec<u8>> {
    let mut w = vec![TAG];
    len(&mut w, g.map.len());
    for (key, group) in &g.map {
        put_key(&mut w, key);
        w.extend_from_slice(&group.count.to_le_bytes());
        tally(&mut w, &group.cost);
        len(&mut w, group.stats.len());
        for s in &group.stats {
            stat(&mut w, s)?;
        }
    }
    g.responses.write_bin(&mut w);
    Some(w)
}

/// Reads a binary state of `q` back, as a capture's (percentile values as
/// tapes); `None` when it is not one.
pub fn decode(b: &[u8], q: &Query) -> Option<Groups> {
    let (groups, responses) = groups(b, q)?;
    let mut g = Groups { responses, tape: true, ..Groups::default() };
    for (key, group) in groups {
        g.merge_group(key, group);
    }
    Some(g)
}

/// Groups with their keys, in a state's order.
pub type KeyedGroups = Vec<(Vec<KeyVal>, Group)>;

/// The groups of a binary state of `q`, in its order, and its held
/// responses, to merge into a state at hand; `None` when it is not one.
pub fn groups(b: &[u8], q: &Query) -> Option<(KeyedGroups, Responses)> {
    let mut r = Reader(b);
    if r.u8()? != TAG {
        return None;
    }
    let n = r.count()?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let key = r.key(q.keys.len())?;
        let count = r.u64()?;
        let cost = r.tally()?;
        let n = r.count()?;
        if n != q.measures.len() {
            return None;
        }
        let stats = (0..n).map(|_| r.stat()).collect::<Option<Vec<_>>>()?;
        out.push((key, Group { count, stats, cost }));
    }
    let responses = Responses::read_bin(&mut r, q.keys.len())?;
    (r.left() == 0).then_some((out, responses))
}

pub(super) use crate::codec::put_len;
use crate::codec::{put_bytes, put_len as len, Reader};

pub(super) fn text(w: &mut Vec<u8>, s: &str) {
    put_bytes(w, s.as_bytes());
}

/// A group's key: its length, then each value.
pub(super) fn put_key(w: &mut Vec<u8>, key: &[KeyVal]) {
    len(w, key.len());
    for k in key {
        key_val(w, k);
    }
}

pub(super) fn key_val(w: &mut Vec<u8>, k: &KeyVal) {
    match k {
        KeyVal::Null => w.push(0),
        KeyVal::Bool(false) => w.push(1),
        KeyVal::Bool(true) => w.push(2),
        KeyVal::Num(t) => {
            w.push(3);
            text(w, t);
        }
        KeyVal::Str(t) => {
            w.push(4);
            text(w, t);
        }
        KeyVal::Json(t) => {
            w.push(5);
            text(w, t);
        }
    }
}

const SOURCE_BITS: [Sources; 3] = [Sources::WRITER, Sources::COMPUTED, Sources::UNPRICED];

/// An optional time: `u8` present, then its `i128` nanoseconds (0 when none).
pub(super) fn opt_ts(w: &mut Vec<u8>, t: Option<Timestamp>) {
    w.push(u8::from(t.is_some()));
    w.extend_from_slice(&t.map_or(0, Timestamp::as_nanosecond).to_le_bytes());
}

pub(super) fn tally(w: &mut Vec<u8>, t: &Tally) {
    let bits =
        SOURCE_BITS.iter().enumerate().filter(|(_, s)| t.sources.contains(**s)).fold(0u8, |b, (i, _)| b | 1 << i);
    w.push(bits);
    len(w, t.unpriced.len());
    for m in &t.unpriced {
        text(w, m);
    }
}

pub(super) fn num(w: &mut Vec<u8>, n: Option<Num>) {
    match n {
        None => w.push(0),
        // A whole number (token counts: most figures) as a zigzag LEB128
        // varint of its value: 2 to 4 bytes instead of 17.
        Some(Num::Exact(d)) if d.whole().is_some() => {
            w.push(3);
            let v = d.whole().unwrap_or_default();
            crate::codec::put_varint(w, ((v << 1) ^ (v >> 63)) as u64);
        }
        Some(Num::Exact(d)) => {
            w.push(1);
            w.extend_from_slice(&d.to_bits().to_le_bytes());
        }
        Some(Num::Float(f)) => {
            w.push(2);
            w.extend_from_slice(&f.to_bits().to_le_bytes());
        }
    }
}

fn stat(w: &mut Vec<u8>, s: &Stat) -> Option<()> {
    w.extend_from_slice(&s.n.to_le_bytes());
    w.extend_from_slice(&s.not_numbers.to_le_bytes());
    let (exact, float) = s.sum.parts();
    w.push(u8::from(exact.is_some()));
    w.extend_from_slice(&exact.unwrap_or_default().to_bits().to_le_bytes());
    len(w, float.len());
    for f in float {
        w.extend_from_slice(&f.to_bits().to_le_bytes());
    }
    num(w, s.min);
    num(w, s.max);
    match &s.quant {
        None => w.push(0),
        Some(q) => {
            let values = q.exact_values()?;
            w.push(1);
            len(w, values.len());
            for v in values {
                num(w, Some(*v));
            }
        }
    }
    match &s.distinct {
        None => w.push(0),
        Some(set) => {
            w.push(1);
            len(w, set.len());
            for k in set {
                key_val(w, k);
            }
        }
    }
    Some(())
}

/// The reads of a state's pieces.
pub(super) trait StatePieces {
    fn key_val(&mut self) -> Option<KeyVal>;
    /// A key of `n` values ([`put_key`]; `None`: another length).
    fn key(&mut self, n: usize) -> Option<Vec<KeyVal>>;
    fn tally(&mut self) -> Option<Tally>;
    fn num(&mut self) -> Option<Option<Num>>;
    fn stat(&mut self) -> Option<Stat>;
    /// An optional time ([`opt_ts`]).
    fn opt_ts(&mut self) -> Option<Option<Timestamp>>;
}

impl StatePieces for Reader<'_> {
    fn opt_ts(&mut self) -> Option<Option<Timestamp>> {
        let has = self.u8()?;
        let n = self.i128()?;
        match has {
            0 => Some(None),
            1 => Timestamp::from_nanosecond(n).ok().map(Some),
            _ => None,
        }
    }

    fn key_val(&mut self) -> Option<KeyVal> {
        Some(match self.u8()? {
            0 => KeyVal::Null,
            1 => KeyVal::Bool(false),
            2 => KeyVal::Bool(true),
            3 => KeyVal::Num(self.text()?),
            4 => KeyVal::Str(self.text()?),
            5 => KeyVal::Json(self.text()?),
            _ => return None,
        })
    }

    fn key(&mut self, n: usize) -> Option<Vec<KeyVal>> {
        if self.count()? != n {
            return None;
        }
        (0..n).map(|_| self.key_val()).collect()
    }

    fn tally(&mut self) -> Option<Tally> {
        let bits = self.u8()?;
        let mut sources = Sources::NONE;
        for (i, s) in SOURCE_BITS.iter().enumerate() {
            if bits & 1 << i != 0 {
                sources.add(*s);
            }
        }
        let unpriced = (0..self.count()?).map(|_| self.text()).collect::<Option<BTreeSet<_>>>()?;
        Some(Tally { sources, unpriced })
    }

    fn num(&mut self) -> Option<Option<Num>> {
        Some(match self.u8()? {
            0 => None,
            1 => Some(Num::Exact(Decimal::from_bits(self.i128()?))),
            // A value read is finite (a sum's partials are kept apart).
            2 => Some(Num::Float(Some(f64::from_bits(self.u64()?)).filter(|f| f.is_finite())?)),
            3 => {
                let z = self.varint()?;
                Some(Num::Exact(Decimal::from_int((z >> 1) as i64 ^ -((z & 1) as i64))))
            }
            _ => return None,
        })
    }

    fn stat(&mut self) -> Option<Stat> {
        let (n, not_numbers) = (self.u64()?, self.u64()?);
        let has_exact = self.u8()?;
        let exact = Decimal::from_bits(self.i128()?);
        let float = (0..self.count()?).map(|_| self.u64().map(f64::from_bits)).collect::<Option<Vec<_>>>()?;
        let sum = Sum::from_parts((has_exact == 1).then_some(exact), float);
        let (min, max) = (self.num()?, self.num()?);
        super::stat::check_bounds(min, max).ok()?;
        let quant = match self.u8()? {
            0 => None,
            _ => Some(Quantiles::tape_of((0..self.count()?).map(|_| self.num()?).collect::<Option<Vec<_>>>()?)),
        };
        let distinct = match self.u8()? {
            0 => None,
            _ => Some((0..self.count()?).map(|_| self.key_val()).collect::<Option<HashSet<_>>>()?),
        };
        Some(Stat { n, sum, min, max, quant, distinct, not_numbers })
    }
}

#[cfg(test)]
mod tests;
