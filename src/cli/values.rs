//! The value parsers of every flag that takes a size, a time or a time zone,
//! declared once and used by all five tools as clap `value_parser`s (and so
//! for the `CI_MAX_BYTES` environment default too).
//!
//! One error shape for a bad value: clap's
//! `error: invalid value 'V' for '--flag <NAME>': REASON`, exit 2, where
//! REASON says what is wrong and what is accepted, without repeating the
//! value or the flag. The few errors found after parsing (a `--since` date at
//! the end of the supported range in the `--tz` zone) use the same words:
//! `ci-TOOL: invalid value 'V' for '--since <TIME>': REASON` (see
//! [`TimeArg::resolve`]).
//!
//! - Sizes ([`size`], [`max_bytes`]): a whole number of bytes with an
//!   optional suffix `k`/`K` (×1024), `m`/`M` (×1024²) or `g`/`G` (×1024³);
//!   `1k` = `1K` = 1024. `--max-bytes` below [`MIN_MAX_BYTES`] is refused.
//! - Times ([`time`]): see [`crate::time`]; a relative age may be written
//!   `7d` or `-7d` (both: seven days ago).
//! - Time zones ([`tz`]): an IANA name, `UTC`, `±HH:MM` (`-05:00` too) or
//!   `local`.
//!
//! Flags whose value may start with `-` (`--since -7d`, `--tz -05:00`) are
//! declared with `allow_hyphen_values`, so clap does not take the value for
//! a flag.

use std::ffi::OsStr;

use clap::builder::{PossibleValue, TypedValueParser};

use crate::error::{Error, Result};
use crate::time::{BoundKind, TimeSpec, TimeZone, Timestamp};

pub use crate::units::{max_bytes, size, MIN_MAX_BYTES};

/// A parsed `--since`/`--until` value and its text (to name it in a later error).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimeArg {
    /// The value as given.
    pub text: String,
    /// What it means.
    pub spec: TimeSpec,
}

impl TimeArg {
    /// The instant for `flag` (`--since`, `--until`), given the current time
    /// and the `--tz` zone; the error has the shape of a clap value error.
    pub fn resolve(&self, flag: &str, kind: BoundKind, now: Timestamp, tz: &TimeZone) -> Result<Timestamp> {
        self.spec
            .resolve(kind, now, tz)
            .map_err(|e| Error::Usage(format!("invalid value '{}' for '{flag} <TIME>': {e}", self.text)))
    }
}

/// Parses a `--since`/`--until` value (resolved later by [`TimeArg::resolve`]).
pub fn time(s: &str) -> std::result::Result<TimeArg, String> {
    TimeSpec::parse(s).map(|spec| TimeArg { text: s.to_string(), spec })
}

/// Parses a `--tz` value.
pub fn tz(s: &str) -> std::result::Result<TimeZone, String> {
    crate::time::tz_value(s)
}

/// The value parser of a flag whose values are an open set with well-known
/// members (`--by event` or `--by data.x`, `--event tool:pre` or a glob):
/// any value `parse` accepts is taken; the known ones are what shell
/// completions offer (so they never offer file names there). Declare such a
/// flag with `hide_possible_values = true`: its help text says what is
/// accepted, and clap's "possible values" would read as the only ones.
#[derive(Clone)]
pub struct Known<T> {
    names: Vec<&'static str>,
    parse: fn(&str) -> std::result::Result<T, String>,
}

/// A [`Known`] parser of strings.
pub fn known(names: &[&'static str]) -> Known<String> {
    Known { names: names.to_vec(), parse: |s| Ok(s.to_owned()) }
}

/// A [`Known`] parser for `--event` names: the writers' event names
/// ([`crate::format::event_names`]) are offered, any name or glob is taken.
pub fn event_name() -> Known<String> {
    known(&crate::format::event_names())
}

impl<T> Known<T> {
    /// A [`Known`] parser of values `parse` makes.
    pub fn new(names: &[&'static str], parse: fn(&str) -> std::result::Result<T, String>) -> Known<T> {
        Known { names: names.to_vec(), parse }
    }
}

impl<T: Clone + Send + Sync + 'static> TypedValueParser for Known<T> {
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> std::result::Result<T, clap::Error> {
        // clap's parser for a function: its "invalid value" error shape.
        self.parse.parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(self.names.iter().map(|n| PossibleValue::new(*n))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        let ok = [
            ("0", 0),
            ("1", 1),
            ("1k", 1024),
            ("1K", 1024),
            (" 4k ", 4096),
            ("3m", 3 << 20),
            ("3M", 3 << 20),
            ("2g", 2 << 30),
            ("2G", 2 << 30),
            ("16777216G", 1 << 54),
        ];
        for (input, want) in ok {
            assert_eq!(size(input), Ok(want), "{input:?}");
        }
        for bad in ["", "k", "1.5k", "-1", "+1", "1kb", "1KiB", "1 k", "1T", "x", "１k", "99999999999999999999"] {
            let e = size(bad).expect_err(bad);
            assert!(e.contains("1024-based"), "{bad:?}: {e}");
        }
        assert!(size("17179869184G").unwrap_err().starts_with("too large"));
    }

    #[test]
    fn max_bytes_floor() {
        assert_eq!(max_bytes("1k"), Ok(MIN_MAX_BYTES));
        assert_eq!(max_bytes("1024"), Ok(1024));
        assert_eq!(max_bytes("1M"), Ok(1 << 20));
        for low in ["0", "1", "100", "1023"] {
            let e = max_bytes(low).expect_err(low);
            assert!(e.contains("1024 bytes"), "{e}");
        }
        assert!(max_bytes("1x").unwrap_err().contains("1024-based"));
    }

    #[test]
    fn times() {
        let now: Timestamp = "2026-03-10T00:00:00Z".parse().unwrap();
        let utc = TimeZone::UTC;
        let at = |s: &str, k| time(s).unwrap().resolve("--since", k, now, &utc).unwrap().to_string();
        assert_eq!(at("7d", BoundKind::Since), "2026-03-03T00:00:00Z");
        assert_eq!(at("-7d", BoundKind::Since), "2026-03-03T00:00:00Z");
        assert_eq!(at("-7d", BoundKind::Until), "2026-03-03T00:00:00Z");
        assert_eq!(at("2026-03-01", BoundKind::Until), "2026-03-01T00:00:00Z");
        assert_eq!(at("yesterday", BoundKind::Since), "2026-03-09T00:00:00Z");
        assert_eq!(at("2026-03-01T08:00-05:00", BoundKind::Since), "2026-03-01T13:00:00Z");
        assert!(time("tomorrow").is_err());
        let e = time("1s").unwrap().resolve("--until", BoundKind::Until, Timestamp::MIN, &utc).unwrap_err();
        assert!(
            e.to_string().starts_with("invalid value '1s' for '--until <TIME>': relative age reaches before"),
            "{e}"
        );
    }

    #[test]
    fn zones() {
        for (input, name) in
            [("-05:00", "-05:00"), ("+02:00", "+02:00"), ("UTC", "UTC"), ("europe/berlin", "Europe/Berlin")]
        {
            assert_eq!(tz(input).map(|z| crate::time::tz_name(&z)), Ok(name.to_string()), "{input}");
        }
        for bad in ["", "-5", "Mars/Base", "-05:60"] {
            assert!(tz(bad).expect_err(bad).contains("expected an IANA time zone name"), "{bad:?}");
        }
    }
}
