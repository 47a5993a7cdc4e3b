//! Printing event records: `output::EventPrinter::write` with a byte budget.
//!
//! Input layout: two bytes of budget (`u16`, little endian), then the line.
//! Lines that `Index::parse` rejects, that are not event records, or that hold
//! a `\n` (the line reader never yields one) are skipped. The event is built
//! as for a piped record: no capture, source `-`, line 1.
//!
//! Properties, for the budget `n` and for `--full` (no budget):
//! - the output is exactly one line (ending in `\n`) of valid JSON, an object;
//! - its `event`, `timestamp`, `workspace` (absent when absent: with no capture
//!   there is no fallback) equal the input's; a `ci` key is always there and
//!   equals the input's own `ci` when it had one;
//! - the protected direct members of `data` are unchanged;
//! - with a budget: the line fits in `n` bytes whenever the input line would,
//!   or `n` is at least the envelope plus `data` reduced to its protected
//!   members plus 40 (the floor guarantee of `truncate::shrink_data`);
//! - with `--full`: the output without the added `ci` key equals the input.
#![no_main]

use ci_tools::json::Index;
use ci_tools::output::EventPrinter;
use ci_tools::record::{Event, LineKind};
use ci_tools::truncate::is_protected_key;
use libfuzzer_sys::fuzz_target;

#[path = "common/budgeted.rs"]
mod budgeted;
use serde_json::{Map, Value};

fuzz_target!(|bytes: &[u8]| {
    let Some((budget, line)) = budgeted::split(bytes) else { return };
    let mut idx = Index::new();
    let Ok(rec) = idx.parse(line) else {
        return;
    };
    if LineKind::of(&rec) != LineKind::Event {
        return;
    }
    let input: Map<String, Value> = match serde_json::from_slice(line) {
        Ok(Value::Object(m)) => m,
        other => panic!("scanner accepted what serde does not: {other:?}"),
    };
    let ev = Event::piped(rec, 1, "-");

    // --full
    let full = print(&ev, None);
    let mut without_ci = full.clone();
    if !input.contains_key("ci") {
        assert!(without_ci.remove("ci").is_some(), "ci key added");
    }
    assert_eq!(without_ci, input, "--full changes nothing but ci");

    // With a budget.
    let mut out = Vec::new();
    EventPrinter { max_bytes: Some(budget), ..Default::default() }.write(&ev, &mut out);
    let printed = one_line(&out);
    let shrunk = object(printed);
    for key in ["event", "timestamp", "workspace"] {
        assert_eq!(shrunk.get(key), input.get(key), "{key}");
    }
    // The provenance is --full's, plus `"cut":true` when anything was cut
    // (a piped record: its line's site is unknown).
    let mut ci = shrunk.get("ci").cloned();
    let cut = ci.as_mut().and_then(Value::as_object_mut).and_then(|c| c.remove("cut"));
    assert_eq!(ci.as_ref(), full.get("ci"));
    assert!(cut.is_none() || cut == Some(Value::Bool(true)), "cut marker {cut:?}");
    let data_in = input.get("data").and_then(Value::as_object).expect("event data");
    let data_out = shrunk.get("data").and_then(Value::as_object).expect("data kept an object");
    let mut protected = Map::new();
    for (k, v) in data_in.iter().filter(|(k, _)| is_protected_key(k)) {
        assert_eq!(data_out.get(k), Some(v), "protected data.{k}");
        protected.insert(k.clone(), v.clone());
    }
    let whole = one_line(&{
        let mut o = Vec::new();
        EventPrinter::default().write(&ev, &mut o);
        o
    })
    .len();
    let data_len = serde_json::to_vec(&Value::Object(data_out.clone())).expect("serialises").len();
    let envelope = printed.len().saturating_sub(data_len);
    let floor = envelope + serde_json::to_vec(&Value::Object(protected)).expect("ser").len() + 40;
    if budget >= whole.min(floor + 1) {
        assert!(printed.len() <= budget, "{} bytes over budget {budget} (whole {whole}, floor {floor})", printed.len());
    }
});

/// The output minus its newline, which must be the only one.
fn one_line(out: &[u8]) -> &[u8] {
    let body = out.strip_suffix(b"\n").expect("ends with a newline");
    assert!(!body.contains(&b'\n'), "one line");
    body
}

fn object(line: &[u8]) -> Map<String, Value> {
    match serde_json::from_slice(line) {
        Ok(Value::Object(m)) => m,
        Ok(v) => panic!("not an object: {v}"),
        Err(e) => panic!("invalid JSON ({e}): {}", String::from_utf8_lossy(line)),
    }
}

fn print(ev: &Event<'_>, max_bytes: Option<usize>) -> Map<String, Value> {
    let mut out = Vec::new();
    EventPrinter { max_bytes, ..Default::default() }.write(ev, &mut out);
    object(one_line(&out))
}
