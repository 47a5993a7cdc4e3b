//! `--format chart`: one number per record as a horizontal bar, for people
//! at a terminal (a month of daily cost at a glance).
//!
//! ```text
//! day (UTC)   model                                          cost_usd
//! 2026-03-02  sonnet-4.5  ███████████████████████████████████   $0.05
//! 2026-03-03  gpt-5.1     ███████▏                                $0.01
//! ```
//!
//! - **What is drawn.** With `--columns A,…,N`: the last column `N` is the
//!   number, the others label the bar. Without: the first of
//!   [`METRICS`] the records have is the number, and the record's columns
//!   before its first number or count (the group keys: `day`, `model`; `tz`
//!   aside) label it; an empty result's header names those of its template.
//! - **Cells** are a table's (`$0.05`, `sonnet-4.5`, `1,234`), labels and
//!   values aligned, the zone once in the first label's header.
//! - **Bars** are Unicode blocks in eighths (`█`, `▏` … `▉`), scaled so the
//!   largest value fills the bar area; a value above zero shows at least
//!   `▏`; zero, a negative number and a missing value none. Coloured on a
//!   terminal without `NO_COLOR` ([`super::table::Fit::color`]).
//! - **Width.** A line fits the table's width ([`super::human::width`]; 80
//!   when none is set, as a chart needs one): the bar area is what the
//!   labels and values leave, at least [`MIN_BAR`] columns, labels cut with
//!   `…` to leave it.

use serde_json::Value;

use super::table::{clip, people_cell, pick, text_width, Columns, Fit, Record, Rendered};

/// The numbers drawn without `--columns`, the first the records have:
/// dollars (`--tokens`, `--sessions`, `--blocks`), events (`--by`), calls
/// (`--tools`), bytes (ci-find).
pub const METRICS: [&str; 4] = ["cost_usd", "count", "calls", "bytes"];

/// The fewest columns a bar area takes.
pub const MIN_BAR: usize = 10;

/// Eighths of a block, from one to seven.
const EIGHTHS: [char; 7] = ['▏', '▎', '▍', '▌', '▋', '▊', '▉'];

/// Renders `records` as a bar chart (see the module). An error names a
/// missing column or a chart that has no number to draw.
pub fn render(records: &[Record], columns: &Columns, fit: &Fit) -> Result<Rendered, String> {
    let (labels, metric) = match columns {
        Columns::Named(names) if !names.is_empty() => {
            let (metric, labels) = names.split_last().unwrap_or((&names[0], &[]));
            (labels.to_vec(), metric.clone())
        }
        _ => default_columns(records.first().or(fit.template.as_ref()))?,
    };
    let named: Vec<String> = labels.iter().chain(std::iter::once(&metric)).cloned().collect();
    let rows = pick(records, &Columns::Named(named))?;
    if rows.iter().any(|r| r.get(&metric).is_some_and(|v| !v.is_null() && !v.is_number())) {
        return Err(format!(
            "\"{metric}\" is no number: a chart draws the last column as bars (--columns day,cost_usd)"
        ));
    }
    let width = fit.width.unwrap_or(super::human::DEFAULT_WIDTH);
    let mut headers: Vec<String> = labels.clone();
    // An empty result's zone is its template's (the header names it).
    let zoned = if records.is_empty() { fit.template.as_slice() } else { records };
    if let (Some(first), Some(zone)) = (headers.first_mut(), one_zone(zoned)) {
        first.push_str(&format!(" ({zone})"));
    }
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| labels.iter().map(|l| people_cell(l, r.get(l).unwrap_or(&Value::Null))).collect())
        .collect();
    let values: Vec<(Option<f64>, String)> = rows
        .iter()
        .map(|r| {
            let v = r.get(&metric).unwrap_or(&Value::Null);
            (v.as_f64(), if v.is_null() { String::new() } else { people_cell(&metric, v) })
        })
        .collect();
    // Label columns, each as wide as its widest cell or header.
    let mut widths: Vec<usize> = headers.iter().map(|h| text_width(h)).collect();
    for row in &cells {
        for (w, c) in widths.iter_mut().zip(row) {
            *w = (*w).max(text_width(c));
        }
    }
    let value_w = values.iter().map(|(_, t)| text_width(t)).chain([text_width(&metric)]).max().unwrap_or(0);
    let label_w = widths.iter().sum::<usize>() + 2 * widths.len().saturating_sub(1);
    // The labels give up columns for the bars' least width.
    let room = width.saturating_sub(value_w + 2 * 2 + MIN_BAR);
    let label_w = label_w.min(room);
    let bar_w = width.saturating_sub(label_w + value_w + 4).max(MIN_BAR);
    let label = |texts: &[String]| -> String {
        let joined: Vec<String> = texts.iter().zip(&widths).map(|(t, w)| pad(t, *w)).collect();
        pad(&clip(joined.join("  ").trim_end(), label_w), label_w)
    };
    let max = values.iter().filter_map(|(v, _)| *v).fold(0.0_f64, f64::max);
    let mut out = String::new();
    let head = format!("{}  {}  {:>value_w$}", label(&headers), " ".repeat(bar_w), metric);
    out.push_str(head.trim_end());
    out.push('\n');
    for (texts, (v, text)) in cells.iter().zip(&values) {
        let drawn = bar(v.unwrap_or(0.0), max, bar_w);
        let shown = pad(&drawn, bar_w);
        let shown = if fit.color && !drawn.is_empty() {
            format!("\x1b[36m{drawn}\x1b[0m{}", &shown[drawn.len()..])
        } else {
            shown
        };
        let line = format!("{}  {shown}  {}{text}", label(texts), " ".repeat(value_w.saturating_sub(text_width(text))));
        out.push_str(line.trim_end());
        out.push('\n');
    }
    Ok(Rendered { bytes: out.into_bytes(), dropped: vec![] })
}

