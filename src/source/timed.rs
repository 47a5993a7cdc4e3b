//! Claude hook sessions whose every event carries a timestamp, visited in
//! time order.

use std::path::Path;

use bstr::ByteSlice;

use super::capture::visit_line;
use super::worker::{Worker, CHUNK};
use super::{Flow, Visitor};
use crate::format::Dialect;
use crate::lines::Site;
use crate::session::Capture;

/// A hook session read whole: its files' bytes, and each valid event line as
/// (timestamp, file index, physical line, byte range).
pub(super) struct TimedSession {
    pub(super) texts: Vec<Vec<u8>>,
    pub(super) order: Vec<(crate::time::Timestamp, usize, u64, std::ops::Range<usize>)>,
}

impl Worker<'_> {
    /// Claude hook sessions are read file by file in lifecycle order, except
    /// when every event of the session carries a timestamp (native hook input
    /// has none; only synthetic events do): then events are visited in time
    /// order (stable: ties keep the file order). This reads the session's
    /// event files whole, which is fine for hook sessions (kilobytes to a few
    /// megabytes); it returns `None` — use file order — as soon as a line
    /// has no usable timestamp, or when a file cannot be read.
    pub(super) fn time_ordered(&mut self, dialect: &dyn Dialect, files: &[(&Path, String)]) -> Option<TimedSession> {
        let mut session = TimedSession { texts: Vec::with_capacity(files.len()), order: Vec::new() };
        for (fi, (path, _)) in files.iter().enumerate() {
            let mut text = Vec::new();
            // Not a regular file (or unreadable): file order, which reports it.
            // Nor one longer than a line may be ([`crate::lines::max_line`]):
            // read whole, it could cost more than that.
            let file = crate::files::open_regular(path).ok()?;
            let limit = crate::lines::max_line() as u64;
            if file.metadata().ok()?.len() > limit {
                return None;
            }
            std::io::Read::read_to_end(&mut std::io::Read::take(file, limit + 1), &mut text).ok()?;
            if text.len() as u64 > limit {
                return None;
            }
            let mut start = 0;
            for (li, end) in memchr::memchr_iter(b'\n', &text).chain(std::iter::once(text.len())).enumerate() {
                let bytes = &text[start..end];
                let range = start..end;
                start = end + 1;
                if bytes.iter().all(u8::is_ascii_whitespace) {
                    continue; // blank lines and the final newline: reported later
                }
                // Damaged lines (unparseable, or valid JSON that is not a hook
                // line) are reported when visited; they do not decide the order.
                let Ok(rec) = self.idx.parse(bytes) else { continue };
                if dialect.accept(&rec).is_err() {
                    continue;
                }
                let ts = rec.get_str("timestamp").as_deref().and_then(crate::time::parse_timestamp)?;
                session.order.push((ts, fi, li as u64 + 1, range));
            }
            session.texts.push(text);
        }
        (!session.order.is_empty()).then_some(session)
    }

    /// Visits a fully timestamped hook session in time order; damaged lines
    /// are reported first, file by file, as in file order.
    pub(super) fn visit_timed<V: Visitor>(
        &mut self,
        v: &mut V,
        cap: &Capture,
        files: &[(&Path, String)],
        mut timed: TimedSession,
    ) -> bool {
        let dialect = cap.format.dialect;
        for (fi, text) in timed.texts.iter().enumerate() {
            if text.is_empty() {
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
        timed.order.sort_by_key(|(ts, ..)| *ts);
        for (_, fi, line, range) in &timed.order {
            // Only event lines were put in `order` (`time_ordered`).
            let Ok(rec) = self.idx.parse(&timed.texts[*fi][range.clone()]) else { continue };
            let site =
                Site { offset: range.start as u64, len: range.len() as u64, framing: crate::lines::Framing::Line };
            if visit_line(v, &mut self.out, &mut self.parts, rec, cap, (*line, site), &files[*fi].1, self.diag)
                == Flow::Stop
            {
                break;
            }
            if self.out.len() >= CHUNK && !self.send() {
                return false;
            }
        }
        self.companion(v, cap);
        v.end(cap, &mut self.out);
        true
    }
}
