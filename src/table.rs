//! Records as a table for people (`table`), or for spreadsheets and `cut`
//! (`tsv`, `csv`).
//!
//! Columns are the union of the records' keys in first-seen order, nested
//! objects flattened with dotted names (`tokens.input`, `events.tool:pre`),
//! so records of different shapes line up; a record without a column leaves
//! its cell empty.
//!
//! - `table`: a header line and space-aligned columns (widths in terminal
//!   columns: wide CJK characters count two), numbers right-aligned and
//!   fractions rounded to six significant digits ([`rounded`]); `null` shown
//!   as `null`; control characters shown escaped (`\n`), so one record is one
//!   line on a terminal.
//! - `tsv`: tab-separated with a header, `\t`, `\n`, `\r` and `\\` escaped as
//!   jq's `@tsv` does; `null` is an empty cell.
//! - `csv`: RFC 4180 (comma-separated, fields with `,`, `"` or line breaks
//!   quoted, quotes doubled), with a header; `null` is an empty cell.
//!
//! Arrays are shown as compact JSON in every format.

use serde_json::{Map, Value};

/// A tabular format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableFormat {
    /// Aligned columns.
    Table,
    /// Tab-separated values.
    Tsv,
    /// Comma-separated values.
    Csv,
}

fn flatten(prefix: &str, v: &Value, out: &mut Vec<(String, Value)>) {
    match v {
        Value::Object(m) if !m.is_empty() => {
            for (k, v) in m {
                let name = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
                flatten(&name, v, out);
            }
        }
        _ => out.push((prefix.to_owned(), v.clone())),
    }
}

