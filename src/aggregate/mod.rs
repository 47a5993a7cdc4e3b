//! Aggregation over the event stream: group keys, metrics with `add` and
//! `merge`, the `--tokens`/`--tools`/`--sessions` presets, and the partial
//! state that `--partial` writes and `--merge` combines.
//!
//! One run hands every event to per-thread [`Aggregator`]s (the engine's
//! visitors). Their states are combined by the same `merge` methods that
//! `--merge` uses on partial streams, so one run over all captures and any
//! sharding into partial runs followed by a merge give the same answer
//! (exactly for counts, sums, means, minima, maxima, distinct counts and
//! percentiles of up to [`stat::EXACT_MAX`] values per group; close, by
//! t-digest, for larger percentile inputs).
//!
//! - [`field`] — what keys and metrics read (`event`, `tool`, `day`, paths, …)
//! - [`cost`] — the cost of a response: the writer's, or computed from a price table
//! - [`decimal`] — exact sums of decimal strings such as `"cost_usd":"0.0123"`
//! - [`stat`] — metric state (count, sum, mean, min, max, percentiles, distinct)
//! - [`query`] — the resolved flags and their wire form
//! - [`groups`], [`calls`], [`session`] — the group-by table, tool-call pairing
//!   and `--tools`, and `--sessions`
//! - [`partial`] — the `--partial` line format and `--merge`
//!
//! Memory is bounded by the number of groups (sessions for `--sessions`):
//! session and call-pairing state lives while its capture is read and is
//! reduced to a small summary when the capture ends.

pub mod bin;
pub mod blocks;
pub mod cached;
pub mod calls;
pub mod copied;
pub mod copied_calls;
pub mod cost;
pub mod field;
pub mod fsum;
pub mod groups;
pub mod partial;
pub mod query;
pub mod responses;
pub mod session;
pub mod stat;
pub mod view;
mod visit;

/// Exact decimals, a leaf of the crate ([`crate::decimal`]), under the path
/// the aggregator's files and older callers name.
pub use crate::decimal;

use std::collections::BTreeMap;

use serde_json::Value;

pub use self::visit::{combine, Aggregator};

use self::calls::Tools;
use self::field::Num;
use self::groups::{sort_rows, Groups, Order, Row};
use self::query::{Preset, Query};
use self::session::{SessionKey, Summary};

/// A number as printed: integers as JSON integers, exact decimals with their
/// digits (`0.082`, not `0.08199999999999999`), other values as the shortest
/// `f64` text.
pub fn json_num(n: Num) -> Value {
    match n {
        // Exact: the decimal's own digits (`0.000000000000000001`,
        // `123456789012345678901`), never rounded through `f64`.
        Num::Exact(d) => match d.to_i64() {
            Some(i) => Value::from(i),
            None => d.to_string().parse::<serde_json::Number>().map_or(Value::Null, Value::Number),
        },
        Num::Float(f) => {
            if f.fract() == 0.0 && f.abs() < 9_007_199_254_740_992.0 {
                return Value::from(f as i64);
            }
            serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)
        }
    }
}

/// The combined state of a run (or of merged partial streams).
#[derive(Debug, Clone)]
pub enum Answer {
    /// `--by` / `--tokens`.
    Groups(Groups),
    /// `--tools`.
    Tools(Tools),
    /// `--sessions`.
    Sessions(BTreeMap<SessionKey, Summary>),
}

impl Answer {
    /// An empty state for `q`.
    pub fn new(q: &Query) -> Answer {
        match q.preset {
            Preset::Group | Preset::Tokens => Answer::Groups(Groups::default()),
            Preset::Tools => Answer::Tools(Tools::default()),
            Preset::Sessions => Answer::Sessions(BTreeMap::new()),
        }
    }

    /// An empty state for one capture of `q` read for the capture cache:
    /// percentile values kept as tapes, so that merging it into a thread's
    /// state later gives what reading the capture into it would have
    /// ([`stat::Quantiles`]).
    pub fn for_capture(q: &Query) -> Answer {
        match Answer::new(q) {
            Answer::Groups(g) => Answer::Groups(Groups { tape: true, ..g }),
            Answer::Tools(t) => Answer::Tools(Tools { tape: true, ..t }),
            a => a,
        }
    }

    /// Adds a finished session.
    pub fn add_session(&mut self, s: Summary) {
        if let Answer::Sessions(map) = self {
            match map.get_mut(&s.key()) {
                Some(mine) => mine.merge(s),
                None => {
                    map.insert(s.key(), s);
                }
            }
        }
    }

    /// Combines another state of the same query.
    pub fn merge(&mut self, o: Answer) {
        match (self, o) {
            (Answer::Groups(a), Answer::Groups(b)) => a.merge(b),
            (Answer::Tools(a), Answer::Tools(b)) => a.merge(b),
            (a @ Answer::Sessions(_), Answer::Sessions(b)) => {
                for s in b.into_values() {
                    a.add_session(s);
                }
            }
            _ => {}
        }
    }

    /// Warnings about values metrics could not use: (field, how many).
    pub fn not_numbers(&self, q: &Query) -> Vec<(String, u64)> {
        match self {
            Answer::Groups(g) => g.not_numbers(q),
            _ => vec![],
        }
    }

    /// The output records, in output order ([`Order`]); sessions newest first.
    pub fn rows(self, q: &Query, order: Order) -> Vec<Row> {
        match self {
            Answer::Groups(g) => {
                let mut rows = g.rows(q);
                sort_rows(&mut rows, order, q);
                rows
            }
            Answer::Tools(t) => {
                let mut rows = t.rows(q);
                sort_rows(&mut rows, order, q);
                rows
            }
            Answer::Sessions(s) => session::rows(s.into_values().collect()),
        }
    }
}
