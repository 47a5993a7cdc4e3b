//! `--sessions`: events a session copied from another, taken out of its
//! totals (issue 38: a session's totals never include what it copied).
//!
//! A writer that copies history ([`crate::format::Profile::copies_history`]:
//! Claude Code writes a resumed session's history again at the top of the
//! new session's file) names each event's line or block
//! ([`crate::format::Dialect::copy_key`]). Each session holds its events'
//! identities until the run ends; then an event held by several sessions
//! counts in the one that ends first (as responses do:
//! [`super::session::settle`]), and the others drop it from their events by
//! type (so turns and messages), their start time and their turns' response
//! times. Memory: about
//! 40 bytes per event of such a writer (a 64-bit hash of the identity, the
//! event type's index, the time).

use std::cmp::Ordering;
use std::collections::HashMap;

use crate::codec::Reader;
use crate::time::Timestamp;

use super::bin::{opt_ts, put_len, text, StatePieces};
use super::calls::millis;
use super::session::Summary;

/// A session's events that may be copies, held until [`settle`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Copied {
    /// Event types, indexed by `lines`.
    names: Vec<String>,
    /// Each event: its identity's hash, its type, its time.
    lines: Vec<(u64, u32, Option<Timestamp>)>,
    /// The earliest time of the session's events that are no copies.
    own_started: Option<Timestamp>,
    /// Timed turns whose prompt may be a copy: its identity's hash, the
    /// turn's start and end (its response time counts where the prompt does).
    turns: Vec<(u64, Timestamp, Timestamp)>,
}

impl Copied {
    /// Notes an event of type `name` whose line or block is `key` (`None`:
    /// the session's own); returns its identity's hash.
    pub fn event(&mut self, name: &str, key: Option<&str>, at: Option<Timestamp>) -> Option<u64> {
        let Some(key) = key else {
            self.own_started = earliest(self.own_started, at);
            return None;
        };
        let mut h = xxhash_rust::xxh3::Xxh3::new();
        h.update(name.as_bytes());
        h.update(&[0]);
        h.update(key.as_bytes());
        let name = self.name(name);
        let hash = h.digest();
        self.lines.push((hash, name, at));
        Some(hash)
    }

    /// Notes a timed turn from `start` to `end` whose prompt's identity is `prompt`.
    pub fn turn(&mut self, prompt: u64, start: Timestamp, end: Timestamp) {
        self.turns.push((prompt, start, end));
    }

    /// The index of event type `name`.
    fn name(&mut self, name: &str) -> u32 {
        let at = self.names.iter().position(|n| n == name).unwrap_or_else(|| {
            self.names.push(name.to_owned());
            self.names.len() - 1
        });
        u32::try_from(at).unwrap_or(u32::MAX)
    }

    /// Gives back the room grown for events not added (a finished
    /// session's state is held until the run ends).
    pub fn shrink(&mut self) {
        self.lines.shrink_to_fit();
        self.turns.shrink_to_fit();
    }

    /// Adds what another part of the same session holds.
    pub fn merge(&mut self, o: Copied) {
        let ids: Vec<u32> = o.names.iter().map(|n| self.name(n)).collect();
        self.lines.extend(o.lines.into_iter().map(|(h, n, t)| (h, ids[n as usize], t)));
        self.own_started = earliest(self.own_started, o.own_started);
        self.turns.extend(o.turns);
    }

    /// The binary form (the capture cache): the event types, then each
    /// event (hash, type index, time), the own start, then each turn (hash,
    /// start, end).
    pub fn write_bin(&self, w: &mut Vec<u8>) {
        put_len(w, self.names.len());
        for n in &self.names {
            text(w, n);
        }
        put_len(w, self.lines.len());
        for (h, n, t) in &self.lines {
            w.extend_from_slice(&h.to_le_bytes());
            put_len(w, *n as usize);
            opt_ts(w, *t);
        }
        opt_ts(w, self.own_started);
        put_len(w, self.turns.len());
        for (h, a, b) in &self.turns {
            w.extend_from_slice(&h.to_le_bytes());
            opt_ts(w, Some(*a));
            opt_ts(w, Some(*b));
        }
    }

    /// Reads [`Copied::write_bin`] back.
    pub fn read_bin(r: &mut Reader<'_>) -> Option<Copied> {
        let names = (0..r.count()?).map(|_| r.text()).collect::<Option<Vec<_>>>()?;
        let mut lines = vec![];
        for _ in 0..r.count()? {
            let h = r.u64()?;
            let n = r.index(names.len())? as u32;
            lines.push((h, n, r.opt_ts()?));
        }
        let own_started = r.opt_ts()?;
        let mut turns = vec![];
        for _ in 0..r.count()? {
            turns.push((r.u64()?, r.opt_ts()??, r.opt_ts()??));
        }
        Some(Copied { names, lines, own_started, turns })
    }
}

fn earliest(a: Option<Timestamp>, b: Option<Timestamp>) -> Option<Timestamp> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    }
}

/// Gives each event held by several sessions to the one that ends first
/// (`first(i, j)`: how session `i`'s end compares with `j`'s; ties: the
/// earlier in `summaries`); the others drop it from their events by type
/// and start from their own events.
pub fn settle(summaries: &mut [Summary], first: &dyn Fn(usize, usize) -> Ordering) {
    let mut owner: HashMap<u64, usize> = HashMap::new();
    for (i, s) in summaries.iter().enumerate() {
        for &(h, _, _) in &s.copied.lines {
            let o = owner.entry(h).or_insert(i);
            if first(i, *o).is_lt() {
                *o = i;
            }
        }
    }
    for (i, s) in summaries.iter_mut().enumerate() {
        let held = std::mem::take(&mut s.copied);
        let mut started = held.own_started;
        let mut lost = false;
        for (h, n, t) in held.lines {
            if owner.get(&h) == Some(&i) {
                started = earliest(started, t);
                continue;
            }
            lost = true;
            let name = &held.names[n as usize];
            if let Some(c) = s.events.get_mut(name) {
                *c = c.saturating_sub(1);
                if *c == 0 {
                    s.events.remove(name);
                }
            }
        }
        if lost {
            s.started = started;
        }
        for (h, a, b) in held.turns {
            if owner.get(&h) == Some(&i) {
                s.response_ms.add(millis(a, b));
                s.responses_timed += 1;
            }
        }
    }
}
