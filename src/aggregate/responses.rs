//! Responses written more than once, counted once (`--tokens`).
//!
//! Claude Code writes one assistant message on several lines (one per
//! content block), each repeating the message's usage, and streamed copies
//! carry different `output_tokens`; a resumed session copies earlier history
//! (same message and request ids) into a new file. A writer that does this
//! names each response's identity ([`crate::format::Format::message_key`]:
//! `message.id` + `requestId`). Such responses are held by key until the run
//! ends, across threads, files and `--partial` shards, and each counts once:
//! its group keys (day, model, …) are those of the copy with the largest
//! token total (ties: the first by file path, then line, as ccusage keeps
//! the first copy in path order), each token figure the largest among its
//! copies. Memory: one entry per distinct message (its key, a few numbers,
//! its group keys, the path of its best copy), about 200 bytes each.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::format::Usage;
use crate::record::Event;

use super::field::{Context, KeyVal, Num, Numeric, Val};
use super::groups::{group_key, Group, Groups};
use super::query::Query;
use super::stat::{num_from_wire, num_wire};

/// One response, from all its copies so far.
#[derive(Debug, Clone, PartialEq)]
pub struct Held {
    /// Group keys of the best copy.
    pub key: Vec<KeyVal>,
    /// Each usage figure ([`Usage::ALL`] order), the largest seen.
    pub usage: [Option<Num>; 5],
    /// The best copy: its token total, then where it is (path, line).
    pub best: (f64, String, u64),
}

impl Held {
    /// Whether `o` is the better copy (a larger total, or the same total
    /// earlier by path and line).
    pub fn prefers(&self, o: &Held) -> bool {
        self.beaten_by(o.best.0, &o.best.1, o.best.2)
    }

    /// Whether a copy with this total, path and line is better than the best held.
    fn beaten_by(&self, total: f64, path: &str, line: u64) -> bool {
        total > self.best.0 || (total == self.best.0 && (path, line) < (self.best.1.as_str(), self.best.2))
    }

    /// Keeps the largest of each figure.
    fn max_figures(&mut self, usage: &[Option<Num>; 5]) {
        for (a, b) in self.usage.iter_mut().zip(usage) {
            *a = match (*a, *b) {
                (Some(x), Some(y)) => Some(if y.total_cmp(x).is_gt() { y } else { x }),
                (x, y) => x.or(y),
            };
        }
    }

    /// Combines two copies' states: the figures' maxima, the better copy's keys.
    pub fn merge(&mut self, o: Held) {
        self.max_figures(&o.usage);
        if self.prefers(&o) {
            self.key = o.key;
            self.best = o.best;
        }
    }
}

/// Responses by message key.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Responses {
    map: HashMap<String, Held>,
}

impl Responses {
    /// Adds one copy of the response `message` (its key); returns true when
    /// a time key had no usable timestamp. A copy that is not better than
    /// the one held costs no allocation (only its figures are compared).
    pub fn add(&mut self, q: &Query, ev: &Event<'_>, cx: &mut Context, message: &str) -> bool {
        let (usage, total) = figures(ev);
        if let Some(held) = self.map.get_mut(message) {
            held.max_figures(&usage);
            let (path, line) = ev.origin();
            if !held.beaten_by(total, &path, line) {
                return false;
            }
            let (key, untimed) = group_key(q, ev, cx);
            held.key = key;
            held.best = (total, path.into_owned(), line);
            return untimed;
        }
        let (key, untimed) = group_key(q, ev, cx);
        let (path, line) = ev.origin();
        self.map.insert(message.to_owned(), Held { key, usage, best: (total, path.into_owned(), line) });
        untimed
    }

    /// Adds one copy of the response `message`, without group keys (`--sessions`).
    pub fn add_copy(&mut self, ev: &Event<'_>, message: String) {
        let held = held_copy(ev, vec![]);
        self.merge_one(message, held);
    }

    /// The held responses by key.
    pub fn into_map(self) -> HashMap<String, Held> {
        self.map
    }

    /// Adds a response held by another thread or shard.
    pub fn merge_one(&mut self, message: String, held: Held) {
        match self.map.get_mut(&message) {
            Some(mine) => mine.merge(held),
            None => {
                self.map.insert(message, held);
            }
        }
    }

    /// Combines another state.
    pub fn merge(&mut self, o: Responses) {
        for (k, h) in o.map {
            self.merge_one(k, h);
        }
    }

    /// Whether nothing is held.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Counts every response once into the groups (`--tokens` measures are
    /// the usage figures, in [`Usage::ALL`] order).
    pub fn fold_into(self, q: &Query, groups: &mut Groups) {
        for held in self.map.into_values() {
            let mut g = Group::new(q);
            g.count = 1;
            for (m, s) in q.measures.iter().zip(g.stats.iter_mut()) {
                let super::field::Field::Usage(u) = m.field else { continue };
                if let Some(n) = held.usage[u as usize] {
                    s.add_num(n);
                }
            }
            groups.merge_group(held.key, g);
        }
    }

    /// The held responses in key order, for a partial stream.
    pub fn to_wire(&self) -> Vec<WireResponse> {
        let mut all: Vec<_> = self.map.iter().collect();
        all.sort_by(|a, b| a.0.cmp(b.0));
        all.into_iter()
            .map(|(k, h)| WireResponse {
                message: k.clone(),
                key: h.key.iter().map(KeyVal::to_json).collect(),
                usage: h.usage.iter().map(|u| u.map_or(Value::Null, num_wire)).collect(),
                best: (h.best.0, h.best.1.clone(), h.best.2),
            })
            .collect()
    }
}

/// A copy's figures and its token total.
fn figures(ev: &Event<'_>) -> ([Option<Num>; 5], f64) {
    let usage = ev.tokens().map(|raw| match raw.map(|r| Val::Raw(r).numeric()) {
        Some(Numeric::Num(n)) => Some(n),
        _ => None,
    });
    let total = usage[..4].iter().flatten().map(|n| n.to_f64()).sum();
    (usage, total)
}

/// One copy of a response, with its group keys.
fn held_copy(ev: &Event<'_>, key: Vec<KeyVal>) -> Held {
    let (usage, total) = figures(ev);
    let (path, line) = ev.origin();
    Held { key, usage, best: (total, path.into_owned(), line) }
}

/// A held response on the wire (`{"kind":"response",…}` of a partial stream).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WireResponse {
    /// The message key.
    pub message: String,
    /// Group keys of the best copy.
    pub key: Vec<Value>,
    /// The usage figures, in [`Usage::ALL`] order (`null`: none).
    pub usage: Vec<Value>,
    /// The best copy: token total, path, line.
    pub best: (f64, String, u64),
}

impl WireResponse {
    /// Back to a held response for a query with `keys` keys.
    pub fn into_held(self, keys: usize) -> Result<(String, Held), String> {
        if self.key.len() != keys {
            return Err(format!("key has {} values, the query has {keys} keys", self.key.len()));
        }
        if self.usage.len() != Usage::ALL.len() {
            return Err(format!("{} usage figures, not {}", self.usage.len(), Usage::ALL.len()));
        }
        let mut usage = [None; 5];
        for (slot, v) in usage.iter_mut().zip(&self.usage) {
            *slot = if v.is_null() { None } else { Some(num_from_wire(v)?) };
        }
        let key = self.key.iter().map(KeyVal::from_json).collect();
        Ok((self.message, Held { key, usage, best: self.best }))
    }
}
