//! Parsers on our line shapes (issue #7): the project's validating scanner
//! (`ci_tools::json`) against serde_json and simd-json, one thread, every line
//! in memory, three jobs:
//!
//! - `envelope`: read `event`, `workspace` and `timestamp` of every line, every
//!   line fully validated (UTF-8 included);
//! - `session`: the fields `ci-agg --sessions`/`--tokens` read inside `data`,
//!   chosen by event name as `src/aggregate/{session,calls}.rs` do;
//! - `grep`: decode every string value and every key inside `data` (ci-grep's
//!   default scope with `--keys`) and look for a rare literal in each; one
//!   more variant is what ci-grep now runs on a line that passes its raw
//!   pre-check (our validation, then simd-json's tape for the strings).
//!
//! simd-json parses in place, so each of its variants copies the line first
//! (that copy is part of its real cost: our lines are borrowed from the read
//! buffer). Each variant returns a checksum of what it read; the harness says
//! when the variants of a job disagree.
//!
//! ```text
//! CI_PARSERS_FILE=lines.jsonl cargo bench --bench parsers
//! ```
//!
//! Environment: `CI_PARSERS_FILE` (a JSONL file; default: a small corpus of
//! the same shapes generated here), `CI_PARSERS_ROUNDS` (default 5; every
//! variant runs once per round, interleaved, and the median is reported),
//! `CI_PARSERS_JOBS` (comma list of `envelope,session,grep`),
//! `CI_PARSERS_NEEDLE` (the grep literal, default `zqxjv-never`).

use std::borrow::Cow;
use std::fmt;
use std::time::{Duration, Instant};

use ci_tools::json::{decode_str, Index, Raw, Record};
use ci_tools::search::tape;
use ci_tools::search::walk::{self, Scope};
use memchr::memmem::Finder;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use simd_json::prelude::*;
use simd_json::{BorrowedValue, Buffers, Tape, INPUT_PADDING};

/// What a variant read: compared across the variants of one job.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Sum {
    ok: u64,
    bad: u64,
    strings: u64,
    bytes: u64,
    hits: u64,
}

impl Sum {
    fn text(&mut self, s: Option<&str>) {
        if let Some(s) = s {
            self.strings += 1;
            self.bytes += s.len() as u64;
        }
    }

    fn num(&mut self, n: Option<f64>) {
        if let Some(n) = n {
            self.strings += 1;
            self.bytes = self.bytes.wrapping_add(n as u64);
        }
    }
}

impl fmt::Display for Sum {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ok {} bad {} strings {} bytes {} hits {}", self.ok, self.bad, self.strings, self.bytes, self.hits)
    }
}

type Run = Box<dyn FnMut(&[&[u8]]) -> Sum>;

struct Variant {
    job: &'static str,
    name: &'static str,
    run: Run,
    times: Vec<Duration>,
    sum: Option<Sum>,
}

fn main() {
    let data = match std::env::var_os("CI_PARSERS_FILE") {
        Some(p) => match std::fs::read(&p) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("parsers: cannot read {}: {e}", p.to_string_lossy());
                std::process::exit(2);
            }
        },
        None => generate(4 << 20),
    };
    let lines: Vec<&[u8]> = data.split(|&b| b == b'\n').filter(|l| !l.is_empty()).collect();
    let bytes: usize = lines.iter().map(|l| l.len() + 1).sum();
    let rounds: usize = std::env::var("CI_PARSERS_ROUNDS").ok().and_then(|r| r.parse().ok()).unwrap_or(5).max(1);
    let jobs = std::env::var("CI_PARSERS_JOBS").unwrap_or_else(|_| "envelope,session,grep".into());
    let needle = std::env::var("CI_PARSERS_NEEDLE").unwrap_or_else(|_| "zqxjv-never".into());

    let mut variants: Vec<Variant> = vec![];
    let mut add = |job: &'static str, name: &'static str, run: Run| {
        if jobs.split(',').any(|j| j.trim() == job) {
            variants.push(Variant { job, name, run, times: vec![], sum: None });
        }
    };
    envelope::variants(&mut add);
    session::variants(&mut add);
    grep::variants(&mut add, needle.into_bytes());

    println!(
        "parsers: {} lines, {:.1} MB, {rounds} rounds, simd-json {:?}",
        lines.len(),
        bytes as f64 / 1e6,
        simd_json::Deserializer::algorithm()
    );
    agreement_on_bad_lines();
    for _ in 0..rounds {
        for v in &mut variants {
            let t = Instant::now();
            let sum = (v.run)(&lines);
            v.times.push(t.elapsed());
            std::hint::black_box(sum);
            v.sum = Some(sum);
        }
    }
    report(&mut variants, bytes);
}

