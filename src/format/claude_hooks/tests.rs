use super::*;

#[test]
fn names_and_order() {
    assert_eq!(canonical("Stop"), "prompt:complete");
    assert_eq!(canonical("Weird"), "hook:Weird");
    let mut f = vec!["_claude_Z.jsonl".to_string(), "_claude_Stop.jsonl".into(), "_claude_session_starts.jsonl".into()];
    sort_files(&mut f);
    assert_eq!(f, ["_claude_session_starts.jsonl", "_claude_Stop.jsonl", "_claude_Z.jsonl"]);
    assert!(!is_event_file("_claude_AssistantResponse.jsonl") && !is_event_file("last_claude_Stop.json"));
}
