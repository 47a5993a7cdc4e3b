//! What to aggregate: the resolved form of ci-agg's flags, and its wire form
//! (the header of a partial stream), from which `--merge` rebuilds the same
//! query.

use serde::{Deserialize, Serialize};

use crate::pricing::Prices;
use crate::time::TimeZone;

use super::cost::Mode;
use super::field::{Field, Usage};
use super::stat::Out;

/// The kind of aggregation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Preset {
    /// `--by` with metrics: one record per group.
    Group,
    /// `--tokens`: usage and cost of `llm:response` events per model.
    Tokens,
    /// `--tools`: tool calls per tool, paired by `tool_call_id`.
    Tools,
    /// `--sessions`: one record per session.
    Sessions,
}

impl Preset {
    /// The wire name.
    pub fn name(self) -> &'static str {
        match self {
            Preset::Group => "group",
            Preset::Tokens => "tokens",
            Preset::Tools => "tools",
            Preset::Sessions => "sessions",
        }
    }

    fn parse(s: &str) -> Option<Preset> {
        [Preset::Group, Preset::Tokens, Preset::Tools, Preset::Sessions].into_iter().find(|p| p.name() == s)
    }
}

/// How a metric column appears in an output record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Layout {
    /// `"<field>":{"sum":…,"p95":…}` (user metrics).
    Nested,
    /// `"<name>":value` for a single output (preset columns); `zero` prints 0
    /// instead of `null` when there were no values.
    Flat {
        /// The output key.
        name: &'static str,
        /// Print 0 rather than null for an empty sum.
        zero: bool,
    },
}

/// One metric column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Measure {
    /// What it reads.
    pub field: Field,
    /// What it prints, in [`Out::ALL`] order.
    pub outs: Vec<Out>,
    /// How it prints.
    pub layout: Layout,
}

/// The wire form of a query: the flags that define the answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuerySpec {
    /// `group`, `tokens`, `tools` or `sessions`.
    pub preset: String,
    /// The `--by` keys as given.
    pub by: Vec<String>,
    /// User metrics: field and output names.
    pub measures: Vec<(String, Vec<String>)>,
    /// The zone of time buckets, by name.
    pub tz: String,
    /// `--cost`: `auto` or `computed` (empty in headers that predate it: `auto`).
    #[serde(default)]
    pub cost: String,
    /// Where the prices come from ([`Prices::source`]; empty when built in
    /// before it was named): streams priced by different tables do not merge.
    #[serde(default)]
    pub pricing: String,
}

/// A query as ci-agg's flags give it, typed ([`Query::new`] resolves and
/// checks it): the field paths are the flags' text, parsed once there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Flags {
    /// The kind of aggregation.
    pub preset: Preset,
    /// The `--by` keys as given (`week:DAY` with `--week-start`).
    pub by: Vec<String>,
    /// User metrics: each field as given, with its outputs in the order
    /// the flags name them (each once).
    pub measures: Vec<(String, Vec<Out>)>,
    /// Which cost a response counts with.
    pub cost: Mode,
}

/// A resolved query.
#[derive(Debug, Clone)]
pub struct Query {
    /// The kind of aggregation.
    pub preset: Preset,
    /// Group keys, in output order (presets add their own: `model`, `tool`).
    pub keys: Vec<Field>,
    /// Metric columns.
    pub measures: Vec<Measure>,
    /// Only events of this name are aggregated (`--tokens`: `llm:response`).
    pub filter: Option<&'static str>,
    /// The name of the record count in output (`count`, `responses`).
    pub count_name: &'static str,
    /// The zone of time buckets (UTC in `--merge`, where labels are made already).
    pub tz: TimeZone,
    /// Which cost a response counts with.
    pub cost: Mode,
    /// The price table of computed costs.
    pub prices: &'static Prices,
    /// The wire form.
    pub spec: QuerySpec,
}

impl Query {
    /// The first metric of a grouping (not a preset) over a response's usage
    /// or cost (`--sum cost_usd`, `--avg data.message.usage.output_tokens`):
    /// a writer that writes one response on several lines would have it
    /// counted once per line ([`crate::format::Dialect::message_key`]), so
    /// such a run is refused when it meets one ([`super::Aggregator`]).
    pub fn usage_metric(&self) -> Option<&str> {
        if self.preset != Preset::Group {
            return None;
        }
        self.measures.iter().map(|m| &m.field).find_map(|f| match f {
            Field::Usage(_) => Some(f.name()),
            Field::Path(p) if p.as_str().contains("usage") || p.as_str().contains("cost") => Some(f.name()),
            _ => None,
        })
    }

    /// Resolves a query from its wire form; `tz` is the zone to bucket in
    /// (its name is `spec.tz`). The query keeps `spec` as its wire form.
    pub fn from_spec(spec: QuerySpec, tz: TimeZone) -> Result<Query, String> {
        let preset = Preset::parse(&spec.preset).ok_or_else(|| format!("unknown aggregation {:?}", spec.preset))?;
        let cost = Mode::parse(&spec.cost).ok_or_else(|| format!("unknown cost mode {:?}", spec.cost))?;
        let mut measures = vec![];
        for (field, outs) in &spec.measures {
            let outs = outs
                .iter()
                .map(|o| Out::parse(o).ok_or_else(|| format!("unknown metric {o:?}")))
                .collect::<Result<Vec<_>, _>>()?;
            measures.push((field.clone(), outs));
        }
        let flags = Flags { preset, by: spec.by.clone(), measures, cost };
        let mut q = Query::new(flags, tz)?;
        q.spec = spec;
        Ok(q)
    }

