use super::*;
use crate::aggregate::query::QuerySpec;
use crate::aggregate::Answer;
use crate::time::TimeZone;

fn query_spec(by: &[&str]) -> QuerySpec {
    QuerySpec {
        preset: "group".into(),
        by: by.iter().map(|s| (*s).to_owned()).collect(),
        measures: vec![],
        tz: "UTC".into(),
        cost: "auto".into(),
        pricing: String::new(),
    }
}

fn query(by: &[&str], measures: &[(&str, &[&str])]) -> Query {
    let spec = QuerySpec {
        preset: "group".into(),
        by: by.iter().map(|s| (*s).to_owned()).collect(),
        measures: measures
            .iter()
            .map(|(f, o)| ((*f).to_owned(), o.iter().map(|s| (*s).to_owned()).collect()))
            .collect(),
        tz: "UTC".into(),
        cost: "auto".into(),
        pricing: String::new(),
    };
    Query::from_spec(spec, TimeZone::UTC).unwrap()
}

/// A `--tokens` query by `by`.
fn tokens_query(by: &[&str]) -> Query {
    Query::from_spec(QuerySpec { preset: "tokens".into(), ..query_spec(by) }, TimeZone::UTC).unwrap()
}

/// A merger of `q`'s partial lines, its header read.
fn merger(q: &Query) -> crate::aggregate::partial::Merger {
    let mut m = crate::aggregate::partial::Merger::new();
    let header = crate::aggregate::partial::encode(q, Answer::new(q), (0, 0)).remove(0);
    m.line(&header.to_bytes().unwrap()).unwrap();
    m
}

/// The `--partial` lines of a state: what must not change through the binary form.
fn lines(q: &Query, g: Groups) -> Vec<String> {
    let lines = crate::aggregate::partial::encode(q, Answer::Groups(g), (0, 0));
    lines.iter().map(|l| String::from_utf8(l.to_bytes().unwrap()).unwrap()).collect()
}

