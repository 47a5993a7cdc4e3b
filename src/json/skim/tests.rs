use super::*;
use proptest::prelude::*;

fn end_by_serde(s: &str) -> usize {
    let mut de = serde_json::Deserializer::from_str(s).into_iter::<serde_json::Value>();
    de.next().unwrap().unwrap();
    de.byte_offset()
}

#[test]
fn finds_the_closing_bracket() {
    let cases = [
        r#"{}"#,
        r#"[]"#,
        r#"{"a":"}"}"#,
        r#"{"a":"\"}"}"#,
        r#"{"a":"\\"}"#,
        r#"{"a":"\\\"}\\"}"#,
        r#"{"a":[1,{"b":"]]]"}],"c":"{{{"}"#,
        r#"{"x":"caf\u00e9 \ud83d\ude80 \\\\\\\" ]"}"#,
    ];
    for c in cases {
        let line = format!("{c} tail");
        assert_eq!(skip_container(line.as_bytes(), 0), Ok(c.len()), "{c}");
    }
}

#[test]
fn across_block_boundaries() {
    // Escapes, quotes and brackets straddling every offset of a block.
    for pad in 0..140 {
        for tricky in [r#"\\"#, r#"\""#, r#"\\\""#, r#"]}"#, r#"\u00e9"#] {
            let s = format!(r#"{{"k":"{}{}","l":[{{}}]}}"#, "x".repeat(pad), tricky);
            assert_eq!(skip_container(s.as_bytes(), 0), Ok(s.len()), "{s}");
        }
    }
}

#[test]
fn torn_and_unbalanced() {
    assert_eq!(skip_container(br#"{"a":"x"#, 0), Err(ParseError::UnexpectedEnd));
    assert_eq!(skip_container(br#"{"a":[1,2"#, 0), Err(ParseError::UnexpectedEnd));
    assert_eq!(skip_container(br#"{"a":"\"}"#, 0), Err(ParseError::UnexpectedEnd));
    assert!(matches!(skip_container(b"}", 0), Err(ParseError::Syntax(0, _))));
}

/// Every line of every fixture file: the skim indexes valid lines exactly
/// as the validating parse does, and refuses what it refuses (all the
/// fixtures' damage is structural).
#[test]
fn skim_agrees_with_parse_on_the_fixtures() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut files = vec![];
    let mut dirs = vec![root];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                files.push(p);
            }
        }
    }
    assert!(files.len() > 10);
    let (mut a, mut b) = (crate::json::Index::new(), crate::json::Index::new());
    let mut lines = 0;
    for f in files {
        for line in std::fs::read(&f).unwrap().split(|&c| c == b'\n') {
            lines += 1;
            let members = |r: crate::json::Record<'_>| {
                r.members().map(|(k, v)| (k.to_vec(), v.bytes().to_vec())).collect::<Vec<_>>()
            };
            match (a.parse(line), b.skim(line)) {
                (Ok(p), Ok(s)) => {
                    assert_eq!(members(p), members(s), "{}", f.display());
                    assert_eq!(p.close(), s.close());
                    assert!(p.is_validated() && !s.is_validated());
                }
                (Err(p), Err(s)) => assert_eq!(p, s, "{}", f.display()),
                (p, s) => panic!("{}: parse {:?} skim {:?}", f.display(), p.is_ok(), s.is_ok()),
            }
        }
    }
    assert!(lines > 80);
}

fn json_value() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::Bool),
        any::<i64>().prop_map(|n| serde_json::json!(n)),
        "[\\\\\"{}\\[\\]a-z\u{e9}\u{1F680} ]{0,80}".prop_map(serde_json::Value::String),
    ];
    leaf.prop_recursive(5, 64, 8, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..8).prop_map(serde_json::Value::Array),
            proptest::collection::btree_map("[a-z\"\\\\{]{0,6}", inner, 0..8)
                .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #[test]
    fn agrees_with_serde_on_valid_json(v in json_value(), ascii in any::<bool>()) {
        let wrapped = serde_json::json!({ "data": v });
        let mut s = serde_json::to_string(&wrapped).unwrap();
        if ascii {
            // Canonical writers escape all non-ASCII.
            s = s.chars().map(|c| if c.is_ascii() { c.to_string() } else {
                c.encode_utf16(&mut [0; 2]).iter().map(|u| format!("\\u{u:04x}")).collect()
            }).collect();
        }
        let end = end_by_serde(&s);
        prop_assert_eq!(skip_container(s.as_bytes(), 0), Ok(end));
        // Every classifier skims alike.
        let b = s.as_bytes();
        prop_assert_eq!(skip(crate::json::simd::Scalar, b, 0), Ok(end));
        prop_assert_eq!(skip(crate::json::simd::Swar::new(), b, 0), Ok(end));
        prop_assert_eq!(skip(crate::json::simd::Baseline::new(), b, 0), Ok(end));
    }

    #[test]
    fn never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..300), start in 0usize..10) {
        let _ = skip_container(&bytes, start);
    }
}
