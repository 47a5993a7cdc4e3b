//! Argument groups declared once and flattened into the tools that take
//! them (`#[command(flatten)]`), so a flag is spelled, parsed and
//! defaulted alike everywhere:
//!
//! - [`TimeWindow`]: `--since`, `--until` and [`Zone`] (`--tz`): every
//!   tool (ci-find: sessions active in the window; the others: events in
//!   it; ci-agg's zone is also that of its time buckets);
//! - [`Tabular`]: `--format json|table|tsv|csv` and `--columns`: ci-agg and
//!   ci-find (the record printers; ci-cat and ci-filter print event records
//!   with [`super::EventOutput`]);
//! - [`EventSelect`]: `--event` and `--workspace`, the event selection of
//!   ci-filter and ci-grep (`--session` is [`super::SessionArg`], in every
//!   tool; ci-find's `--workspace` selects sessions, worded for that).
//!
//! What a flag means differs per tool (sessions active since, records since,
//! the zone of buckets), so each tool words its help with
//! `#[command(mut_arg("since", |a| a.help(…)))]`; the parser, value name and
//! default stay the ones declared here.

use clap::{Args, ValueEnum, ValueHint};

use super::values::{self, TimeArg};
use crate::error::{Error, Result};
use crate::output::table::{Columns, TableStyle};
use crate::time::{BoundKind, Interval, TimeZone, Timestamp};

/// `--tz`.
#[derive(Debug, Clone, Args)]
pub struct Zone {
    /// Time zone of dates, date-times and words in --since/--until: an IANA
    /// name, UTC, ±HH:MM (-05:00 too) or local (the default: the zone of TZ,
    /// else the system's, as date and ccusage use).
    #[arg(long, value_name = "TZ", default_value = "local", allow_hyphen_values = true, hide_possible_values = true, value_parser = values::Known::new(&["UTC", "local"], values::tz))]
    pub tz: TimeZone,
}

/// `--since`, `--until` and `--tz`.
#[derive(Debug, Clone, Args)]
pub struct TimeWindow {
    /// Only events at or after this time: RFC 3339, YYYY-MM-DD, an age (30m,
    /// 2h, 7d or -7d), or today, yesterday, this-week, last-week, this-month,
    /// last-month (their start).
    #[arg(long, value_name = "TIME", allow_hyphen_values = true, value_hint = ValueHint::Other, value_parser = values::time)]
    pub since: Option<TimeArg>,
    /// Only events before this time (exclusive: a date or a word means its start).
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

    /// [`TimeWindow::bounds`] as an [`Interval`].
    pub fn interval(&self, now: Timestamp) -> Result<Interval> {
        self.bounds(now).map(|(since, until)| Interval::new(since, until))
    }
}

/// `--event` and `--workspace`: which events a tool reads.
#[derive(Debug, Clone, Args)]
pub struct EventSelect {
    /// Only events whose name matches (exact or glob like 'tool:*'; repeatable, OR).
    #[arg(long, value_name = "NAME", hide_possible_values = true, value_parser = values::event_name())]
    pub event: Vec<String>,
    /// Only events of this workspace: the (filled-in) workspace field or the
    /// project folder (repeatable, OR).
    #[arg(long, value_name = "W", allow_hyphen_values = true)]
    pub workspace: Vec<String>,
}

/// Values of `--format` of the record printers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Layout {
    /// One JSON object per line.
    Json,
    /// Aligned columns for people.
    Table,
    /// Tab-separated values with a header.
    Tsv,
    /// Comma-separated values with a header (RFC 4180).
    Csv,
}

/// `--format` and `--columns`.
#[derive(Debug, Clone, Args)]
pub struct Tabular {
    /// Output format.
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = Layout::Json)]
    pub format: Layout,
    /// The columns of table, tsv and csv, in this order (comma-separated): a
    /// column (tokens.input), an object for every column under it (tokens),
    /// or sum(NAME) for the sum of the numbers under NAME. Default: see
    /// --help.
    #[arg(long, value_name = "COL[,COL…]", value_delimiter = ',', hide_possible_values = true, value_parser = values::known(&[]))]
    pub columns: Vec<String>,
}

impl Tabular {
    /// The table format asked for; `None` for NDJSON. `--columns` with NDJSON
    /// is refused (NDJSON records are whole; `jq` picks fields).
    pub fn table_format(&self) -> Result<Option<TableStyle>> {
        let format = match self.format {
            Layout::Json if !self.columns.is_empty() => {
                return Err(Error::Usage(
                    "--columns is for --format table, tsv or csv (NDJSON records are whole)".into(),
                ))
            }
            Layout::Json => None,
            Layout::Table => Some(TableStyle::Table),
            Layout::Tsv => Some(TableStyle::Tsv),
            Layout::Csv => Some(TableStyle::Csv),
        };
        Ok(format)
    }

    /// The columns to show: `--columns` when given, else `default`.
    pub fn columns(&self, default: Columns) -> Result<Columns> {
        if self.columns.is_empty() {
            return Ok(default);
        }
        let named: Vec<String> = self.columns.iter().map(|c| c.trim().to_owned()).filter(|c| !c.is_empty()).collect();
        if named.is_empty() {
            return Err(Error::Usage("--columns: no column named".into()));
        }
        Ok(Columns::Named(named))
    }
}
