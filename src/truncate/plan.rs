//! The planner: a compact, size-annotated skeleton of `data`, on which the
//! trials of cut lengths and item counts run (see the [module
//! documentation](super) for how the limits are chosen).

use serde_json::Value;

use super::{
    escaped_len, floor_char_boundary, is_protected_key, items_marker_len, json_str_len, members_marker_len,
    serialized_len, string_marker_len, ELISION_KEY, MIN_PREFIX,
};

/// The two limits of one trial: at most `items` loose array items / object
/// members kept per container ([`UNLIMITED`]: no container is elided), strings
/// cut to at most `prefix` bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Limits {
    pub(super) items: usize,
    pub(super) prefix: usize,
}

/// No limit on either dimension.
pub(super) const UNLIMITED: usize = usize::MAX;

/// One node of the skeleton, in pre-order: a container is followed by one
/// `Slot` node per child, each followed by that child's nodes.
#[derive(Debug, Clone, Copy)]
pub(super) enum Node {
    /// A value whose size never changes: number, boolean, null, a string of at
    /// most [`MIN_PREFIX`] bytes, or the whole value of a protected member.
    Fixed(usize),
    /// A string that may be cut: index into `Skeleton::strs`, its full
    /// serialised size, and whether it has no characters needing escapes.
    Str { idx: usize, size: usize, plain: bool },
    /// An array or object of `len` children, `loose` of them [`Role::Loose`]
    /// (the others are protected members or an [`ELISION_KEY`] member); `end`
    /// is the index just past the container's subtree.
    Container {
        object: bool,
        len: usize,
        loose: usize,
        /// Whether the object has an [`ELISION_KEY`] member.
        ellipsis: bool,
        end: usize,
    },
    /// One child of a container: `key_size` is the serialised size of `"key":`
    /// (0 for an array item), `role` what an elision does with it.
    Slot { key_size: usize, role: Role },
}

/// What an elision of its container does with a child.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Role {
    /// A protected member (a direct member of `data`): always kept.
    Protected,
    /// Kept if among the first `Limits::items` loose children, else omitted.
    Loose,
    /// An object's own [`ELISION_KEY`] member: always omitted, since the
    /// marker takes its key.
    Ellipsis,
}

/// What the last trial decided for a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Plan {
    Keep,
    /// Cut the string to this many bytes (a character boundary) plus marker.
    Cut(usize),
    /// Elide the container down to its protected children and the first
    /// `Limits::items` loose ones, plus a marker.
    Elide,
}

/// A compact, size-annotated image of `data` on which trials run.
pub(super) struct Skeleton<'a> {
    pub(super) nodes: Vec<Node>,
    strs: Vec<&'a str>,
    /// Per entry of `strs`: the original string's length in bytes, and the
    /// length of its text in the value (shorter for a pre-cut string, whose
    /// `strs` entry is the kept prefix only).
    pub(super) lens: Vec<(usize, usize)>,
    /// Original sizes of the strings [`super::shrink_raw`] pre-cut (empty otherwise).
    precut: &'a [Precut],
    /// Decision per node from the last call of `eval_root`.
    pub(super) plan: Vec<Plan>,
    /// Longest cuttable string, in bytes (at least `MIN_PREFIX`).
    max_str: usize,
    /// Most loose children of a container.
    max_count: usize,
}

impl<'a> Skeleton<'a> {
    pub(super) fn new(data: &'a Value, precut: &'a [Precut]) -> Self {
        let mut skeleton = Skeleton {
            nodes: Vec::new(),
            strs: Vec::new(),
            lens: Vec::new(),
            precut,
            plan: Vec::new(),
            max_str: MIN_PREFIX,
            max_count: 0,
        };
        skeleton.build(data, true);
        skeleton.plan = vec![Plan::Keep; skeleton.nodes.len()];
        skeleton
    }

