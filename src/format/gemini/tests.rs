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

/// Each part's tokens, model and message key as the index reads them
/// (`line_*`) and as its data says (what a piped record of it reads).
fn both_ways(line: &str) -> Vec<(String, String)> {
    let mut idx = Index::new();
    let rec = idx.parse(line.as_bytes()).unwrap();
    let (mut state, mut parts) = (ReadState::default(), vec![]);
    GeminiCli.observe(&rec, &mut state);
    GeminiCli.parts(&rec, &mut state, &mut parts);
    let g = GeminiCli;
    let text = |t: [Option<Raw<'_>>; 5], m: Option<Raw<'_>>| format!("{:?} {:?}", t.map(|r| r.map(|r| r.bytes())), m);
    parts
        .iter()
        .map(|&p| {
            let data = g.data(&rec, p, &state);
            let (mut k1, mut k2) = (String::new(), String::new());
            let by_index = (g.line_message_key(&rec, p, data, &mut k1), g.line_tokens(&rec, p, data));
            let by_data = (data.is_some_and(|d| g.message_key(d, &mut k2)), data.map_or([None; 5], |d| g.tokens(d)));
            (
                format!("{} {k1} {}", by_index.0, text(by_index.1, g.line_model(&rec, p, data))),
                format!("{} {k2} {}", by_data.0, text(by_data.1, data.and_then(|d| g.model(d)))),
            )
        })
        .collect()
}

#[test]
fn the_index_reads_a_message_as_its_data_does() {
    let lines = [
        r#"{"id":"g-1","timestamp":"t","type":"gemini","content":"x","model":"m","tokens":{"input":9,"cached":2},"toolCalls":[{"id":"c","name":"n","status":"success","usage":{"input_tokens":3}}]}"#,
        r#"{"id":"g-1","type":"gemini","model":"a","tokens":{"input":1},"usage":{"input_tokens":5},"model":"b","id":"g-2"}"#,
        r#"{"id":"g-1","type":"gemini","model":7,"tokens":[1]}"#,
        r#"{"id":"u-1","type":"user","content":"x","usage":{"output_tokens":4},"timestamp":"t"}"#,
        r#"{"type":"gemini","tokens":{"output":1}}"#,
        r#"{"$set":{"lastUpdated":"t"}}"#,
    ];
    for line in lines {
        for (by_index, by_data) in both_ways(line) {
            assert_eq!(by_index, by_data, "{line}");
        }
    }
    // A response: its made usage, its model, its key.
    let first = &both_ways(lines[0])[0].0;
    assert_eq!(first, r#"true g-1 t [Some([55]), Some([48]), Some([50]), None, None] Some(Raw("m"))"#);
}
