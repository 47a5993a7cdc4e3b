use super::*;

fn index(text: &str) -> (tempfile::TempDir, Arc<FileIndex>) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pre_tool_use.json");
    std::fs::write(&path, text).unwrap();
    let ix = index_of(&path, &Memo::new());
    (dir, ix)
}

#[test]
fn naive_times_are_no_time() {
    let mut idx = Index::new();
    let cases = [
        (r#"{"timestamp":"2026-02-03T10:00:00.123456"}"#, None),
        (r#"{"timestamp":"2026-02-03 10:00:00","logged_at":"2026-02-03T09:00:00Z"}"#, Some("2026-02-03T09:00:00Z")),
        (r#"{"logged_at":"2026-02-03T10:00:00+01:00"}"#, Some("2026-02-03T09:00:00Z")),
        (r#"{"timestamp":1770000000}"#, None),
    ];
    for (line, want) in cases {
        let rec = idx.parse(line.as_bytes()).unwrap();
        assert_eq!(time_of(&rec).map(time::format_timestamp).as_deref(), want, "{line}");
    }
}

#[test]
fn runs_follow_each_sessions_consecutive_elements() {
    let el = |s: &str| format!(r#"{{"session_id":"{s}","hook_event_name":"PreToolUse"}}"#);
    let text = format!(
        "[{},\n{},\n{},\n{},\n{{\"sessionId\":\"d\",\"hookEventName\":\"Stop\"}},\n{},\n7]",
        el("a"),
        el("a"),
        el("b"),
        el("a"),
        el("a")
    );
    let (_dir, ix) = index(&text);
    let runs = |s: &str| ix.sessions[s].runs.iter().map(|r| (r.index, r.count, r.line)).collect::<Vec<_>>();
    // The droid element between the last two "a" elements splits their run.
    assert_eq!(runs("a"), [(1, 2, 1), (4, 1, 4), (6, 1, 6)]);
    assert_eq!(runs("b"), [(3, 1, 3)]);
    assert_eq!(ix.sessions["a"].scan.events, 4);
    assert_eq!(ix.droid, Some((1, 5)));
    assert_eq!(ix.bad, [(7, 7, "not a JSON object".to_owned())]);
    assert!(ix.broken.is_none());
}

#[test]
fn hook_log_names() {
    assert!(is_hook_log_name("post_tool_use_failure.json") && is_hook_log_name("status_line.json"));
    assert!(!is_hook_log_name(CHAT) && !is_hook_log_name("pre_tool_use.jsonl"));
}