fn cell(v: &Value, format: TableFormat) -> String {
    match v {
        Value::Null if format == TableFormat::Table => "null".into(),
        Value::Null => String::new(),
        Value::String(s) => match format {
            TableFormat::Table => s
                .chars()
                .flat_map(|c| if c.is_control() { c.escape_default().collect::<Vec<_>>() } else { vec![c] })
                .collect(),
            TableFormat::Tsv => s.replace('\\', "\\\\").replace('\t', "\\t").replace('\n', "\\n").replace('\r', "\\r"),
            TableFormat::Csv => s.clone(),
        },
        Value::Number(n) if format == TableFormat::Table => {
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
fn rounded(f: f64) -> String {
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

/// Renders `records` in `format`; nothing at all (not even a header) for no records.
pub fn render(records: &[Map<String, Value>], format: TableFormat) -> Vec<u8> {
    if records.is_empty() {
        return vec![];
    }
    let mut columns: Vec<String> = vec![];
    let mut rows: Vec<Vec<(String, Value)>> = Vec::with_capacity(records.len());
    for rec in records {
        let mut flat = vec![];
        for (k, v) in rec {
            flatten(k, v, &mut flat);
        }
        for (name, _) in &flat {
            if !columns.contains(name) {
                columns.push(name.clone());
            }
        }
        rows.push(flat);
    }
    let grid: Vec<Vec<Option<(String, u8)>>> = rows
        .iter()
        .map(|flat| {
            columns.iter().map(|c| flat.iter().find(|(n, _)| n == c).map(|(_, v)| (cell(v, format), kind(v)))).collect()
        })
        .collect();
    let mut out = String::new();
    match format {
        TableFormat::Tsv | TableFormat::Csv => {
            let sep = if format == TableFormat::Tsv { "\t" } else { "," };
            let field = |s: &str| {
                if format == TableFormat::Csv {
                    csv_field(s)
                } else {
                    s.to_owned()
                }
            };
            out.push_str(&columns.iter().map(|c| field(c)).collect::<Vec<_>>().join(sep));
            out.push('\n');
            for row in &grid {
                let cells: Vec<String> =
                    row.iter().map(|c| c.as_ref().map_or(String::new(), |(s, _)| field(s))).collect();
                out.push_str(&cells.join(sep));
                out.push('\n');
            }
        }
        TableFormat::Table => {
            // Terminal columns: East Asian wide characters take two.
            let width = |s: &str| unicode_width::UnicodeWidthStr::width(s);
            let widths: Vec<usize> = columns
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    grid.iter().filter_map(|r| r[i].as_ref()).map(|(s, _)| width(s)).fold(width(c), usize::max)
                })
                .collect();
            let numeric: Vec<bool> = (0..columns.len())
                .map(|i| {
                    let kinds: Vec<u8> = grid.iter().filter_map(|r| r[i].as_ref()).map(|c| c.1).collect();
                    kinds.contains(&NUMBER) && kinds.iter().all(|&k| k == NUMBER || k == NULL)
                })
                .collect();
            let line = |cells: Vec<&str>, out: &mut String| {
                let mut text = String::new();
                for (i, s) in cells.iter().enumerate() {
                    if i > 0 {
                        text.push_str("  ");
                    }
                    let pad = " ".repeat(widths[i].saturating_sub(width(s)));
                    if numeric[i] {
                        text.push_str(&pad);
                        text.push_str(s);
                    } else {
                        text.push_str(s);
                        text.push_str(&pad);
                    }
                }
                out.push_str(text.trim_end());
                out.push('\n');
            };
            line(columns.iter().map(String::as_str).collect(), &mut out);
            for row in &grid {
                line(row.iter().map(|c| c.as_ref().map_or("", |(s, _)| s.as_str())).collect(), &mut out);
            }
        }
    }
    out.into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recs(v: Value) -> Vec<Map<String, Value>> {
        v.as_array().unwrap().iter().map(|r| r.as_object().unwrap().clone()).collect()
    }

    #[test]
    fn fractions_are_rounded_for_people_only() {
        assert_eq!(rounded(3622.1111111111113), "3622.11");
        assert_eq!(rounded(0.00310625), "0.00310625");
        assert_eq!(rounded(2.4863724), "2.48637");
        assert_eq!(rounded(1234567.891), "1234568");
        assert_eq!(rounded(-0.5), "-0.5");
        assert_eq!(rounded(99999.95), "99999.9");
        let rows = recs(serde_json::json!([{"k": "a", "mean": 3622.1111111111113, "n": 7}]));
        assert_eq!(String::from_utf8(render(&rows, TableFormat::Table)).unwrap(), "k     mean  n\na  3622.11  7\n");
        assert_eq!(String::from_utf8(render(&rows, TableFormat::Csv)).unwrap(), "k,mean,n\na,3622.1111111111113,7\n");
    }

    #[test]
    fn wide_characters_take_two_columns() {
        let rows = recs(serde_json::json!([{"w": "日本語", "n": 1}, {"w": "abc", "n": 22}]));
        assert_eq!(
            String::from_utf8(render(&rows, TableFormat::Table)).unwrap(),
            "w        n\n日本語   1\nabc     22\n"
        );
    }

    #[test]
    fn aligns_and_flattens() {
        let r = recs(serde_json::json!([
            {"event": "tool:pre", "count": 10, "x": {"sum": 1.5}},
            {"event": "session:start", "count": 7, "x": {"sum": null}},
        ]));
        let t = String::from_utf8(render(&r, TableFormat::Table)).unwrap();
        assert_eq!(t, "event          count  x.sum\ntool:pre          10    1.5\nsession:start      7   null\n");
        let t = String::from_utf8(render(&r, TableFormat::Tsv)).unwrap();
        assert_eq!(t, "event\tcount\tx.sum\ntool:pre\t10\t1.5\nsession:start\t7\t\n");
    }

    #[test]
    fn csv_quotes_and_tsv_escapes() {
        let r = recs(serde_json::json!([{"w": "a,b \"c\"", "n": "x\ty\nz"}]));
        assert_eq!(String::from_utf8(render(&r, TableFormat::Csv)).unwrap(), "w,n\n\"a,b \"\"c\"\"\",\"x\ty\nz\"\n");
        assert_eq!(String::from_utf8(render(&r, TableFormat::Tsv)).unwrap(), "w\tn\na,b \"c\"\tx\\ty\\nz\n");
    }
}
