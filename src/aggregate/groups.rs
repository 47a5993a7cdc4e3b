//! Group-by state: records counted per key, with metric columns.

use serde_json::{Map, Value};

use crate::record::Event;

use super::cost::Tally;
use super::field::{Context, Field, KeyVal, Usage, Val};
use super::query::{Layout, Query};
use super::responses::Responses;
use super::stat::{Out, Stat};

/// One output record before printing, with what it is sorted by.
#[derive(Debug, Clone)]
pub struct Row {
    /// Records (or calls, responses) in the group.
    pub count: u64,
    /// The key values.
    pub key: Vec<KeyVal>,
    /// The record as printed.
    pub record: Map<String, Value>,
}

/// How rows are ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// Time order when a key is a time bucket ([`Order::Time`]), else
    /// [`Order::Count`] (the default).
    Auto,
    /// Count descending, then key ascending.
    Count,
    /// Key ascending.
    Key,
    /// By the time-bucket keys ascending (rows without a time last), then
    /// count descending, then key ascending.
    Time,
}

/// Sorts rows of `q`.
pub fn sort_rows(rows: &mut [Row], order: Order, q: &Query) {
    let times: Vec<usize> = q.keys.iter().enumerate().filter(|(_, k)| k.is_time()).map(|(i, _)| i).collect();
    let order = match order {
        Order::Auto if !times.is_empty() => Order::Time,
        Order::Auto => Order::Count,
        o => o,
    };
    let by_count = |a: &Row, b: &Row| b.count.cmp(&a.count).then_with(|| a.key.cmp(&b.key));
    match order {
        Order::Count | Order::Auto => rows.sort_by(by_count),
        Order::Key => rows.sort_by(|a, b| a.key.cmp(&b.key).then_with(|| b.count.cmp(&a.count))),
        Order::Time => rows.sort_by(|a, b| {
            for &i in &times {
                let (x, y) = (&a.key[i], &b.key[i]);
                let o = (*x == KeyVal::Null).cmp(&(*y == KeyVal::Null)).then_with(|| x.cmp(y));
                if o.is_ne() {
                    return o;
                }
            }
            by_count(a, b)
        }),
    }
}

