//! Records as a table for people (`table`), or for spreadsheets and `cut`
//! (`tsv`, `csv`): the one renderer of ci-agg's and ci-find's `--format
//! table|tsv|csv`, with their `--columns` and ci-agg's `--sort COLUMN`.
//!
//! Columns are the records' keys, nested objects flattened with dotted
//! names (`tokens.input`, `events.tool:pre`), in first-seen order, so
//! records of different shapes line up; a record without a column leaves
//! its cell empty. A [`Columns`] selection chooses and orders them; a
//! column is named (`Schema::resolve`):
//!
//! - `NAME`: the column `NAME` (`cost_usd`, `tokens.input`); when `NAME` is
//!   an object, every column under it (`tokens` is `tokens.input`,
//!   `tokens.output`, …). A name under an object that no record fills
//!   (`events.tool:pre` when no session has one) is an empty column.
//! - `sum(NAME)`: one column, the sum of the numbers at and under `NAME`
//!   (`sum(events)`: a session's events; 0 for an empty object, null when a
//!   record has no number there).
//!
//! Any other name is refused, naming the nearest column when one is a typo
//! away ([`crate::text::nearest`]).
//!
//! - `table`: a header line and space-aligned columns (widths in terminal
//!   columns: wide CJK characters count two), numbers right-aligned and
//!   fractions rounded to six significant digits (`rounded`); `null` shown
//!   as `null`; control characters shown escaped (`\n`), so one record is one
//!   line on a terminal.
//! - `tsv`: tab-separated with a header; `\` is written `\\` and control
//!   characters escaped (`\t`, `\n`, `\r` as jq's `@tsv`, NUL as `\u{0}`,
//!   ESC as `\u{1b}`), so a cell never holds a tab, a line break or a
//!   terminal escape; `null` is an empty cell.
//! - `csv`: RFC 4180 (comma-separated, fields with `,`, `"` or line breaks
//!   quoted, quotes doubled), with a header; `null` is an empty cell.
//!
//! Arrays (and empty objects) are shown as compact JSON in every format.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::HashSet;

use serde_json::{Map, Number, Value};

use crate::error::Error;
use crate::output::human;
use crate::text::printable::escape_controls;

/// A record as the tools hold it.
pub type Record = Map<String, Value>;

/// A tabular format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableStyle {
    /// Aligned columns.
    Table,
    /// Tab-separated values.
    Tsv,
    /// Comma-separated values.
    Csv,
    /// A Markdown (GitHub) table, with the cells of [`TableStyle::Table`].
    Markdown,
    /// A horizontal bar chart of one number per record, with the cells of
    /// [`TableStyle::Table`] ([`super::chart`]).
    Chart,
}

impl TableStyle {
    /// Whether people read it: values shown as [`human::cell`] makes them,
    /// the zone in the header, a total row.
    pub fn for_people(self) -> bool {
        matches!(self, TableStyle::Table | TableStyle::Markdown | TableStyle::Chart)
    }
}

/// Which columns a table shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Columns {
    /// Every column of the records.
    All,
    /// These, in this order (`--columns`, or a tool's default set).
    Named(Vec<String>),
    /// Every column but these and the columns under them.
    Except(Vec<String>),
}

impl Columns {
    /// `Named` from a static list.
    pub fn named(names: &[&str]) -> Columns {
        Columns::Named(names.iter().map(|s| (*s).to_owned()).collect())
    }
}

/// One record flattened: (dotted name, value) in record order.
type Flat = Vec<(String, Value)>;

/// Names in first-seen order, each once.
#[derive(Debug, Default)]
struct Names {
    list: Vec<String>,
    seen: HashSet<String>,
}

impl Names {
    fn add(&mut self, name: &str) {
        if !self.seen.contains(name) {
            self.seen.insert(name.to_owned());
            self.list.push(name.to_owned());
        }
    }

