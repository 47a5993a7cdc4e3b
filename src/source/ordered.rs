//! A session read whole, then visited in the order its format states
//! ([`Order`]): time order (Claude hooks), or last copy wins (a mutation
//! log). Each record visited keeps its own site (its line, or its place in
//! a line that holds a list) as its provenance, so a record cut by one tool
//! is read again whole by the next.

use std::collections::HashMap;
use std::ops::Range;
use std::path::Path;

use super::capture::visit_line;
use super::worker::{Worker, CHUNK};
use super::{Flow, Visitor};
use crate::format::{Mutation, Order};
use crate::json::{Index, ParseError, Raw};
use crate::lines::{Framing, Site};
use crate::session::Capture;
use crate::time::Timestamp;

/// One record of a session read whole: its file, physical line, byte
/// range in that file's text, site in the file (its line, or its place as
/// a member of a list: an element site), and the index its one parse made
/// (kept while the session's [`Budget`] lasts; else it is parsed again
/// when visited).
#[derive(Debug)]
struct Entry {
    file: usize,
    line: u64,
    range: Range<usize>,
    site: Site,
    index: Option<Index>,
}

impl Entry {
    /// A record that is the line at `range` of its file's text.
    fn line(file: usize, line: u64, range: Range<usize>) -> Entry {
        let site = Site { offset: range.start as u64, len: range.len() as u64, framing: Framing::Line };
        Entry { file, line, range, site, index: None }
    }
}

/// A damaged line of a file read line by line, found while ordering and
/// reported before any record is visited (as in file order).
enum Damage {
    /// It does not parse (`line` of `file`, the bytes at `range`).
    Bad { file: usize, line: u64, range: Range<usize>, error: ParseError },
    /// It parses but its format refuses it.
    Refused { file: usize, line: u64, reason: &'static str },
    /// A torn last line, held back.
    Torn,
}

/// A session read whole: its files' text (the bytes of a file read line by
/// line; the compact records, one a line, of one its format frames
/// otherwise, [`crate::format::Layout::lines_of`]), its records in the
/// order they are visited, and its damaged lines.
pub(super) struct Ordered {
    texts: Vec<(Vec<u8>, bool)>,
    order: Vec<Entry>,
    damaged: Vec<Damage>,
    /// The plain files read whole, still open, by their place in `texts`:
    /// how each ended is told to the visitor once all is visited
    /// ([`crate::source::Visitor::read_end`]: the capture cache keeps the
    /// session whole).
    opened: Vec<(usize, std::fs::File)>,
}

/// What a session's kept indexes may hold: as many bytes as its text, so
/// that a session read whole costs at most twice its text (each file of it
/// at most [`crate::lines::max_line`]), whatever its records.
#[derive(Default)]
struct Budget(usize);

impl Budget {
    /// `idx` (the index of the record just parsed) taken to keep, when it fits.
    fn keep(&mut self, idx: &mut Index) -> Option<Index> {
        let cost = idx.footprint();
        (cost <= self.0).then(|| {
            self.0 -= cost;
            std::mem::take(idx)
        })
    }
}

/// The records of a mutation log as its lines leave them ([`Order::LastCopy`]):
/// a list with holes where records were superseded or dropped.
#[derive(Default)]
struct Log {
    list: Vec<Option<(Entry, bool)>>,
    /// The place in `list` of each message id's live copy.
    at: HashMap<String, usize>,
}

impl Log {
    /// A message (`id`) or a record (`None`) at the end of the list; an
    /// earlier copy of the message is superseded.
    fn push(&mut self, entry: Entry, id: Option<&str>, billed: bool) {
        if let Some(id) = id {
            if let Some(old) = self.at.insert(id.to_owned(), self.list.len()) {
                self.list[old] = None;
            }
        }
        self.list.push(Some((entry, billed || id.is_none())));
    }

    /// Drops every message from place `from` on, except those kept (billed
    /// ones, and records without id).
    fn drop_from(&mut self, from: usize) {
        for slot in &mut self.list[from..] {
            if slot.as_ref().is_some_and(|(_, kept)| !kept) {
                *slot = None;
            }
        }
        let list = &self.list;
        self.at.retain(|_, i| list[*i].is_some());
    }

