use super::*;

fn segs(s: &str) -> Vec<String> {
    Path::parse(s).unwrap_or_else(|e| panic!("{e}")).segments().to_vec()
}

#[test]
fn one_grammar() {
    assert_eq!(segs("data.usage.output_tokens"), ["data", "usage", "output_tokens"]);
    assert_eq!(segs("data.raw.messages[0].role"), ["data", "raw", "messages", "0", "role"]);
    assert_eq!(segs("data.raw.messages.0.role"), ["data", "raw", "messages", "0", "role"]);
    assert_eq!(segs("a[1][22]"), ["a", "1", "22"]);
    assert_eq!(segs(".event"), ["event"]);
    assert_eq!(segs("data.\"odd.key\""), ["data", "odd.key"]);
    assert_eq!(segs("data.\"a b\"[2]"), ["data", "a b", "2"]);
    assert_eq!(segs("data.\"\\u00e9\\n\""), ["data", "é\n"]);
    assert_eq!(segs("data.é.x-y:z/$@#*"), ["data", "é", "x-y:z/$@#*"]);
    assert_eq!(segs(" data.x "), ["data", "x"]);
    assert_eq!(Path::parse("a[0].b").unwrap().as_str(), "a[0].b");
    assert_eq!(Path::parse("a[0].b").unwrap().dotted(), "a.0.b");
    let keys = |k: &[&str]| k.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let p = Path::from_keys(&keys(&["data", "a b", "0", "", "x\"y"]));
    assert_eq!(p.as_str(), r#"data."a b".0.""."x\"y""#);
    assert_eq!(Path::parse(p.as_str()).unwrap(), p);
}

proptest::proptest! {
    #[test]
    fn parse_never_panics_and_keys_read_back(s in "\\PC{0,24}", keys in proptest::collection::vec("\\PC{0,6}", 1..5)) {
        if let Err(e) = Path::parse(&s) {
            proptest::prop_assert!(e.starts_with("invalid field path"));
        }
        let p = Path::from_keys(&keys);
        proptest::prop_assert_eq!(Path::parse(p.as_str()).map(|q| q.segments().to_vec()), Ok(keys));
    }
}

#[test]
fn errors_name_the_column() {
    let e = |s: &str| Path::parse(s).unwrap_err();
    assert_eq!(e("data..x"), "invalid field path \"data..x\": expected a field name after '.' at column 6");
    assert_eq!(e("data."), "invalid field path \"data.\": expected a field name after '.' at column 6");
    assert_eq!(e("a[x]"), "invalid field path \"a[x]\": expected an array index like [0] at column 2");
    assert_eq!(e("a[0"), "invalid field path \"a[0\": expected an array index like [0] at column 2");
    assert_eq!(e("[0]"), "invalid field path \"[0]\": expected a field name at column 1");
    assert_eq!(e("a b"), "invalid field path \"a b\": unexpected character ' ' (quote such a key: \"…\") at column 2");
    assert_eq!(
        e("a[0]b"),
        "invalid field path \"a[0]b\": unexpected character 'b' (quote such a key: \"…\") at column 5"
    );
    assert_eq!(e("a.\"b"), "invalid field path \"a.\\\"b\": unterminated string at column 3");
    assert_eq!(e(""), "invalid field path \"\": empty (use a path like data.tool_name)");
}
