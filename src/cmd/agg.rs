//! `ci-agg`: group, count and measure events; session, tool and token
//! analytics; mergeable partial state for fan-out runs.

use std::fs::File;
use std::io::Read;
use std::path::PathBuf;

use clap::{Parser, ValueEnum};
use serde_json::Value;

use crate::aggregate::cached::{self, Cache};
use crate::aggregate::field::{Field, KeyVal, NAMES};
use crate::aggregate::groups::{Order, Row};
use crate::aggregate::partial::{self, Merger};
use crate::aggregate::query::{Layout, Preset, Query};
use crate::aggregate::{combine, view, Aggregator, Answer};
use crate::cli::values;
use crate::cli::{Common, SessionArg, Tabular, TimeWindow, Tool};
use crate::diag::Diag;
use crate::discover::Detail;
use crate::error::{Error, Outcome, Result};
use crate::format::Format;
use crate::lines::LineReader;
use crate::output::table::{self, Columns, Fit, Record, TableStyle};
use crate::output::Output;
use crate::predicate::nearest::Watch;
use crate::pricing::Prices;
use crate::source::{self, RunOpts};
use crate::text::plural;
use crate::time;

mod flags;
mod live;
mod statusline;
pub mod views;

/// The long help's text after the options (help.txt beside this file).
const EXAMPLES: &str = include_str!("agg/help.txt");

/// Values of `--cost`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CostFlag {
    /// The writer's cost_usd when the response has one, else computed from its tokens.
    Auto,
    /// Always computed from the tokens and the price table.
    Computed,
}

/// Orders of `--sort`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SortOrder {
    /// Time buckets in time order (then count descending), other groups by count.
    Auto,
    /// Count descending, then key ascending.
    Count,
    /// Key ascending.
    Key,
    /// By a column of the records ([`table::sort_by_column`]).
    Column(String),
}

/// The named orders of `--sort` (any other value is a column).
const SORT_NAMES: [&str; 3] = ["auto", "count", "key"];

impl SortOrder {
    fn parse(s: &str) -> std::result::Result<SortOrder, String> {
        Ok(match s.trim() {
            "auto" => SortOrder::Auto,
            "count" => SortOrder::Count,
            "key" => SortOrder::Key,
            "" => return Err("expected auto, count, key or a column name".into()),
            column => SortOrder::Column(column.to_owned()),
        })
    }
}

/// The columns `--format table|tsv|csv` shows of `--sessions` records when
/// `--columns` does not say: who, where, when, how long, how much.
pub const SESSION_COLUMNS: [&str; 8] =
    ["session", "workspace", "started", "duration_ms", "sum(events)", "sum(tool_calls)", "tool_errors", "cost_usd"];

/// The columns of `--tokens` records a table leaves out unless `--columns`
/// names them (stderr names unpriced models; NDJSON has both).
const TOKENS_HIDDEN: [&str; 2] = ["cost_source", "unpriced_models"];

