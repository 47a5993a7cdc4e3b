//! Issue 18 ("Reliability: defects found by hostile input"): one test per
//! item, each the case the issue reproduced on the release binaries.

use crate::util::ci;

/// An Amplifier capture root holding one session `s1` of project `p` whose
/// events.jsonl is `lines`; returns the temp dir (the root) and the file.
fn capture(lines: &[String]) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let ci_dir = dir.path().join("p/sessions/s1/context-intelligence");
    std::fs::create_dir_all(&ci_dir).unwrap();
    std::fs::write(ci_dir.join("metadata.json"), r#"{"session_id":"s1"}"#).unwrap();
    let events = ci_dir.join("events.jsonl");
    std::fs::write(&events, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    let path = events.to_str().unwrap().to_owned();
    (dir, path)
}

const NUMBERS: &str = "[123456789012345678901234567890,18446744073709551616,1E5,1e5,1E+5,-0,1e-400,1e400,0.10]";

/// Item 1: a re-serialised record (over budget, `--fields`, a group key)
/// prints every number exactly as the line holds it; `1e400` is not a bad line.
#[test]
fn numbers_are_printed_as_written() {
    let long = "z".repeat(5000);
    let (dir, path) = capture(&[
        format!(r#"{{"event":"x","data":{{"v":{NUMBERS},"s":"{long}"}}}}"#),
        r#"{"event":"y","data":{"v":12345678901234567890123}}"#.into(),
        r#"{"event":"y","data":{"v":12345678901234567890124}}"#.into(),
        r#"{"event":"y","data":{"v":1e400}}"#.into(),
    ]);
    let ci_of = |line: u32| format!(r#"{{"session":"s1","path":"{path}","line":{line}}}"#);
    let cat = ci("ci-cat").arg(dir.path()).run();
    assert_eq!((cat.stderr.as_str(), cat.code), ("", 0));
    let first = cat.lines()[0];
    assert!(first.starts_with(&format!(r#"{{"event":"x","data":{{"v":{NUMBERS},"s":"zzz"#)), "{first}");
    assert_eq!(cat.lines()[3], format!(r#"{{"event":"y","data":{{"v":1e400}},"workspace":"p","ci":{}}}"#, ci_of(4)));

    let fields = ci("ci-cat").args(["--fields", "data.v"]).arg(dir.path()).run();
    assert_eq!((fields.stderr.as_str(), fields.code), ("", 0));
    assert_eq!(fields.lines()[0], format!(r#"{{"data":{{"v":{NUMBERS}}},"ci":{}}}"#, ci_of(1)));
    assert_eq!(fields.lines()[2], format!(r#"{{"data":{{"v":12345678901234567890124}},"ci":{}}}"#, ci_of(3)));

    let groups = ci("ci-agg").args(["--by", "data.v"]).arg(dir.path()).run();
    assert_eq!((groups.stderr.as_str(), groups.code), ("", 0));
    assert_eq!(
        groups.stdout,
        format!(
            "{}{}{}{{\"data.v\":{NUMBERS},\"count\":1}}\n",
            "{\"data.v\":12345678901234567890123,\"count\":1}\n",
            "{\"data.v\":12345678901234567890124,\"count\":1}\n",
            "{\"data.v\":1e400,\"count\":1}\n",
        )
    );
}

/// Item 6: top-level members beside `data` are content: over budget they
/// are cut in place (and a later tool makes the record whole again).
#[test]
fn extra_top_level_keys_are_cut() {
    let (dir, _) = capture(&[
        format!(r#"{{"event":"x","extra":"{}","data":{{}}}}"#, "z".repeat(100_000)),
        format!(
            r#"{{"event":"x","extra":"{}","more":[{}],"data":{{"a":"{}"}}}}"#,
            "z".repeat(100_000),
            vec!["1"; 3000].join(","),
            "b".repeat(30_000)
        ),
    ]);
    let cat = ci("ci-cat").arg(dir.path()).run();
    assert_eq!((cat.stderr.as_str(), cat.code), ("", 0));
    for line in cat.lines() {
        assert!(line.len() <= 4096, "{} bytes", line.len());
    }
    let first = cat.json()[0].clone();
    let extra = first["extra"].as_str().unwrap_or_default();
    assert!(extra.ends_with(" bytes]") && extra.starts_with("zzzz"), "{extra}");
    assert_eq!(first["data"], serde_json::json!({}));
    let second = cat.json()[1].clone();
    assert_eq!(second["more"], serde_json::json!(["…[+3000 items]"]));
    assert!(second["data"]["a"].as_str().is_some_and(|a| a.len() > 3000), "data keeps the room left");
    let full = ci("ci-cat").arg("--full").arg(dir.path()).run();
    let whole = ci("ci-cat").arg("--full").stdin(cat.stdout.clone()).run();
    assert_eq!((whole.stdout, whole.stderr, whole.code), (full.stdout, String::new(), 0));
}

/// Item 8: min, max and percentiles are never rounded to 18 places, and a
/// figure computed in floating point says so.
#[test]
fn aggregates_are_exact_or_say_approximate() {
    let lines = |vs: &[&str]| vs.iter().map(|v| format!(r#"{{"event":"x","data":{{"v":{v}}}}}"#)).collect::<Vec<_>>();
    let (dir, _) = capture(&lines(&["1e-30", "-1e-30", "1.5e-7"]));
    let run = ci("ci-agg").args(["--min", "data.v", "--max", "data.v", "--p50", "data.v"]).arg(dir.path()).run();
    assert_eq!(
        (run.stdout.as_str(), run.stderr.as_str(), run.code),
        (
            "{\"count\":3,\"data.v\":{\"min\":-1e-30,\"max\":0.00000015,\"p50\":1e-30,\"approximate\":[\"min\",\"p50\"]}}\n",
            "",
            0
        )
    );
    let (dir, _) = capture(&lines(&["170000000000000000000", "170000000000000000000", "0.000000000000000001"]));
    let run = ci("ci-agg").args(["--sum", "data.v", "--min", "data.v"]).arg(dir.path()).run();
    assert_eq!(
        (run.stdout.as_str(), run.code),
        ("{\"count\":3,\"data.v\":{\"sum\":3.4e+20,\"min\":0.000000000000000001,\"approximate\":[\"sum\"]}}\n", 0)
    );
    // Exact decimals keep every digit and carry no mark.
    let (dir, _) = capture(&lines(&["0.123456789012345678", "1"]));
    let run = ci("ci-agg").args(["--sum", "data.v"]).arg(dir.path()).run();
    assert_eq!(run.stdout, "{\"count\":2,\"data.v\":{\"sum\":1.123456789012345678}}\n");
}

/// Item 3: a merge of damaged partial streams refuses what it cannot trust.
#[test]
fn merge_refuses_damaged_partial_state() {
    let header = |tz: &str| {
        format!(
            r#"{{"kind":"header","format":"ci-agg-partial","version":1,"query":{{"preset":"group","by":["event"],"measures":[["data.v",["min","max"]]],"tz":"{tz}","cost":"auto","pricing":"litellm 1.110.2 (built in)"}}}}"#
        )
    };
    let group = |count: u64, min: &str, max: &str| {
        format!(r#"{{"kind":"group","key":["x"],"count":{count},"stats":[{{"n":1,"min":"{min}","max":"{max}"}}]}}"#)
    };
    let merge = |lines: Vec<String>| {
        let run = ci("ci-agg").arg("--merge").stdin(lines.join("\n") + "\n").run();
        (run.stdout, run.stderr, run.code)
    };
    let max = u64::MAX;
    assert_eq!(
        merge(vec![header("UTC"), group(max, "1", "2"), group(5, "1", "2")]),
        (
            format!("{{\"event\":\"x\",\"count\":{max},\"data.v\":{{\"min\":1,\"max\":2}}}}\n"),
            "ci-agg: -:3: merged counts overflow a 64-bit integer\n".into(),
            2
        )
    );
    assert_eq!(
        merge(vec![header("UTC"), group(1, "3", "2")]).1,
        "ci-agg: -:2: bad metric state: min 3 is above max 2\n"
    );
    let (out, err, code) =
        merge(vec![r#"{"kind":"skipped","bad_lines":1,"unfinished_lines":0}"#.into(), header("UTC")]);
    assert_eq!((out.as_str(), code), ("", 2));
    assert!(err.starts_with("ci-agg: -:1: partial state before its header line\n"), "{err}");
    let (out, err, code) = merge(vec![header("Mars/Olympus"), group(1, "1", "2")]);
    assert_eq!((out.as_str(), code), ("", 2), "{err}");
    assert!(err.starts_with("ci-agg: -:1: header: "), "{err}");
    assert!(err.contains("Mars/Olympus"), "{err}");
}
