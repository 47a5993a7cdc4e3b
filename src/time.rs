//! Timestamps, time bounds, time zones and time buckets.
//!
//! Everything time-related in the toolkit goes through this module, built on
//! [`jiff`]. Timestamps are always compared as instants ([`Timestamp`]), never as
//! strings, and line order in a capture is never assumed to be time order.
//!
//! # Capture timestamps
//!
//! Captures write `timestamp` as RFC 3339 with 0, 3, 6 or 9 fractional digits and
//! either `Z` or a numeric offset (`+00:00`, `-05:30`, …), or `""` when unknown.
//! [`parse_timestamp`] accepts any fraction length from 0 to 9 digits, `Z`/`z` or
//! any offset, and returns `None` for `""` and for anything that is not a
//! timestamp with an offset (a bare date such as `2026-03-01` is *not* a
//! timestamp). Leap seconds (`:60`) are clamped to `:59`. Parsing is jiff's
//! Temporal/RFC 9557 parser, a superset of RFC 3339 (it also takes, for example,
//! a space instead of `T`, `+0530` or `+05` offsets and a trailing `[zone]`
//! annotation).
//!
//! Timestamps are printed by [`format_timestamp`]: RFC 3339 in UTC with `Z` and
//! just the fractional digits needed (`2026-03-01T08:22:00Z`,
//! `2026-03-01T08:22:00.123Z`), so a printed timestamp always parses back to the
//! same instant.
//!
//! # `--since` / `--until` values
//!
//! [`parse_bound`] turns a user-supplied bound into an instant. `--since` is an
//! inclusive lower bound and `--until` an exclusive upper bound
//! (`since <= t < until`). Accepted forms, tried in this order:
//!
//! | Form | Example | Meaning |
//! |------|---------|---------|
//! | `now` (any case) | `now` | the current time (see [`now`]) |
//! | relative age | `90s`, `30m`, `2h`, `7d`, `2w`, `1h30m`, `1d12h` | now minus that much time |
//! | RFC 3339 timestamp | `2026-03-01T08:00:00Z`, `2026-03-01T08:00:00.123456+02:00` | that instant |
//! | date-time with zone annotation | `2026-03-01T08:00[Europe/Berlin]` | that wall-clock time in the named zone |
//! | date-time without offset | `2026-03-01T08:00`, `2026-03-01T08:00:00` | that wall-clock time in the `--tz` zone |
//! | date | `2026-03-01` | `--since`: start of that day in the `--tz` zone; `--until`: start of the *next* day |
//!
//! Details:
//!
//! - Relative ages are one or more `<integer><unit>` pairs with no spaces, summed;
//!   units are `s` (seconds), `m` (minutes), `h` (hours), `d` (days, always 24 h)
//!   and `w` (weeks, 7 × 24 h). Units are lower case (`m` is minutes; there are no
//!   months or years). A leading `-` is allowed and changes nothing (`-2h` is
//!   `2h`: two hours ago; both spellings are common); `0m` means now.
//!   Relative ages are the same instant for `--since` and `--until`.
//! - A timestamp with `Z` or an offset is an absolute instant; the `--tz` zone
//!   plays no part. Any fraction length up to 9 digits is accepted.
//! - A date-time without an offset is read in the `--tz` zone (the `tz` argument).
//!   If that wall-clock time falls in a DST gap the time after the
//!   gap is used; if it is repeated (DST fold) the earlier instant is used.
//! - A date covers the whole day in the `--tz` zone, so
//!   `--since 2026-03-01 --until 2026-03-01` selects exactly 2026-03-01, and
//!   `--since 2026-03-01 --until 2026-03-03` selects the 1st, 2nd and 3rd. The start
//!   of a day is its first existing instant (a midnight skipped by DST starts the
//!   day at the end of the gap); days may be 23 or 25 hours long.
//! - Surrounding whitespace is ignored. Anything else — empty values, garbage,
//!   impossible dates (`2026-02-30`), numbers too large to represent
//!   (`99999999999d`) — is an error naming the value and listing these forms.
//!
//! # Time zones (`--tz`)
//!
//! [`parse_tz`] accepts an IANA zone name (`Europe/Berlin`, matched case
//! insensitively), `UTC`, a fixed offset `±HH:MM`, or `local` for the system
//! zone (the `TZ` environment variable is honoured; if the system zone cannot be
//! determined jiff falls back to `Etc/Unknown`, which behaves like UTC and is
//! named as such). Zone data comes from the system database
//! (`/usr/share/zoneinfo`, or `TZDIR`) and, where that is missing, from a copy
//! of the IANA database bundled into the binary. [`tz_name`] gives the name to
//! print in outputs so that the zone in use is always stated.
//!
//! # Buckets
//!
//! [`bucket`] labels an instant by the wall-clock hour, day or ISO week it falls
//! in, in a given zone: `2026-03-01T08`, `2026-03-01`, `2026-W09`. Labels of the
//! same kind sort chronologically as strings (for years 0000–9999). Because they
//! are wall-clock labels, the repeated hour of a DST fold shares one hour label.

use std::fmt::Write as _;
use std::str::FromStr;

use jiff::civil::{Date, DateTime};
use jiff::tz::Offset;
use jiff::{SignedDuration, ZonedDateTime};

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

/// The accepted forms, quoted in every bound error message.
const BOUND_FORMS: &str = "expected an RFC 3339 timestamp (2026-03-01T08:00:00Z, any \
     fraction, Z or an offset like +02:00), a date-time in the --tz zone \
     (2026-03-01T08:00), a date (2026-03-01), a relative age (90s, 30m, 2h, 7d \
     or -7d, 2w, 1h30m) or \"now\"";

/// The reason a bound is refused, without the value (callers name it once:
/// clap's `invalid value 'V' for '--since <TIME>'`, or [`parse_bound`]).
fn bound_reason(detail: Option<&str>) -> String {
    match detail {
        Some(d) => format!("{d}; {BOUND_FORMS}"),
        None => BOUND_FORMS.to_string(),
    }
}

/// A `--since`/`--until` value, parsed at the edge (the command line) and
/// turned into an instant later by [`TimeSpec::resolve`], once the `--tz`
/// zone and the current time are known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeSpec(Form);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    Now,
    /// Seconds before now.
    Ago(i64),
    Instant(Timestamp),
    Date(Date),
    /// A wall-clock time in the `--tz` zone.
    Local(DateTime),
}

