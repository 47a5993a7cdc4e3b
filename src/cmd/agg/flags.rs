//! ci-agg's flags as the typed query they describe ([`Flags`]): the
//! aggregation, the metrics and the cost mode are values, never names
//! parsed back ([`Query::new`](crate::aggregate::query::Query::new) resolves
//! them; the wire form of `--partial` is made from the query).

use crate::aggregate::cost::Mode;
use crate::aggregate::field::WEEK_FROM;
use crate::aggregate::query::{Flags, Preset};
use crate::aggregate::stat::Out;
use crate::error::{Error, Result};

use super::{Args, CostFlag};

impl Args {
    /// The query the flags describe (`--week-start` not applied: see
    /// [`Args::week_keys`]).
    pub(super) fn flags(&self) -> Flags {
        let mut measures: Vec<(String, Vec<Out>)> = vec![];
        let flags: [(&[String], &[Out]); 9] = [
            (&self.sum, &[Out::Sum]),
            (&self.avg, &[Out::Avg]),
            (&self.min, &[Out::Min]),
            (&self.max, &[Out::Max]),
            (&self.p50, &[Out::P50]),
            (&self.p95, &[Out::P95]),
            (&self.p99, &[Out::P99]),
            (&self.stats, &Out::STATS),
            (&self.distinct, &[Out::Distinct]),
        ];
        for (paths, outs) in flags {
            for p in paths {
                let p = p.trim().to_owned();
                let entry = match measures.iter_mut().position(|m| m.0 == p) {
                    Some(i) => &mut measures[i].1,
                    None => {
                        measures.push((p, vec![]));
                        &mut measures.last_mut().expect("just pushed").1
                    }
                };
                for o in outs {
                    if !entry.contains(o) {
                        entry.push(*o);
                    }
                }
            }
        }
        let preset = if self.sessions {
            Preset::Sessions
        } else if self.tools {
            Preset::Tools
        } else if self.tokens || self.views.wants_tokens() {
            Preset::Tokens
        } else {
            Preset::Group
        };
        let mut by: Vec<String> = self.by.iter().map(|k| k.trim().to_owned()).filter(|k| !k.is_empty()).collect();
        by.extend(self.views.keys().iter().map(|k| (*k).to_owned()));
        let cost = match self.cost {
            CostFlag::Auto => Mode::Auto,
            CostFlag::Computed => Mode::Computed,
        };
        Flags { preset, by, measures, cost }
    }

    /// The `--by` keys with `--week-start` applied (`week` → `week:DAY`).
    pub(super) fn week_keys(&self, flags: &mut Flags) -> Result<()> {
        let Some(day) = self.views.week_start else { return Ok(()) };
        let week = flags
            .by
            .iter_mut()
            .filter(|k| k.as_str() == "week")
            .map(|k| *k = format!("{WEEK_FROM}{}", format!("{day:?}").to_lowercase()))
            .count();
        if week == 0 {
            return Err(Error::Usage("--week-start sets the first day of --by week buckets: add --by week".into()));
        }
        Ok(())
    }
}
