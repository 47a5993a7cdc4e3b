use super::*;
use crate::time::test_util::{ts, tz, NOW};
use crate::time::{tz_name, tz_value};
use proptest::prelude::*;

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
        ("2026-03-01", "UTC", "2026-03-01T00:00:00Z", "2026-03-01T00:00:00Z"),
        ("2026-02-28", "UTC", "2026-02-28T00:00:00Z", "2026-02-28T00:00:00Z"),
        ("2024-02-28", "UTC", "2024-02-28T00:00:00Z", "2024-02-28T00:00:00Z"),
        ("2026-12-31", "UTC", "2026-12-31T00:00:00Z", "2026-12-31T00:00:00Z"),
        ("2026-03-01", "America/New_York", "2026-03-01T05:00:00Z", "2026-03-01T05:00:00Z"),
        // DST starts 2026-03-08 in New York: a 23-hour day.
        ("2026-03-08", "America/New_York", "2026-03-08T05:00:00Z", "2026-03-08T05:00:00Z"),
        // DST ends 2026-11-01: a 25-hour day.
        ("2026-11-01", "America/New_York", "2026-11-01T04:00:00Z", "2026-11-01T04:00:00Z"),
        ("2026-03-01", "Europe/Berlin", "2026-02-28T23:00:00Z", "2026-02-28T23:00:00Z"),
        ("2026-03-01", "+05:30", "2026-02-28T18:30:00Z", "2026-02-28T18:30:00Z"),
        // Midnight skipped by DST (Brazil 2018): the day starts at 01:00 -02.
        ("2018-11-04", "America/Sao_Paulo", "2018-11-04T03:00:00Z", "2018-11-04T03:00:00Z"),
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

/// `--until` is exclusive and a date means its start (issue 31, item 7):
/// `--since D --until D+1` is the whole day D, of 23 or 25 hours across DST.
#[test]
fn a_date_until_is_its_start() {
    let now = ts(NOW);
    let z = tz("Europe/Berlin");
    let s = parse_bound("2026-03-01", BoundKind::Since, now, &z).unwrap();
    let u = parse_bound("2026-03-02", BoundKind::Until, now, &z).unwrap();
    assert_eq!(parse_bound("2026-03-01", BoundKind::Until, now, &z).unwrap(), s);
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
    let ny = tz("America/New_York");
    let start = |d: &str| parse_bound(d, BoundKind::Since, now, &ny).unwrap();
    assert_eq!((start("2026-03-09") - start("2026-03-08")).as_hours(), 23);
    assert_eq!((start("2026-11-02") - start("2026-11-01")).as_hours(), 25);
}

/// The period words (issue 31, item 3): each is its period's start in the
/// zone, for both ends; weeks start on Monday. NOW is Tuesday 2026-03-10
/// 12:00 UTC.
#[test]
fn period_words_are_their_start() {
    let now = ts(NOW);
    let cases = [
        ("today", "UTC", "2026-03-10T00:00:00Z"),
        ("Today", "UTC", "2026-03-10T00:00:00Z"),
        ("yesterday", "UTC", "2026-03-09T00:00:00Z"),
        ("this-week", "UTC", "2026-03-09T00:00:00Z"),
        ("this_week", "UTC", "2026-03-09T00:00:00Z"),
        ("last-week", "UTC", "2026-03-02T00:00:00Z"),
        ("this-month", "UTC", "2026-03-01T00:00:00Z"),
        ("last-month", "UTC", "2026-02-01T00:00:00Z"),
        // 12:00 UTC is already the 11th in Kiritimati (+14:00)...
        ("today", "Pacific/Kiritimati", "2026-03-10T10:00:00Z"),
        // ... and still the 10th in Los Angeles (-07:00 after DST began on the 8th).
        ("today", "America/Los_Angeles", "2026-03-10T07:00:00Z"),
        ("yesterday", "America/Los_Angeles", "2026-03-09T07:00:00Z"),
        ("this-month", "America/Los_Angeles", "2026-03-01T08:00:00Z"),
    ];
    for (word, zone, want) in cases {
        for kind in [BoundKind::Since, BoundKind::Until] {
            let got = parse_bound(word, kind, now, &tz(zone)).unwrap();
            assert_eq!(got.to_string(), want, "{word} in {zone}");
        }
    }
    // January: last month is in the year before; a Sunday's week began on Monday.
    let jan = ts("2026-01-04T12:00:00Z");
    assert_eq!(
        parse_bound("last-month", BoundKind::Since, jan, &TimeZone::UTC).unwrap().to_string(),
        "2025-12-01T00:00:00Z"
    );
    assert_eq!(
        parse_bound("this-week", BoundKind::Since, jan, &TimeZone::UTC).unwrap().to_string(),
        "2025-12-29T00:00:00Z"
    );
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
        ("tomorrow", "expected"),
        ("last-year", "expected"),
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
            assert_eq!(parse_bound(minus, kind, now, &TimeZone::UTC), parse_bound(plain, kind, now, &TimeZone::UTC));
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
    // Past jiff's last instant (9999-12-30T22:00Z less offsets): an error, not a panic.
    assert!(parse_bound("9999-12-31", BoundKind::Until, now, &TimeZone::UTC).is_err());
    assert!(parse_bound("1s", BoundKind::Since, Timestamp::MIN, &TimeZone::UTC).is_err());
    assert_eq!(parse_bound("0s", BoundKind::Since, Timestamp::MIN, &TimeZone::UTC), Ok(Timestamp::MIN));
}

#[test]
fn durations_of_whole_seconds() {
    use std::time::Duration;
    assert_eq!(super::parse_duration("1s"), Ok(Duration::from_secs(1)));
    assert_eq!(super::parse_duration("2"), Ok(Duration::from_secs(2)));
    assert_eq!(super::parse_duration("1m30s"), Ok(Duration::from_secs(90)));
    for bad in ["0", "0s", "", "1ms", "soon", "-1s", "99999999999999999999"] {
        assert!(super::parse_duration(bad).is_err(), "{bad}");
    }
}

proptest! {
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
}