/// Group, count and measure events; session, tool and token analytics.
#[derive(Debug, Parser)]
#[command(
    name = "ci-agg",
    version,
    after_long_help = crate::format::with_sections(&crate::format::with_products(EXAMPLES), |h| h.agg.as_ref(), "DAMAGED INPUT"),
    after_help = "Run with --help for examples.",
    mut_arg("tz", |a| a.help("Time zone of hour/day/week/month buckets and of dates and words in --since/--until: IANA name, UTC, ±HH:MM or local (default: TZ or the system's zone)"))
)]
pub struct Args {
    /// Captures: events.jsonl files, session directories, roots, or - for
    /// stdin (session records or event records; always read). With no PATH: stdin when it is a pipe, a socket or a
    /// regular file, else the default roots (a terminal, /dev/null).
    /// With --merge: partial streams (default stdin, whatever it is).
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Group by these keys (comma-separated or repeated): event, workspace,
    /// session, tool, model, agent, status, writer, hour, day, week, month (project and
    /// date: workspace and day), or a dotted path.
    #[arg(long, value_name = "KEY[,KEY…]", value_delimiter = ',', hide_possible_values = true, value_parser = values::known(&NAMES))]
    pub by: Vec<String>,
    #[command(flatten)]
    pub time: TimeWindow,
    /// Sum of a numeric field per group (exact; numeric strings count).
    #[arg(long, value_name = "PATH", hide_possible_values = true, value_parser = values::known(&NAMES))]
    pub sum: Vec<String>,
    /// Mean of a numeric field per group.
    #[arg(long, value_name = "PATH", hide_possible_values = true, value_parser = values::known(&NAMES))]
    pub avg: Vec<String>,
    /// Minimum of a numeric field per group.
    #[arg(long, value_name = "PATH", hide_possible_values = true, value_parser = values::known(&NAMES))]
    pub min: Vec<String>,
    /// Maximum of a numeric field per group.
    #[arg(long, value_name = "PATH", hide_possible_values = true, value_parser = values::known(&NAMES))]
    pub max: Vec<String>,
    /// Median of a numeric field per group.
    #[arg(long, value_name = "PATH", hide_possible_values = true, value_parser = values::known(&NAMES))]
    pub p50: Vec<String>,
    /// 95th percentile of a numeric field per group.
    #[arg(long, value_name = "PATH", hide_possible_values = true, value_parser = values::known(&NAMES))]
    pub p95: Vec<String>,
    /// 99th percentile of a numeric field per group.
    #[arg(long, value_name = "PATH", hide_possible_values = true, value_parser = values::known(&NAMES))]
    pub p99: Vec<String>,
    /// count, sum, mean, min, max, p50, p95, p99 of a numeric field per group.
    #[arg(long, value_name = "PATH", hide_possible_values = true, value_parser = values::known(&NAMES))]
    pub stats: Vec<String>,
    /// Number of distinct non-null values of a field per group.
    #[arg(long, value_name = "PATH", hide_possible_values = true, value_parser = values::known(&NAMES))]
    pub distinct: Vec<String>,
    /// One record per session: events, tool calls, turns, response time, tokens, cost, children.
    #[arg(long, conflicts_with_all = ["tools", "tokens"])]
    pub sessions: bool,
    /// With --sessions: list every file of files_read and files_edited
    /// (each is cut to its first 20 by default, files_read_more and
    /// files_edited_more counting the rest).
    #[arg(long)]
    pub full: bool,
    /// Per tool: calls, errors, success rate, latency (pre/post paired by tool_call_id).
    #[arg(long, conflicts_with = "tokens")]
    pub tools: bool,
    /// Tokens and cost of llm:response events per model (and per --by key).
    #[arg(long)]
    pub tokens: bool,
    /// Which cost a response counts with: the writer's cost_usd when present
    /// (auto), or always the one computed from its tokens and the price table.
    #[arg(long, value_enum, value_name = "MODE", default_value_t = CostFlag::Auto)]
    pub cost: CostFlag,
    /// Price table for computed costs: a LiteLLM price list
    /// (model_prices_and_context_window.json) or a table in the format of the
    /// built-in one. Default: the built-in table (LiteLLM's prices, see --help).
    #[arg(long, value_name = "FILE", env = "CI_PRICING", hide_env_values = true)]
    pub pricing: Option<PathBuf>,
    /// Keep only the first N records; in time order (a time key, --sort
    /// auto), the newest N.
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,
    /// Keep the records of the newest N time buckets (needs a time key: --by
    /// hour, day, week or month).
    #[arg(long, value_name = "N")]
    pub last: Option<usize>,
    /// Print the records kept in the opposite order (newest first for time
    /// buckets).
    #[arg(short = 'r', long)]
    pub reverse: bool,
    /// With --tokens: one record per period (per value of the --by keys),
    /// its models listed, instead of one per period and model.
    #[arg(long)]
    pub per_period: bool,
    /// End NDJSON, TSV and CSV with the total record a table ends with.
    #[arg(long)]
    pub total: bool,
    /// Record order: auto (time buckets in time order, other groups by
    /// count), count, key, or a column (cost_usd, data.duration_ms.p95,
    /// sum(events)): numbers largest first, text ascending.
    #[arg(long, value_name = "ORDER", default_value = "auto", hide_possible_values = true, value_parser = values::Known::new(&SORT_NAMES, SortOrder::parse))]
    pub sort: SortOrder,
    #[command(flatten)]
    pub output: Tabular,
    /// Write mergeable partial state instead of records (for --merge).
    #[arg(long, conflicts_with_all = ["merge", "top", "format", "columns", "sort", "last", "reverse", "per_period", "total"])]
    pub partial: bool,
    /// Merge partial streams (from --partial runs) into the final records.
    #[arg(long, conflicts_with_all = ["by", "tz", "since", "until", "cost", "sum", "avg", "min", "max", "p50", "p95", "p99", "stats", "distinct", "sessions", "tools", "tokens", "session"])]
    pub merge: bool,
    /// Read every capture, neither using nor updating the capture cache
    /// (also CI_CACHE=0). See CACHE in --help.
    #[arg(long)]
    pub no_cache: bool,
    /// Keep reading the inputs and print the answer again when it changes
    /// (a table on a terminal, redrawn; else one snapshot per update): see
    /// FOLLOW in --help.
    #[arg(short = 'f', long, conflicts_with_all = ["merge", "partial", "statusline"])]
    pub follow: bool,
    /// With --follow: how often the inputs are read again, at most (1s,
    /// 30s, 2m; a bare number is seconds).
    #[arg(long, value_name = "DURATION", default_value = "1s", value_parser = time::parse_duration, requires = "follow")]
    pub interval: std::time::Duration,
    #[command(flatten)]
    pub session: SessionArg,
    #[command(flatten)]
    pub views: views::Views,
    #[command(flatten)]
    pub common: Common,
}