    fn has(&self, name: &str) -> bool {
        self.seen.contains(name)
    }
}

fn flatten(prefix: &str, v: &Value, out: &mut Flat, objects: &mut Names) {
    match v {
        Value::Object(m) if !m.is_empty() => {
            if !prefix.is_empty() {
                objects.add(prefix);
            }
            for (k, v) in m {
                let name = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
                flatten(&name, v, out, objects);
            }
        }
        _ => out.push((prefix.to_owned(), v.clone())),
    }
}

/// Whether `name` is `outer` or a column under it.
fn within(name: &str, outer: &str) -> bool {
    name.strip_prefix(outer).is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
}

/// One column of a table.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Col {
    /// A flattened column.
    Field(String),
    /// `sum(NAME)`.
    Sum(String),
}

impl Col {
    /// The column a cell's value is of (`NAME` of `sum(NAME)`).
    fn name(&self) -> &str {
        match self {
            Col::Field(n) | Col::Sum(n) => n,
        }
    }

    fn header(&self) -> String {
        match self {
            Col::Field(n) => n.clone(),
            Col::Sum(n) => format!("sum({n})"),
        }
    }

    /// The cell of a flattened record, `None` when the record has no such column.
    fn value(&self, flat: &Flat) -> Option<Value> {
        match self {
            Col::Field(n) => flat.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone()),
            Col::Sum(n) => Some(sum_under(flat, n)),
        }
    }
}

/// `sum(NAME)` of one record.
fn sum_under(flat: &Flat, name: &str) -> Value {
    let under: Vec<&Value> = flat.iter().filter(|(k, _)| within(k, name)).map(|(_, v)| v).collect();
    let numbers: Vec<&Number> = under.iter().filter_map(|v| v.as_number()).collect();
    if numbers.is_empty() {
        let empty_object = !under.is_empty() && under.iter().all(|v| v.as_object().is_some_and(Map::is_empty));
        return if empty_object { Value::from(0) } else { Value::Null };
    }
    let ints: Option<i64> = numbers.iter().try_fold(0i64, |acc, n| acc.checked_add(n.as_i64()?));
    match ints {
        Some(i) => Value::from(i),
        None => Number::from_f64(numbers.iter().filter_map(|n| n.as_f64()).sum()).map_or(Value::Null, Value::Number),
    }
}

/// The records flattened, and the columns and objects they have.
#[derive(Debug)]
pub struct Schema {
    rows: Vec<Flat>,
    /// Leaf columns, first-seen order.
    leaves: Names,
    /// Dotted names of non-empty objects.
    objects: Names,
}

impl Schema {
    /// Flattens `records`.
    pub fn of(records: &[Record]) -> Schema {
        let (mut leaves, mut objects) = (Names::default(), Names::default());
        let mut rows = Vec::with_capacity(records.len());
        for rec in records {
            let mut flat = vec![];
            for (k, v) in rec {
                flatten(k, v, &mut flat, &mut objects);
            }
            for (name, _) in &flat {
                leaves.add(name);
            }
            rows.push(flat);
        }
        Schema { rows, leaves, objects }
    }

    /// The columns a name stands for (see the module docs), or why none.
    fn resolve(&self, spec: &str) -> Result<Vec<Col>, String> {
        let spec = spec.trim();
        if let Some(inner) = spec.strip_prefix("sum(").and_then(|s| s.strip_suffix(')')) {
            let inner = inner.trim();
            self.resolve(inner)?;
            return Ok(vec![Col::Sum(inner.to_owned())]);
        }
        if self.objects.has(spec) {
            let under = self.leaves.list.iter().filter(|l| l.len() > spec.len() && within(l, spec));
            return Ok(under.map(|l| Col::Field(l.clone())).collect());
        }
        if self.leaves.has(spec) {
            return Ok(vec![Col::Field(spec.to_owned())]);
        }
        if self.objects.list.iter().any(|o| spec.len() > o.len() && within(spec, o)) {
            return Ok(vec![Col::Field(spec.to_owned())]);
        }
        Err(self.unknown(spec))
    }

