//! Responses written more than once, counted once (`--tokens`).
//!
//! Claude Code writes one assistant message on several lines (one per
//! content block), each repeating the message's usage, and streamed copies
//! carry different `output_tokens`; a resumed session copies earlier history
//! (same message and request ids) into a new file. A writer that does this
//! names each response's identity ([`crate::format::Dialect::message_key`]:
//! `message.id` + `requestId`). Such responses are held by key until the run
//! ends, across threads, files and `--partial` shards, and each counts once,
//! each token figure the largest among its copies.
//!
//! Whose it is (its group keys: day, model, session, …): a session's totals
//! never include what it copied from another (issue 38). Among sessions
//! holding copies of one response, it belongs to the session that ends
//! first (the latest time of its held responses): a resumed session
//! continues after the history it copied, so its original ends earlier.
//! Within that session (or when the times tie or are unknown), the copy
//! with the largest token total wins (ties: the first by absolute file
//! path, then line, as ccusage keeps the first copy in path order). The
//! owner is decided when the run ends ([`Responses::fold_into`]), since no
//! session's end is known before.
//!
//! Memory: one entry per distinct message (its key, the five figures,
//! where its best copy is), about 350 bytes each with the table, plus about
//! 50 bytes for each further session holding a copy of it (a resumed
//! session's history); group keys (a few hundred: days × models), file paths
//! and session ids (one per file) are shared. The held responses sit in one
//! array, so the final fold reads memory in order instead of chasing a few
//! pointers per response.

use std::collections::HashMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::format::Usage;
use crate::record::Event;
use crate::time::{self, Timestamp};

use super::cost::{Cost, Costing, Sources, Tally};
use super::field::{Context, KeyVal, Num, Numeric, Val};
use super::groups::{group_key, Group, Groups};
use super::query::Query;
use super::stat::{num_from_wire, num_wire};

/// One copy of a response: the best among its session's copies.
#[derive(Debug, Clone, PartialEq)]
pub struct Copy {
    /// Its group keys (an index into its [`Responses`]' keys).
    key: u32,
    /// Its token total.
    total: f64,
    /// Its file (absolute path) and line.
    path: Arc<str>,
    line: u64,
    /// Its session.
    session: Arc<str>,
    /// Its time.
    at: Option<Timestamp>,
}

impl Copy {
    /// Whether a copy with this total, path and line is better (a larger
    /// total, or the same total earlier by path and line).
    fn beaten_by(&self, total: f64, path: &str, line: u64) -> bool {
        total > self.total || (total == self.total && (path, line) < (&*self.path, self.line))
    }

    /// Whether `o` is the better copy ([`Copy::beaten_by`]).
    fn worse_than(&self, o: &Copy) -> bool {
        self.beaten_by(o.total, &o.path, o.line)
    }
}

/// One response, from all its copies so far.
#[derive(Debug, Clone, PartialEq)]
pub struct Held {
    /// Each usage figure ([`Usage::ALL`] order), the largest seen; the
    /// last is the cost ([`super::cost`]: the writer's or computed, per copy).
    pub usage: [Option<Num>; 5],
    /// Where the copies' costs came from, and the model no price was found
    /// for (kept per response: a `--sessions` response has no group key).
    pub cost: Tally,
    /// The best copy of all ([`Copy::worse_than`]).
    best: Copy,
    /// The best copy of each other session holding one (a resumed
    /// session's history): the owner is decided when the run ends.
    others: Vec<Copy>,
}

impl Held {
    fn new(usage: [Option<Num>; 5], cost: Tally, best: Copy) -> Held {
        Held { usage, cost, best, others: vec![] }
    }

    /// Whether `o`'s best copy is better than this one's.
    pub fn prefers(&self, o: &Held) -> bool {
        self.best.worse_than(&o.best)
    }

    /// Every copy held: the best first, then one per other session.
    fn copies(&self) -> impl Iterator<Item = &Copy> {
        std::iter::once(&self.best).chain(&self.others)
    }

    /// Whether a copy with this total, place and session would be kept: its
    /// session's first, or better than its session's.
    fn takes(&self, total: f64, path: &str, line: u64, session: &str) -> bool {
        self.copies().find(|c| *c.session == *session).is_none_or(|c| c.beaten_by(total, path, line))
    }