impl Tool for Args {
    fn common(&self) -> &Common {
        &self.common
    }

    fn follows(&self) -> bool {
        self.follow
    }
}

impl Args {
    /// Which records `--top`, `--last` and `--reverse` print of `q`'s.
    fn selection(&self, q: &Query) -> view::Selection {
        view::Selection {
            top: self.top,
            last: self.last,
            reverse: self.reverse,
            time_order: self.sort == SortOrder::Auto && q.keys.iter().any(Field::is_time),
        }
    }
}

/// Runs ci-agg.
pub fn run(args: Args, diag: &Diag) -> Result<Outcome> {
    // Before any input is read: a usage error is the only message. A person
    // at a terminal gets a table.
    let terminal = std::io::IsTerminal::is_terminal(&std::io::stdout());
    let format = args.output.table_format(terminal && !args.partial)?;
    args.views.check()?;
    if args.views.statusline {
        return statusline::run(args, diag);
    }
    // A table for people shows the writer when the report mixes writers
    // (not a view that folds the answer itself: its keys are its own).
    let adds_writer = !args.merge
        && !args.views.folds()
        && format.is_some_and(TableStyle::for_people)
        && view::wants_writer(&args.flags());
    let (q, answer, watches) = if args.merge {
        match merge_inputs(&args.paths, diag)? {
            Some((q, a)) => (q, a, vec![]),
            None if diag.failed() => return Ok(Outcome::Nothing),
            None => {
                diag.warn(&"no partial state on input (expected the output of ci-agg --partial)");
                return Ok(Outcome::Nothing);
            }
        }
    } else {
        let tz = args.time.zone.tz.clone();
        let mut flags = args.flags();
        args.week_keys(&mut flags)?;
        if adds_writer {
            flags.by.push(view::WRITER.into());
        }
        let prices = match &args.pricing {
            Some(path) => &*Box::leak(Box::new(Prices::from_file(path).map_err(Error::Usage)?)),
            None => Prices::builtin(),
        };
        let window = args.time.interval(time::now())?;
        let q = Query::new(flags, tz).map_err(Error::Usage)?.with_prices(prices);
        args.selection(&q).check(&q).map_err(Error::Usage)?;
        if args.per_period {
            view::check_per_period(&q).map_err(Error::Usage)?;
        }
        // A capture's kept state is of all its events: a window reads the
        // captures with an event in it, and prunes the others by their span.
        let cache = open_cache(&q, &args, window, diag);
        let run = live::Run { q: &q, args: &args, format, adds_writer, window, cache: cache.as_ref() };
        if args.follow {
            return live::follow(&run, terminal, diag);
        }
        let (answer, watches) = aggregate(&q, &args, window, cache.as_ref(), diag)?;
        (q, answer, watches)
    };
    let not_numbers = warn_not_numbers(&answer, &q, diag);
    if crate::signal::stop_requested() {
        // Interrupted: a partial aggregate would look like a whole one.
        return Ok(Outcome::Nothing);
    }
    if args.partial {
        partial::write_lines(
            &partial::encode(&q, answer, (diag.bad_lines(), diag.torn_tails())),
            &mut Output::stdout(),
        )?;
        return Ok(Outcome::Printed);
    }
    let (bytes, found) = report(&q, answer, (&watches, &not_numbers), &args, format, adds_writer, diag)?;
    let mut out = Output::stdout();
    out.write(&bytes)?;
    out.flush()?;
    Ok(Outcome::printed_if(found))
}