fn median(times: &mut [Duration]) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn report(variants: &mut [Variant], bytes: usize) {
    println!("{:<9} {:<34} {:>9} {:>9} {:>8}  checksum", "job", "variant", "median ms", "MB/s", "vs ours");
    let mut ours = Duration::ZERO;
    let mut reference: Option<Sum> = None;
    let mut job = "";
    for v in variants.iter_mut() {
        let m = median(&mut v.times);
        if v.job != job {
            job = v.job;
            ours = m;
            reference = v.sum;
        }
        let same =
            if v.sum == reference { "same".to_string() } else { format!("DIFFERS: {}", v.sum.unwrap_or_default()) };
        println!(
            "{:<9} {:<34} {:>9.1} {:>9.0} {:>7.2}x  {}",
            v.job,
            v.name,
            m.as_secs_f64() * 1e3,
            bytes as f64 / 1e6 / m.as_secs_f64(),
            ours.as_secs_f64() / m.as_secs_f64(),
            if v.sum == reference { format!("{} ({same})", v.sum.unwrap_or_default()) } else { same },
        );
    }
}

/// Lines our scanner refuses (from `src/json.rs`'s tests): does each parser
/// refuse them too? A parser that accepts one could not replace ours
/// without changing which lines are reported.
fn agreement_on_bad_lines() {
    let bad: &[&[u8]] = &[
        b"{\"a\":\"\\x\"}",
        b"{\"a\":\"\\udc00\"}",
        b"{\"a\":\"\\ud83d\"}",
        b"{\"a\":\"\x01\"}",
        b"{\"a\":01}",
        b"{\"a\":1e400}",
        b"{\"a\":[1,]}",
        b"{\"a\":1}{\"a\":2}",
        b"{\"a\":\"\xff\"}",
        b"{\"data\":{\"x\":\"ab",
    ];
    let mut scratch = vec![];
    let mut buffers = Buffers::default();
    let mut accepted = vec![];
    for line in bad {
        let ours = Index::new().parse(line).is_ok();
        let serde =
            simdutf8::basic::from_utf8(line).ok().is_some_and(|s| serde_json::from_str::<serde_json::Value>(s).is_ok());
        scratch.clear();
        scratch.extend_from_slice(line);
        let simd = simd_json::to_borrowed_value_with_buffers(&mut scratch, &mut buffers).is_ok();
        if ours || serde || simd {
            accepted.push(format!(
                "{} (ours {ours}, serde_json {serde}, simd-json {simd})",
                String::from_utf8_lossy(line).escape_debug()
            ));
        }
    }
    if accepted.is_empty() {
        println!("bad lines: all {} refused by every parser", bad.len());
    } else {
        println!("bad lines accepted by some parser: {}", accepted.join("; "));
    }
}

/// Registers the two serde variants of a job: serde_json and simd-json's
/// serde deserializer into the struct `$ty`, then `$read(&value, sum)`.
macro_rules! serde_variants {
    ($add:expr, $job:literal, $ty:ident, $read:expr) => {{
        $add(
            $job,
            "serde_json: struct, utf8 + from_str",
            Box::new(|lines| {
                each(lines, &mut |line, sum| {
                    let Some(v) = serde_line::<$ty>(line) else {
                        return false;
                    };
                    $read(&v, sum);
                    true
                })
            }),
        );
        let (mut scratch, mut buffers) = (vec![], Buffers::default());
        $add(
            $job,
            "simd-json: serde struct",
            Box::new(move |lines| {
                each(lines, &mut |line, sum| {
                    scratch.clear();
                    scratch.extend_from_slice(line);
                    let Ok(v) = simd_json::serde::from_slice_with_buffers::<$ty>(&mut scratch, &mut buffers) else {
                        return false;
                    };
                    $read(&v, sum);
                    true
                })
            }),
        );
    }};
}

