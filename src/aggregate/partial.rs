//! The `--partial` stream and `--merge`.
//!
//! A partial stream is NDJSON: a header naming the query, then the state of
//! every group (or tool group, or session), each line tagged by `kind`:
//!
//! ```text
//! {"kind":"header","format":"ci-agg-partial","version":1,"query":{"preset":"group","by":["event"],"measures":[],"tz":"UTC"}}
//! {"kind":"group","key":["tool:pre"],"count":10,"stats":[]}
//! {"kind":"group","key":["llm:response"],"count":8,"stats":[{"n":8,"sum":"0.0861","min":"0.0007","max":"0.0311","q":{"v":[…]}}]}
//! {"kind":"tools","key":["bash"],"calls":5,"ok":4,"errors":1,"unfinished":0,"latency":{…}}
//! {"kind":"session","session":"a7c3…","project":"-home-user-my-api",…}
//! {"kind":"response","message":"msg_01…\u0000req_01…","key":["2025-09-03","claude-sonnet-4"],"usage":[4,512,0,1200,null],"best":[1716.0,"…/s.jsonl",12]}
//! {"kind":"call","id":"toolu_01…","session":"b000…","call":{"tool":"Bash","key":["b000…"],"key_from_pre":true,"pre":"2026-05-01T10:00:03Z","end":"2026-05-01T10:00:04Z","failed":false,"duration_ms":null,"first":["…/s.jsonl",3]}}
//! {"kind":"end","session":"b000…","at":"2026-05-02T09:00:09Z"}
//! {"kind":"skipped","bad_lines":4,"unfinished_lines":1}
//! ```
//!
//! A `skipped` line (written after the header, only when the run skipped
//! anything) carries the run's counts of bad lines and held-back unfinished
//! last lines: the partial run reported each line on its own stderr, and
//! `--merge` adds the counts up into its summary line (and `--strict` fails on
//! them), so the merged answer still says what it did not count.
//!
//! Exact numbers travel as decimal strings, percentile state as the values
//! themselves (up to [`super::stat::EXACT_MAX`]) or t-digest centroids
//! `[[mean, weight], …]`, distinct counts as the values.
//!
//! Several processes may write into one pipe (`xargs -P`): every write is a
//! batch of whole lines of at most [`PIPE_BUF`] bytes, which the kernel never
//! interleaves with another writer's, and a group's state is split over
//! several lines when it would be longer (each line is a state of its own;
//! merging them gives the whole back). `--merge` accepts the concatenation of
//! any number of such streams, in any order and interleaving of whole lines,
//! provided all headers name the same query; a line that is not a partial
//! line is an error (exit 2), since the answer would be wrong without it.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::output::Output;

use super::calls::ToolGroup;
use super::copied_calls::WireHeld;
use super::cost::Tally;
use super::field::KeyVal;
use super::groups::Group;
use super::query::{Query, QuerySpec};
use super::responses::WireResponse;
use super::session::Summary;
use super::stat::Stat;
use super::Answer;

/// Format name in the header.
pub const FORMAT: &str = "ci-agg-partial";
/// Format version in the header.
pub const VERSION: u32 = 1;
/// Writes of at most this many bytes to a pipe are atomic (Linux; POSIX
/// guarantees 512).
#[cfg(target_os = "linux")]
pub const PIPE_BUF: usize = 4096;
/// Writes of at most this many bytes to a pipe are atomic (POSIX minimum).
#[cfg(not(target_os = "linux"))]
pub const PIPE_BUF: usize = 512;

/// Percentile values / centroids / distinct keys per line piece.
const PER_PIECE: usize = 64;

