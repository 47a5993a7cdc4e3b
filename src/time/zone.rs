//! Time zones (`--tz`): parsing a zone value and naming the zone in use for
//! outputs.

use std::fmt::Write as _;

use jiff::tz::Offset;

use super::TimeZone;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::test_util::{ts, tz};
    use crate::time::{bucket, Bucket};
    use proptest::prelude::*;

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

    proptest! {
        #[test]
        fn tz_strings_never_panic(s in "\\PC{0,40}") {
            if let Ok(z) = parse_tz(&s) {
                let _ = tz_name(&z);
            }
        }
    }
}
