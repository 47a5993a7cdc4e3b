//! Tool calls, paired by call id, and the `--tools` table built on them.
//!
//! A call is one call id of one session (the writer's: Amplifier's
//! `tool_call_id`, Claude hooks' `tool_use_id`; see
//! [`crate::format::Dialect::call_key`]), whatever events carry it:
//! `tool:pre`, `tool:post`, `tool:error` (never pre + post counted twice).
//! Where a writer gives no id but a pairing key (Claude Code hooks before 2.1:
//! the tool and its input), the pres and the ends of one session and key are
//! paired in order (by timestamp, then file and line): calls = pairs, and a
//! pre without an end is unfinished.
//!
//! - **error**: a `tool:error`, or a `tool:post` whose `result.success` is
//!   `false`;
//! - **ok**: a `tool:post` otherwise;
//! - **unfinished**: only a `tool:pre` (a live session, or a crash).
//!
//! Latency: `data.duration_ms` of the `tool:post` when present (older
//! writers), else the time from the `tool:pre` timestamp to the timestamp of
//! the event that ended the call (`tool:post` or `tool:error`), in whole
//! milliseconds. A call with
//! neither has no latency. An event with neither id nor pairing key is a call
//! of its own.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::format::CallKey;
use crate::record::Event;
use crate::time::{self, Timestamp};

use super::copied_calls::CopiedCalls;
use super::decimal::Decimal;
use super::field::{Context, KeyVal, Num, Numeric, Val};
use super::groups::{key_record, Row};
use super::json_num;
use super::query::Query;
use super::stat::{Out, Stat};

/// How a call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// A `tool:post` that did not fail.
    Ok,
    /// A `tool:error` or a failed `tool:post`.
    Error,
    /// No end seen.
    Unfinished,
}

/// What is known about one call so far.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Call {
    /// `data.tool_name`.
    pub tool: Option<String>,
    /// Group keys of `--tools --by …`, read on the first event seen (the pre's when known).
    pub keys: Option<Vec<KeyVal>>,
    keys_from_pre: bool,
    /// The `tool:pre` was seen.
    pub pre: bool,
    pre_ts: Option<Timestamp>,
    /// A `tool:post` or `tool:error` was seen.
    pub ended: bool,
    end_ts: Option<Timestamp>,
    /// A `tool:error` or a failed `tool:post` was seen.
    pub failed: bool,
    duration_ms: Option<Num>,
    /// Where its first event is (file, line): which session of a run owns a
    /// call copied into several ([`crate::aggregate::session::settle`]).
    pub first: Option<(String, u64)>,
}

impl Call {
    /// Combines what two threads saw of the same call.
    pub fn merge(&mut self, o: Call) {
        if self.tool.is_none() {
            self.tool = o.tool;
        }
        if o.keys.is_some() && (self.keys.is_none() || (o.keys_from_pre && !self.keys_from_pre)) {
            self.keys = o.keys;
            self.keys_from_pre = o.keys_from_pre;
        }
        self.pre |= o.pre;
        self.pre_ts = self.pre_ts.or(o.pre_ts);
        self.ended |= o.ended;
        self.end_ts = match (self.end_ts, o.end_ts) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.failed |= o.failed;
        self.duration_ms = self.duration_ms.or(o.duration_ms);
        self.first = match (self.first.take(), o.first) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
    }

    /// How it ended.
    pub fn outcome(&self) -> Outcome {
        if self.failed {
            Outcome::Error
        } else if self.ended {
            Outcome::Ok
        } else {
            Outcome::Unfinished
        }
    }

    /// Its latency in milliseconds, when known.
    pub fn latency_ms(&self) -> Option<Num> {
        if let Some(d) = self.duration_ms {
            return Some(d);
        }
        let (a, b) = (self.pre_ts?, self.end_ts?);
        Some(millis(a, b))
    }
}