/// One line of a partial stream: `{"kind":NAME,…its fields}` on the wire
/// ([`Line::to_bytes`], [`Line::parse`]).
///
/// serde's own internally tagged form (`#[serde(tag = "kind")]`) buffers
/// every value first, and with serde_json's `arbitrary_precision` (numbers
/// kept as written, see `crate::json::dom`) a buffered number no longer
/// reads back as a number; so the derive is serde's external form and the
/// tag is moved in and out here.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Line {
    /// Names the query; one per producing process.
    Header {
        /// [`FORMAT`].
        format: String,
        /// [`VERSION`].
        version: u32,
        /// The query.
        query: QuerySpec,
    },
    /// A `--by`/`--tokens` group.
    Group {
        /// Key values, in key order.
        key: Vec<Value>,
        /// Records.
        count: u64,
        /// One metric state per metric column.
        stats: Vec<Value>,
        /// Where the group's costs came from (absent: nothing noted).
        #[serde(default, skip_serializing_if = "Tally::is_empty")]
        cost: Tally,
    },
    /// A `--tools` group.
    Tools {
        /// Key values (the `--by` keys, then the tool).
        key: Vec<Value>,
        /// Distinct calls.
        calls: u64,
        /// Calls that ended well.
        ok: u64,
        /// Failed calls.
        errors: u64,
        /// Calls with no end.
        unfinished: u64,
        /// Latency state.
        latency: Value,
    },
    /// A `--tools` call of a writer that copies history, held by its id
    /// so that shards holding copies count it once ([`super::copied_calls`]).
    Call(Box<WireHeld>),
    /// A `--tools` session's end (the latest time of its responses), which
    /// decides who owns a held call.
    End {
        /// The session.
        session: String,
        /// Its end (RFC 3339).
        at: String,
    },
    /// A `--sessions` session.
    Session(Box<Summary>),
    /// A `--tokens` response written more than once, held by its identity
    /// so that shards that both saw it count it once ([`super::responses`]).
    Response(Box<WireResponse>),
    /// What the partial run skipped (reported on its stderr).
    Skipped {
        /// Bad lines reported and skipped.
        bad_lines: u64,
        /// Unfinished last lines held back.
        unfinished_lines: u64,
    },
}

impl Line {
    /// The wire form, without its newline.
    pub fn to_bytes(&self) -> serde_json::Result<Vec<u8>> {
        let Value::Object(outer) = serde_json::to_value(self)? else {
            return Err(serde::ser::Error::custom("a partial line is an object"));
        };
        let mut wire = serde_json::Map::new();
        for (kind, fields) in outer {
            wire.insert("kind".into(), Value::String(kind));
            if let Value::Object(fields) = fields {
                wire.extend(fields);
            }
        }
        serde_json::to_vec(&wire)
    }

    /// Reads the wire form.
    pub fn parse(bytes: &[u8]) -> serde_json::Result<Line> {
        let mut fields: serde_json::Map<String, Value> = serde_json::from_slice(bytes)?;
        let kind = match fields.remove("kind") {
            Some(Value::String(kind)) => kind,
            Some(_) => return Err(serde::de::Error::custom("`kind` is not a string")),
            None => return Err(serde::de::Error::missing_field("kind")),
        };
        let mut outer = serde_json::Map::new();
        outer.insert(kind, Value::Object(fields));
        serde_json::from_value(Value::Object(outer))
    }
}

fn keys_json(key: &[KeyVal]) -> Vec<Value> {
    key.iter().map(KeyVal::to_json).collect()
}

