//! Argument groups declared once and flattened into the tools that take
//! them (`#[command(flatten)]`), so a flag is spelled, parsed and
//! defaulted alike everywhere:
//!
//! - [`TimeWindow`]: `--since`, `--until` and [`Zone`] (`--tz`): every
//!   tool (ci-find: sessions active in the window; the others: events in
//!   it; ci-agg's zone is also that of its time buckets);
//! - [`Tabular`]: `--format json|table|markdown|tsv|csv` and `--columns`: ci-agg and
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
use crate::diag::Diag;
use crate::error::{Error, Result};
use crate::output::human;
use crate::output::table::{self, Columns, Fit, Record, TableStyle};
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
    /// A Markdown table (for issues and chat), values as in table.
    Markdown,
    /// A horizontal bar chart of one number per record, fitting the width.
    Chart,
}

/// `--format` and `--columns`.
#[derive(Debug, Clone, Args)]
pub struct Tabular {
    /// Output format [default: table when stdout is a terminal, else json].
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<Layout>,
    /// The columns to print, in this order (comma-separated): a column
    /// (tokens.input), an object for every column under it (tokens), or
    /// sum(NAME) for the sum of the numbers under NAME. With json, each
    /// record becomes an object of these columns, keyed as CSV's header.
    /// Default: see --help.
    #[arg(long, value_name = "COL[,COL…]", value_delimiter = ',', hide_possible_values = true, value_parser = values::known(&[]))]
    pub columns: Vec<String>,
}

impl Tabular {
    /// The table format asked for; `None` for NDJSON ([`Tabular::ndjson`]).
    /// Without `--format`: a table when `terminal` (stdout is one, and the
    /// tool prints records), else NDJSON.
    pub fn table_format(&self, terminal: bool) -> Result<Option<TableStyle>> {
        let layout = self.format.unwrap_or(if terminal { Layout::Table } else { Layout::Json });
        let format = match layout {
            Layout::Json => None,
            Layout::Table => Some(TableStyle::Table),
            Layout::Tsv => Some(TableStyle::Tsv),
            Layout::Csv => Some(TableStyle::Csv),
            Layout::Markdown => Some(TableStyle::Markdown),
            Layout::Chart => Some(TableStyle::Chart),
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

impl Tabular {
    /// `records`, then `footer`, as NDJSON: whole, or reduced to
    /// `--columns` when it is given ([`table::pick`]).
    pub fn ndjson(&self, records: &[Record], footer: Option<&Record>) -> Result<Vec<u8>> {
        let footer = footer.map_or(&[][..], std::slice::from_ref);
        if self.columns.is_empty() {
            let mut bytes = table::ndjson(records)?;
            bytes.extend(table::ndjson(footer)?);
            return Ok(bytes);
        }
        let all: Vec<Record> = records.iter().chain(footer).cloned().collect();
        let picked =
            table::pick(&all, &self.columns(Columns::All)?).map_err(|e| Error::Usage(format!("--columns: {e}")))?;
        table::ndjson(&picked)
    }

    /// `records` in `format` ([`table::render_fit`]): a table fits the
    /// terminal ([`human::width`]), a note on stderr naming the columns it
    /// left out (`fit.width` is set here).
    pub fn render(
        &self,
        records: &[Record],
        footer: Option<&Record>,
        format: TableStyle,
        columns: &Columns,
        fit: Fit,
        diag: &Diag,
    ) -> Result<Vec<u8>> {
        let terminal = std::io::IsTerminal::is_terminal(&std::io::stdout());
        let fitted = matches!(format, TableStyle::Table | TableStyle::Chart);
        let width = if fitted { human::width(terminal) } else { None };
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let fit = Fit { width, color: terminal && !no_color, ..fit };
        let done = table::render_fit(records, footer, format, columns, &fit)
            .map_err(|e| Error::Usage(format!("--columns: {e}")))?;
        if let (false, Some(w)) = (done.dropped.is_empty(), width) {
            diag.note(&format_args!(
                "{} left out to fit {w} columns: {} (--columns chooses; CI_COLUMNS or COLUMNS sets the width)",
                if done.dropped.len() == 1 { "1 column".to_owned() } else { format!("{} columns", done.dropped.len()) },
                done.dropped.join(", ")
            ));
        }
        Ok(done.bytes)
    }
}
