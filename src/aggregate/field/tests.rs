use super::*;

#[test]
fn names_and_paths() {
    assert_eq!(Field::parse("tool").unwrap(), Field::Tool);
    assert_eq!(Field::parse("day").unwrap(), Field::Time(Bucket::Day));
    assert_eq!(Field::parse("cost_usd").unwrap(), Field::Usage(Usage::Cost));
    assert_eq!(Field::parse("data.usage.input").unwrap().name(), "data.usage.input");
    assert!(Field::parse("data..x").is_err());
}

#[test]
fn key_order() {
    let mut keys = vec![
        KeyVal::Str("b".into()),
        KeyVal::Num("10".into()),
        KeyVal::Null,
        KeyVal::Num("9".into()),
        KeyVal::Str("a".into()),
        KeyVal::Json("[1]".into()),
        KeyVal::Bool(true),
    ];
    keys.sort();
    assert_eq!(
        keys,
        vec![
            KeyVal::Null,
            KeyVal::Bool(true),
            KeyVal::Num("9".into()),
            KeyVal::Num("10".into()),
            KeyVal::Str("a".into()),
            KeyVal::Str("b".into()),
            KeyVal::Json("[1]".into()),
        ]
    );
}
