//! The capture cache's bodies over arbitrary bytes: a question's store
//! (`cache::store::decode`), a `--by`/`--tokens` state in its binary form
//! (`aggregate::bin::decode`), a `--sessions` one (`bin::decode_sessions`),
//! a `--tools` one (`bin::decode_tools`), a capture's lines in ci-filter's index (`cache::line_index::Lines`) and a
//! transcript's kept peek (`claude_transcript::Peek`), as read from a cache file whose checksum
//! matched (a file written by another build, or by hand).
//!
//! Property: nothing panics; an accepted store or state writes back to
//! bytes that read back to the same thing (nothing is invented or lost). A
//! `--by`/`--tokens` state's `--partial` lines, read back by `--merge`
//! (`partial::Merger`), print the same groups, counts and sums: a sum's wire
//! form (issue 38, D3: exact decimal and float partials,
//! `[DECIMAL|null, PARTIAL…]`) holds whatever partials the cache file held. `CI_FUZZ_DUMP=1` names the
//! queries an input is a state of.
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

/// A state as its `--partial` lines (groups sorted by key), each metric
/// state's distinct keys in the order of their text: a forged number key
/// that is no number (`0@5`) has no consistent order among the others, so
/// their sorted order on the wire may depend on the set's.
fn lines(q: &Query, g: ci_tools::aggregate::groups::Groups) -> Vec<Vec<u8>> {
    let lines = ci_tools::aggregate::partial::encode(q, ci_tools::aggregate::Answer::Groups(g), (0, 0));
    let by_text = |bytes: Vec<u8>| {
        let mut v: serde_json::Value = serde_json::from_slice(&bytes).expect("a state line is JSON");
        for s in v.get_mut("stats").and_then(|s| s.as_array_mut()).into_iter().flatten() {
            if let Some(d) = s.get_mut("d").and_then(|d| d.as_array_mut()) {
                d.sort_by_key(|k| k.to_string());
            }
        }
        serde_json::to_vec(&v).expect("a state line serializes")
    };
    lines.iter().map(|l| by_text(l.to_bytes().expect("a state line serializes"))).collect()
}

/// The state of `lines` as `--merge` reads it back, as its `--partial`
/// lines. Every state the binary form accepts is one `--merge` accepts
/// (issue 38: the same min/max check for both, and a sum's infinite or NaN
/// partial written as `"inf"`/`"-inf"`/`"nan"`, no longer `null`).
fn merged(q: &Query, lines: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let mut m = ci_tools::aggregate::partial::Merger::new();
    for l in lines {
        if let Err(e) = m.line(l) {
            panic!("--merge refuses a state line: {e}: {}", String::from_utf8_lossy(l));
        }
    }
    let (_, answer) = m.finish().expect("a header was read");
    let ci_tools::aggregate::Answer::Groups(g) = answer else { panic!("a --by state merges to groups") };
    self::lines(q, g)
}

/// Each group line's key, count and its metric states' `n` and `sum`, sorted (the
/// rest of a forged state may read back normalised: a distinct key `0e-30`
/// is `0` on the wire, as it is when read from a record).
fn sums(lines: &[Vec<u8>]) -> Vec<String> {
    let v = |l: &Vec<u8>| serde_json::from_slice::<serde_json::Value>(l).expect("a state line is JSON");
    let groups = lines.iter().map(v).filter(|l| l["kind"] == "group");
    let mut sums: Vec<String> = groups
        .map(|g| {
            let stats: Vec<_> = g["stats"].as_array().into_iter().flatten().map(|s| (&s["n"], &s["sum"])).collect();
            format!("{} {} {:?}", g["key"], g["count"], stats)
        })
        .collect();
    // Sorted: a forged key of one kind that prints as another (a string
    // kept as JSON text) sorts elsewhere once read back from the wire.
    sums.sort();
    sums
}

/// A `--tools` state's output records, sorted.
fn rows(q: &Query, t: ci_tools::aggregate::calls::Tools) -> Vec<String> {
    let mut rows: Vec<String> =
        t.rows(q).into_iter().map(|r| serde_json::to_string(&r.record).expect("a record")).collect();
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
        if std::env::var_os("CI_FUZZ_DUMP").is_some() {
            eprintln!("decoded: a state of {:?}", q.spec.measures);
        }
        let bytes = bin::encode(&groups).expect("a decoded state has no t-digest and no held responses");
        let back = bin::decode(&bytes, &q).expect("a re-encoded state reads back");
        let wire = lines(&q, groups);
        assert_eq!(lines(&q, back), wire);
        // (`bin::decode` does not check the preset: a `--by` state also reads
        // as one of a `--tools` query, whose header `--merge` then refuses.)
        if q.spec.preset != "tools" {
            // Forged keys of two kinds that print alike (a string, and the
            // same string kept as JSON text) are one group once read back.
            let keys: Vec<String> = sums(&wire).iter().map(|l| l.split(' ').next().unwrap_or("").to_owned()).collect();
            let alike = keys.windows(2).any(|w| w[0] == w[1]);
            if !alike {
                assert_eq!(sums(&merged(&q, &wire)), sums(&wire), "--merge of the state's --partial lines");
            }
        }
    }
});