/// The lines of a partial stream for `answer`, header first, then the
/// counts of what was skipped (`(bad lines, unfinished lines)`, no line when
/// both are 0).
pub fn encode(q: &Query, answer: Answer, skipped: (u64, u64)) -> Vec<Line> {
    let mut lines = vec![Line::Header { format: FORMAT.into(), version: VERSION, query: q.spec.clone() }];
    if skipped != (0, 0) {
        lines.push(Line::Skipped { bad_lines: skipped.0, unfinished_lines: skipped.1 });
    }
    match answer {
        Answer::Groups(groups) => {
            lines.extend(groups.responses.to_wire().into_iter().map(|r| Line::Response(Box::new(r))));
            let mut all: Vec<_> = groups.map.into_iter().collect();
            all.sort_by(|a, b| a.0.cmp(&b.0));
            for (key, g) in all {
                let pieces: Vec<Vec<Stat>> = g.stats.iter().map(|s| s.split(PER_PIECE)).collect();
                let most = pieces.iter().map(Vec::len).max().unwrap_or(1).max(1);
                for i in 0..most {
                    let stats =
                        pieces.iter().map(|p| p.get(i).map_or_else(|| Stat::default().to_wire(), Stat::to_wire));
                    lines.push(Line::Group {
                        key: keys_json(&key),
                        count: if i == 0 { g.count } else { 0 },
                        stats: stats.collect(),
                        cost: if i == 0 { g.cost.clone() } else { Tally::default() },
                    });
                }
            }
        }
        Answer::Tools(tools) => {
            let mut all: Vec<_> = tools.map.into_iter().collect();
            all.sort_by(|a, b| a.0.cmp(&b.0));
            for (key, g) in all {
                for (i, lat) in g.latency.split(PER_PIECE).into_iter().enumerate() {
                    let first = i == 0;
                    lines.push(Line::Tools {
                        key: keys_json(&key),
                        calls: if first { g.calls } else { 0 },
                        ok: if first { g.ok } else { 0 },
                        errors: if first { g.errors } else { 0 },
                        unfinished: if first { g.unfinished } else { 0 },
                        latency: lat.to_wire(),
                    });
                }
            }
            let (held, ends) = tools.held.to_wire();
            lines.extend(held.into_iter().map(|h| Line::Call(Box::new(h))));
            lines.extend(ends.into_iter().map(|(session, at)| Line::End { session, at }));
        }
        Answer::Sessions(sessions) => {
            // Responses held by identity are settled within the shard.
            let mut all: Vec<Summary> = sessions.into_values().collect();
            super::session::settle(&mut all);
            for s in all {
                lines.extend(s.split(PIPE_BUF - 64).into_iter().map(|s| Line::Session(Box::new(s))));
            }
        }
    }
    lines
}

/// Writes lines to stdout in batches of whole lines of at most [`PIPE_BUF`]
/// bytes, one `write` each.
pub fn write_lines(lines: &[Line], out: &mut Output) -> Result<()> {
    // Whole batches only, even when a signal's safety net exits (src/signal.rs).
    let mut out = out.locked();
    let mut batch: Vec<u8> = Vec::with_capacity(PIPE_BUF);
    for line in lines {
        let mut bytes = line.to_bytes().map_err(|e| Error::Msg(format!("internal error: {e}")))?;
        bytes.push(b'\n');
        if !batch.is_empty() && batch.len() + bytes.len() > PIPE_BUF {
            out.write(&batch)?;
            out.flush()?;
            batch.clear();
        }
        batch.extend_from_slice(&bytes);
    }
    if !batch.is_empty() {
        out.write(&batch)?;
        out.flush()?;
    }
    Ok(())
}

/// Refuses counts whose sum a `u64` cannot hold: no real run gets there, so
/// the streams are damaged, and a saturated count would be a wrong answer.
fn no_overflow(pairs: &[(u64, u64)]) -> std::result::Result<(), String> {
    match pairs.iter().all(|(a, b)| a.checked_add(*b).is_some()) {
        true => Ok(()),
        false => Err("merged counts overflow a 64-bit integer".into()),
    }
}

/// Combines partial lines into one answer.
#[derive(Debug, Default)]
pub struct Merger {
    query: Option<Query>,
    answer: Option<Answer>,
    skipped: (u64, u64),
    /// A header named another query or format: no merge can be right.
    incompatible: bool,
}

impl Merger {
    /// A merger that has seen nothing.
    pub fn new() -> Merger {
        Merger::default()
    }

