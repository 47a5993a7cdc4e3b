//! The nearest path the records have, for a field path no record has: a
//! typo (`data.usage.output_token`), or a field another writer keeps
//! elsewhere (`data.tool_input.file_path` of a hook line is
//! `data.input.file_path` in a Claude transcript's `tool:pre`). Each worker
//! thread tallies what the events it reads have ([`Reach`]); the run merges
//! the tallies and names the nearest path in its warning ([`Target::hint`]).

use std::collections::BTreeSet;

use crate::json::{decode_str, Kind, Path, Raw};
use crate::record::{Event, PROVENANCE_KEY, RECORD_KEYS};

use super::expr::{event_field, Val};

/// Keys kept per path for the "did you mean" hint.
const KEYS_KEPT: usize = 256;

/// Paths kept per path that end with its last key.
const ENDS_KEPT: usize = 16;

/// A path looked for, with what telling the nearest one needs.
#[derive(Debug)]
pub struct Target {
    path: Path,
    /// The path's proper prefixes: `prefixes[d - 1]` has its first `d` keys.
    prefixes: Vec<Path>,
    /// Its last key as a JSON string, to find the lines that hold it.
    last: memchr::memmem::Finder<'static>,
}

/// What a worker saw of the records that lack a [`Target`]'s path.
#[derive(Debug, Default, Clone)]
pub struct Reach {
    /// How many keys of the path the records reach at most, and the keys
    /// of the objects there.
    depth: usize,
    keys: BTreeSet<String>,
    /// Paths into `data` that end with the path's last key.
    ends: BTreeSet<String>,
}

impl Target {
    /// The target of `path`.
    pub fn new(path: &Path) -> Target {
        let segs = path.segments();
        let prefixes = (1..segs.len()).map(|d| Path::from_keys(&segs[..d])).collect();
        let mut last = Vec::new();
        crate::json::write::json_str(&mut last, segs.last().map_or("", String::as_str));
        Target { path: path.clone(), prefixes, last: memchr::memmem::Finder::new(&last).into_owned() }
    }

    /// The path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Notes how deep into the path `ev`, which lacks it, goes, the keys it
    /// has there, and where in its `data` the path's last key is.
    pub fn reach(&self, ev: &Event<'_>, r: &mut Reach) {
        let segs = self.path.segments();
        let (depth, keys): (usize, Vec<String>) = if segs.first().is_some_and(|k| k == PROVENANCE_KEY) {
            // `ci` is the provenance, whether the record carries it yet or not.
            (1, ["session", "path", "line"].map(String::from).to_vec())
        } else {
            let at = (1..segs.len()).rev().find_map(|d| {
                let v = event_field(ev, &self.prefixes[d - 1]);
                v.kind().map(|_| (d, v))
            });
            match at {
                Some((d, v)) => (d, object_keys(&v)),
                None => (0, top_keys(ev)),
            }
        };
        if depth > r.depth {
            r.depth = depth;
            r.keys.clear();
        }
        if depth == r.depth {
            for k in keys {
                if r.keys.len() >= KEYS_KEPT {
                    break;
                }
                r.keys.insert(k);
            }
        }
        if segs.len() > 1 && r.ends.len() < ENDS_KEPT && self.last.find(ev.rec.line()).is_some() {
            if let Some(data) = ev.data() {
                let mut at = vec!["data".to_owned()];
                ends_in(data, segs.last().map_or("", String::as_str), &mut at, &mut r.ends);
            }
        }
    }

    /// The nearest path the records have, when there is one: the path
    /// corrected at its first key no record has, when one of the keys there
    /// is near it; else, of the paths where the records have its last key,
    /// the nearest to it.
    pub fn hint(&self, r: &Reach) -> Option<String> {
        let segs = self.path.segments();
        let keys: Vec<&str> = r.keys.iter().map(String::as_str).collect();
        let corrected = segs.get(r.depth).and_then(|k| crate::text::nearest(k, &keys)).map(|near| {
            let mut keys = segs.to_vec();
            keys[r.depth] = near.to_owned();
            Path::from_keys(&keys).as_str().to_owned()
        });
        let ends: Vec<&str> = r.ends.iter().map(String::as_str).collect();
        corrected.or_else(|| crate::text::closest(self.path.as_str(), &ends).map(str::to_owned))
    }
}

