use super::*;
use crate::time::test_util::ts;
use crate::time::{parse_bound, BoundKind, TimeZone};
use jiff::tz::Offset;
use proptest::prelude::*;

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
}