impl TimeSpec {
    /// Parses a bound; see the [module documentation](self) for the forms. A
    /// relative age may carry a leading `-` (`-7d` is `7d`: both mean that
    /// long ago). The error gives the reason and the accepted forms, not the
    /// value. Never panics.
    pub fn parse(s: &str) -> Result<TimeSpec, String> {
        let v = s.trim();
        if v.is_empty() {
            return Err(bound_reason(Some("empty value")));
        }
        if v.eq_ignore_ascii_case("now") {
            return Ok(TimeSpec(Form::Now));
        }
        let age = v.strip_prefix('-').unwrap_or(v);
        if let Some(secs) = parse_relative(age) {
            return secs.map(|n| TimeSpec(Form::Ago(n))).map_err(|d| bound_reason(Some(&d)));
        }
        if let Ok(ts) = v.parse::<Timestamp>() {
            return Ok(TimeSpec(Form::Instant(ts)));
        }
        if is_plain_date(v) {
            return v
                .parse()
                .map(|d| TimeSpec(Form::Date(d)))
                .map_err(|e: jiff::Error| bound_reason(Some(&e.to_string())));
        }
        // `[Zone]` annotation without an offset: the annotated zone decides, not `tz`.
        if v.contains('[') {
            return v
                .parse::<ZonedDateTime>()
                .map(|z| TimeSpec(Form::Instant(z.timestamp())))
                .map_err(|e| bound_reason(Some(&e.to_string())));
        }
        // A date-time without offset needs a time designator; this keeps odd
        // date-only spellings (e.g. `20260301`) from silently meaning midnight.
        if v.contains(['T', 't', ' ']) {
            match v.parse::<DateTime>() {
                Ok(dt) => return Ok(TimeSpec(Form::Local(dt))),
                Err(e) if looks_like_date_prefix(v) => return Err(bound_reason(Some(&e.to_string()))),
                Err(_) => {}
            }
        } else if looks_like_date_prefix(v) {
            // e.g. `2026-03-01Z`, `2026-3-1`: say what is wrong in jiff's words.
            if let Err(e) = v.parse::<Timestamp>() {
                return Err(bound_reason(Some(&e.to_string())));
            }
        }
        Err(bound_reason(None))
    }

    /// The instant this bound means for `kind`, `now` and the `--tz` zone.
    /// Fails only at the edges of the supported range (the reason is given,
    /// not the value). Never panics.
    pub fn resolve(&self, kind: BoundKind, now: Timestamp, tz: &TimeZone) -> Result<Timestamp, String> {
        match self.0 {
            Form::Now => Ok(now),
            Form::Ago(secs) => now
                .checked_sub(SignedDuration::from_secs(secs))
                .map_err(|_| bound_reason(Some("relative age reaches before the earliest supported time"))),
            Form::Instant(ts) => Ok(ts),
            Form::Date(date) => {
                let day = match kind {
                    BoundKind::Since => date,
                    BoundKind::Until => {
                        date.tomorrow().map_err(|_| bound_reason(Some("date is at the end of the supported range")))?
                    }
                };
                start_of_day(day, tz).map_err(|d| bound_reason(Some(&d)))
            }
            Form::Local(dt) => tz.to_timestamp(dt).map_err(|e| bound_reason(Some(&e.to_string()))),
        }
    }
}

/// Parses a `--since`/`--until` value into an instant: [`TimeSpec::parse`]
/// then [`TimeSpec::resolve`].
///
/// See the [module documentation](self) for the accepted forms: `now`, relative
/// ages (`30m`, `2h`, `7d`, `1h30m`, also written `-7d`) counted back from `now`,
/// RFC 3339 timestamps, date-times without offset (read in `tz`) and dates
/// (`YYYY-MM-DD`: start of that day in `tz` for [`BoundKind::Since`], start of
/// the next day for [`BoundKind::Until`]). Errors quote the value and list the
/// accepted forms. Never panics.
///
/// ```
/// use ci_tools::time::{parse_bound, parse_timestamp, BoundKind, TimeZone};
/// let now = parse_timestamp("2026-03-10T12:00:00Z").unwrap();
/// let utc = TimeZone::UTC;
/// let since = parse_bound("2026-03-01", BoundKind::Since, now, &utc).unwrap();
/// let until = parse_bound("2026-03-01", BoundKind::Until, now, &utc).unwrap();
/// assert_eq!(since.to_string(), "2026-03-01T00:00:00Z");
/// assert_eq!(until.to_string(), "2026-03-02T00:00:00Z");
/// let ago = parse_bound("2h", BoundKind::Since, now, &utc).unwrap();
/// assert_eq!(ago.to_string(), "2026-03-10T10:00:00Z");
/// assert_eq!(parse_bound("-2h", BoundKind::Since, now, &utc), Ok(ago));
/// ```
pub fn parse_bound(s: &str, kind: BoundKind, now: Timestamp, tz: &TimeZone) -> Result<Timestamp, String> {
    TimeSpec::parse(s).and_then(|t| t.resolve(kind, now, tz)).map_err(|e| format!("invalid time {s:?}: {e}"))
}

/// `YYYY-MM-DD` exactly (validity of the date is checked by the parser).
fn is_plain_date(v: &str) -> bool {
    let b = v.as_bytes();
    b.len() == 10
        && b.iter().enumerate().all(|(i, &c)| match i {
            4 | 7 => c == b'-',
            _ => c.is_ascii_digit(),
        })
}

/// Starts with `YYYY-`: the user meant a date or timestamp, so jiff's detailed
/// error is worth showing.
fn looks_like_date_prefix(v: &str) -> bool {
    let b = v.as_bytes();
    b.len() > 5 && b[..4].iter().all(u8::is_ascii_digit) && b[4] == b'-'
}

/// The first instant of `date` in `tz` (after the gap if midnight is skipped).
fn start_of_day(date: Date, tz: &TimeZone) -> Result<Timestamp, String> {
    tz.to_timestamp(date.at(0, 0, 0, 0)).map_err(|e| e.to_string())
}

