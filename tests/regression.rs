//! Regression tests: one per bug found (by fuzzing, issue #8 "Reliability"),
//! each named after what it checks. The minimised fuzz input is in the test;
//! fuzz/README.md lists which target found it.

use ci_tools::json::Index;
use ci_tools::output::EventPrinter;
use ci_tools::record::{Event, LineKind};
use ci_tools::truncate::shrink_data;
use serde_json::{json, Value};

fn scanner_accepts(line: &[u8]) -> bool {
    Index::new().parse(line).is_ok()
}

fn serde_accepts(line: &[u8]) -> bool {
    matches!(serde_json::from_slice::<Value>(line), Ok(Value::Object(_)))
}

/// Prints `line` (an event record read from stdin: no capture, source `-`,
/// line 1) with a byte budget.
fn print(line: &[u8], max_bytes: Option<usize>) -> String {
    let mut idx = Index::new();
    let rec = idx.parse(line).expect("a valid record");
    assert_eq!(LineKind::of(&rec), LineKind::Event);
    let ev = Event::piped(rec, 1, "-");
    let mut out = Vec::new();
    EventPrinter { max_bytes, ..Default::default() }.write(&ev, &mut out);
    String::from_utf8(out).expect("UTF-8 output")
}

/// fuzz target json_differential: the scanner accepted numbers that overflow
/// `f64`, which serde_json refused then ("number out of range"), so `to_value`
/// of such a `data` failed and a shrunk record printed `"data":null`. Since
/// numbers are kept as written (issue 18, item 1) both accept any number, and
/// a shrunk record prints it unchanged.
#[test]
fn json_scanner_agrees_with_serde_on_numbers_of_any_size() {
    let huge = format!("{{\"a\":{}}}", "9".repeat(400));
    let cases: &[&[u8]] = &[
        br#"{"":5e802}"#, // the minimised fuzz input
        br#"{"a":1e400}"#,
        br#"{"a":-1e400}"#,
        br#"{"a":1.8e308}"#,
        br#"{"a":0.00001e99999999999999999999}"#,
        huge.as_bytes(),
        br#"{"a":1e-400}"#,
        br#"{"a":1.7976931348623157e308}"#, // f64::MAX
        br#"{"a":0e999999}"#,
        br#"{"a":18446744073709551616}"#, // past u64
        br#"{"a":1e-99999999999999999999}"#,
        br#"{"a":[1e308,-1e308]}"#,
    ];
    for line in cases {
        assert_eq!(scanner_accepts(line), serde_accepts(line), "{}", String::from_utf8_lossy(line));
        assert!(scanner_accepts(line), "{}", String::from_utf8_lossy(line));
    }
    assert_eq!(Index::new().parse(b"1e400").err().map(|e| e.to_string()), Some("not a JSON object".to_string()));
    let line = format!(r#"{{"event":"e","data":{{"v":[5e802,1E5,-0],"s":"{}"}}}}"#, "x".repeat(300));
    assert_eq!(
        print(line.as_bytes(), Some(150)),
        format!(
            "{{\"event\":\"e\",\"data\":{{\"v\":[5e802,1E5,-0],\"s\":\"{}…[+266 bytes]\"}},\"ci\":{{\"session\":null,\"path\":\"-\",\"line\":1,\"cut\":true}}}}\n",
            "x".repeat(34)
        )
    );
}

/// fuzz target event_output: with two `data` keys, a record over budget was
/// re-serialised as `{"event":…,"data":,"data":{…}}` (invalid JSON): only the
/// last `data` got a value. Now the earlier duplicates are dropped (the last
/// one is the record's `data`, as everywhere else).
#[test]
fn shrunk_record_with_duplicate_data_keys_is_valid_json() {
    // The minimised fuzz input: budget 32. Nothing in it can be cut, so it
    // is printed as --full prints it: the line as read (valid JSON).
    let out = print(br#"{"event":"sesrt","data":{},"data":{}}"#, Some(32));
    assert_eq!(
        out,
        "{\"event\":\"sesrt\",\"data\":{},\"data\":{},\"ci\":{\"session\":null,\"path\":\"-\",\"line\":1}}\n"
    );
    assert_eq!(out, print(br#"{"event":"sesrt","data":{},"data":{}}"#, None));
    // An earlier, big duplicate is not copied whole into the output (and
    // the record says it is not the line as read).
    let line = format!(r#"{{"event":"e","data":{{"big":"{}"}},"data":{{"tool_name":"t"}}}}"#, "x".repeat(1000));
    let out = print(line.as_bytes(), Some(200));
    assert_eq!(
        out,
        "{\"event\":\"e\",\"data\":{\"tool_name\":\"t\"},\"ci\":{\"session\":null,\"path\":\"-\",\"line\":1,\"cut\":true}}\n"
    );
    // Within budget the line is copied as read, duplicates and all.
    let out = print(br#"{"event":"e","data":{},"data":{"a":1}}"#, Some(4096));
    assert_eq!(
        out,
        "{\"event\":\"e\",\"data\":{},\"data\":{\"a\":1},\"ci\":{\"session\":null,\"path\":\"-\",\"line\":1}}\n"
    );
}

/// fuzz target truncate: serde_json without its `float_roundtrip` feature
/// parsed `1.1609576777970114e-28` one ulp off, so a shrunk record printed
/// `1.1609576777970112e-28`: a number changed by truncation, which promises
/// to leave numbers alone.
#[test]
fn shrunk_record_prints_numbers_exactly_as_written() {
    let text = "1.1609576777970114e-28";
    let v: Value = serde_json::from_str(text).expect("a number");
    assert_eq!(v.to_string(), text);

    let mut data = json!({"x": v, "s": "y".repeat(200)});
    shrink_data(&mut data, 120);
    assert_eq!(data["x"].to_string(), text);

    let line = format!(r#"{{"event":"e","data":{{"x":{text},"s":"{}"}}}}"#, "y".repeat(200));
    let out = print(line.as_bytes(), Some(150));
    assert!(out.len() <= 151, "{out}");
    assert!(out.contains(&format!("\"x\":{text},")), "{out}");
}