impl Reach {
    /// Adds what another worker saw.
    pub fn merge(&mut self, o: &Reach) {
        if o.depth > self.depth {
            self.depth = o.depth;
            self.keys.clear();
        }
        if o.depth == self.depth {
            self.keys.extend(o.keys.iter().cloned());
        }
        for e in &o.ends {
            if self.ends.len() >= ENDS_KEPT {
                break;
            }
            self.ends.insert(e.clone());
        }
    }
}

/// Adds to `out` the paths under `v` (at `at`) whose last key is `last`,
/// up to [`ENDS_KEPT`].
fn ends_in(v: Raw<'_>, last: &str, at: &mut Vec<String>, out: &mut BTreeSet<String>) {
    let visit = |key: String, child: Raw<'_>, at: &mut Vec<String>, out: &mut BTreeSet<String>| {
        if out.len() >= ENDS_KEPT {
            return;
        }
        at.push(key);
        if at.last().is_some_and(|k| k == last) {
            out.insert(Path::from_keys(at).as_str().to_owned());
        }
        if matches!(child.kind(), Kind::Object | Kind::Array) {
            ends_in(child, last, at, out);
        }
        at.pop();
    };
    match v.kind() {
        Kind::Object => {
            for (k, child) in v.members() {
                if let Some(k) = decode_str(k) {
                    visit(k.into_owned(), child, at, out);
                }
            }
        }
        Kind::Array => {
            for (i, child) in v.items().enumerate() {
                visit(i.to_string(), child, at, out);
            }
        }
        _ => {}
    }
}

/// The keys of an object value (none for anything else).
fn object_keys(v: &Val<'_>) -> Vec<String> {
    let Some(raw) = v.raw().filter(|r| r.kind() == Kind::Object) else { return vec![] };
    raw.members().filter_map(|(k, _)| decode_str(k).map(|k| k.into_owned())).collect()
}

/// The top-level keys of an event record: its own (for a derived record, those
/// of its normalised view) and the ones every record is read at.
fn top_keys(ev: &Event<'_>) -> Vec<String> {
    let mut keys: Vec<String> = RECORD_KEYS.iter().map(|k| (*k).to_owned()).collect();
    if let Some((k, _)) = ev.original() {
        keys.push(k.to_owned());
    }
    if !ev.derived() {
        keys.extend(ev.rec.members().filter_map(|(k, _)| decode_str(k).map(|k| k.into_owned())));
    }
    keys
}

/// A path watched while events are read: whether a record had it, else how
/// near the records came.
#[derive(Debug)]
pub struct Watch {
    /// The path.
    pub target: Target,
    /// How near the records that lack it came.
    pub reach: Reach,
    /// Whether a record had it (then nothing more is looked at).
    pub found: bool,
}

impl Watch {
    /// Watches `path`.
    pub fn new(path: &Path) -> Watch {
        Watch { target: Target::new(path), reach: Reach::default(), found: false }
    }

    /// Notes `ev`.
    pub fn observe(&mut self, ev: &Event<'_>) {
        if self.found {
            return;
        }
        if ev.path(&self.target.path).is_some() {
            self.found = true;
        } else {
            self.target.reach(ev, &mut self.reach);
        }
    }

    /// Adds what another worker saw of the same path.
    pub fn merge(&mut self, o: &Watch) {
        self.found |= o.found;
        self.reach.merge(&o.reach);
    }

    /// The nearest path the records have, unless one had the path.
    pub fn hint(&self) -> Option<String> {
        (!self.found).then(|| self.target.hint(&self.reach)).flatten()
    }
}
