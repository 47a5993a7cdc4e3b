//! Responses written more than once, counted once (`--tokens`).
//!
//! Claude Code writes one assistant message on several lines (one per
//! content block), each repeating the message's usage, and streamed copies
//! carry different `output_tokens`; a resumed session copies earlier history
//! (same message and request ids) into a new file. A writer that does this
//! names each response's identity ([`crate::format::Dialect::message_key`]:
//! `message.id` + `requestId`). Such responses are held by key until the run
//! ends, across threads, files and `--partial` shards, and each counts once:
//! its group keys (day, model, …) are those of the copy with the largest
//! token total (ties: the first by absolute file path, then line, as ccusage keeps
//! the first copy in path order), each token figure the largest among its
//! copies. Memory: one entry per distinct message (its key, the five
//! figures, where its best copy is), about 300 bytes each with the table;
//! group keys (a few hundred: days × models) and file paths (one per file)
//! are shared. The held responses sit in one array, so the final fold reads
//! memory in order instead of chasing a few pointers per response.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::format::Usage;
use crate::record::Event;

use super::cost::{Cost, Costing, Sources, Tally};
use super::field::{Context, KeyVal, Num, Numeric, Val};
use super::groups::{group_key, Group, Groups};
use super::query::Query;
use super::stat::{num_from_wire, num_wire};

/// One response, from all its copies so far.
#[derive(Debug, Clone, PartialEq)]
pub struct Held {
    /// Group keys of the best copy (an index into its [`Responses`]' keys).
    key: u32,
    /// Each usage figure ([`Usage::ALL`] order), the largest seen; the
    /// last is the cost ([`super::cost`]: the writer's or computed, per copy).
    pub usage: [Option<Num>; 5],
    /// Where the copies' costs came from, and the model no price was found
    /// for (kept per response: a `--sessions` response has no group key).
    pub cost: Tally,
    /// The best copy: its token total, then where it is (path, line).
    pub best: (f64, Arc<str>, u64),
}

impl Held {
    /// Whether `o` is the better copy (a larger total, or the same total
    /// earlier by path and line).
    pub fn prefers(&self, o: &Held) -> bool {
        self.beaten_by(o.best.0, &o.best.1, o.best.2)
    }

    /// Whether a copy with this total, path and line is better than the best held.
    fn beaten_by(&self, total: f64, path: &str, line: u64) -> bool {
        total > self.best.0 || (total == self.best.0 && (path, line) < (&*self.best.1, self.best.2))
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

    /// Combines two copies' states: the figures' maxima, the better copy's
    /// keys (both must index the same key table).
    pub fn merge(&mut self, mut o: Held) {
        self.max_figures(&o.usage);
        self.cost.merge(std::mem::take(&mut o.cost));
        if self.prefers(&o) {
            self.key = o.key;
            self.best = o.best;
        }
    }
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
            let held = &mut self.held[at];
            if !held.beaten_by(total, &path, line) {
                return false;
            }
            let (key, untimed) = group_key(q, ev, cx);
            let key = self.keys.intern(key);
            let held = &mut self.held[at];
            held.key = key;
            held.best = (total, path, line);
            return untimed;
        }
        let (usage, total, cost) = figures(ev, &mut cx.costing);
        let (key, untimed) = group_key(q, ev, cx);
        let (path, line) = ev.origin();
        let held =
            Held { key: self.keys.intern(key), usage, cost: tally(&cost), best: (total, self.path(&path), line) };
        self.insert(message.to_owned(), held);
        untimed
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

    fn insert(&mut self, message: String, held: Held) {
        self.index.insert(message, self.held.len());
        self.held.push(held);
    }