impl Call {
    /// The binary form of the call ([`super::bin`]: a `--sessions` state kept
    /// in the capture cache with the calls it holds for settling).
    pub fn write_bin(&self, w: &mut Vec<u8>) {
        use super::bin::{key_val, num, opt_ts as ts, put_len, text};
        let opt_text = |w: &mut Vec<u8>, t: Option<&str>| {
            w.push(u8::from(t.is_some()));
            text(w, t.unwrap_or_default());
        };
        opt_text(w, self.tool.as_deref());
        w.push(u8::from(self.keys.is_some()));
        let keys = self.keys.as_deref().unwrap_or_default();
        put_len(w, keys.len());
        for k in keys {
            key_val(w, k);
        }
        w.extend_from_slice(&[
            u8::from(self.keys_from_pre),
            u8::from(self.pre),
            u8::from(self.ended),
            u8::from(self.failed),
        ]);
        ts(w, self.pre_ts);
        ts(w, self.end_ts);
        num(w, self.duration_ms);
        opt_text(w, self.first.as_ref().map(|f| f.0.as_str()));
        w.extend_from_slice(&self.first.as_ref().map_or(0, |f| f.1).to_le_bytes());
    }

    /// Reads [`Call::write_bin`] back.
    pub fn read_bin(r: &mut crate::codec::Reader<'_>) -> Option<Call> {
        use super::bin::StatePieces;
        fn flag(r: &mut crate::codec::Reader<'_>) -> Option<bool> {
            match r.u8()? {
                0 => Some(false),
                1 => Some(true),
                _ => None,
            }
        }
        fn opt_text(r: &mut crate::codec::Reader<'_>) -> Option<Option<String>> {
            let has = flag(r)?;
            let t = r.text()?;
            Some(has.then_some(t))
        }
        let tool = opt_text(r)?;
        let has_keys = flag(r)?;
        let keys = (0..r.count()?).map(|_| r.key_val()).collect::<Option<Vec<_>>>()?;
        let (keys_from_pre, pre, ended, failed) = (flag(r)?, flag(r)?, flag(r)?, flag(r)?);
        let (pre_ts, end_ts) = (r.opt_ts()?, r.opt_ts()?);
        let duration_ms = r.num()?;
        let first_path = opt_text(r)?;
        let first_line = r.u64()?;
        Some(Call {
            tool,
            keys: has_keys.then_some(keys),
            keys_from_pre,
            pre,
            pre_ts,
            ended,
            end_ts,
            failed,
            duration_ms,
            first: first_path.map(|p| (p, first_line)),
        })
    }
}

/// A call on the `--partial` wire ([`super::copied_calls`]): its fields,
/// times as RFC 3339 text, keys and the duration in their wire forms.
#[derive(Debug, Serialize, Deserialize)]
pub struct WireCall {
    tool: Option<String>,
    key: Option<Vec<Value>>,
    key_from_pre: bool,
    pre: Option<Option<String>>,
    end: Option<Option<String>>,
    failed: bool,
    duration_ms: Option<Value>,
    first: Option<(String, u64)>,
}

impl Call {
    /// The wire form ([`WireCall`]).
    pub fn to_wire(&self) -> WireCall {
        let at = |seen: bool, t: Option<Timestamp>| seen.then(|| t.map(time::format_timestamp));
        WireCall {
            tool: self.tool.clone(),
            key: self.keys.as_ref().map(|k| k.iter().map(KeyVal::to_json).collect()),
            key_from_pre: self.keys_from_pre,
            pre: at(self.pre, self.pre_ts),
            end: at(self.ended, self.end_ts),
            failed: self.failed,
            duration_ms: self.duration_ms.map(super::stat::num_wire),
            first: self.first.clone(),
        }
    }

    /// Reads [`Call::to_wire`] back, for a query of `keys` keys.
    pub fn from_wire(w: WireCall, keys: usize) -> Result<Call, String> {
        let at = |t: &Option<Option<String>>| -> Result<Option<Timestamp>, String> {
            match t.as_ref().and_then(Option::as_ref) {
                Some(s) => time::parse_timestamp(s).map(Some).ok_or_else(|| format!("bad timestamp {s:?}")),
                None => Ok(None),
            }
        };
        if w.key.as_ref().is_some_and(|k| k.len() != keys.saturating_sub(1)) {
            return Err(format!("a call's key has the wrong length for {keys} keys"));
        }
        Ok(Call {
            tool: w.tool,
            keys: w.key.map(|k| k.iter().map(KeyVal::from_json).collect()),
            keys_from_pre: w.key_from_pre,
            pre: w.pre.is_some(),
            pre_ts: at(&w.pre)?,
            ended: w.end.is_some(),
            end_ts: at(&w.end)?,
            failed: w.failed,
            duration_ms: w.duration_ms.as_ref().map(super::stat::num_from_wire).transpose()?,
            first: w.first,
        })
    }
}