    /// Resolves the query `flags` describe, bucketing in `tz`, priced by
    /// the built-in table (see [`Query::with_prices`]); its wire form is
    /// made from them (nothing is parsed back). The errors are the usage
    /// errors of ci-agg's flags.
    pub fn new(flags: Flags, tz: TimeZone) -> Result<Query, String> {
        let Flags { preset, by, measures: given, cost } = flags;
        let mut keys = by.iter().map(|k| Field::parse(k)).collect::<Result<Vec<_>, _>>()?;
        let mut measures = vec![];
        for (field, outs) in &given {
            let field = Field::parse(field)?;
            let mut outs = outs.clone();
            outs.sort();
            outs.dedup();
            measures.push(Measure { field, outs, layout: Layout::Nested });
        }
        let (mut filter, mut count_name) = (None, "count");
        match preset {
            Preset::Group => {}
            Preset::Tokens => {
                keys.push(Field::Model);
                filter = Some("llm:response");
                count_name = "responses";
                measures.extend(Usage::ALL.iter().map(|&u| Measure {
                    field: Field::Usage(u),
                    outs: vec![Out::Sum],
                    layout: Layout::Flat { name: u.name(), zero: u != Usage::Cost },
                }));
            }
            Preset::Tools => keys.push(Field::Tool),
            Preset::Sessions => {
                if !keys.is_empty() {
                    return Err("--sessions makes one record per session: it takes no --by".into());
                }
            }
        }
        if matches!(preset, Preset::Tools | Preset::Sessions | Preset::Tokens) && !given.is_empty() {
            return Err(format!("--{} has its own columns: it takes no --sum/--avg/--stats/… metrics", preset.name()));
        }
        let mut names: Vec<&str> = keys.iter().map(Field::name).collect();
        names.extend(measures.iter().filter(|m| m.layout == Layout::Nested).map(|m| m.field.name()));
        for (i, n) in names.iter().enumerate() {
            if names[..i].contains(n) {
                return Err(format!("{n:?} is named twice (as a key or a metric): each may appear once"));
            }
            if matches!(*n, "count" | "tz") {
                return Err(format!("{n:?} is an output column of ci-agg; it cannot be a key or a metric field"));
            }
        }
        let spec = QuerySpec {
            preset: preset.name().into(),
            by,
            measures: given
                .into_iter()
                .map(|(p, outs)| (p, outs.iter().map(|o| o.name().to_owned()).collect()))
                .collect(),
            tz: crate::time::tz_name(&tz),
            cost: cost.name().into(),
            pricing: String::new(),
        };
        Ok(Query { preset, keys, measures, filter, count_name, tz, cost, prices: Prices::builtin(), spec })
    }

    /// The query priced by `prices` (named in the wire form).
    pub fn with_prices(mut self, prices: &'static Prices) -> Query {
        self.prices = prices;
        self.spec.pricing = prices.source().to_owned();
        self
    }

    /// Whether a metric reads `cost_usd` (records then say where the cost
    /// came from: `cost_source`, `unpriced_models`).
    pub fn reads_cost(&self) -> bool {
        self.measures.iter().any(|m| m.field == Field::Usage(Usage::Cost))
    }

    /// Whether the answer reads responses' token counts: `--tokens`,
    /// `--sessions`, or a usage field (`input_tokens`, …, `cost_usd`, whose
    /// computed cost reads them).
    pub fn reads_counts(&self) -> bool {
        let usage =
            self.keys.iter().chain(self.measures.iter().map(|m| &m.field)).any(|f| matches!(f, Field::Usage(_)));
        matches!(self.preset, Preset::Tokens | Preset::Sessions) || usage
    }

    /// Whether any key is a time bucket (the output then names the zone).
    pub fn has_time_key(&self) -> bool {
        self.keys.iter().any(Field::is_time)
    }

    /// Whether the answer is the same however a capture's lines are split
    /// among threads ([`crate::source::Visitor::splits`]): `--by` and
    /// `--tokens` (per-event state, exact merges), without the agent (known
    /// per capture, possibly from a line) and without percentiles (estimates
    /// past 1024 values depend on the merge order). `--tools` and
    /// `--sessions` pair calls and sessions across a capture's lines.
    pub fn splits(&self) -> bool {
        let estimates = self.measures.iter().flat_map(|m| &m.outs).any(|o| matches!(o, Out::P50 | Out::P95 | Out::P99));
        matches!(self.preset, Preset::Group | Preset::Tokens) && !self.needs_agent() && !estimates
    }

    /// The paths of the query's `--by` keys and metrics that are field
    /// paths, each once: watched while events are read, so that one no record
    /// has is named with the nearest path the records have.
    pub fn paths(&self) -> Vec<&crate::json::Path> {
        let mut paths: Vec<&crate::json::Path> = vec![];
        for f in self.keys.iter().take(self.spec.by.len()).chain(self.measures.iter().map(|m| &m.field)) {
            if let Field::Path(p) = f {
                if !paths.contains(&p) {
                    paths.push(p);
                }
            }
        }
        paths
    }

    /// Whether reading this query's fields needs the session's agent.
    pub fn needs_agent(&self) -> bool {
        self.keys.iter().chain(self.measures.iter().map(|m| &m.field)).any(|f| *f == Field::Agent)
    }
}
