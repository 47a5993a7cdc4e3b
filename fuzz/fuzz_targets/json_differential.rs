//! Differential fuzzing of the validating scanner (`json::Index::parse`, the
//! envelope fast path) against `serde_json` (the full parser).
//!
//! Properties, on every input:
//! - `Index::parse` accepts exactly the inputs `serde_json` parses to an object;
//!   `NotObject` exactly when serde parses a non-object, `Blank` exactly for
//!   whitespace-only input, `InvalidUtf8` exactly for invalid UTF-8, and
//!   error offsets inside the line;
//! - for an accepted record: the top-level members, decoded keys, last duplicate
//!   winning, correspond one to one with serde's map; `get`, `get_str`,
//!   `decode_str` of every string member, `to_value` and the trusted walk
//!   (`Raw::members`/`items`/`get`) all agree with serde's values;
//! - the skim (`Index::skim`, ci-filter's envelope fast path) agrees with the
//!   full parse: on every line the parse accepts it gives the same members and
//!   closing brace (not marked validated); a line it refuses gets the parse's
//!   error; a line it accepts that the parse refuses is damaged only inside a
//!   top-level container, so `json::validate` refuses it with the parse's error;
//! - `Raw::members`/`items`/`get` and `decode_str` never panic on arbitrary
//!   (unvalidated) bytes, and `decode_str` agrees with serde whenever serde
//!   accepts the bytes as the content of a string.
#![no_main]

use ci_tools::json::{decode_str, Index, Kind, ParseError, Path, Raw};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    check_against_serde(data);
    check_skim(data);
    walk_untrusted(Raw(data), 0);
    check_decode_str(data);
});

fn check_skim(data: &[u8]) {
    let (mut full, mut fast) = (Index::new(), Index::new());
    let members =
        |r: &ci_tools::json::Record<'_>| r.members().map(|(k, v)| (k.to_vec(), v.bytes().to_vec())).collect::<Vec<_>>();
    match (full.parse(data), fast.skim(data)) {
        (Ok(p), Ok(s)) => {
            assert_eq!(members(&p), members(&s), "skim members");
            assert_eq!(p.close(), s.close(), "skim close");
            assert!(p.is_validated() && !s.is_validated());
        }
        (Err(p), Err(s)) => assert_eq!(p, s, "skim error"),
        (Ok(_), Err(e)) => panic!("skim refuses a valid line: {e:?}"),
        (Err(p), Ok(_)) => assert_eq!(ci_tools::json::validate(data), Err(p), "validate after skim"),
    }
}

