//! Size-truncation of event records for output.
//!
//! No tool prints an unbounded line by default (toolkit spec, "Safe output:
//! size-truncated data"). The envelope of an event record is small and is never
//! cut; what can be huge is the value of its `data` key (whole conversations,
//! tool schemas, raw provider payloads). [`shrink_data`] shrinks that value in
//! place until its compact serialisation fits a byte budget, keeping the result
//! valid JSON and keeping every protected field intact.
//!
//! # What is cut, and how it is marked
//!
//! * **Strings** longer than the chosen cut length are cut on a UTF-8 character
//!   boundary, and [`marker_for_string`] is appended: the kept prefix followed by
//!   `…[+N bytes]`, where `N` is the number of bytes of the original string (its
//!   UTF-8, not its escaped JSON form) that were omitted, e.g.
//!   `"abcdef…[+12345 bytes]"`.
//! * **Arrays** with more items than the chosen item count keep their first
//!   items and get one final string item [`marker_for_items`]:
//!   `"…[+N items]"`, `N` being the number of items left out.
//! * **Objects** likewise keep their first members, in their original order,
//!   and get one final member [`ELISION_KEY`]`:`[`marker_for_members`], i.e.
//!   `"…":"[+N members]"`. The protected members of `data` itself (see below)
//!   are always kept and do not count against the item count. An object's own
//!   member named `"…"` (say, a marker left by an earlier truncation of a
//!   record piped back in) is always among the members an elision leaves out
//!   (it is counted in `N`), so in an elided object the `"…"` member is always
//!   the marker, and it is always last.
//!
//! Each of these changes is made only where it makes that value's serialisation
//! strictly shorter: a string just over the cut length, or a two-item array, is
//! left whole rather than replaced by a longer marker.
//!
//! # What is never changed
//!
//! * The **direct members of `data`** (when `data` is an object) whose key is
//!   one of [`PROTECTED_KEYS`] (`session_id`, `parent_id`, `tool_name`,
//!   `tool_call_id`, `model`, `usage`, `status`, `timestamp`) — the small
//!   fields the toolkit spec promises never to cut (`data.session_id`,
//!   `data.tool_name`, all of `data.usage`, …): the member is never removed and
//!   its value, whatever its type, is left untouched with its whole subtree.
//!   These are the only **protected** members. The same keys deeper inside
//!   `data` (e.g. the `tool_call_id` of every tool message in
//!   `data.raw.messages`) are ordinary content, cut and elided like anything
//!   else: protecting them would let the most reduced form grow with the
//!   input, and a record could then exceed its budget without bound.
//! * Numbers, booleans and `null`, anywhere (they are dropped only together with
//!   an elided array item or object member that contains them).
//! * Object keys, and the order of everything that is kept.
//!
//! # How much is cut (fairness)
//!
//! The longest strings are cut first: one common cut length `L` applies to every
//! string outside the protected members, so a string of at most `L` bytes
//! survives intact. `L` is the largest value (found by binary search) for which
//! the result fits; it never goes below [`MIN_PREFIX`] bytes. Only when cutting
//! every string to [`MIN_PREFIX`] bytes is not enough are containers elided,
//! again with one common limit `K` on the children every array and object keeps
//! (the largest `K` that fits, so only the containers with the most children
//! lose any); then `L` is raised again as far as the room left over allows.
//!
//! # Guarantee
//!
//! Call the **floor** of `data` the result of the strongest settings (`L` =
//! [`MIN_PREFIX`], `K` = 0): every string longer than [`MIN_PREFIX`] bytes (not
//! inside a protected member) cut to at most [`MIN_PREFIX`] bytes plus its
//! marker, and every array and object reduced to its marker alone — `data`
//! itself to its protected members plus the marker — each only where that
//! shortens the value. After `shrink_data(data, room)`:
//!
//! * if `data` already fitted (`serde_json::to_vec(data).len() <= room`), it is
//!   unchanged and the returned [`Cut`] is `Cut::default()`;
//! * otherwise, if the floor fits in `room`, `serde_json::to_vec(data).len() <=
//!   room`;
//! * otherwise `data` **is** the floor: as small as it can be made without
//!   touching protected members.
//!
//! The floor is bounded by the protected members alone. For an object `data`,
//! let `P` be the size of `data` reduced to its protected members (`{}`, 2
//! bytes, if it has none) and `N` the number of its other members. If `N` = 0
//! the floor is `data` itself, `P` bytes; otherwise it is at most `data`
//! reduced to its protected members plus the member `"…":"[+N members]"`,
//! which is at most `P + 20 + digits(N)` bytes (19 for the marker member
//! without its digits, 1 for a comma), so at most `P + 40`. Hence
//! **`shrink_data(data, room)` fits whenever `room >= P + 40`**, however large
//! or deeply nested the rest of `data` is. A `data` that is not an object has
//! no protected members; its floor is at most 226 bytes (a string: a prefix of
//! at most 32 bytes, each at most 6 bytes escaped, plus quotes and a marker of
//! at most 32 bytes; an array: `["…[+N items]"]`, at most 36 bytes; a number,
//! boolean or `null`: unchanged).
//!
//! The result is always valid JSON. Sizes are computed exactly as
//! `serde_json::to_vec` (compact) writes them: quotes, backslashes and control
//! characters count with their escapes (`\n` is 2 bytes, `\u0001` is 6),
//! non-ASCII counts as its raw UTF-8 bytes.
//!
//! # Cost
//!
//! One pass builds a compact skeleton of `data` (one small node per value,
//! string sizes precomputed); each trial of a `(K, L)` pair is then one linear
//! pass over the skeleton that does not re-scan string contents (except the kept
//! prefix of the rare long strings that contain characters needing escapes),
//! and that stops evaluating a container's omitted children as soon as its
//! elision is certain to pay off. Binary search needs O(log n) trials, so the
//! whole call is O(n log n) in the size of `data` (about 0.7 s in a release
//! build for a 114 MB payload of a million messages, cut to 4 KiB), and the
//! common case — `data` already fits — costs one counting serialisation and no
//! allocation. Sizes are `usize` sums of byte counts of data held in memory
//! (at most 6 serialised bytes per byte), so they cannot overflow on 64-bit
//! targets.
//!
//! # Recursion
//!
//! The walks recurse once per nesting level of `data`. That is bounded for every
//! value that came from `serde_json`'s parser, which rejects input nested deeper
//! than 128 levels; serde_json's own serializer and `Drop` of a `Value` recurse
//! the same way, so values nested deeper than that are not usable anyway.

