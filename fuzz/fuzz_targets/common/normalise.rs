//! Shared by the writer normaliser targets (`transcript`, `rollout`): a
//! capture's bytes read line by line as the engine reads a capture's file,
//! each event printed and the printed record read back as a piped one.
//!
//! Input ([`capture_bytes`]): either raw bytes (the capture file) or a list
//! of JSON objects made from the writer's own vocabulary (keys and strings),
//! one per line, so that the fuzzer spends its time on lines the writer
//! recognises.

use ci_tools::format::Format;
use ci_tools::format::{CallKey, ReadState};
use ci_tools::json::{Index, Raw};
use ci_tools::lines::LineReader;
use ci_tools::output::{EventPrinter, DEFAULT_MAX_BYTES};
use ci_tools::record::{Event, LineKind};
use ci_tools::session::Capture;

/// A JSON value built from a vocabulary (`Word` and object keys index it).
#[derive(arbitrary::Arbitrary, Debug)]
pub enum Shaped {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Word(u8),
    Text(String),
    Array(Vec<Shaped>),
    Object(Vec<(u8, Shaped)>),
}

/// One line of shaped input: an object's members.
pub type Members = Vec<(u8, Shaped)>;

/// The capture file's bytes made from the fuzzer's input: its first byte
/// says how the rest is read. Even: the rest is the file, byte for byte
/// (seeds are files behind one zero byte). Odd: the rest, through
/// `arbitrary`, is a list of shaped objects from `words`, one per line.
pub fn capture_bytes(data: &[u8], words: &[&str]) -> Vec<u8> {
    let Some((&mode, rest)) = data.split_first() else { return Vec::new() };
    if mode % 2 == 0 {
        return rest.to_vec();
    }
    let lines: Vec<Members> =
        arbitrary::Arbitrary::arbitrary_take_rest(arbitrary::Unstructured::new(rest)).unwrap_or_default();
    let mut out = Vec::new();
    for members in &lines {
        object(&mut out, members, words);
        out.push(b'\n');
    }
    out
}

fn word<'w>(words: &[&'w str], i: u8) -> &'w str {
    words[usize::from(i) % words.len()]
}

fn string(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(serde_json::to_string(s).expect("a string serialises").as_bytes());
}

fn object(out: &mut Vec<u8>, members: &[(u8, Shaped)], words: &[&str]) {
    out.push(b'{');
    for (i, (k, v)) in members.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        string(out, word(words, *k));
        out.push(b':');
        value(out, v, words);
    }
    out.push(b'}');
}

fn value(out: &mut Vec<u8>, v: &Shaped, words: &[&str]) {
    match v {
        Shaped::Null => out.extend_from_slice(b"null"),
        Shaped::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        Shaped::Int(n) => out.extend_from_slice(n.to_string().as_bytes()),
        Shaped::Float(f) if f.is_finite() => {
            out.extend_from_slice(serde_json::to_string(f).expect("finite").as_bytes())
        }
        Shaped::Float(_) => out.extend_from_slice(b"1e400"),
        Shaped::Word(w) => string(out, word(words, *w)),
        Shaped::Text(s) => string(out, s),
        Shaped::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                value(out, item, words);
            }
            out.push(b']');
        }
        Shaped::Object(members) => object(out, members, words),
    }
}

