//! Settling the calls and responses that finished sessions hold, once every
//! session of the run is read ([`settle`]).
//!
//! Memory: most held calls and responses are held by one session only (a
//! resumed session's copied history is the exception), and those count
//! where they are at once. Only the ones several sessions hold are gathered
//! by id to find their owner, so settling 28,000 sessions needs a table of
//! 64-bit hashes (which sessions hold each id) beside the held state, not a
//! second copy of it.

use std::collections::{HashMap, HashSet};

use crate::format::Usage;
use crate::time::Timestamp;

use super::super::calls::{Call, Outcome};
use super::super::copied_calls::{ends_first, owners};
use super::super::responses::Held;
use super::super::stat::Sum;
use super::Summary;

/// Which sessions hold each id, by a 64-bit hash of the id: the first
/// holder, and whether another holds it too. A collision only makes an id
/// look shared, which sends it the exact way (by its id, with the shared
/// ones): never a wrong answer.
#[derive(Default)]
struct Holders(HashMap<u64, (usize, bool)>);

impl Holders {
    fn hash(id: &str) -> u64 {
        xxhash_rust::xxh3::xxh3_64(id.as_bytes())
    }

    /// Notes that session `i` holds `id` (each session names an id once).
    fn note(&mut self, i: usize, id: &str) {
        let h = self.0.entry(Self::hash(id)).or_insert((i, false));
        h.1 |= h.0 != i;
    }

    /// Whether session `i` is the only holder of `id`, which it holds.
    fn only(&self, i: usize, id: &str) -> bool {
        self.0.get(&Self::hash(id)) == Some(&(i, false))
    }
}

/// Counts every held response and call once: across the sessions of a run,
/// one copied into several (a resumed session's history) belongs to the
/// session that ends first (the latest time of its held responses, as
/// [`super::super::responses`] decides for `--tokens`), then to the one
/// holding its best copy (the largest token total, then the first by path
/// and line, as ccusage gives it to the first file); a response's figures
/// are the largest among all copies.
pub fn settle(summaries: &mut [Summary]) {
    let ends: Vec<Option<Timestamp>> = summaries.iter().map(|s| s.responses.latest()).collect();
    // Whether session `i` ends before session `j` (unknown ends last).
    let first = |i: usize, j: usize| ends_first(ends[i], ends[j]);
    settle_calls(summaries, &first);
    super::super::copied::settle(summaries, &first);
    settle_responses(summaries, &first);
}

/// Calls: the session ending first, then holding the call's first line;
/// the files of a held call are its owner's.
fn settle_calls(summaries: &mut [Summary], first: &dyn Fn(usize, usize) -> std::cmp::Ordering) {
    let mut holders = Holders::default();
    for (i, s) in summaries.iter().enumerate() {
        for (id, _) in &s.calls_held {
            holders.note(i, id);
        }
    }
    let mut shared = vec![];
    let mut shared_files = vec![];
    for (i, s) in summaries.iter_mut().enumerate() {
        let calls = std::mem::take(&mut s.calls_held);
        for (id, edited, path) in std::mem::take(&mut s.files_held) {
            let own = calls.binary_search_by(|c| c.0.cmp(&id)).is_ok();
            match (own, holders.only(i, &id)) {
                (true, true) => s.file(edited, path),
                (true, false) => shared_files.push((i, id, edited, path)),
                // Not a call of the session's: no owner counts its file.
                (false, _) => {}
            }
        }
        for (id, call) in calls {
            match holders.only(i, &id) {
                true => s.count_call(&call),
                false => shared.push((id, i, call)),
            }
        }
    }
    let mut owned: HashSet<(usize, String)> = HashSet::new();
    for (id, i, call) in owners(shared, first) {
        summaries[i].count_call(&call);
        owned.insert((i, id));
    }
    for (i, id, edited, path) in shared_files {
        if owned.contains(&(i, id)) {
            summaries[i].file(edited, path);
        }
    }
}

/// Responses: each counted once, in its owner's tokens and cost.
fn settle_responses(summaries: &mut [Summary], first: &dyn Fn(usize, usize) -> std::cmp::Ordering) {
    let mut holders = Holders::default();
    for (i, s) in summaries.iter().enumerate() {
        for key in s.responses.keys() {
            holders.note(i, key);
        }
    }
    let mut owner: HashMap<String, (usize, Held)> = HashMap::new();
    for (i, s) in summaries.iter_mut().enumerate() {
        for (key, held) in std::mem::take(&mut s.responses).into_map() {
            if holders.only(i, &key) {
                s.count(held);
                continue;
            }
            match owner.get_mut(&key) {
                Some((at, mine)) => {
                    let by_end = first(i, *at);
                    if by_end.is_lt() || (by_end.is_eq() && mine.prefers(&held)) {
                        *at = i;
                    }
                    mine.merge(held);
                }
                None => {
                    owner.insert(key, (i, held));
                }
            }
        }
    }
    for (i, held) in owner.into_values() {
        summaries[i].count(held);
    }
}

