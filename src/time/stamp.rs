//! Capture timestamps: parsing them as instants, printing them back, the
//! current time (`CI_NOW`) and small instant arithmetic. See the
//! [module documentation](super) for the accepted shapes.

use super::Timestamp;

/// Parses a timestamp as found in a capture.
///
/// Accepts RFC 3339 with 0–9 fractional digits and `Z`, `z` or a numeric offset.
/// Returns `None` for `""`, for values without an offset (including bare dates)
/// and for anything that is not a timestamp. Never panics.
///
/// ```
/// use ci_tools::time::parse_timestamp;
/// let a = parse_timestamp("2026-03-01T08:22:00.123+00:00").unwrap();
/// let b = parse_timestamp("2026-03-01T03:22:00.123-05:00").unwrap();
/// assert_eq!(a, b);
/// assert_eq!(parse_timestamp(""), None);
/// ```
pub fn parse_timestamp(s: &str) -> Option<Timestamp> {
    if s.is_empty() {
        return None;
    }
    s.parse().ok().or_else(|| parse_long_fraction(s))
}

/// A timestamp with more than 9 fractional digits (valid RFC 3339, beyond
/// nanoseconds): the digits past the ninth are dropped (truncated toward the
/// earlier instant), then it is parsed as usual.
fn parse_long_fraction(s: &str) -> Option<Timestamp> {
    let t = s.find(['T', 't', ' '])?;
    let dot = t + s[t..].find(['.', ','])?;
    let digits = s[dot + 1..].bytes().take_while(u8::is_ascii_digit).count();
    if digits <= 9 {
        return None;
    }
    let cut = format!("{}{}", &s[..dot + 10], &s[dot + 1 + digits..]);
    cut.parse().ok()
}

/// A whole number of milliseconds since the Unix epoch (as JSON gives it)
/// as a time; `None` for a fraction or a number out of range.
pub fn from_millis(ms: f64) -> Option<Timestamp> {
    let whole = ms.is_finite() && ms.fract() == 0.0 && ms.abs() < 9.0e15;
    whole.then(|| Timestamp::from_millisecond(ms as i64).ok()).flatten()
}

/// Renders a timestamp for output: RFC 3339 in UTC with `Z` and the minimum
/// number of fractional digits needed to represent it exactly.
///
/// ```
/// use ci_tools::time::{format_timestamp, parse_timestamp};
/// let ts = parse_timestamp("2026-03-01T09:22:00.120+01:00").unwrap();
/// assert_eq!(format_timestamp(ts), "2026-03-01T08:22:00.12Z");
/// ```
pub fn format_timestamp(ts: Timestamp) -> String {
    ts.to_string()
}

/// The earlier of two times, either of which may be unknown (`Option::min`
/// would take the unknown one; for the later, `Option::max` is right).
pub fn earliest(a: Option<Timestamp>, b: Option<Timestamp>) -> Option<Timestamp> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// Milliseconds from `a` to `b` (`b - a`), negative when `b` is earlier.
/// Sub-millisecond remainders are truncated toward zero.
pub fn millis_between(a: Timestamp, b: Timestamp) -> i64 {
    let ms = b.duration_since(a).as_millis();
    // The span of representable timestamps (~20,000 years) is far inside i64
    // milliseconds; clamp anyway rather than panic.
    i64::try_from(ms).unwrap_or(if ms < 0 { i64::MIN } else { i64::MAX })
}

/// The current time: `CI_NOW` (RFC 3339, as accepted by [`parse_timestamp`]) when
/// set and valid, so tests are reproducible; otherwise the system clock.
/// An unparsable `CI_NOW` is ignored.
pub fn now() -> Timestamp {
    now_from(std::env::var("CI_NOW").ok().as_deref())
}

fn now_from(ci_now: Option<&str>) -> Timestamp {
    ci_now.and_then(|s| parse_timestamp(s.trim())).unwrap_or_else(Timestamp::now)
}

#[cfg(test)]
mod tests;