/// Whole milliseconds from `a` to `b` (sub-millisecond remainders truncated
/// toward zero, as [`time::millis_between`]).
pub fn millis(a: Timestamp, b: Timestamp) -> Num {
    Num::Exact(Decimal::from_int(time::millis_between(a, b)))
}

/// Whether `name` is one of the tool events.
pub fn is_tool_event(name: &str) -> bool {
    matches!(name, "tool:pre" | "tool:post" | "tool:error")
}

/// Calls of one session (or of a piped stream, keyed by session too).
#[derive(Debug, Default)]
pub struct Calls {
    map: HashMap<(String, String), Call>,
    /// Events without a call id, by (session, pairing key): paired in order
    /// when the calls are drained (so the order events arrive in, from
    /// several threads, does not matter).
    ordered: HashMap<(String, String), Ordered>,
}

/// The pres and the ends of one (session, pairing key), each with where it
/// sits in the session: (timestamp, file, line).
#[derive(Debug, Default)]
struct Ordered {
    pres: Vec<(Position, Call)>,
    ends: Vec<(Position, Call)>,
}

type Position = (Option<Timestamp>, String, u64);

impl Calls {
    /// Records a tool event (`name` is its event name); `keys` reads the
    /// `--tools --by` keys when the call is new or this is its pre.
    pub fn add(&mut self, ev: &Event<'_>, name: &str, session: &str, keys: impl FnOnce() -> Option<Vec<KeyVal>>) {
        let id = match ev.call_key() {
            CallKey::Id(id) => id.into_owned(),
            CallKey::Ordered(key) => {
                let mut call = Call::default();
                call.add(ev, name, keys);
                let position = position(ev);
                let pairs = self.ordered.entry((session.to_owned(), key)).or_default();
                let list = if name == "tool:pre" { &mut pairs.pres } else { &mut pairs.ends };
                list.push((position, call));
                return;
            }
            // Unpairable: its own call, named after its line.
            CallKey::Alone => format!("\u{0}line:{}:{}", ev.source, ev.line),
        };
        self.map.entry((session.to_owned(), id)).or_default().add(ev, name, keys);
    }

    /// Combines calls seen by another thread.
    pub fn merge(&mut self, o: Calls) {
        for (k, c) in o.map {
            match self.map.get_mut(&k) {
                Some(mine) => mine.merge(c),
                None => {
                    self.map.insert(k, c);
                }
            }
        }
        for (k, o) in o.ordered {
            let mine = self.ordered.entry(k).or_default();
            mine.pres.extend(o.pres);
            mine.ends.extend(o.ends);
        }
    }

    /// Takes every call out, ending the pairing, in the order of their
    /// keys (session, id), so that what is computed from them in turn (the
    /// t-digest of latencies) is the same every run.
    pub fn drain(&mut self) -> impl Iterator<Item = Call> {
        let mut by_id: Vec<_> = self.map.drain().collect();
        by_id.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let mut ordered: Vec<_> = self.ordered.drain().collect();
        ordered.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let paired = ordered.into_iter().flat_map(|(_, mut o)| {
            o.pres.sort_by(|a, b| a.0.cmp(&b.0));
            o.ends.sort_by(|a, b| a.0.cmp(&b.0));
            let mut ends = o.ends.into_iter().map(|(_, c)| c);
            let mut calls: Vec<Call> = o
                .pres
                .into_iter()
                .map(|(_, mut pre)| {
                    if let Some(end) = ends.next() {
                        pre.merge(end);
                    }
                    pre
                })
                .collect();
            calls.extend(ends);
            calls
        });
        by_id.into_iter().map(|(_, c)| c).chain(paired)
    }

