//! Time buckets for grouping: the wall-clock hour, day, ISO week or month
//! an instant falls in, as labels that sort chronologically.

use std::str::FromStr;

use jiff::civil::Weekday;

use super::{TimeZone, Timestamp};

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
    /// Weeks from this day (`--week-start`), labelled by their first date:
    /// `2026-03-01`. Named `week`, as ISO weeks are.
    WeekFrom(Weekday),
}

impl Bucket {
    /// The name accepted by [`FromStr`]: `hour`, `day`, `week` or `month`.
    pub fn as_str(self) -> &'static str {
        match self {
            Bucket::Hour => "hour",
            Bucket::Day => "day",
            Bucket::Week | Bucket::WeekFrom(_) => "week",
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
        Bucket::WeekFrom(first) => {
            let back = i64::from(date.weekday().since(first));
            let start = date.checked_sub(jiff::Span::new().days(back)).unwrap_or(date);
            format!("{}-{:02}-{:02}", format_year(start.year()), start.month(), start.day())
        }
    }
}

/// A day of the week by name (`monday`, …, `sunday`) or its first three
/// letters, any case.
///
/// ```
/// use ci_tools::time::{parse_weekday, Weekday};
/// assert_eq!(parse_weekday("Sun"), Some(Weekday::Sunday));
/// assert_eq!(parse_weekday("sundays"), None);
/// ```
pub fn parse_weekday(s: &str) -> Option<Weekday> {
    const DAYS: [(&str, Weekday); 7] = [
        ("monday", Weekday::Monday),
        ("tuesday", Weekday::Tuesday),
        ("wednesday", Weekday::Wednesday),
        ("thursday", Weekday::Thursday),
        ("friday", Weekday::Friday),
        ("saturday", Weekday::Saturday),
        ("sunday", Weekday::Sunday),
    ];
    let s = s.trim().to_ascii_lowercase();
    DAYS.iter().find(|(name, _)| s == *name || (s.len() == 3 && name.starts_with(&s))).map(|(_, d)| *d)
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
    use crate::time::test_util::{ts, tz};
    use jiff::SignedDuration;
    use proptest::prelude::*;

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
    fn weeks_from_a_day_are_labelled_by_their_first_date() {
        // 2026-03-01 is a Sunday.
        let utc = TimeZone::UTC;
        let cases = [
            ("2026-03-01T08:00:00Z", Weekday::Sunday, "2026-03-01"),
            ("2026-03-01T08:00:00Z", Weekday::Monday, "2026-02-23"),
            ("2026-03-02T00:00:00Z", Weekday::Monday, "2026-03-02"),
            ("2026-03-07T23:59:59Z", Weekday::Saturday, "2026-03-07"),
            ("2026-03-06T23:59:59Z", Weekday::Saturday, "2026-02-28"),
            // Across a year's end.
            ("2027-01-01T12:00:00Z", Weekday::Sunday, "2026-12-27"),
        ];
        for (t, first, label) in cases {
            assert_eq!(bucket(ts(t), Bucket::WeekFrom(first), &utc), label, "{t} from {first:?}");
        }
        // The zone decides the day: 23:30 UTC Saturday is Sunday in Berlin.
        assert_eq!(
            bucket(ts("2026-03-07T23:30:00Z"), Bucket::WeekFrom(Weekday::Sunday), &tz("Europe/Berlin")),
            "2026-03-08"
        );
        for t in [Timestamp::MIN, Timestamp::MAX] {
            assert!(!bucket(t, Bucket::WeekFrom(Weekday::Sunday), &utc).is_empty());
        }
        assert_eq!(parse_weekday(" MONDAY "), Some(Weekday::Monday));
        assert_eq!(parse_weekday("tue"), Some(Weekday::Tuesday));
        assert_eq!(parse_weekday("t"), None);
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
        fn buckets_never_panic(secs in Timestamp::MIN.as_second()..=Timestamp::MAX.as_second(), offset_h in -25i8..=25) {
            let t = Timestamp::from_second(secs).unwrap();
            let z = TimeZone::fixed(jiff::tz::offset(offset_h));
            for b in [Bucket::Hour, Bucket::Day, Bucket::Week] {
                prop_assert!(!bucket(t, b, &z).is_empty());
            }
        }
    }
}
