use super::*;

#[test]
fn fields_are_the_record_keys() {
    let rec =
        serde_json::to_value(SessionRecord::new("id".into(), &crate::format::amplifier::FORMAT, "/p".into())).unwrap();
    let keys: Vec<&str> = rec.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, FIELDS);
}

#[test]
fn write_json_is_serde_json() {
    let mut full = SessionRecord::new("s\"1\u{1}é".into(), &crate::format::claude_hooks::FORMAT, "/p/a b\\c".into());
    full.project = Some("-p".into());
    full.recipe_step = Some(serde_json::json!({"b": [1.5, null], "a": "x"}));
    full.bytes = 123;
    full.files = Some(vec!["_claude_Stop.jsonl".into(), "x\ny".into()]);
    full.transcript = Some(false);
    full.events = Some(7);
    full.tags = Some(vec![]);
    let bare = SessionRecord::new("id".into(), &crate::format::amplifier::FORMAT, "/p".into());
    for r in [full, bare] {
        let mut ours = vec![];
        r.write_json(&mut ours);
        assert_eq!(String::from_utf8(ours).unwrap(), serde_json::to_string(&r).unwrap());
    }
}

#[test]
fn newest_first_with_ties_by_id_then_path() {
    let rec = |id: &str, path: &str, start: Option<&str>| SessionRecord {
        started_at: start.map(str::to_owned),
        ..SessionRecord::new(id.into(), &crate::format::amplifier::FORMAT, path.into())
    };
    let mut v = vec![
        rec("b", "/2", None),
        rec("c", "/1", Some("2026-01-01T00:00:00Z")),
        rec("a", "/9", None),
        rec("b", "/1", Some("2026-01-02T00:00:00+00:00")),
        rec("a", "/3", Some("2026-01-01T00:00:00.000+00:00")),
        rec("b", "/0", None),
    ];
    sort_newest_first(&mut v);
    let got: Vec<(&str, &str)> = v.iter().map(|r| (r.session.as_str(), r.path.as_str())).collect();
    assert_eq!(got, [("b", "/1"), ("a", "/3"), ("c", "/1"), ("a", "/9"), ("b", "/0"), ("b", "/2")]);
}

#[test]
fn unsafe_names() {
    assert!(unsafe_name("..") && unsafe_name("a/b") && unsafe_name("a\\b") && unsafe_name("a\0"));
    assert!(unsafe_name("") && unsafe_name("."));
    assert!(!unsafe_name("abc-1.2"));
}

#[test]
fn slugs_follow_amplifier() {
    assert_eq!(slug_of("/home/u/my-api"), "-home-u-my-api");
    assert_eq!(slug_of("C:\\Users\\dev\\tools"), "-C-Users-dev-tools");
    assert_eq!(slug_of("/"), "-");
    assert_eq!(slug_of(""), "default");
    assert_eq!(slug_of("rel/dir"), "-rel-dir");
}