    fn into_order(self) -> Vec<Entry> {
        self.list.into_iter().flatten().map(|(e, _)| e).collect()
    }
}

/// What one record does to a session being ordered (owned, so that the
/// record's index may be kept once it is known).
enum Step {
    /// A record at its time (time order).
    Timed(Timestamp),
    /// A record without id, at the end of the list.
    Record,
    /// A copy of message `id`, billed or not.
    Message(String, bool),
    /// A rewind to message `id`.
    Rewind(String),
}

impl Worker<'_> {
    /// Reads a session's files whole and orders its records as `order`
    /// says, parsing each line once (its index is kept for the visit while
    /// the session's [`Budget`] lasts). `None` — read it in file order —
    /// when a file cannot be read or is longer than a line may be
    /// ([`crate::lines::max_line`]: read whole, it could cost more than
    /// that), when a time-ordered session has a record without a usable
    /// timestamp (native hook input has none; only synthetic events do), or
    /// when it has no record at all. Damaged lines are kept to be reported
    /// when visited; they do not decide the order.
    pub(super) fn ordered(&mut self, cap: &Capture, files: &[(&Path, String)], order: Order) -> Option<Ordered> {
        let dialect = cap.format.dialect;
        let mut texts = Vec::with_capacity(files.len());
        let mut timed = Vec::new();
        let mut log = Log::default();
        let mut lines = Vec::new();
        let mut damaged = Vec::new();
        let mut budget = Budget::default();
        let mut opened = Vec::new();
        for (fi, (path, display)) in files.iter().enumerate() {
            let (text, framed) = match cap.format.layout.lines_of(cap, path, display, &crate::discover::cx(), self.diag)
            {
                Some(mut records) => (self.framed(&mut *records, display, fi, &mut lines, &mut budget)?, true),
                None => {
                    let (file, text) = read_whole(path)?;
                    opened.push((fi, file));
                    (text, false)
                }
            };
            if !framed {
                budget.0 += text.len();
                lines.clear();
                let mut start = 0;
                for (li, end) in memchr::memchr_iter(b'\n', &text).chain(std::iter::once(text.len())).enumerate() {
                    // Not the nothing after the final newline.
                    if start < text.len() {
                        lines.push(Entry::line(fi, li as u64 + 1, start..end));
                    }
                    start = end + 1;
                }
            }
            for mut entry in lines.drain(..) {
                let bytes = &text[entry.range.clone()];
                let step = {
                    let rec = match &entry.index {
                        Some(index) => index.record(bytes),
                        None => match self.idx.parse(bytes) {
                            Ok(rec) => rec,
                            Err(error) => {
                                let (file, line, terminated) = (fi, entry.line, entry.range.end < text.len());
                                damaged.push(match crate::lines::held_back(bytes, terminated, &error) {
                                    true => Damage::Torn,
                                    false => Damage::Bad { file, line, range: entry.range, error },
                                });
                                continue;
                            }
                        },
                    };
                    if let Err(reason) = dialect.accept(&rec) {
                        // Records framed otherwise are not reported refused.
                        if !framed {
                            damaged.push(Damage::Refused { file: fi, line: entry.line, reason });
                        }
                        continue;
                    }
                    if order == Order::Time {
                        Step::Timed(rec.get_str("timestamp").as_deref().and_then(crate::time::parse_timestamp)?)
                    } else {
                        match dialect.mutation(&rec) {
                            Mutation::Record => Step::Record,
                            Mutation::Message { id, billed } => Step::Message(id.into_owned(), billed),
                            Mutation::RewindTo(id) => Step::Rewind(id.into_owned()),
                            // A list inside a framed record has no place in
                            // the file of its own: the record stays whole.
                            Mutation::Replace(_) if framed => Step::Record,
                            Mutation::Replace(list) => {
                                replace(&mut log, list, (fi, entry.line), &text, &mut budget, dialect);
                                continue;
                            }
                        }
                    }
                };
                if entry.index.is_none() {
                    entry.index = budget.keep(&mut self.idx);
                }
                match step {
                    Step::Timed(ts) => timed.push((ts, entry)),
                    Step::Record => log.push(entry, None, true),
                    Step::Message(id, billed) => log.push(entry, Some(&id), billed),
                    Step::Rewind(id) => {
                        if let Some(&from) = log.at.get(&id) {
                            log.drop_from(from);
                        }
                        log.push(entry, None, true);
                    }
                }
            }
            texts.push((text, framed));
        }
        let order = match order {
            Order::Time => {
                timed.sort_by_key(|(ts, _)| *ts);
                timed.into_iter().map(|(_, e)| e).collect()
            }
            _ => log.into_order(),
        };
        (!order.is_empty()).then_some(Ordered { texts, order, damaged, opened })
    }

