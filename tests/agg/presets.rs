//! ci-agg's `--sessions` and `--tools` presets: every field of a session,
//! tool calls paired by id, their percentiles, grouped by a key.

use super::*;

// ---------------------------------------------------------------- presets

#[test]
fn sessions_every_field_of_session_1() {
    let rows = demo(&["--sessions"]);
    let ids: Vec<&str> = rows.iter().map(|r| r["session"].as_str().unwrap()).collect();
    // Newest first by first event time; the empty capture (no timestamps) last.
    assert_eq!(
        ids,
        [
            "8c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f",
            "9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d",
            "abcdef12-0000-4000-8000-000000000002",
            "abcdef12-0000-4000-8000-000000000001",
            "d4a7b1e3-9c2f-4d85-a0b6-3e1f7c9d2b84",
            "b2d4f6a8-1c3e-4a5b-8c7d-9e0f1a2b3c4d",
            "0000000000000000-5f3c9a1e7b2d4c60_foundation-explorer",
            "a7c3e9d1-4b2f-4e8a-9d61-0c5b7e2f3a10",
            "c0ffee00-d1a2-4b3c-9d4e-5f6a7b8c9d0e",
            "e1f2a3b4-c5d6-4e7f-8a9b-0c1d2e3f4a5b",
        ]
    );
    let s1 = rows.iter().find(|r| r["session"] == "a7c3e9d1-4b2f-4e8a-9d61-0c5b7e2f3a10").unwrap();
    // Hand-checked against the 29 lines of session 1:
    // - started/last: lines 1 (09:15:00) and 29 (09:16:28.461750218);
    //   duration 88461.75 ms, whole ms 88461;
    // - tool calls: 5 distinct ids, bash A1 A3, read_file A2 A4, delegate A5;
    //   errors: A3 (post success false) and A4 (tool:error) = 2;
    // - one turn: submit 09:15:01.250 (line 2) -> orchestrator:complete
    //   09:16:28.461 (line 28) = 87211 ms; messages = submit + prompt:complete;
    // - tokens: in 18234+19876+21040, out 412+655+1203, cache read
    //   12000+18000+16500, write 3100+0+2048; cost 0.0123+0.0089+0.0311;
    // - child: delegate events name session 2 (whose parent is session 1 too).
    let want = json!({
        "session": "a7c3e9d1-4b2f-4e8a-9d61-0c5b7e2f3a10",
        "project": "-home-user-my-api",
        "workspace": "my-api",
        "parent": null,
        "agent": null,
        "status": "completed",
        "outcome": "success",
        "started": "2026-03-02T09:15:00Z",
        "last_event": "2026-03-02T09:16:28.461750218Z",
        "duration_ms": 88461,
        "events": {
            "context:compaction": 1, "delegate:agent_completed": 1, "delegate:agent_spawned": 1,
            "execution:end": 1, "execution:start": 1, "llm:request": 3, "llm:response": 3,
            "orchestrator:complete": 1, "prompt:complete": 1, "prompt:submit": 1, "provider:error": 1,
            "provider:request": 3, "session:start": 1, "tool:error": 1, "tool:post": 4, "tool:pre": 5
        },
        "tool_calls": {"bash": 2, "delegate": 1, "read_file": 2},
        "tool_errors": 2,
        "turns": 1,
        "messages": 2,
        "avg_response_ms": 87211,
        "tokens": {"input": 59150, "output": 2270, "cache_read": 46500, "cache_write": 5148},
        "cost_usd": 0.0523,
        "cost_source": "writer",
        "unpriced_models": [],
        "models": ["claude-sonnet-4-5"],
        "compactions": 1,
        "children": ["0000000000000000-5f3c9a1e7b2d4c60_foundation-explorer"],
        // read_file A2 (src/café.rs, pre + post) and A4 (docs/日本語.md, pre only).
        "subagents": 1,
        "files_read": ["docs/日本語.md", "src/café.rs"],
        "files_edited": []
    });
    assert_eq!(*s1, want);
    // Key order is part of the format.
    let keys: Vec<&String> = s1.as_object().unwrap().keys().collect();
    let want_keys: Vec<&String> = want.as_object().unwrap().keys().collect();
    assert_eq!(keys, want_keys);
}