#[test]
fn a_state_reads_back_as_its_partial_lines_say() {
    let q = query(&["event", "data.k"], &[("data.v", &["sum", "min", "max", "p50", "distinct"])]);
    let mut m = merger(&q);
    for l in [
        r#"{"kind":"group","key":["tool:pre",null],"count":3,"stats":[{"n":3,"sum":"0.5","min":"0.1","max":0.3,"q":{"v":["0.1",0.3,"0.1"]},"d":["a",1,true]}]}"#,
        r#"{"kind":"group","key":["x",{"a":[1]}],"count":1,"stats":[{"n":1,"sum":1e-30,"min":1e-30,"max":1e-30,"q":{"v":[1e-30]},"d":[]}],"cost":{"sources":3,"unpriced":["m1"]}}"#,
        r#"{"kind":"group","key":[false,123456789012345678901234567890],"count":0,"stats":[{"n":0,"sum":"0","q":{"v":[]},"d":[]}]}"#,
    ] {
        m.line(l.as_bytes()).unwrap_or_else(|e| panic!("{l}: {e}"));
    }
    let Some((_, Answer::Groups(g))) = m.finish() else { panic!("no state") };
    let bytes = encode(&g).unwrap();
    let back = decode(&bytes, &q).unwrap();
    let want = lines(&q, g.clone());
    assert_eq!(want.len(), 4, "{want:?}");
    assert!(want[2].contains(r#""d":[true,1,"a"]"#) && want[3].contains(r#""unpriced":["m1"]"#), "{want:?}");
    assert_eq!(lines(&q, back), want);
    // Any cut is refused; so is the state of another query.
    for cut in 0..bytes.len() {
        assert!(decode(&bytes[..cut], &q).is_none(), "cut at {cut}");
    }
    assert!(decode(&bytes, &query(&["event"], &[])).is_none());
}

#[test]
fn held_responses_read_back_as_their_partial_lines_say() {
    let q = tokens_query(&["day"]);
    let mut m = merger(&q);
    for l in [
        r#"{"kind":"response","message":"msg_1\u0000req_1","key":["2026-03-01","claude-sonnet-4"],"usage":[4,512,0,1200,"0.0123"],"best":[1716.0,"/p/a.jsonl",12]}"#,
        r#"{"kind":"response","message":"msg_2\u0000req_2","key":["2026-03-02",null],"usage":[1,null,2,3,null],"cost":{"sources":2,"unpriced":["x"]},"best":[6.0,"/p/a.jsonl",40]}"#,
        r#"{"kind":"response","message":"msg_3\u0000req_3","key":["2026-03-01","claude-sonnet-4"],"usage":[1e-30,5,0,0,null],"best":[5.0,"/p/b.jsonl",1]}"#,
        r#"{"kind":"group","key":["2026-03-01","m"],"count":2,"stats":[{"n":2,"sum":"3"},{"n":0},{"n":0},{"n":0},{"n":0}]}"#,
    ] {
        m.line(l.as_bytes()).unwrap_or_else(|e| panic!("{l}: {e}"));
    }
    let Some((_, Answer::Groups(g))) = m.finish() else { panic!("no state") };
    let want = lines(&q, g.clone());
    assert_eq!(want.iter().filter(|l| l.contains(r#""kind":"response""#)).count(), 3, "{want:?}");
    let bytes = encode(&g).unwrap();
    assert_eq!(lines(&q, decode(&bytes, &q).unwrap()), want);
    for cut in 0..bytes.len() {
        assert!(decode(&bytes[..cut], &q).is_none(), "cut at {cut}");
    }
}

#[test]
fn held_responses_of_many_keys_read_back_whichever_comes_last() {
    // Each response its own key: the last one written may name a key whose
    // index is larger than the bytes after it (a warm --blocks run found
    // such states damaged, in the order a hash map gave).
    let q = tokens_query(&["timestamp"]);
    let mut m = merger(&q);
    for i in 0..300 {
        let l = format!(
            r#"{{"kind":"response","message":"msg_{i}","key":["2026-03-01T00:00:{:02}.{i:03}Z","m"],"usage":[1,2,0,0,null],"best":[3.0,"/p/a.jsonl",{i}]}}"#,
            i % 60
        );
        m.line(l.as_bytes()).unwrap_or_else(|e| panic!("{l}: {e}"));
    }
    let Some((_, Answer::Groups(g))) = m.finish() else { panic!("no state") };
    let want = lines(&q, g.clone());
    assert_eq!(want.iter().filter(|l| l.contains(r#""kind":"response""#)).count(), 300);
    let bytes = encode(&g).unwrap();
    assert_eq!(lines(&q, decode(&bytes, &q).expect("the state reads back")), want);
}

#[test]
fn a_sessions_state_reads_back_with_what_it_holds_for_settling() {
    use crate::aggregate::calls::Call;
    use crate::aggregate::session::Summary;
    let mut s = Summary { session: "s1".into(), project: Some("p".into()), tool_errors: 2, ..Summary::default() };
    let mut call = Call::default();
    call.tool = Some("Bash".into());
    call.keys = Some(vec![KeyVal::Str("Bash".into()), KeyVal::Null]);
    (call.pre, call.failed) = (true, true);
    call.first = Some(("/p/a.jsonl".into(), 7));
    s.calls_held.push(("toolu_1".into(), call));
    s.calls_held.push(("toolu_2".into(), Call::default()));
    let mut map = std::collections::BTreeMap::new();
    map.insert(s.key(), s.clone());
    let t = Summary { session: "s2".into(), ..Summary::default() };
    map.insert(t.key(), t.clone());
    let bytes = encode_sessions(&map).unwrap();
    let back = decode_sessions(&bytes).unwrap();
    assert_eq!(back, vec![s, t]);
    for cut in 0..bytes.len() {
        assert!(decode_sessions(&bytes[..cut]).is_none(), "cut at {cut}");
    }
}

#[test]
fn whole_numbers_are_kept_short_and_every_number_reads_back() {
    let nums = [
        Some(Num::Exact(Decimal::from_int(0))),
        Some(Num::Exact(Decimal::from_int(12_345))),
        Some(Num::Exact(Decimal::from_int(-1))),
        Some(Num::Exact(Decimal::from_int(i64::MAX))),
        Some(Num::Exact(Decimal::from_int(i64::MIN))),
        Some(Num::Exact(Decimal::from_bits(5))),
        Some(Num::Exact(Decimal::from_bits(i128::MAX))),
        Some(Num::Float(0.25)),
        None,
    ];
    let mut w = vec![];
    for n in nums {
        num(&mut w, n);
    }
    let mut r = Reader(&w);
    for n in nums {
        assert_eq!(r.num(), Some(n));
    }
    assert_eq!(r.left(), 0);
    let mut one = vec![];
    num(&mut one, nums[1]);
    assert_eq!(one.len(), 4, "12,345 tokens: a tag and a three-byte varint, not 17 bytes");
}

#[test]
fn a_tools_state_reads_back_with_every_latency_in_order() {
    use crate::aggregate::calls::{ToolGroup, Tools};
    let spec = QuerySpec { preset: "tools".into(), ..query_spec(&["event"]) };
    let q = Query::from_spec(spec, TimeZone::UTC).unwrap();
    let mut t = Tools { tape: true, ..Tools::default() };
    let mut g = ToolGroup::new(true);
    (g.calls, g.ok, g.errors, g.unfinished) = (2000, 1990, 7, 3);
    for i in 0..1990u64 {
        g.latency.add_num(Num::Exact(Decimal::from_int(((i * 7919) % 1999) as i64)));
    }
    g.latency.add_num(Num::Float(0.5));
    t.map.insert(vec![KeyVal::Str("tool:post".into()), KeyVal::Str("bash".into())], g.clone());
    t.map.insert(vec![KeyVal::Null, KeyVal::Null], ToolGroup::new(true));
    let bytes = encode_tools(&t).unwrap();
    let back = decode_tools(&bytes, &q).unwrap();
    let key = vec![KeyVal::Str("tool:post".into()), KeyVal::Str("bash".into())];
    let (a, b) = (&back.map[&key], &g);
    assert_eq!((a.calls, a.ok, a.errors, a.unfinished), (2000, 1990, 7, 3));
    let values = |g: &ToolGroup| g.latency.quant.as_ref().unwrap().exact_values().unwrap().to_vec();
    assert_eq!(values(a), values(b));
    assert_eq!(values(a).len(), 1991);
    assert_eq!(back.map.len(), 2);
    for cut in 0..bytes.len() {
        assert!(decode_tools(&bytes[..cut], &q).is_none(), "cut at {cut}");
    }
    assert!(decode_tools(
        &bytes,
        &Query::from_spec(QuerySpec { preset: "tools".into(), ..query_spec(&[]) }, TimeZone::UTC).unwrap()
    )
    .is_none());
}

/// Issue 38: a state whose min is above its max (forged: a run never makes
/// one) is refused by the binary reader as `--merge` refuses its
/// `--partial` line: one check for both.
#[test]
fn a_state_with_min_above_max_is_refused_as_merge_refuses_it() {
    let q = query(&["event"], &[("data.v", &["min", "max"])]);
    let mut m = merger(&q);
    m.line(br#"{"kind":"group","key":["x"],"count":2,"stats":[{"n":2,"sum":4,"min":1,"max":3}]}"#).unwrap();
    let Some((_, Answer::Groups(mut g))) = m.finish() else { panic!("no state") };
    assert!(decode(&encode(&g).unwrap(), &q).is_some());
    for group in g.map.values_mut() {
        let s = &mut group.stats[0];
        (s.min, s.max) = (s.max, s.min);
    }
    assert!(decode(&encode(&g).unwrap(), &q).is_none());
    let forged = &lines(&q, g)[1];
    let err = merger(&q).line(forged.as_bytes()).unwrap_err();
    assert_eq!(err, "bad metric state: min 3 is above max 1");
}
