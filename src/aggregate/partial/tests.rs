use super::*;
use proptest::prelude::*;

const VALID: &[&str] = &[
    r#"{"kind":"header","format":"ci-agg-partial","version":1,"query":{"preset":"group","by":["event"],"measures":[["x",["count","sum","p50","distinct"]]],"tz":"UTC"}}"#,
    r#"{"kind":"group","key":["a"],"count":3,"stats":[{"n":2,"sum":"1.5","min":"0.5","max":1,"q":{"v":["0.5",1]},"d":[1,"x",null]}]}"#,
    r#"{"kind":"group","key":["b"],"count":1,"stats":[{"n":2,"sum":3,"min":1,"max":2,"q":{"c":[[1.0,1.0],[2.0,1.0]],"min":1.0,"max":2.0}}]}"#,
];

fn merge_all(lines: &[String]) -> Option<Vec<crate::aggregate::groups::Row>> {
    let mut m = Merger::new();
    for l in lines {
        let _ = m.line(l.as_bytes());
    }
    let (q, a) = m.finish()?;
    Some(a.rows(&q, crate::aggregate::groups::Order::Count))
}

#[test]
fn valid_lines_merge() {
    let rows = merge_all(&VALID.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap();
    let out: Vec<String> = rows.iter().map(|r| Value::Object(r.record.clone()).to_string()).collect();
    assert_eq!(
        out,
        [
            // A JSON number in the wire is a float (exact values travel
            // as decimal strings), so what it feeds is approximate.
            r#"{"event":"a","count":3,"x":{"count":2,"sum":1.5,"p50":0.75,"distinct":3,"approximate":["p50"]}}"#,
            r#"{"event":"b","count":1,"x":{"count":2,"sum":3,"p50":1.5,"distinct":0,"approximate":["sum","p50"]}}"#,
        ]
    );
}

proptest! {
    /// Damaged partial lines are refused or merged, never a panic.
    #[test]
    fn damaged_lines_never_panic(edits in proptest::collection::vec((0usize..400, "[-0-9eE.\\[\\]{}\",:a-z]{0,3}"), 1..6)) {
        let mut lines: Vec<String> = VALID.iter().map(|s| s.to_string()).collect();
        for (i, (at, text)) in edits.iter().enumerate() {
            let line = &mut lines[1 + i % 2];
            let mut at = at % (line.len() + 1);
            while !line.is_char_boundary(at) {
                at -= 1;
            }
            line.insert_str(at, text);
        }
        let _ = merge_all(&lines);
    }
}
