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
mod tests {
    use super::*;
    use crate::json::{decode_str, Index, Path};
    use crate::search::walk;

    /// Both walks, as `path(key)=decoded` lines.
    fn both(line: &str, fields: &[&str], keys: bool) -> (Vec<String>, Vec<String>) {
        let fields: Vec<Path> = fields.iter().map(|f| Path::parse(f).unwrap()).collect();
        let scope = Scope::new(&fields);
        let show = |path: &str, key: bool, text: &str| format!("{path}{}={text}", if key { "(key)" } else { "" });
        let mut idx = Index::new();
        let rec = idx.parse(line.as_bytes()).unwrap();
        let mut old = vec![];
        walk::strings(&rec, &scope, keys, &mut |s| {
            old.push(show(s.path, s.key, &decode_str(s.raw).unwrap()));
            true
        });
        let mut new = vec![];
        assert_eq!(
            strings(line.as_bytes(), &scope, keys, &mut |s| {
                new.push(show(s.path, s.key, s.text));
                true
            }),
            Some(true)
        );
        (old, new)
    }

    const LINE: &str = r#"{"data":{"prompt":"caf\u00e9 \ud83d\ude80 \"q\"","result":{"output":"o","n":1,"l":[["x"],{"y":"z"}]},"results":"x","raw":{"messages":[{"content":"c0"},{"content":"c1"}]},"k\u00e9y":"v","k\u00e9y":"w"},"event":"e","timestamp":"t"}"#;

    #[test]
    fn same_strings_paths_and_order_as_the_raw_walk() {
        for fields in [&[][..], &["data.result"], &["data.raw.messages.1"], &["event", "data.prompt"], &["timestamp"]] {
            for keys in [false, true] {
                let (old, new) = both(LINE, fields, keys);
                assert!(!old.is_empty());
                assert_eq!(old, new, "fields {fields:?} keys {keys}");
            }
        }
        let (old, new) = both(r#" { "event" : "x", "data" : { "a" : [ "b" , { "c" : "d\n" } ] } } "#, &[], true);
        assert_eq!(old, new);
        assert_eq!(new, ["data.a(key)=a", "data.a.0=b", "data.a.1.c(key)=c", "data.a.1.c=d\n"]);
    }

    fn json_value() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(serde_json::Value::Null),
            any::<bool>().prop_map(serde_json::Value::Bool),
            any::<i64>().prop_map(|n| serde_json::json!(n)),
            "[\\\\\"/\n\t\u{1}a-z.\u{e9}\u{65e5}\u{1F680} ]{0,40}".prop_map(serde_json::Value::String),
        ];
        leaf.prop_recursive(5, 64, 8, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..6).prop_map(serde_json::Value::Array),
                proptest::collection::vec(("[a-z.\"\\\\\u{e9}]{0,6}", inner), 0..6)
                    .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        /// Any record, canonical (every non-ASCII character escaped) or not:
        /// the same strings, decoded the same, with the same paths, in the
        /// same order, for the default scope and a narrower one.
        #[test]
        fn agrees_with_the_raw_walk_on_any_record(
            data in json_value(),
            ascii in proptest::bool::ANY,
            keys in proptest::bool::ANY,
            narrow in proptest::bool::ANY,
        ) {
            let mut line = serde_json::to_string(&serde_json::json!({ "data": data, "event": "e" })).unwrap();
            if ascii {
                line = line.chars().map(|c| if c.is_ascii() { c.to_string() } else {
                    c.encode_utf16(&mut [0; 2]).iter().map(|u| format!("\\u{u:04x}")).collect()
                }).collect();
            }
            let fields: &[&str] = if narrow { &["data.a", "event"] } else { &[] };
            let (old, new) = both(&line, fields, keys);
            proptest::prop_assert_eq!(old, new, "{}", line);
        }
    }

    #[test]
    fn stops_when_told_and_refuses_what_simd_json_refuses() {
        let mut seen = 0;
        assert_eq!(
            strings(LINE.as_bytes(), &Scope::new(&[]), false, &mut |_| {
                seen += 1;
                seen < 2
            }),
            Some(false)
        );
        assert_eq!(seen, 2);
        for bad in [&b"[1]"[..], b"{\"a\":", b"{\"a\":\"\\x\"}", b""] {
            assert_eq!(strings(bad, &Scope::new(&[]), true, &mut |_| true), None);
        }
    }
}
