use super::*;

#[test]
fn matching() {
    let s = SessionId::new("abcdef12").unwrap();
    assert!(s.matches("abcdef12-0000") && s.matches("abcdef12"));
    let short = SessionId::new("abc").unwrap();
    assert!(short.matches("abc") && !short.matches("abcdef12"));
    for bad in ["../x", "a/b", "..", ".", "/etc", "a\\b", "a\0b"] {
        assert_eq!(SessionId::new(bad).unwrap_err(), format!("--session: unsafe session id {bad:?}"));
    }
}

#[test]
fn judgements() {
    let ids =
        [("abcdef12-1", "p1"), ("abcdef12-2", "p2"), ("abc", "p3"), ("x-bb5a-4483-y", "p4"), ("abcdef12-1", "p5")];
    let judge = |v: &str| SessionId::new(v).unwrap().judge(&ids);
    let one = |id: &str| Judgement::Selects(vec![id.to_owned()]);
    assert_eq!(judge("abc"), one("abc"));
    assert_eq!(judge("abcdef12-1"), one("abcdef12-1"));
    assert_eq!(judge("x-bb5a-4"), one("x-bb5a-4483-y"));
    assert_eq!(
        judge("abcdef12-"),
        Judgement::Refused(
            "session \"abcdef12-\" is ambiguous; candidates:\n  abcdef12-1 (p1)\n  abcdef12-1 (p5)\n  abcdef12-2 (p2)"
                .into()
        )
    );
    assert_eq!(judge("zzzzzzzz"), Judgement::Nothing);
    assert!(
        matches!(judge("bb5a-4483"), Judgement::Refused(m) if m.contains("it is part of:\n  x-bb5a-4483-y (p4)\n"))
    );
    assert!(
        matches!(judge("abcd"), Judgement::Refused(m) if m.starts_with("session \"abcd\": no exact match, and a prefix needs at least 8 characters; ids starting with it:\n  abcdef12-1 (p1)\n  abcdef12-1 (p5)\n  abcdef12-2 (p2)"))
    );
    assert_eq!(
        judge("zz"),
        Judgement::Refused("session \"zz\": no exact match, and a prefix needs at least 8 characters".into())
    );
}