    /// Takes every call out with its id (`None`: paired in order or alone),
    /// in the order of [`Calls::drain`].
    pub fn drain_with_ids(&mut self) -> Vec<(Option<String>, Call)> {
        let mut by_id: Vec<_> = self.map.drain().collect();
        by_id.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let mut out: Vec<(Option<String>, Call)> =
            by_id.into_iter().map(|((_, id), c)| (Some(id).filter(|i| !i.starts_with('\u{0}')), c)).collect();
        out.extend(self.drain().map(|c| (None, c)));
        out
    }

    /// Takes out the calls by id of a writer that copies history (those
    /// that know their first line): (session, id, call).
    pub fn drain_copyable(&mut self) -> Vec<(String, String, Call)> {
        let mut ids: Vec<(String, String)> = self
            .map
            .iter()
            .filter(|((_, id), c)| c.first.is_some() && !id.starts_with('\u{0}'))
            .map(|(k, _)| k.clone())
            .collect();
        ids.sort_unstable();
        ids.into_iter().filter_map(|k| self.map.remove(&k).map(|c| (k.0, k.1, c))).collect()
    }

    /// Whether no call is held.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty() && self.ordered.is_empty()
    }
}

/// Where an event sits in its session, for pairing in order: its
/// timestamp, then its file and line.
fn position(ev: &Event<'_>) -> Position {
    let (path, line) = ev.origin();
    (ev.timestamp(), path.into_owned(), line)
}

impl Call {
    /// Applies one tool event of this call.
    fn add(&mut self, ev: &Event<'_>, name: &str, keys: impl FnOnce() -> Option<Vec<KeyVal>>) {
        let call = self;
        // Only a writer that copies history between sessions needs to know
        // where a call was first written (no allocation per call otherwise).
        if ev.copies_history() {
            let (path, line) = ev.origin();
            if call.first.as_ref().is_none_or(|(p, l)| (path.as_ref(), line) < (p.as_str(), *l)) {
                call.first = Some((path.into_owned(), line));
            }
        }
        if call.tool.is_none() {
            call.tool = ev.tool_name().and_then(|v| v.as_str()).map(|s| s.into_owned());
        }
        let is_pre = name == "tool:pre";
        if call.keys.is_none() || (is_pre && !call.keys_from_pre) {
            if let Some(k) = keys() {
                call.keys = Some(k);
                call.keys_from_pre = is_pre;
            }
        }
        let ts = ev.timestamp();
        match name {
            "tool:pre" => {
                call.pre = true;
                call.pre_ts = call.pre_ts.or(ts);
            }
            _ => {
                call.ended = true;
                call.end_ts = match (call.end_ts, ts) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                };
                call.failed |= name == "tool:error" || ev.failed();
                if name == "tool:post" && call.duration_ms.is_none() {
                    if let Some(d) = ev.duration_ms() {
                        if let Numeric::Num(n) = Val::Raw(d).numeric() {
                            call.duration_ms = Some(n);
                        }
                    }
                }
            }
        }
    }
}

/// The `--tools` numbers of one group (one tool, by default).
#[derive(Debug, Clone)]
pub struct ToolGroup {
    /// Distinct calls.
    pub calls: u64,
    /// Calls that ended well.
    pub ok: u64,
    /// Calls that failed.
    pub errors: u64,
    /// Calls with no end.
    pub unfinished: u64,
    /// Latencies in ms.
    pub latency: Stat,
}

impl Default for ToolGroup {
    fn default() -> ToolGroup {
        ToolGroup::new(false)
    }
}

impl ToolGroup {
    /// An empty group, its latencies kept as a tape when `tape`
    /// ([`super::stat::Quantiles`]).
    pub fn new(tape: bool) -> ToolGroup {
        ToolGroup { calls: 0, ok: 0, errors: 0, unfinished: 0, latency: Stat::new_in(&[Out::P50], tape) }
    }

    /// Combines another state.
    pub fn merge(&mut self, o: ToolGroup) {
        self.calls = self.calls.saturating_add(o.calls);
        self.ok = self.ok.saturating_add(o.ok);
        self.errors = self.errors.saturating_add(o.errors);
        self.unfinished = self.unfinished.saturating_add(o.unfinished);
        self.latency.merge(o.latency);
    }
}