/// Parses a relative age `(<digits><unit>)+` into seconds.
///
/// `None` when `v` does not have that shape at all (so other forms can be tried);
/// `Some(Err)` when it does but a unit is unknown or the total overflows.
fn parse_relative(v: &str) -> Option<Result<i64, String>> {
    let b = v.as_bytes();
    let shaped = !b.is_empty()
        && b[0].is_ascii_digit()
        && b[b.len() - 1].is_ascii_alphabetic()
        && b.iter().all(u8::is_ascii_alphanumeric);
    if !shaped {
        return None;
    }
    let mut total: i64 = 0;
    let mut rest = v;
    while !rest.is_empty() {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let letters = rest[digits..].bytes().take_while(u8::is_ascii_alphabetic).count();
        let (num, unit) = (&rest[..digits], &rest[digits..digits + letters]);
        rest = &rest[digits + letters..];
        let unit_secs: i64 = match unit {
            "s" => 1,
            "m" => 60,
            "h" => 3_600,
            "d" => 86_400,
            "w" => 7 * 86_400,
            _ => return Some(Err(format!("unknown unit {unit:?} (relative ages use s, m, h, d or w)"))),
        };
        let n: i64 = match num.parse() {
            Ok(n) => n,
            Err(_) => return Some(Err(format!("number {num:?} is too large"))),
        };
        match n.checked_mul(unit_secs).and_then(|x| total.checked_add(x)) {
            Some(t) => total = t,
            None => return Some(Err("relative age is too large".to_string())),
        }
    }
    Some(Ok(total))
}

/// Parses a `--tz` value: an IANA name (`Europe/Berlin`, case-insensitive), `UTC`,
/// a fixed offset `±HH:MM`, or `local` (the system zone; the `TZ` environment
/// variable is honoured). The error message names the bad value.
pub fn parse_tz(s: &str) -> Result<TimeZone, String> {
    tz_value(s).map_err(|e| format!("invalid time zone {s:?}: {e}"))
}

/// [`parse_tz`] with the reason alone in the error (the value is named by
/// the caller, e.g. clap's `invalid value 'V' for '--tz <TZ>'`).
pub fn tz_value(s: &str) -> Result<TimeZone, String> {
    const FORMS: &str =
        "expected an IANA time zone name (Europe/Berlin), UTC, an offset like +02:00 or -05:00, or local";
    let v = s.trim();
    if v.is_empty() {
        return Err(format!("empty value; {FORMS}"));
    }
    if v.eq_ignore_ascii_case("local") {
        return Ok(TimeZone::system());
    }
    if let Some(offset) = parse_fixed_offset(v) {
        return Ok(if offset == Offset::UTC { TimeZone::UTC } else { TimeZone::fixed(offset) });
    }
    TimeZone::get(v).map_err(|e| format!("{e}; {FORMS}"))
}

/// `+HH:MM` / `-HH:MM` with hours 0–25 and minutes 0–59.
fn parse_fixed_offset(v: &str) -> Option<Offset> {
    let b = v.as_bytes();
    if b.len() != 6 || b[3] != b':' {
        return None;
    }
    let sign: i32 = match b[0] {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let two = |i: usize| -> Option<i32> {
        let (h, l) = (b[i], b[i + 1]);
        (h.is_ascii_digit() && l.is_ascii_digit()).then(|| i32::from(h - b'0') * 10 + i32::from(l - b'0'))
    };
    let (hh, mm) = (two(1)?, two(4)?);
    if mm > 59 {
        return None;
    }
    Offset::from_seconds(sign * (hh * 3600 + mm * 60)).ok()
}

/// The name of a zone for outputs: the IANA name when known (`Europe/Berlin`),
/// `UTC` for UTC and for a zero fixed offset, `±HH:MM` (`±HH:MM:SS` if needed) for
/// other fixed offsets, `Etc/Unknown` when the system zone could not be
/// determined, the POSIX rule for a `TZ=EST5EDT,M3.2.0,M11.1.0`-style zone, and
/// `local` for a system zone file that carries no name.
pub fn tz_name(tz: &TimeZone) -> String {
    if let Some(name) = tz.iana_name().filter(|n| !n.is_empty()) {
        return name.to_string();
    }
    if tz.is_unknown() {
        return "Etc/Unknown".to_string();
    }
    if let Ok(offset) = tz.to_fixed_offset() {
        return format_offset(offset);
    }
    // jiff exposes a POSIX rule only through Debug: `Posix(EST5EDT,M3.2.0,M11.1.0)`.
    let debug = format!("{tz:?}");
    if let Some(rule) = debug.strip_prefix("TimeZone(Posix(").and_then(|r| r.strip_suffix("))")) {
        return rule.to_string();
    }
    "local".to_string()
}

fn format_offset(offset: Offset) -> String {
    let secs = offset.seconds();
    if secs == 0 {
        return "UTC".to_string();
    }
    let sign = if secs < 0 { '-' } else { '+' };
    let abs = secs.unsigned_abs();
    let (h, m, s) = (abs / 3600, abs / 60 % 60, abs % 60);
    let mut out = format!("{sign}{h:02}:{m:02}");
    if s != 0 {
        let _ = write!(out, ":{s:02}");
    }
    out
}

/// A time bucket for grouping: wall-clock hour, calendar day or ISO week.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bucket {
    /// `2026-03-01T08`
    Hour,
    /// `2026-03-01`
    Day,
    /// ISO 8601 week (weeks start on Monday; week 1 holds the year's first
    /// Thursday): `2026-W09`
    Week,
    /// `2026-03`
    Month,
}

impl Bucket {
    /// The name accepted by [`FromStr`]: `hour`, `day`, `week` or `month`.
    pub fn as_str(self) -> &'static str {
        match self {
            Bucket::Hour => "hour",
            Bucket::Day => "day",
            Bucket::Week => "week",
            Bucket::Month => "month",
        }
    }
}

impl std::fmt::Display for Bucket {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Bucket {
    type Err = String;

