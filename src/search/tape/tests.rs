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
