//! Argument groups declared once and flattened into the tools that take
//! them (`#[command(flatten)]`), so a flag is spelled, parsed and
//! defaulted alike everywhere:
//!
//! - [`TimeWindow`]: `--since`, `--until` and [`Zone`] (`--tz`): ci-find
//!   and ci-filter;
//! - [`Zone`] alone: ci-agg (the zone of its time buckets).
//!
//! What a flag means differs per tool (sessions active since, records since,
//! the zone of buckets), so each tool words its help with
//! `#[command(mut_arg("since", |a| a.help(…)))]`; the parser, value name and
//! default stay the ones declared here.

use clap::{Args, ValueHint};

use super::values::{self, TimeArg};
use crate::error::Result;
use crate::time::{BoundKind, TimeZone, Timestamp};

/// `--tz`.
#[derive(Debug, Clone, Args)]
pub struct Zone {
    /// Time zone: an IANA name, UTC, ±HH:MM (-05:00 too) or local.
    #[arg(long, value_name = "TZ", default_value = "UTC", allow_hyphen_values = true, hide_possible_values = true, value_parser = values::Known::new(&["UTC", "local"], values::tz))]
    pub tz: TimeZone,
}

/// `--since`, `--until` and `--tz`.
#[derive(Debug, Clone, Args)]
pub struct TimeWindow {
    /// At or after this time: RFC 3339, YYYY-MM-DD, or an age like 30m, 2h, 7d or -7d.
    #[arg(long, value_name = "TIME", allow_hyphen_values = true, value_hint = ValueHint::Other, value_parser = values::time)]
    pub since: Option<TimeArg>,
    /// Before this time (exclusive; a date means the end of that day).
    #[arg(long, value_name = "TIME", allow_hyphen_values = true, value_hint = ValueHint::Other, value_parser = values::time)]
    pub until: Option<TimeArg>,
    #[command(flatten)]
    pub zone: Zone,
}

impl TimeWindow {
    /// The `--since` and `--until` instants, given the current time; dates
    /// and times without an offset are read in `--tz`.
    pub fn bounds(&self, now: Timestamp) -> Result<(Option<Timestamp>, Option<Timestamp>)> {
        let tz = &self.zone.tz;
        let bound = |flag: &str, v: &Option<TimeArg>, k| v.as_ref().map(|t| t.resolve(flag, k, now, tz)).transpose();
        Ok((bound("--since", &self.since, BoundKind::Since)?, bound("--until", &self.until, BoundKind::Until)?))
    }
}
