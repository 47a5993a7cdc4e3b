//! `--tools`: calls a session may have copied from another, counted once
//! (issue 38: a session's totals never include what it copied).
//!
//! A writer that copies history ([`crate::format::Profile::copies_history`]:
//! Claude Code writes a resumed session's history again at the top of the
//! new session's file, tool ids included) has its calls by id held until
//! the run ends, across threads, the capture cache and `--partial` shards,
//! with each session's end (the latest time of its responses, as
//! [`super::responses`] takes it for `--tokens`). Then a call held by several
//! sessions counts once, in the session that ends first ([`owners`], the
//! rule `--sessions` settles calls by too: [`super::session::settle`]).
//! Memory: about 200 bytes per call of such a writer (its id, session, tool
//! and group keys), plus one end per session.

use std::cmp::Ordering;
use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::codec::Reader;
use crate::time::{self, Timestamp};

use super::bin::{opt_ts, put_len, text, StatePieces};
use super::calls::{Call, WireCall};

/// Calls held by id until the run ends, and each session's end.
#[derive(Debug, Clone, Default)]
pub struct CopiedCalls {
    /// Each call: its id, its session, what the session saw of it.
    calls: Vec<(String, String, Call)>,
    /// Each session's end: the latest time of its responses.
    ends: HashMap<String, Timestamp>,
}

/// A held call on the `--partial` wire.
#[derive(Debug, Serialize, Deserialize)]
pub struct WireHeld {
    /// The call's id.
    pub id: String,
    /// Its session.
    pub session: String,
    /// The call.
    pub call: WireCall,
}

impl CopiedCalls {
    /// Holds session `session`'s call `id`.
    pub fn hold(&mut self, session: String, id: String, call: Call) {
        self.calls.push((id, session, call));
    }

    /// Notes a response of `session` at `at` (its end is the latest).
    pub fn response(&mut self, session: &str, at: Timestamp) {
        match self.ends.get_mut(session) {
            Some(e) => *e = (*e).max(at),
            None => {
                self.ends.insert(session.to_owned(), at);
            }
        }
    }

    /// Adds what another thread, capture or shard holds.
    pub fn merge(&mut self, o: CopiedCalls) {
        self.calls.extend(o.calls);
        for (s, at) in o.ends {
            self.response(&s, at);
        }
    }

    /// Each held call once, the owner's ([`owners`]).
    pub fn settle(self) -> impl Iterator<Item = Call> {
        let mut index: HashMap<String, usize> = HashMap::new();
        let mut sessions: Vec<Option<Timestamp>> = vec![];
        let mut copies = vec![];
        for (id, session, call) in self.calls {
            let i = *index.entry(session).or_insert_with_key(|s| {
                sessions.push(self.ends.get(s).copied());
                sessions.len() - 1
            });
            copies.push((id, i, call));
        }
        owners(copies, &|i, j| ends_first(sessions[i], sessions[j])).into_iter().map(|(_, _, c)| c)
    }

    /// The binary form (the capture cache): each call (id, session, call),
    /// then each session's end.
    pub fn write_bin(&self, w: &mut Vec<u8>) {
        put_len(w, self.calls.len());
        for (id, session, call) in &self.calls {
            text(w, id);
            text(w, session);
            call.write_bin(w);
        }
        let mut ends: Vec<_> = self.ends.iter().collect();
        ends.sort();
        put_len(w, ends.len());
        for (s, at) in ends {
            text(w, s);
            opt_ts(w, Some(*at));
        }
    }

    /// Reads [`CopiedCalls::write_bin`] back.
    pub fn read_bin(r: &mut Reader<'_>) -> Option<CopiedCalls> {
        let mut c = CopiedCalls::default();
        for _ in 0..r.count()? {
            let (id, session) = (r.text()?, r.text()?);
            c.calls.push((id, session, Call::read_bin(r)?));
        }
        for _ in 0..r.count()? {
            let s = r.text()?;
            c.response(&s, r.opt_ts()??);
        }
        Some(c)
    }

    /// The held calls on the wire (by id, then session, so that the
    /// stream is the same every run), and the sessions' ends (session, time).
    pub fn to_wire(&self) -> (Vec<WireHeld>, Vec<(String, String)>) {
        let mut calls: Vec<_> = self.calls.iter().collect();
        calls.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
        let calls = calls
            .into_iter()
            .map(|(id, session, call)| WireHeld { id: id.clone(), session: session.clone(), call: call.to_wire() })
            .collect();
        let mut ends: Vec<_> = self.ends.iter().map(|(s, t)| (s.clone(), time::format_timestamp(*t))).collect();
        ends.sort();
        (calls, ends)
    }

    /// Adds a held call read from the wire, for a query of `keys` keys.
    pub fn add_wire(&mut self, h: WireHeld, keys: usize) -> Result<(), String> {
        self.calls.push((h.id, h.session, Call::from_wire(h.call, keys)?));
        Ok(())
    }

    /// Adds a session's end read from the wire.
    pub fn add_end(&mut self, session: &str, at: &str) -> Result<(), String> {
        let at = time::parse_timestamp(at).ok_or_else(|| format!("bad timestamp {at:?}"))?;
        self.response(session, at);
        Ok(())
    }
}

/// How session ends compare: the earlier first, unknown ends last.
pub fn ends_first(a: Option<Timestamp>, b: Option<Timestamp>) -> Ordering {
    match (a, b) {
        (Some(a), Some(b)) => a.cmp(&b),
        (a, b) => b.is_none().cmp(&a.is_none()),
    }
}

/// Counts each call held by several sessions once: `copies` are (id,
/// session index, call); a call belongs to the session that ends first
/// (`first(i, j)`: how session `i`'s end compares with `j`'s), then to the
/// one holding its first line (by path, then line). The owner's copy (its
/// group keys) with what the others saw of it: (id, session index, call).
pub fn owners(
    mut copies: Vec<(String, usize, Call)>,
    first: &dyn Fn(usize, usize) -> Ordering,
) -> Vec<(String, usize, Call)> {
    // Grouped by id in place (a stable sort keeps each id's copies in their
    // order), the owners written back over the copies: no table or list per
    // id (a run over 28,000 sessions holds a few hundred thousand calls).
    copies.sort_by(|a, b| a.0.cmp(&b.0));
    let mut kept = 0;
    let mut start = 0;
    while start < copies.len() {
        let end = start + copies[start..].iter().take_while(|c| c.0 == copies[start].0).count();
        let mut own = start;
        for k in start + 1..end {
            let ((_, i, call), (_, o, mine)) = (&copies[k], &copies[own]);
            let earlier = match (&call.first, &mine.first) {
                (Some(a), Some(b)) => a < b,
                (a, b) => a.is_some() && b.is_none(),
            };
            let by_end = first(*i, *o);
            if by_end.is_lt() || (by_end.is_eq() && earlier) {
                own = k;
            }
        }
        let id = std::mem::take(&mut copies[start].0);
        let mut held: Vec<(usize, Call)> =
            copies[start..end].iter_mut().map(|(_, i, c)| (*i, std::mem::take(c))).collect();
        let (i, mut call) = held.swap_remove(own - start);
        for (_, c) in held {
            call.merge(c);
        }
        copies[kept] = (id, i, call);
        kept += 1;
        start = end;
    }
    copies.truncate(kept);
    copies
}