    fn unknown(&self, spec: &str) -> String {
        let mut names: Vec<&str> = self.leaves.list.iter().map(String::as_str).collect();
        names.extend(self.objects.list.iter().map(String::as_str).filter(|o| !self.leaves.has(o)));
        match crate::text::nearest(spec, &names) {
            Some(n) => format!("no column {spec:?}; did you mean {n:?}?"),
            None => {
                let top: Vec<&str> = names.iter().copied().filter(|n| !n.contains('.')).collect();
                format!("no column {spec:?} (the columns: {})", top.join(", "))
            }
        }
    }

    fn select(&self, columns: &Columns) -> Result<Vec<Col>, String> {
        Ok(match columns {
            Columns::All => self.leaves.list.iter().map(|l| Col::Field(l.clone())).collect(),
            Columns::Except(skip) => self
                .leaves
                .list
                .iter()
                .filter(|l| !skip.iter().any(|s| within(l, s)))
                .map(|l| Col::Field(l.clone()))
                .collect(),
            Columns::Named(specs) => {
                let mut cols = vec![];
                for s in specs {
                    cols.extend(self.resolve(s)?);
                }
                cols
            }
        })
    }
}

/// Sorts `records` by one column (a name as `--columns` takes, standing for
/// one column): numbers first, largest first; then text in ascending order;
/// then other values (true/false, arrays) by their JSON text; records
/// without a value (or `null`) last. Stable: ties keep their order.
pub fn sort_by_column(records: &mut Vec<Record>, spec: &str) -> Result<(), String> {
    if records.is_empty() {
        return Ok(());
    }
    let schema = Schema::of(records);
    let col = match schema.resolve(spec)?.as_slice() {
        [one] => one.clone(),
        many => {
            let names: Vec<String> = many.iter().map(Col::header).collect();
            return Err(format!("{spec:?} is {} columns; name one: {}", names.len(), names.join(", ")));
        }
    };
    let keys: Vec<Option<Value>> = schema.rows.iter().map(|r| col.value(r)).collect();
    let mut order: Vec<usize> = (0..records.len()).collect();
    order.sort_by(|&a, &b| sort_cmp(keys[a].as_ref(), keys[b].as_ref()));
    let mut taken: Vec<Option<Record>> = std::mem::take(records).into_iter().map(Some).collect();
    records.extend(order.into_iter().filter_map(|i| taken[i].take()));
    Ok(())
}

fn sort_cmp(a: Option<&Value>, b: Option<&Value>) -> Ordering {
    let rank = |v: Option<&Value>| match v {
        Some(Value::Number(_)) => 0,
        Some(Value::String(_)) => 1,
        None | Some(Value::Null) => 3,
        Some(_) => 2,
    };
    rank(a).cmp(&rank(b)).then_with(|| match (a, b) {
        (Some(Value::Number(x)), Some(Value::Number(y))) => {
            let (x, y) = (x.as_f64().unwrap_or(0.0), y.as_f64().unwrap_or(0.0));
            y.partial_cmp(&x).unwrap_or(Ordering::Equal)
        }
        (Some(Value::String(x)), Some(Value::String(y))) => x.cmp(y),
        (Some(x), Some(y)) => x.to_string().cmp(&y.to_string()),
        _ => Ordering::Equal,
    })
}

fn cell(column: &str, v: &Value, format: TableStyle) -> String {
    let people = format.for_people().then(|| human::cell(column, v)).flatten();
    let text = people.unwrap_or_else(|| plain_cell(v, format));
    match format {
        TableStyle::Table | TableStyle::Chart => escape_controls(&text, false).into_owned(),
        TableStyle::Markdown => escape_controls(&text, false).replace('|', "\\|"),
        TableStyle::Tsv | TableStyle::Csv => text,
    }
}

