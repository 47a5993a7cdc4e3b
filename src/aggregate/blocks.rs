//! `--blocks`: Claude's 5-hour billing windows, as ccusage (`ccusage blocks`)
//! draws them, folded from the `--tokens` records of each response instant.
//!
//! Responses are taken in time order. A block starts at the UTC hour of its
//! first response and ends 5 hours later; the next response opens a new
//! block when it comes more than 5 hours after the block's start or after
//! the block's last response. When the pause since the last response is
//! longer than 5 hours, a gap block spans from the end of that activity
//! (last response + 5 h) to the next response. A block is active when the
//! last response is less than 5 hours ago and its end is still to come
//! (now: [`crate::time::now`], `CI_NOW` in tests); an active block has its
//! elapsed and remaining time, its burn rate (tokens per minute and dollars
//! per hour, from its first to its last response) and its projection to the
//! block's end at that rate.

use jiff::SignedDuration;
use serde_json::{Map, Value};

use crate::output::table::Record;
use crate::time::{self, Timestamp};

use super::cost::Tally;
use super::field::{Field, KeyVal, Num, Usage};
use super::query::Query;
use super::stat::Sum;
use super::{json_num, Answer};

/// The length of a block.
pub const BLOCK: SignedDuration = SignedDuration::from_hours(5);

/// One response as blocks read it (or the responses of one group key, for
/// a writer that writes each response once).
#[derive(Debug, Clone)]
pub struct Entry {
    /// When it was written.
    pub at: Timestamp,
    /// Its model.
    pub model: Option<String>,
    /// Its session, when the query has that key.
    pub session: Option<String>,
    /// How many responses.
    pub responses: u64,
    /// Token counts and cost, in [`Usage::ALL`] order.
    pub usage: [Option<Num>; 5],
    /// Where the cost came from.
    pub cost: Tally,
}

impl Entry {
    /// Its cost in dollars (0 when unpriced).
    pub fn usd(&self) -> f64 {
        self.usage[Usage::Cost as usize].map_or(0.0, Num::to_f64)
    }
}

/// The responses of a `--tokens` answer whose keys include `timestamp`
/// (each held response once, each other group once) without building
/// output records, in no order; with the number of responses without a
/// usable timestamp.
pub fn entries(answer: Answer, q: &Query) -> (Vec<Entry>, u64) {
    let Answer::Groups(groups) = answer else { return (vec![], 0) };
    let at = |f: &dyn Fn(&Field) -> bool| q.keys.iter().position(f);
    let (Some(ts), model, session) = (
        at(&|f| matches!(f, Field::Path(p) if p.as_str() == "timestamp")),
        at(&|f| *f == Field::Model),
        at(&|f| *f == Field::Session),
    ) else {
        return (vec![], 0);
    };
    let text = |key: &[KeyVal], i: Option<usize>| match i.and_then(|i| key.get(i)) {
        Some(KeyVal::Str(s)) => Some(s.clone()),
        _ => None,
    };
    let mut out = vec![];
    let mut untimed = 0;
    let mut add = |key: &[KeyVal], responses: u64, usage: [Option<Num>; 5], cost: &Tally| match text(key, Some(ts))
        .as_deref()
        .and_then(time::parse_timestamp)
    {
        Some(at) => out.push(Entry {
            at,
            model: text(key, model),
            session: text(key, session),
            responses,
            usage,
            cost: cost.clone(),
        }),
        None => untimed += responses,
    };
    for (key, held) in groups.responses.held() {
        add(key, 1, held.usage, &held.cost);
    }
    for (key, g) in &groups.map {
        let mut usage = [None; 5];
        for (m, s) in q.measures.iter().zip(&g.stats) {
            if let (Field::Usage(u), true) = (&m.field, s.n > 0) {
                usage[*u as usize] = Some(s.sum.value());
            }
        }
        add(key, g.count, usage, &g.cost);
    }
    (out, untimed)
}

/// The columns a blocks table shows unless `--columns` says.
pub const TABLE_COLUMNS: [&str; 7] =
    ["start", "status", "models", "responses", "total_tokens", "cost_usd", "remaining"];