    /// Keeps `c` when it is the best copy of its session; `best` stays the
    /// best of all.
    fn offer(&mut self, c: Copy) {
        match std::iter::once(&mut self.best).chain(&mut self.others).find(|m| m.session == c.session) {
            Some(mine) if mine.worse_than(&c) => *mine = c,
            Some(_) => {}
            None => self.others.push(c),
        }
        let mut top: Option<usize> = None;
        for (i, o) in self.others.iter().enumerate() {
            if top.map_or(&self.best, |t| &self.others[t]).worse_than(o) {
                top = Some(i);
            }
        }
        if let Some(i) = top {
            std::mem::swap(&mut self.best, &mut self.others[i]);
        }
    }

    /// The copy whose group keys count the response: the one of the session
    /// that ends first (`ends`), then the best ([`Copy::worse_than`]).
    fn owner(&self, ends: &HashMap<&str, Timestamp>) -> &Copy {
        let end = |c: &Copy| ends.get(&*c.session).copied();
        let mut own = &self.best;
        for c in &self.others {
            let first = match (end(c), end(own)) {
                (Some(a), Some(b)) => a.cmp(&b),
                (a, b) => b.is_none().cmp(&a.is_none()),
            };
            if first.is_lt() || (first.is_eq() && own.worse_than(c)) {
                own = c;
            }
        }
        own
    }

    /// Keeps the largest of each figure.
    fn max_figures(&mut self, usage: &[Option<Num>; 5]) {
        for (a, b) in self.usage.iter_mut().zip(usage) {
            *a = match (*a, *b) {
                (Some(x), Some(y)) => Some(if y.total_cmp(x).is_gt() { y } else { x }),
                (x, y) => x.or(y),
            };
        }
    }

    /// Combines two copies' states: the figures' maxima, each session's
    /// best copy (both must index the same key table).
    pub fn merge(&mut self, mut o: Held) {
        self.max_figures(&o.usage);
        self.cost.merge(std::mem::take(&mut o.cost));
        self.offer(o.best);
        for c in o.others {
            self.offer(c);
        }
    }
}

/// Each session's end: the latest time of its held copies (only when some
/// response is held by several sessions, the only case it decides).
fn ends(held: &[Held]) -> HashMap<&str, Timestamp> {
    let mut ends: HashMap<&str, Timestamp> = HashMap::new();
    if held.iter().all(|h| h.others.is_empty()) {
        return ends;
    }
    for c in held.iter().flat_map(Held::copies) {
        if let Some(t) = c.at {
            let e = ends.entry(&*c.session).or_insert(t);
            *e = (*e).max(t);
        }
    }
    ends
}

/// Distinct group keys, each stored once.
#[derive(Debug, Clone, Default, PartialEq)]
struct Keys {
    list: Vec<Vec<KeyVal>>,
    ids: foldhash::HashMap<Vec<KeyVal>, u32>,
}

impl Keys {
    fn intern(&mut self, key: Vec<KeyVal>) -> u32 {
        if let Some(&id) = self.ids.get(&key) {
            return id;
        }
        let id = u32::try_from(self.list.len()).expect("fewer than 2^32 distinct group keys");
        self.list.push(key.clone());
        self.ids.insert(key, id);
        id
    }
}

/// Responses by message key.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Responses {
    /// Where each message's response is in `held` (foldhash: SipHash cost
    /// 5% of a `--tokens` run).
    index: foldhash::HashMap<String, usize>,
    held: Vec<Held>,
    keys: Keys,
    /// The path of the last copy added, as typed and made absolute: the
    /// copies of one file share it.
    last_path: Option<(Arc<str>, Arc<str>)>,
    /// The session of the last copy added (shared the same way).
    last_session: Option<Arc<str>>,
}

impl Responses {
    /// Adds one copy of the response `message` (its key); returns true when
    /// a time key had no usable timestamp. A copy that is not better than
    /// the one held costs no allocation (only its figures are compared).
    pub fn add(&mut self, q: &Query, ev: &Event<'_>, cx: &mut Context, message: &str) -> bool {
        if let Some(&at) = self.index.get(message) {
            let (mut usage, total) = token_figures(ev);
            let held = &mut self.held[at];
            // A copy with no larger token count and no cost of its writer's
            // costs no more than the held one (the same message: the same
            // model; a price grows with every figure).
            let larger = usage[..4].iter().zip(&held.usage[..4]).any(|(c, h)| match (c, h) {
                (Some(c), Some(h)) => c.total_cmp(*h).is_gt(),
                (c, _) => c.is_some(),
            });
            if larger || usage[Usage::Cost as usize].is_some() || held.cost.sources.contains(Sources::WRITER) {
                let cost = cx.costing.cost_of(ev, &usage);
                usage[Usage::Cost as usize] = cost.usd;
                held.cost.note(&cost);
            }
            held.max_figures(&usage);
            let (path, line) = ev.origin();
            let path = self.path(&path);
            let session = self.session(ev);
            if !self.held[at].takes(total, &path, line, &session) {
                return false;
            }
            let (key, untimed) = group_key(q, ev, cx);
            let key = self.keys.intern(key);
            self.held[at].offer(Copy { key, total, path, line, session, at: ev.timestamp() });
            return untimed;
        }
        let (usage, total, cost) = figures(ev, &mut cx.costing);
        let (key, untimed) = group_key(q, ev, cx);
        let key = self.keys.intern(key);
        let best = self.copy(ev, key, total);
        self.insert(message.to_owned(), Held::new(usage, tally(&cost), best));
        untimed
    }

