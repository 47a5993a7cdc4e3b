//! Time parsing: `parse_timestamp`, `parse_bound`, `parse_tz`, `bucket`,
//! `format_timestamp`, `millis_between` on arbitrary strings and instants.
//!
//! Properties:
//! - none of them panics, whatever the strings, `now` or zone;
//! - `format_timestamp(parse_timestamp(s)?)` parses back to the same instant,
//!   and so does `parse_bound` of it (an RFC 3339 bound is that instant);
//! - `parse_bound("now")` is `now`; a relative age is never after `now`;
//! - a zone from `parse_tz` has a name (`tz_name`) that, for IANA names and
//!   fixed offsets, `parse_tz` reads back to a zone with the same offset;
//! - in a fixed-offset zone, bucket labels of years 0000–9999 never go down
//!   as the instant goes up (labels sort chronologically).
#![no_main]

use arbitrary::Arbitrary;
use ci_tools::time::{
    bucket, format_timestamp, millis_between, parse_bound, parse_timestamp, parse_tz, tz_name, BoundKind, Bucket,
    TimeZone, Timestamp,
};
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
struct Input<'a> {
    text: &'a str,
    tz: &'a str,
    /// Selects `now`, a second instant and the zone for buckets.
    now_secs: i64,
    other_secs: i64,
    nanos: u32,
    pick: u8,
}

fn instant(secs: i64, nanos: u32) -> Timestamp {
    let min = Timestamp::MIN.as_second();
    let max = Timestamp::MAX.as_second() - 1;
    let secs = min + secs.rem_euclid(max - min);
    Timestamp::new(secs, (nanos % 1_000_000_000) as i32).unwrap_or(Timestamp::UNIX_EPOCH)
}

fuzz_target!(|input: Input<'_>| {
    let now = instant(input.now_secs, input.nanos);
    let other = instant(input.other_secs, input.nanos / 3);

    // A zone: the fuzzed one when it parses, else a fixed choice.
    let parsed_tz = parse_tz(input.tz);
    let tz = match &parsed_tz {
        Ok(tz) => tz.clone(),
        Err(e) => {
            assert!(!e.is_empty());
            match input.pick % 3 {
                0 => TimeZone::UTC,
                1 => parse_tz("+05:30").expect("fixed offset"),
                _ => parse_tz("America/New_York").expect("bundled zone"),
            }
        }
    };
    let name = tz_name(&tz);
    assert!(!name.is_empty());
    if tz.iana_name().is_some() || tz.to_fixed_offset().is_ok() {
        let again = parse_tz(&name).unwrap_or_else(|e| panic!("{name:?} does not parse: {e}"));
        assert_eq!(again.to_offset(now), tz.to_offset(now), "{name}");
    }

    // Timestamps.
    if let Some(ts) = parse_timestamp(input.text) {
        let shown = format_timestamp(ts);
        assert_eq!(parse_timestamp(&shown), Some(ts), "{shown}");
        for kind in [BoundKind::Since, BoundKind::Until] {
            assert_eq!(parse_bound(&shown, kind, now, &tz), Ok(ts));
        }
        let _ = millis_between(ts, now);
        let _ = millis_between(now, ts);
    }

    // Bounds.
    for kind in [BoundKind::Since, BoundKind::Until] {
        match parse_bound(input.text, kind, now, &tz) {
            Ok(ts) => {
                let _ = format_timestamp(ts);
                let v = input.text.trim();
                if v.eq_ignore_ascii_case("now") {
                    assert_eq!(ts, now);
                } else if v.ends_with(['s', 'm', 'h', 'd', 'w']) && v.starts_with(|c: char| c.is_ascii_digit()) {
                    assert!(ts <= now, "relative age {v:?} after now");
                }
            }
            Err(e) => assert!(e.contains("invalid time"), "{e}"),
        }
    }

    // Buckets.
    for b in [Bucket::Hour, Bucket::Day, Bucket::Week] {
        let a = bucket(now, b, &tz);
        let c = bucket(other, b, &tz);
        assert!(!a.is_empty() && !c.is_empty());
        let in_range = |ts: Timestamp| {
            let y = tz.to_datetime(ts).date().year();
            (1..=9998).contains(&y)
        };
        if tz.to_fixed_offset().is_ok() && in_range(now) && in_range(other) {
            let (lo, hi) = if now <= other { (&a, &c) } else { (&c, &a) };
            assert!(lo <= hi, "{b}: {lo} after {hi}");
        }
    }
    let _ = input.text.parse::<Bucket>();
});
