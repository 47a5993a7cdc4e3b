//! The cost of a response: the writer's own figure, or one computed from its
//! token counts and a price table ([`crate::pricing`]).
//!
//! Which one is used (`--cost`):
//!
//! - `auto` (the default): the writer's `cost_usd` when the response has one
//!   (Amplifier writes it), else the computed cost;
//! - `computed`: always the computed cost, even where the writer wrote one.
//!
//! A response with token figures whose model the table cannot price (no
//! model, or a name no rule matches) has no cost: it adds nothing to
//! `cost_usd`, its model is named in `unpriced_models`, and `cost_source`
//! says `unpriced` — never a silent 0. A response with neither figures nor a
//! cost has no cost source at all.
//!
//! The computed cost of a response is [`crate::pricing::Price::cost`] of its
//! figures: `input_tokens` (minus the cache reads for a writer whose input
//! count includes them, [`crate::format::Profile::input_includes_cache_read`]),
//! `output_tokens`, `cache_read_tokens`, and `cache_write_tokens` split into
//! 1-hour writes (where the writer says, [`crate::format::Dialect::cache_write_1h`])
//! and the rest at the 5-minute rate. A response whose token counts are not
//! non-negative integers is damaged ([`damaged_count`]): the aggregator
//! warns and counts it without them, so it is never priced as unpriced.

use std::borrow::Cow;
use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::format::Usage;
use crate::json::Raw;
use crate::pricing::{Figures, Price, Prices};
use crate::record::Event;

use super::field::{Num, Numeric, Val};

/// Which cost a response counts with (`--cost`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The writer's `cost_usd` when present, else computed.
    Auto,
    /// Always computed from the token counts.
    Computed,
}

impl Mode {
    /// The flag value and wire name.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Auto => "auto",
            Mode::Computed => "computed",
        }
    }

    /// Parses [`Mode::name`]; the empty string (older partial headers) is `auto`.
    pub fn parse(s: &str) -> Option<Mode> {
        match s {
            "" | "auto" => Some(Mode::Auto),
            "computed" => Some(Mode::Computed),
            _ => None,
        }
    }
}

/// Where the costs of a group's responses came from: a set of
/// [`Sources::WRITER`], [`Sources::COMPUTED`], [`Sources::UNPRICED`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Sources(u8);

impl Sources {
    /// The writer's own `cost_usd`.
    pub const WRITER: Sources = Sources(1);
    /// Computed from the token counts and the price table.
    pub const COMPUTED: Sources = Sources(2);
    /// Token counts of a model without a price: no cost.
    pub const UNPRICED: Sources = Sources(4);
    /// No response had a cost or token figures.
    pub const NONE: Sources = Sources(0);

    /// Adds the sources of `o`.
    pub fn add(&mut self, o: Sources) {
        self.0 |= o.0;
    }

    /// Whether `o`'s sources are all in this set.
    pub fn contains(self, o: Sources) -> bool {
        self.0 & o.0 == o.0
    }

    /// The `cost_source` value: the sources joined by `+` in the order
    /// writer, computed, unpriced (`"computed"`, `"writer+computed"`,
    /// `"computed+unpriced"`); `None` when there is none.
    pub fn label(self) -> Option<String> {
        let parts: Vec<&str> = Sources::NAMES.iter().filter(|(s, _)| self.0 & s.0 != 0).map(|(_, n)| *n).collect();
        (!parts.is_empty()).then(|| parts.join("+"))
    }

    /// Each source and its name in a label, in label order.
    const NAMES: [(Sources, &'static str); 3] =
        [(Sources::WRITER, "writer"), (Sources::COMPUTED, "computed"), (Sources::UNPRICED, "unpriced")];

    /// The sources a [`Sources::label`] names (unknown parts are ignored).
    pub fn from_label(label: &str) -> Sources {
        let mut s = Sources::NONE;
        for part in label.split('+') {
            if let Some((bit, _)) = Sources::NAMES.iter().find(|(_, n)| *n == part) {
                s.add(*bit);
            }
        }
        s
    }
}

/// The cost of one response.
#[derive(Debug, Clone, PartialEq)]
pub struct Cost<'a> {
    /// USD; `None` when there is none (unpriced, or no figures).
    pub usd: Option<Num>,
    /// Where it came from ([`Sources::NONE`] when the response had nothing to price).
    pub source: Sources,
    /// The model that could not be priced (`None` for a response without a
    /// model, and for a priced one), borrowed from the line: a tally copies it
    /// once per group, not once per response.
    pub unpriced: Option<Cow<'a, str>>,
}

/// Where a group's costs came from, and the models it could not price.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    /// The sources of the group's costs.
    #[serde(default)]
    pub sources: Sources,
    /// Models without a price, sorted.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub unpriced: BTreeSet<String>,
}

impl Tally {
    /// Notes one response's cost.
    pub fn note(&mut self, c: &Cost<'_>) {
        self.sources.add(c.source);
        if let Some(m) = &c.unpriced {
            if !self.unpriced.contains(m.as_ref()) {
                self.unpriced.insert(m.to_string());
            }
        }
    }

    /// Combines another group's tally.
    pub fn merge(&mut self, o: Tally) {
        self.sources.add(o.sources);
        self.unpriced.extend(o.unpriced);
    }

    /// Whether nothing was noted.
    pub fn is_empty(&self) -> bool {
        *self == Tally::default()
    }

    /// The tally an output record printed ([`Tally::write`]), to add records up.
    pub fn of_record(rec: &serde_json::Map<String, serde_json::Value>) -> Tally {
        let sources = rec.get("cost_source").and_then(|v| v.as_str()).map_or(Sources::NONE, Sources::from_label);
        let models = rec.get("unpriced_models").and_then(|v| v.as_array()).into_iter().flatten();
        Tally { sources, unpriced: models.filter_map(|m| m.as_str()).map(str::to_owned).collect() }
    }

