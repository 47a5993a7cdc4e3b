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

//!
//! # Modules
//!
//! This module holds the contract: the constants and markers above, [`Cut`],
//! and the exact sizes everything is measured with (as serde_json writes
//! them). Under it, each using only the ones before it and this one:
//! `plan` builds the skeleton and chooses the limits, `apply` writes the
//! chosen cuts into the value, `measure` sizes a string of JSON text without
//! decoding it (over the [`crate::json`] string and block layers), and `raw`
//! pre-cuts the long strings of a record's text with those measures before
//! the DOM is built ([`shrink_raw`]).

use serde_json::Value;
use std::io;

mod apply;
mod measure;
mod plan;
mod raw;
#[cfg(test)]
mod tests;

pub use raw::shrink_raw;

use apply::Walk;
use plan::{Precut, Skeleton};

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
