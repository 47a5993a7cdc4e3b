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
use super::field::Num;
use super::json_num;
use super::stat::Sum;

/// The length of a block.
pub const BLOCK: SignedDuration = SignedDuration::from_hours(5);

/// The token columns of a `--tokens` record a block adds up (and prints), then its cost.
const FIGURES: [&str; 5] = ["input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "cost_usd"];

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
    /// [`FIGURES`]' sums.
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

    /// Adds the responses of one `--tokens` record at `at`.
    fn add(&mut self, at: Timestamp, rec: &Record) {
        self.span = Some(self.span.map_or((at, at), |(first, _)| (first, at)));
        self.responses += rec.get("responses").and_then(Value::as_u64).unwrap_or(0);
        for (sum, name) in self.sums.iter_mut().zip(FIGURES) {
            if let Some(n) = rec.get(name).filter(|v| v.is_number()).and_then(|v| Num::parse(&v.to_string())) {
                sum.get_or_insert_with(Sum::default).add(n);
            }
        }
        self.tally.merge(Tally::of_record(rec));
        if let Some(model) = rec.get("model").and_then(Value::as_str) {
            if !self.models.iter().any(|m| m == model) {
                self.models.push(model.to_owned());
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
        for (sum, name) in self.sums.iter().zip(FIGURES) {
            let zero = if name == "cost_usd" && !self.is_gap() { Value::Null } else { 0.into() };
            rec.insert(name.into(), sum.as_ref().map_or(zero, |s| json_num(s.value())));
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

/// The blocks (and gaps) of `--tokens` records keyed by `key` (the
/// response's timestamp), in start order; with the number of responses
/// whose timestamp was missing or unreadable (in no block).
pub fn blocks(records: &[Record], key: &str) -> (Vec<Block>, u64) {
    let mut untimed = 0;
    let mut timed: Vec<(Timestamp, &Record)> = vec![];
    for rec in records {
        match rec.get(key).and_then(Value::as_str).and_then(time::parse_timestamp) {
            Some(at) => timed.push((at, rec)),
            None => untimed += rec.get("responses").and_then(Value::as_u64).unwrap_or(0),
        }
    }
    timed.sort_by_key(|(at, _)| *at);
    let mut out: Vec<Block> = vec![];
    for (at, rec) in timed {
        let open = out.last_mut().filter(|b| !b.is_gap());
        let last = open.as_ref().and_then(|b| b.span).map(|(_, last)| last);
        match (open, last) {
            (Some(b), Some(last)) if at.duration_since(b.start) <= BLOCK && at.duration_since(last) <= BLOCK => {
                b.add(at, rec)
            }
            _ => {
                if let Some(last) = last.filter(|last| at.duration_since(*last) > BLOCK) {
                    out.push(Block::new(plus_block(last), at));
                }
                let start = floor_to_hour(at);
                let mut b = Block::new(start, plus_block(start));
                b.add(at, rec);
                out.push(b);
            }
        }
    }
    // In start order, as ccusage: a gap starts at the end of the activity
    // before it, which may be after the next block's start (its hour).
    out.sort_by_key(|b| b.start);
    (out, untimed)
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

    fn rec(ts: &str, tokens: u64) -> Record {
        let v = serde_json::json!({"timestamp": ts, "model": "m", "responses": 1, "input_tokens": tokens, "output_tokens": 0,
            "cache_read_tokens": 0, "cache_write_tokens": 0, "cost_usd": 0.5, "cost_source": "computed", "unpriced_models": []});
        v.as_object().unwrap().clone()
    }

    fn starts(records: &[Record]) -> Vec<(String, String, bool)> {
        let (b, _) = blocks(records, "timestamp");
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
        let (b, _) = blocks(&r, "timestamp");
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
        let (b, untimed) = blocks(&r, "timestamp");
        assert_eq!(untimed, 0);
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