    /// Adds one copy of the response `message`, without group keys (`--sessions`).
    pub fn add_copy(&mut self, ev: &Event<'_>, costing: &mut Costing, message: String) {
        let (usage, total, cost) = figures(ev, costing);
        let (path, line) = ev.origin();
        let held =
            Held { key: self.keys.intern(vec![]), usage, cost: tally(&cost), best: (total, self.path(&path), line) };
        self.merge_one(message, held);
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
            h.key = ids[h.key as usize];
            self.merge_one(message, h);
        }
    }

    /// Each held response with its group key (for a view that folds the
    /// responses itself: [`super::blocks::entries`]).
    pub fn held(&self) -> impl Iterator<Item = (&[KeyVal], &Held)> {
        self.held.iter().map(|h| (self.keys.list[h.key as usize].as_slice(), h))
    }

    /// Whether nothing is held.
    pub fn is_empty(&self) -> bool {
        self.held.is_empty()
    }

    /// Counts every response once into the groups (`--tokens` measures are
    /// the usage figures, in [`Usage::ALL`] order).
    pub fn fold_into(self, q: &Query, groups: &mut Groups) {
        let mut folded: Vec<Group> = self.keys.list.iter().map(|_| Group::new(q)).collect();
        for held in &self.held {
            let g = &mut folded[held.key as usize];
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

    /// The held responses in key order, for a partial stream.
    pub fn to_wire(&self) -> Vec<WireResponse> {
        let mut all: Vec<_> = self.index.iter().collect();
        all.sort_by(|a, b| a.0.cmp(b.0));
        all.into_iter()
            .map(|(k, &at)| {
                let h = &self.held[at];
                WireResponse {
                    message: k.clone(),
                    key: self.keys.list[h.key as usize].iter().map(KeyVal::to_json).collect(),
                    usage: h.usage.iter().map(|u| u.map_or(Value::Null, num_wire)).collect(),
                    cost: h.cost.clone(),
                    best: (h.best.0, h.best.1.to_string(), h.best.2),
                }
            })
            .collect()
    }

    /// Adds a response read from a partial stream of a query with `keys` keys.
    pub fn add_wire(&mut self, r: WireResponse, keys: usize) -> Result<(), String> {
        if r.key.len() != keys {
            return Err(format!("key has {} values, the query has {keys} keys", r.key.len()));
        }
        if r.usage.len() != Usage::ALL.len() {
            return Err(format!("{} usage figures, not {}", r.usage.len(), Usage::ALL.len()));
        }
        let mut usage = [None; 5];
        for (slot, v) in usage.iter_mut().zip(&r.usage) {
            *slot = if v.is_null() { None } else { Some(num_from_wire(v)?) };
        }
        let key = self.keys.intern(r.key.iter().map(KeyVal::from_json).collect());
        let (total, path, line) = r.best;
        let held = Held { key, usage, cost: r.cost, best: (total, self.path(&path), line) };
        self.merge_one(r.message, held);
        Ok(())
    }
}

impl Responses {
    /// The binary form of the held responses ([`super::bin`]): the key
    /// table, the paths, then each response (message key, key index, the
    /// five figures, cost sources, best copy's total, path index and line).
    pub fn write_bin(&self, w: &mut Vec<u8>) {
        use super::bin::{num, put_key, put_len, tally, text};
        put_len(w, self.keys.list.len());
        for key in &self.keys.list {
            put_key(w, key);
        }
        let mut paths: Vec<&str> = vec![];
        let mut ids: foldhash::HashMap<&str, usize> = Default::default();
        let path_of: Vec<usize> = self
            .held
            .iter()
            .map(|h| {
                *ids.entry(&h.best.1).or_insert_with(|| {
                    paths.push(&h.best.1);
                    paths.len() - 1
                })
            })
            .collect();
        put_len(w, paths.len());
        for p in &paths {
            text(w, p);
        }
        put_len(w, self.index.len());
        for (message, &at) in &self.index {
            let h = &self.held[at];
            text(w, message);
            put_len(w, h.key as usize);
            for u in h.usage {
                num(w, u);
            }
            tally(w, &h.cost);
            w.extend_from_slice(&h.best.0.to_bits().to_le_bytes());
            put_len(w, path_of[at]);
            w.extend_from_slice(&h.best.2.to_le_bytes());
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
        let paths = (0..r.count()?).map(|_| r.text().map(Arc::<str>::from)).collect::<Option<Vec<_>>>()?;
        for _ in 0..r.count()? {
            let message = r.text()?;
            let key = u32::try_from(r.count()?).ok().filter(|&k| (k as usize) < out.keys.list.len())?;
            let mut usage = [None; 5];
            for u in &mut usage {
                *u = r.num()?;
            }
            let cost = r.tally()?;
            let total = f64::from_bits(r.u64()?);
            let path = paths.get(r.count()?)?.clone();
            let line = r.u64()?;
            out.merge_one(message, Held { key, usage, cost, best: (total, path, line) });
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
}
