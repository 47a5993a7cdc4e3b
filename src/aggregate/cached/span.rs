//! A kept capture's times: the earliest and latest timestamp of the events
//! the question visits of it, and how many it visits without a usable one
//! (issue 33: time-window pruning). A run with `--since`/`--until` skips an
//! unchanged capture whose every timed event is outside its window without
//! reading it or decoding its state: reading it would visit nothing, since
//! the window is applied event by event ([`crate::source`]'s `in_window`).
//!
//! Every entry's payload starts with its span ([`Span::write`]), then the
//! question's state; an entry written by a windowed run holds the span only
//! ([`Span::read`] leaves nothing after it), since such a run visits only
//! the window's events of what it reads.

use crate::codec::Reader;
use crate::record::Event;
use crate::time::{Interval, Timestamp};

/// The times of the events visited of a capture ([`Span::saw`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Span {
    /// Whether every event of the capture was seen (a capture read in
    /// parts by several threads keeps none: never pruned).
    pub known: bool,
    /// The earliest and latest timestamps (none: no timed event).
    pub times: Option<(Timestamp, Timestamp)>,
    /// Events without a usable timestamp that a window reports as such
    /// (not those their writer never stamps: [`Event::untimed_by_design`]).
    pub untimed: u64,
}

/// A span's first byte: known.
const KNOWN: u8 = 1;
/// A span's first byte: known and with times.
const TIMED: u8 = 2;

impl Span {
    /// The span of a capture about to be read whole (from the start).
    pub fn start() -> Span {
        Span { known: true, ..Span::default() }
    }

    /// Notes an event visited (in the window or not).
    pub fn saw(&mut self, ev: &Event<'_>) {
        match ev.timestamp() {
            Some(t) => {
                self.times = Some(match self.times {
                    Some((lo, hi)) => (lo.min(t), hi.max(t)),
                    None => (t, t),
                });
            }
            None if ev.untimed_by_design() => {}
            None => self.untimed += 1,
        }
    }

    /// Whether no event of the capture is in `window` (a closed window:
    /// an open one holds every event).
    pub fn outside(&self, window: &Interval) -> bool {
        if !self.known || window.is_open() {
            return false;
        }
        match self.times {
            None => true,
            Some((lo, hi)) => window.since.is_some_and(|s| hi < s) || window.until.is_some_and(|u| lo >= u),
        }
    }

    /// Writes the span (at the head of an entry's payload).
    pub fn write(&self, out: &mut Vec<u8>) {
        match (self.known, self.times) {
            (false, _) => out.push(0),
            (true, None) => out.push(KNOWN),
            (true, Some((lo, hi))) => {
                out.push(TIMED);
                out.extend_from_slice(&lo.as_nanosecond().to_le_bytes());
                out.extend_from_slice(&hi.as_nanosecond().to_le_bytes());
            }
        }
        crate::codec::put_varint(out, self.untimed);
    }

    /// A span written by [`Span::write`] at the head of `payload`, and the
    /// bytes after it (`None`: not one).
    pub fn read(payload: &[u8]) -> Option<(Span, &[u8])> {
        let mut r = Reader(payload);
        let mut span = Span::default();
        match r.u8()? {
            0 => {}
            KNOWN => span.known = true,
            TIMED => {
                let mut time = || Timestamp::from_nanosecond(r.i128()?).ok();
                let (lo, hi) = (time()?, time()?);
                (lo <= hi).then_some(())?;
                span = Span { known: true, times: Some((lo, hi)), untimed: 0 };
            }
            _ => return None,
        }
        span.untimed = r.varint()?;
        Some((span, r.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    #[test]
    fn written_spans_read_back_with_what_follows() {
        let spans = [
            Span::default(),
            Span { known: true, times: None, untimed: 3 },
            Span { known: true, times: Some((at("2026-05-30T00:00:00Z"), at("2026-05-30T23:59:59.5Z"))), untimed: 0 },
        ];
        for s in spans {
            let mut out = Vec::new();
            s.write(&mut out);
            out.extend_from_slice(b"state");
            assert_eq!(Span::read(&out), Some((s, &b"state"[..])));
        }
        assert_eq!(Span::read(&[9, 0]), None);
        assert_eq!(Span::read(&[TIMED, 1, 2]), None);
    }

    #[test]
    fn a_span_is_outside_a_window_only_when_every_time_is() {
        let day = |d: &str| Interval::new(Some(at(&format!("{d}T00:00:00Z"))), None);
        let s = Span { known: true, times: Some((at("2026-05-29T23:00:00Z"), at("2026-05-30T00:00:00Z"))), untimed: 0 };
        assert!(!s.outside(&day("2026-05-30")), "the latest time is the bound itself: in");
        assert!(s.outside(&day("2026-05-31")));
        let until = Interval::new(None, Some(at("2026-05-29T23:00:00Z")));
        assert!(s.outside(&until), "until is exclusive");
        assert!(!s.outside(&Interval::default()), "an open window holds everything");
        assert!(!Span { known: false, ..s }.outside(&day("2026-05-31")));
        assert!(Span { known: true, times: None, untimed: 2 }.outside(&day("2026-05-31")));
    }
}
