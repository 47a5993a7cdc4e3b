//! The JSON differential property without `cargo fuzz` (issue #8): the
//! validating scanner `json::Index::parse` (the envelope fast path) agrees with
//! `serde_json` (the full parser) on generated JSON-ish byte strings.
//!
//! Inputs are JSON objects serialised compactly and in a spaced style, then
//! randomly cut (torn writes), with bytes flipped, deleted or JSON-ish tokens
//! inserted (escapes, surrogates, huge exponents, duplicate members, bad
//! UTF-8); plus nesting around the depth limit. For every input:
//! - `Index::parse` accepts it exactly when serde_json parses it to an object,
//!   and says `NotObject` exactly when serde parses a non-object;
//! - when both accept, the top-level members correspond: same keys (decoded,
//!   last duplicate winning, in first-seen order) and every raw value parses to
//!   serde's value for that key, also through `Raw::to_value`, `Record::get`
//!   and (for strings) `decode_str`.
//!
//! The `json_differential` fuzz target (fuzz/README.md) checks more, much
//! longer; this keeps the core property in CI.

use ci_tools::json::{decode_str, Index, ParseError, Raw};
use proptest::prelude::*;
use proptest::sample::Index as At;
use serde_json::{Map, Value};

use crate::kit::strategies::{finite_f64, from_pieces, json_tree};

fn arb_string() -> impl Strategy<Value = String> + Clone {
    from_pieces(
        &[
            "a", "b c", "é", "日本", "🚀", "\"", "\\", "/", "\n", "\t", "\r", "\u{0}", "\u{1f}", "\u{7f}", "\u{2028}",
            "…", "\\u0041",
        ],
        8,
    )
}

fn arb_key() -> impl Strategy<Value = String> + Clone {
    prop_oneof![
        3 => prop::sample::select(vec!["event", "data", "workspace", "timestamp", "ci", "a"])
            .prop_map(str::to_owned),
        1 => arb_string(),
    ]
}

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        finite_f64(),
        arb_string().prop_map(Value::String),
    ];
    json_tree(leaf, arb_key())
}

fn arb_record() -> impl Strategy<Value = Value> {
    prop::collection::vec((arb_key(), arb_json()), 0..6)
        .prop_map(|m| Value::Object(m.into_iter().collect::<Map<_, _>>()))
}

/// The two serialisation styles: compact, and spaced (serde's pretty form with
/// its newlines turned into spaces or kept).
fn serialise(v: &Value, style: u8) -> Vec<u8> {
    match style % 3 {
        0 => serde_json::to_vec(v).expect("serialises"),
        1 => serde_json::to_string_pretty(v).expect("serialises").replace('\n', " ").into_bytes(),
        _ => format!(" \t{}\r ", serde_json::to_string_pretty(v).expect("serialises")).into_bytes(),
    }
}

#[derive(Debug, Clone)]
enum Mutation {
    Cut(At),
    Flip(At, u8),
    Delete(At, usize),
    Insert(At, &'static [u8]),
}

const TOKENS: &[&[u8]] = &[
    b"\"",
    b"\\",
    b"\\u",
    b"\\ud83d",
    b"\\ude80",
    b"\\u00e9",
    b"{",
    b"}",
    b"[",
    b"]",
    b":",
    b",",
    b" ",
    b"\n",
    b"0",
    b"-",
    b".",
    b"e",
    b"1e400",
    b"-1e999",
    b"1e-400",
    b"\"a\":1,",
    b"\"data\":{},",
    b"tru",
    b"null",
    b"\x00",
    b"\x1f",
    b"\xff",
    b"\xc3",
    b"\xe2\x80\xa6",
];

fn arb_mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        2 => any::<At>().prop_map(Mutation::Cut),
        2 => (any::<At>(), any::<u8>()).prop_map(|(a, b)| Mutation::Flip(a, b)),
        1 => (any::<At>(), 1..4usize).prop_map(|(a, n)| Mutation::Delete(a, n)),
        3 => (any::<At>(), prop::sample::select(TOKENS)).prop_map(|(a, t)| Mutation::Insert(a, t)),
    ]
}

fn mutate(mut b: Vec<u8>, muts: &[Mutation]) -> Vec<u8> {
    for m in muts {
        match m {
            Mutation::Cut(at) => {
                let n = at.index(b.len() + 1);
                b.truncate(n);
            }
            Mutation::Flip(at, byte) if !b.is_empty() => {
                let i = at.index(b.len());
                b[i] = *byte;
            }
            Mutation::Delete(at, n) if !b.is_empty() => {
                let i = at.index(b.len());
                let end = (i + n).min(b.len());
                b.drain(i..end);
            }
            Mutation::Insert(at, token) => {
                let i = at.index(b.len() + 1);
                b.splice(i..i, token.iter().copied());
            }
            _ => {}
        }
    }
    b
}

