//! Properties of `ci_tools::truncate::shrink_data` on arbitrary JSON.
//!
//! For any `data` and any `room`:
//! 1. the result serialises and re-parses to itself (valid JSON);
//! 2. it is a faithful reduction of the original: the protected members (direct
//!    members of `data` with a protected key) are all kept and equal to the
//!    original ones, strings are either whole or a prefix cut on a character
//!    boundary plus the exact marker, elided containers keep their protected
//!    members and their first other children in order (never an object's own
//!    `"…"` member) plus the exact marker, numbers/booleans/null and keys are
//!    unchanged — and the returned `Cut` counts exactly what the markers say;
//! 3. its compact size is at most `room`, or it equals the "floor" computed by
//!    an independent, naive model (sizes taken from `serde_json::to_vec`);
//! 4. when `room` is at least the original size, nothing changes;
//! 5. the floor is bounded by the protected members: for an object `data`, if
//!    they (as an object) plus 64 bytes fit in `room`, the result fits.

use ci_tools::truncate::{
    is_protected_key, marker_for_items, marker_for_members, marker_for_string, shrink_data, Cut, ELISION_KEY,
    MIN_PREFIX, PROTECTED_KEYS,
};
use proptest::prelude::*;

use crate::kit::strategies::from_pieces;
use serde_json::{Map, Value};

fn size(v: &Value) -> usize {
    serde_json::to_vec(v).map(|b| b.len()).unwrap_or(usize::MAX)
}

fn floor_boundary(s: &str, at: usize) -> usize {
    let mut p = at.min(s.len());
    while !s.is_char_boundary(p) {
        p -= 1;
    }
    p
}

/// Whether the member `key` of an object is protected: only direct members of
/// `data` (`top`) are.
fn protected(top: bool, key: &str) -> bool {
    top && is_protected_key(key)
}

/// `data` reduced to its protected members (`{}` if it has none).
fn protected_part(data: &Map<String, Value>) -> Value {
    Value::Object(data.iter().filter(|(k, _)| protected(true, k)).map(|(k, v)| (k.clone(), v.clone())).collect())
}

/// The naive model of the most reduced form `shrink_data` may produce for `v`
/// (`top`: `v` is `data` itself).
fn floor(v: &Value, top: bool) -> Value {
    match v {
        Value::String(s) if s.len() > MIN_PREFIX => {
            let p = floor_boundary(s, MIN_PREFIX);
            let cut = Value::String(format!("{}{}", &s[..p], marker_for_string(s.len() - p)));
            if size(&cut) < size(v) {
                cut
            } else {
                v.clone()
            }
        }
        Value::Array(items) => {
            let whole = Value::Array(items.iter().map(|i| floor(i, false)).collect());
            if items.is_empty() {
                return whole;
            }
            let elided = Value::Array(vec![Value::String(marker_for_items(items.len()))]);
            if size(&elided) < size(&whole) {
                elided
            } else {
                whole
            }
        }
        Value::Object(m) => {
            let reduce = |k: &String, v: &Value| {
                let v = if protected(top, k) { v.clone() } else { floor(v, false) };
                (k.clone(), v)
            };
            let whole = Value::Object(m.iter().map(|(k, v)| reduce(k, v)).collect());
            let omitted = m.keys().filter(|k| !protected(top, k)).count();
            if omitted == 0 {
                return whole;
            }
            let mut kept: Map<String, Value> =
                m.iter().filter(|(k, _)| protected(top, k)).map(|(k, v)| (k.clone(), v.clone())).collect();
            kept.insert(ELISION_KEY.to_owned(), Value::String(marker_for_members(omitted)));
            let elided = Value::Object(kept);
            if size(&elided) < size(&whole) {
                elided
            } else {
                whole
            }
        }
        _ => v.clone(),
    }
}

