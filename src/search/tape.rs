//! The decoded strings of a record through simd-json's tape: ci-grep's walk
//! for lines that pass the raw pre-check.
//!
//! Decoding every string is the part of a search that simd-json does much
//! faster than [`super::walk::strings`] + [`crate::json::decode_str`] (it unescapes
//! while it parses, with SIMD; on the corpus's escape-dense payloads about
//! 4× faster, see BENCHMARKS.md "Parsers on our line shapes"). The line is
//! still validated by [`crate::json::Index::parse`] first, so which lines are
//! reported as bad, and why, does not change; a line simd-json refuses anyway
//! is walked the old way by the caller ([`strings`] returns `None`).
//!
//! Memory: the tape needs a padded copy of the line, which simd-json
//! unescapes in place, and a scratch buffer as long as the line — about 1.5
//! to 2 lines on top of the line itself. Lines longer than [`MAX_LINE`] are
//! therefore left to the raw walk ([`strings`] returns `None`), which holds
//! one decoded string at a time, so that ci-grep stays within the memory
//! contract, 64 MB + 2 × the longest line (BENCHMARKS.md, "Memory" and
//! "ci-grep on escape-dense huge lines"); below it the tape's copies fit in
//! the 64 MB.
//!
//! Paths, scope and order are those of [`super::walk::strings`]: dotted from the top
//! level, array items by index, keys decoded, members in document order
//! (duplicates included), top-level keys never reported.

use std::cell::RefCell;
use std::fmt::Write;

use simd_json::prelude::*;
use simd_json::tape::Value;
use simd_json::{Buffers, Tape, INPUT_PADDING};

use super::walk::Scope;

/// One decoded string found by the walk.
#[derive(Debug, Clone, Copy)]
pub struct Decoded<'p> {
    /// The JSON path of the value (for a key: of the member it names).
    pub path: &'p str,
    /// Whether this is an object key rather than a string value.
    pub key: bool,
    /// The decoded text.
    pub text: &'p str,
}

/// The longest line decoded through the tape (module docs): 16 MiB.
pub const MAX_LINE: usize = 16 << 20;

/// What a thread keeps between lines: the padded copy simd-json parses in
/// place, its buffers and the tape's allocation.
struct State {
    copy: Vec<u8>,
    buffers: Buffers,
    spare: Tape<'static>,
    path: String,
}

thread_local! {
    static STATE: RefCell<State> = RefCell::new(State {
        copy: Vec::new(),
        buffers: Buffers::default(),
        spare: Tape(Vec::new()),
        path: String::with_capacity(64),
    });
}

/// Calls `f` for every string value in `scope` of the JSON object `line` (and,
/// with `keys`, every key of an object member inside the scope), decoded, in
/// document order, until `f` returns false. Returns whether the walk ran to
/// the end, or `None` when simd-json refuses the line or the line is longer
/// than [`MAX_LINE`] (nothing was visited).
pub fn strings(line: &[u8], scope: &Scope, keys: bool, f: &mut dyn FnMut(Decoded<'_>) -> bool) -> Option<bool> {
    if line.len() > MAX_LINE {
        return None;
    }
    STATE.with(|state| {
        // A nested call (never made by ci-grep) gets a fresh state.
        let mut fresh;
        let mut guard = state.try_borrow_mut();
        let st: &mut State = match guard.as_deref_mut() {
            Ok(st) => st,
            Err(_) => {
                fresh = State {
                    copy: Vec::new(),
                    buffers: Buffers::default(),
                    spare: Tape(Vec::new()),
                    path: String::new(),
                };
                &mut fresh
            }
        };
        let State { copy, buffers, spare, path } = st;
        copy.clear();
        copy.extend_from_slice(line);
        copy.resize(line.len() + INPUT_PADDING, 0);
        let mut tape = std::mem::replace(spare, Tape(Vec::new())).reset();
        let done = match simd_json::fill_tape_padded(copy, line.len(), buffers, &mut tape) {
            Ok(()) => match tape.as_value().as_object() {
                Some(top) => {
                    let mut go_on = true;
                    for (k, v) in top.iter() {
                        path.clear();
                        path.push_str(k);
                        let inside = scope.covers(path);
                        if (inside || scope.leads_to(path)) && !visit(v, path, inside, scope, keys, f) {
                            go_on = false;
                            break;
                        }
                    }
                    Some(go_on)
                }
                None => None,
            },
            Err(_) => None,
        };
        *spare = tape.reset();
        done
    })
}

fn visit(
    v: Value<'_, '_>,
    path: &mut String,
    inside: bool,
    scope: &Scope,
    keys: bool,
    f: &mut dyn FnMut(Decoded<'_>) -> bool,
) -> bool {
    if let Some(text) = v.as_str() {
        return !inside || f(Decoded { path, key: false, text });
    }
    let len = path.len();
    if let Some(obj) = v.as_object() {
        for (k, child) in obj.iter() {
            path.push('.');
            path.push_str(k);
            let child_inside = inside || scope.covers(path);
            let go_on = (!(inside && keys) || f(Decoded { path, key: true, text: k }))
                && (!(child_inside || scope.leads_to(path)) || visit(child, path, child_inside, scope, keys, f));
            path.truncate(len);
            if !go_on {
                return false;
            }
        }
    } else if let Some(arr) = v.as_array() {
        for (i, child) in arr.iter().enumerate() {
            let _ = write!(path, ".{i}");
            let child_inside = inside || scope.covers(path);
            let go_on = !(child_inside || scope.leads_to(path)) || visit(child, path, child_inside, scope, keys, f);
            path.truncate(len);
            if !go_on {
                return false;
            }
        }
    }
    true
}

#[cfg(test)]
mod tests;