/// One block, or the gap between two.
#[derive(Debug, Clone)]
pub struct Block {
    /// The UTC hour of its first response (a gap: the end of the activity before).
    pub start: Timestamp,
    /// `start` + 5 h (a gap: the next response).
    pub end: Timestamp,
    /// Its first and last responses (`None` for a gap).
    pub span: Option<(Timestamp, Timestamp)>,
    /// Its responses (each counted once, as `--tokens` counts them).
    pub responses: u64,
    /// The sums of its entries' figures ([`Usage::ALL`] order).
    sums: [Option<Sum>; 5],
    /// Where its costs came from.
    tally: Tally,
    /// Its models, in the order of their first response.
    pub models: Vec<String>,
}

/// `--token-limit`: a number of tokens, or `max` (the largest total of a
/// finished block).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenLimit {
    /// This many tokens.
    Tokens(u64),
    /// The largest total of the blocks shown that are neither gaps nor active.
    Max,
}

impl TokenLimit {
    /// Parses `max` or a whole number.
    pub fn parse(s: &str) -> Result<TokenLimit, String> {
        match s.trim() {
            "max" => Ok(TokenLimit::Max),
            n => {
                n.parse().map(TokenLimit::Tokens).map_err(|_| format!("expected a number of tokens or max, not {s:?}"))
            }
        }
    }
}

impl Block {
    fn new(start: Timestamp, end: Timestamp) -> Block {
        Block {
            start,
            end,
            span: None,
            responses: 0,
            sums: Default::default(),
            tally: Tally::default(),
            models: vec![],
        }
    }

    /// Adds an entry (the block's latest so far).
    fn add(&mut self, e: &Entry) {
        self.span = Some(self.span.map_or((e.at, e.at), |(first, _)| (first, e.at)));
        self.responses += e.responses;
        for (sum, n) in self.sums.iter_mut().zip(e.usage) {
            if let Some(n) = n {
                sum.get_or_insert_with(Sum::default).add(n);
            }
        }
        self.tally.merge(e.cost.clone());
        if let Some(model) = &e.model {
            if !self.models.contains(model) {
                self.models.push(model.clone());
            }
        }
    }

    /// Whether this is the pause between two blocks.
    pub fn is_gap(&self) -> bool {
        self.span.is_none()
    }

    /// Whether the block is still open at `now`.
    pub fn is_active(&self, now: Timestamp) -> bool {
        self.span.is_some_and(|(_, last)| now.duration_since(last) < BLOCK && now < self.end)
    }

    /// Its four token figures added up.
    pub fn total_tokens(&self) -> u64 {
        self.sums[..4].iter().flatten().map(|s| s.value().to_f64() as u64).sum()
    }

    /// Its cost in dollars (0 when nothing was priced).
    pub fn cost(&self) -> f64 {
        self.sums[4].as_ref().map_or(0.0, |s| s.value().to_f64())
    }

    /// Tokens per minute and dollars per hour from its first to its last
    /// response (`None` when they are at the same instant).
    pub fn burn_rate(&self) -> Option<(f64, f64)> {
        let (first, last) = self.span?;
        let minutes = time::millis_between(first, last) as f64 / 60_000.0;
        (minutes > 0.0).then(|| (self.total_tokens() as f64 / minutes, self.cost() / minutes * 60.0))
    }

    /// Whole minutes from `now` to the block's end.
    pub fn minutes_left(&self, now: Timestamp) -> i64 {
        time::millis_between(now, self.end).max(0) / 60_000
    }

