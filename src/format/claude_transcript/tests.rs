use super::*;
use crate::json::Index;

fn events(line: &str) -> Vec<(u32, String)> {
    let mut idx = Index::new();
    let rec = idx.parse(line.as_bytes()).unwrap();
    let mut state = ReadState::default();
    let mut parts = vec![];
    ClaudeTranscript.observe(&rec, &mut state);
    ClaudeTranscript.parts(&rec, &mut state, &mut parts);
    parts.into_iter().map(|p| (p, ClaudeTranscript.name(&rec, p, &state).into_owned())).collect()
}

/// JSON values built from the transcript's own vocabulary (keys and
/// strings), nested, with values of every kind in every place.
fn shaped() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
    use proptest::prelude::*;
    use serde_json::Value;
    let words = prop::sample::select(VOCABULARY.to_vec());
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        words.clone().prop_map(|w| Value::String(w.into())),
        Just(Value::String("2026-03-01T00:00:00.000Z".into())),
    ];
    leaf.prop_recursive(5, 64, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((words.clone(), inner), 0..8)
                .prop_map(|kv| Value::Object(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect())),
        ]
    })
}

proptest::proptest! {
    /// No line, however shaped, makes the writer panic, and every part it
    /// yields has a name; a line it accepts yields at least one event
    /// unless it is a user line of tool results only.
    #[test]
    fn any_line_is_read_without_panic(v in shaped()) {
        let line = serde_json::to_vec(&v).unwrap();
        let mut idx = Index::new();
        let Ok(rec) = idx.parse(&line) else { return Ok(()) };
        let t = ClaudeTranscript;
        let _ = t.claims(&rec);
        let _ = t.accept(&rec);
        let mut state = ReadState::default();
        let mut parts = vec![];
        t.observe(&rec, &mut state);
        t.parts(&rec, &mut state, &mut parts);
        for &p in &parts {
            let _ = t.untimed_by_design(&t.name(&rec, p, &state));
            proptest::prop_assert!(!t.name(&rec, p, &state).is_empty());
            let _ = (t.name_raw(&rec, p), t.original(&rec, p), t.workspace(&rec), t.timestamp(&rec));
            let data = t.data(&rec, p, &state);
            let _ = (t.line_tokens(&rec, p, data), t.line_model(&rec, p, data));
            let _ = t.line_message_key(&rec, p, data, &mut String::new());
            if let Some(d) = data {
                let _ = (t.tool_name(d), t.call_key(d), t.failed(d), t.model(d), t.tokens(d));
                let _ = (t.file_path(d), t.session_id(d), t.message_key(d, &mut String::new()));
            }
        }
    }
}

