use super::*;

fn parse(s: &[u8]) -> Result<Vec<(String, String)>> {
    let mut idx = Index::new();
    let rec = idx.parse(s)?;
    Ok(rec
        .members()
        .map(|(k, v)| (String::from_utf8_lossy(k).into_owned(), String::from_utf8_lossy(v.0).into_owned()))
        .collect())
}

fn serde_ok(s: &[u8]) -> bool {
    matches!(serde_json::from_slice::<serde_json::Value>(s), Ok(serde_json::Value::Object(_)))
}

#[test]
fn canonical_and_spaced_lines_index_the_same_members() {
    let a = parse(br#"{"data":{"x":[1,{"y":"z"}]},"event":"tool:pre","timestamp":"t","workspace":"w"}"#).unwrap();
    let b = parse(br#" { "event" : "tool:pre", "workspace": "w", "timestamp": "t", "data": {"x": [1, {"y": "z"}]} } "#)
        .unwrap();
    let sorted = |mut v: Vec<(String, String)>| {
        v.sort();
        v.into_iter().map(|(k, v)| (k, v.replace(' ', ""))).collect::<Vec<_>>()
    };
    assert_eq!(sorted(a), sorted(b));
}

#[test]
fn reports_each_kind_of_damage() {
    let cases: &[(&[u8], ParseError)] = &[
        (b"", ParseError::Blank),
        (b"   \r", ParseError::Blank),
        (b"[1,2,3]", ParseError::NotObject),
        (b"\"x\"", ParseError::NotObject),
        (b"{\"data\":{\"x\":\"ab", ParseError::UnexpectedEnd),
        (b"{\"a\":\"\xff\"}", ParseError::InvalidUtf8(6)),
        (b"{\"a\":1}{\"a\":2}", ParseError::Syntax(7, "trailing characters after the record")),
        (b"{\"a\":\"x{\"data\":1}", ParseError::Syntax(9, "expected ',' or '}'")),
        (b"{\"a\":01}", ParseError::Syntax(6, "expected ',' or '}'")),
        (b"{\"a\":\"\\x\"}", ParseError::Syntax(6, "invalid escape")),
        (b"{\"a\":\"\\udc00\"}", ParseError::Syntax(6, "lone surrogate in \\u escape")),
        (b"{\"a\":\"\x01\"}", ParseError::Syntax(6, "control character in string")),
        (b"{\"a\":tru}", ParseError::Syntax(5, "expected a value")),
        (b"{\"a\":[1,]}", ParseError::Syntax(8, "expected a value")),
        (b"{\"a\" 1}", ParseError::Syntax(5, "expected ':'")),
    ];
    for (line, want) in cases {
        assert_eq!(parse(line).unwrap_err(), *want, "{}", String::from_utf8_lossy(line));
        assert!(!serde_ok(line), "serde accepts {}", String::from_utf8_lossy(line));
    }
}

#[test]
fn depth_limit_matches_serde_json() {
    for depth in [120, 126, 127, 128, 200] {
        let line = format!("{}1{}", "{\"a\":".repeat(depth), "}".repeat(depth));
        assert_eq!(parse(line.as_bytes()).is_ok(), serde_ok(line.as_bytes()), "depth {depth}");
    }
}

#[test]
fn a_validated_line_knows_its_depth() {
    let mut idx = Index::new();
    for (line, depth) in
        [("{}", 1), (r#"{"a":1,"b":"[{"}"#, 1), (r#"{"a":[]}"#, 2), (r#"{"a":{"b":[1,{"c":[]}]},"d":[[]]}"#, 5)]
    {
        assert_eq!(idx.parse(line.as_bytes()).unwrap().depth(), Some(depth), "{line}");
    }
    let deepest = format!("{}{}", "{\"a\":".repeat(MAX_DEPTH - 1), "[]".to_owned() + &"}".repeat(MAX_DEPTH - 1));
    assert_eq!(idx.parse(deepest.as_bytes()).unwrap().depth(), Some(MAX_DEPTH));
    assert_eq!(idx.skim(br#"{"a":[[]]}"#).unwrap().depth(), None, "a skim does not walk containers");
}

#[test]
fn decodes_escapes_and_surrogate_pairs() {
    let raw = br#"caf\u00e9 \ud83d\ude80 \"q\" a\\b\n\t\u65e5"#;
    assert_eq!(decode_str(raw).unwrap(), "café 🚀 \"q\" a\\b\n\t日");
    assert!(matches!(decode_str(b"plain"), Some(Cow::Borrowed("plain"))));
}

#[test]
fn get_in_indexes_one_nested_object_per_line() {
    let mut idx = Index::new();
    let line = br#"{"message":{"id":"a","id":"b","m\u006fdel":"x","content":[1]},"other":{"id":"c"},"s":"t"}"#;
    let rec = idx.parse(line).unwrap();
    let get = |top: &str, k: &str| rec.get_in(top, k).map(|v| v.bytes().to_vec());
    assert_eq!(get("message", "id").as_deref(), Some(&b"\"b\""[..]), "the last duplicate");
    assert_eq!(get("message", "model").as_deref(), Some(&b"\"x\""[..]), "an escaped key");
    assert_eq!(get("other", "id").as_deref(), Some(&b"\"c\""[..]), "another object: indexed anew");
    assert_eq!(get("message", "content").as_deref(), Some(&b"[1]"[..]), "and back");
    assert_eq!(get("message", "absent"), None);
    assert_eq!(get("s", "id"), None, "not an object");
    assert_eq!(get("absent", "id"), None);
    // A new line forgets the last one's index.
    let rec = idx.parse(br#"{"message":{"id":"z"}}"#).unwrap();
    assert_eq!(rec.get_in("message", "id").map(|v| v.bytes().to_vec()), Some(b"\"z\"".to_vec()));
}

#[test]
fn key_tags_never_hide_a_match() {
    let cases: [(&[u8], &str); 4] = [(b"event", "event"), (br"\u0065vent", "event"), (b"", ""), (br"a\\b", "a\\b")];
    for (raw, key) in cases {
        let t = key_tag(raw);
        assert!(t == key_tag(key.as_bytes()) || t == ESCAPED, "{raw:?}");
        assert!(key_eq(raw, key), "{raw:?}");
    }
    assert_ne!(key_tag(b"event"), key_tag(b"even"));
    assert_ne!(key_tag(b"event"), key_tag(b"fvent"));
}

#[test]
fn nested_lookups() {
    let mut idx = Index::new();
    let line = br#"{"data":{"usage":{"output_tokens":1200},"list":[{"a":1},{"a":"two"}],"k\u0065y":true},"event":"e"}"#;
    let rec = idx.parse(line).unwrap();
    let p = |s: &str| rec.path(&Path::parse(s).unwrap());
    assert_eq!(p("data.usage.output_tokens").unwrap().as_f64(), Some(1200.0));
    assert_eq!(p("data.list.1.a").unwrap().as_str().unwrap(), "two");
    assert_eq!(p("data.key").unwrap().as_bool(), Some(true));
    assert_eq!(p("data.missing"), None);
    assert_eq!(p("data.list.5"), None);
    assert_eq!(rec.get_str("event").unwrap(), "e");
}