/// The total row of a table for people (`--format table`): the first key
/// column reads `total`; the record count, `--tokens`' token and cost
/// columns, and every `sum` and `count` metric are summed over all groups
/// (exactly, before `--top`); `cost_source` and `unpriced_models` join the
/// groups'. `None` when there is nothing to total: no keys (one record), or a
/// plain `--by` without a sum.
pub fn total_record(q: &Query, records: &[Map<String, Value>]) -> Option<Map<String, Value>> {
    let first = q.keys.first()?;
    let mut columns: Vec<(String, Option<&'static str>)> = vec![(q.count_name.to_owned(), None)];
    for m in &q.measures {
        match &m.layout {
            Layout::Flat { name, .. } => columns.push(((*name).to_owned(), None)),
            Layout::Nested => {
                for o in [Out::Count, Out::Sum] {
                    if m.outs.contains(&o) {
                        columns.push((m.field.name().to_owned(), Some(o.name())));
                    }
                }
            }
        }
    }
    if columns.len() == 1 && q.preset != super::query::Preset::Tokens {
        return None;
    }
    let mut rec = Map::new();
    rec.insert(first.name().to_owned(), Value::String("total".into()));
    for (name, sub) in columns {
        let mut sum: Option<super::stat::Sum> = None;
        for r in records {
            let v = match sub {
                Some(sub) => r.get(&name).and_then(|o| o.get(sub)),
                None => r.get(&name),
            };
            if let Some(n) = v.filter(|v| v.is_number()).and_then(|v| super::field::Num::parse(&v.to_string())) {
                sum.get_or_insert_with(Default::default).add(n);
            }
        }
        let total = sum.map_or(Value::Null, |s| super::json_num(s.value()));
        match sub {
            Some(sub) => {
                let obj = rec.entry(name).or_insert_with(|| Value::Object(Map::new()));
                if let Value::Object(o) = obj {
                    o.insert(sub.to_owned(), total);
                }
            }
            None => {
                rec.insert(name, total);
            }
        }
    }
    if q.reads_cost() {
        let mut tally = Tally::default();
        for r in records {
            tally.merge(Tally::of_record(r));
        }
        tally.write(&mut rec);
    }
    Some(rec)
}

/// Starts an output record with the key fields, and `tz` after the first time key.
pub fn key_record(q: &Query, key: &[KeyVal]) -> Map<String, Value> {
    let mut rec = Map::new();
    let mut tz_done = false;
    for (field, v) in q.keys.iter().zip(key) {
        rec.insert(field.name().to_owned(), v.to_json());
        if field.is_time() && !tz_done {
            rec.insert("tz".into(), Value::String(q.spec.tz.clone()));
            tz_done = true;
        }
    }
    rec
}

/// The values of `q`'s keys for `ev`, and whether a time key had no usable
/// timestamp.
pub fn group_key(q: &Query, ev: &Event<'_>, cx: &mut Context) -> (Vec<KeyVal>, bool) {
    let mut untimed = false;
    let key = q
        .keys
        .iter()
        .map(|f| {
            let v = f.value(ev, cx);
            untimed |= f.is_time() && matches!(v, Val::Missing);
            v.key()
        })
        .collect();
    (key, untimed)
}

/// The state of one group.
#[derive(Debug, Clone, Default)]
pub struct Group {
    /// Records in the group.
    pub count: u64,
    /// One state per metric column.
    pub stats: Vec<Stat>,
    /// Where the costs came from, when a metric reads `cost_usd`.
    pub cost: Tally,
}

impl Group {
    /// An empty group for `q`.
    pub fn new(q: &Query) -> Group {
        Group::new_in(q, false)
    }

    /// An empty group for `q`, its percentile values kept as tapes when
    /// `tape` ([`super::stat::Quantiles`]).
    pub fn new_in(q: &Query, tape: bool) -> Group {
        let stats = q.measures.iter().map(|m| Stat::new_in(&m.outs, tape)).collect();
        Group { count: 0, stats, cost: Tally::default() }
    }

    /// Combines another state of the same group.
    pub fn merge(&mut self, o: Group) {
        self.count = self.count.saturating_add(o.count);
        for (a, b) in self.stats.iter_mut().zip(o.stats) {
            a.merge(b);
        }
        self.cost.merge(o.cost);
    }
}

/// Groups by key.
#[derive(Debug, Clone, Default)]
pub struct Groups {
    /// Every group seen.
    pub map: foldhash::HashMap<Vec<KeyVal>, Group>,
    /// `--tokens`: responses a writer writes more than once, held until the
    /// run ends and then counted once each ([`super::responses`]).
    pub responses: Responses,
    /// Whether percentile values are kept as tapes: one capture's state,
    /// read for the capture cache ([`super::stat::Quantiles`]).
    pub tape: bool,
}

impl Groups {
    /// Adds one event; returns true when a time key had no usable timestamp.
    /// An event its writer never stamps with a time
    /// ([`Event::untimed_by_design`]) is in no time bucket: left out when a
    /// key is one, without a report.
    pub fn add(&mut self, q: &Query, ev: &Event<'_>, cx: &mut Context) -> bool {
        if let Some(name) = q.filter {
            if ev.name() != name {
                return false;
            }
        }
        if q.has_time_key() && ev.untimed_by_design() {
            return false;
        }
        let (key, untimed) = group_key(q, ev, cx);
        let group = self.map.entry(key).or_insert_with(|| Group::new_in(q, self.tape));
        group.count += 1;
        for (m, s) in q.measures.iter().zip(group.stats.iter_mut()) {
            if m.field == Field::Usage(Usage::Cost) {
                let c = cx.costing.cost(ev);
                group.cost.note(&c);
                s.add(&c.usd.map_or(Val::Missing, Val::Num), &m.outs);
            } else {
                s.add(&m.field.value(ev, cx), &m.outs);
            }
        }
        untimed
    }

    /// Adds a group's state (from another thread or a partial stream).
    pub fn merge_group(&mut self, key: Vec<KeyVal>, mut g: Group) {
        match self.map.get_mut(&key) {
            Some(mine) => mine.merge(g),
            None => {
                g.stats.iter_mut().for_each(|s| s.keep_as(self.tape));
                self.map.insert(key, g);
            }
        }
    }

    /// Combines another state.
    pub fn merge(&mut self, o: Groups) {
        for (k, g) in o.map {
            self.merge_group(k, g);
        }
        self.responses.merge(o.responses);
    }

    /// Values that metrics could not read as numbers, per metric field.
    pub fn not_numbers(&self, q: &Query) -> Vec<(String, u64)> {
        q.measures
            .iter()
            .enumerate()
            .map(|(i, m)| (m.field.name().to_owned(), self.map.values().map(|g| g.stats[i].not_numbers).sum()))
            .filter(|(_, n)| *n > 0)
            .collect()
    }

    /// The output rows (unsorted). A query without keys always has its one
    /// row, with a count of 0 when nothing was read.
    pub fn rows(mut self, q: &Query) -> Vec<Row> {
        std::mem::take(&mut self.responses).fold_into(q, &mut self);
        if q.keys.is_empty() && self.map.is_empty() {
            self.map.insert(vec![], Group::new(q));
        }
        self.map
            .into_iter()
            .map(|(key, g)| {
                let mut rec = key_record(q, &key);
                rec.insert(q.count_name.into(), Value::from(g.count));
                // Flat columns computed in floating point (see Stat::is_approximate).
                let mut approximate = Vec::new();
                for (m, s) in q.measures.iter().zip(&g.stats) {
                    match &m.layout {
                        Layout::Nested => {
                            let mut obj: Map<String, Value> =
                                m.outs.iter().map(|&o| (o.name().into(), s.output(o))).collect();
                            let inexact: Vec<Value> = m
                                .outs
                                .iter()
                                .filter(|&&o| s.is_approximate(o))
                                .map(|o| Value::from(o.name()))
                                .collect();
                            if !inexact.is_empty() {
                                obj.insert("approximate".into(), Value::Array(inexact));
                            }
                            rec.insert(m.field.name().to_owned(), Value::Object(obj));
                        }
                        Layout::Flat { name, zero } => {
                            let out = m.outs.first().copied().unwrap_or(Out::Sum);
                            let v = match s.output(out) {
                                Value::Null if *zero => Value::from(0),
                                v => v,
                            };
                            if s.is_approximate(out) {
                                approximate.push(Value::from(*name));
                            }
                            rec.insert((*name).into(), v);
                        }
                    }
                }
                if !approximate.is_empty() {
                    rec.insert("approximate".into(), Value::Array(approximate));
                }
                if q.reads_cost() {
                    g.cost.write(&mut rec);
                }
                Row { count: g.count, key, record: rec }
            })
            .collect()
    }
}