/// What a table for people shows of `v` in `column` (`$0.05`, `sonnet-4.5`,
/// `1,234`; control characters escaped).
pub fn people_cell(column: &str, v: &Value) -> String {
    cell(column, v, TableStyle::Table)
}

/// Width in terminal columns (East Asian wide characters take two).
pub fn text_width(s: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(s)
}

/// A cell before [`human::cell`] and the escapes of [`cell`].
fn plain_cell(v: &Value, format: TableStyle) -> String {
    match v {
        Value::Null if format.for_people() => "null".into(),
        Value::Null => String::new(),
        Value::String(s) => match format {
            TableStyle::Tsv => escape_controls(s, true).into_owned(),
            TableStyle::Table | TableStyle::Markdown | TableStyle::Chart | TableStyle::Csv => s.clone(),
        },
        Value::Number(n) if format.for_people() => {
            n.as_f64().filter(|f| f.fract() != 0.0).map_or_else(|| n.to_string(), rounded)
        }
        other => other.to_string(),
    }
}

/// Significant digits of a fractional number in a table for people.
const TABLE_DIGITS: usize = 6;

/// A fractional number as a table shows it: [`TABLE_DIGITS`] significant
/// digits, but never fewer than its integer part has, no exponent, trailing
/// zeros dropped (`3622.1111111111113` → `3622.11`, `0.00310625` stays,
/// `1234567.891` → `1234568`). Only `table` rounds: NDJSON, TSV and CSV print
/// every digit.
pub(crate) fn rounded(f: f64) -> String {
    let int_digits = if f.abs() < 1.0 { 0 } else { f.abs().log10().floor() as usize + 1 };
    if int_digits >= TABLE_DIGITS {
        return format!("{f:.0}");
    }
    // Round to the significant digits in scientific form, then print the
    // shortest decimal text of that value.
    let sci = format!("{:.*e}", TABLE_DIGITS - 1, f);
    sci.parse::<f64>().map_or_else(|_| f.to_string(), |r| r.to_string())
}

const NULL: u8 = 0;
const NUMBER: u8 = 1;

