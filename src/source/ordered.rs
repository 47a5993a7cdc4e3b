//! A session read whole, then visited in the order its format states
//! ([`Order`]): time order (Claude hooks), or last copy wins (a mutation
//! log). Each record visited keeps its own site (its line, or its place in
//! a line that holds a list) as its provenance, so a record cut by one tool
//! is read again whole by the next.

use std::collections::HashMap;
use std::ops::Range;
use std::path::Path;

use bstr::ByteSlice;

use super::capture::visit_line;
use super::worker::{Worker, CHUNK};
use super::{Flow, Visitor};
use crate::format::{Mutation, Order};
use crate::lines::{Framing, Site};
use crate::session::Capture;

/// One record of a session read whole: its file, physical line, byte
/// range in that file's text, and site in the file (its line, or its place
/// as a member of a list: an element site).
#[derive(Debug, Clone)]
struct Entry {
    file: usize,
    line: u64,
    range: Range<usize>,
    site: Site,
}

impl Entry {
    /// A record that is the line at `range` of its file's text.
    fn line(file: usize, line: u64, range: Range<usize>) -> Entry {
        let site = Site { offset: range.start as u64, len: range.len() as u64, framing: Framing::Line };
        Entry { file, line, range, site }
    }
}

/// A session read whole: its files' text (the bytes of a file read line by
/// line; the compact records, one a line, of one its format frames
/// otherwise, [`crate::format::Layout::lines_of`]), and its records in the
/// order they are visited.
pub(super) struct Ordered {
    texts: Vec<(Vec<u8>, bool)>,
    order: Vec<Entry>,
    /// The plain files read whole, still open, by their place in `texts`:
    /// how each ended is told to the visitor once all is visited
    /// ([`crate::source::Visitor::read_end`]: the capture cache keeps the
    /// session whole).
    opened: Vec<(usize, std::fs::File)>,
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

impl Worker<'_> {
    /// Reads a session's files whole and orders its records as `order`
    /// says. `None` — read it in file order — when a file cannot be read or
    /// is longer than a line may be ([`crate::lines::max_line`]: read
    /// whole, it could cost more than that), when a time-ordered session
    /// has a record without a usable timestamp (native hook input has none;
    /// only synthetic events do), or when it has no record at all. Damaged
    /// lines are reported when visited; they do not decide the order.
    pub(super) fn ordered(&mut self, cap: &Capture, files: &[(&Path, String)], order: Order) -> Option<Ordered> {
        let dialect = cap.format.dialect;
        let mut texts = Vec::with_capacity(files.len());
        let mut timed = Vec::new();
        let mut log = Log::default();
        let mut lines = Vec::new();
        let mut opened = Vec::new();
        for (fi, (path, display)) in files.iter().enumerate() {
            let (text, framed) = match cap.format.layout.lines_of(cap, path, display, &crate::discover::cx(), self.diag)
            {
                Some(mut records) => (self.framed(&mut *records, display, fi, &mut lines)?, true),
                None => {
                    let (file, text) = read_whole(path)?;
                    opened.push((fi, file));
                    (text, false)
                }
            };
            if !framed {
                lines.clear();
                let mut start = 0;
                for (li, end) in memchr::memchr_iter(b'\n', &text).chain(std::iter::once(text.len())).enumerate() {
                    lines.push(Entry::line(fi, li as u64 + 1, start..end));
                    start = end + 1;
                }
            }
            for entry in lines.drain(..) {
                let bytes = &text[entry.range.clone()];
                if bytes.iter().all(u8::is_ascii_whitespace) {
                    continue; // blank lines and the final newline: reported later
                }
                let Ok(rec) = self.idx.parse(bytes) else { continue };
                if dialect.accept(&rec).is_err() {
                    continue;
                }
                let line = entry.line;
                if order == Order::Time {
                    let ts = rec.get_str("timestamp").as_deref().and_then(crate::time::parse_timestamp)?;
                    timed.push((ts, entry));
                    continue;
                }
                match dialect.mutation(&rec) {
                    Mutation::Record => log.push(entry, None, true),
                    Mutation::Message { id, billed } => log.push(entry, Some(&id), billed),
                    Mutation::RewindTo(id) => {
                        if let Some(&from) = log.at.get(&*id) {
                            log.drop_from(from);
                        }
                        log.push(entry, None, true);
                    }
                    // A list inside a framed record has no place in the file
                    // of its own: the record stays whole.
                    Mutation::Replace(_) if framed => log.push(entry, None, true),
                    Mutation::Replace(list) => {
                        log.drop_from(0);
                        let mut idx = crate::json::Index::new();
                        for member in list.items() {
                            let Ok(m) = idx.parse(member.bytes()) else { continue };
                            let at = member.bytes().as_ptr() as usize - text.as_ptr() as usize;
                            let mut entry = Entry::line(fi, line, at..at + member.bytes().len());
                            entry.site.framing = Framing::Element;
                            match dialect.mutation(&m) {
                                Mutation::Message { id, billed } => log.push(entry, Some(&id), billed),
                                _ => log.push(entry, None, true),
                            }
                        }
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
        (!order.is_empty()).then_some(Ordered { texts, order, opened })
    }

    /// Visits a session read whole in its order; damaged lines are
    /// reported first, file by file, as in file order.
    pub(super) fn visit_ordered<V: Visitor>(
        &mut self,
        v: &mut V,
        cap: &Capture,
        files: &[(&Path, String)],
        session: Ordered,
    ) -> bool {
        let dialect = cap.format.dialect;
        for (fi, (text, framed)) in session.texts.iter().enumerate() {
            // Records framed otherwise were reported as they were read.
            if text.is_empty() || *framed {
                continue;
            }
            let body = text.strip_suffix(b"\n");
            let all_terminated = body.is_some();
            let segments: Vec<&[u8]> = body.unwrap_or(text).split_str("\n").collect();
            for (li, bytes) in segments.iter().enumerate() {
                let terminated = all_terminated || li + 1 < segments.len();
                match self.idx.parse(bytes) {
                    Ok(rec) => {
                        if let Err(reason) = dialect.accept(&rec) {
                            self.diag.bad_line(&files[fi].1, li as u64 + 1, &reason);
                        }
                    }
                    Err(e) if crate::lines::held_back(bytes, terminated, &e) => self.diag.torn_tail(),
                    Err(e) => self.diag.bad_line(&files[fi].1, li as u64 + 1, &crate::lines::BadLine(bytes, &e)),
                }
            }
        }
        let mut stopped = false;
        for e in &session.order {
            // Only records that parsed were put in the order (`ordered`).
            let Ok(rec) = self.idx.parse(&session.texts[e.file].0[e.range.clone()]) else { continue };
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

impl Worker<'_> {
    /// The records of a file its format frames otherwise than by lines
    /// (members of a document's list), each copied into one text, one a
    /// line, and put in `lines` with its own site. Damaged records are
    /// reported here (the framing reported what it found wrong with the
    /// file). `None` when the file cannot be read or the text would be
    /// longer than a line may be.
    fn framed(
        &mut self,
        records: &mut dyn crate::lines::LineSource,
        display: &str,
        file: usize,
        lines: &mut Vec<Entry>,
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
            lines.push(Entry { file, line: l.number, range: text.len()..text.len() + l.bytes.len(), site: l.site });
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
