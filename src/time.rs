//! Timestamps, bounds and buckets.
//!
//! Captures write timestamps as RFC 3339 with 0, 3, 6 or 9 fractional digits and
//! either `Z` or an offset, or `""` when unknown. They are never compared as strings.
//!
//! STUB: the real implementation replaces this file (see the function docs for the
//! contract every caller relies on).

pub use jiff::tz::TimeZone;
pub use jiff::Timestamp;

/// Which end of a range a bound is for: a plain date means its first instant for
/// `Since` and the first instant of the next day for `Until` (exclusive), so
/// `--since 2026-03-01 --until 2026-03-01` is that whole day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoundKind {
    /// Lower bound, inclusive.
    Since,
    /// Upper bound, exclusive.
    Until,
}

/// Parses a timestamp as found in a capture. `None` for `""` or anything that is
/// not RFC 3339.
pub fn parse_timestamp(s: &str) -> Option<Timestamp> {
    s.parse().ok()
}

/// Parses a `--since`/`--until` value: RFC 3339, a plain date `YYYY-MM-DD`, or a
/// relative age (`30s`, `30m`, `2h`, `7d`, `2w`) counted back from `now`.
pub fn parse_bound(s: &str, _kind: BoundKind, _now: Timestamp, _tz: &TimeZone) -> Result<Timestamp, String> {
    parse_timestamp(s).ok_or_else(|| format!("invalid time {s:?}"))
}

/// The current time: `CI_NOW` (RFC 3339) when set, so tests are reproducible;
/// otherwise the system clock.
pub fn now() -> Timestamp {
    std::env::var("CI_NOW").ok().and_then(|s| parse_timestamp(&s)).unwrap_or_else(Timestamp::now)
}