/// The `--tools` table.
#[derive(Debug, Clone, Default)]
pub struct Tools {
    /// Groups by key (the `--by` keys, then the tool).
    pub map: HashMap<Vec<KeyVal>, ToolGroup>,
    /// Whether latencies are kept as tapes: one capture's state, read for
    /// the capture cache ([`super::stat::Quantiles`]).
    pub tape: bool,
    /// Calls that may be copies of another session's, counted when the
    /// run ends ([`Tools::rows`]).
    pub held: CopiedCalls,
}

impl Tools {
    /// Counts a capture's (or the piped records') calls: those a session
    /// may have copied are held until the run ends.
    pub fn add_from(&mut self, q: &Query, calls: &mut Calls) {
        for (session, id, call) in calls.drain_copyable() {
            self.held.hold(session, id, call);
        }
        self.add_calls(q, calls.drain());
    }

    /// Counts finished pairing state.
    pub fn add_calls(&mut self, q: &Query, calls: impl Iterator<Item = Call>) {
        for call in calls {
            let mut key = call.keys.clone().unwrap_or_else(|| vec![KeyVal::Null; q.keys.len().saturating_sub(1)]);
            // The tool is the call's tool, whatever event told it.
            key.truncate(q.keys.len().saturating_sub(1));
            key.push(call.tool.clone().map_or(KeyVal::Null, KeyVal::Str));
            let tape = self.tape;
            let g = self.map.entry(key).or_insert_with(|| ToolGroup::new(tape));
            g.calls += 1;
            match call.outcome() {
                Outcome::Ok => g.ok += 1,
                Outcome::Error => g.errors += 1,
                Outcome::Unfinished => g.unfinished += 1,
            }
            if call.outcome() != Outcome::Unfinished {
                if let Some(ms) = call.latency_ms() {
                    g.latency.add_num(ms);
                }
            }
        }
    }

    /// Adds a group's state.
    pub fn merge_group(&mut self, key: Vec<KeyVal>, mut g: ToolGroup) {
        match self.map.get_mut(&key) {
            Some(mine) => mine.merge(g),
            None => {
                g.latency.keep_as(self.tape);
                self.map.insert(key, g);
            }
        }
    }

    /// Combines another state.
    pub fn merge(&mut self, o: Tools) {
        for (k, g) in o.map {
            self.merge_group(k, g);
        }
        self.held.merge(o.held);
    }

    /// Output rows: keys, `calls`, `ok`, `errors`, `unfinished`,
    /// `success_rate` (ok / (ok + errors), 4 decimals; null without finished
    /// calls), `p50_ms`, `p95_ms`, `max_ms` (null without latencies).
    /// Held calls count once, in the session owning them
    /// ([`CopiedCalls::settle`]).
    pub fn rows(mut self, q: &Query) -> Vec<Row> {
        let held = std::mem::take(&mut self.held);
        self.add_calls(q, held.settle());
        self.map
            .into_iter()
            .map(|(key, g)| {
                let mut rec: Map<String, Value> = key_record(q, &key);
                rec.insert("calls".into(), g.calls.into());
                rec.insert("ok".into(), g.ok.into());
                rec.insert("errors".into(), g.errors.into());
                rec.insert("unfinished".into(), g.unfinished.into());
                // In u128: a cache file's counts are not trusted to add up.
                let finished = u128::from(g.ok) + u128::from(g.errors);
                let rate = (finished > 0).then(|| (g.ok as f64 / finished as f64 * 10_000.0).round() / 10_000.0);
                rec.insert("success_rate".into(), rate.map_or(Value::Null, |r| json_num(Num::Float(r))));
                rec.insert("p50_ms".into(), g.latency.output(Out::P50));
                rec.insert("p95_ms".into(), g.latency.output(Out::P95));
                rec.insert("max_ms".into(), g.latency.output(Out::Max));
                Row { count: g.calls, key, record: rec }
            })
            .collect()
    }
}

/// Reads the `--tools --by` keys of a call's event (all but the last key,
/// which is the tool).
pub fn call_keys(q: &Query, ev: &Event<'_>, cx: &mut Context) -> Vec<KeyVal> {
    let n = q.keys.len().saturating_sub(1);
    q.keys[..n].iter().map(|f| f.value(ev, cx).key()).collect()
}
