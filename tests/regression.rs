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

/// Found by `fuzz/fuzz_targets/cache_store.rs` (the `--merge` round trip of a
/// cached state): a decimal of 38 significant digits that a sum reaches
/// (`20000000000000000000.000000000000000002`, two values of
/// `1e19 + 1e-18`) printed, but did not read back, so `--partial | --merge`
/// refused its state line ("bad decimal") where the direct run answered.
#[test]
fn every_decimal_a_sum_prints_reads_back() {
    use ci_tools::aggregate::decimal::Decimal;
    let one = Decimal::parse("10000000000000000000.000000000000000001").expect("37 digits");
    let two = one.checked_add(one).expect("within range");
    assert_eq!(two.to_string(), "20000000000000000000.000000000000000002");
    assert_eq!(Decimal::parse(&two.to_string()), Some(two));
    for units in [i128::MAX, i128::MAX - 1, -i128::MAX, -53148350643962495615581892295656341504, 1 << 100] {
        let d = Decimal::from_bits(units);
        assert_eq!(Decimal::parse(&d.to_string()), Some(d), "{d}");
    }
    // More digits than an i128 holds: zeros after the point are dropped,
    // anything else is refused.
    assert_eq!(Decimal::parse("20000000000000000000.0000000000000000020000"), Some(two));
    assert_eq!(Decimal::parse("20000000000000000000.0000000000000000021"), None);
    assert_eq!(Decimal::parse("200000000000000000000"), None);
}

/// Found by `fuzz/fuzz_targets/cache_store.rs`: a `--tools` state read from
/// a cache file (its checksum matching: another build's, or written by hand)
/// whose `ok` and `errors` counts add up past `u64::MAX` overflowed in
/// `Tools::rows` (a panic with overflow checks, a wrapped success rate
/// without). The minimised input is the fuzzer's.
#[test]
fn a_cached_tools_state_whose_counts_overflow_answers() {
    use ci_tools::aggregate::bin;
    use ci_tools::aggregate::query::{Query, QuerySpec};
    let spec = QuerySpec {
        preset: "tools".into(),
        by: vec!["event".into()],
        measures: vec![],
        tz: "UTC".into(),
        cost: "auto".into(),
        pricing: String::new(),
    };
    let q = Query::from_spec(spec, ci_tools::time::TimeZone::UTC).expect("a valid query");
    let state = b"\x03\x03\x00\x00\x00\x02\x00\x00\x00\x04\x08\x00\x00\x00\x74\x6f\x6f\x6c\x3a\x70\x72\x65\x04\x09\
        \x00\x00\x00\x72\x65\x61\x64\x5f\x66\x69\x6c\x65\x02\x00\x00\x01\x03\x00\x00\x00\x01\x00\xff\xff\
        \xff\xff\xff\xc6\xbd\x00\xff\xff\xff\xff\xff\xff\xff\x02\xff\x00\x00\x00\x00\x00\x02\x00\x00\x00\
        \x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x38\xe7\x4e\x3d\x06\xbb\x83\x00\x00\
        \x00\x00\x00\x00\x00\x00\x00\x00\x00\x03\x02\x03\xfa\x25\x01\x02\x00\x00\x00\x03\xfa\x25\x03\x02\
        \x00\x02\x00\x00\x00\x04\x08\x00\x00\x00\x74\x6f\x6f\x6c\x3a\x70\x72\x65\x04\x08\x00\x00\x00\x64\
        \x65\x6c\x65\x67\x61\x74\x65\x01\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\
        \x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\
        \x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x78\x3d\xd9\xc8\x62\x1c\x7e\x0a\x00\x00\x00\x00\x00\x00\
        \x00\x00\x00\x00\x03\x9c\x86\x06\x03\x9c\x86\x06\x01\x01\x00\x00\x00\x03\x9c\x86\x06\x00\x02\x00\
        \x00\x00\x04\x08\x00\x00\x00\x74\x6f\x6f\x6c\x3a\x70\x72\x65\x04\x04\x00\x00\x00\x62\x61\x73\x68\
        \x02\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\
        \x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\
        \x01\x00\x00\x2c\x6e\x1b\xe1\x4c\xa1\x3a\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x03\xee\x25\
        \x03\x98\x92\x02\x01\x02\x00\x00\x00\x03\xee\x25\x03\x98\x92\x02\x00";
    // Since cache schema 7 a --tools state ends with the copied calls it
    // holds (none here: two empty lists).
    let state = [&state[..], &[0u8; 8]].concat();
    let tools = bin::decode_tools(&state, &q).expect("the fuzzer's state decodes");
    for row in tools.rows(&q) {
        if let Some(rate) = row.record.get("success_rate").and_then(|r| r.as_f64()) {
            assert!((0.0..=1.0).contains(&rate), "{:?}", row.record);
        }
    }
}
