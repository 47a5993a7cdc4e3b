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
    /// Count descending, then key ascending (the default).
    Count,
    /// Key ascending.
    Key,
}

/// Sorts rows.
pub fn sort_rows(rows: &mut [Row], order: Order) {
    match order {
        Order::Count => rows.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.key.cmp(&b.key))),
        Order::Key => rows.sort_by(|a, b| a.key.cmp(&b.key).then_with(|| b.count.cmp(&a.count))),
    }
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
        Group { count: 0, stats: q.measures.iter().map(|m| Stat::new(&m.outs)).collect(), cost: Tally::default() }
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
#[derive(Debug, Default)]
pub struct Groups {
    /// Every group seen.
    pub map: foldhash::HashMap<Vec<KeyVal>, Group>,
    /// `--tokens`: responses a writer writes more than once, held until the
    /// run ends and then counted once each ([`super::responses`]).
    pub responses: Responses,
}

impl Groups {
    /// Adds one event; returns true when a time key had no usable timestamp.
    pub fn add(&mut self, q: &Query, ev: &Event<'_>, cx: &mut Context) -> bool {
        if let Some(name) = q.filter {
            if ev.name() != name {
                return false;
            }
        }
        let (key, untimed) = group_key(q, ev, cx);
        let group = self.map.entry(key).or_insert_with(|| Group::new(q));
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
    pub fn merge_group(&mut self, key: Vec<KeyVal>, g: Group) {
        match self.map.get_mut(&key) {
            Some(mine) => mine.merge(g),
            None => {
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
                for (m, s) in q.measures.iter().zip(&g.stats) {
                    match &m.layout {
                        Layout::Nested => {
                            let obj: Map<String, Value> =
                                m.outs.iter().map(|&o| (o.name().into(), s.output(o))).collect();
                            rec.insert(m.field.name().to_owned(), Value::Object(obj));
                        }
                        Layout::Flat { name, zero } => {
                            let out = m.outs.first().copied().unwrap_or(Out::Sum);
                            let v = match s.output(out) {
                                Value::Null if *zero => Value::from(0),
                                v => v,
                            };
                            rec.insert((*name).into(), v);
                        }
                    }
                }
                if q.reads_cost() {
                    g.cost.write(&mut rec);
                }
                Row { count: g.count, key, record: rec }
            })
            .collect()
    }
}