/// Runs `f` on each line; `f` says whether the line parsed.
fn each(lines: &[&[u8]], f: &mut dyn FnMut(&[u8], &mut Sum) -> bool) -> Sum {
    let mut sum = Sum::default();
    for line in lines {
        if f(line, &mut sum) {
            sum.ok += 1;
        } else {
            sum.bad += 1;
        }
    }
    sum
}

/// Runs `f` on our scanner's record of each line, reusing the index.
fn with_records(lines: &[&[u8]], idx: &mut Index, f: &mut dyn FnMut(&Record<'_>, &mut Sum)) -> Sum {
    each(lines, &mut |line, sum| {
        let Ok(rec) = idx.parse(line) else {
            return false;
        };
        f(&rec, sum);
        true
    })
}

/// Copies `line` into `scratch` with simd-json's padding after it.
fn padded(scratch: &mut Vec<u8>, line: &[u8]) {
    scratch.clear();
    scratch.extend_from_slice(line);
    scratch.resize(line.len() + INPUT_PADDING, 0);
}

/// Runs `f` on the tape of each line, reusing the tape, buffers and copy.
fn with_tapes(
    lines: &[&[u8]],
    state: &mut TapeState,
    f: &mut dyn FnMut(simd_json::tape::Value<'_, '_>, &mut Sum),
) -> Sum {
    let TapeState { scratch, buffers, spare } = state;
    each(lines, &mut |line, sum| {
        padded(scratch, line);
        let mut tape = std::mem::replace(spare, Tape(Vec::new())).reset();
        let ok = simd_json::fill_tape_padded(scratch, line.len(), buffers, &mut tape).is_ok();
        if ok {
            f(tape.as_value(), sum);
        }
        *spare = tape.reset();
        ok
    })
}

/// What the tape variants keep between lines.
struct TapeState {
    scratch: Vec<u8>,
    buffers: Buffers,
    spare: Tape<'static>,
}

impl TapeState {
    fn new() -> TapeState {
        TapeState { scratch: vec![], buffers: Buffers::default(), spare: Tape(Vec::new()) }
    }
}

/// Runs `f` on the borrowed value of each line.
fn with_values(
    lines: &[&[u8]],
    scratch: &mut Vec<u8>,
    buffers: &mut Buffers,
    f: &mut dyn FnMut(&BorrowedValue<'_>, &mut Sum),
) -> Sum {
    each(lines, &mut |line, sum| {
        scratch.clear();
        scratch.extend_from_slice(line);
        let Ok(v) = simd_json::to_borrowed_value_with_buffers(scratch, buffers) else {
            return false;
        };
        f(&v, sum);
        true
    })
}

/// serde_json on a line whose UTF-8 was checked first (with SIMD, as ours
/// does): `from_slice` does not check the UTF-8 of the strings it skips.
fn serde_line<'a, T: Deserialize<'a>>(line: &'a [u8]) -> Option<T> {
    serde_json::from_str(simdutf8::basic::from_utf8(line).ok()?).ok()
}

/// A string field that reads as `None` when the value is not a string.
#[derive(Debug, Default)]
struct AnyStr<'a>(Option<Cow<'a, str>>);

impl<'de: 'a, 'a> Deserialize<'de> for AnyStr<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = AnyStr<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(AnyStr(Some(Cow::Borrowed(v))))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(AnyStr(Some(Cow::Owned(v.to_owned()))))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(AnyStr(Some(Cow::Owned(v))))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(AnyStr(None))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(AnyStr(None))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(AnyStr(None))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(AnyStr(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(AnyStr(None))
            }
            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(AnyStr(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Self::Value, A::Error> {
                while m.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(AnyStr(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Self::Value, A::Error> {
                while s.next_element::<IgnoredAny>()?.is_some() {}
                Ok(AnyStr(None))
            }
        }
        d.deserialize_any(V).map(|s| AnyStr(s.0))
    }
}

impl AnyStr<'_> {
    fn get(&self) -> Option<&str> {
        self.0.as_deref()
    }
}

/// Job (a): the envelope of every line.
mod envelope {
    use super::*;

    /// The envelope as serde reads it (`data` and any other key skipped).
    #[derive(Deserialize)]
    struct Envelope<'a> {
        #[serde(borrow, default)]
        event: AnyStr<'a>,
        #[serde(borrow, default)]
        workspace: AnyStr<'a>,
        #[serde(borrow, default)]
        timestamp: AnyStr<'a>,
    }

    fn add_env(e: &Envelope<'_>, sum: &mut Sum) {
        sum.text(e.event.get());
        sum.text(e.workspace.get());
        sum.text(e.timestamp.get());
    }

    pub(super) fn variants(add: &mut dyn FnMut(&'static str, &'static str, Run)) {
        let mut idx = Index::new();
        add(
            "envelope",
            "ours: Index::parse + get_str",
            Box::new(move |lines| {
                with_records(lines, &mut idx, &mut |rec, sum| {
                    for k in ["event", "workspace", "timestamp"] {
                        sum.text(rec.get_str(k).as_deref());
                    }
                })
            }),
        );
        serde_variants!(add, "envelope", Envelope, add_env);
        let mut state = TapeState::new();
        add(
            "envelope",
            "simd-json: tape (fill_tape_padded)",
            Box::new(move |lines| {
                with_tapes(lines, &mut state, &mut |v, sum| {
                    for k in ["event", "workspace", "timestamp"] {
                        sum.text(v.get(k).as_ref().and_then(|s| s.as_str()));
                    }
                })
            }),
        );
        let (mut scratch, mut buffers) = (vec![], Buffers::default());
        add(
            "envelope",
            "simd-json: borrowed value",
            Box::new(move |lines| {
                with_values(lines, &mut scratch, &mut buffers, &mut |v, sum| {
                    for k in ["event", "workspace", "timestamp"] {
                        sum.text(v.get(k).and_then(|s| s.as_str()));
                    }
                })
            }),
        );
    }
}

/// Job (b): what `ci-agg --sessions` reads inside `data`, by event name
/// (`src/aggregate/session.rs`, `calls.rs`): `parent_id` (first lines);
/// `session:fork`:
/// `parent`, `metadata.agent_name`; tool events: `tool_call_id`/`tool_use_id`,
/// `tool_name`, `tool_input.file_path`, `result.success`, `duration_ms`;
/// `orchestrator:complete`: `status`; `session:start`: `model`;
/// `llm:response`: `model` and the usage fields (both generations);
/// `delegate:*`: `sub_session_id`.
mod session {
    use super::*;

    const USAGE: [(&str, Option<&str>); 5] = [
        ("input_tokens", Some("input")),
        ("output_tokens", Some("output")),
        ("cache_read_tokens", Some("cache_read")),
        ("cache_write_tokens", Some("cache_write")),
        ("cost_usd", None),
    ];

    /// `session.rs` reads `data.parent_id` from a session's first line only;
    /// here the lines that start sessions stand for it.
    fn first_line(e: &str) -> bool {
        matches!(e, "session:start" | "session:fork")
    }

    fn is_tool(e: &str) -> bool {
        matches!(e, "tool:pre" | "tool:post" | "tool:error")
    }

    /// A number, or a numeric string (`cost_usd` is a decimal string).
    fn num_of_str(s: Option<&str>) -> Option<f64> {
        s.and_then(|s| s.parse().ok())
    }

    /// Generic access so the three DOM-ish variants share the field logic.
    trait Node: Sized + Copy {
        fn field(self, k: &str) -> Option<Self>;
        fn text(self) -> Option<Cow<'static, str>>;
        fn number(self) -> Option<f64>;
        fn boolean(self) -> Option<bool>;
    }

    impl Node for Raw<'_> {
        fn field(self, k: &str) -> Option<Self> {
            self.get(k)
        }
        fn text(self) -> Option<Cow<'static, str>> {
            self.as_str().map(|s| Cow::Owned(s.into_owned()))
        }
        fn number(self) -> Option<f64> {
            self.as_f64().or_else(|| num_of_str(self.as_str().as_deref()))
        }
        fn boolean(self) -> Option<bool> {
            self.as_bool()
        }
    }

    impl Node for simd_json::tape::Value<'_, '_> {
        fn field(self, k: &str) -> Option<Self> {
            self.get(k)
        }
        fn text(self) -> Option<Cow<'static, str>> {
            self.as_str().map(|s| Cow::Owned(s.to_owned()))
        }
        fn number(self) -> Option<f64> {
            self.cast_f64().or_else(|| num_of_str(self.as_str()))
        }
        fn boolean(self) -> Option<bool> {
            self.as_bool()
        }
    }

    impl Node for &BorrowedValue<'_> {
        fn field(self, k: &str) -> Option<Self> {
            self.get(k)
        }
        fn text(self) -> Option<Cow<'static, str>> {
            self.as_str().map(|s| Cow::Owned(s.to_owned()))
        }
        fn number(self) -> Option<f64> {
            self.cast_f64().or_else(|| num_of_str(self.as_str()))
        }
        fn boolean(self) -> Option<bool> {
            self.as_bool()
        }
    }

    /// Reads what the session aggregation reads (the strings are made owned,
    /// as `session.rs` keeps them).
    fn read<N: Node>(event: Option<&str>, data: Option<N>, sum: &mut Sum) {
        let Some(event) = event else { return };
        let Some(d) = data else { return };
        let s = |k: &str| d.field(k).and_then(|v| v.text());
        if first_line(event) {
            sum.text(s("parent_id").as_deref());
        }
        match event {
            "session:fork" => {
                sum.text(s("parent").as_deref());
                sum.text(d.field("metadata").and_then(|m| m.field("agent_name")).and_then(|a| a.text()).as_deref());
            }
            e if is_tool(e) => {
                sum.text(s("tool_call_id").or_else(|| s("tool_use_id")).as_deref());
                sum.text(s("tool_name").as_deref());
                sum.text(d.field("tool_input").and_then(|i| i.field("file_path")).and_then(|f| f.text()).as_deref());
                if e != "tool:pre" {
                    let ok = d.field("result").and_then(|r| r.field("success")).and_then(|b| b.boolean());
                    sum.num(ok.map(|b| b as u8 as f64));
                    sum.num(d.field("duration_ms").and_then(|n| n.number()));
                }
            }
            "orchestrator:complete" => sum.text(s("status").as_deref()),
            "session:start" => sum.text(s("model").as_deref()),
            "llm:response" => {
                sum.text(s("model").as_deref());
                if let Some(u) = d.field("usage") {
                    for (k, old) in USAGE {
                        sum.num(u.field(k).or_else(|| old.and_then(|o| u.field(o))).and_then(|n| n.number()));
                    }
                }
            }
            "delegate:agent_spawned" | "delegate:agent_completed" => sum.text(s("sub_session_id").as_deref()),
            _ => {}
        }
    }

    /// serde: every field of every event declared up front (serde cannot
    /// choose by event name: `event` may come after `data`).
    #[derive(Deserialize)]
    struct Line<'a> {
        #[serde(borrow, default)]
        event: AnyStr<'a>,
        #[serde(borrow, default)]
        data: Option<Data<'a>>,
    }

    #[derive(Deserialize)]
    struct Data<'a> {
        #[serde(borrow, default)]
        parent_id: AnyStr<'a>,
        #[serde(borrow, default)]
        parent: AnyStr<'a>,
        #[serde(borrow, default)]
        metadata: Option<Meta<'a>>,
        #[serde(borrow, default)]
        tool_call_id: AnyStr<'a>,
        #[serde(borrow, default)]
        tool_use_id: AnyStr<'a>,
        #[serde(borrow, default)]
        tool_name: AnyStr<'a>,
        #[serde(borrow, default)]
        tool_input: Option<ToolInput<'a>>,
        #[serde(default)]
        result: Option<Outcome>,
        #[serde(default)]
        duration_ms: Option<f64>,
        #[serde(borrow, default)]
        status: AnyStr<'a>,
        #[serde(borrow, default)]
        model: AnyStr<'a>,
        #[serde(borrow, default)]
        usage: Option<UsageFields<'a>>,
        #[serde(borrow, default)]
        sub_session_id: AnyStr<'a>,
    }

    #[derive(Deserialize)]
    struct Meta<'a> {
        #[serde(borrow, default)]
        agent_name: AnyStr<'a>,
    }

    /// `tool_input` is an object, or a raw string.
    #[derive(Default)]
    struct ToolInput<'a> {
        file_path: AnyStr<'a>,
    }

    impl<'de: 'a, 'a> Deserialize<'de> for ToolInput<'a> {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> Visitor<'de> for V {
                type Value = ToolInput<'de>;
                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str("an object or a string")
                }
                fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
                    Ok(ToolInput::default())
                }
                fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Self::Value, A::Error> {
                    let mut out = ToolInput::default();
                    while let Some(k) = m.next_key::<Cow<'de, str>>()? {
                        if k == "file_path" {
                            out.file_path = m.next_value()?;
                        } else {
                            m.next_value::<IgnoredAny>()?;
                        }
                    }
                    Ok(out)
                }
            }
            d.deserialize_any(V).map(|t| ToolInput { file_path: AnyStr(t.file_path.0) })
        }
    }

    #[derive(Deserialize)]
    struct Outcome {
        #[serde(default)]
        success: Option<bool>,
    }

    #[derive(Deserialize)]
    struct UsageFields<'a> {
        input_tokens: Option<f64>,
        input: Option<f64>,
        output_tokens: Option<f64>,
        output: Option<f64>,
        cache_read_tokens: Option<f64>,
        cache_read: Option<f64>,
        cache_write_tokens: Option<f64>,
        cache_write: Option<f64>,
        #[serde(borrow, default)]
        cost_usd: AnyStr<'a>,
    }

    fn add_serde(l: &Line<'_>, sum: &mut Sum) {
        let (Some(event), Some(d)) = (l.event.get(), &l.data) else { return };
        let own = |s: &AnyStr<'_>| s.get().map(str::to_owned);
        if first_line(event) {
            sum.text(own(&d.parent_id).as_deref());
        }
        match event {
            "session:fork" => {
                sum.text(own(&d.parent).as_deref());
                sum.text(d.metadata.as_ref().and_then(|m| own(&m.agent_name)).as_deref());
            }
            e if is_tool(e) => {
                sum.text(own(&d.tool_call_id).or_else(|| own(&d.tool_use_id)).as_deref());
                sum.text(own(&d.tool_name).as_deref());
                sum.text(d.tool_input.as_ref().and_then(|i| own(&i.file_path)).as_deref());
                if e != "tool:pre" {
                    sum.num(d.result.as_ref().and_then(|r| r.success).map(|b| b as u8 as f64));
                    sum.num(d.duration_ms);
                }
            }
            "orchestrator:complete" => sum.text(own(&d.status).as_deref()),
            "session:start" => sum.text(own(&d.model).as_deref()),
            "llm:response" => {
                sum.text(own(&d.model).as_deref());
                if let Some(u) = &d.usage {
                    sum.num(u.input_tokens.or(u.input));
                    sum.num(u.output_tokens.or(u.output));
                    sum.num(u.cache_read_tokens.or(u.cache_read));
                    sum.num(u.cache_write_tokens.or(u.cache_write));
                    sum.num(num_of_str(u.cost_usd.get()));
                }
            }
            "delegate:agent_spawned" | "delegate:agent_completed" => sum.text(own(&d.sub_session_id).as_deref()),
            _ => {}
        }
    }

    pub(super) fn variants(add: &mut dyn FnMut(&'static str, &'static str, Run)) {
        let mut idx = Index::new();
        add(
            "session",
            "ours: Index::parse + Raw::get",
            Box::new(move |lines| {
                with_records(lines, &mut idx, &mut |rec, sum| {
                    read(rec.get_str("event").as_deref(), rec.get("data"), sum)
                })
            }),
        );
        serde_variants!(add, "session", Line, add_serde);
        let mut state = TapeState::new();
        add(
            "session",
            "simd-json: tape (fill_tape_padded)",
            Box::new(move |lines| {
                with_tapes(lines, &mut state, &mut |v, sum| {
                    let event = v.get("event");
                    read(event.as_ref().and_then(|e| e.as_str()), v.get("data"), sum)
                })
            }),
        );
        let (mut scratch, mut buffers) = (vec![], Buffers::default());
        add(
            "session",
            "simd-json: borrowed value",
            Box::new(move |lines| {
                with_values(lines, &mut scratch, &mut buffers, &mut |v, sum| {
                    read(v.get("event").and_then(|e| e.as_str()), v.get("data"), sum)
                })
            }),
        );
    }
}