/// The labels and the number of a chart without `--columns` (see the module).
fn default_columns(first: Option<&Record>) -> Result<(Vec<String>, String), String> {
    let Some(first) = first else { return Ok((vec![], METRICS[0].to_owned())) };
    let metric = METRICS.iter().find(|m| first.contains_key(**m)).ok_or_else(|| {
        "a chart draws one number per record: name it last in --columns (--columns day,cost_usd)".to_owned()
    })?;
    // The keys come first, then the count (`responses` of --tokens), then numbers.
    let labels = first
        .iter()
        .take_while(|(k, v)| !v.is_number() && !v.is_object() && !METRICS.contains(&k.as_str()) && *k != "responses")
        .map(|(k, _)| k.clone())
        .filter(|k| k != "tz" && k != metric)
        .collect();
    Ok((labels, (*metric).to_owned()))
}

/// The one zone of the records' `tz` column, when they have one.
fn one_zone(records: &[Record]) -> Option<&str> {
    let mut zones = records.iter().filter_map(|r| r.get("tz")?.as_str());
    let first = zones.next()?;
    zones.all(|z| z == first).then_some(first)
}

/// `text` padded with spaces to `width` terminal columns.
fn pad(text: &str, width: usize) -> String {
    format!("{text}{}", " ".repeat(width.saturating_sub(text_width(text))))
}

/// The bar of `v` when `max` fills `width` columns: whole blocks, then an
/// eighth; at least `▏` for a value above zero.
fn bar(v: f64, max: f64, width: usize) -> String {
    if !(v > 0.0 && max > 0.0) {
        return String::new();
    }
    let eighths = ((v / max * (width * 8) as f64).round() as usize).clamp(1, width * 8);
    let mut s = "█".repeat(eighths / 8);
    if let Some(part) = (eighths % 8).checked_sub(1) {
        s.push(EIGHTHS[part]);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_in_eighths() {
        assert_eq!(bar(10.0, 10.0, 4), "████");
        assert_eq!(bar(5.0, 10.0, 4), "██");
        assert_eq!(bar(1.0, 10.0, 4), "▍");
        assert_eq!(bar(0.001, 10.0, 4), "▏");
        assert_eq!(bar(0.0, 10.0, 4), "");
        assert_eq!(bar(-1.0, 10.0, 4), "");
        assert_eq!(bar(f64::NAN, 10.0, 4), "");
    }
}