/// Warns of the values of metric fields that were not numbers, and returns
/// how many each field had.
fn warn_not_numbers(answer: &Answer, q: &Query, diag: &Diag) -> Vec<(String, u64)> {
    let not_numbers = answer.not_numbers(q);
    for (field, n) in &not_numbers {
        let n = *n;
        diag.warn(&format_args!(
            "{n} value{} of {field} {} not numbers and skipped",
            plural(n),
            if n == 1 { "was" } else { "were" }
        ));
    }
    not_numbers
}

/// The bytes of the answer as `format` prints them (NDJSON when `None`),
/// and whether it found anything; warns of what the answer lacks. `read`:
/// what the events read had of the query's paths ([`Watch`]) and the
/// metric fields' values that were not numbers ([`warn_not_numbers`]).
fn report(
    q: &Query,
    answer: Answer,
    (watches, not_numbers): (&[Watch], &[(String, u64)]),
    args: &Args,
    format: Option<TableStyle>,
    adds_writer: bool,
    diag: &Diag,
) -> Result<(Vec<u8>, bool)> {
    let order = match args.sort {
        SortOrder::Auto | SortOrder::Column(_) => Order::Auto,
        SortOrder::Count => Order::Count,
        SortOrder::Key => Order::Key,
    };
    // Groups of nothing read (`{"count":0}`, no key) are printed but found
    // nothing: exit 1, as `grep -c` prints 0.
    let grouped = matches!(answer, Answer::Groups(_));
    let (rows, viewed) = if args.views.folds() {
        (vec![], Some(args.views.records(q, answer, diag)))
    } else {
        (answer.rows(q, order), None)
    };
    let read_any = !grouped || viewed.is_some() || rows.iter().any(|r| r.count > 0);
    let seen: Vec<&str> = not_numbers.iter().map(|(f, _)| f.as_str()).collect();
    warn_fields_never_found(&rows, q, q.spec.by.len() - usize::from(adds_writer), &seen, watches, diag);
    let mut records: Vec<Record> = viewed.unwrap_or_else(|| rows.into_iter().map(|r| r.record).collect());
    if adds_writer {
        view::drop_single_writer(&mut records);
    }
    if q.preset == Preset::Sessions && !args.full {
        view::cap_lists(&mut records, &view::CAPPED_LISTS, view::LIST_CAP);
    }
    warn_unpriced(&records, q, diag);
    if let SortOrder::Column(column) = &args.sort {
        table::sort_by_column(&mut records, column).map_err(|e| Error::Usage(format!("--sort: {e}")))?;
    }
    if args.per_period {
        records = view::per_period(q, records).map_err(Error::Usage)?;
    }
    let all = args.selection(q).apply(q, &mut records).map_err(Error::Usage)?;
    let found = !records.is_empty() && read_any;
    let people = format.is_some_and(TableStyle::for_people);
    let total =
        if (people || args.total) && found && !args.views.no_total() { view::total(q, &records, all) } else { None };
    let bytes = match format {
        None => args.output.ndjson(&records, total.as_ref())?,
        Some(format) => args.output.render(
            &records,
            total.as_ref(),
            format,
            &args.output.columns(default_columns(q, &args.views, format))?,
            Fit {
                // A view names its columns (the header of its empty result).
                template: if args.views.blocks { None } else { template(q, args.per_period, adds_writer) },
                expendable: expendable(q),
                ..Fit::default()
            },
            diag,
        )?,
    };
    Ok((bytes, found))
}