    /// Visits a session read whole in its order; damaged lines are
    /// reported first, file by file, as in file order, and records whose
    /// events the tool has no use for ([`Visitor::needs_events`]) are only
    /// observed, as in file order.
    pub(super) fn visit_ordered<V: Visitor>(
        &mut self,
        v: &mut V,
        cap: &Capture,
        files: &[(&Path, String)],
        session: Ordered,
    ) -> bool {
        for d in &session.damaged {
            match d {
                Damage::Bad { file, line, range, error } => {
                    let bytes = &session.texts[*file].0[range.clone()];
                    self.diag.bad_line(&files[*file].1, *line, &crate::lines::BadLine(bytes, error));
                }
                Damage::Refused { file, line, reason } => self.diag.bad_line(&files[*file].1, *line, reason),
                Damage::Torn => self.diag.torn_tail(),
            }
        }
        let mut stopped = false;
        for e in &session.order {
            let bytes = &session.texts[e.file].0[e.range.clone()];
            let rec = match &e.index {
                Some(index) => index.record(bytes),
                // Only records that parsed were put in the order (`ordered`).
                None => match self.idx.parse(bytes) {
                    Ok(rec) => rec,
                    Err(_) => continue,
                },
            };
            if !v.needs_events(bytes) {
                // As in file order: a record whose events the tool has no
                // use for (`ci-agg --tokens`: no usage) is only observed.
                cap.format.dialect.observe(&rec, &mut self.parts.state);
                continue;
            }
            if visit_line(v, &mut self.out, &mut self.parts, rec, cap, (e.line, e.site), &files[e.file].1, self.diag)
                == Flow::Stop
            {
                stopped = true;
                break;
            }
            if self.out.len() >= CHUNK && !self.send() {
                return false;
            }
        }
        // Read to its end: each plain file's end is told, as a file read
        // line by line tells it.
        for (fi, file) in session.opened.iter().filter(|_| !stopped) {
            v.read_end(cap, &whole_end(*fi, file, &session.texts[*fi].0));
        }
        self.companion(v, cap);
        v.end(cap, &mut self.out);
        true
    }
}

/// A checkpoint (a `$set` holding `messages`, line `line` of file `file`
/// whose text is `text`) replaces the list: each member that parses is a
/// record at its own place inside the line.
fn replace(
    log: &mut Log,
    list: Raw<'_>,
    (file, line): (usize, u64),
    text: &[u8],
    budget: &mut Budget,
    dialect: &dyn crate::format::Dialect,
) {
    log.drop_from(0);
    let mut idx = Index::new();
    for member in list.items() {
        let step = match idx.parse(member.bytes()) {
            Ok(m) => match dialect.mutation(&m) {
                Mutation::Message { id, billed } => Step::Message(id.into_owned(), billed),
                _ => Step::Record,
            },
            Err(_) => continue,
        };
        let at = member.bytes().as_ptr() as usize - text.as_ptr() as usize;
        let mut entry = Entry::line(file, line, at..at + member.bytes().len());
        entry.site.framing = Framing::Element;
        entry.index = budget.keep(&mut idx);
        match step {
            Step::Message(id, billed) => log.push(entry, Some(&id), billed),
            _ => log.push(entry, None, true),
        }
    }
}