/// The differential property; `Err` describes the disagreement.
fn agree(line: &[u8]) -> Result<(), String> {
    let show = String::from_utf8_lossy(line);
    let mut idx = Index::new();
    let ours = idx.parse(line);
    let theirs = serde_json::from_slice::<Value>(line);
    match (ours, theirs) {
        (Ok(rec), Ok(Value::Object(map))) => {
            let mut members: Vec<(String, Raw<'_>)> = Vec::new();
            for (k, v) in rec.members() {
                let key = decode_str(k).ok_or_else(|| format!("key does not decode in {show}"))?.into_owned();
                match members.iter_mut().find(|(have, _)| *have == key) {
                    Some(slot) => slot.1 = v,
                    None => members.push((key, v)),
                }
            }
            let ours: Vec<&String> = members.iter().map(|(k, _)| k).collect();
            let theirs: Vec<&String> = map.keys().collect();
            if ours != theirs {
                return Err(format!("keys {ours:?} vs {theirs:?} in {show}"));
            }
            for (k, raw) in &members {
                let want = &map[k];
                let parsed: Option<Value> = serde_json::from_slice(raw.bytes()).ok();
                // Our DOM keeps each number's text (`1E5`), serde_json's
                // writes the exponent its own way (`1e+5`): compared through
                // serde's reading of ours.
                let dom = raw.to_value().and_then(|v| serde_json::from_str::<Value>(&v.to_string()).ok());
                if parsed.as_ref() != Some(want) || dom.as_ref() != Some(want) {
                    return Err(format!("member {k:?}: {raw:?} vs {want} in {show}"));
                }
                if rec.get(k) != Some(*raw) {
                    return Err(format!("get({k:?}) is not the last duplicate in {show}"));
                }
                // The nested index gives what a walk of the value gives
                // (asked twice: the second answer comes from the index).
                if let Value::Object(inner) = want {
                    for nk in inner.keys().map(String::as_str).chain(["\u{0}absent"]) {
                        for _ in 0..2 {
                            if rec.get_in(k, nk) != raw.get(nk) {
                                return Err(format!("get_in({k:?}, {nk:?}) differs from get in {show}"));
                            }
                        }
                    }
                }
                if let Value::String(s) = want {
                    let decoded = raw.str_content().and_then(decode_str);
                    if decoded.as_deref() != Some(s.as_str()) {
                        return Err(format!("decode_str of {k:?}: {decoded:?} in {show}"));
                    }
                }
            }
            Ok(())
        }
        (Err(ParseError::NotObject), Ok(v)) if !v.is_object() => Ok(()),
        (Err(ParseError::NotObject), Err(e)) => Err(format!("NotObject, serde: {e}: {show}")),
        (Err(_), Err(_)) => Ok(()),
        (Ok(_), Err(e)) => Err(format!("scanner accepts, serde rejects ({e}): {show}")),
        (Ok(_), Ok(v)) => Err(format!("scanner accepts non-object {v}: {show}")),
        (Err(e), Ok(_)) => Err(format!("scanner rejects ({e}), serde accepts: {show}")),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn scanner_accepts_every_serialised_object(v in arb_record(), style in any::<u8>()) {
        let line = serialise(&v, style);
        prop_assert!(Index::new().parse(&line).is_ok(), "{}", String::from_utf8_lossy(&line));
        prop_assert_eq!(agree(&line), Ok(()));
    }

    #[test]
    fn scanner_agrees_with_serde_on_damaged_objects(
        v in arb_record(),
        style in any::<u8>(),
        muts in prop::collection::vec(arb_mutation(), 1..4),
    ) {
        let line = mutate(serialise(&v, style), &muts);
        prop_assert_eq!(agree(&line), Ok(()));
    }

    #[test]
    fn scanner_agrees_with_serde_around_the_depth_limit(
        depth in 120usize..135,
        arrays in any::<u64>(),
        muts in prop::collection::vec(arb_mutation(), 0..2),
    ) {
        let mut line = Vec::new();
        for d in 0..depth {
            // The record itself is an object; deeper levels mix arrays in.
            if d > 0 && arrays >> (d % 64) & 1 == 1 {
                line.push(b'[');
            } else {
                line.extend_from_slice(b"{\"k\":");
            }
        }
        line.push(b'1');
        for d in (0..depth).rev() {
            line.push(if d > 0 && arrays >> (d % 64) & 1 == 1 { b']' } else { b'}' });
        }
        let line = mutate(line, &muts);
        prop_assert_eq!(agree(&line), Ok(()));
    }
}