use serde_json::Value;
use std::io;

use crate::json::string::escape_at;

mod measure;

/// Keys of the direct members of `data` that are never cut or removed: the
/// member stays and its whole value (with its subtree) is left untouched.
/// Deeper inside `data` these keys are not special.
pub const PROTECTED_KEYS: &[&str] =
    &["session_id", "parent_id", "tool_name", "tool_call_id", "model", "usage", "status", "timestamp"];

/// The shortest prefix, in bytes, a cut string keeps (fewer where a multi-byte
/// character straddles this length: the cut is on the character boundary
/// before it). Strings of at most this many bytes are never cut.
pub const MIN_PREFIX: usize = 32;

/// Key of the member that replaces the elided members of an object; its value
/// is [`marker_for_members`].
pub const ELISION_KEY: &str = "…";

const STR_MARK_HEAD: &str = "…[+";
const STR_MARK_TAIL: &str = " bytes]";
/// How the marker of elided array items starts ([`marker_for_items`]).
pub const ITEMS_MARK_HEAD: &str = "…[+";
/// How it ends.
pub const ITEMS_MARK_TAIL: &str = " items]";
const MEMBERS_MARK_HEAD: &str = "[+";
const MEMBERS_MARK_TAIL: &str = " members]";

/// Whether `key` is one of [`PROTECTED_KEYS`].
pub fn is_protected_key(key: &str) -> bool {
    PROTECTED_KEYS.contains(&key)
}

/// The marker appended to a cut string's kept prefix: `…[+N bytes]`, where
/// `omitted` is the number of UTF-8 bytes of the original string left out.
pub fn marker_for_string(omitted: usize) -> String {
    format!("{STR_MARK_HEAD}{omitted}{STR_MARK_TAIL}")
}

/// The string item that replaces the elided tail of an array: `…[+N items]`.
pub fn marker_for_items(omitted: usize) -> String {
    format!("{ITEMS_MARK_HEAD}{omitted}{ITEMS_MARK_TAIL}")
}

/// The value of the [`ELISION_KEY`] member that replaces the elided members of
/// an object: `[+N members]`.
pub fn marker_for_members(omitted: usize) -> String {
    format!("{MEMBERS_MARK_HEAD}{omitted}{MEMBERS_MARK_TAIL}")
}

/// What a call to [`shrink_data`] cut.
///
/// Only changes that are visible in the result are counted: strings and
/// containers inside an elided array item or object member are not counted
/// separately (the item or member is).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Cut {
    /// Strings shortened.
    pub strings: usize,
    /// Array items, object members elided.
    pub items: usize,
    /// Bytes of string content omitted (the sum of the `N`s of the string markers).
    pub bytes: usize,
}

/// Shrinks `data` (the value of an event record's `data` key) in place so that
/// its compact serialisation (`serde_json::to_vec`) fits in `room` bytes where
/// that is possible without touching protected fields, and reports what was cut.
///
/// See the [module documentation](self) for the markers, the protected fields
/// and the exact guarantee; in short: unchanged if it already fits, otherwise at
/// most `room` bytes unless even the most reduced form (the "floor") does not
/// fit, in which case the result is that floor. Never panics.
pub fn shrink_data(data: &mut Value, room: usize) -> Cut {
    shrink_with(data, room, &[])
}

/// [`shrink_data`] on a value in which some strings were pre-cut by
/// [`shrink_raw`] (`precut` holds their original sizes).
fn shrink_with(data: &mut Value, room: usize, precut: &[Precut]) -> Cut {
    if serialized_len(data) <= room {
        return Cut::default();
    }
    let (nodes, plan, limits, lens) = {
        let mut skeleton = Skeleton::new(data, precut);
        let limits = skeleton.choose(room);
        skeleton.eval_root(limits);
        (skeleton.nodes, skeleton.plan, limits, skeleton.lens)
    };
    let mut cut = Cut::default();
    let walk = Walk { nodes: &nodes, plan: &plan, lens: &lens, items: limits.items };
    walk.apply(data, 0, &mut cut);
    cut
}

/// Length of `s` as `serde_json` writes it (compact), including the two quotes:
/// `"` and `\` and the control characters `\b \t \n \f \r` take 2 bytes, other
/// control characters (below U+0020) take 6 (`\u00XX`), everything else
/// (including U+007F and all non-ASCII) its UTF-8 bytes.
pub fn json_str_len(s: &str) -> usize {
    2 + escaped_len(s.as_bytes())
}

/// Bytes each input byte takes in a JSON string as serde_json escapes it.
static ESCAPED: [u8; 256] = escape_table();

const fn escape_table() -> [u8; 256] {
    let mut table = [1u8; 256];
    let mut i = 0;
    while i < 0x20 {
        table[i] = 6;
        i += 1;
    }
    table[0x08] = 2;
    table[0x09] = 2;
    table[0x0A] = 2;
    table[0x0C] = 2;
    table[0x0D] = 2;
    table[b'"' as usize] = 2;
    table[b'\\' as usize] = 2;
    table
}

/// Serialised length of string content, without the quotes.
fn escaped_len(bytes: &[u8]) -> usize {
    bytes.iter().map(|&b| usize::from(ESCAPED[usize::from(b)])).sum()
}

/// Number of decimal digits of `n`.
fn digits(mut n: usize) -> usize {
    let mut d = 1;
    while n >= 10 {
        n /= 10;
        d += 1;
    }
    d
}

/// Serialised length of the string marker (it needs no escapes).
fn string_marker_len(omitted: usize) -> usize {
    STR_MARK_HEAD.len() + digits(omitted) + STR_MARK_TAIL.len()
}

/// Serialised length of the items marker as an array item, quotes included.
fn items_marker_len(omitted: usize) -> usize {
    2 + ITEMS_MARK_HEAD.len() + digits(omitted) + ITEMS_MARK_TAIL.len()
}