impl Summary {
    /// Counts a settled response in the session's tokens and cost.
    fn count(&mut self, held: Held) {
        for (sum, n) in self.tokens.iter_mut().zip(held.usage) {
            if let Some(n) = n {
                sum.add(n);
            }
        }
        if let Some(c) = held.usage[Usage::Cost as usize] {
            self.cost_usd.get_or_insert_with(Sum::default).add(c);
        }
        self.cost.merge(held.cost);
    }

    /// Counts a settled call in the session's calls by tool and errors.
    fn count_call(&mut self, call: &Call) {
        let tool = call.tool.clone().unwrap_or_else(|| "null".into());
        *self.tool_calls.entry(tool).or_insert(0) += 1;
        if call.outcome() == Outcome::Error {
            self.tool_errors += 1;
        }
    }

    /// Counts a file of a settled call (`edited`: an edit, else a read).
    fn file(&mut self, edited: bool, path: String) {
        if edited { &mut self.files_edited } else { &mut self.files_read }.insert(path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(tool: &str, path: &str, line: u64, failed: bool) -> Call {
        let mut c = Call::default();
        c.tool = Some(tool.into());
        c.first = Some((path.into(), line));
        (c.pre, c.ended, c.failed) = (true, true, failed);
        c
    }

    fn session(id: &str, calls: Vec<(&str, Call)>, files: Vec<(&str, bool, &str)>) -> Summary {
        Summary {
            session: id.into(),
            calls_held: calls.into_iter().map(|(i, c)| (i.to_owned(), c)).collect(),
            files_held: files.into_iter().map(|(i, e, p)| (i.to_owned(), e, p.to_owned())).collect(),
            ..Summary::default()
        }
    }

    #[test]
    fn a_call_one_session_holds_counts_there_and_a_shared_one_in_its_owner() {
        // "a" is in both (a resume's copy); neither session's end is known,
        // so the copy whose first line comes first (s2's, by path) owns it.
        let mut all = vec![
            session(
                "s1",
                vec![("a", call("Bash", "/p/1.jsonl", 3, false)), ("b", call("Read", "/p/1.jsonl", 5, false))],
                vec![("a", false, "/x/lost.txt"), ("b", false, "/x/r.txt")],
            ),
            session(
                "s2",
                vec![("a", call("Bash", "/p/0.jsonl", 2, true)), ("c", call("Edit", "/p/0.jsonl", 9, false))],
                vec![("a", true, "/x/e.txt"), ("c", true, "/x/c.txt"), ("z", false, "/x/no-call.txt")],
            ),
        ];
        settle(&mut all);
        fn tools(s: &Summary) -> Vec<(&str, u64)> {
            s.tool_calls.iter().map(|(k, v)| (k.as_str(), *v)).collect()
        }
        assert_eq!(tools(&all[0]), vec![("Read", 1)]);
        assert_eq!(tools(&all[1]), vec![("Bash", 1), ("Edit", 1)]);
        assert_eq!((all[0].tool_errors, all[1].tool_errors), (0, 1));
        assert_eq!(all[0].files_read.iter().collect::<Vec<_>>(), vec!["/x/r.txt"]);
        assert!(all[0].files_edited.is_empty());
        assert_eq!(all[1].files_edited.iter().collect::<Vec<_>>(), vec!["/x/c.txt", "/x/e.txt"]);
        assert!(all[1].files_read.is_empty());
        assert!(all.iter().all(|s| s.calls_held.is_empty() && s.files_held.is_empty()));
    }

    #[test]
    fn owners_keep_each_ids_copies_in_order_and_merge_into_the_owner() {
        // Three copies of "x" (sessions 0, 1, 2) and one of "w": session 1
        // ends first and owns "x"; what the others saw is merged into it.
        let mut late = call("Bash", "/p/a.jsonl", 1, false);
        late.tool = None;
        let copies = vec![
            ("x".to_owned(), 0, late),
            ("w".to_owned(), 2, call("Read", "/p/c.jsonl", 4, false)),
            ("x".to_owned(), 1, call("Grep", "/p/b.jsonl", 7, false)),
            ("x".to_owned(), 2, call("Bash", "/p/c.jsonl", 2, true)),
        ];
        let ends = [Some(3), Some(1), Some(2)];
        let first = |i: usize, j: usize| ends[i].cmp(&ends[j]);
        let owned = owners(copies, &first);
        let got: Vec<_> = owned
            .iter()
            .map(|(id, i, c)| (id.as_str(), *i, c.tool.as_deref(), c.outcome() == Outcome::Error))
            .collect();
        assert_eq!(got, vec![("w", 2, Some("Read"), false), ("x", 1, Some("Grep"), true)]);
    }
}