    /// The output record of the block at `now`, with the share of `limit` used.
    pub fn record(&self, now: Timestamp, limit: Option<u64>) -> Record {
        let stamp = |t: Timestamp| Value::String(time::format_timestamp(t));
        let mut rec = Map::new();
        rec.insert("start".into(), stamp(self.start));
        rec.insert("end".into(), stamp(self.end));
        rec.insert("actual_end".into(), self.span.map_or(Value::Null, |(_, last)| stamp(last)));
        let active = self.is_active(now);
        let status = if self.is_gap() {
            "gap"
        } else if active {
            "active"
        } else {
            "complete"
        };
        rec.insert("status".into(), status.into());
        rec.insert("responses".into(), self.responses.into());
        for (sum, u) in self.sums.iter().zip(Usage::ALL) {
            let zero = if u == Usage::Cost && !self.is_gap() { Value::Null } else { 0.into() };
            rec.insert(u.name().into(), sum.as_ref().map_or(zero, |s| json_num(s.value())));
        }
        rec.insert("total_tokens".into(), self.total_tokens().into());
        self.tally.write(&mut rec);
        rec.insert("models".into(), self.models.iter().cloned().map(Value::String).collect());
        let live = if active { self.live(now) } else { vec![] };
        for (name, v) in live_names().into_iter().zip(live.into_iter().chain(std::iter::repeat(Value::Null))) {
            rec.insert(name.into(), v);
        }
        if let Some(limit) = limit {
            rec.insert("token_limit".into(), limit.into());
            let share = |tokens: f64| {
                (limit > 0).then(|| round(tokens / limit as f64 * 100.0, 2)).map_or(Value::Null, f64_value)
            };
            rec.insert(
                "limit_used_percent".into(),
                if self.is_gap() { Value::Null } else { share(self.total_tokens() as f64) },
            );
            let projected = rec.get("projected_tokens").and_then(Value::as_f64);
            rec.insert("limit_projected_percent".into(), projected.map_or(Value::Null, share));
            let status = projected.map(|p| match p {
                p if p > limit as f64 => "exceeds",
                p if p > limit as f64 * 0.8 => "warning",
                _ => "ok",
            });
            rec.insert("limit_status".into(), status.map_or(Value::Null, Value::from));
        }
        rec
    }

    /// The values of [`live_names`] for an active block.
    fn live(&self, now: Timestamp) -> Vec<Value> {
        let elapsed = time::millis_between(self.start, now).max(0) / 60_000;
        let left = self.minutes_left(now);
        let mut out = vec![elapsed.into(), left.into(), Value::String(format_minutes(left))];
        if let Some((tokens_per_minute, cost_per_hour)) = self.burn_rate() {
            // ccusage: the minutes left rounded, the projected cost to cents.
            let minutes = (time::millis_between(now, self.end) as f64 / 60_000.0).round();
            let tokens = (self.total_tokens() as f64 + tokens_per_minute * minutes).round();
            let cost = round(self.cost() + cost_per_hour / 60.0 * minutes, 2);
            out.extend([round(tokens_per_minute, 2), round(cost_per_hour, 4), tokens, cost].map(f64_value));
        }
        out
    }
}

/// The fields an active block fills (null in the others).
fn live_names() -> [&'static str; 7] {
    [
        "elapsed_minutes",
        "remaining_minutes",
        "remaining",
        "tokens_per_minute",
        "cost_per_hour",
        "projected_tokens",
        "projected_cost_usd",
    ]
}

/// `2h 05m`, `45m`.
pub fn format_minutes(minutes: i64) -> String {
    match minutes / 60 {
        0 => format!("{minutes}m"),
        h => format!("{h}h {:02}m", minutes % 60),
    }
}

fn round(x: f64, digits: i32) -> f64 {
    let f = 10f64.powi(digits);
    (x * f).round() / f
}

fn f64_value(x: f64) -> Value {
    json_num(Num::Float(x))
}

/// The UTC hour `t` is in.
fn floor_to_hour(t: Timestamp) -> Timestamp {
    let s = t.as_second();
    Timestamp::from_second(s - s.rem_euclid(3600)).unwrap_or(t)
}

fn plus_block(t: Timestamp) -> Timestamp {
    t.checked_add(BLOCK).unwrap_or(t)
}

/// The blocks (and gaps) of the entries ([`entries`]), in start order.
pub fn blocks(entries: &mut [Entry]) -> Vec<Block> {
    entries.sort_by_key(|e| e.at);
    let mut out: Vec<Block> = vec![];
    for e in entries.iter() {
        let at = e.at;
        let open = out.last_mut().filter(|b| !b.is_gap());
        let last = open.as_ref().and_then(|b| b.span).map(|(_, last)| last);
        match (open, last) {
            (Some(b), Some(last)) if at.duration_since(b.start) <= BLOCK && at.duration_since(last) <= BLOCK => {
                b.add(e)
            }
            _ => {
                if let Some(last) = last.filter(|last| at.duration_since(*last) > BLOCK) {
                    out.push(Block::new(plus_block(last), at));
                }
                let start = floor_to_hour(at);
                let mut b = Block::new(start, plus_block(start));
                b.add(e);
                out.push(b);
            }
        }
    }
    // In start order, as ccusage: a gap starts at the end of the activity
    // before it, which may be after the next block's start (its hour).
    out.sort_by_key(|b| b.start);
    out
}