    /// The copy `ev` is, with its group keys `key` and token total.
    fn copy(&mut self, ev: &Event<'_>, key: u32, total: f64) -> Copy {
        let (path, line) = ev.origin();
        Copy { key, total, path: self.path(&path), line, session: self.session(ev), at: ev.timestamp() }
    }

    /// `path` made absolute ([`crate::files::absolute`]), shared with the
    /// copy before when it is the same file's. Copies tie-break on it, so
    /// the winner does not depend on how a path was typed (`../b/f.jsonl`
    /// from one folder, `/x/b/f.jsonl` from another: issue 38, D4).
    fn path(&mut self, path: &str) -> Arc<str> {
        match &self.last_path {
            Some((typed, abs)) if **typed == *path => abs.clone(),
            _ => {
                let abs: Arc<str> = Arc::from(crate::files::absolute(std::path::Path::new(path)).to_string_lossy());
                self.last_path = Some((Arc::from(path), abs.clone()));
                abs
            }
        }
    }

    /// `ev`'s session id (empty when it has none), shared with the copy
    /// before when it is the same.
    fn session(&mut self, ev: &Event<'_>) -> Arc<str> {
        let id = ev.session().unwrap_or_default();
        self.intern_session(&id)
    }

    fn intern_session(&mut self, id: &str) -> Arc<str> {
        match &self.last_session {
            Some(s) if **s == *id => s.clone(),
            _ => {
                let s: Arc<str> = Arc::from(id);
                self.last_session = Some(s.clone());
                s
            }
        }
    }

    fn insert(&mut self, message: String, held: Held) {
        self.index.insert(message, self.held.len());
        self.held.push(held);
    }

    /// Adds one copy of the response `message`, without group keys (`--sessions`).
    pub fn add_copy(&mut self, ev: &Event<'_>, costing: &mut Costing, message: String) {
        let (usage, total, cost) = figures(ev, costing);
        let key = self.keys.intern(vec![]);
        let best = self.copy(ev, key, total);
        self.merge_one(message, Held::new(usage, tally(&cost), best));
    }