/// Job (c): every string value and key inside `data`, decoded, searched.
mod grep {
    use super::*;

    fn look(finder: &Finder<'_>, s: &str, sum: &mut Sum) {
        sum.text(Some(s));
        if finder.find(s.as_bytes()).is_some() {
            sum.hits += 1;
        }
    }

    fn walk_serde(v: &serde_json::Value, finder: &Finder<'_>, sum: &mut Sum) {
        match v {
            serde_json::Value::String(s) => look(finder, s, sum),
            serde_json::Value::Array(a) => a.iter().for_each(|v| walk_serde(v, finder, sum)),
            serde_json::Value::Object(o) => {
                for (k, v) in o {
                    look(finder, k, sum);
                    walk_serde(v, finder, sum);
                }
            }
            _ => {}
        }
    }

    fn walk_value(v: &BorrowedValue<'_>, finder: &Finder<'_>, sum: &mut Sum) {
        match v {
            BorrowedValue::String(s) => look(finder, s, sum),
            BorrowedValue::Array(a) => a.iter().for_each(|v| walk_value(v, finder, sum)),
            BorrowedValue::Object(o) => {
                for (k, v) in o.iter() {
                    look(finder, k, sum);
                    walk_value(v, finder, sum);
                }
            }
            BorrowedValue::Static(_) => {}
        }
    }