/// Checks that `out` is a faithful reduction of `orig` (`top`: `orig` is
/// `data` itself), adding what it sees cut to `seen`.
fn faithful(orig: &Value, out: &Value, top: bool, seen: &mut Cut) -> Result<(), String> {
    match (orig, out) {
        (Value::String(a), Value::String(b)) => {
            if a == b {
                return Ok(());
            }
            let Some(at) = b.rfind("…[+") else {
                return Err(format!("string changed without marker: {b:?}"));
            };
            let prefix = &b[..at];
            let omitted = a.len().saturating_sub(prefix.len());
            if !a.starts_with(prefix)
                || omitted == 0
                || prefix.len() < floor_boundary(a, MIN_PREFIX)
                || b[at..] != marker_for_string(omitted)
            {
                return Err(format!("bad cut {b:?} of {a:?}"));
            }
            seen.strings += 1;
            seen.bytes += omitted;
            Ok(())
        }
        (Value::Array(a), Value::Array(b)) => {
            let marker = b.len().checked_sub(1).and_then(|last| {
                let omitted = (a.len() + 1).checked_sub(b.len())?;
                (omitted > 0 && b[last] == Value::String(marker_for_items(omitted))).then_some(omitted)
            });
            let kept = match marker {
                None if a.len() == b.len() => b.len(),
                None => return Err(format!("array length changed without marker: {b:?}")),
                Some(omitted) => {
                    seen.items += omitted;
                    b.len() - 1
                }
            };
            // The first items are kept, in order.
            a.iter().zip(&b[..kept]).try_for_each(|(x, y)| faithful(x, y, false, seen))
        }
        (Value::Object(a), Value::Object(b)) => {
            // Elided: the keys changed, or (when the original's last key is
            // "…") the "…" member became the marker, which no reduction of a
            // member's value can produce.
            let keys_changed = !a.keys().eq(b.keys());
            let omitted = (a.len() + 1).saturating_sub(b.len());
            let marker = Value::String(marker_for_members(omitted));
            let elided = keys_changed || (b.get(ELISION_KEY) == Some(&marker) && a.get(ELISION_KEY) != Some(&marker));
            let kept_keys: Vec<&String> = b.keys().filter(|k| !elided || *k != ELISION_KEY).collect();
            let expected: Vec<&String> = if elided {
                if b.keys().next_back().map(String::as_str) != Some(ELISION_KEY) {
                    return Err(format!("member marker is not last: {b:?}"));
                }
                if b[ELISION_KEY] != marker || omitted == 0 {
                    return Err(format!("bad member marker in {b:?}"));
                }
                seen.items += omitted;
                let protected_count = a.keys().filter(|k| protected(top, k)).count();
                let loose_kept = kept_keys.len().checked_sub(protected_count).ok_or("protected members dropped")?;
                let mut loose_seen = 0;
                a.keys()
                    .filter(|k| {
                        protected(top, k)
                            || (*k != ELISION_KEY && {
                                loose_seen += 1;
                                loose_seen <= loose_kept
                            })
                    })
                    .collect()
            } else {
                a.keys().collect()
            };
            if kept_keys != expected {
                return Err(format!("kept keys {kept_keys:?}, expected {expected:?}"));
            }
            for k in kept_keys {
                if protected(top, k) {
                    if a[k] != b[k] {
                        return Err(format!("protected member {k:?} changed"));
                    }
                } else {
                    faithful(&a[k], &b[k], false, seen)?;
                }
            }
            Ok(())
        }
        _ if orig == out => Ok(()),
        _ => Err(format!("{orig:?} became {out:?}")),
    }
}

pub fn arb_string() -> impl Strategy<Value = String> {
    const PIECES: &[&str] =
        &["a", "bcd ", "é", "日本", "😀", "\"", "\\", "\n", "\t", "\u{1}", "\u{1f}", "\u{7f}", "…", "[+"];
    prop_oneof![
        3 => "[a-z ]{0,12}",
        2 => from_pieces(PIECES, 150),
        1 => (1usize..3000).prop_map(|n| "long text ".repeat(n / 10 + 1)),
    ]
}

pub fn arb_key() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "[a-z]{1,6}",
        2 => prop::sample::select(PROTECTED_KEYS.to_vec()).prop_map(str::to_owned),
        1 => "[a-z\"\\\\\n\u{1}é]{0,4}",
        1 => Just(ELISION_KEY.to_owned()),
    ]
}