/// The columns a table of `q`'s records shows unless `--columns` says:
/// a view's own, [`SESSION_COLUMNS`] for `--sessions`, all but
/// [`TOKENS_HIDDEN`] for `--tokens`, every column otherwise. A chart draws
/// a block's or a session's cost; of the other records, its own choice
/// ([`crate::output::chart`]).
fn default_columns(q: &Query, views: &views::Views, format: TableStyle) -> Columns {
    if format == TableStyle::Chart {
        return match (views.blocks, q.preset) {
            (true, _) => Columns::named(&["start", "cost_usd"]),
            (false, Preset::Sessions) => Columns::named(&["session", "cost_usd"]),
            _ => Columns::All,
        };
    }
    if let Some(columns) = views.columns() {
        return columns;
    }
    match q.preset {
        Preset::Sessions => Columns::named(&SESSION_COLUMNS),
        Preset::Tokens => Columns::Except(TOKENS_HIDDEN.iter().map(|s| (*s).to_owned()).collect()),
        Preset::Group | Preset::Tools => Columns::All,
    }
}

/// The header of an empty result ([`view::template`]), without the writer
/// column this run added.
fn template(q: &Query, per_period: bool, auto_writer: bool) -> Option<Record> {
    let mut t = view::template(q, per_period)?;
    if auto_writer {
        t.shift_remove(view::WRITER);
    }
    Some(t)
}

/// The columns a table of `q`'s records leaves out first when the terminal
/// is narrow: what matters least to the question.
fn expendable(q: &Query) -> Vec<String> {
    let names: &[&str] = match q.preset {
        Preset::Tokens => &["cache_write_tokens", "cache_read_tokens"],
        Preset::Sessions => &["tool_errors", "sum(tool_calls)", "sum(events)"],
        Preset::Tools => &["unfinished", "ok", "p50_ms"],
        Preset::Group => &[],
    };
    names.iter().map(|n| (*n).to_owned()).collect()
}

/// One warning per `--by` key or metric path that no record had: a typo
/// (`--by evnt`) would otherwise print one `null` group without a word. The
/// nearest named field is suggested when the name is close to one. A named
/// key null for every record (`--by model` over events that name none) is
/// said so too. `by`: how many of the query's keys `--by` named.
/// `seen`: metric fields that had values, though not numbers; `watches`:
/// what the events read had of the query's paths, for the nearest path
/// they have ([`Watch::hint`]).
fn warn_fields_never_found(rows: &[Row], q: &Query, by: usize, seen: &[&str], watches: &[Watch], diag: &Diag) {
    if rows.is_empty() {
        return;
    }
    let hint = |name: &str| {
        let watched = watches.iter().find(|w| w.target.path().as_str() == name).and_then(Watch::hint);
        match watched.or_else(|| crate::text::nearest(name, &NAMES).map(str::to_owned)) {
            Some(n) => format!("; did you mean {n:?}?"),
            None => String::new(),
        }
    };
    // The first `by` keys (`--by`; a preset's own keys come after them).
    for (i, key) in q.keys.iter().enumerate().take(by) {
        if !rows.iter().all(|r| r.key.get(i).is_none_or(|k| *k == KeyVal::Null)) {
            continue;
        }
        let name = key.name();
        match null_reason(key) {
            None => {
                diag.warn(&format_args!("--by {name}: no record has this field (null in every group){}", hint(name)))
            }
            Some(why) => diag.warn(&format_args!("--by {name}: null for every record ({why})")),
        }
    }
    for m in &q.measures {
        let (Field::Path(p), Layout::Nested) = (&m.field, &m.layout) else { continue };
        let name = p.as_str();
        if seen.contains(&name) {
            continue;
        }
        let empty = |v: &Value| v.is_null() || v.as_u64() == Some(0);
        let never = rows.iter().all(|r| match r.record.get(name) {
            Some(Value::Object(outs)) => outs.values().all(empty),
            _ => true,
        });
        if never {
            diag.warn(&format_args!("{name}: no record has this field, so its metrics are empty{}", hint(name)));
        }
    }
}

