//! What ci-agg prints of its rows once they are sorted: `--per-period`
//! (a `--tokens` report's models folded into one record per period),
//! `--top` and `--last` (which rows), `--reverse`, the total record, and
//! the columns of an empty result; the writer column a table for people
//! shows when one report mixes writers; the capped path lists of
//! `--sessions` records.

use serde_json::{Map, Value};

use super::field::KeyVal;
use super::groups::{key_record, total_record};
use super::query::{Flags, Layout, Preset, Query};

/// A printed record.
pub type Record = Map<String, Value>;

/// The columns of `--tools` records (an empty result's header).
const TOOL_COLUMNS: [&str; 8] = ["calls", "ok", "errors", "unfinished", "success_rate", "p50_ms", "p95_ms", "max_ms"];

/// Which of the sorted rows are printed, and in which order.
#[derive(Debug, Clone, Copy, Default)]
pub struct Selection {
    /// `--top N`: the first N records, or the newest N when the rows are in
    /// time order.
    pub top: Option<usize>,
    /// `--last N`: the records of the newest N time buckets.
    pub last: Option<usize>,
    /// `--reverse`: the records kept, printed in the opposite order.
    pub reverse: bool,
    /// Whether the rows are in time order (a time key, `--sort auto`).
    pub time_order: bool,
}

impl Selection {
    /// Why `q` cannot be selected so: `--last` needs a time key.
    pub fn check(&self, q: &Query) -> Result<(), String> {
        self.time_key(q).map(|_| ())
    }

    /// The time key `--last` counts buckets of (`None` without `--last`).
    fn time_key<'q>(&self, q: &'q Query) -> Result<Option<&'q str>, String> {
        if self.last.is_none() {
            return Ok(None);
        }
        match q.keys.iter().find(|k| k.is_time()) {
            Some(k) => Ok(Some(k.name())),
            None => {
                Err("--last N keeps the newest N time buckets: it needs a time key (--by hour, day, week or month)"
                    .into())
            }
        }
    }

    /// Keeps and orders `records` as asked; returns how many there were
    /// before.
    pub fn apply(&self, q: &Query, records: &mut Vec<Record>) -> Result<usize, String> {
        let all = records.len();
        if let (Some(n), Some(time)) = (self.last, self.time_key(q)?) {
            let mut buckets: Vec<&str> = records.iter().filter_map(|r| r.get(time)?.as_str()).collect();
            buckets.sort_unstable();
            buckets.dedup();
            let newest: Vec<String> = buckets.iter().rev().take(n).map(|s| (*s).to_owned()).collect();
            records.retain(|r| r.get(time).and_then(Value::as_str).is_some_and(|b| newest.iter().any(|x| x == b)));
        }
        if let Some(n) = self.top {
            if self.time_order {
                records.drain(..records.len().saturating_sub(n));
            } else {
                records.truncate(n);
            }
        }
        if self.reverse {
            records.reverse();
        }
        Ok(all)
    }
}

/// Why `--per-period` does not fit `q`: it folds the models of `--tokens`.
pub fn check_per_period(q: &Query) -> Result<(), String> {
    if q.preset != Preset::Tokens {
        return Err("--per-period folds the models of a --tokens report: use it with --tokens".into());
    }
    Ok(())
}

/// `--per-period`: the records of a `--tokens` query, one per value of its
/// `--by` keys (in the order of their first record), with the models of
/// the group listed (`models`, in record order) and the counts, tokens and
/// cost summed exactly (as the total row sums them).
pub fn per_period(q: &Query, records: Vec<Record>) -> Result<Vec<Record>, String> {
    check_per_period(q)?;
    let by = q.keys.len().saturating_sub(1);
    let mut names: Vec<&str> = q.keys[..by].iter().map(|k| k.name()).collect();
    if q.keys[..by].iter().any(|k| k.is_time()) {
        names.push("tz");
    }
    // A key the records no longer have (a writer column dropped) is no key.
    names.retain(|n| records.iter().any(|r| r.contains_key(*n)));
    let key_of =
        |r: &Record| -> Vec<Value> { names.iter().map(|n| r.get(*n).cloned().unwrap_or(Value::Null)).collect() };
    let mut groups: Vec<(Vec<Value>, Vec<Record>)> = vec![];
    for r in records {
        let key = key_of(&r);
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, members)) => members.push(r),
            None => groups.push((key, vec![r])),
        }
    }
    Ok(groups
        .into_iter()
        .map(|(key, members)| {
            let mut rec: Record = names.iter().map(|n| (*n).to_owned()).zip(key).collect();
            let models: Vec<Value> =
                members.iter().filter_map(|m| m.get("model").filter(|v| v.is_string()).cloned()).collect();
            rec.insert("models".into(), Value::Array(models));
            let sums = total_record(q, &members).unwrap_or_default();
            rec.extend(sums.into_iter().skip(1));
            rec
        })
        .collect())
}

