//! The capture cache's bodies over arbitrary bytes: a question's store
//! (`cache::store::decode`), a `--by`/`--tokens` state in its binary form
//! (`aggregate::bin::decode`), a `--sessions` one (`bin::decode_sessions`),
//! a `--tools` one (`bin::decode_tools`), a capture's lines in ci-filter's index (`cache::line_index::Lines`) and a
//! transcript's kept peek (`claude_transcript::Peek`), as read from a cache file whose checksum
//! matched (a file written by another build, or by hand).
//!
//! Property: nothing panics; an accepted store or state writes back to
//! bytes that read back to the same thing (nothing is invented or lost).
#![no_main]

use ci_tools::aggregate::bin;
use ci_tools::aggregate::query::{Query, QuerySpec};
use ci_tools::cache::line_index::Lines;
use ci_tools::cache::store;
use ci_tools::format::claude_transcript::Peek;
use libfuzzer_sys::fuzz_target;

/// The queries whose states are tried: `--by event`; `--by event` with
/// every exact metric; and the seeds' `--by event,workspace --sum
/// data.duration_ms --distinct data.tool`.
fn queries() -> Vec<Query> {
    let spec = |by: &[&str], measures: Vec<(&str, Vec<&str>)>| QuerySpec {
        preset: "group".into(),
        by: by.iter().map(|s| (*s).to_owned()).collect(),
        measures: measures
            .into_iter()
            .map(|(f, o)| (f.to_owned(), o.into_iter().map(str::to_owned).collect()))
            .collect(),
        tz: "UTC".into(),
        cost: "auto".into(),
        pricing: String::new(),
    };
    [
        spec(&["event"], vec![]),
        QuerySpec { preset: "tools".into(), ..spec(&[], vec![]) },
        QuerySpec { preset: "tools".into(), ..spec(&["event"], vec![]) },
        spec(&["event"], vec![("data.n", vec!["sum", "min", "max", "p50", "distinct"])]),
        spec(&["event", "workspace"], vec![("data.duration_ms", vec!["sum"]), ("data.tool", vec!["distinct"])]),
    ]
    .into_iter()
    .map(|s| Query::from_spec(s, ci_tools::time::TimeZone::UTC).expect("a valid query"))
    .collect()
}

/// A state as its `--partial` lines (groups sorted by key).
fn lines(q: &Query, g: ci_tools::aggregate::groups::Groups) -> Vec<Vec<u8>> {
    let lines = ci_tools::aggregate::partial::encode(q, ci_tools::aggregate::Answer::Groups(g), (0, 0));
    lines.iter().map(|l| l.to_bytes().expect("a state line serializes")).collect()
}

/// A `--tools` state's output records, sorted.
fn rows(q: &Query, t: ci_tools::aggregate::calls::Tools) -> Vec<String> {
    let mut rows: Vec<String> = t.rows(q).into_iter().map(|r| serde_json::to_string(&r.record).expect("a record")).collect();
    rows.sort();
    rows
}

fuzz_target!(|data: &[u8]| {
    if let Some(peek) = Peek::decode(data) {
        assert_eq!(Peek::decode(&peek.encode()), Some(peek));
    }
    let odd = |n: &str| n.len() % 2 == 1;
    let picked = Lines::pick_in(data, u64::MAX, odd);
    assert_eq!(picked, Lines::decode(data, u64::MAX).map(|l| (l.names.clone(), l.pick(odd))));
    if let Some(lines) = Lines::decode(data, u64::MAX) {
        let again = lines.encode();
        assert_eq!(Lines::decode(&again, u64::MAX), Some(lines));
    }
    if let Some(sessions) = bin::decode_sessions(data) {
        let map = sessions.iter().map(|s| (s.key(), s.clone())).collect();
        let again = bin::encode_sessions(&map).expect("decoded summaries serialize");
        let back = bin::decode_sessions(&again).expect("a re-encoded state reads back");
        assert_eq!(back.len(), map.len());
    }
    if let Some((label, entries)) = store::decode(data) {
        let again = store::encode(&label, &entries);
        assert_eq!(store::decode(&again), Some((label, entries)));
    }
    for q in queries() {
        if let Some(tools) = bin::decode_tools(data, &q) {
            let again = bin::encode_tools(&tools).expect("a decoded state has no t-digest");
            let back = bin::decode_tools(&again, &q).expect("a re-encoded state reads back");
            assert_eq!(format!("{:?}", rows(&q, back)), format!("{:?}", rows(&q, tools)));
        }
        let Some(groups) = bin::decode(data, &q) else { continue };
        let bytes = bin::encode(&groups).expect("a decoded state has no t-digest and no held responses");
        let back = bin::decode(&bytes, &q).expect("a re-encoded state reads back");
        assert_eq!(lines(&q, back), lines(&q, groups));
    }
});