/// Why a named `--by` key is null for every record (`None` for a path).
fn null_reason(key: &Field) -> Option<String> {
    Some(match key {
        Field::Path(_) => return None,
        Field::Event => "no record has an event name".into(),
        Field::Workspace => "no record has a workspace".into(),
        Field::Session => "no record has a session id".into(),
        Field::Tool => "no record names a tool".into(),
        Field::Model => "no record names a model".into(),
        Field::Agent => "no session names its agent".into(),
        Field::Status => "no record has a status".into(),
        Field::Writer => "no record's session is known".into(),
        Field::Time(_) => "no record has a usable timestamp".into(),
        Field::Usage(u) => format!("no record has {}", u.name()),
    })
}

/// One warning naming the models no price was found for (their responses'
/// `cost_usd` is null, never 0).
fn warn_unpriced(records: &[serde_json::Map<String, Value>], q: &Query, diag: &Diag) {
    let models: std::collections::BTreeSet<&str> = records
        .iter()
        .filter_map(|r| r.get("unpriced_models")?.as_array())
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    if models.is_empty() {
        return;
    }
    let names: Vec<String> = models.iter().map(|m| format!("{m:?}")).collect();
    diag.warn(&format_args!(
        "no price for model{} {} in {}: their cost is null and named in unpriced_models (--pricing FILE adds prices)",
        plural(models.len() as u64),
        names.join(", "),
        if q.spec.pricing.is_empty() { q.prices.source() } else { &q.spec.pricing }
    ));
}

/// The capture cache of `q` for a run in `window`, unless it is off
/// (`--no-cache`, `CI_CACHE=0`).
fn open_cache(q: &Query, args: &Args, window: time::Interval, diag: &Diag) -> Option<Cache> {
    if args.no_cache || crate::cache::off_by_env() {
        return None;
    }
    // Computed prices depend on the table's bytes, not only on its name.
    let prices = match &args.pricing {
        Some(path) => std::fs::read(path).unwrap_or_default(),
        None => Vec::new(),
    };
    Cache::open(q, &cached::file_name(q, &prices), window, diag)
}

/// Reads the inputs and aggregates them; with what the events read have of
/// the query's field paths.
fn aggregate(
    q: &Query,
    args: &Args,
    window: time::Interval,
    cache: Option<&Cache>,
    diag: &Diag,
) -> Result<(Answer, Vec<Watch>)> {
    // Dealt by size only: the same input gives the same split, and the same
    // percentile estimates, however fast the pipe fills.
    let opts = RunOpts {
        threads: args.common.threads(diag),
        follow: false,
        detail: Detail::Reading,
        deal_on_idle: false,
        // A first run over gigabytes (building the cache) shows how far it is.
        progress: std::io::IsTerminal::is_terminal(&std::io::stderr()),
        whole: None,
        window,
    };
    let ids = args.session.ids()?;
    // With the question's cache, what discovery reads of companion files
    // (an Amplifier session's metadata.json) is kept too (written at the end).
    let peeks = cache.is_some().then(crate::cache::peeks::beside).flatten();
    let inputs = args.views.inputs(&args.paths, diag).unwrap_or_else(|| source::inputs_from_args(&args.paths, diag));
    let inputs = ids.narrow_inputs(inputs, true, opts.detail, diag)?;
    let mut out = Output::stdout();
    let mut visitors = source::run(&inputs, &opts, diag, &mut out, || {
        ids.narrow(Aggregator::new(q, diag).with_cache(cache).with_window(window), true)
    })?;
    ids.check_stream(&inputs, &visitors, diag)?;
    if let Some(metric) = q.usage_metric() {
        let formats: Vec<&Format> = visitors.iter().flat_map(|v| v.inner.repeated.iter().copied()).collect();
        if !formats.is_empty() {
            return Err(repeated_usage(metric, &formats));
        }
    }
    drop(peeks);
    if let Some(c) = cache {
        c.save(visitors.iter_mut().flat_map(|v| std::mem::take(&mut v.inner.updates)).collect(), diag);
    }
    let mut watches: Vec<Watch> = q.paths().into_iter().map(Watch::new).collect();
    for v in &visitors {
        for (w, seen) in watches.iter_mut().zip(&v.inner.watches) {
            w.merge(seen);
        }
    }
    let mut visitors: Vec<Aggregator<'_>> = visitors.into_iter().map(|v| v.inner).collect();
    let companions = piped_companions(q, &visitors, &opts, diag, &mut out)?;
    visitors.extend(companions);
    Ok((combine(q, visitors), watches))
}

