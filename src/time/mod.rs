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
//! | date | `2026-03-01` | the start of that day in the `--tz` zone (for both: `--until` is exclusive) |
//! | period word | `today`, `yesterday`, `this-week`, `last-week`, `this-month`, `last-month` | the start of that period around now in the `--tz` zone (weeks from Monday) |
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
//! - A date is the start of that day in the `--tz` zone, for `--until` too
//!   (exclusive, as the help says), so `--since 2026-03-01 --until 2026-03-02`
//!   selects exactly 2026-03-01, and `--since 2026-03-01 --until 2026-03-03`
//!   the 1st and 2nd; a period word likewise (`--since yesterday --until
//!   today` is yesterday, `--since last-month --until this-month` last month). The start
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
//!
//! The parts: capture timestamps (`stamp`), `--since`/`--until` values
//! (`bound`), zones (`zone`) and buckets (`bucket`).

pub use jiff::tz::TimeZone;
pub use jiff::Timestamp;

mod bound;
mod bucket;
mod interval;
mod stamp;
mod zone;

pub use bound::{parse_bound, parse_duration, BoundKind, Period, TimeSpec};
pub use bucket::{bucket, parse_weekday, Bucket};
pub use interval::Interval;
pub use jiff::civil::Weekday;
pub use stamp::{earliest, format_timestamp, from_millis, millis_between, now, parse_timestamp};
pub use zone::{parse_tz, tz_name, tz_value};

/// Helpers of the unit tests of every part.
#[cfg(test)]
mod test_util {
    use super::*;

    pub(super) fn ts(s: &str) -> Timestamp {
        s.parse().unwrap_or_else(|e| panic!("bad test timestamp {s:?}: {e}"))
    }

    pub(super) fn tz(name: &str) -> TimeZone {
        parse_tz(name).unwrap_or_else(|e| panic!("{e}"))
    }

    pub(super) const NOW: &str = "2026-03-10T12:00:00Z";
}