    /// `hour`, `day`, `week` or `month` (ASCII case-insensitive).
    fn from_str(s: &str) -> Result<Bucket, String> {
        match s.to_ascii_lowercase().as_str() {
            "hour" => Ok(Bucket::Hour),
            "day" => Ok(Bucket::Day),
            "week" => Ok(Bucket::Week),
            "month" => Ok(Bucket::Month),
            _ => Err(format!("invalid time bucket {s:?}: expected hour, day, week or month")),
        }
    }
}

/// The label of the bucket holding `ts` in zone `tz`: `Hour` → `2026-03-01T08`,
/// `Day` → `2026-03-01`, `Week` → ISO week `2026-W09` (the ISO week-numbering
/// year, so 2027-01-01 is `2026-W53`). Labels of one kind sort chronologically as
/// strings for years 0000–9999.
///
/// ```
/// use ci_tools::time::{bucket, parse_timestamp, parse_tz, Bucket};
/// let ts = parse_timestamp("2026-03-01T23:30:00Z").unwrap();
/// let berlin = parse_tz("Europe/Berlin").unwrap();
/// assert_eq!(bucket(ts, Bucket::Day, &berlin), "2026-03-02");
/// ```
pub fn bucket(ts: Timestamp, b: Bucket, tz: &TimeZone) -> String {
    let dt = tz.to_datetime(ts);
    let date = dt.date();
    match b {
        Bucket::Hour => format!("{}-{:02}-{:02}T{:02}", format_year(date.year()), date.month(), date.day(), dt.hour()),
        Bucket::Day => format!("{}-{:02}-{:02}", format_year(date.year()), date.month(), date.day()),
        Bucket::Week => {
            let week = date.iso_week_date();
            format!("{}-W{:02}", format_year(week.year()), week.week())
        }
        Bucket::Month => format!("{}-{:02}", format_year(date.year()), date.month()),
    }
}

/// Four digits for 0000–9999, ISO 8601 expanded form (`-000001`) otherwise.
fn format_year(year: i16) -> String {
    if (0..=9999).contains(&year) {
        format!("{year:04}")
    } else {
        format!("{year:+07}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fractions_beyond_nanoseconds_are_truncated() {
        let nine = parse_timestamp("2026-03-01T10:00:00.123456789Z").unwrap();
        assert_eq!(parse_timestamp("2026-03-01T10:00:00.1234567891Z"), Some(nine));
        assert_eq!(parse_timestamp("2026-03-01T10:00:00.123456789999999+00:00"), Some(nine));
        let offset = parse_timestamp("2026-03-01T12:00:00.123456789+02:00").unwrap();
        assert_eq!(parse_timestamp("2026-03-01T12:00:00.12345678900000000001+02:00"), Some(offset));
        assert_eq!(parse_timestamp("2026-03-01T10:00:00.1234567891"), None, "no offset: still refused");
        assert_eq!(parse_timestamp("not a time.1234567891Z"), None);
    }
    use proptest::prelude::*;

    fn ts(s: &str) -> Timestamp {
        s.parse().unwrap_or_else(|e| panic!("bad test timestamp {s:?}: {e}"))
    }

    fn tz(name: &str) -> TimeZone {
        parse_tz(name).unwrap_or_else(|e| panic!("{e}"))
    }

    const NOW: &str = "2026-03-10T12:00:00Z";

    #[test]
    fn parse_timestamp_shapes() {
        // (input, expected instant rendered in UTC, or None)
        let cases: &[(&str, Option<&str>)] = &[
            ("2026-03-01T08:22:00+00:00", Some("2026-03-01T08:22:00Z")),
            ("2026-03-01T08:22:00Z", Some("2026-03-01T08:22:00Z")),
            ("2026-03-01T08:22:00z", Some("2026-03-01T08:22:00Z")),
            ("2026-03-01T08:22:00.123Z", Some("2026-03-01T08:22:00.123Z")),
            ("2026-03-01T08:22:00.123+00:00", Some("2026-03-01T08:22:00.123Z")),
            ("2026-03-01T08:22:00.123456+00:00", Some("2026-03-01T08:22:00.123456Z")),
            ("2026-03-01T08:22:00.123456Z", Some("2026-03-01T08:22:00.123456Z")),
            ("2026-03-01T08:22:00.123456658+00:00", Some("2026-03-01T08:22:00.123456658Z")),
            ("2026-03-01T08:22:00.1Z", Some("2026-03-01T08:22:00.1Z")),
            ("2026-03-01T08:22:00.12Z", Some("2026-03-01T08:22:00.12Z")),
            ("2026-03-01T08:22:00.1234Z", Some("2026-03-01T08:22:00.1234Z")),
            ("2026-03-01T08:22:00.12345Z", Some("2026-03-01T08:22:00.12345Z")),
            ("2026-03-01T08:22:00.1234567Z", Some("2026-03-01T08:22:00.1234567Z")),
            ("2026-03-01T08:22:00.12345678Z", Some("2026-03-01T08:22:00.12345678Z")),
            ("2026-03-01T08:22:00.100Z", Some("2026-03-01T08:22:00.1Z")),
            ("2026-03-01T08:22:00.000+00:00", Some("2026-03-01T08:22:00Z")),
            ("2026-03-01T03:22:00-05:00", Some("2026-03-01T08:22:00Z")),
            ("2026-03-01T13:52:00+05:30", Some("2026-03-01T08:22:00Z")),
            ("2026-03-01T02:52:00.5-05:30", Some("2026-03-01T08:22:00.5Z")),
            ("2026-03-02T00:22:00+16:00", Some("2026-03-01T08:22:00Z")),
            ("2026-03-01T08:22:00-00:00", Some("2026-03-01T08:22:00Z")),
            // offset crossing the date line backwards
            ("2026-02-28T23:22:00-09:00", Some("2026-03-01T08:22:00Z")),
            // leap second is clamped
            ("2016-12-31T23:59:60Z", Some("2016-12-31T23:59:59Z")),
            // leap day
            ("2024-02-29T12:00:00Z", Some("2024-02-29T12:00:00Z")),
            // not timestamps
            ("", None),
            ("2026-03-01", None),
            ("2026-03-01T08:22:00", None),
            ("2026-03-01T08:22:00.123", None),
            ("2026-02-29T08:22:00Z", None),
            ("2026-13-01T08:22:00Z", None),
            ("2026-03-01T25:00:00Z", None),
            // More than 9 fractional digits: the rest is dropped (issue 18, item 7).
            ("2026-03-01T08:22:00.1234567890Z", Some("2026-03-01T08:22:00.123456789Z")),
            ("2026-03-01T08:22:00+99:00", None),
            ("garbage", None),
            ("null", None),
            ("1772353320", None),
            ("Z", None),
            ("T", None),
            ("-", None),
            ("2026-03-01T08:22:00Zjunk", None),
            ("\u{0}", None),
            ("２０２６-03-01T08:22:00Z", None),
        ];
        for &(input, want) in cases {
            let got = parse_timestamp(input).map(format_timestamp);
            assert_eq!(got.as_deref(), want, "parse_timestamp({input:?})");
        }
    }

    #[test]
    fn same_instant_regardless_of_spelling() {
        let a = parse_timestamp("2026-03-01T08:22:00.123+00:00").unwrap();
        for other in [
            "2026-03-01T08:22:00.123Z",
            "2026-03-01T08:22:00.123000Z",
            "2026-03-01T08:22:00.123000000+00:00",
            "2026-03-01T03:22:00.123-05:00",
            "2026-03-01T09:22:00.123+01:00",
        ] {
            assert_eq!(parse_timestamp(other), Some(a), "{other}");
        }
        // Instants order by time, not by string.
        let later_string_smaller = parse_timestamp("2026-03-01T04:00:00-05:00").unwrap();
        let earlier = parse_timestamp("2026-03-01T08:30:00Z").unwrap();
        assert!(earlier < later_string_smaller);
    }

    #[test]
    fn format_timestamp_shapes() {
        let cases = [
            ("2026-03-01T08:22:00+00:00", "2026-03-01T08:22:00Z"),
            ("2026-03-01T08:22:00.123+00:00", "2026-03-01T08:22:00.123Z"),
            ("2026-03-01T08:22:00.123456+00:00", "2026-03-01T08:22:00.123456Z"),
            ("2026-03-01T08:22:00.123456658+00:00", "2026-03-01T08:22:00.123456658Z"),
            ("2026-03-01T08:22:00.120-01:00", "2026-03-01T09:22:00.12Z"),
        ];
        for (input, want) in cases {
            assert_eq!(format_timestamp(ts(input)), want, "{input}");
        }
    }

    #[test]
    fn now_honours_ci_now() {
        let fixed = ts("2026-03-01T08:22:00.123456Z");
        assert_eq!(now_from(Some("2026-03-01T08:22:00.123456+00:00")), fixed);
        assert_eq!(now_from(Some(" 2026-03-01T03:22:00.123456-05:00\n")), fixed);
        let before = Timestamp::now();
        for unset_or_bad in [None, Some(""), Some("yesterday"), Some("2026-03-01")] {
            let t = now_from(unset_or_bad);
            assert!(t >= before && t <= Timestamp::now(), "{unset_or_bad:?}");
        }
    }

    #[test]
    fn millis_between_signs_and_truncation() {
        let a = ts("2026-03-01T08:00:00Z");
        let cases = [
            ("2026-03-01T08:00:01.5Z", 1500),
            ("2026-03-01T08:00:00Z", 0),
            ("2026-03-01T07:59:59Z", -1000),
            ("2026-03-01T08:00:00.0009Z", 0),
            ("2026-03-01T08:00:00.001999Z", 1),
            ("2026-03-01T07:59:59.9991Z", 0),
            ("2026-03-02T08:00:00Z", 86_400_000),
            ("2026-03-01T09:00:00+01:00", 0),
        ];
        for (b, want) in cases {
            assert_eq!(millis_between(a, ts(b)), want, "{b}");
        }
        assert!(millis_between(Timestamp::MIN, Timestamp::MAX) > 0);
        assert!(millis_between(Timestamp::MAX, Timestamp::MIN) < 0);
    }

    #[test]
    fn bound_timestamps_ignore_kind_and_tz() {
        let now = ts(NOW);
        let ny = tz("America/New_York");
        let cases = [
            ("2026-03-01T08:22:00Z", "2026-03-01T08:22:00Z"),
            ("2026-03-01T08:22:00z", "2026-03-01T08:22:00Z"),
            ("2026-03-01T08:22:00.123456658+00:00", "2026-03-01T08:22:00.123456658Z"),
            ("2026-03-01T08:22:00.5-05:00", "2026-03-01T13:22:00.5Z"),
            ("  2026-03-01T08:22:00+02:00 ", "2026-03-01T06:22:00Z"),
            ("2026-03-01T08:22:00+01:00[Europe/Berlin]", "2026-03-01T07:22:00Z"),
        ];
        for (input, want) in cases {
            for kind in [BoundKind::Since, BoundKind::Until] {
                for zone in [&TimeZone::UTC, &ny] {
                    let got = parse_bound(input, kind, now, zone).unwrap();
                    assert_eq!(got.to_string(), want, "{input} {kind:?} {zone:?}");
                }
            }
        }
    }

    #[test]
    fn bound_dates_and_local_datetimes() {
        let now = ts(NOW);
        // (input, zone, since, until)
        let cases = [
            ("2026-03-01", "UTC", "2026-03-01T00:00:00Z", "2026-03-02T00:00:00Z"),
            ("2026-02-28", "UTC", "2026-02-28T00:00:00Z", "2026-03-01T00:00:00Z"),
            ("2024-02-28", "UTC", "2024-02-28T00:00:00Z", "2024-02-29T00:00:00Z"),
            ("2026-12-31", "UTC", "2026-12-31T00:00:00Z", "2027-01-01T00:00:00Z"),
            ("2026-03-01", "America/New_York", "2026-03-01T05:00:00Z", "2026-03-02T05:00:00Z"),
            // DST starts 2026-03-08 in New York: a 23-hour day.
            ("2026-03-08", "America/New_York", "2026-03-08T05:00:00Z", "2026-03-09T04:00:00Z"),
            // DST ends 2026-11-01: a 25-hour day.
            ("2026-11-01", "America/New_York", "2026-11-01T04:00:00Z", "2026-11-02T05:00:00Z"),
            ("2026-03-01", "Europe/Berlin", "2026-02-28T23:00:00Z", "2026-03-01T23:00:00Z"),
            ("2026-03-01", "+05:30", "2026-02-28T18:30:00Z", "2026-03-01T18:30:00Z"),
            // Midnight skipped by DST (Brazil 2018): the day starts at 01:00 -02.
            ("2018-11-04", "America/Sao_Paulo", "2018-11-04T03:00:00Z", "2018-11-05T02:00:00Z"),
            // Date-times without offset are read in the zone, same for both kinds.
            ("2026-03-01T08:00", "UTC", "2026-03-01T08:00:00Z", "2026-03-01T08:00:00Z"),
            ("2026-03-01T08:00:00", "UTC", "2026-03-01T08:00:00Z", "2026-03-01T08:00:00Z"),
            ("2026-03-01T08:00:00.25", "UTC", "2026-03-01T08:00:00.25Z", "2026-03-01T08:00:00.25Z"),
            ("2026-03-01T00:00", "UTC", "2026-03-01T00:00:00Z", "2026-03-01T00:00:00Z"),
            ("2026-03-01T08:00", "America/New_York", "2026-03-01T13:00:00Z", "2026-03-01T13:00:00Z"),
            ("2026-03-01T08:00:00", "Europe/Berlin", "2026-03-01T07:00:00Z", "2026-03-01T07:00:00Z"),
            // In a DST gap: the time after the gap.
            ("2026-03-08T02:30", "America/New_York", "2026-03-08T07:30:00Z", "2026-03-08T07:30:00Z"),
            // In a DST fold: the earlier instant.
            ("2026-11-01T01:30", "America/New_York", "2026-11-01T05:30:00Z", "2026-11-01T05:30:00Z"),
            // A zone annotation overrides --tz.
            ("2026-03-01T08:00[Europe/Berlin]", "America/New_York", "2026-03-01T07:00:00Z", "2026-03-01T07:00:00Z"),
        ];
        for (input, zone, since, until) in cases {
            let z = tz(zone);
            let s = parse_bound(input, BoundKind::Since, now, &z).unwrap();
            let u = parse_bound(input, BoundKind::Until, now, &z).unwrap();
            assert_eq!(s.to_string(), since, "since {input} in {zone}");
            assert_eq!(u.to_string(), until, "until {input} in {zone}");
        }
    }

    #[test]
    fn same_date_since_until_is_the_whole_day() {
        let now = ts(NOW);
        let z = tz("Europe/Berlin");
        let s = parse_bound("2026-03-01", BoundKind::Since, now, &z).unwrap();
        let u = parse_bound("2026-03-01", BoundKind::Until, now, &z).unwrap();
        let inside = ["2026-03-01T00:00:00+01:00", "2026-03-01T23:59:59.999999999+01:00"];
        let outside = ["2026-02-28T23:59:59.999+01:00", "2026-03-02T00:00:00+01:00"];
        for t in inside {
            let t = ts(t);
            assert!(s <= t && t < u, "{t} inside");
        }
        for t in outside {
            let t = ts(t);
            assert!(!(s <= t && t < u), "{t} outside");
        }
    }

    #[test]
    fn bound_relative() {
        let now = ts(NOW);
        let cases = [
            ("now", "2026-03-10T12:00:00Z"),
            ("NOW", "2026-03-10T12:00:00Z"),
            (" now ", "2026-03-10T12:00:00Z"),
            ("0s", "2026-03-10T12:00:00Z"),
            ("0m", "2026-03-10T12:00:00Z"),
            ("90s", "2026-03-10T11:58:30Z"),
            ("30m", "2026-03-10T11:30:00Z"),
            ("2h", "2026-03-10T10:00:00Z"),
            ("36h", "2026-03-09T00:00:00Z"),
            ("7d", "2026-03-03T12:00:00Z"),
            ("2w", "2026-02-24T12:00:00Z"),
            ("1h30m", "2026-03-10T10:30:00Z"),
            ("1d12h", "2026-03-09T00:00:00Z"),
            ("1w1d1h1m1s", "2026-03-02T10:58:59Z"),
            ("30m30m", "2026-03-10T11:00:00Z"),
            ("007d", "2026-03-03T12:00:00Z"),
        ];
        for (input, want) in cases {
            for kind in [BoundKind::Since, BoundKind::Until] {
                let got = parse_bound(input, kind, now, &tz("America/New_York")).unwrap();
                assert_eq!(got.to_string(), want, "{input} {kind:?}");
            }
        }
        // Days are 24 h even across a DST change in the zone.
        let now = ts("2026-03-09T12:00:00Z");
        let got = parse_bound("1d", BoundKind::Since, now, &tz("America/New_York")).unwrap();
        assert_eq!(got.to_string(), "2026-03-08T12:00:00Z");
    }

    #[test]
    fn bound_errors() {
        let now = ts(NOW);
        // (input, a fragment the message must contain besides the quoted value)
        let cases = [
            ("", "empty"),
            ("   ", "empty"),
            ("garbage", "expected"),
            ("--2h", "expected"),
            ("-", "expected"),
            ("-2x", "unknown unit"),
            ("2x", "unknown unit"),
            ("2H", "unknown unit"),
            ("2mo", "unknown unit"),
            ("2 h", "expected"),
            ("h", "expected"),
            ("2", "expected"),
            ("1.5h", "expected"),
            ("+2h", "expected"),
            ("99999999999d", "earliest"),
            ("99999999999999999999d", "too large"),
            ("9223372036854775807w", "too large"),
            ("9223372036854775807s9223372036854775807s", "too large"),
            ("2026-02-30", "expected"),
            ("2026-13-01", "expected"),
            ("2026-3-1", "expected"),
            ("20260301", "expected"),
            ("2026-03-01T25:00", "expected"),
            ("2026-03-01T08:00[Mars/Base]", "expected"),
            ("2026-03-01T08:22:00.1234567890Z", "expected"),
            ("yesterday", "expected"),
            ("0001-01-01T00:00:00+26:00", "expected"),
        ];
        for (input, fragment) in cases {
            for kind in [BoundKind::Since, BoundKind::Until] {
                let err =
                    parse_bound(input, kind, now, &TimeZone::UTC).expect_err(&format!("{input:?} should be rejected"));
                assert!(err.contains(&format!("{input:?}")), "{err} quotes {input:?}");
                assert!(err.contains(fragment), "{err} mentions {fragment}");
                assert!(err.contains("2026-03-01") && err.contains("30m"), "{err} lists forms");
            }
        }
    }

    #[test]
    fn leading_minus_on_an_age_means_the_same_age() {
        let now = ts(NOW);
        for (plain, minus) in [("7d", "-7d"), ("30m", "-30m"), ("1h30m", "-1h30m"), ("0s", "-0s")] {
            for kind in [BoundKind::Since, BoundKind::Until] {
                assert_eq!(
                    parse_bound(minus, kind, now, &TimeZone::UTC),
                    parse_bound(plain, kind, now, &TimeZone::UTC)
                );
            }
            assert_eq!(TimeSpec::parse(minus), TimeSpec::parse(plain));
        }
        assert_eq!(
            parse_bound("-7d", BoundKind::Since, now, &TimeZone::UTC).unwrap(),
            now.checked_sub(SignedDuration::from_hours(168)).unwrap()
        );
    }

    #[test]
    fn time_spec_errors_give_the_reason_without_the_value() {
        for bad in ["", "garbage", "2x", "2026-13-01", "-2x"] {
            let e = TimeSpec::parse(bad).expect_err(bad);
            assert!(e.contains("expected an RFC 3339"), "{e}");
            assert!(!e.contains("invalid time"), "{e}");
        }
        let e = tz_value("Mars/Base").expect_err("Mars/Base");
        assert!(e.contains("IANA") && !e.contains("invalid time zone"), "{e}");
        assert_eq!(tz_value("-05:00").map(|z| tz_name(&z)), Ok("-05:00".to_string()));
    }

    #[test]
    fn bound_range_edges_do_not_panic() {
        let now = ts(NOW);
        let edges = ["9999-12-31", "-009999-01-01", "0000-01-01", "9999-12-31T23:59:59"];
        for input in edges {
            for kind in [BoundKind::Since, BoundKind::Until] {
                for zone in [TimeZone::UTC, tz("+14:00"), tz("-12:00"), tz("Pacific/Kiritimati")] {
                    let _ = parse_bound(input, kind, now, &zone);
                    let _ = parse_bound(input, kind, Timestamp::MIN, &zone);
                    let _ = parse_bound("1s", kind, Timestamp::MIN, &zone);
                    let _ = parse_bound("1s", kind, Timestamp::MAX, &zone);
                }
            }
        }
        assert!(parse_bound("9999-12-31", BoundKind::Until, now, &TimeZone::UTC).is_err());
        assert!(parse_bound("1s", BoundKind::Since, Timestamp::MIN, &TimeZone::UTC).is_err());
        assert_eq!(parse_bound("0s", BoundKind::Since, Timestamp::MIN, &TimeZone::UTC), Ok(Timestamp::MIN));
    }

    #[test]
    fn parse_tz_and_names() {
        let cases = [
            ("Europe/Berlin", "Europe/Berlin"),
            ("europe/berlin", "Europe/Berlin"),
            ("America/New_York", "America/New_York"),
            (" Asia/Kolkata ", "Asia/Kolkata"),
            ("UTC", "UTC"),
            ("utc", "UTC"),
            ("+00:00", "UTC"),
            ("-00:00", "UTC"),
            ("+02:00", "+02:00"),
            ("-05:30", "-05:30"),
            ("+14:00", "+14:00"),
        ];
        for (input, name) in cases {
            assert_eq!(tz_name(&tz(input)), name, "{input}");
        }
        for bad in ["", "Mars/Base", "Europe/Berln", "+2", "+02:60", "+2:00", "02:00", "loca"] {
            let err = parse_tz(bad).expect_err(bad);
            assert!(err.contains(&format!("{bad:?}")), "{err} names {bad:?}");
            assert!(err.contains("IANA"), "{err}");
        }
        // `local` always yields a usable zone with a printable name.
        let local = parse_tz("local").unwrap();
        assert!(!tz_name(&local).is_empty());
        assert!(parse_tz("LOCAL").is_ok());
    }

    #[test]
    fn tz_name_for_every_kind_of_zone() {
        use jiff::tz::offset;
        assert_eq!(tz_name(&TimeZone::UTC), "UTC");
        assert_eq!(tz_name(&TimeZone::fixed(offset(0))), "UTC");
        assert_eq!(tz_name(&TimeZone::fixed(offset(2))), "+02:00");
        assert_eq!(tz_name(&TimeZone::fixed(offset(-10))), "-10:00");
        let odd = TimeZone::fixed(Offset::from_seconds(-(5 * 3600 + 30 * 60 + 15)).unwrap());
        assert_eq!(tz_name(&odd), "-05:30:15");
        assert_eq!(tz_name(&TimeZone::unknown()), "Etc/Unknown");
        let posix = TimeZone::posix("EST5EDT,M3.2.0,M11.1.0").unwrap();
        assert_eq!(tz_name(&posix), "EST5EDT,M3.2.0,M11.1.0");
        let data = std::fs::read("/usr/share/zoneinfo/Europe/Berlin");
        if let Ok(data) = data {
            let unnamed = TimeZone::tzif("", &data).unwrap();
            assert_eq!(tz_name(&unnamed), "local");
        }
    }

    /// The `tzdb-bundle-always` feature is on: zone names resolve even on a
    /// machine without /usr/share/zoneinfo.
    #[test]
    fn bundled_tzdb_is_available() {
        let db = jiff::tz::TimeZoneDatabase::bundled();
        for name in ["Europe/Berlin", "America/New_York", "America/Sao_Paulo", "Asia/Kolkata"] {
            let zone = db.get(name).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(tz_name(&zone), name);
        }
        let berlin = db.get("Europe/Berlin").unwrap();
        let t = ts("2026-03-01T23:30:00Z");
        assert_eq!(bucket(t, Bucket::Day, &berlin), "2026-03-02");
    }

    #[test]
    fn bucket_from_str() {
        assert_eq!("hour".parse(), Ok(Bucket::Hour));
        assert_eq!("day".parse(), Ok(Bucket::Day));
        assert_eq!("week".parse(), Ok(Bucket::Week));
        assert_eq!("Week".parse(), Ok(Bucket::Week));
        assert_eq!("month".parse(), Ok(Bucket::Month));
        for b in [Bucket::Hour, Bucket::Day, Bucket::Week, Bucket::Month] {
            assert_eq!(b.to_string().parse(), Ok(b));
        }
        for bad in ["", "months", "hours", "d"] {
            let err = bad.parse::<Bucket>().unwrap_err();
            assert!(err.contains(&format!("{bad:?}")) && err.contains("hour, day, week or month"), "{err}");
        }
    }

    #[test]
    fn buckets() {
        // (timestamp, zone, hour, day, week)
        let cases = [
            ("2026-03-01T08:22:00Z", "UTC", "2026-03-01T08", "2026-03-01", "2026-W09"),
            ("2026-03-01T08:22:00.999999999Z", "UTC", "2026-03-01T08", "2026-03-01", "2026-W09"),
            ("2026-03-01T00:00:00Z", "UTC", "2026-03-01T00", "2026-03-01", "2026-W09"),
            // Berlin is UTC+1 in March: crosses midnight, and into the next ISO week
            // (2026-03-01 is a Sunday).
            ("2026-03-01T23:30:00Z", "UTC", "2026-03-01T23", "2026-03-01", "2026-W09"),
            ("2026-03-01T23:30:00Z", "Europe/Berlin", "2026-03-02T00", "2026-03-02", "2026-W10"),
            ("2026-03-01T23:30:00+00:00", "+02:00", "2026-03-02T01", "2026-03-02", "2026-W10"),
            // New York is behind: the previous day.
            ("2026-03-01T03:00:00Z", "America/New_York", "2026-02-28T22", "2026-02-28", "2026-W09"),
            // Berlin summer time (UTC+2).
            ("2026-07-15T22:30:00Z", "Europe/Berlin", "2026-07-16T00", "2026-07-16", "2026-W29"),
            // ISO week years at the boundary: 2026 has 53 weeks.
            ("2027-01-01T12:00:00Z", "UTC", "2027-01-01T12", "2027-01-01", "2026-W53"),
            ("2027-01-03T12:00:00Z", "UTC", "2027-01-03T12", "2027-01-03", "2026-W53"),
            ("2027-01-04T00:00:00Z", "UTC", "2027-01-04T00", "2027-01-04", "2027-W01"),
            ("2024-12-30T12:00:00Z", "UTC", "2024-12-30T12", "2024-12-30", "2025-W01"),
            ("2026-01-01T00:00:00Z", "UTC", "2026-01-01T00", "2026-01-01", "2026-W01"),
            // The zone decides the ISO year too.
            ("2026-12-31T23:30:00Z", "Europe/Berlin", "2027-01-01T00", "2027-01-01", "2026-W53"),
            ("2027-01-03T23:30:00Z", "Europe/Berlin", "2027-01-04T00", "2027-01-04", "2027-W01"),
            // Far years keep a sortable ISO 8601 shape.
            ("0001-01-01T00:00:00Z", "UTC", "0001-01-01T00", "0001-01-01", "0001-W01"),
            ("9999-12-30T12:00:00Z", "UTC", "9999-12-30T12", "9999-12-30", "9999-W52"),
        ];
        for (t, zone, hour, day, week) in cases {
            let z = tz(zone);
            let t = ts(t);
            assert_eq!(bucket(t, Bucket::Hour, &z), hour, "hour {t} {zone}");
            assert_eq!(bucket(t, Bucket::Day, &z), day, "day {t} {zone}");
            assert_eq!(bucket(t, Bucket::Week, &z), week, "week {t} {zone}");
        }
        // Extremes of the representable range do not panic.
        for z in [TimeZone::UTC, tz("+14:00"), tz("-12:00")] {
            for t in [Timestamp::MIN, Timestamp::MAX] {
                for b in [Bucket::Hour, Bucket::Day, Bucket::Week] {
                    assert!(!bucket(t, b, &z).is_empty());
                }
            }
        }
    }

    #[test]
    fn bucket_labels_sort_chronologically() {
        let z = tz("Europe/Berlin");
        let mut t = ts("2025-12-20T00:00:00Z");
        let end = ts("2027-01-20T00:00:00Z");
        let mut last = [String::new(), String::new(), String::new()];
        while t < end {
            for (i, b) in [Bucket::Hour, Bucket::Day, Bucket::Week].into_iter().enumerate() {
                let label = bucket(t, b, &z);
                assert!(label >= last[i], "{label} after {}", last[i]);
                last[i] = label;
            }
            t = t.checked_add(SignedDuration::from_secs(1800)).unwrap();
        }
    }

    #[test]
    fn format_year_shapes() {
        assert_eq!(format_year(2026), "2026");
        assert_eq!(format_year(7), "0007");
        assert_eq!(format_year(-1), "-000001");
        assert_eq!(format_year(-9999), "-009999");
    }

    proptest! {
        #[test]
        fn parse_timestamp_never_panics(s in "\\PC*") {
            let _ = parse_timestamp(&s);
        }

        #[test]
        fn timestamp_like_strings_never_panic(
            s in "[0-9+-]{0,7}-[0-9]{1,3}-[0-9]{1,3}[Tt ][0-9]{1,3}:[0-9]{1,3}(:[0-9]{1,3}(\\.[0-9]{0,12})?)?(Z|z|[+-][0-9]{1,3}(:[0-9]{1,3})?)?(\\[[A-Za-z/_+-]{0,20}\\])?"
        ) {
            let _ = parse_timestamp(&s);
            for kind in [BoundKind::Since, BoundKind::Until] {
                let _ = parse_bound(&s, kind, Timestamp::MIN, &TimeZone::UTC);
                let _ = parse_bound(&s, kind, Timestamp::MAX, &TimeZone::fixed(jiff::tz::offset(14)));
            }
        }

        #[test]
        fn parse_bound_never_panics(s in "\\PC*", secs in any::<i32>()) {
            let now = Timestamp::from_second(i64::from(secs)).unwrap();
            for kind in [BoundKind::Since, BoundKind::Until] {
                let _ = parse_bound(&s, kind, now, &TimeZone::UTC);
            }
        }

        #[test]
        fn relative_like_strings_never_panic(s in "-?[0-9]{0,25}[a-zA-Z]{0,3}([0-9]{0,25}[a-z]{0,2}){0,3}") {
            for kind in [BoundKind::Since, BoundKind::Until] {
                let _ = parse_bound(&s, kind, Timestamp::MIN, &TimeZone::UTC);
                let _ = parse_bound(&s, kind, Timestamp::MAX, &TimeZone::UTC);
            }
        }

        #[test]
        fn tz_strings_never_panic(s in "\\PC{0,40}") {
            if let Ok(z) = parse_tz(&s) {
                let _ = tz_name(&z);
            }
        }

        #[test]
        fn format_round_trips(
            secs in Timestamp::MIN.as_second()..=Timestamp::MAX.as_second(),
            nanos in 0i32..1_000_000_000,
            offset_secs in -93_599i32..=93_599,
        ) {
            let Ok(t) = Timestamp::new(secs, nanos) else { return Ok(()) };
            let printed = format_timestamp(t);
            prop_assert_eq!(parse_timestamp(&printed), Some(t));
            // Any offset spelling of the same instant parses back to it too.
            let offset = Offset::from_seconds(offset_secs - offset_secs % 60).unwrap();
            let with_offset = t.display_with_offset(offset).to_string();
            if let Some(back) = parse_timestamp(&with_offset) {
                prop_assert_eq!(back, t);
            }
            // And an RFC 3339 string is a valid bound meaning the same instant.
            prop_assert_eq!(parse_bound(&printed, BoundKind::Until, Timestamp::UNIX_EPOCH, &TimeZone::UTC), Ok(t));
        }

        #[test]
        fn millis_between_matches_components(a in any::<i32>(), b in any::<i32>()) {
            let ta = Timestamp::from_millisecond(i64::from(a)).unwrap();
            let tb = Timestamp::from_millisecond(i64::from(b)).unwrap();
            prop_assert_eq!(millis_between(ta, tb), i64::from(b) - i64::from(a));
        }

        #[test]
        fn buckets_never_panic(secs in Timestamp::MIN.as_second()..=Timestamp::MAX.as_second(), offset_h in -25i8..=25) {
            let t = Timestamp::from_second(secs).unwrap();
            let z = TimeZone::fixed(jiff::tz::offset(offset_h));
            for b in [Bucket::Hour, Bucket::Day, Bucket::Week] {
                prop_assert!(!bucket(t, b, &z).is_empty());
            }
        }
    }
}