    /// The message keys of the held responses.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.index.keys().map(String::as_str)
    }

    /// Gives back the room grown for responses not added (a finished
    /// session's state is held until the run ends).
    pub fn shrink(&mut self) {
        self.index.shrink_to_fit();
        self.held.shrink_to_fit();
    }

    /// The held responses by message key, without their group keys (for
    /// `--sessions`, whose responses have none).
    pub fn into_map(self) -> impl Iterator<Item = (String, Held)> {
        let mut held: Vec<Option<Held>> = self.held.into_iter().map(Some).collect();
        self.index.into_iter().filter_map(move |(k, at)| Some((k, held[at].take()?)))
    }

    /// Adds a response (its key indexes this state's key table).
    fn merge_one(&mut self, message: String, held: Held) {
        match self.index.get(&message) {
            Some(&at) => self.held[at].merge(held),
            None => self.insert(message, held),
        }
    }

    /// Combines another state.
    pub fn merge(&mut self, o: Responses) {
        if self.held.len() < o.held.len() {
            let mine = std::mem::replace(self, o);
            return self.merge(mine);
        }
        // Its keys in this state's table.
        let ids: Vec<u32> = o.keys.list.into_iter().map(|k| self.keys.intern(k)).collect();
        let mut held: Vec<Option<Held>> = o.held.into_iter().map(Some).collect();
        self.index.reserve(o.index.len());
        for (message, at) in o.index {
            let Some(mut h) = held[at].take() else { continue };
            for c in std::iter::once(&mut h.best).chain(&mut h.others) {
                c.key = ids[c.key as usize];
            }
            self.merge_one(message, h);
        }
    }

    /// Each held response with its group key (for a view that folds the
    /// responses itself: [`super::blocks::entries`]).
    /// The group key is the owner's (`Held::owner`).
    pub fn held(&self) -> impl Iterator<Item = (&[KeyVal], &Held)> {
        let ends = ends(&self.held);
        self.held.iter().map(move |h| (self.keys.list[h.owner(&ends).key as usize].as_slice(), h))
    }

    /// The latest time of the copies held (a session's end, for
    /// [`super::session::settle`]).
    pub fn latest(&self) -> Option<Timestamp> {
        self.held.iter().flat_map(Held::copies).filter_map(|c| c.at).max()
    }

    /// Whether nothing is held.
    pub fn is_empty(&self) -> bool {
        self.held.is_empty()
    }

    /// Counts every response once into the groups of its owner's copy
    /// (`Held::owner`; `--tokens` measures are the usage figures, in
    /// [`Usage::ALL`] order).
    pub fn fold_into(self, q: &Query, groups: &mut Groups) {
        let mut folded: Vec<Group> = self.keys.list.iter().map(|_| Group::new(q)).collect();
        let ends = ends(&self.held);
        for held in &self.held {
            let g = &mut folded[held.owner(&ends).key as usize];
            g.count += 1;
            g.cost.merge(held.cost.clone());
            for (m, s) in q.measures.iter().zip(g.stats.iter_mut()) {
                let super::field::Field::Usage(u) = m.field else { continue };
                if let Some(n) = held.usage[u as usize] {
                    s.add_num(n);
                }
            }
        }
        for (key, g) in self.keys.list.into_iter().zip(folded) {
            if g.count > 0 {
                groups.merge_group(key, g);
            }
        }
    }

    /// A copy on the wire.
    fn copy_to_wire(&self, c: &Copy) -> WireCopy {
        WireCopy {
            key: self.keys.list[c.key as usize].iter().map(KeyVal::to_json).collect(),
            best: (c.total, c.path.to_string(), c.line),
            session: c.session.to_string(),
            at: c.at.map(time::format_timestamp),
        }
    }

    /// A copy read from the wire, for a query of `keys` keys.
    fn copy_from_wire(&mut self, c: WireCopy, keys: usize) -> Result<Copy, String> {
        if c.key.len() != keys {
            return Err(format!("key has {} values, the query has {keys} keys", c.key.len()));
        }
        let at = match c.at {
            Some(t) => Some(time::parse_timestamp(&t).ok_or_else(|| format!("bad timestamp {t:?}"))?),
            None => None,
        };
        let key = self.keys.intern(c.key.iter().map(KeyVal::from_json).collect());
        let (total, path, line) = c.best;
        Ok(Copy { key, total, path: self.path(&path), line, session: self.intern_session(&c.session), at })
    }

    /// The held responses in key order, for a partial stream.
    pub fn to_wire(&self) -> Vec<WireResponse> {
        let mut all: Vec<_> = self.index.iter().collect();
        all.sort_by(|a, b| a.0.cmp(b.0));
        all.into_iter()
            .map(|(k, &at)| {
                let h = &self.held[at];
                let best = self.copy_to_wire(&h.best);
                WireResponse {
                    message: k.clone(),
                    key: best.key,
                    usage: h.usage.iter().map(|u| u.map_or(Value::Null, num_wire)).collect(),
                    cost: h.cost.clone(),
                    best: best.best,
                    session: best.session,
                    at: best.at,
                    others: h.others.iter().map(|c| self.copy_to_wire(c)).collect(),
                }
            })
            .collect()
    }

    /// Adds a response read from a partial stream of a query with `keys` keys.
    pub fn add_wire(&mut self, r: WireResponse, keys: usize) -> Result<(), String> {
        if r.usage.len() != Usage::ALL.len() {
            return Err(format!("{} usage figures, not {}", r.usage.len(), Usage::ALL.len()));
        }
        let mut usage = [None; 5];
        for (slot, v) in usage.iter_mut().zip(&r.usage) {
            *slot = if v.is_null() { None } else { Some(num_from_wire(v)?) };
        }
        let best = WireCopy { key: r.key, best: r.best, session: r.session, at: r.at };
        let best = self.copy_from_wire(best, keys)?;
        let mut held = Held::new(usage, r.cost, best);
        for c in r.others {
            held.offer(self.copy_from_wire(c, keys)?);
        }
        self.merge_one(r.message, held);
        Ok(())
    }
}

