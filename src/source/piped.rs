//! Piped event lines (a batch read from stdin), as a worker visits them:
//! records printed cut are made whole again, session records that reached
//! a batch are expanded in their place.

use super::capture::visit_event;
use super::stdin::session_record;
use super::worker::{Worker, CHUNK};
use super::Visitor;
use crate::diag::Diag;
use crate::format::LineKind;
use crate::json::{Kind, Record};
use crate::lines::Site;
use crate::record::{Event, PROVENANCE_KEY};
use crate::reread::Reread;
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
        // The provenance of the match record just before, when it was one
        // (following, one worker reads every batch: kept between them).
        let mut last_match = if self.follow { self.last_match.take() } else { None };
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
                last_match = None;
                continue;
            }
            let parsed = if lazy { self.idx.skim(bytes) } else { self.idx.parse(bytes) };
            let mut this_match = None;
            match parsed {
                Ok(rec) => match LineKind::of(&rec) {
                    LineKind::Event | LineKind::Match if unsafe_session(&rec).is_some() => {
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
                        Ok(Some((site, hash))) => {
                            let built = self.reread.build(&rec);
                            self.visit_whole(v, built, number, site, hash);
                        }
                        Err(reason) => self.diag.error(&format_args!("-:{number}: {reason}")),
                    },
                    // A match record stands for its event: read again once
                    // for all the matches of that event, which come one after
                    // another (the producer keeps them in one batch).
                    LineKind::Match => {
                        let ci = rec.get(PROVENANCE_KEY).map(|c| c.bytes());
                        if ci.is_none() || ci != last_match.as_deref() {
                            this_match = ci.map(<[u8]>::to_vec);
                            // The event record it carries, when ci-grep read it whole from a pipe.
                            let carried = rec.get("record").filter(|r| r.kind() == Kind::Object);
                            match carried.map(|r| self.whole_idx.skim(r.bytes())) {
                                Some(Ok(whole)) if LineKind::of(&whole) == LineKind::Event => {
                                    v.event(&Event::piped(whole, number, "-"), &mut self.out);
                                }
                                Some(_) => self.diag.error(&format_args!(
                                    "-:{number}: the event record a ci-grep match record carries is not valid"
                                )),
                                None => match read_match(&mut self.reread, v, &rec, pre) {
                                    Ok(Some((site, hash))) => self.visit_whole(v, Ok(()), number, site, hash),
                                    Ok(None) => {}
                                    Err(reason) => self.diag.error(&format_args!("-:{number}: {reason}")),
                                },
                            }
                        } else {
                            this_match = last_match.take();
                        }
                    }
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
            last_match = this_match;
            if self.out.len() >= CHUNK && !self.send() {
                return false;
            }
        }
        true
    }

    /// Visits the record the re-reader made whole (`built`), whose line is at
    /// `site` and hashes to `hash`; reports why it could not be.
    fn visit_whole<V: Visitor>(&mut self, v: &mut V, built: Result<(), String>, number: u64, site: Site, hash: u64) {
        if let Err(reason) = built {
            self.diag.error(&format_args!("-:{number}: {reason}"));
            return;
        }
        // Skimmed: made of the record as parsed and of the line the first
        // tool validated.
        match self.whole_idx.skim(self.reread.full()) {
            Ok(whole) => {
                let ev = Event::piped(whole, number, "-").reread(site, hash);
                visit(v, &ev, &self.parts.window, self.diag, &mut self.out);
            }
            Err(e) => self.diag.error(&format_args!("-:{number}: the record made whole is not valid: {e}")),
        }
    }
}

/// Reads again the event the ci-grep match record `rec` stands for
/// ([`crate::reread::Reread::build_match`]): where its line is and the
/// line's hash, with the event made whole in `reread`; `None` when the line
/// cannot hold what the visitor looks for; `Err` with the reason when the
/// event cannot be read again.
fn read_match<V: Visitor>(
    reread: &mut Reread,
    v: &mut V,
    rec: &Record<'_>,
    pre: bool,
) -> Result<Option<(Site, u64)>, String> {
    let marker = rec.get(PROVENANCE_KEY).and_then(|ci| ci.get("cut"));
    let why = match marker {
        None => "printed without its provenance (--no-provenance)",
        Some(m) if m.kind() != Kind::Object => "of an event read whole from a pipe, without that record",
        Some(_) => "",
    };
    if !why.is_empty() {
        return Err(format!("a ci-grep match record {why}: its event cannot be read again"));
    }
    match reread.fetch(rec)? {
        // The line cannot hold what the tool looks for.
        Some(_) if !pre && !v.precheck(reread.line()) => Ok(None),
        Some((site, hash)) => reread.build_match(rec, site).map(|()| Some((site, hash))),
        None => Ok(None),
    }
}

/// Visits a piped event record: `event` when the run's time `window` holds
/// it, else `outside_window` ([`visit_event`]).
fn visit<V: Visitor>(v: &mut V, ev: &Event<'_>, window: &Interval, diag: &Diag, out: &mut Vec<u8>) {
    let _ = visit_event(v, ev, window, diag, out);
}
