use super::*;

/// The events of `lines` read in order: (name, data).
fn events(lines: &[&str]) -> Vec<(String, String)> {
    let mut idx = Index::new();
    let mut state = ReadState::default();
    let mut out = vec![];
    for l in lines {
        let rec = idx.parse(l.as_bytes()).unwrap();
        Codex.observe(&rec, &mut state);
        let name = Codex.name(&rec, 0, &state).into_owned();
        let data = Codex.data(&rec, 0, &state).map(|d| String::from_utf8_lossy(d.bytes()).into_owned());
        out.push((name, data.unwrap_or_default()));
    }
    out
}

fn usage(data: &str) -> serde_json::Value {
    serde_json::from_str::<serde_json::Value>(data).unwrap()["usage"].clone()
}

#[test]
fn file_names_give_session_ids() {
    let p = Path::new("/x/rollout-2025-11-23T21-43-09-019ab22c-95af-7160-b11d-8f552d0ce721.jsonl");
    assert_eq!(id_of_name(p).unwrap(), "019ab22c-95af-7160-b11d-8f552d0ce721");
    assert_eq!(id_of_name(Path::new("/x/rollout-alpha.jsonl")).unwrap(), "rollout-alpha");
}

#[test]
fn token_counts_follow_the_running_total() {
    let tc = |total: &str, last: &str| {
        format!(
            r#"{{"timestamp":"2026-05-01T10:00:00Z","type":"event_msg","payload":{{"type":"token_count","info":{{{}}}}}}}"#,
            [total, last].iter().filter(|s| !s.is_empty()).cloned().collect::<Vec<_>>().join(",")
        )
    };
    let u = |k: &str, i: u64, c: u64, o: u64, r: u64, t: u64| {
        format!(
            r#""{k}":{{"input_tokens":{i},"cached_input_tokens":{c},"output_tokens":{o},"reasoning_output_tokens":{r},"total_tokens":{t}}}"#
        )
    };
    let lines = [
        r#"{"timestamp":"2026-05-01T10:00:00Z","type":"turn_context","payload":{"model":"gpt-5.2"}}"#.to_owned(),
        tc(&u("total_token_usage", 1000, 200, 100, 10, 1100), &u("last_token_usage", 1000, 200, 100, 10, 1100)),
        // A re-emit: the same total.
        tc(&u("total_token_usage", 1000, 200, 100, 10, 1100), &u("last_token_usage", 1000, 200, 100, 10, 1100)),
        // The total grew: its last usage counts (not the growth).
        tc(&u("total_token_usage", 3000, 200, 300, 10, 3300), &u("last_token_usage", 1500, 0, 150, 0, 1650)),
        // No last usage: the growth.
        tc(&u("total_token_usage", 3500, 700, 350, 10, 3850), ""),
        r#"{"timestamp":"2026-05-01T10:00:00Z","type":"event_msg","payload":{"type":"token_count","info":null}}"#
            .to_owned(),
    ];
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let ev = events(&refs);
    let names: Vec<&str> = ev.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "codex:turn_context",
            "llm:response",
            "codex:token_count",
            "llm:response",
            "llm:response",
            "codex:token_count"
        ]
    );
    let want =
        |i: u64, c: u64, o: u64| serde_json::json!({"input_tokens": i, "cache_read_tokens": c, "output_tokens": o});
    let pick = |d: &str| {
        let u = usage(d);
        serde_json::json!({"input_tokens": u["input_tokens"], "cache_read_tokens": u["cache_read_tokens"], "output_tokens": u["output_tokens"]})
    };
    assert_eq!(pick(&ev[1].1), want(800, 200, 100));
    assert_eq!(pick(&ev[3].1), want(1500, 0, 150));
    assert_eq!(pick(&ev[4].1), want(0, 500, 50));
    let d: serde_json::Value = serde_json::from_str(&ev[1].1).unwrap();
    assert_eq!(d["model"], "gpt-5.2");
}

#[test]
fn lines_name_their_events() {
    let ev = events(&[
        r#"{"timestamp":"t","type":"session_meta","payload":{"id":"s","cwd":"/w"}}"#,
        r#"{"timestamp":"t","type":"event_msg","payload":{"type":"user_message","message":"hi"}}"#,
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{}","call_id":"c1"}}"#,
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"{\"output\":\"x\",\"metadata\":{\"exit_code\":2}}"}}"#,
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"c2","output":"Exit code: 0\nOutput:\nok"}}"#,
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"reasoning","summary":[]}}"#,
        r#"{"timestamp":"t","type":"event_msg","payload":{"type":"task_complete","duration_ms":5}}"#,
        r#"{"timestamp":"t","type":"compacted","payload":{"message":""}}"#,
    ]);
    let names: Vec<&str> = ev.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "session:start",
            "prompt:submit",
            "tool:pre",
            "tool:error",
            "tool:post",
            "codex:reasoning",
            "prompt:complete",
            "context:compaction"
        ]
    );
}

#[test]
fn a_forks_copied_token_counts_set_the_total_and_count_nothing() {
    let meta = |at: &str, fork: &str| {
        format!(r#"{{"timestamp":"{at}","type":"session_meta","payload":{{"id":"f","forked_from_id":"{fork}"}}}}"#)
    };
    // A total without a last usage: what counts is its growth.
    let tc = |at: &str, input: u64| {
        format!(
            r#"{{"timestamp":"{at}","type":"event_msg","payload":{{"type":"token_count","info":{{"total_token_usage":{{"input_tokens":{input},"output_tokens":1}}}}}}}}"#
        )
    };
    let names = |lines: &[String]| {
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        events(&lines)
            .into_iter()
            .map(|(n, d)| {
                (n, if d.contains("usage") { usage(&d)["input_tokens"].clone() } else { serde_json::Value::Null })
            })
            .collect::<Vec<_>>()
    };
    let fork = "2026-06-02T09:00:00.000Z";
    // Copies restamped within the fork's second, or left at their first
    // times (days before): the running total only, named as copies; the
    // fork's own count is its growth from there.
    let lines = [
        meta(fork, "p"),
        tc("2026-06-02T09:00:00.900Z", 100),
        tc("2026-05-30T10:00:00Z", 300),
        tc("2026-06-02T09:00:01.000Z", 350),
        tc("2026-06-02T09:00:00.500Z", 400),
    ];
    let got = names(&lines);
    let want = |n: &str, v: serde_json::Value| (n.to_owned(), v);
    assert_eq!(
        got,
        [
            want("session:start", serde_json::Value::Null),
            want("copy:codex:token_count", serde_json::Value::Null),
            want("copy:codex:token_count", serde_json::Value::Null),
            want("llm:response", 50.into()),
            // Once the copy ended, an earlier stamp is the fork's own.
            want("llm:response", 50.into()),
        ]
    );
    // Not a fork (an empty forked_from_id): everything counts.
    let lines = [meta(fork, ""), tc("2026-06-02T09:00:00.900Z", 100)];
    assert_eq!(names(&lines)[1], want("llm:response", 100.into()));
}