#[test]
fn a_progress_line_yields_the_subagent_response_it_carries() {
    let line = r#"{"type":"progress","sessionId":"s","timestamp":"2026-03-01T00:00:00.000Z","data":{"type":"agent_progress","message":{"type":"assistant","requestId":"r","message":{"id":"m","model":"claude-x","content":[],"usage":{"input_tokens":1}}}}}"#;
    let mut idx = Index::new();
    let rec = idx.parse(line.as_bytes()).unwrap();
    let mut state = ReadState::default();
    let t = ClaudeTranscript;
    // Observed, then split into parts, as the engine reads each line.
    let named = |state: &mut ReadState| {
        let mut parts = vec![];
        t.observe(&rec, state);
        t.parts(&rec, state, &mut parts);
        parts.into_iter().map(|p| (p, t.name(&rec, p, state).into_owned())).collect::<Vec<_>>()
    };
    let progress = (0, "progress:agent_progress".to_string());
    assert_eq!(named(&mut state), [progress.clone(), (SUBAGENT, "llm:response".to_string())]);
    // The same message again: a copy.
    assert_eq!(named(&mut state), [progress, (SUBAGENT_COPY, "llm:content".to_string())]);
    let data = t.data(&rec, SUBAGENT, &state);
    let mut key = String::new();
    assert!(t.line_message_key(&rec, SUBAGENT, data, &mut key));
    assert_eq!(key, "m\u{0}r");
    assert_eq!(t.line_model(&rec, SUBAGENT, data).and_then(|m| m.as_str()).as_deref(), Some("claude-x"));
    // A progress line without an assistant message is only itself.
    assert_eq!(
        events(r#"{"type":"progress","data":{"type":"bash_progress"}}"#),
        [(0, "progress:bash_progress".to_string())]
    );
}

#[test]
fn a_tool_result_is_its_call_s_tool() {
    let call = r#"{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"a","name":"Read","input":{}}]}}"#;
    let mut idx = Index::new();
    let rec = idx.parse(call.as_bytes()).unwrap();
    let mut state = ReadState::default();
    ClaudeTranscript.observe(&rec, &mut state);
    assert_eq!(state.tool_of("a").map(|t| t.bytes()), Some(&b"\"Read\""[..]));
    assert_eq!(state.tool_of("b"), None);
    assert!(ClaudeTranscript.starts_calls(call.as_bytes()));
    assert!(!ClaudeTranscript.starts_calls(br#"{"type":"tool_result","tool_use_id":"a"}"#));
}

#[test]
fn folder_rule() {
    assert_eq!(project_folder("/home/u/my.app_x"), "-home-u-my-app-x");
    assert_eq!(project_folder("/srv/a-b"), "-srv-a-b");
}

#[test]
fn a_line_yields_its_events() {
    let prompt = r#"{"type":"user","sessionId":"s","message":{"role":"user","content":"hi"}}"#;
    assert_eq!(events(prompt), [(0, "prompt:submit".to_string())]);
    let results = r#"{"type":"user","sessionId":"s","message":{"role":"user","content":[
            {"type":"tool_result","tool_use_id":"a","content":"ok"},
            {"type":"tool_result","tool_use_id":"b","content":"no","is_error":true}]}}"#
        .replace('\n', "");
    assert_eq!(events(&results), [(2, "tool:post".to_string()), (3, "tool:error".to_string())]);
    let call =
        r#"{"type":"assistant","sessionId":"s","requestId":"r","message":{"id":"m","model":"claude-x","content":[
            {"type":"text","text":"t"},{"type":"tool_use","id":"a","name":"Read","input":{}}]}}"#
            .replace('\n', "");
    assert_eq!(events(&call), [(0, "llm:response".to_string()), (3, "tool:pre".to_string())]);
    let meta = r#"{"type":"user","isMeta":true,"sessionId":"s","message":{"role":"user","content":"x"}}"#;
    assert_eq!(events(meta), [(0, "transcript:meta".to_string())]);
    let boundary = r#"{"type":"system","subtype":"compact_boundary","sessionId":"s"}"#;
    assert_eq!(events(boundary), [(0, "context:compaction".to_string())]);
    assert_eq!(events(r#"{"type":"summary","summary":"x"}"#), [(0, "transcript:summary".to_string())]);
}

#[test]
fn later_lines_of_a_message_continue_it() {
    let line = r#"{"type":"assistant","sessionId":"s","requestId":"r","message":{"id":"m","model":"c","content":[{"type":"text","text":"t"}]}}"#;
    let mut idx = Index::new();
    let rec = idx.parse(line.as_bytes()).unwrap();
    let mut state = ReadState::default();
    let (mut a, mut b) = (vec![], vec![]);
    ClaudeTranscript.observe(&rec, &mut state);
    ClaudeTranscript.parts(&rec, &mut state, &mut a);
    ClaudeTranscript.observe(&rec, &mut state);
    ClaudeTranscript.parts(&rec, &mut state, &mut b);
    assert_eq!((a, b), (vec![0], vec![CONTENT]));
    assert_eq!(ClaudeTranscript.name(&rec, CONTENT, &ReadState::default()), "llm:content");
}