impl Responses {
    /// The binary form of the held responses ([`super::bin`]): the key
    /// table, the paths and session ids, then each response (message key,
    /// the five figures, cost sources, and its copies, the best first: key
    /// index, token total, path index, line, session index, time).
    pub fn write_bin(&self, w: &mut Vec<u8>) {
        use super::bin::{num, opt_ts, put_key, put_len, tally, text};
        put_len(w, self.keys.list.len());
        for key in &self.keys.list {
            put_key(w, key);
        }
        let mut names: Vec<&str> = vec![];
        let mut ids: foldhash::HashMap<&str, usize> = Default::default();
        for c in self.held.iter().flat_map(Held::copies) {
            for s in [&*c.path, &*c.session] {
                ids.entry(s).or_insert_with(|| {
                    names.push(s);
                    names.len() - 1
                });
            }
        }
        put_len(w, names.len());
        for n in &names {
            text(w, n);
        }
        put_len(w, self.index.len());
        for (message, &at) in &self.index {
            let h = &self.held[at];
            text(w, message);
            for u in h.usage {
                num(w, u);
            }
            tally(w, &h.cost);
            put_len(w, 1 + h.others.len());
            for c in h.copies() {
                put_len(w, c.key as usize);
                w.extend_from_slice(&c.total.to_bits().to_le_bytes());
                put_len(w, ids[&*c.path]);
                w.extend_from_slice(&c.line.to_le_bytes());
                put_len(w, ids[&*c.session]);
                opt_ts(w, c.at);
            }
        }
    }

    /// Reads [`Responses::write_bin`] back for a query of `keys` keys.
    pub fn read_bin(r: &mut crate::codec::Reader<'_>, keys: usize) -> Option<Responses> {
        use super::bin::StatePieces;
        let mut out = Responses::default();
        for _ in 0..r.count()? {
            let key = r.key(keys)?;
            // Each key once: its place in the table is its index.
            let expected = out.keys.list.len();
            if out.keys.intern(key) as usize != expected {
                return None;
            }
        }
        let names = (0..r.count()?).map(|_| r.text().map(Arc::<str>::from)).collect::<Option<Vec<_>>>()?;
        for _ in 0..r.count()? {
            let message = r.text()?;
            let mut usage = [None; 5];
            for u in &mut usage {
                *u = r.num()?;
            }
            let cost = r.tally()?;
            let mut held: Option<Held> = None;
            for _ in 0..r.count()? {
                let key = r.index(out.keys.list.len())? as u32;
                let total = f64::from_bits(r.u64()?);
                let path = names[r.index(names.len())?].clone();
                let line = r.u64()?;
                let session = names[r.index(names.len())?].clone();
                let c = Copy { key, total, path, line, session, at: r.opt_ts()? };
                match &mut held {
                    Some(h) => h.offer(c),
                    None => held = Some(Held::new(usage, cost.clone(), c)),
                }
            }
            out.merge_one(message, held?);
        }
        Some(out)
    }
}

/// A copy's figures as written (the last one the writer's cost) and its token total.
fn token_figures(ev: &Event<'_>) -> ([Option<Num>; 5], f64) {
    let usage = ev.tokens().map(|raw| match raw.map(|r| Val::Raw(r).numeric()) {
        Some(Numeric::Num(n)) => Some(n),
        _ => None,
    });
    let total = usage[..4].iter().flatten().map(|n| n.to_f64()).sum();
    (usage, total)
}

/// A copy's figures (the last one its cost), its token total, and its cost.
fn figures<'a>(ev: &Event<'a>, costing: &mut Costing) -> ([Option<Num>; 5], f64, Cost<'a>) {
    let (mut usage, total) = token_figures(ev);
    let cost = costing.cost_of(ev, &usage);
    usage[Usage::Cost as usize] = cost.usd;
    (usage, total, cost)
}

/// The tally of one copy's cost.
fn tally(cost: &Cost<'_>) -> Tally {
    let mut t = Tally::default();
    t.note(cost);
    t
}

/// A held response on the wire (`{"kind":"response",…}` of a partial stream).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WireResponse {
    /// The message key.
    pub message: String,
    /// Group keys of the best copy.
    pub key: Vec<Value>,
    /// The usage figures, in [`Usage::ALL`] order (`null`: none).
    pub usage: Vec<Value>,
    /// Where its cost came from.
    #[serde(default)]
    pub cost: Tally,
    /// The best copy: token total, path, line.
    pub best: (f64, String, u64),
    /// The best copy's session.
    #[serde(default)]
    pub session: String,
    /// The best copy's time.
    #[serde(default)]
    pub at: Option<String>,
    /// The best copy of each other session holding one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub others: Vec<WireCopy>,
}

/// A copy of a held response on the wire (other than the best).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WireCopy {
    /// Its group keys.
    pub key: Vec<Value>,
    /// Its token total, path, line.
    pub best: (f64, String, u64),
    /// Its session.
    #[serde(default)]
    pub session: String,
    /// Its time.
    #[serde(default)]
    pub at: Option<String>,
}
