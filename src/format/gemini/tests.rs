use super::*;
use crate::json::Index;

fn usage(text: &str) -> [u64; 4] {
    let mut idx = Index::new();
    let rec = idx.parse(text.as_bytes()).unwrap();
    usage_counts(Raw(rec.line()))
}

#[test]
fn cached_tokens_are_part_of_the_input_and_thoughts_are_billed_output() {
    let t = r#"{"input":12000,"output":40,"cached":8000,"thoughts":150,"tool":0,"total":12190}"#;
    assert_eq!(usage(t), [4000, 8000, 190, 150]);
    // The tool-use prompt is billed as input.
    assert_eq!(usage(r#"{"input":100,"output":1,"cached":0,"thoughts":0,"tool":7}"#), [107, 0, 1, 0]);
}

#[test]
fn odd_counters_count_nothing_and_never_underflow() {
    assert_eq!(usage(r#"{"input":10,"cached":50,"output":-3,"thoughts":1.5}"#), [0, 10, 0, 0]);
    assert_eq!(usage(r#"{"input":"9"}"#), [0, 0, 0, 0]);
}

fn mutation(line: &str) -> String {
    let mut idx = Index::new();
    let rec = idx.parse(line.as_bytes()).unwrap();
    format!("{:?}", GeminiCli.mutation(&rec))
}

#[test]
fn each_line_says_what_it_does_to_the_list() {
    assert_eq!(
        mutation(r#"{"id":"g-1","type":"gemini","tokens":{"input":1}}"#),
        r#"Message { id: "g-1", billed: true }"#
    );
    assert_eq!(mutation(r#"{"id":"u-1","type":"user","content":"x"}"#), r#"Message { id: "u-1", billed: false }"#);
    assert_eq!(mutation(r#"{"$rewindTo":"u-2"}"#), r#"RewindTo("u-2")"#);
    let line = r#"{"$set":{"messages":[{"id":"u","type":"user"} , {"id":"g"}]}}"#;
    let mut idx = Index::new();
    let rec = idx.parse(line.as_bytes()).unwrap();
    let Mutation::Replace(list) = GeminiCli.mutation(&rec) else { panic!("not a replace") };
    let members: Vec<&[u8]> = list.items().map(|m| m.bytes()).collect();
    assert_eq!(members, [&br#"{"id":"u","type":"user"}"#[..], br#"{"id":"g"}"#]);
    // Each member is the line's own bytes (its site is its place in the line).
    assert_eq!(members[1].as_ptr() as usize - line.as_ptr() as usize, line.find(r#"{"id":"g"}"#).unwrap());
    assert_eq!(mutation(r#"{"$set":{"lastUpdated":"x"}}"#), "Record");
    assert_eq!(mutation(r#"{"sessionId":"s","projectHash":"h"}"#), "Record");
}

fn events(line: &str) -> Vec<String> {
    let mut idx = Index::new();
    let rec = idx.parse(line.as_bytes()).unwrap();
    let mut state = ReadState::default();
    GeminiCli.observe(&rec, &mut state);
    let mut parts = Vec::new();
    GeminiCli.parts(&rec, &mut state, &mut parts);
    parts.iter().map(|&p| GeminiCli.name(&rec, p, &state).into_owned()).collect()
}

#[test]
fn a_message_with_tool_calls_is_its_response_then_each_call_and_its_end() {
    let line = r#"{"id":"g","type":"gemini","content":"","tokens":{"input":1},"toolCalls":[{"id":"a","name":"ls","status":"executing"},{"id":"b","name":"ls","status":"success"},{"id":"c","name":"sh","result":[{"functionResponse":{"response":{"error":"boom"}}}]}]}"#;
    assert_eq!(events(line), ["llm:response", "tool:pre", "tool:pre", "tool:post", "tool:pre", "tool:error"]);
    assert_eq!(events(r#"{"id":"g","type":"gemini","content":"hi"}"#), ["llm:content"]);
    assert_eq!(events(r#"{"id":"u","type":"user","content":[{"text":"hi"}]}"#), ["prompt:submit"]);
    assert_eq!(events(r#"{"id":"i","type":"info","content":"x"}"#), ["gemini:info"]);
    assert_eq!(events(r#"{"sessionId":"s","projectHash":"h","startTime":"t"}"#), ["session:start"]);
    assert_eq!(events(r#"{"$set":{"summary":"s"}}"#), ["gemini:set"]);
    assert_eq!(events(r#"{"$rewindTo":"u"}"#), ["gemini:rewind"]);
}

#[test]
fn gemini_records_are_told_from_other_writers_lines() {
    let mut idx = Index::new();
    for line in [
        r#"{"sessionId":"s","projectHash":"h","startTime":"t"}"#,
        r#"{"id":"u","type":"user","content":"x","timestamp":"t"}"#,
        r#"{"$set":{"lastUpdated":"t"}}"#,
        r#"{"$rewindTo":"u"}"#,
    ] {
        assert_eq!(LineKind::of(&idx.parse(line.as_bytes()).unwrap()), LineKind::Format(&FORMAT), "{line}");
    }
    let claude = r#"{"uuid":"u","sessionId":"s","type":"user","message":{"role":"user","content":"hi"}}"#;
    assert_ne!(LineKind::of(&idx.parse(claude.as_bytes()).unwrap()), LineKind::Format(&FORMAT));
}
