use super::*;
use crate::json::Index;

fn usage(text: &str) -> [u64; 4] {
    let mut idx = Index::new();
    let rec = idx.parse(text.as_bytes()).unwrap();
    usage_counts(Raw(rec.line()))
}

#[test]
fn cached_tokens_are_taken_out_of_the_prompt() {
    let u = r#"{"promptTokenCount":12034,"candidatesTokenCount":58,"cachedContentTokenCount":11008,"thoughtsTokenCount":0,"totalTokenCount":12092}"#;
    assert_eq!(usage(u), [1026, 11008, 58, 0]);
}

#[test]
fn thoughts_are_billed_output_only_when_the_total_counts_them_apart() {
    // Gemini-shaped: total = prompt + candidates + thoughts.
    let apart = r#"{"promptTokenCount":100,"candidatesTokenCount":10,"thoughtsTokenCount":5,"totalTokenCount":115}"#;
    assert_eq!(usage(apart), [100, 0, 15, 5]);
    // OpenAI-compatible: completion tokens (candidates) hold the reasoning.
    let inside = r#"{"promptTokenCount":100,"candidatesTokenCount":10,"thoughtsTokenCount":5,"totalTokenCount":110}"#;
    assert_eq!(usage(inside), [100, 0, 10, 5]);
    let no_total = r#"{"promptTokenCount":100,"candidatesTokenCount":10,"thoughtsTokenCount":5}"#;
    assert_eq!(usage(no_total), [100, 0, 10, 5]);
}

#[test]
fn odd_counters_count_nothing_and_never_underflow() {
    let u =
        r#"{"promptTokenCount":10,"cachedContentTokenCount":50,"candidatesTokenCount":-3,"thoughtsTokenCount":1.5}"#;
    assert_eq!(usage(u), [0, 10, 0, 0]);
    assert_eq!(usage(r#"{"promptTokenCount":"9"}"#), [0, 0, 0, 0]);
}

#[test]
fn a_response_data_is_its_record_with_the_usage_first() {
    let line = r#"{"uuid":"a","usage":{"x":1},"type":"assistant","usageMetadata":{"promptTokenCount":3,"cachedContentTokenCount":1,"candidatesTokenCount":2}}"#;
    let mut idx = Index::new();
    let rec = idx.parse(line.as_bytes()).unwrap();
    let mut state = ReadState::default();
    QwenCode.observe(&rec, &mut state);
    assert_eq!(
        std::str::from_utf8(&state.line_data).unwrap(),
        r#"{"usage":{"input_tokens":2,"cache_read_tokens":1,"output_tokens":2,"reasoning_tokens":0},"uuid":"a","type":"assistant","usageMetadata":{"promptTokenCount":3,"cachedContentTokenCount":1,"candidatesTokenCount":2}}"#
    );
    // A fork's copy makes none.
    let copy = r#"{"uuid":"a","type":"assistant","forkedFrom":{"sessionId":"p","messageUuid":"a"},"usageMetadata":{"promptTokenCount":3}}"#;
    let rec = idx.parse(copy.as_bytes()).unwrap();
    QwenCode.observe(&rec, &mut state);
    assert!(state.line_data.is_empty());
}

#[test]
fn qwen_records_are_told_from_claude_transcript_lines() {
    let mut idx = Index::new();
    let qwen = r#"{"uuid":"u","sessionId":"s","type":"user","message":{"role":"user","parts":[{"text":"hi"}]}}"#;
    assert_eq!(LineKind::of(&idx.parse(qwen.as_bytes()).unwrap()), LineKind::Format(&FORMAT));
    let claude = r#"{"uuid":"u","sessionId":"s","type":"user","message":{"role":"user","content":"hi"}}"#;
    assert_eq!(
        LineKind::of(&idx.parse(claude.as_bytes()).unwrap()),
        LineKind::Format(&crate::format::claude_transcript::FORMAT)
    );
}

#[test]
fn project_of_path_reads_the_layout() {
    assert_eq!(QwenCode.project_of_path("/h/.qwen/projects/-a-b/chats/s.jsonl").as_deref(), Some("-a-b"));
    assert_eq!(QwenCode.project_of_path("/h/.qwen/projects/-a-b/s.jsonl"), None);
}