impl Worker<'_> {
    /// The records of a file its format frames otherwise than by lines
    /// (members of a document's list), each copied into one text, one a
    /// line, and put in `lines` with its own site (and its index, while
    /// `budget` lasts). Damaged records are reported here (the framing
    /// reported what it found wrong with the file). `None` when the file
    /// cannot be read or the text would be longer than a line may be.
    fn framed(
        &mut self,
        records: &mut dyn crate::lines::LineSource,
        display: &str,
        file: usize,
        lines: &mut Vec<Entry>,
        budget: &mut Budget,
    ) -> Option<Vec<u8>> {
        lines.clear();
        let mut text = Vec::new();
        while let Some(l) = records.next_line().ok()? {
            if l.too_long {
                self.diag.bad_line(&display, l.number, &crate::lines::TooLong);
                continue;
            }
            if let Err(e) = self.idx.parse(l.bytes) {
                self.diag.bad_line(&display, l.number, &crate::lines::BadLine(l.bytes, &e));
                continue;
            }
            if text.len() + l.bytes.len() >= crate::lines::max_line() {
                return None;
            }
            budget.0 += l.bytes.len();
            let index = budget.keep(&mut self.idx);
            lines.push(Entry {
                file,
                line: l.number,
                range: text.len()..text.len() + l.bytes.len(),
                site: l.site,
                index,
            });
            text.extend_from_slice(l.bytes);
            text.push(b'\n');
        }
        Some(text)
    }
}

/// A regular file, open, and its bytes, when it is no longer than a line may be.
fn read_whole(path: &Path) -> Option<(std::fs::File, Vec<u8>)> {
    let mut file = crate::files::open_regular(path).ok()?;
    let limit = crate::lines::max_line() as u64;
    if file.metadata().ok()?.len() > limit {
        return None;
    }
    let mut text = Vec::new();
    std::io::Read::read_to_end(&mut std::io::Read::take(&mut file, limit + 1), &mut text).ok()?;
    (text.len() as u64 <= limit).then_some((file, text))
}

/// How reading the file `index` of a capture, whose bytes were `text`,
/// ended: its whole lines, where the last starts, and whether an unfinished
/// line followed (read as a record or reported: [`Tail::Read`], never kept).
fn whole_end<'f>(index: usize, file: &'f std::fs::File, text: &[u8]) -> crate::lines::ReadEnd<'f> {
    use crate::lines::Tail;
    let whole = memchr::memrchr(b'\n', text).map_or(0, |i| i + 1);
    let last_line_at = whole.checked_sub(1).map(|end| memchr::memrchr(b'\n', &text[..end]).map_or(0, |i| i + 1) as u64);
    let lines = memchr::memchr_iter(b'\n', text).count() as u64;
    let tail = if whole == text.len() { Tail::None } else { Tail::Read };
    crate::lines::ReadEnd { index, file, whole: whole as u64, last_line_at, lines, tail }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(line: u64) -> Entry {
        Entry::line(0, line, 0..0)
    }

    fn lines(log: Log) -> Vec<u64> {
        log.into_order().iter().map(|e| e.line).collect()
    }

    #[test]
    fn a_message_written_again_is_visited_once_as_its_last_copy_at_its_place() {
        let mut log = Log::default();
        log.push(entry(1), Some("a"), false);
        log.push(entry(2), None, true);
        log.push(entry(3), Some("a"), true);
        log.push(entry(4), Some("b"), false);
        log.push(entry(5), Some("a"), true);
        assert_eq!(lines(log), [2, 4, 5]);
    }

    #[test]
    fn a_rewind_drops_the_messages_from_its_id_on_but_billed_ones_and_records() {
        let mut log = Log::default();
        log.push(entry(1), Some("u1"), false);
        log.push(entry(2), Some("u2"), false);
        log.push(entry(3), None, true);
        log.push(entry(4), Some("g2"), true);
        log.push(entry(5), Some("u3"), false);
        log.drop_from(log.at["u2"]);
        assert!(!log.at.contains_key("u2") && !log.at.contains_key("u3") && log.at.contains_key("g2"));
        log.push(entry(6), Some("u2"), false);
        assert_eq!(lines(log), [1, 3, 4, 6]);
    }
}
