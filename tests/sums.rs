//! Float sums give the same digits however they are grouped (issue 38, D3):
//! one thread without the cache, several threads, the capture cache cold
//! and warm, and `--partial | --merge` shards.

use std::path::PathBuf;

use crate::kit::tree::Tree;
use crate::util::ci;

/// An Amplifier capture per list of `data.v` values (written as given).
fn captures(tree: &Tree, files: &[&[&str]]) -> Vec<PathBuf> {
    files
        .iter()
        .enumerate()
        .map(|(i, values)| {
            let lines: String = values
                .iter()
                .map(|v| format!("{{\"event\":\"e\",\"workspace\":\"w\",\"timestamp\":\"2026-03-01T00:00:00Z\",\"data\":{{\"v\":{v}}}}}\n"))
                .collect();
            tree.amplifier("p", format!("s{i}")).raw(lines).write().events
        })
        .collect()
}

/// Every way of running `--sum data.v` over `paths` prints `want`.
fn every_way_prints(paths: &[PathBuf], want: &str) {
    let args = ["--sum", "data.v", "--by", "event"];
    let plain = ci("ci-agg").args(args).args(["--no-cache", "-j1"]).args(paths).run();
    assert_eq!(plain.code, 0, "{}", plain.stderr);
    assert!(plain.stdout.contains(want), "{} lacks {want}", plain.stdout);
    for extra in [vec!["--no-cache", "-j2"], vec![], vec![], vec!["-j2"]] {
        let run = ci("ci-agg").args(args).args(&extra).args(paths).run();
        assert_eq!(run.stdout, plain.stdout, "{extra:?}");
    }
    let mut merged = String::new();
    for p in paths {
        merged += &ci("ci-agg").args(args).arg("--partial").arg(p).run().stdout;
    }
    let run = ci("ci-agg").arg("--merge").stdin(merged).run();
    assert_eq!(run.stdout, plain.stdout, "--partial | --merge");
}

#[test]
fn a_float_sum_does_not_depend_on_grouping() {
    let tree = Tree::new();
    // Added one by one: 1 + 1e21 - 1e21 lost the 1 (sum 0); merged per file, 1.
    let paths = captures(&tree, &[&["1.0000000000000000001"], &["1e21", "-1e21"]]);
    every_way_prints(&paths, r#""data.v":{"sum":1,"approximate":["sum"]}"#);
}

#[test]
fn many_small_floats_sum_alike_every_way() {
    let tree = Tree::new();
    let mut x: u64 = 0x9e3779b97f4a7c15;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        format!("{:e}", (x >> 11) as f64 / (1u64 << 53) as f64 * 1e-4)
    };
    let files: Vec<Vec<String>> = (0..4).map(|_| (0..25).map(|_| next()).collect()).collect();
    let refs: Vec<Vec<&str>> = files.iter().map(|f| f.iter().map(String::as_str).collect()).collect();
    let slices: Vec<&[&str]> = refs.iter().map(Vec::as_slice).collect();
    let paths = captures(&tree, &slices);
    every_way_prints(&paths, r#""approximate":["sum"]"#);
}

/// A float sum past ±1.8·10³⁰⁸ is infinite: `null` every way, through
/// `--partial | --merge` too (issue 38: the wire wrote its partial as `null`,
/// which `--merge` refused).
#[test]
fn an_infinite_sum_is_null_every_way() {
    let tree = Tree::new();
    let want = r#""data.v":{"sum":null,"approximate":["sum"]}"#;
    every_way_prints(&captures(&tree, &[&["1e308"], &["1e308"]]), want);
    let tree = Tree::new();
    every_way_prints(&captures(&tree, &[&["1e308", "1e308"], &["1"]]), want);
    let tree = Tree::new();
    every_way_prints(&captures(&tree, &[&["-1e308", "-1e308"], &["1e308", "1e308"]]), want);
}