/// Serialised length of the whole marker member `"…":"[+N members]"`.
fn members_marker_len(omitted: usize) -> usize {
    (2 + ELISION_KEY.len() + 1) + (2 + MEMBERS_MARK_HEAD.len() + digits(omitted) + MEMBERS_MARK_TAIL.len())
}

/// The largest byte index `<= at` that is a character boundary of `s`.
fn floor_char_boundary(s: &str, at: usize) -> usize {
    let mut p = at.min(s.len());
    // Index 0 is always a boundary, so this stops; at most 3 steps.
    while p > 0 && !s.is_char_boundary(p) {
        p -= 1;
    }
    p
}

/// An `io::Write` that only counts bytes.
struct Counter(usize);

impl io::Write for Counter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Exact `serde_json::to_vec(v).len()` without building the bytes.
fn serialized_len(v: &Value) -> usize {
    let mut counter = Counter(0);
    // Serialising a `Value` into a writer that never fails cannot fail.
    let _ = serde_json::to_writer(&mut counter, v);
    counter.0
}

/// The two limits of one trial: at most `items` loose array items / object
/// members kept per container ([`UNLIMITED`]: no container is elided), strings
/// cut to at most `prefix` bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Limits {
    items: usize,
    prefix: usize,
}

/// No limit on either dimension.
const UNLIMITED: usize = usize::MAX;