    fn walk_tape(v: simd_json::tape::Value<'_, '_>, finder: &Finder<'_>, sum: &mut Sum) {
        if let Some(s) = v.as_str() {
            look(finder, s, sum);
        } else if let Some(a) = v.as_array() {
            a.iter().for_each(|v| walk_tape(v, finder, sum));
        } else if let Some(o) = v.as_object() {
            for (k, v) in o.iter() {
                look(finder, k, sum);
                walk_tape(v, finder, sum);
            }
        }
    }

    pub(super) fn variants(add: &mut dyn FnMut(&'static str, &'static str, Run), needle: Vec<u8>) {
        let finder = Finder::new(&needle).into_owned();
        let (mut idx, scope, f) = (Index::new(), Scope::new(&[]), finder.clone());
        add(
            "grep",
            "ours: parse + walk::strings + decode",
            Box::new(move |lines| {
                with_records(lines, &mut idx, &mut |rec, sum| {
                    walk::strings(rec, &scope, true, &mut |s| {
                        if let Some(text) = decode_str(s.raw) {
                            look(&f, &text, sum);
                        }
                        true
                    });
                })
            }),
        );
        let (mut idx, scope, f) = (Index::new(), Scope::new(&[]), finder.clone());
        add(
            "grep",
            "shipped: parse + search::tape::strings",
            Box::new(move |lines| {
                each(lines, &mut |line, sum| {
                    if idx.parse(line).is_err() {
                        return false;
                    }
                    tape::strings(line, &scope, true, &mut |s| {
                        look(&f, s.text, sum);
                        true
                    });
                    true
                })
            }),
        );
        let f = finder.clone();
        add(
            "grep",
            "serde_json: Value walk, utf8 + from_str",
            Box::new(move |lines| {
                each(lines, &mut |line, sum| {
                    let Some(v) = serde_line::<serde_json::Value>(line) else {
                        return false;
                    };
                    if !v.is_object() {
                        return false;
                    }
                    if let Some(d) = v.get("data") {
                        walk_serde(d, &f, sum);
                    }
                    true
                })
            }),
        );
        let (mut state, f) = (TapeState::new(), finder.clone());
        add(
            "grep",
            "simd-json: tape walk",
            Box::new(move |lines| {
                with_tapes(lines, &mut state, &mut |v, sum| {
                    if let Some(d) = v.get("data") {
                        walk_tape(d, &f, sum);
                    }
                })
            }),
        );
        let (mut scratch, mut buffers, f) = (vec![], Buffers::default(), finder);
        add(
            "grep",
            "simd-json: borrowed value walk",
            Box::new(move |lines| {
                with_values(lines, &mut scratch, &mut buffers, &mut |v, sum| {
                    if let Some(d) = v.get("data") {
                        walk_value(d, &f, sum);
                    }
                })
            }),
        );
    }
}

