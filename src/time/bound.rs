//! `--since`/`--until` values: [`TimeSpec`] parsed at the command line and
//! resolved to an instant once the `--tz` zone and the current time are known.
//! See the [module documentation](super) for the accepted forms.

use jiff::civil::{Date, DateTime};
use jiff::{SignedDuration, ZonedDateTime};

use super::{TimeZone, Timestamp};

/// Which end of a range a bound is for. Every form means the same instant
/// for both (a date or a period word is its first instant; `--until` is
/// exclusive, so `--since 2026-03-01 --until 2026-03-02` is the 1st alone);
/// the kind names the end in messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoundKind {
    /// Lower bound, inclusive.
    Since,
    /// Upper bound, exclusive.
    Until,
}

/// The accepted forms, quoted in every bound error message.
const BOUND_FORMS: &str = "expected an RFC 3339 timestamp (2026-03-01T08:00:00Z, any \
     fraction, Z or an offset like +02:00), a date-time in the --tz zone \
     (2026-03-01T08:00), a date (2026-03-01), a relative age (90s, 30m, 2h, 7d \
     or -7d, 2w, 1h30m), \"now\", or the start of a period: today, yesterday, \
     this-week, last-week, this-month, last-month";

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
    /// The start of a calendar period around now, in the `--tz` zone.
    Period(Period),
}

/// The calendar periods a bound can name by a word: each means its first
/// instant in the `--tz` zone (weeks start on Monday, as ISO weeks do).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Period {
    /// `today`: the current day.
    Today,
    /// `yesterday`: the day before.
    Yesterday,
    /// `this-week`: the current week, from Monday.
    ThisWeek,
    /// `last-week`: the week before.
    LastWeek,
    /// `this-month`: the current month.
    ThisMonth,
    /// `last-month`: the month before.
    LastMonth,
}

impl Period {
    /// The words, as typed (`this_week` and `thisweek` are taken too).
    pub const WORDS: [(&'static str, Period); 6] = [
        ("today", Period::Today),
        ("yesterday", Period::Yesterday),
        ("this-week", Period::ThisWeek),
        ("last-week", Period::LastWeek),
        ("this-month", Period::ThisMonth),
        ("last-month", Period::LastMonth),
    ];

    fn parse(v: &str) -> Option<Period> {
        let norm: String = v.chars().filter(|c| !matches!(c, '-' | '_')).collect::<String>().to_ascii_lowercase();
        Period::WORDS.iter().find(|(w, _)| w.replace('-', "") == norm).map(|&(_, p)| p)
    }

    /// The first day of the period that holds `today`.
    fn first_day(self, today: Date) -> Result<Date, jiff::Error> {
        use jiff::ToSpan;
        let monday = |d: Date| d.checked_sub((d.weekday().to_monday_zero_offset() as i32).days());
        match self {
            Period::Today => Ok(today),
            Period::Yesterday => today.yesterday(),
            Period::ThisWeek => monday(today),
            Period::LastWeek => monday(today)?.checked_sub(7.days()),
            Period::ThisMonth => Ok(today.first_of_month()),
            Period::LastMonth => today.first_of_month().checked_sub(1.month()),
        }
    }
}

impl TimeSpec {
    /// Parses a bound; see the [module documentation](super) for the forms. A
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
        if let Some(p) = Period::parse(v) {
            return Ok(TimeSpec(Form::Period(p)));
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
    pub fn resolve(&self, _kind: BoundKind, now: Timestamp, tz: &TimeZone) -> Result<Timestamp, String> {
        match self.0 {
            Form::Now => Ok(now),
            Form::Ago(secs) => now
                .checked_sub(SignedDuration::from_secs(secs))
                .map_err(|_| bound_reason(Some("relative age reaches before the earliest supported time"))),
            Form::Instant(ts) => Ok(ts),
            Form::Date(date) => start_of_day(date, tz).map_err(|d| bound_reason(Some(&d))),
            Form::Local(dt) => tz.to_timestamp(dt).map_err(|e| bound_reason(Some(&e.to_string()))),
            Form::Period(p) => p
                .first_day(tz.to_datetime(now).date())
                .map_err(|e| e.to_string())
                .and_then(|day| start_of_day(day, tz))
                .map_err(|d| bound_reason(Some(&d))),
        }
    }
}

/// Parses a `--since`/`--until` value into an instant: [`TimeSpec::parse`]
/// then [`TimeSpec::resolve`].
///
/// See the [module documentation](super) for the accepted forms: `now`, relative
/// ages (`30m`, `2h`, `7d`, `1h30m`, also written `-7d`) counted back from `now`,
/// RFC 3339 timestamps, date-times without offset (read in `tz`), dates
/// (`YYYY-MM-DD`: the start of that day in `tz`, for either kind: `--until`
/// is exclusive) and period words (`today`, `last-month`: the period's start).
/// Errors quote the value and list the accepted forms. Never panics.
///
/// ```
/// use ci_tools::time::{parse_bound, parse_timestamp, BoundKind, TimeZone};
/// let now = parse_timestamp("2026-03-10T12:00:00Z").unwrap();
/// let utc = TimeZone::UTC;
/// let since = parse_bound("2026-03-01", BoundKind::Since, now, &utc).unwrap();
/// let until = parse_bound("2026-03-01", BoundKind::Until, now, &utc).unwrap();
/// assert_eq!(since.to_string(), "2026-03-01T00:00:00Z");
/// assert_eq!(until.to_string(), "2026-03-01T00:00:00Z");
/// let month = parse_bound("this-month", BoundKind::Since, now, &utc).unwrap();
/// assert_eq!(month.to_string(), "2026-03-01T00:00:00Z");
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

/// Parses a duration of whole seconds as relative ages are written (`1s`,
/// `30s`, `2m`, `1m30s`; units s, m, h, d, w), or a bare number of seconds;
/// at least one second.
pub fn parse_duration(v: &str) -> Result<std::time::Duration, String> {
    let v = v.trim();
    let secs = if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) {
        v.parse::<i64>().map_err(|_| format!("number {v:?} is too large"))?
    } else {
        parse_relative(v).unwrap_or_else(|| Err(format!("expected a duration such as 1s, 30s or 2m, not {v:?}")))?
    };
    match u64::try_from(secs) {
        Ok(s) if s > 0 => Ok(std::time::Duration::from_secs(s)),
        _ => Err("the duration must be at least 1s".into()),
    }
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

#[cfg(test)]
mod tests;