pub fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        1 => Just(Value::Null),
        1 => any::<bool>().prop_map(Value::Bool),
        1 => any::<i64>().prop_map(Value::from),
        1 => any::<u64>().prop_map(Value::from),
        1 => (-100_000i32..100_000).prop_map(|n| Value::from(f64::from(n) / 64.0)),
        5 => arb_string().prop_map(Value::String),
    ];
    leaf.prop_recursive(5, 200, 24, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::vec(inner.clone(), 0..40).prop_map(Value::Array),
            prop::collection::vec((arb_key(), inner), 0..8).prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// An object `data` with some top-level protected members, sometimes with an
/// llm:request-like `raw.messages` array of tool messages.
pub fn arb_object() -> impl Strategy<Value = Value> {
    let extra = prop_oneof![arb_string().prop_map(Value::String), any::<i64>().prop_map(Value::from)];
    let message = (arb_string(), arb_string(), prop::collection::vec((arb_key(), extra), 0..3)).prop_map(
        |(id, content, more)| {
            let mut m = Map::new();
            m.insert("role".into(), Value::from("tool"));
            m.insert("tool_call_id".into(), Value::String(id));
            m.insert("content".into(), Value::String(content));
            m.extend(more);
            Value::Object(m)
        },
    );
    let raw = prop::collection::vec(message, 0..40).prop_map(|messages| {
        let mut raw = Map::new();
        raw.insert("messages".into(), Value::Array(messages));
        Value::Object(raw)
    });
    (prop::collection::vec((arb_key(), arb_json()), 0..10), prop::option::weighted(0.3, raw)).prop_map(|(kv, raw)| {
        let mut m: Map<String, Value> = kv.into_iter().collect();
        if let Some(raw) = raw {
            m.insert("raw".into(), raw);
        }
        Value::Object(m)
    })
}

/// A `data` payload: usually an object with some top-level protected members.
pub fn arb_data() -> impl Strategy<Value = Value> {
    prop_oneof![
        4 => arb_object(),
        1 => arb_json(),
    ]
}

fn data_and_room() -> impl Strategy<Value = (Value, usize)> {
    arb_data().prop_flat_map(|data| {
        let n = size(&data);
        // Rooms around the floor exercise container elision; the rest, string cuts.
        let f = size(&floor(&data, true)).min(n);
        let room = prop_oneof![0..=n + 16, (n / 4)..=n, f..=f + (n - f) / 8, Just(n), Just(n.saturating_sub(1)),];
        (Just(data), room)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn shrink_data_keeps_its_contract((orig, room) in data_and_room()) {
        let mut out = orig.clone();
        let cut = shrink_data(&mut out, room);

        // (1) valid JSON that re-parses to the same value
        let bytes = serde_json::to_vec(&out).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let back: Value = serde_json::from_slice(&bytes).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(&back, &out);

        // (2) faithful, protected members unchanged, `Cut` exact
        let mut seen = Cut::default();
        faithful(&orig, &out, true, &mut seen).map_err(TestCaseError::fail)?;
        prop_assert_eq!(&cut, &seen);

        // (3) fits, or nothing more could be cut
        let n = bytes.len();
        prop_assert!(n <= room || out == floor(&orig, true), "size {} > room {} and not at the floor", n, room);

        // (4) enough room: unchanged
        if room >= size(&orig) {
            prop_assert_eq!(&out, &orig);
            prop_assert_eq!(cut, Cut::default());
        }
    }

    /// The floor itself is what the tightest room produces.
    #[test]
    fn room_zero_gives_the_floor(orig in arb_data()) {
        let mut out = orig.clone();
        shrink_data(&mut out, 0);
        prop_assert_eq!(out, floor(&orig, true));
    }

    /// (5) However big the rest of an object `data` is, a room of its protected
    /// members plus 64 bytes is enough; the floor itself stays within the
    /// documented `P + 20 + digits(N)`.
    #[test]
    fn protected_members_plus_64_bytes_always_fit(
        (orig, extra) in (arb_object(), prop_oneof![64usize..=80, 64usize..=2000]),
    ) {
        let Value::Object(m) = &orig else {
            return Err(TestCaseError::fail("not an object"));
        };
        let p = size(&protected_part(m));
        let others = m.keys().filter(|k| !protected(true, k)).count();
        let bound = if others == 0 { p } else { p + 20 + others.to_string().len() };
        prop_assert!(size(&floor(&orig, true)) <= bound);
        let room = p + extra;
        let mut out = orig.clone();
        shrink_data(&mut out, room);
        prop_assert!(size(&out) <= room, "size {} > room {} (protected {})", size(&out), room, p);
    }
}
