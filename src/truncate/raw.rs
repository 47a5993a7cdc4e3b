//! The raw pre-pass: long strings of `data` pre-cut in its JSON text, so
//! the DOM the planner works on is small.

use super::measure::scan_string;
use super::plan::{Precut, PRECUT_MARK};
use super::{floor_char_boundary, shrink_with, MIN_PREFIX, PROTECTED_KEYS};

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
