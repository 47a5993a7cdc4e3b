//! A single 100 MB line streams through ci-cat within the default budget (peak
//! memory is measured outside the test: BENCHMARKS.md, "Reliability").

use std::io::Write;

use crate::util::ci;

#[test]
fn a_100_mb_line_is_cut_to_the_budget() {
    const BLOB: usize = 100_000_000;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.jsonl");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    f.write_all(b"{\"event\":\"tool:post\",\"data\":{\"tool_name\":\"bash\",\"blob\":\"").unwrap();
    let chunk = vec![b'x'; 1 << 20];
    let mut left = BLOB;
    while left > 0 {
        let n = left.min(chunk.len());
        f.write_all(&chunk[..n]).unwrap();
        left -= n;
    }
    f.write_all(b"\"}}\n{\"event\":\"small\",\"data\":{}}\n").unwrap();
    f.into_inner().unwrap().sync_all().unwrap();
    let run = ci("ci-cat").arg(&path).run();
    assert_eq!((run.stderr.as_str(), run.code), ("", 0));
    let lines = run.lines();
    assert_eq!(lines.len(), 2);
    assert!(lines[0].len() <= 4096, "over budget: {} bytes", lines[0].len());
    let big: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(big["event"], "tool:post");
    assert_eq!(big["data"]["tool_name"], "bash");
    assert_eq!(big["ci"]["line"], 1);
    let blob = big["data"]["blob"].as_str().unwrap();
    assert!(blob.starts_with("xxxx"));
    let kept = blob.bytes().take_while(|&b| b == b'x').count();
    assert!(blob.ends_with(&format!("…[+{} bytes]", BLOB - kept)), "{}", &blob[kept..]);
    let small: serde_json::Value = serde_json::from_str(lines[1]).unwrap();
    assert_eq!(small["event"], "small");
    assert_eq!(small["ci"]["line"], 2);
}