/// The total record of the records shown: the first key column the records
/// have reads `total`, or `total (N of M)` when `--top`/`--last` left rows
/// out (it sums only the rows shown). `None` when there is nothing to total
/// ([`total_record`]), or no key column to label it.
pub fn total(q: &Query, shown: &[Record], all: usize) -> Option<Record> {
    let label = q.keys.iter().map(|k| k.name()).find(|n| shown.iter().any(|r| r.contains_key(*n)))?;
    let mut sums = total_record(q, shown)?;
    sums.shift_remove(q.keys.first()?.name());
    let text = if shown.len() < all { format!("total ({} of {all})", shown.len()) } else { "total".into() };
    let mut rec = Record::new();
    rec.insert(label.to_owned(), Value::String(text));
    rec.extend(sums);
    Some(rec)
}

/// The key a table for people adds to a query whose keys do not name it
/// ([`wants_writer`]); the column is shown only when the rows mix writers
/// ([`drop_single_writer`]).
pub const WRITER: &str = "writer";

/// Whether a table of the query `flags` describe gets the [`WRITER`] key: `--tokens`, `--tools`
/// or a `--by` grouping that does not name it (not `--sessions`, not the one
/// record of a grouping without keys).
pub fn wants_writer(flags: &Flags) -> bool {
    let named = flags.by.iter().any(|k| k == WRITER);
    let preset = |p: Preset| flags.preset == p;
    !named && (preset(Preset::Tokens) || preset(Preset::Tools) || (preset(Preset::Group) && !flags.by.is_empty()))
}

/// Drops the [`WRITER`] column when every record has the same writer: the
/// rows are then those of the query without it.
pub fn drop_single_writer(records: &mut [Record]) {
    let first = records.first().and_then(|r| r.get(WRITER)).cloned();
    if records.iter().all(|r| r.get(WRITER) == first.as_ref()) {
        for r in records {
            r.shift_remove(WRITER);
        }
    }
}

/// A record naming the columns `q`'s records have (values null), for the
/// header of an empty result; `None` for `--sessions` (its default columns
/// are named).
pub fn template(q: &Query, per_period: bool) -> Option<Record> {
    if q.preset == Preset::Sessions {
        return None;
    }
    let keys = if per_period { &q.keys[..q.keys.len().saturating_sub(1)] } else { &q.keys[..] };
    let mut rec = key_record(q, &vec![KeyVal::Null; keys.len()]);
    if per_period {
        rec.insert("models".into(), Value::Null);
    }
    if q.preset == Preset::Tools {
        rec.extend(TOOL_COLUMNS.iter().map(|c| ((*c).to_owned(), Value::Null)));
        return Some(rec);
    }
    rec.insert(q.count_name.to_owned(), Value::Null);
    for m in &q.measures {
        match &m.layout {
            Layout::Flat { name, .. } => {
                rec.insert((*name).to_owned(), Value::Null);
            }
            Layout::Nested => {
                let outs: Record = m.outs.iter().map(|o| (o.name().to_owned(), Value::Null)).collect();
                rec.insert(m.field.name().to_owned(), Value::Object(outs));
            }
        }
    }
    Some(rec)
}

/// The lists of a `--sessions` record that [`cap_lists`] bounds: a session
/// can touch thousands of files.
pub const CAPPED_LISTS: [&str; 2] = ["files_read", "files_edited"];

/// The most items [`cap_lists`] keeps of a list (`ci-agg --full` keeps all).
pub const LIST_CAP: usize = 20;

/// Cuts each of `keys` in `records` to its first `cap` items, followed by a
/// `KEY_more` member counting the items left out (only when some were), so
/// that a record stays small and says what it does not show.
pub fn cap_lists(records: &mut [Record], keys: &[&str], cap: usize) {
    for r in records {
        for key in keys {
            let Some(Value::Array(items)) = r.get_mut(*key) else { continue };
            if items.len() <= cap {
                continue;
            }
            let more = items.len() - cap;
            items.truncate(cap);
            let at = r.keys().position(|k| k == key).unwrap_or(r.len());
            r.shift_insert(at + 1, format!("{key}_more"), Value::from(more));
        }
    }
}