    /// Adds `cost_source` and `unpriced_models` to an output record.
    pub fn write(&self, rec: &mut serde_json::Map<String, serde_json::Value>) {
        use serde_json::Value;
        rec.insert("cost_source".into(), self.sources.label().map_or(Value::Null, Value::String));
        rec.insert("unpriced_models".into(), Value::Array(self.unpriced.iter().cloned().map(Value::String).collect()));
    }
}

/// Prices responses for one thread: the mode, the table, and the prices of
/// the models seen so far (a lookup normalises the name; a run sees a few
/// models, millions of times).
#[derive(Debug)]
pub struct Costing {
    mode: Mode,
    prices: &'static Prices,
    seen: foldhash::HashMap<String, Option<Price>>,
}

impl Costing {
    /// A pricer with `mode` over `prices`.
    pub fn new(mode: Mode, prices: &'static Prices) -> Costing {
        Costing { mode, prices, seen: foldhash::HashMap::default() }
    }

    /// The cost of the response `ev`.
    pub fn cost<'a>(&mut self, ev: &Event<'a>) -> Cost<'a> {
        self.cost_of(ev, &ev.tokens().map(number))
    }

    /// The cost of the response `ev` whose figures, read already, are `figures`
    /// ([`crate::format::Usage::ALL`] order: the last is the writer's cost).
    pub fn cost_of<'a>(&mut self, ev: &Event<'a>, figures: &[Option<Num>; 5]) -> Cost<'a> {
        if self.mode == Mode::Auto {
            if let Some(usd) = figures[4] {
                return Cost { usd: Some(usd), source: Sources::WRITER, unpriced: None };
            }
        }
        if figures[..4].iter().all(Option::is_none) {
            return Cost { usd: None, source: Sources::NONE, unpriced: None };
        }
        let model = ev.model().and_then(|m| m.as_str());
        let usd = match model.as_deref().and_then(|m| self.price(m)) {
            Some(price) => priced_figures(ev, figures).and_then(|f| price.cost(&f)),
            None => None,
        };
        match usd {
            Some(d) => Cost { usd: Some(Num::Exact(d)), source: Sources::COMPUTED, unpriced: None },
            None => Cost { usd: None, source: Sources::UNPRICED, unpriced: model },
        }
    }

    fn price(&mut self, model: &str) -> Option<&Price> {
        if !self.seen.contains_key(model) {
            let p = self.prices.lookup(model).cloned();
            self.seen.insert(model.to_owned(), p);
        }
        self.seen.get(model)?.as_ref()
    }
}

/// The first of `ev`'s four token counts that is no count of tokens (a
/// negative, fractional or non-numeric value, or one past 2^53), with its
/// field: the response is damaged, and counting it would add a wrong number
/// (and price nothing, as if its model had no price).
pub fn damaged_count<'a>(ev: &Event<'a>) -> Option<(Usage, Raw<'a>)> {
    let tokens = ev.tokens();
    Usage::ALL[..Usage::Cost as usize].iter().zip(tokens).find_map(|(&u, raw)| {
        let raw = raw?;
        let whole = |f: f64| (0.0..=9_007_199_254_740_992.0).contains(&f) && f.fract() == 0.0;
        match Val::Raw(raw).numeric() {
            Numeric::Absent => None,
            Numeric::Num(n) if whole(n.to_f64()) => None,
            _ => Some((u, raw)),
        }
    })
}

/// A figure as a number (absent, `null` and non-numbers: `None`).
fn number(raw: Option<Raw<'_>>) -> Option<Num> {
    match Val::Raw(raw?).numeric() {
        Numeric::Num(n) => Some(n),
        _ => None,
    }
}

/// A figure as a token count: absent is 0; `None` when it is not a
/// non-negative integer.
fn count(n: Option<Num>) -> Option<u64> {
    match n {
        None => Some(0),
        Some(Num::Exact(d)) => d.to_i64().and_then(|i| u64::try_from(i).ok()),
        Some(Num::Float(_)) => None,
    }
}

/// The figures a response is priced by (see the module docs).
fn priced_figures(ev: &Event<'_>, t: &[Option<Num>; 5]) -> Option<Figures> {
    let [input, output, cache_read, cache_write] = [count(t[0])?, count(t[1])?, count(t[2])?, count(t[3])?];
    let input = if ev.input_includes_cache_read() { input.saturating_sub(cache_read) } else { input };
    let write_1h = if cache_write > 0 { count(number(ev.cache_write_1h()))?.min(cache_write) } else { 0 };
    Some(Figures { input, output, cache_read, cache_write_5m: cache_write - write_1h, cache_write_1h: write_1h })
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_name_every_source_in_order() {
        assert_eq!(Sources::NONE.label(), None);
        let mut s = Sources::UNPRICED;
        s.add(Sources::WRITER);
        assert_eq!(s.label().as_deref(), Some("writer+unpriced"));
        s.add(Sources::COMPUTED);
        assert_eq!(s.label().as_deref(), Some("writer+computed+unpriced"));
        assert!(s.contains(Sources::COMPUTED));
        assert_eq!(Sources::from_label("writer+computed+unpriced"), s);
        assert_eq!(Sources::from_label("computed"), Sources::COMPUTED);
    }

    #[test]
    fn modes_round_trip() {
        for m in [Mode::Auto, Mode::Computed] {
            assert_eq!(Mode::parse(m.name()), Some(m));
        }
        assert_eq!(Mode::parse(""), Some(Mode::Auto));
        assert_eq!(Mode::parse("writer"), None);
    }
}