/// Reads `bytes` as a capture of `writer` and checks every event (the
/// properties are in the targets' docs); returns the printed records.
pub fn check(writer: &'static Format, bytes: &[u8]) -> Vec<u8> {
    let cap = Capture {
        session: "s".into(),
        path: "f".into(),
        display: "f".into(),
        workspace: Some("ws".into()),
        format: writer,
        record: None,
        files: vec![],
    };
    let fmt = writer.dialect;
    let mut reader = LineReader::new(bytes);
    let mut idx = Index::new();
    let mut piped_idx = Index::new();
    let mut state = ReadState::default();
    let mut parts = Vec::new();
    let mut printed = Vec::new();
    while let Ok(Some(line)) = reader.next_line() {
        let Ok(rec) = idx.parse(line.bytes) else { continue };
        if fmt.accept(&rec).is_err() {
            continue;
        }
        fmt.observe(&rec, &mut state);
        parts.clear();
        if writer.profile.multi_part {
            fmt.parts(&rec, &mut state, &mut parts);
            assert!(parts.windows(2).all(|w| w[0] < w[1]), "parts in order, once each: {parts:?}");
        }
        let each: Vec<Option<u32>> =
            if writer.profile.multi_part { parts.iter().map(|&p| Some(p)).collect() } else { vec![None] };
        for part in each {
            let ev = Event::read(rec, &cap, line.number, "f", part, &state, line.site);
            let mut out = Vec::new();
            EventPrinter { max_bytes: Some(DEFAULT_MAX_BYTES), ..Default::default() }.write(&ev, &mut out);
            EventPrinter::default().write(&ev, &mut out);
            let (budgeted, full) = two_lines(&out);
            if full.len() <= DEFAULT_MAX_BYTES {
                assert_eq!(budgeted, full, "a record within budget is printed as with --full");
            }
            let v: serde_json::Value = serde_json::from_slice(full)
                .unwrap_or_else(|e| panic!("printed record is not JSON ({e}): {}", String::from_utf8_lossy(full)));
            assert_eq!(v["event"].as_str(), Some(ev.name().as_ref()), "event");
            assert!(!ev.name().is_empty(), "an event has a name");
            assert!(v["data"].is_object(), "data is an object: {v}");
            assert_eq!(v["ci"]["line"], line.number, "provenance line");
            // The printed record, read back as the next tool reads it.
            let back = piped_idx.parse(full).unwrap_or_else(|e| panic!("printed record does not parse: {e}"));
            assert_eq!(LineKind::of(&back), LineKind::Event, "printed record is an event record: {v}");
            let piped = Event::piped(back, 1, "-");
            assert_eq!(piped.format(), writer, "the record names its writer");
            same(&ev, &piped, &v);
            // A small budget still prints one line of JSON with the same envelope.
            let mut small = Vec::new();
            EventPrinter { max_bytes: Some(1024), ..Default::default() }.write(&ev, &mut small);
            let body = small.strip_suffix(b"\n").expect("newline");
            assert!(!body.contains(&b'\n'), "one line");
            let mut s: serde_json::Value = serde_json::from_slice(body).expect("budgeted record is JSON");
            // A cut record says so in its provenance.
            if let Some(ci) = s.get_mut("ci").and_then(|c| c.as_object_mut()) {
                ci.remove("cut");
            }
            for key in ["event", "timestamp", "workspace", "ci"] {
                assert_eq!(s.get(key), v.get(key), "{key} kept under a budget");
            }
            printed.extend_from_slice(full);
            printed.push(b'\n');
        }
    }
    printed
}

/// The two lines of `out`.
fn two_lines(out: &[u8]) -> (&[u8], &[u8]) {
    let body = out.strip_suffix(b"\n").expect("ends with a newline");
    let mut it = body.splitn(2, |&b| b == b'\n');
    let (a, b) = (it.next().expect("one"), it.next().expect("two"));
    assert!(!b.contains(&b'\n'), "one line each");
    (a, b)
}

fn raw(r: Option<Raw<'_>>) -> Option<Vec<u8>> {
    r.map(|r| r.bytes().to_vec())
}

fn key(k: CallKey<'_>) -> String {
    format!("{k:?}")
}

/// The event read from the capture and the same event read back from its
/// printed record give the same answers to every question a tool asks.
fn same(ev: &Event<'_>, piped: &Event<'_>, v: &serde_json::Value) {
    assert_eq!(piped.name(), ev.name(), "name: {v}");
    // A time that is not a string is printed as null (no tool reads one).
    assert_eq!(piped.timestamp_str(), ev.timestamp_str(), "timestamp: {v}");
    assert_eq!(piped.workspace(), ev.workspace(), "workspace: {v}");
    assert_eq!(piped.session(), ev.session(), "session: {v}");
    assert_eq!(raw(piped.data()), raw(ev.data()), "data: {v}");
    assert_eq!(raw(piped.tool_name()), raw(ev.tool_name()), "tool name: {v}");
    assert_eq!(key(piped.call_key()), key(ev.call_key()), "call key: {v}");
    assert_eq!(piped.failed(), ev.failed(), "failed: {v}");
    assert_eq!(raw(piped.duration_ms()), raw(ev.duration_ms()), "duration: {v}");
    assert_eq!(raw(piped.model()), raw(ev.model()), "model: {v}");
    assert_eq!(raw(piped.status()), raw(ev.status()), "status: {v}");
    let tokens = |e: &Event<'_>| e.tokens().map(raw);
    assert_eq!(tokens(piped), tokens(ev), "tokens: {v}");
    assert_eq!(raw(piped.cache_write_1h()), raw(ev.cache_write_1h()), "1-hour cache writes: {v}");
    assert_eq!(piped.message_key(), ev.message_key(), "message key: {v}");
    assert_eq!(piped.file_path(), ev.file_path(), "file path: {v}");
}

/// The whole target: the capture made from `data` ([`capture_bytes`],
/// printed to stderr when `CI_FUZZ_DUMP` is set, to see what an artifact
/// holds), checked, then read once more from a fresh state: the same records.
pub fn run(writer: &'static Format, data: &[u8], words: &[&str]) {
    let bytes = capture_bytes(data, words);
    if std::env::var_os("CI_FUZZ_DUMP").is_some() {
        eprintln!("{}", String::from_utf8_lossy(&bytes));
    }
    let printed = check(writer, &bytes);
    assert_eq!(check(writer, &bytes), printed, "reading is deterministic");
}