fn check_against_serde(data: &[u8]) {
    let mut idx = Index::new();
    let ours = idx.parse(data);
    let theirs = serde_json::from_slice::<Value>(data);
    match (ours, theirs) {
        (Ok(rec), Ok(Value::Object(map))) => {
            // Members: decoded keys, last duplicate wins, first position kept
            // (serde_json's preserve_order map does the same).
            let mut ours: Vec<(String, Raw<'_>)> = Vec::new();
            for (k, v) in rec.members() {
                let key = decode_str(k).expect("accepted key decodes").into_owned();
                match ours.iter_mut().find(|(have, _)| *have == key) {
                    Some(slot) => slot.1 = v,
                    None => ours.push((key, v)),
                }
            }
            assert_eq!(ours.len(), map.len(), "member count");
            for ((k, raw), (sk, sv)) in ours.iter().zip(map.iter()) {
                assert_eq!(k, sk, "key order");
                let got = rec.get(k).expect("get finds a member");
                assert_eq!(got, *raw, "get returns the last duplicate");
                let parsed: Value = serde_json::from_slice(raw.bytes()).expect("raw value parses");
                assert_eq!(&parsed, sv, "raw value of {k:?}");
                // Our DOM keeps each number's text (`1E5`); serde_json writes
                // the exponent its own way (`1e+5`): compared through serde's
                // reading of ours, and our text must be the raw value's.
                let dom = raw.to_value().expect("to_value of an accepted value");
                let reread: Value = serde_json::from_str(&dom.to_string()).expect("our DOM serialises to JSON");
                assert_eq!(&reread, sv, "to_value of {k:?}");
                if let Value::String(s) = sv {
                    let content = raw.str_content().expect("string content");
                    assert_eq!(decode_str(content).as_deref(), Some(s.as_str()));
                    assert_eq!(rec.get_str(k).as_deref(), Some(s.as_str()));
                } else {
                    assert_eq!(rec.get_str(k), None);
                }
                if let Ok(path) = Path::parse(k) {
                    // (A path is trimmed: `"timestamp "` names `timestamp`.)
                    if path.segments() == [k.clone()] {
                        assert_eq!(rec.path(&path), Some(*raw));
                    }
                }
                walk_trusted(*raw, sv);
            }
            // Every member (also the earlier duplicates) walks without panicking.
            for (_, v) in rec.members() {
                walk_untrusted(v, 1);
            }
            assert_eq!(rec.is_empty(), rec.members().next().is_none());
            assert_eq!(data.get(rec.close()), Some(&b'}'));
        }
        (Err(ParseError::NotObject), Ok(v)) => {
            assert!(!v.is_object(), "NotObject for an object");
        }
        (Ok(_), Ok(v)) => panic!("scanner accepts a non-object: {v}"),
        (Err(e), Ok(v)) => panic!("scanner rejects ({e}) what serde accepts: {v}"),
        (Ok(_), Err(e)) => panic!("scanner accepts what serde rejects: {e}"),
        (Err(ours), Err(theirs)) => {
            let utf8 = std::str::from_utf8(data);
            match ours {
                ParseError::InvalidUtf8(at) => {
                    let e = utf8.expect_err("InvalidUtf8 for valid UTF-8");
                    assert_eq!(at, e.valid_up_to());
                }
                ParseError::Blank => {
                    assert!(data.iter().all(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r')));
                    assert!(theirs.is_eof());
                }
                ParseError::NotObject => panic!("NotObject but serde rejects: {theirs}"),
                // Torn or not is not compared with serde's error category:
                // serde calls `"\\u"d` at the end an EOF (it reads four bytes
                // before looking at them) and `"\\u12` at the end a syntax
                // error ("unexpected end of hex escape"); we say the opposite.
                ParseError::UnexpectedEnd => assert!(utf8.is_ok()),
                ParseError::Syntax(at, _) | ParseError::TooDeep(at) => {
                    assert!(utf8.is_ok());
                    assert!(at < data.len(), "error offset inside the line");
                }
            }
        }
    }
}

/// Walks a validated value alongside serde's parse of it.
fn walk_trusted(raw: Raw<'_>, v: &Value) {
    match v {
        Value::Object(map) => {
            assert_eq!(raw.kind(), Kind::Object);
            assert_eq!(raw.items().count(), 0);
            let mut last: Vec<(String, Raw<'_>)> = Vec::new();
            for (k, item) in raw.members() {
                let key = decode_str(k).expect("validated key decodes").into_owned();
                match last.iter_mut().find(|(have, _)| *have == key) {
                    Some(slot) => slot.1 = item,
                    None => last.push((key, item)),
                }
            }
            assert_eq!(last.len(), map.len());
            for ((k, item), (sk, sv)) in last.iter().zip(map.iter()) {
                assert_eq!(k, sk);
                assert_eq!(raw.get(k), Some(*item), "Raw::get last duplicate");
                walk_trusted(*item, sv);
            }
        }
        Value::Array(items) => {
            assert_eq!(raw.kind(), Kind::Array);
            assert_eq!(raw.members().count(), 0);
            let ours: Vec<Raw<'_>> = raw.items().collect();
            assert_eq!(ours.len(), items.len());
            for (n, (item, sv)) in ours.iter().zip(items).enumerate() {
                if n < 4 {
                    assert_eq!(raw.get(&n.to_string()), Some(*item));
                }
                walk_trusted(*item, sv);
            }
            assert_eq!(raw.get(&items.len().to_string()), None);
        }
        Value::String(s) => {
            assert_eq!(raw.kind(), Kind::String);
            assert_eq!(raw.as_str().as_deref(), Some(s.as_str()));
            assert_eq!(raw.members().count() + raw.items().count(), 0);
        }
        Value::Number(n) => {
            assert_eq!(raw.kind(), Kind::Number);
            let ours = raw.as_f64().expect("number parses");
            // Past f64's range (kept as text since arbitrary_precision)
            // serde says None; ours is the infinity of its sign, so `--where
            // data.v > 5` still holds for 1e400.
            match n.as_f64() {
                // Exact: the crate enables serde_json's float_roundtrip.
                Some(theirs) => assert_eq!(ours, theirs),
                None => assert!(ours.is_infinite(), "{n} as f64: {ours}"),
            }
        }
        Value::Bool(b) => {
            assert_eq!(raw.kind(), Kind::Bool);
            assert_eq!(raw.as_bool(), Some(*b));
        }
        Value::Null => {
            assert_eq!(raw.kind(), Kind::Null);
            assert!(raw.is_null());
        }
    }
}

/// Walks arbitrary bytes as if they were a validated value: must not panic
/// (results are meaningless). Depth-bounded: the walk recurses.
fn walk_untrusted(raw: Raw<'_>, depth: usize) {
    if depth > 8 {
        return;
    }
    let _ = raw.kind();
    let _ = raw.as_str();
    let _ = raw.as_f64();
    let _ = raw.str_content();
    for (n, (k, v)) in raw.members().take(64).enumerate() {
        let _ = decode_str(k);
        if n < 2 {
            if let Ok(k) = std::str::from_utf8(k) {
                let _ = raw.get(k);
            }
        }
        walk_untrusted(v, depth + 1);
    }
    for v in raw.items().take(64) {
        walk_untrusted(v, depth + 1);
    }
    let _ = raw.get("0");
    let _ = raw.get("1");
    let _ = raw.get("a");
}

/// `decode_str` on arbitrary bytes: no panic, and equal to serde's decoding
/// whenever serde accepts `"bytes"` as a string.
fn check_decode_str(data: &[u8]) {
    let ours = decode_str(data);
    let mut quoted = Vec::with_capacity(data.len() + 2);
    quoted.push(b'"');
    quoted.extend_from_slice(data);
    quoted.push(b'"');
    if let Ok(s) = serde_json::from_slice::<String>(&quoted) {
        assert_eq!(ours.as_deref(), Some(s.as_str()));
    }
}