/// Null, number or other, for alignment.
fn kind(v: &Value) -> u8 {
    match v {
        Value::Null => NULL,
        Value::Number(_) => NUMBER,
        _ => 2,
    }
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

/// A cell: its text and [`kind`].
type Cell = Option<(String, u8)>;

/// How a table is laid out beyond its records and columns.
#[derive(Debug, Clone, Default)]
pub struct Fit {
    /// The most terminal columns a line of `table` takes ([`human::width`]);
    /// `None`: no limit.
    pub width: Option<usize>,
    /// A record whose keys name the columns when there are no records (its
    /// values are not shown), so that an empty result still has a header.
    pub template: Option<Record>,
    /// Columns (headers) left out first when the width is short, in this
    /// order, before the others from the right.
    pub expendable: Vec<String>,
    /// Whether a chart's bars are coloured (a terminal without `NO_COLOR`).
    pub color: bool,
}

/// A rendered table, and the columns left out to fit the width.
#[derive(Debug, Default)]
pub struct Rendered {
    /// The table.
    pub bytes: Vec<u8>,
    /// The headers of the columns left out, in the order they were.
    pub dropped: Vec<String>,
}

/// [`render_fit`] without a width or template.
pub fn render(
    records: &[Record],
    footer: Option<&Record>,
    format: TableStyle,
    columns: &Columns,
) -> Result<Vec<u8>, String> {
    render_fit(records, footer, format, columns, &Fit::default()).map(|r| r.bytes)
}

/// Renders `records` in `format`, showing `columns`, as `fit` says. With no
/// records: the header alone, its columns from `fit.template`, else the
/// names of a `Columns::Named`; nothing when neither names a column.
/// `footer` (a total row) is printed last when its first shown cell is text
/// (its label, `total`): without the label a row of sums would read as one
/// more record. For people (`table`, `markdown`) a `tz` column that
/// `--columns` does not name, when the rows have one zone, is shown once as
/// `(ZONE)` in the header of the column before it. Errors name a column that
/// is not there.
pub fn render_fit(
    records: &[Record],
    footer: Option<&Record>,
    format: TableStyle,
    columns: &Columns,
    fit: &Fit,
) -> Result<Rendered, String> {
    if format == TableStyle::Chart {
        return super::chart::render(records, columns, fit);
    }
    let template: Record;
    let (records, empty) = if records.is_empty() {
        template = match (&fit.template, columns) {
            (Some(t), _) => t.clone(),
            (None, Columns::Named(names)) => names.iter().map(|n| (bare(n).to_owned(), Value::Null)).collect(),
            (None, _) => return Ok(Rendered::default()),
        };
        (std::slice::from_ref(&template), true)
    } else {
        (records, false)
    };
    let schema = Schema::of(records);
    let mut cols = schema.select(columns)?;
    let rows = if empty { &schema.rows[..0] } else { &schema.rows[..] };
    let mut headers: Vec<String> = cols.iter().map(Col::header).collect();
    if format.for_people() {
        // The template's zone names an empty result's too.
        zone_in_header(&mut cols, &mut headers, &schema, columns);
    }
    let row = |flat: &Flat| -> Vec<Cell> {
        cols.iter().map(|c| c.value(flat).map(|v| (cell(c.name(), &v, format), kind(&v)))).collect()
    };
    let mut grid: Vec<Vec<Cell>> = rows.iter().map(row).collect();
    if let Some(f) = footer {
        let flat = Schema::of(std::slice::from_ref(f)).rows.remove(0);
        let cells = row(&flat);
        if cells.first().is_some_and(|c| c.as_ref().is_some_and(|(_, k)| *k == 2)) {
            grid.push(cells);
        }
    }
    let (out, dropped) = match format {
        TableStyle::Tsv => (separated(&headers, &grid, "\t", str::to_owned), vec![]),
        TableStyle::Csv => (separated(&headers, &grid, ",", csv_field), vec![]),
        // A chart is drawn by chart::render, above.
        TableStyle::Table | TableStyle::Chart => {
            let width = fit.width.map(|w| (w, drop_order(&headers, &fit.expendable)));
            aligned(&headers, &grid, width)
        }
        TableStyle::Markdown => (markdown(&headers, &grid), vec![]),
    };
    Ok(Rendered { bytes: out.into_bytes(), dropped })
}

/// The column a `--columns` name reads: `NAME` of `sum(NAME)`.
fn bare(spec: &str) -> &str {
    let spec = spec.trim();
    spec.strip_prefix("sum(").and_then(|s| s.strip_suffix(')')).map_or(spec, str::trim)
}

/// Moves the one zone of a `tz` column into the header of the time column
/// before it in the records (see [`render_fit`]).
fn zone_in_header(cols: &mut Vec<Col>, headers: &mut Vec<String>, schema: &Schema, columns: &Columns) {
    if matches!(columns, Columns::Named(names) if names.iter().any(|n| n.trim() == "tz")) {
        return;
    }
    let tz = Col::Field("tz".into());
    let zones: std::collections::BTreeSet<String> =
        schema.rows.iter().filter_map(|r| tz.value(r)).filter_map(|v| v.as_str().map(str::to_owned)).collect();
    let Some(zone) = zones.first().filter(|_| zones.len() == 1) else { return };
    if let Some(i) = cols.iter().position(|c| *c == tz) {
        cols.remove(i);
        headers.remove(i);
    }
    let leaves = &schema.leaves.list;
    let time =
        leaves.iter().position(|l| l == "tz").and_then(|i| i.checked_sub(1)).map(|i| Col::Field(leaves[i].clone()));
    if let Some(j) = time.and_then(|t| cols.iter().position(|c| *c == t)) {
        headers[j].push_str(&format!(" ({zone})"));
    }
}

/// `records` reduced to `columns` (`--columns` with NDJSON): per record an
/// object keyed by the columns' headers as CSV names them (`tokens.input`,
/// `sum(events)`), its values exact, `null` where the record has none.
pub fn pick(records: &[Record], columns: &Columns) -> Result<Vec<Record>, String> {
    if records.is_empty() {
        return Ok(vec![]);
    }
    let schema = Schema::of(records);
    let cols = schema.select(columns)?;
    let row = |flat: &Flat| cols.iter().map(|c| (c.header(), c.value(flat).unwrap_or(Value::Null))).collect();
    Ok(schema.rows.iter().map(row).collect())
}

/// Records as NDJSON, one line each (`ci-agg` without `--format`).
pub fn ndjson(records: &[Record]) -> crate::error::Result<Vec<u8>> {
    let mut buf = Vec::with_capacity(records.len() * 64);
    for rec in records {
        serde_json::to_writer(&mut buf, rec).map_err(|e| Error::Msg(format!("internal error: {e}")))?;
        buf.push(b'\n');
    }
    Ok(buf)
}

/// TSV or CSV: a header line, then one line per row.
fn separated(headers: &[String], grid: &[Vec<Cell>], sep: &str, field: fn(&str) -> String) -> String {
    let mut out = String::new();
    let line = |cells: Vec<String>, out: &mut String| {
        out.push_str(&cells.join(sep));
        out.push('\n');
    };
    line(headers.iter().map(|h| field(h)).collect(), &mut out);
    for row in grid {
        line(row.iter().map(|c| c.as_ref().map_or(String::new(), |(s, _)| field(s))).collect(), &mut out);
    }
    out
}

/// Each column's width (its widest cell or header) and whether it holds
/// numbers (right-aligned).
fn measure(headers: &[String], grid: &[Vec<Cell>]) -> (Vec<usize>, Vec<bool>) {
    let widths = headers
        .iter()
        .enumerate()
        .map(|(i, h)| {
            grid.iter().filter_map(|r| r[i].as_ref()).map(|(s, _)| text_width(s)).fold(text_width(h), usize::max)
        })
        .collect();
    let numeric = (0..headers.len())
        .map(|i| {
            let kinds: Vec<u8> = grid.iter().filter_map(|r| r[i].as_ref()).map(|c| c.1).collect();
            kinds.contains(&NUMBER) && kinds.iter().all(|&k| k == NUMBER || k == NULL)
        })
        .collect();
    (widths, numeric)
}

/// `s` padded to `width` columns, on the left when `right`.
fn pad(s: &str, width: usize, right: bool) -> String {
    let fill = " ".repeat(width.saturating_sub(text_width(s)));
    if right {
        fill + s
    } else {
        format!("{s}{fill}")
    }
}

/// `s` cut to at most `width` columns, ending in `…` when cut.
pub fn clip(s: &str, width: usize) -> Cow<'_, str> {
    if text_width(s) <= width {
        return Cow::Borrowed(s);
    }
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w + 1 > width {
            break;
        }
        used += w;
        out.push(c);
    }
    if width > 0 {
        out.push('…');
    }
    Cow::Owned(out)
}