    /// Appends the nodes of `v`; `top` is true for `data` itself, the only
    /// value whose members can be protected.
    fn build(&mut self, v: &'a Value, top: bool) {
        match v {
            Value::String(s) => {
                let (text, len, size) = match self.precut_of(s) {
                    Some((prefix, p)) => (prefix, p.len, p.size),
                    None => (s.as_str(), s.len(), json_str_len(s)),
                };
                if len <= MIN_PREFIX {
                    self.nodes.push(Node::Fixed(size));
                } else {
                    self.max_str = self.max_str.max(len);
                    self.nodes.push(Node::Str { idx: self.strs.len(), size, plain: size == len + 2 });
                    self.strs.push(text);
                    self.lens.push((len, s.len()));
                }
            }
            Value::Array(items) => {
                let at = self.nodes.len();
                self.nodes.push(Node::Fixed(0)); // placeholder, replaced below
                for item in items {
                    let role = Role::Loose;
                    self.nodes.push(Node::Slot { key_size: 0, role });
                    self.build(item, false);
                }
                self.finish_container(at, false, items.len(), items.len(), false);
            }
            Value::Object(members) => {
                let at = self.nodes.len();
                self.nodes.push(Node::Fixed(0)); // placeholder, replaced below
                let mut loose = 0;
                for (key, value) in members {
                    let key_size = json_str_len(key) + 1;
                    let role = if top && is_protected_key(key) {
                        Role::Protected
                    } else if key == ELISION_KEY {
                        Role::Ellipsis
                    } else {
                        Role::Loose
                    };
                    self.nodes.push(Node::Slot { key_size, role });
                    if role == Role::Protected {
                        self.nodes.push(Node::Fixed(serialized_len(value)));
                    } else {
                        self.build(value, false);
                    }
                    loose += usize::from(role == Role::Loose);
                }
                let ellipsis = members.contains_key(ELISION_KEY);
                self.finish_container(at, true, members.len(), loose, ellipsis);
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {
                self.nodes.push(Node::Fixed(serialized_len(v)));
            }
        }
    }

    /// The kept prefix and the original sizes of `s` if it is a string
    /// [`super::shrink_raw`] pre-cut: `prefix`, [`PRECUT_MARK`], its index in
    /// `precut` in decimal, [`PRECUT_MARK`], with the prefix length recorded.
    /// (No other string can look like that: see [`super::shrink_raw`].)
    fn precut_of(&self, s: &'a str) -> Option<(&'a str, Precut)> {
        if self.precut.is_empty() {
            return None;
        }
        let body = s.strip_suffix(PRECUT_MARK)?;
        let at = body.rfind(PRECUT_MARK)?;
        let index: usize = body.get(at + PRECUT_MARK.len_utf8()..)?.parse().ok()?;
        let p = *self.precut.get(index)?;
        (p.prefix == at && p.len > s.len()).then(|| (&body[..at], p))
    }

    /// Writes the container node at `at`, its children being in place.
    fn finish_container(&mut self, at: usize, object: bool, len: usize, loose: usize, ellipsis: bool) {
        let end = self.nodes.len();
        self.set_node(at, Node::Container { object, len, loose, ellipsis, end });
        self.max_count = self.max_count.max(loose);
    }

    fn set_node(&mut self, i: usize, node: Node) {
        if let Some(slot) = self.nodes.get_mut(i) {
            *slot = node;
        }
    }

    /// Picks the limits: the largest common string cut length that fits; if
    /// even [`MIN_PREFIX`] does not fit, the largest common item count that fits
    /// with [`MIN_PREFIX`], then the largest cut length that fits with it. If
    /// nothing fits, the floor (`K` = 0, `L` = [`MIN_PREFIX`]).
    pub(super) fn choose(&mut self, room: usize) -> Limits {
        let (max_str, max_count) = (self.max_str, self.max_count);
        let lim = |items, prefix| Limits { items, prefix };
        if self.fits(lim(UNLIMITED, MIN_PREFIX), room) {
            let prefix = largest(MIN_PREFIX, max_str, |p| self.fits(lim(UNLIMITED, p), room));
            return lim(UNLIMITED, prefix);
        }
        if !self.fits(lim(0, MIN_PREFIX), room) {
            return lim(0, MIN_PREFIX);
        }
        let items = largest(0, max_count, |k| self.fits(lim(k, MIN_PREFIX), room));
        let prefix = largest(MIN_PREFIX, max_str, |p| self.fits(lim(items, p), room));
        lim(items, prefix)
    }

    fn fits(&mut self, limits: Limits, room: usize) -> bool {
        self.eval_root(limits) <= room
    }

    /// Serialised size of `data` under `limits`; records the decisions in `plan`.
    pub(super) fn eval_root(&mut self, limits: Limits) -> usize {
        self.eval(0, limits).0
    }

    /// Size of the value at node `i` under `limits` and the index past its
    /// subtree. Every size is monotone (non-decreasing) in both limits, which
    /// is what makes the binary searches valid: a longer prefix or one more
    /// kept child adds at least as many bytes as the shorter marker saves, and
    /// each node takes the smaller of its whole and its shortened form.
    fn eval(&mut self, i: usize, limits: Limits) -> (usize, usize) {
        let Some(&node) = self.nodes.get(i) else {
            return (0, i + 1);
        };
        match node {
            Node::Fixed(size) => (size, i + 1),
            Node::Slot { .. } => (0, i + 1), // not reached: slots are read by their container
            Node::Str { idx, size, plain } => {
                let (size, plan) = match (self.strs.get(idx), self.lens.get(idx)) {
                    (Some(s), Some(&(len, _))) => cut_string(s, len, size, plain, limits.prefix),
                    _ => (size, Plan::Keep),
                };
                self.set_plan(i, plan);
                (size, i + 1)
            }
            Node::Container { object, len, loose, ellipsis, .. } => {
                // Under an elision, the container keeps its protected children
                // and its first `limits.items` loose ones (`head` bytes, `kept`
                // children) plus a marker of `marker` bytes, and it beats the
                // whole form exactly when the omitted children with their commas
                // (`dropped` bytes) exceed `marker + 1`. Once that is certain,
                // the remaining omitted children need not be evaluated at all,
                // which keeps trials with a small `K` cheap on huge arrays.
                // With unlimited items nothing is elided; otherwise the
                // object's own "…" member is always among the omitted ones.
                let omitted = if limits.items == UNLIMITED {
                    0
                } else {
                    loose.saturating_sub(limits.items) + usize::from(ellipsis)
                };
                let marker =
                    (omitted > 0).then(|| if object { members_marker_len(omitted) } else { items_marker_len(omitted) });
                let (mut j, mut all, mut head, mut kept, mut seen, mut dropped) = (i + 1, 0, 0, 0, 0, 0);
                let mut elide = false;
                for _ in 0..len {
                    let (key_size, role) = slot(&self.nodes, j);
                    let keep = match role {
                        Role::Protected => true,
                        Role::Loose => {
                            seen += 1;
                            seen <= limits.items
                        }
                        Role::Ellipsis => false,
                    };
                    if elide && !keep {
                        j = skip(&self.nodes, j + 1);
                        continue;
                    }
                    let (value_size, next) = self.eval(j + 1, limits);
                    j = next;
                    let child = key_size + value_size;
                    all += child;
                    if keep {
                        head += child;
                        kept += 1;
                    } else {
                        dropped += child + 1;
                        elide = marker.is_some_and(|m| dropped > m + 1);
                    }
                }
                let result = match marker {
                    // kept children + marker, separated by `kept` commas
                    Some(marker) if elide => (2 + head + kept + marker, Plan::Elide),
                    _ => (2 + all + len.saturating_sub(1), Plan::Keep),
                };
                self.set_plan(i, result.1);
                (result.0, j)
            }
        }
    }

    fn set_plan(&mut self, i: usize, plan: Plan) {
        if let Some(slot) = self.plan.get_mut(i) {
            *slot = plan;
        }
    }
}

/// Key size and role of the `Slot` node at `j` (a protected empty key if the
/// skeleton were inconsistent, which keeps everything).
pub(super) fn slot(nodes: &[Node], j: usize) -> (usize, Role) {
    match nodes.get(j) {
        Some(&Node::Slot { key_size, role }) => (key_size, role),
        _ => (0, Role::Protected),
    }
}

/// Size and decision for a string of `len` bytes and serialised `size` under
/// cut length `prefix`: cut only if longer than `prefix` and the cut form is
/// shorter. `s` holds at least the first `prefix` bytes of the string (all of
/// it, or a pre-cut prefix of it).
fn cut_string(s: &str, len: usize, size: usize, plain: bool, prefix: usize) -> (usize, Plan) {
    if len <= prefix {
        return (size, Plan::Keep);
    }
    let keep = floor_char_boundary(s, prefix);
    let kept_size = match (plain, s.as_bytes().get(..keep)) {
        (true, _) => keep,
        (false, Some(bytes)) => escaped_len(bytes),
        (false, None) => return (size, Plan::Keep),
    };
    let cut = 2 + kept_size + string_marker_len(len - keep);
    if cut < size {
        (cut, Plan::Cut(keep))
    } else {
        (size, Plan::Keep)
    }
}

/// Largest `x` in `lo..=hi` with `ok(x)`, given `ok(lo)` and `ok` monotone
/// (true up to some point, false after). Returns `lo` if `hi < lo`.
fn largest(mut lo: usize, mut hi: usize, mut ok: impl FnMut(usize) -> bool) -> usize {
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if ok(mid) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

/// Index past the subtree that starts at node `i`.
pub(super) fn skip(nodes: &[Node], i: usize) -> usize {
    match nodes.get(i) {
        Some(&Node::Container { end, .. }) => end,
        _ => i + 1,
    }
}

/// The character that brackets the index of a pre-cut string (a Unicode
/// noncharacter, U+FDD0).
pub(super) const PRECUT_MARK: char = '\u{FDD0}';

/// Original sizes of one string [`super::shrink_raw`] pre-cut.
#[derive(Debug, Clone, Copy)]
pub(super) struct Precut {
    /// Bytes of the kept prefix (a character boundary of the original).
    pub(super) prefix: usize,
    /// Bytes of the original (decoded) string.
    pub(super) len: usize,
    /// Its serialised size, as [`json_str_len`] counts it.
    pub(super) size: usize,
}