#[test]
fn sessions_other_rules() {
    let rows = demo(&["--sessions"]);
    let get = |id: &str| rows.iter().find(|r| r["session"].as_str().unwrap().starts_with(id)).unwrap().clone();
    // Session 2: agent only on its fork line; one cost written (0.0041), the
    // other computed (182 + 512 + 1200 µ$, see sums_read_both_usage_key_generations); no turns.
    let s2 = get("0000000000000000");
    assert_eq!(s2["agent"], "foundation:explorer");
    assert_eq!(s2["parent"], "a7c3e9d1-4b2f-4e8a-9d61-0c5b7e2f3a10");
    assert_eq!(
        (s2["cost_usd"].clone(), s2["turns"].clone(), s2["avg_response_ms"].clone()),
        (json!(0.005994), json!(0), Value::Null)
    );
    assert_eq!(s2["cost_source"], "writer+computed");
    assert_eq!(s2["tokens"], json!({"input": 10422, "output": 336, "cache_read": 9216, "cache_write": 0}));
    // Session 4: line order is not time order (line 5 is 60.25 s before line 4);
    // no orchestrator:complete, so the turn ends at prompt:complete:
    // 21:25:02.500 -> 21:31:05.000 = 362500 ms.
    let s4 = get("c0ffee00");
    assert_eq!(
        (s4["started"].clone(), s4["last_event"].clone()),
        (json!("2026-03-01T21:25:00Z"), json!("2026-03-01T21:31:06Z"))
    );
    assert_eq!((s4["duration_ms"].clone(), s4["avg_response_ms"].clone()), (json!(366000), json!(362500)));
    assert_eq!((s4["messages"].clone(), s4["outcome"].clone()), (json!(2), Value::Null));
    // Session 3: old usage keys, no cost written: computed (gpt-5.1, see
    // sums_read_both_usage_key_generations); unfinished turn has no response time.
    let s3 = get("b2d4f6a8");
    assert_eq!(s3["tokens"], json!({"input": 9120, "output": 388, "cache_read": 4096, "cache_write": 0}));
    assert_eq!((s3["cost_usd"].clone(), s3["avg_response_ms"].clone()), (json!(0.010672), Value::Null));
    assert_eq!(s3["cost_source"], "computed");
    assert_eq!(s3["workspace"], "-home-user-webapp");
    // 9a: error outcome; its child 9b is known only from 9b's parent.
    let s9a = get("abcdef12-0000-4000-8000-000000000001");
    assert_eq!(s9a["outcome"], "error");
    assert_eq!(s9a["children"], json!(["abcdef12-0000-4000-8000-000000000002"]));
    assert_eq!(s9a["avg_response_ms"], json!(190250));
    // Session 5: bad lines skipped; the read_file call exists only on a bad line.
    let s5 = get("d4a7b1e3");
    assert_eq!(s5["tool_calls"], json!({"bash": 1}));
    assert_eq!((s5["cost_usd"].clone(), s5["tokens"]["cache_write"].clone()), (json!(0.0297), json!(7000)));
    // Session 6 (zero bytes): a record, with null time fields.
    let s6 = get("e1f2a3b4");
    assert_eq!(
        (s6["started"].clone(), s6["duration_ms"].clone(), s6["events"].clone()),
        (Value::Null, Value::Null, json!({}))
    );
}

fn tool_root() -> Tree {
    let t = |s: &str| format!("2026-03-01T10:00:{s}Z");
    root_with(&[(
        "s1",
        vec![
            ev("tool:pre", &t("00"), json!({"tool_name": "bash", "tool_call_id": "c1"})),
            ev(
                "tool:post",
                &t("01.500"),
                json!({"tool_name": "bash", "tool_call_id": "c1", "result": {"success": true}}),
            ),
            // A pre whose post never came.
            ev("tool:pre", &t("02"), json!({"tool_name": "read_file", "tool_call_id": "c2"})),
            ev("tool:pre", &t("03"), json!({"tool_name": "bash", "tool_call_id": "c3"})),
            ev("tool:error", &t("03.250"), json!({"tool_name": "bash", "tool_call_id": "c3", "error": {"type": "E"}})),
            // A post without its pre, failed, with an older writer's duration.
            ev(
                "tool:post",
                &t("04"),
                json!({"tool_name": "bash", "tool_call_id": "c4", "duration_ms": 40, "result": {"success": false}}),
            ),
            // No tool_call_id: a call of its own.
            ev("tool:pre", &t("05"), json!({"tool_name": "grep"})),
        ],
    )])
}

