//! Piped event lines (a batch read from stdin), as a worker visits them:
//! records printed cut are made whole again, session records that reached
//! a batch are expanded in their place.

use super::capture::in_window;
use super::stdin::session_record;
use super::worker::{Worker, CHUNK};
use super::Visitor;
use crate::diag::Diag;
use crate::format::LineKind;
use crate::record::Event;
use crate::session::{self, Capture};
use crate::time::Interval;

/// Why a piped event record must not be used: the session it names (its
/// provenance's, else the one its payload names) is not a plain directory
/// name ([`crate::session::unsafe_name`]), so no tool may take it for a
/// session, print it in a session record or join it to a path. An empty
/// id is no id.
pub(super) fn unsafe_session(rec: &crate::json::Record<'_>) -> Option<String> {
    let id = Event::piped(*rec, 0, "-").session().filter(|s| !s.is_empty())?;
    session::unsafe_name(&id).then(|| session::unsafe_id_message(&id))
}

impl Worker<'_> {
    /// Visits a batch of piped lines; with `open_tail`, the last line had no
    /// `\n` and is treated as a capture's last line is: when it does not
    /// parse, it is counted as unfinished, not reported.
    pub(super) fn piped<V: Visitor>(&mut self, v: &mut V, buf: &[u8], first: u64, open_tail: bool) -> bool {
        let lazy = v.lazy();
        let body = buf.strip_suffix(b"\n").unwrap_or(buf);
        // memchr, not `split`: a byte-at-a-time split of every piped byte
        // cost more than parsing the lines.
        let ends = memchr::memchr_iter(b'\n', body).chain(std::iter::once(body.len()));
        let mut start = 0;
        for (i, end) in ends.enumerate() {
            let bytes = &body[start..end];
            start = end + 1;
            let number = first + i as u64;
            if !self.follow && crate::signal::stop_requested() || self.diag.is_stopped() {
                return false;
            }
            let unfinished = open_tail && end == body.len();
            // A cut record's pre-check must see its whole line, not the cut text.
            let pre = unfinished || v.precheck(bytes);
            if !pre && !crate::reread::maybe_cut(bytes) {
                continue;
            }
            let parsed = if lazy { self.idx.skim(bytes) } else { self.idx.parse(bytes) };
            match parsed {
                Ok(rec) => match LineKind::of(&rec) {
                    LineKind::Event if unsafe_session(&rec).is_some() => {
                        let reason = unsafe_session(&rec).unwrap_or_default();
                        self.diag.error(&format_args!("-:{number}: {reason}"));
                    }
                    LineKind::Event => match self.reread.fetch(&rec) {
                        Ok(None) => {
                            let ev = Event::piped(rec, number, "-");
                            visit(v, &ev, &self.parts.window, self.diag, &mut self.out);
                        }
                        // A cut record: the tool works on the whole one, unless
                        // neither its cut text nor its line can hold what the
                        // tool looks for (the whole is made of the two).
                        Ok(Some(_)) if !pre && !v.precheck(self.reread.line()) => {}
                        Ok(Some((site, hash))) => match self.reread.build(&rec) {
                            // Skimmed: made of the record as parsed above and of
                            // the line the first tool validated.
                            Ok(()) => match self.whole_idx.skim(self.reread.full()) {
                                Ok(whole) => {
                                    let ev = Event::piped(whole, number, "-").reread(site, hash);
                                    visit(v, &ev, &self.parts.window, self.diag, &mut self.out);
                                }
                                Err(e) => self
                                    .diag
                                    .error(&format_args!("-:{number}: the record made whole is not valid: {e}")),
                            },
                            Err(reason) => self.diag.error(&format_args!("-:{number}: {reason}")),
                        },
                        Err(reason) => self.diag.error(&format_args!("-:{number}: {reason}")),
                    },
                    // One the producer's byte check took for an event record.
                    LineKind::Session => match session_record(bytes) {
                        Ok(r) => {
                            if let Some(reason) = Capture::unsafe_record(&r) {
                                self.diag.error(&format_args!("-:{number}: {reason}"));
                            } else if !self.session(v, r, bytes) {
                                return false;
                            }
                        }
                        Err(reason) => self.diag.bad_line(&"-", number, &reason),
                    },
                    kind => self.diag.bad_line(&"-", number, &kind.not_an_event()),
                },
                Err(e) if crate::lines::held_back(bytes, !unfinished, &e) => self.diag.torn_tail(),
                Err(e) => self.diag.bad_line(&"-", number, &crate::lines::BadLine(bytes, &e)),
            }
            if self.out.len() >= CHUNK && !self.send() {
                return false;
            }
        }
        true
    }
}

/// Visits a piped event record: `event` when the run's time `window` holds
/// it, else `outside_window`.
fn visit<V: Visitor>(v: &mut V, ev: &Event<'_>, window: &Interval, diag: &Diag, out: &mut Vec<u8>) {
    if in_window(window, ev, diag) {
        v.event(ev, out);
    } else {
        v.outside_window(ev);
    }
}
