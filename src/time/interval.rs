//! [`Interval`]: the time window `[since, until)` of a run, resolved to
//! instants, which also travels with the session records ci-find and
//! ci-filter print (`"window":{"since":…,"until":…}`), so the tools that read
//! those records' events keep to the window the records were selected by.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{format_timestamp, parse_timestamp, Timestamp};

/// A time window: `since <= t < until`, either end open.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Interval {
    /// Inclusive lower bound.
    pub since: Option<Timestamp>,
    /// Exclusive upper bound.
    pub until: Option<Timestamp>,
}

impl Interval {
    /// The window of `--since` and `--until`.
    pub fn new(since: Option<Timestamp>, until: Option<Timestamp>) -> Interval {
        Interval { since, until }
    }

    /// Whether neither end is set (every time is in it).
    pub fn is_open(&self) -> bool {
        self.since.is_none() && self.until.is_none()
    }

    /// Whether `t` is in the window.
    pub fn contains(&self, t: Timestamp) -> bool {
        self.since.is_none_or(|s| t >= s) && self.until.is_none_or(|u| t < u)
    }

    /// The times in both windows: the later `since`, the earlier `until`.
    pub fn and(self, other: Interval) -> Interval {
        let later = |a: Option<Timestamp>, b: Option<Timestamp>| a.max(b);
        let earlier = |a: Option<Timestamp>, b: Option<Timestamp>| match (a, b) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        Interval { since: later(self.since, other.since), until: earlier(self.until, other.until) }
    }

    /// Writes the window as a JSON object, `{"since":"…Z","until":null}`
    /// (instants as [`format_timestamp`] prints them).
    pub fn write_json(&self, out: &mut Vec<u8>) {
        let end = |out: &mut Vec<u8>, t: Option<Timestamp>| match t {
            Some(t) => {
                out.push(b'"');
                out.extend_from_slice(format_timestamp(t).as_bytes());
                out.push(b'"');
            }
            None => out.extend_from_slice(b"null"),
        };
        out.extend_from_slice(b"{\"since\":");
        end(out, self.since);
        out.extend_from_slice(b",\"until\":");
        end(out, self.until);
        out.push(b'}');
    }
}

/// Written as [`Interval::write_json`] writes it.
impl Serialize for Interval {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("Interval", 2)?;
        st.serialize_field("since", &self.since.map(format_timestamp))?;
        st.serialize_field("until", &self.until.map(format_timestamp))?;
        st.end()
    }
}

/// Read from a session record: each end an RFC 3339 instant or null; any
/// other value is an error (the record is then refused, not read unbounded).
impl<'de> Deserialize<'de> for Interval {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Interval, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Raw {
            #[serde(default)]
            since: Option<String>,
            #[serde(default)]
            until: Option<String>,
        }
        let raw = Raw::deserialize(d)?;
        let end = |v: Option<String>, name: &str| -> Result<Option<Timestamp>, D::Error> {
            v.map(|s| {
                parse_timestamp(&s)
                    .ok_or_else(|| serde::de::Error::custom(format!("window.{name} is not an RFC 3339 time: {s:?}")))
            })
            .transpose()
        };
        Ok(Interval { since: end(raw.since, "since")?, until: end(raw.until, "until")? })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::test_util::ts;

    #[test]
    fn contains_and_intersection() {
        let w = Interval::new(Some(ts("2026-03-01T00:00:00Z")), Some(ts("2026-03-02T00:00:00Z")));
        assert!(w.contains(ts("2026-03-01T00:00:00Z")));
        assert!(w.contains(ts("2026-03-01T23:59:59Z")));
        assert!(!w.contains(ts("2026-03-02T00:00:00Z")));
        assert!(!w.contains(ts("2026-02-28T23:59:59Z")));
        assert!(Interval::default().is_open() && Interval::default().contains(ts("1970-01-01T00:00:00Z")));
        let later = Interval::new(Some(ts("2026-03-01T12:00:00Z")), None);
        assert_eq!(w.and(later), Interval::new(later.since, w.until));
        assert_eq!(later.and(w), w.and(later));
        assert_eq!(w.and(Interval::default()), w);
    }

    #[test]
    fn json_round_trip() {
        let w = Interval::new(Some(ts("2026-03-01T08:00:00.5Z")), None);
        let mut out = vec![];
        w.write_json(&mut out);
        assert_eq!(out, br#"{"since":"2026-03-01T08:00:00.5Z","until":null}"#);
        assert_eq!(serde_json::from_slice::<Interval>(&out).unwrap(), w);
        assert!(serde_json::from_str::<Interval>(r#"{"since":"yesterday"}"#).is_err());
        assert!(serde_json::from_str::<Interval>(r#"{"since":null,"other":1}"#).is_err());
    }
}