#[test]
fn tools_pairing_on_the_demo() {
    // bash latencies: A1 07.410 -> 09.833 = 2423, A3 14.006 -> 31.554 = 17548,
    // session 3 duration_ms 8520, session 4 03.120 -> 31:00.250 = 357130,
    // session 5 09.960 -> 12.204 = 2244. Sorted 2244 2423 8520 17548 357130:
    // p50 8520; p95 rank 3.8 -> 17548 + .8*339582 = 289213.6.
    // read_file: A2 2429, A4 (pre -> tool:error) 1: p50 1215, p95 2307.6.
    assert_eq!(
        one_line(&demo(&["--tools"])),
        [
            r#"{"tool":"bash","calls":5,"ok":4,"errors":1,"unfinished":0,"success_rate":0.8,"p50_ms":8520,"p95_ms":289213.6,"max_ms":357130}"#,
            r#"{"tool":"read_file","calls":2,"ok":1,"errors":1,"unfinished":0,"success_rate":0.5,"p50_ms":1215,"p95_ms":2307.6,"max_ms":2429}"#,
            r#"{"tool":"delegate","calls":1,"ok":1,"errors":0,"unfinished":0,"success_rate":1,"p50_ms":49550,"p95_ms":49550,"max_ms":49550}"#,
            r#"{"tool":"edit_file","calls":1,"ok":1,"errors":0,"unfinished":0,"success_rate":1,"p50_ms":45,"p95_ms":45,"max_ms":45}"#,
            r#"{"tool":"grep","calls":1,"ok":1,"errors":0,"unfinished":0,"success_rate":1,"p50_ms":177,"p95_ms":177,"max_ms":177}"#,
        ]
    );
}

#[test]
fn tools_pairing_with_error_missing_post_and_missing_pre() {
    let root = tool_root();
    let p = path_arg(root.path());
    // bash: c1 ok 1500 ms, c3 error 250 ms (pre -> tool:error), c4 error 40 ms
    // (duration_ms); sorted 40 250 1500: p50 250, p95 250 + .9*1250 = 1375.
    let want = [
        r#"{"tool":"bash","calls":3,"ok":1,"errors":2,"unfinished":0,"success_rate":0.3333,"p50_ms":250,"p95_ms":1375,"max_ms":1500}"#,
        r#"{"tool":"grep","calls":1,"ok":0,"errors":0,"unfinished":1,"success_rate":null,"p50_ms":null,"p95_ms":null,"max_ms":null}"#,
        r#"{"tool":"read_file","calls":1,"ok":0,"errors":0,"unfinished":1,"success_rate":null,"p50_ms":null,"p95_ms":null,"max_ms":null}"#,
    ];
    assert_eq!(agg(&["--tools", &p]).lines(), want);
    // The same through a pipe of event records, where pre and post may be
    // read by different threads.
    let events = ci("ci-cat").arg(&p).run().stdout;
    assert_eq!(ci("ci-agg").args(["--tools", "-j2"]).stdin(events).run().lines(), want);
    let s = agg(&["--sessions", &p]).json();
    assert_eq!(
        (s[0]["tool_calls"].clone(), s[0]["tool_errors"].clone()),
        (json!({"bash": 3, "grep": 1, "read_file": 1}), json!(2))
    );
}

/// Above 1024 latencies a group's p50/p95 come from a t-digest, whose estimate
/// depends on the order values go in: calls are handed to it in key order,
/// so the same input gives the same answer every run (it came from a hash
/// map's random order before).
#[test]
fn tools_percentiles_are_the_same_every_run() {
    let mut lines = vec![];
    for i in 0..3000u64 {
        let id = format!("c{i:05}");
        // Latencies spread over 1..=997 ms in a scrambled order.
        let ms = 1 + (i * 7919) % 997;
        let pre = format!("2026-03-01T10:{:02}:{:02}.000Z", i / 60 % 60, i % 60);
        let post = format!("2026-03-01T10:{:02}:{:02}.{ms:03}Z", i / 60 % 60, i % 60);
        lines.push(ev("tool:pre", &pre, json!({"tool_name": "bash", "tool_call_id": id})));
        lines.push(ev(
            "tool:post",
            &post,
            json!({"tool_name": "bash", "tool_call_id": id, "result": {"success": true}}),
        ));
    }
    let root = root_with(&[("s1", lines)]);
    let p = path_arg(root.path());
    let first = agg(&["--tools", &p]);
    assert_eq!(first.code, 0, "{first:?}");
    assert!(first.stdout.contains("\"calls\":3000"), "{}", first.stdout);
    for _ in 0..4 {
        assert_eq!(agg(&["--tools", &p]).stdout, first.stdout);
    }
}

#[test]
fn tools_by_a_key() {
    let rows = demo(&["--tools", "--by", "workspace", "--top", "2"]);
    assert_eq!(
        one_line(&rows).iter().map(|l| l.split(",\"ok\"").next().unwrap_or("").to_owned()).collect::<Vec<_>>(),
        [r#"{"workspace":"my-api","tool":"bash","calls":2"#, r#"{"workspace":"my-api","tool":"read_file","calls":2"#]
    );
}