/// What a usage `metric` summed over lines is told when it met responses
/// the writers of `formats` write on several lines
/// ([`crate::format::Profile::repeats`]), each writer named once.
fn repeated_usage(metric: &str, formats: &[&Format]) -> Error {
    let mut how: Vec<&str> = Vec::new();
    for f in crate::format::FORMATS.iter().filter(|f| formats.contains(f)) {
        let said = f.profile.repeats.unwrap_or(f.product);
        if !how.contains(&said) {
            how.push(said);
        }
    }
    Error::Usage(format!(
        "{metric}: these captures write one response on several lines ({}), so a sum over lines would count \
         it several times; --tokens counts each response once, its largest copy (ci-agg --tokens --by day)",
        how.join("; ")
    ))
}

/// Reads the companion files of the piped sessions that want them
/// ([`Aggregator::piped_companions`]: a hooks session's transcript copy), each
/// once, as the direct read reads them after the session's events (in the
/// run's time window, without the cache).
fn piped_companions<'q>(
    q: &'q Query,
    visitors: &[Aggregator<'q>],
    opts: &RunOpts,
    diag: &'q Diag,
    out: &mut Output,
) -> Result<Vec<Aggregator<'q>>> {
    let wanted: std::collections::BTreeMap<_, _> = visitors.iter().flat_map(Aggregator::piped_companions).collect();
    if wanted.is_empty() {
        return Ok(Vec::new());
    }
    let captures = wanted
        .into_values()
        .map(|rec| crate::session::Capture { files: Vec::new(), ..crate::format::capture(rec.clone()) })
        .collect();
    let window = opts.window;
    source::run(&[source::Input::Captures(captures)], opts, diag, out, || {
        Aggregator::new(q, diag).with_window(window).for_companions()
    })
}

/// Reads partial streams from `paths` (stdin when empty or `-`).
fn merge_inputs(paths: &[PathBuf], diag: &Diag) -> Result<Option<(Query, Answer)>> {
    let mut merger = Merger::new();
    let stdin = [PathBuf::from("-")];
    let paths = if paths.is_empty() { &stdin[..] } else { paths };
    for p in paths {
        let (name, reader): (String, Box<dyn Read>) = if p.as_os_str() == "-" {
            ("-".into(), Box::new(std::io::stdin().lock()))
        } else {
            match File::open(p) {
                Ok(f) => (p.display().to_string(), Box::new(f)),
                Err(e) => {
                    diag.error(&format_args!("{}: {e}", p.display()));
                    continue;
                }
            }
        };
        let mut lines = LineReader::new(reader);
        loop {
            let line = match lines.next_line() {
                Ok(Some(l)) => l,
                Ok(None) => break,
                Err(e) => {
                    diag.error(&format_args!("{name}: {e}"));
                    break;
                }
            };
            if line.too_long {
                diag.error(&format_args!("{name}:{}: {}", line.number, crate::lines::TooLong));
                continue;
            }
            if line.bytes.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            if let Err(reason) = merger.line(line.bytes) {
                diag.error(&format_args!("{name}:{}: {reason}", line.number));
            }
        }
    }
    let (bad, unfinished) = merger.skipped();
    diag.add_skipped(bad, unfinished);
    if merger.incompatible() {
        // Reported line by line above (exit 2); a merge of different queries
        // would print one query's keys under another's names.
        return Ok(None);
    }
    Ok(merger.finish())
}