/// The order columns are left out in: the `expendable` ones as listed,
/// then the others from the right; never the first column.
fn drop_order(headers: &[String], expendable: &[String]) -> Vec<usize> {
    let named = expendable.iter().filter_map(|e| headers.iter().position(|h| h == e)).filter(|&i| i > 0);
    let first: Vec<usize> = named.collect();
    let rest = (1..headers.len()).rev().filter(|i| !first.contains(i));
    first.iter().copied().chain(rest).collect()
}

/// The narrowest a text column is abbreviated to before columns are left out.
const MIN_TEXT_WIDTH: usize = 12;

/// Fits columns of `widths` into `limit` terminal columns (two spaces
/// between columns): with every text column abbreviated to at most
/// [`MIN_TEXT_WIDTH`], columns are left out in `order` ([`drop_order`])
/// until the rest fit; the room left goes back to the abbreviated columns,
/// those that need least first. Returns the columns kept.
fn fit_columns(widths: &mut [usize], numeric: &[bool], limit: usize, order: &[usize]) -> Vec<usize> {
    let natural = widths.to_vec();
    for (w, &num) in widths.iter_mut().zip(numeric) {
        if !num {
            *w = (*w).min(MIN_TEXT_WIDTH);
        }
    }
    let total = |shown: &[usize], widths: &[usize]| {
        shown.iter().map(|&i| widths[i]).sum::<usize>() + 2 * shown.len().saturating_sub(1)
    };
    let mut shown: Vec<usize> = (0..widths.len()).collect();
    for out in order {
        if total(&shown, widths) <= limit {
            break;
        }
        shown.retain(|i| i != out);
    }
    let mut room = limit.saturating_sub(total(&shown, widths));
    let mut short: Vec<usize> = shown.clone();
    short.sort_by_key(|&i| natural[i] - widths[i]);
    for i in short {
        let more = (natural[i] - widths[i]).min(room);
        widths[i] += more;
        room -= more;
    }
    shown
}

