//! The first or last K records of each session in a stream of piped event
//! records (`ci-cat --head/--tail`, `ci-grep -m`).
//!
//! Piped records are dealt to the worker threads in batches, so the records
//! of one session can be spread over several workers; none of them sees the
//! whole session. Each worker keeps a [`Window`] of what it printed for each
//! session — its own first K (the session's first K overall are among the
//! workers' first K), or its own last K — tagged with the stdin line it came
//! from; after the run, [`Window::merge`] puts every worker's records in
//! input order and keeps each session's first or last K. The result is the
//! same for every `-j` and every run.

use std::collections::{HashMap, VecDeque};

/// Which records of each session are kept: the first `first`, and of
/// those the last `last` (`--head H --tail T`: the last T of the first H).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Keep {
    /// At most the first K.
    pub first: Option<u64>,
    /// Of those, the last K.
    pub last: Option<u64>,
}

impl Keep {
    /// Whether the `n`th record (1-based) of a session of `total` is kept.
    fn keeps(self, n: u64, total: u64) -> bool {
        let end = self.first.map_or(total, |h| h.min(total));
        n <= end && self.last.is_none_or(|t| end - n < t)
    }
}

/// One held record: its stdin line, its order among the records of that
/// line, and its output.
type Held = (u64, u64, Vec<u8>);

/// One worker's records, per session.
#[derive(Debug)]
pub(crate) struct Window {
    keep: Keep,
    sessions: HashMap<String, VecDeque<Held>>,
    /// Records held so far (orders the records of one line).
    seq: u64,
}

impl Window {
    /// An empty window.
    pub(crate) fn new(keep: Keep) -> Window {
        Window { keep, sessions: HashMap::new(), seq: 0 }
    }

    /// Whether a record of `session` would be kept now (false once a
    /// worker holds the first K of it), so that the caller can skip its work.
    pub(crate) fn wants(&self, session: &str) -> bool {
        match (self.keep.first, self.keep.last) {
            (Some(k), _) => self.sessions.get(session).is_none_or(|h| (h.len() as u64) < k),
            (None, Some(k)) => k > 0,
            (None, None) => true,
        }
    }

    /// Holds the output `write` makes for a record of `session` read from
    /// stdin line `line` (for `Last`, in the buffer of the record it pushes out).
    pub(crate) fn hold(&mut self, session: &str, line: u64, write: impl FnOnce(&mut Vec<u8>)) {
        if !self.wants(session) {
            return;
        }
        if !self.sessions.contains_key(session) {
            self.sessions.insert(session.to_owned(), VecDeque::new());
        }
        let Some(held) = self.sessions.get_mut(session) else { return };
        // Without a first K, only the last K can be kept: a ring.
        let mut buf = match (self.keep.first, self.keep.last) {
            (None, Some(k)) if held.len() as u64 >= k => held.pop_front().map(|h| h.2).unwrap_or_default(),
            _ => Vec::new(),
        };
        buf.clear();
        write(&mut buf);
        held.push_back((line, self.seq, buf));
        self.seq += 1;
    }

    /// Appends to `out`, in input order, the records every worker's window
    /// holds that are among their session's first (last) K.
    pub(crate) fn merge(parts: impl IntoIterator<Item = Window>, out: &mut Vec<u8>) {
        let mut keep = None;
        let mut all: Vec<(u64, u64, usize, Vec<u8>)> = vec![];
        let mut names: HashMap<String, usize> = HashMap::new();
        for part in parts {
            keep = Some(part.keep);
            for (session, held) in part.sessions {
                let n = names.len();
                let id = *names.entry(session).or_insert(n);
                all.extend(held.into_iter().map(|(line, seq, rec)| (line, seq, id, rec)));
            }
        }
        let Some(keep) = keep else { return };
        all.sort_by_key(|h| (h.0, h.1));
        let mut total = vec![0u64; names.len()];
        for h in &all {
            total[h.2] += 1;
        }
        let mut seen = vec![0u64; names.len()];
        for (_, _, id, rec) in &all {
            seen[*id] += 1;
            if keep.keeps(seen[*id], total[*id]) {
                out.extend_from_slice(rec);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records `(session, line)` dealt to workers by `to(line)`.
    fn run(keep: Keep, records: &[(&str, u64)], workers: usize) -> String {
        let mut parts: Vec<Window> = (0..workers).map(|_| Window::new(keep)).collect();
        for &(s, line) in records {
            // Batches of two lines per worker, in turn.
            let w = (line as usize / 2) % workers;
            parts[w].hold(s, line, |b| b.extend_from_slice(format!("{s}{line} ").as_bytes()));
        }
        let mut out = vec![];
        Window::merge(parts, &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn the_same_answer_on_any_number_of_workers() {
        let recs = [("a", 1), ("a", 2), ("b", 3), ("a", 4), ("b", 5), ("a", 6), ("b", 7), ("c", 8)];
        let keep = |first, last| Keep { first, last };
        for workers in 1..=4 {
            assert_eq!(run(keep(Some(2), None), &recs, workers), "a1 a2 b3 b5 c8 ", "{workers}");
            assert_eq!(run(keep(None, Some(2)), &recs, workers), "a4 b5 a6 b7 c8 ", "{workers}");
            assert_eq!(run(keep(None, Some(9)), &recs, workers), "a1 a2 b3 a4 b5 a6 b7 c8 ", "{workers}");
            assert_eq!(run(keep(Some(3), Some(2)), &recs, workers), "a2 a4 b5 b7 c8 ", "{workers}");
        }
    }
}