/// The token count `limit` stands for among `blocks` at `now` (`max`: the
/// largest total of a finished block; `None` when there is none).
pub fn resolve_limit(limit: TokenLimit, blocks: &[Block], now: Timestamp) -> Option<u64> {
    match limit {
        TokenLimit::Tokens(n) => Some(n),
        TokenLimit::Max => {
            blocks.iter().filter(|b| !b.is_gap() && !b.is_active(now)).map(Block::total_tokens).max().filter(|&n| n > 0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(ts: &str, tokens: u64) -> Entry {
        let n = |t: &str| Some(Num::parse(t).unwrap());
        Entry {
            at: time::parse_timestamp(ts).unwrap(),
            model: Some("m".into()),
            session: None,
            responses: 1,
            usage: [n(&tokens.to_string()), n("0"), n("0"), n("0"), n("0.5")],
            cost: Tally::default(),
        }
    }

    fn starts(records: &[Entry]) -> Vec<(String, String, bool)> {
        let b = blocks(&mut records.to_vec());
        b.iter().map(|b| (time::format_timestamp(b.start), time::format_timestamp(b.end), b.is_gap())).collect()
    }

    #[test]
    fn a_block_starts_at_the_hour_and_lasts_five_hours() {
        // Exactly 5 h after the start still belongs to the block (ccusage: `>`).
        let r = [rec("2026-03-01T08:10:00Z", 1), rec("2026-03-01T13:00:00Z", 2), rec("2026-03-01T13:00:01Z", 4)];
        assert_eq!(
            starts(&r),
            [
                ("2026-03-01T08:00:00Z".into(), "2026-03-01T13:00:00Z".into(), false),
                ("2026-03-01T13:00:00Z".into(), "2026-03-01T18:00:00Z".into(), false),
            ]
        );
    }

    #[test]
    fn a_long_pause_is_a_gap() {
        let r = [rec("2026-03-01T08:10:00Z", 1), rec("2026-03-01T13:10:01Z", 2)];
        let b = blocks(&mut r.to_vec());
        assert_eq!(
            starts(&r),
            [
                ("2026-03-01T08:00:00Z".into(), "2026-03-01T13:00:00Z".into(), false),
                // The gap starts after the next block's hour: start order.
                ("2026-03-01T13:00:00Z".into(), "2026-03-01T18:00:00Z".into(), false),
                ("2026-03-01T13:10:00Z".into(), "2026-03-01T13:10:01Z".into(), true),
            ]
        );
        assert_eq!(b[2].record(b[0].end, None)["cost_usd"], 0);
    }

    #[test]
    fn the_active_block_burns_and_projects() {
        let r = [rec("2026-03-01T08:00:00Z", 600), rec("2026-03-01T09:00:00Z", 600)];
        let b = blocks(&mut r.to_vec());
        let now = time::parse_timestamp("2026-03-01T10:00:00Z").unwrap();
        let out = b[0].record(now, resolve_limit(TokenLimit::Tokens(4000), &b, now));
        // 1200 tokens over 60 minutes: 20 a minute, 180 minutes left.
        assert_eq!(out["status"], "active");
        assert_eq!(out["tokens_per_minute"], 20);
        assert_eq!(out["cost_per_hour"], 1);
        assert_eq!(out["projected_tokens"], 1200 + 20 * 180);
        assert_eq!(out["projected_cost_usd"], 4);
        assert_eq!(out["remaining"], "3h 00m");
        assert_eq!(out["limit_used_percent"], 30);
        assert_eq!(out["limit_status"], "exceeds");
        assert_eq!(resolve_limit(TokenLimit::Max, &b, now), None);
    }

    #[test]
    fn token_limits_parse() {
        assert_eq!(TokenLimit::parse("max"), Ok(TokenLimit::Max));
        assert_eq!(TokenLimit::parse("500000"), Ok(TokenLimit::Tokens(500_000)));
        assert!(TokenLimit::parse("lots").unwrap_err().contains("\"lots\""));
    }
}