/// A corpus of the real shapes, about `size` bytes: canonical lines (sorted
/// keys, `data` first, non-ASCII as `\uXXXX`), a few spaced hand-written
/// lines, and `llm:request` lines holding most of the bytes.
fn generate(size: usize) -> Vec<u8> {
    const WORDS: [&str; 16] = [
        "agent",
        "kernel",
        "données",
        "🚀",
        "cache",
        "request",
        "naïve",
        "日本語",
        "parse",
        "tool",
        "\"quoted\"",
        "back\\slash",
        "ошибка",
        "✅",
        "stream",
        "context",
    ];
    let mut seed = 7u64;
    let mut rnd = move |n: usize| {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 33) as usize % n
    };
    let text = |words: usize, rnd: &mut dyn FnMut(usize) -> usize| {
        let mut s = String::new();
        for _ in 0..words {
            s.push_str(WORDS[rnd(WORDS.len())]);
            s.push(' ');
        }
        serde_json::to_string(&s).map(|q| ascii_escapes(&q)).unwrap_or_default()
    };
    let mut out = Vec::with_capacity(size + (1 << 20));
    let mut n = 0u64;
    while out.len() < size {
        n += 1;
        let ts = format!("2026-03-07T16:{:02}:{:02}.{:06}+00:00", n / 60 % 60, n % 60, n % 999_983);
        let common = format!(r#""parent_id":null,"session_id":"s-{}","timestamp":"{ts}""#, n / 50);
        let (event, data) = match rnd(20) {
            0 => (
                "llm:request",
                format!(
                    r#"{{"has_system":true,"message_count":3,"model":"claude-opus-4-1",{common},"provider":"anthropic","raw":{{"messages":[{{"content":{},"role":"user"}},{{"content":{},"role":"assistant"}}]}}}}"#,
                    text(4000 + rnd(8000), &mut rnd),
                    text(2000, &mut rnd)
                ),
            ),
            1..=3 => (
                "llm:response",
                format!(
                    r#"{{"duration_ms":{},"model":"claude-opus-4-1",{common},"stop_reason":"tool_use","usage":{{"cache_read_tokens":{},"cost_usd":"0.0{}","input_tokens":{},"output_tokens":{}}}}}"#,
                    rnd(90000),
                    rnd(5000),
                    rnd(999),
                    rnd(9000),
                    rnd(6000)
                ),
            ),
            4..=7 => (
                "tool:pre",
                format!(
                    r#"{{"parallel_group_id":null,{common},"tool_call_id":"toolu_{n}","tool_input":{{"file_path":"/src/f{}.rs"}},"tool_name":"read_file"}}"#,
                    rnd(50)
                ),
            ),
            8..=11 => (
                "tool:post",
                format!(
                    r#"{{"parallel_group_id":null,{common},"result":{{"error":null,"output":{},"success":{}}},"tool_call_id":"toolu_{}","tool_input":{{"file_path":"/src/f{}.rs"}},"tool_name":"read_file"}}"#,
                    text(40 + rnd(200), &mut rnd),
                    rnd(9) > 0,
                    n - 1,
                    rnd(50)
                ),
            ),
            12 => (
                "orchestrator:complete",
                format!(r#"{{"orchestrator":"loop",{common},"status":"success","turn_count":1}}"#),
            ),
            13 => ("prompt:submit", format!(r#"{{{common},"prompt":{}}}"#, text(30, &mut rnd))),
            14 => (
                "session:fork",
                format!(r#"{{"metadata":{{"agent_name":"foundation:explorer"}},"parent":"p-{n}",{common}}}"#),
            ),
            _ => {
                ("content_block:start", format!(r#"{{"block_index":0,"block_type":"text",{common},"total_blocks":1}}"#))
            }
        };
        let line = if n.is_multiple_of(97) {
            format!(r#"{{"event": "{event}", "workspace": "my-api", "timestamp": "{ts}", "data": {data}}}"#)
        } else {
            format!(r#"{{"data":{data},"event":"{event}","timestamp":"{ts}","workspace":"-home-u-api"}}"#)
        };
        out.extend_from_slice(line.as_bytes());
        out.push(b'\n');
    }
    out
}

/// Escapes every non-ASCII character of JSON text as `\uXXXX` (surrogate
/// pairs above the BMP), as the capture writer does.
fn ascii_escapes(json: &str) -> String {
    let mut out = String::with_capacity(json.len() * 2);
    for c in json.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{u:04x}"));
            }
        }
    }
    out
}