    /// Reads one line; `Err` says why it is not a usable partial line. A
    /// header for a different query is an [`Error::Usage`]-worthy mismatch,
    /// reported the same way.
    pub fn line(&mut self, bytes: &[u8]) -> std::result::Result<(), String> {
        let line = Line::parse(bytes).map_err(|e| format!("not a ci-agg partial line: {e}"))?;
        if let Line::Skipped { bad_lines, unfinished_lines } = line {
            if self.query.is_none() {
                return Err("partial state before its header line".into());
            }
            self.skipped.0 = self.skipped.0.saturating_add(bad_lines);
            self.skipped.1 = self.skipped.1.saturating_add(unfinished_lines);
            return Ok(());
        }
        if let Line::Header { format, version, query } = line {
            if format != FORMAT || version != VERSION {
                self.incompatible = true;
                return Err(format!("partial format {format:?} version {version} is not {FORMAT:?} version {VERSION}"));
            }
            return match &self.query {
                Some(q) if q.spec != query => Err({
                    self.incompatible = true;
                    format!(
                        "partial streams of different queries cannot be merged: {} vs {}",
                        serde_json::to_string(&q.spec).unwrap_or_default(),
                        serde_json::to_string(&query).unwrap_or_default()
                    )
                }),
                Some(_) => Ok(()),
                None => {
                    // Buckets were labelled by the partial runs; the zone is only
                    // named, but it must be one (a header is not trusted blindly).
                    crate::time::parse_tz(&query.tz).map_err(|e| format!("header: {e}"))?;
                    let q = Query::from_spec(query, crate::time::TimeZone::UTC)?;
                    self.answer = Some(Answer::new(&q));
                    self.query = Some(q);
                    Ok(())
                }
            };
        }
        let (Some(q), Some(answer)) = (&self.query, &mut self.answer) else {
            return Err("partial state before its header line".into());
        };
        let key_of = |key: &[Value], n: usize| -> std::result::Result<Vec<KeyVal>, String> {
            if key.len() != n {
                return Err(format!("key has {} values, the query has {n} keys", key.len()));
            }
            Ok(key.iter().map(KeyVal::from_json).collect())
        };
        match (line, answer) {
            (Line::Group { key, count, stats, cost }, Answer::Groups(groups)) => {
                if stats.len() != q.measures.len() {
                    return Err(format!("{} metric states, the query has {}", stats.len(), q.measures.len()));
                }
                let stats = stats.iter().map(Stat::from_wire).collect::<std::result::Result<Vec<_>, _>>()?;
                let key = key_of(&key, q.keys.len())?;
                if let Some(mine) = groups.map.get(&key) {
                    no_overflow(&[(mine.count, count)])?;
                    for (a, b) in mine.stats.iter().zip(&stats) {
                        no_overflow(&[(a.n, b.n), (a.not_numbers, b.not_numbers)])?;
                    }
                }
                groups.merge_group(key, Group { count, stats, cost });
                Ok(())
            }
            (Line::Tools { key, calls, ok, errors, unfinished, latency }, Answer::Tools(tools)) => {
                let key = key_of(&key, q.keys.len())?;
                let latency = Stat::from_wire(&latency)?;
                if let Some(m) = tools.map.get(&key) {
                    no_overflow(&[
                        (m.calls, calls),
                        (m.ok, ok),
                        (m.errors, errors),
                        (m.unfinished, unfinished),
                        (m.latency.n, latency.n),
                    ])?;
                }
                tools.merge_group(key, ToolGroup { calls, ok, errors, unfinished, latency });
                Ok(())
            }
            (Line::Call(h), Answer::Tools(tools)) => tools.held.add_wire(*h, q.keys.len()),
            (Line::End { session, at }, Answer::Tools(tools)) => tools.held.add_end(&session, &at),
            (Line::Session(s), a @ Answer::Sessions(_)) => {
                a.add_session(*s);
                Ok(())
            }
            (Line::Response(r), Answer::Groups(groups)) => groups.responses.add_wire(*r, q.keys.len()),
            _ => Err(format!("a line of another kind than the header's query ({})", q.spec.preset)),
        }
    }

    /// Whether streams of different queries (or formats) were given: then
    /// nothing is printed (the answer would mix them).
    pub fn incompatible(&self) -> bool {
        self.incompatible
    }

    /// Bad lines and unfinished last lines the partial runs skipped.
    pub fn skipped(&self) -> (u64, u64) {
        self.skipped
    }

    /// The query and the merged answer; `None` when no header was read.
    pub fn finish(self) -> Option<(Query, Answer)> {
        Some((self.query?, self.answer?))
    }
}

#[cfg(test)]
mod tests;
