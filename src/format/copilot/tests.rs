use super::*;
use crate::json::Index;

/// The made data of each shutdown line in turn, read as one log.
fn legs(lines: &[&str]) -> Vec<String> {
    let mut idx = Index::new();
    let mut state = ReadState::default();
    lines
        .iter()
        .map(|l| {
            let rec = idx.parse(l.as_bytes()).unwrap();
            Copilot.observe(&rec, &mut state);
            String::from_utf8(state.line_data.clone()).unwrap()
        })
        .collect()
}

fn shutdown(nano: u64, models: &str) -> String {
    format!(
        r#"{{"type":"session.shutdown","data":{{"totalNanoAiu":{nano},"modelMetrics":{{{models}}}}},"id":"x","timestamp":"2026-06-18T00:00:00Z","parentId":null}}"#
    )
}

fn model(name: &str, c: [u64; 5]) -> String {
    format!(
        r#""{name}":{{"usage":{{"inputTokens":{},"outputTokens":{},"cacheReadTokens":{},"cacheWriteTokens":{},"reasoningTokens":{}}}}}"#,
        c[0], c[1], c[2], c[3], c[4]
    )
}

#[test]
fn cumulative_roll_ups_count_their_growth() {
    let a = shutdown(1_200_000_000, &model("m", [20000, 300, 15000, 3000, 0]));
    let b = shutdown(2_900_000_000, &model("m", [52000, 700, 44000, 4000, 0]));
    let out = legs(&[&a, &b]);
    assert_eq!(
        out[0],
        r#"[{"model":"m","usage":{"input_tokens":2000,"cache_read_tokens":15000,"cache_write_tokens":3000,"output_tokens":300,"reasoning_tokens":0,"cost_usd":0.012},"counters_reset":false,"roll_up":{"inputTokens":20000,"outputTokens":300,"cacheReadTokens":15000,"cacheWriteTokens":3000,"reasoningTokens":0}}]"#
    );
    assert!(out[1].starts_with(r#"[{"model":"m","usage":{"input_tokens":2000,"cache_read_tokens":29000,"cache_write_tokens":1000,"output_tokens":400,"reasoning_tokens":0,"cost_usd":0.017},"counters_reset":false"#), "{}", out[1]);
}

#[test]
fn a_counter_that_goes_down_starts_a_new_base() {
    let a = shutdown(1_200_000_000, &model("m", [20000, 300, 15000, 3000, 0]));
    let b = shutdown(500_000_000, &model("m", [12000, 400, 9000, 1000, 0]));
    let out = legs(&[&a, &b]);
    assert!(out[1].starts_with(r#"[{"model":"m","usage":{"input_tokens":2000,"cache_read_tokens":9000,"cache_write_tokens":1000,"output_tokens":400,"reasoning_tokens":0,"cost_usd":0.005},"counters_reset":true"#), "{}", out[1]);
}

#[test]
fn a_model_gone_from_the_roll_up_is_a_reset_and_the_cost_goes_on_the_first_response() {
    let both = format!("{},{}", model("a", [10, 1, 0, 0, 0]), model("b", [20, 2, 0, 0, 0]));
    let first = shutdown(3, &both);
    let only_b = shutdown(4, &model("b", [30, 3, 0, 0, 0]));
    let same = shutdown(4, &model("b", [30, 3, 0, 0, 0]));
    let out = legs(&[&first, &only_b, &same]);
    let items: Vec<_> = Raw(out[0].as_bytes()).items().collect();
    assert_eq!(items.len(), 2);
    assert!(items[0].get("usage").unwrap().get("cost_usd").is_some());
    assert_eq!(items[1].get("usage").unwrap().get("cost_usd").unwrap().bytes(), b"0");
    assert!(out[1].contains(r#""input_tokens":30,"#) && out[1].contains(r#""counters_reset":true"#), "{}", out[1]);
    // Nothing grew: no response.
    assert_eq!(out[2], "");
}

#[test]
fn nano_ai_units_are_written_as_exact_dollars() {
    let mut d = vec![];
    usage::write_usd(&mut d, 2_900_000_000);
    assert_eq!(d, b"0.029");
    d.clear();
    usage::write_usd(&mut d, 123_400_000_000_001);
    assert_eq!(d, b"1234.00000000001");
}

#[test]
fn odd_counters_count_nothing() {
    let line = shutdown(
        0,
        r#""m":{"usage":{"inputTokens":-5,"outputTokens":1.5,"cacheReadTokens":"9","cacheWriteTokens":null}},"n":[]"#,
    );
    assert_eq!(legs(&[&line]), vec![String::new()]);
}

/// A log's store is its home's `session-store.db`, for a session folder's
/// log and an older build's flat log alike, and only when it is SQLite.
#[test]
fn a_log_s_store_is_its_home_s() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("session-state");
    std::fs::create_dir_all(state.join("abc")).unwrap();
    let (folder, flat) = (state.join("abc").join("events.jsonl"), state.join("abc.jsonl"));
    let db = dir.path().join(store::STORE);
    assert_eq!(store::store_of(&folder), None);
    std::fs::write(&db, b"not SQLite").unwrap();
    assert_eq!(store::store_of(&folder), None);
    std::fs::remove_file(&db).unwrap();
    rusqlite::Connection::open(&db).unwrap().execute_batch("CREATE TABLE t (x)").unwrap();
    assert_eq!(store::store_of(&folder), Some(db.clone()));
    assert_eq!(store::store_of(&flat), Some(db));
    assert_eq!(store::store_of(&dir.path().join("elsewhere.jsonl")), None);
}