/// One node of the skeleton, in pre-order: a container is followed by one
/// `Slot` node per child, each followed by that child's nodes.
#[derive(Debug, Clone, Copy)]
enum Node {
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
enum Role {
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
enum Plan {
    Keep,
    /// Cut the string to this many bytes (a character boundary) plus marker.
    Cut(usize),
    /// Elide the container down to its protected children and the first
    /// `Limits::items` loose ones, plus a marker.
    Elide,
}

/// A compact, size-annotated image of `data` on which trials run.
struct Skeleton<'a> {
    nodes: Vec<Node>,
    strs: Vec<&'a str>,
    /// Per entry of `strs`: the original string's length in bytes, and the
    /// length of its text in the value (shorter for a pre-cut string, whose
    /// `strs` entry is the kept prefix only).
    lens: Vec<(usize, usize)>,
    /// Original sizes of the strings [`shrink_raw`] pre-cut (empty otherwise).
    precut: &'a [Precut],
    /// Decision per node from the last call of `eval_root`.
    plan: Vec<Plan>,
    /// Longest cuttable string, in bytes (at least `MIN_PREFIX`).
    max_str: usize,
    /// Most loose children of a container.
    max_count: usize,
}

impl<'a> Skeleton<'a> {
    fn new(data: &'a Value, precut: &'a [Precut]) -> Self {
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
    /// [`shrink_raw`] pre-cut: `prefix`, [`PRECUT_MARK`], its index in
    /// `precut` in decimal, [`PRECUT_MARK`], with the prefix length recorded.
    /// (No other string can look like that: see [`shrink_raw`].)
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
    fn choose(&mut self, room: usize) -> Limits {
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
    fn eval_root(&mut self, limits: Limits) -> usize {
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
fn slot(nodes: &[Node], j: usize) -> (usize, Role) {
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
fn skip(nodes: &[Node], i: usize) -> usize {
    match nodes.get(i) {
        Some(&Node::Container { end, .. }) => end,
        _ => i + 1,
    }
}

/// What [`Walk::apply`] needs from the skeleton after the last trial.
struct Walk<'s> {
    nodes: &'s [Node],
    plan: &'s [Plan],
    /// Original length and length in the value of each cuttable string.
    lens: &'s [(usize, usize)],
    /// The chosen limit of loose children kept by an elision.
    items: usize,
}

impl Walk<'_> {
    /// Applies the plan to the value at node `i` (walking `v` and the
    /// skeleton in the same order they were built) and returns the index past
    /// its subtree.
    fn apply(&self, v: &mut Value, i: usize, cut: &mut Cut) -> usize {
        let (nodes, items) = (self.nodes, self.items);
        let step = self.plan.get(i).copied().unwrap_or(Plan::Keep);
        match (nodes.get(i), v) {
            (Some(&Node::Str { idx, .. }), Value::String(s)) => {
                let (len, text_len) = self.lens.get(idx).copied().unwrap_or((s.len(), s.len()));
                let keep = match step {
                    Plan::Cut(keep) => Some(keep),
                    // A pre-cut string is never kept whole (it is longer than
                    // the room); should it be, it still loses its mark.
                    Plan::Keep if len != text_len => s.rfind(PRECUT_MARK).and_then(|at| s[..at].rfind(PRECUT_MARK)),
                    Plan::Keep | Plan::Elide => None,
                };
                if let Some(keep) = keep {
                    if keep < s.len() && keep < len && s.is_char_boundary(keep) {
                        let omitted = len - keep;
                        s.truncate(keep);
                        s.push_str(&marker_for_string(omitted));
                        cut.strings += 1;
                        cut.bytes += omitted;
                    }
                }
                i + 1
            }
            (Some(&Node::Container { end, .. }), Value::Array(values)) => {
                let mut j = i + 1;
                if step == Plan::Elide {
                    let mut elision = Elision::new(items);
                    for mut value in std::mem::take(values) {
                        if elision.keeps(nodes, j) {
                            j = self.apply(&mut value, j + 1, cut);
                            values.push(value);
                        } else {
                            j = skip(nodes, j + 1);
                        }
                    }
                    if elision.omitted > 0 {
                        values.push(Value::String(marker_for_items(elision.omitted)));
                        cut.items += elision.omitted;
                    }
                } else {
                    for value in values.iter_mut() {
                        j = self.apply(value, j + 1, cut);
                    }
                }
                end
            }
            (Some(&Node::Container { end, .. }), Value::Object(members)) => {
                let mut j = i + 1;
                if step == Plan::Elide {
                    let mut elision = Elision::new(items);
                    for (key, mut value) in std::mem::take(members) {
                        if elision.keeps(nodes, j) {
                            j = self.apply(&mut value, j + 1, cut);
                            members.insert(key, value);
                        } else {
                            j = skip(nodes, j + 1);
                        }
                    }
                    if elision.omitted > 0 {
                        let marker = Value::String(marker_for_members(elision.omitted));
                        members.insert(ELISION_KEY.to_owned(), marker);
                        cut.items += elision.omitted;
                    }
                } else {
                    for value in members.values_mut() {
                        j = self.apply(value, j + 1, cut);
                    }
                }
                end
            }
            // Fixed values (including protected members' values) stay as they are.
            _ => skip(nodes, i),
        }
    }
}

/// Walks the children of a container being elided: protected children and the
/// first `limit` loose ones are kept, the other loose ones and an
/// [`ELISION_KEY`] member omitted.
struct Elision {
    limit: usize,
    seen: usize,
    omitted: usize,
}

impl Elision {
    fn new(limit: usize) -> Self {
        Elision { limit, seen: 0, omitted: 0 }
    }

    /// Whether the child whose `Slot` node is at `j` is kept.
    fn keeps(&mut self, nodes: &[Node], j: usize) -> bool {
        let keep = match slot(nodes, j).1 {
            Role::Protected => true,
            Role::Loose => {
                self.seen += 1;
                self.seen <= self.limit
            }
            Role::Ellipsis => false,
        };
        self.omitted += usize::from(!keep);
        keep
    }
}

/// The character that brackets the index of a pre-cut string (a Unicode
/// noncharacter, U+FDD0).
const PRECUT_MARK: char = '\u{FDD0}';

/// Original sizes of one string [`shrink_raw`] pre-cut.
#[derive(Debug, Clone, Copy)]
struct Precut {
    /// Bytes of the kept prefix (a character boundary of the original).
    prefix: usize,
    /// Bytes of the original (decoded) string.
    len: usize,
    /// Its serialised size, as [`json_str_len`] counts it.
    size: usize,
}

/// [`shrink_data`] on raw JSON text: returns exactly
/// `serde_json::to_vec` of the value of `data` after `shrink_data(value,
/// room)`, but without building the DOM of the long strings, which is most of
/// the cost of truncating a large record.
///
/// A pre-pass copies `data` and replaces each string value (not a key, and not
/// inside a protected member) whose decoded length exceeds
/// `max(room, MIN_PREFIX) + 4` bytes by its first `max(room, MIN_PREFIX) + 1`
/// or more bytes (on a character boundary), followed by the mark
/// `U+FDD0 index U+FDD0`; the original length and serialised size are kept
/// aside. Such a string can never survive whole (alone it is bigger than the
/// room) and its cut prefix is at most `max(room, MIN_PREFIX)` bytes (a longer
/// one would not fit), so the kept prefix is all the shrinker reads; with the
/// original sizes it takes the same decisions as on the whole value and writes
/// the same markers. A string of the copy can only be taken for a pre-cut one
/// if it has that exact form and length, which no string of at most
/// `max(room, MIN_PREFIX) + 4` bytes has.
///
/// `data` must be valid JSON (a value of a validated line). Returns `None`
/// when no string needed pre-cutting (the caller's DOM path is then as fast)
/// or on anything unexpected.
pub fn shrink_raw(data: &[u8], room: usize) -> Option<Vec<u8>> {
    let limit = room.max(MIN_PREFIX) + 4;
    let want = limit - 3;
    let object = data.trim_ascii_start().first() == Some(&b'{');
    let mut copy = Vec::new();
    let mut precut = Vec::new();
    let mut from = 0;
    let mut i = 0;
    // Nesting depth at `i`: the bytes between strings are structure.
    let mut depth = 0usize;
    while let Some(k) = memchr::memchr(b'"', data.get(i..)?) {
        let start = i + k;
        for &c in data.get(i..start)? {
            match c {
                b'{' | b'[' => depth += 1,
                b'}' | b']' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        let scan = scan_string(data, start, want + 4)?;
        let end = scan.end;
        i = end;
        if object && depth == 1 && is_key(data, end) {
            // A direct member of `data`: a protected one's value is copied whole.
            let key = data.get(start + 1..end - 1)?;
            if PROTECTED_KEYS.iter().any(|k| crate::json::key_eq(key, k)) {
                let colon = end + memchr::memchr(b':', data.get(end..)?)?;
                let value = colon + 1 + data.get(colon + 1..)?.iter().position(|c| !c.is_ascii_whitespace())?;
                i = crate::json::skim::skip_trusted(data, value)?;
            }
            continue;
        }
        // Only a value whose decoded form is clearly longer than its pre-cut
        // form (at most `want + 3` bytes of prefix, two marks of 3 bytes and
        // an index of at most 20 digits) is pre-cut.
        if scan.len <= want + 3 + 32 || is_key(data, end) {
            // One holding the mark could pass for a pre-cut string when it
            // is long enough: leave such a value to the DOM path.
            if scan.len > limit {
                let text = crate::json::decode_str(data.get(start + 1..end - 1)?)?;
                if text.contains(PRECUT_MARK) {
                    return None;
                }
            }
            continue;
        }
        let head = crate::json::decode_str(data.get(start + 1..scan.head_end)?)?;
        let prefix = head.get(..floor_char_boundary(&head, want + 3))?;
        if prefix.len() < want {
            return None;
        }
        if copy.is_empty() {
            copy.reserve(data.len().min(1 << 20));
        }
        copy.extend_from_slice(data.get(from..start)?);
        let marked = format!("{prefix}{PRECUT_MARK}{}{PRECUT_MARK}", precut.len());
        // Writing into a Vec cannot fail.
        let _ = serde_json::to_writer(&mut copy, &marked);
        precut.push(Precut { prefix: prefix.len(), len: scan.len, size: scan.size });
        from = end;
    }
    if precut.is_empty() {
        return None;
    }
    copy.extend_from_slice(data.get(from..)?);
    let mut value = crate::json::dom::parse(&copy)?;
    shrink_with(&mut value, room, &precut);
    serde_json::to_vec(&value).ok()
}

/// Whether the string ending just before `end` is an object key.
fn is_key(b: &[u8], end: usize) -> bool {
    b.get(end..).and_then(|rest| rest.iter().find(|c| !c.is_ascii_whitespace())) == Some(&b':')
}

/// What [`scan_string`] measured of one string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Scan {
    /// One past the closing quote.
    end: usize,
    /// Decoded length in bytes.
    len: usize,
    /// Serialised size as [`json_str_len`] counts it (quotes included).
    size: usize,
    /// Raw index (a character and escape boundary) before which at least the
    /// first `head` decoded bytes lie (the closing quote if the string is shorter).
    head_end: usize,
}

/// Measures the (valid) JSON string whose opening quote is at `start`
/// without decoding it: a few hops for a short string, then a block at a time
/// ([`measure::scan_long`]). `None` on malformed input (which it does not
/// always detect: the line must have been validated).
fn scan_string(b: &[u8], start: usize, head: usize) -> Option<Scan> {
    let mut hop = Hop::new(start);
    // Most strings (keys, ids, short values) end within a few hops.
    while hop.j <= start + measure::SHORT {
        if hop.step(b, head)? {
            return Some(hop.scan());
        }
    }
    measure::scan_long(crate::json::simd::Baseline::new(), b, hop, head)
}

/// The reference for [`scan_string`]: one hop per escape all the way.
#[cfg(test)]
fn scan_string_scalar(b: &[u8], start: usize, head: usize) -> Option<Scan> {
    let mut hop = Hop::new(start);
    while !hop.step(b, head)? {}
    Some(hop.scan())
}

/// A scan of one string in progress, hopping escape to escape: `len` and
/// `size` measure the content before `j`, a raw index that is neither inside
/// an escape nor between the halves of a surrogate pair; `head_end` as in
/// [`Scan`], once found.
#[derive(Debug, Clone, Copy)]
struct Hop {
    j: usize,
    len: usize,
    size: usize,
    head_end: Option<usize>,
}

impl Hop {
    /// At the start of the string whose opening quote is at `start`.
    fn new(start: usize) -> Self {
        Hop { j: start + 1, len: 0, size: 0, head_end: None }
    }

    /// Passes one plain run and the escape after it; `Some(true)` when the
    /// run ends at the closing quote (then `j` is that quote).
    #[inline]
    fn step(&mut self, b: &[u8], head: usize) -> Option<bool> {
        // Valid content has no control characters: the hop stops at `"` or `\`.
        let run = crate::json::simd::next_special(b, self.j)? - self.j;
        if self.head_end.is_none() && self.len + run >= head {
            // Inside this plain run: step to the next character boundary.
            let mut at = self.j + head.saturating_sub(self.len);
            while b.get(at).is_some_and(|&c| (0x80..0xC0).contains(&c)) {
                at += 1;
            }
            self.head_end = Some(at);
        }
        self.len += run;
        self.size += run;
        self.j += run;
        if b.get(self.j)? == &b'"' {
            return Some(true);
        }
        let (cp, used) = escape_at(b, self.j)?;
        let (n, s) = match cp {
            0..0x80 => (1, usize::from(ESCAPED[cp as usize])),
            0x80..0x800 => (2, 2),
            0x800..0x10000 => (3, 3),
            _ => (4, 4),
        };
        self.len += n;
        self.size += s;
        self.j += used;
        if self.head_end.is_none() && self.len >= head {
            self.head_end = Some(self.j);
        }
        Some(false)
    }

    /// The measure of a string whose closing quote is at `j`.
    fn scan(&self) -> Scan {
        Scan { end: self.j + 1, len: self.len, size: self.size + 2, head_end: self.head_end.unwrap_or(self.j) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn len(v: &Value) -> usize {
        serde_json::to_vec(v).map(|b| b.len()).unwrap_or(usize::MAX)
    }

    /// Shrinks with fixed limits; returns the size the skeleton predicted.
    fn shrink_at(data: &mut Value, limits: Limits) -> (usize, Cut) {
        let (predicted, nodes, plan, lens) = {
            let mut skeleton = Skeleton::new(data, &[]);
            let predicted = skeleton.eval_root(limits);
            (predicted, skeleton.nodes, skeleton.plan, skeleton.lens)
        };
        let mut cut = Cut::default();
        Walk { nodes: &nodes, plan: &plan, lens: &lens, items: limits.items }.apply(data, 0, &mut cut);
        (predicted, cut)
    }

    #[test]
    fn marker_formats() {
        assert_eq!(marker_for_string(12345), "…[+12345 bytes]");
        assert_eq!(marker_for_items(7), "…[+7 items]");
        assert_eq!(marker_for_members(3), "[+3 members]");
        for n in [0, 1, 9, 10, 99, 100, 12345, usize::MAX] {
            assert_eq!(string_marker_len(n), marker_for_string(n).len());
            assert_eq!(items_marker_len(n), len(&json!(marker_for_items(n))));
            assert_eq!(members_marker_len(n), len(&json!({ ELISION_KEY: marker_for_members(n) })) - 2);
            assert_eq!(digits(n), n.to_string().len());
        }
    }

    #[test]
    fn string_sizes_match_serde_json() {
        for s in ["", "a", "\"", "\\", "\n\t\r\u{8}\u{c}", "\u{0}\u{1}\u{1f}", "\u{7f}", "é日本😀", "/<>&'"] {
            assert_eq!(json_str_len(s), len(&json!(s)), "{s:?}");
        }
    }

    #[test]
    fn fitting_data_is_unchanged() {
        let original = json!({"text": "x".repeat(1000), "n": [1, 2, 3]});
        let mut data = original.clone();
        assert_eq!(shrink_data(&mut data, len(&original)), Cut::default());
        assert_eq!(data, original);
        assert_eq!(shrink_data(&mut data, usize::MAX), Cut::default());
        assert_eq!(data, original);
    }

    #[test]
    fn string_is_cut_on_a_two_byte_boundary_and_fills_the_room() {
        // {"text":"<é×100>"} is 211 bytes. With room 60, the best is L = 35,
        // which cuts at byte 34 (17 × é), and the result is exactly 60 bytes.
        let mut data = json!({"text": "é".repeat(100)});
        let cut = shrink_data(&mut data, 60);
        let expected = json!({"text": format!("{}…[+166 bytes]", "é".repeat(17))});
        assert_eq!(data, expected);
        assert_eq!(len(&data), 60);
        assert_eq!(cut, Cut { strings: 1, items: 0, bytes: 166 });
    }

    #[test]
    fn three_and_four_byte_characters_are_never_split() {
        // room 0: everything goes to the floor (32-byte prefixes).
        let mut data = json!(["a".to_owned() + &"日本".repeat(20), "x".to_owned() + &"😀".repeat(20)]);
        let cut = shrink_data(&mut data, 0);
        // In an array, the floor is the marker item alone (shorter than any cut).
        assert_eq!(data, json!(["…[+2 items]"]));
        assert_eq!(cut, Cut { strings: 0, items: 2, bytes: 0 });

        // Strings alone: a bare string value at the floor.
        let mut data = json!("a".to_owned() + &"日本".repeat(20));
        let cut = shrink_data(&mut data, 0);
        assert_eq!(data, json!(format!("a{}…[+90 bytes]", "日本".repeat(5))));
        assert_eq!(cut, Cut { strings: 1, items: 0, bytes: 90 });

        let mut data = json!("x".to_owned() + &"😀".repeat(20));
        shrink_data(&mut data, 0);
        assert_eq!(data, json!(format!("x{}…[+52 bytes]", "😀".repeat(7))));
    }

    #[test]
    fn raw_path_cuts_huge_strings_like_the_dom_path() {
        let text = r#"a\u00e9\ud83d\ude80\\\"\n日"#.repeat(5000);
        let data = format!(
            r#"{{"model":"{text}","raw":{{"messages":[{{"content":"{text}"}},{{"content":"{text}"}}]}},"x":["{text}"]}}"#
        );
        for room in [0, 10, 100, 4000, 20_000] {
            let mut dom: Value = serde_json::from_str(&data).unwrap_or(Value::Null);
            assert!(dom.is_object());
            shrink_data(&mut dom, room);
            let fast = shrink_raw(data.as_bytes(), room);
            assert!(fast.is_some(), "room {room}");
            assert_eq!(fast, serde_json::to_vec(&dom).ok(), "room {room}");
        }
        // Nothing long enough to pre-cut: the caller's DOM path runs.
        assert_eq!(shrink_raw(br#"{"a":"short","b":[1,2,3]}"#, 5), None);
        // A string that holds the mark and is long enough to be confused is left
        // to the DOM path.
        let marked = format!(r#"["{}﷐x", "{}"]"#, "m".repeat(50), "y".repeat(500));
        assert_eq!(shrink_raw(marked.as_bytes(), 40), None);
    }

    #[test]
    fn floor_char_boundary_steps_back() {
        let s = "a日";
        assert_eq!(floor_char_boundary(s, 0), 0);
        assert_eq!(floor_char_boundary(s, 1), 1);
        assert_eq!(floor_char_boundary(s, 2), 1);
        assert_eq!(floor_char_boundary(s, 3), 1);
        assert_eq!(floor_char_boundary(s, 4), 4);
        assert_eq!(floor_char_boundary(s, 99), 4);
    }

    #[test]
    fn strings_are_cut_longest_first() {
        let short = "s".repeat(40);
        let mut data = json!({"a": short, "b": "L".repeat(5000), "c": "M".repeat(3000)});
        let cut = shrink_data(&mut data, 400);
        assert!(len(&data) <= 400);
        assert_eq!(data["a"], json!(short), "a short string survives intact");
        let b = data["b"].as_str().unwrap_or_default();
        let c = data["c"].as_str().unwrap_or_default();
        assert!(b.ends_with(" bytes]") && c.ends_with(" bytes]"));
        // Both long strings keep the same prefix length.
        assert_eq!(b.find('…'), c.find('…'));
        assert_eq!(cut.strings, 2);
    }

    #[test]
    fn long_array_is_elided() {
        // Numbers cannot be cut, so the array is elided to the most items that fit.
        let mut data = json!({"items": (0..1000).collect::<Vec<_>>()});
        let cut = shrink_data(&mut data, 50);
        assert_eq!(data, json!({"items": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, "…[+990 items]"]}));
        assert_eq!(len(&data), 49);
        assert_eq!(cut, Cut { strings: 0, items: 990, bytes: 0 });
    }

    #[test]
    fn messages_keep_first_items_with_cut_content() {
        let messages: Vec<Value> =
            (0..200).map(|i| json!({"role": "user", "content": format!("message {i} ").repeat(1000)})).collect();
        let mut data = json!({
            "session_id": "s-1",
            "parent_id": null,
            "timestamp": "2026-01-01T00:00:00Z",
            "raw": {"model": "big-model", "messages": messages},
        });
        let cut = shrink_data(&mut data, 4096);
        assert!(len(&data) <= 4096);
        assert!(len(&data) > 3800, "room is used: {}", len(&data));
        assert_eq!(data["raw"]["model"], json!("big-model"));
        let kept = data["raw"]["messages"].as_array().map(Vec::len).unwrap_or(0);
        assert!(kept > 10, "kept {kept}");
        assert_eq!(data["raw"]["messages"][0]["role"], json!("user"));
        assert!(cut.items > 0 && cut.strings > 0);
    }

    #[test]
    fn protected_fields_are_untouched_even_when_huge() {
        let huge = "x".repeat(10_000);
        let usage = json!({"input_tokens": 5, "note": "y".repeat(5000), "list": (0..500).collect::<Vec<_>>()});
        let mut data = json!({
            "session_id": huge,
            "usage": usage,
            "model": "m",
            "content": "z".repeat(10_000),
            "list": (0..500).collect::<Vec<_>>(),
        });
        let cut = shrink_data(&mut data, 100);
        // The floor: protected members plus one marker member.
        assert_eq!(data, json!({"session_id": huge, "usage": usage, "model": "m", "…": "[+2 members]"}));
        assert_eq!(cut, Cut { strings: 0, items: 2, bytes: 0 });
    }

    #[test]
    fn nested_protected_keys_are_ordinary_content() {
        let tool_name = "t".repeat(100);
        let status = vec!["s"; 50];
        let mut data = json!({"a": {"b": [{"tool_name": tool_name, "status": status, "x": "q".repeat(500)}]}, "y": "w".repeat(500)});
        let cut = shrink_data(&mut data, 0);
        // Only direct members of `data` are protected: everything else goes.
        assert_eq!(data, json!({"…": "[+2 members]"}));
        assert_eq!(cut, Cut { strings: 0, items: 2, bytes: 0 });

        // Deeper down, a protected key's string is cut like any other: 34 bytes
        // before the prefix, 16 of marker and 3 after it leave 47 for the prefix.
        let mut data = json!({"session_id": "s", "raw": {"model": "m".repeat(5000)}});
        let cut = shrink_data(&mut data, 100);
        assert_eq!(data, json!({"session_id": "s", "raw": {"model": format!("{}…[+4953 bytes]", "m".repeat(47))}}));
        assert_eq!(len(&data), 100);
        assert_eq!(cut.strings, 1);
    }

    #[test]
    fn llm_request_with_many_tool_messages_fits() {
        // Every tool message carries a `tool_call_id`; none of them may pin
        // its message, or the floor would grow with the number of messages.
        let messages: Vec<Value> = (0..300)
            .map(|i| {
                json!({
                    "role": "tool",
                    "tool_call_id": format!("toolu_{i:024}"),
                    "content": format!("long text of tool result {i} ").repeat(40),
                })
            })
            .collect();
        let original = json!({"model": "m", "session_id": "s", "raw": {"messages": messages}});
        assert!(len(&original) > 300_000);
        let mut data = original.clone();
        let room = 4096 - 200;
        let cut = shrink_data(&mut data, room);
        assert!(len(&data) <= room, "{} > {room}", len(&data));
        assert!(len(&data) <= 4096);
        assert!(len(&data) > room - 200, "room is used: {}", len(&data));
        assert_eq!(data["model"], json!("m"));
        assert_eq!(data["session_id"], json!("s"));
        let keys: Vec<&String> = data.as_object().map(|m| m.keys().collect()).unwrap_or_default();
        assert_eq!(keys, ["model", "session_id", "raw"]);
        // The first messages survive (content cut), then the marker.
        let kept = data["raw"]["messages"].as_array().cloned().unwrap_or_default();
        assert!(kept.len() > 2, "{kept:?}");
        assert_eq!(kept[0]["tool_call_id"], original["raw"]["messages"][0]["tool_call_id"]);
        assert!(kept[0]["content"]
            .as_str()
            .is_some_and(|c| c.starts_with("long text of tool result 0 ") && c.ends_with(" bytes]")));
        assert_eq!(kept.last(), Some(&json!(marker_for_items(300 - (kept.len() - 1)))));
        assert_eq!(cut.items, 300 - (kept.len() - 1));

        // With no room at all, the floor is the protected members plus a marker.
        let mut data = original.clone();
        shrink_data(&mut data, 0);
        assert_eq!(data, json!({"model": "m", "session_id": "s", "…": "[+1 members]"}));
    }

    #[test]
    fn object_members_are_elided_in_order() {
        let members: serde_json::Map<String, Value> = (0..100).map(|i| (format!("k{i:02}"), json!(i))).collect();
        let mut data = json!({"status": "ok", "m": members});
        let cut = shrink_data(&mut data, 60);
        assert!(len(&data) <= 60, "{}", len(&data));
        let m = data["m"].as_object().cloned().unwrap_or_default();
        let keys: Vec<&str> = m.keys().map(String::as_str).collect();
        assert_eq!(keys.last(), Some(&ELISION_KEY));
        let kept = keys.len() - 1;
        assert_eq!(keys[..kept], (0..kept).map(|i| format!("k{i:02}")).collect::<Vec<_>>()[..]);
        assert_eq!(m[ELISION_KEY], json!(marker_for_members(100 - kept)));
        assert_eq!(data["status"], json!("ok"));
        assert_eq!(cut.items, 100 - kept);
    }

    #[test]
    fn an_ellipsis_member_makes_way_for_the_marker() {
        // Nothing but protected members survives under `data`'s own "…".
        let mut data = json!({"…": "[+9 members]", "model": "m", "text": "x".repeat(500), "n": 1});
        let cut = shrink_data(&mut data, 0);
        assert_eq!(data, json!({"model": "m", "…": "[+3 members]"}));
        assert_eq!(cut, Cut { strings: 0, items: 3, bytes: 0 });

        // With more room, the first loose members are kept, never the "…" one,
        // and the marker is last.
        let original = json!({"…": "y".repeat(300), "a": 1, "b": 2, "c": 3, "d": "z".repeat(300)});
        let mut data = original.clone();
        let cut = shrink_data(&mut data, 40);
        assert_eq!(data, json!({"a": 1, "b": 2, "c": 3, "…": "[+2 members]"}));
        assert_eq!(cut.items, 2);

        // An object that fits is left alone, "…" and all.
        let original = json!({"…": 1, "a": 2});
        let mut data = original.clone();
        assert_eq!(shrink_data(&mut data, 100), Cut::default());
        assert_eq!(data, original);
    }

    #[test]
    fn escapes_are_counted() {
        // Each 4-byte unit serialises to 12 bytes. `{"t":"` + `…[+741 bytes]"}`
        // take 23 bytes, leaving 177 of the 200 for the prefix: 14 units (168)
        // plus `\n`, `\"` and `\\` (6 more); the `\u0001` would not fit.
        let mut data = json!({"t": "\n\"\\\u{1}".repeat(200)});
        let cut = shrink_data(&mut data, 200);
        let prefix = "\n\"\\\u{1}".repeat(14) + "\n\"\\";
        assert_eq!(data, json!({ "t": format!("{prefix}…[+741 bytes]") }));
        assert_eq!(len(&data), 197);
        assert_eq!(cut, Cut { strings: 1, items: 0, bytes: 741 });
    }

    #[test]
    fn a_marker_is_only_used_where_it_shortens() {
        // 33..=45-byte strings gain nothing from a 32-byte cut plus marker.
        let original = json!(["a".repeat(40), [1, 2]]);
        let mut data = original.clone();
        shrink_data(&mut data, 0);
        assert_eq!(data, json!(["…[+2 items]"]));
        let mut data = json!("a".repeat(44));
        assert_eq!(shrink_data(&mut data, 0), Cut::default());
        assert_eq!(data, json!("a".repeat(44)));
    }

    #[test]
    fn deep_nesting_is_fine() {
        // serde_json's parser allows 127 levels inside the outermost one.
        let depth = 127;
        let text = format!("{}\"{}\"{}", "[".repeat(depth), "x".repeat(10_000), "]".repeat(depth));
        let mut data: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        assert!(data.is_array());
        let cut = shrink_data(&mut data, 1000);
        assert!(len(&data) <= 1000);
        assert_eq!(cut.strings, 1);
    }

    #[test]
    fn many_strings_and_one_huge_string() {
        let items: Vec<Value> = (0..50_000).map(|i| json!({"id": i, "text": format!("{i:>200}")})).collect();
        let mut data = json!({"items": items, "big": "b".repeat(20_000_000)});
        let cut = shrink_data(&mut data, 8192);
        assert!(len(&data) <= 8192);
        assert!(cut.items > 0);
    }

    /// Fragments of raw string content, separated by white space: plain
    /// ASCII, raw UTF-8, every simple escape, `\u` escapes of every class
    /// (ASCII ones needing escapes or not, 2- and 3-byte, `\uDxxx` that are
    /// not surrogates), surrogate pairs, and escaped backslashes before a `u`.
    const STRING_PIECES: &str = r#"a xyz é 日本 😀 \" \\ \/ \b \f \n \r \t \u0000 \u001b \u001F \u0022 \u005c \u005C
        \u002f \u0041 \u0008 \u000a \u007f \u0080 \u00e9 \u07ff \u07FF \u0800 \u0430 \u4e2d \uffff \uD55C
        \ud7ff \ue000 \ud83d\ude80 \uD83D\uDE80 \udbff\udfff \ud800\udc00 \\u0041 \\\u0041 \\\\u \u0000\u0000"#;

    fn string_piece() -> impl Strategy<Value = &'static str> {
        prop::sample::select(STRING_PIECES.split_whitespace().collect::<Vec<_>>())
    }

    fn arb_value() -> impl Strategy<Value = Value> {
        let piece = prop::sample::select(vec!["a", "bc ", "é", "日本", "😀", "\"", "\\", "\n", "\u{1}", "\u{7f}"]);
        let string = prop_oneof!["[a-z]{0,5}", prop::collection::vec(piece, 0..120).prop_map(|v| v.concat()),];
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            (-1000i32..1000).prop_map(|n| Value::from(f64::from(n) / 8.0)),
            string.prop_map(Value::String),
        ];
        let key = prop_oneof![
            prop::sample::select(PROTECTED_KEYS.to_vec()).prop_map(str::to_owned),
            "[a-z\"\\n]{0,4}",
            Just(ELISION_KEY.to_owned()),
        ];
        leaf.prop_recursive(4, 64, 10, move |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..10).prop_map(Value::Array),
                prop::collection::vec((key.clone(), inner), 0..6)
                    .prop_map(|kv| Value::Object(kv.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// The skeleton's predicted size is exactly what serde_json writes after
        /// the plan is applied, for any limits.
        #[test]
        fn predicted_size_is_exact(
            mut data in arb_value(),
            items in prop_oneof![Just(UNLIMITED), 0usize..12],
            prefix in prop_oneof![Just(UNLIMITED), MIN_PREFIX..400],
        ) {
            let unlimited = Skeleton::new(&data, &[]).eval_root(Limits { items: UNLIMITED, prefix: UNLIMITED });
            prop_assert_eq!(unlimited, len(&data));
            let (predicted, _) = shrink_at(&mut data, Limits { items, prefix });
            prop_assert_eq!(predicted, len(&data));
        }

        /// The raw fast path writes exactly the bytes of the DOM path (so the
        /// same validity, protected members and budget), compact or spaced.
        #[test]
        fn raw_path_agrees_with_dom_path(
            data in arb_value(),
            long in prop::collection::vec(("[a-z]{0,3}", "[a-zé\"\\\n\u{1}\u{fdd0}😀]{0,8}", 1usize..400), 0..4),
            room in 0usize..300,
            spaced in any::<bool>(),
        ) {
            // Wrap the value with a few long strings, one under a protected key.
            let mut object = serde_json::Map::new();
            for (i, (key, piece, n)) in long.iter().enumerate() {
                let key = if i == 0 { "tool_name".to_owned() } else { key.clone() };
                object.insert(key, Value::String(piece.repeat(*n)));
            }
            object.insert("x".into(), data.clone());
            for value in [data, Value::Object(object)] {
                let text = if spaced { serde_json::to_vec_pretty(&value) } else { serde_json::to_vec(&value) };
                let text = text.unwrap_or_default();
                let mut dom = value.clone();
                shrink_data(&mut dom, room);
                if let Some(fast) = shrink_raw(&text, room) {
                    let slow = serde_json::to_vec(&dom).unwrap_or_default();
                    prop_assert_eq!(String::from_utf8_lossy(&fast), String::from_utf8_lossy(&slow));
                }
            }
        }

        /// The block measure of a string agrees with the escape-by-escape one
        /// on every field, wherever block boundaries and `head` fall.
        #[test]
        fn block_and_scalar_measures_agree(
            pieces in prop::collection::vec(string_piece(), 0..90),
            pad in 0usize..140,
            lead in 0usize..70,
            head_seed in any::<usize>(),
            torn_seed in any::<usize>(),
        ) {
            let text = format!(r#"{}"{}{}" ,"#, " ".repeat(lead), "x".repeat(pad), pieces.concat());
            let b = text.as_bytes();
            let whole = scan_string_scalar(b, lead, usize::MAX);
            prop_assert!(whole.is_some(), "{}", text);
            let decoded = whole.map_or(0, |s| s.len);
            for head in [head_seed % (decoded + 2), head_seed % 300, decoded, 0, MIN_PREFIX + 4] {
                let (block, scalar) = (scan_string(b, lead, head), scan_string_scalar(b, lead, head));
                prop_assert_eq!(block, scalar, "{} head {}", text, head);
            }
            // A torn string: neither finds a closing quote.
            let torn = &b[..lead + 1 + torn_seed % (b.len() - lead - 3)];
            prop_assert_eq!(scan_string(torn, lead, 40), None);
            prop_assert_eq!(scan_string_scalar(torn, lead, 40), None);
        }

        #[test]
        fn str_len_matches_serde_json(s in any::<String>()) {
            prop_assert_eq!(json_str_len(&s), len(&json!(s)));
        }
    }
}