/// Space-aligned columns, numbers right-aligned, fitting a width when given
/// (with the order columns are left out in: [`fit_columns`]; a line still
/// too wide is cut); with the headers of the columns left out.
fn aligned(headers: &[String], grid: &[Vec<Cell>], fit: Option<(usize, Vec<usize>)>) -> (String, Vec<String>) {
    let (mut widths, numeric) = measure(headers, grid);
    let limit = fit.as_ref().map(|(w, _)| *w);
    let shown = match &fit {
        Some((limit, order)) => fit_columns(&mut widths, &numeric, *limit, order),
        None => (0..headers.len()).collect(),
    };
    let dropped = (0..headers.len()).filter(|i| !shown.contains(i)).map(|i| headers[i].clone()).collect();
    let mut out = String::new();
    let mut line = |cells: Vec<&str>| {
        let text: Vec<String> = shown.iter().map(|&i| pad(&clip(cells[i], widths[i]), widths[i], numeric[i])).collect();
        let text = text.join("  ");
        out.push_str(&clip(text.trim_end(), limit.unwrap_or(usize::MAX)));
        out.push('\n');
    };
    line(headers.iter().map(String::as_str).collect());
    for row in grid {
        line(row.iter().map(|c| c.as_ref().map_or("", |(s, _)| s.as_str())).collect());
    }
    (out, dropped)
}

/// A Markdown table: a header row, the alignment row (`--:` for numbers),
/// one row per record, cells padded to line up in the source too.
fn markdown(headers: &[String], grid: &[Vec<Cell>]) -> String {
    let (widths, numeric) = measure(headers, grid);
    let widths: Vec<usize> = widths.into_iter().map(|w| w.max(3)).collect();
    let mut out = String::new();
    let mut line = |cells: Vec<String>| {
        out.push_str("| ");
        out.push_str(&cells.join(" | "));
        out.push_str(" |\n");
    };
    line(headers.iter().enumerate().map(|(i, h)| pad(h, widths[i], numeric[i])).collect());
    line(
        widths
            .iter()
            .zip(&numeric)
            .map(|(&w, &num)| if num { format!("{}:", "-".repeat(w - 1)) } else { "-".repeat(w) })
            .collect(),
    );
    for row in grid {
        let cells = row.iter().enumerate();
        line(cells.map(|(i, c)| pad(c.as_ref().map_or("", |(s, _)| s.as_str()), widths[i], numeric[i])).collect());
    }
    out
}

#[cfg(test)]
mod tests;
