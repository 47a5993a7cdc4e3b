//! A small deterministic generator of damaged capture trees, for the fault
//! tests (issue #8). Test-only: it lives in the integration-test crate and is
//! never part of the shipped binaries.
//!
//! [`generate`] writes an Amplifier context-intelligence root with N sessions
//! in every writer generation (current canonical C, older B without
//! `workspace`, hand-written spaced, and an unknown later one with extra keys),
//! every kind of damaged line ([`Damage`]) and unfinished tail ([`Tail`]) that
//! `formats.md` and `gen-corpus --faults` describe (and a few more a crash or a
//! full disk leaves behind), and the decoys that sit next to real captures.
//! It returns what a correct reader must find: every good event (session,
//! physical line, event name), every damaged line with the exact reason the
//! toolkit gives for it, and the held-back tails. [`generate_hooks`] does the
//! same for Claude Code hook sessions (`hooks.rs`).
//!
//! The expected reasons follow the parser's documented messages; the byte
//! offsets in them are computed here from where the damage was put, not read
//! back from any tool.

#![allow(dead_code)]

mod hooks;

pub use hooks::generate_hooks;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

/// The parser's nesting limit (`src/json.rs`, `MAX_DEPTH`).
pub const MAX_DEPTH: usize = 127;

/// xorshift64*: tiny, seeded, good enough to pick shapes.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo + 1)
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True with probability `percent`/100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Writer generations (formats.md §1), plus one the toolkit has never seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Gen {
    /// Current: `data, event, timestamp, workspace`, canonical, `\u` escapes.
    C,
    /// Older: no `workspace`, six-digit timestamps, old usage keys.
    B,
    /// Hand-written: spaced, `event, workspace, timestamp, data`, raw UTF-8, `Z`.
    Spaced,
    /// A later writer: extra top-level keys, some lines without `timestamp`.
    Future,
}

pub const GENS: [Gen; 4] = [Gen::C, Gen::B, Gen::Spaced, Gen::Future];

/// Kinds of damaged line. Each is reported, skipped and counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Damage {
    /// An empty line.
    Blank,
    /// Spaces and a tab only.
    Spaces,
    /// A record cut inside a string, then a newline (crash mid-write).
    TornCut,
    /// A record cut inside a string with the next record glued on the same line
    /// (gen-corpus and the fixtures: both records are lost to a line reader).
    TornGlued,
    /// Two complete records on one line (a lost newline).
    TwoRecords,
    /// `[1,2,3]`, `42`, `"text"`, `null`.
    NotObject,
    /// Text that is not JSON.
    Garbage,
    /// A run of NUL bytes (blocks allocated but never written).
    NulRun,
    /// NUL bytes, then a record, on one line.
    NulPadded,
    /// Bytes `FF FE` inside a string.
    InvalidUtf8,
    /// The first two bytes of a three-byte character, then ASCII.
    CutUtf8Char,
    /// A raw control character inside a string.
    ControlChar,
    /// `\q` inside a string.
    BadEscape,
    /// Arrays nested deeper than the parser's limit inside `data`.
    TooDeep,
    /// hooks-logging's `amplifier.log` line (`ts`, `schema`).
    OtherLogger,
    /// A Claude Code hook line.
    HookLine,
    /// A Claude Code transcript line.
    Transcript,
    /// A `ci-find` session record.
    SessionRecord,
    /// An object whose `event` is not a string, or `data` is not an object,
    /// or `event` is missing.
    NotEvent,
}

pub const DAMAGES: [Damage; 19] = [
    Damage::Blank,
    Damage::Spaces,
    Damage::TornCut,
    Damage::TornGlued,
    Damage::TwoRecords,
    Damage::NotObject,
    Damage::Garbage,
    Damage::NulRun,
    Damage::NulPadded,
    Damage::InvalidUtf8,
    Damage::CutUtf8Char,
    Damage::ControlChar,
    Damage::BadEscape,
    Damage::TooDeep,
    Damage::OtherLogger,
    Damage::HookLine,
    Damage::Transcript,
    Damage::SessionRecord,
    Damage::NotEvent,
];

/// How a capture ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Tail {
    /// A final newline.
    Newline,
    /// A complete, valid last record without a final newline: it is emitted.
    CompleteNoNewline,
    /// A record cut anywhere, no newline (still being written): held back.
    Torn,
    /// A raw-UTF-8 record cut inside a multi-byte character: held back.
    TornInChar,
    /// NUL bytes, no newline (crash padding): held back.
    Nuls,
    /// Zero bytes.
    Empty,
}

pub const TAILS: [Tail; 6] =
    [Tail::Newline, Tail::CompleteNoNewline, Tail::Torn, Tail::TornInChar, Tail::Nuls, Tail::Empty];

/// Odd but good lines, to make sure they are not taken for damage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Odd {
    /// A `\r` before the newline.
    Crlf,
    /// Leading spaces.
    Indented,
    /// Over the line reader's first buffer (256 KiB).
    Huge,
    /// An event name outside the usual list.
    RareName,
    /// Text in `data` that looks like a record (`{"event":"tool:pre"}`).
    RecordInText,
}

/// What one capture holds.
#[derive(Debug, Clone)]
pub struct Session {
    pub id: String,
    /// The `events.jsonl` path, as tools given the root print it.
    pub path: PathBuf,
    pub gen: Gen,
    /// (physical line, event name) of every good event, in file order.
    pub good: Vec<(u64, String)>,
    /// (physical line, reason) of every damaged line.
    pub bad: Vec<(u64, String)>,
    pub damages: Vec<Damage>,
    pub tail: Tail,
    pub odd: Vec<Odd>,
}

impl Session {
    /// Whether the capture ends in an unfinished line that is held back.
    pub fn held_tail(&self) -> bool {
        matches!(self.tail, Tail::Torn | Tail::TornInChar | Tail::Nuls)
    }

    pub fn display(&self) -> String {
        self.path.to_string_lossy().into_owned()
    }
}

/// A generated root and its facts.
pub struct Tree {
    pub dir: crate::kit::Tree,
    pub sessions: Vec<Session>,
}

impl Tree {
    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// Every good event as (session, line, event), sorted.
    pub fn good(&self) -> Vec<(String, u64, String)> {
        let mut all: Vec<_> =
            self.sessions.iter().flat_map(|s| s.good.iter().map(|(l, e)| (s.id.clone(), *l, e.clone()))).collect();
        all.sort();
        all
    }

    /// Good events by name.
    pub fn by_event(&self) -> BTreeMap<String, u64> {
        let mut m = BTreeMap::new();
        for s in &self.sessions {
            for (_, e) in &s.good {
                *m.entry(e.clone()).or_insert(0) += 1;
            }
        }
        m
    }

    /// Every report, `path:line: reason`, sorted.
    pub fn reports(&self) -> Vec<String> {
        let mut all: Vec<String> = self
            .sessions
            .iter()
            .flat_map(|s| s.bad.iter().map(move |(l, r)| format!("{}:{l}: {r}", s.display())))
            .collect();
        all.sort();
        all
    }

    pub fn bad_lines(&self) -> u64 {
        self.sessions.iter().map(|s| s.bad.len() as u64).sum()
    }

    pub fn held_tails(&self) -> u64 {
        self.sessions.iter().filter(|s| s.held_tail()).count() as u64
    }

    /// The summary line `prog` ends the run with (README "Damaged input").
    pub fn summary(&self, prog: &str, strict: bool) -> String {
        summary_line(prog, self.bad_lines(), self.held_tails(), strict)
    }
}

/// The documented summary line for `bad` reported lines and `torn` held tails.
pub fn summary_line(prog: &str, bad: u64, torn: u64, strict: bool) -> String {
    let s = |n: u64| if n == 1 { "" } else { "s" };
    let mut parts = vec![];
    if bad > 0 {
        parts.push(format!("{bad} bad line{} skipped", s(bad)));
    }
    if torn > 0 {
        parts.push(format!("{torn} unfinished last line{} held back (capture still being written?)", s(torn)));
    }
    let hint = if bad > 0 && !strict { " (--strict makes bad lines an error)" } else { "" };
    format!("{prog}: {}{hint}", parts.join(", "))
}

const PROJECTS: [(&str, &str); 4] = [
    ("-home-user-my-api", "my-api"),
    ("-srv-build-data pipeline", "pipeline"),
    ("-C-Users-dev-tools", "-C-Users-dev-tools"),
    ("-home-bob-myapp", ""),
];

const EVENTS: [&str; 12] = [
    "session:start",
    "prompt:submit",
    "execution:start",
    "provider:request",
    "llm:request",
    "llm:response",
    "tool:pre",
    "tool:post",
    "tool:error",
    "orchestrator:complete",
    "execution:end",
    "prompt:complete",
];

const WORDS: [&str; 14] = [
    "the",
    "tool",
    "call",
    "café",
    "日本語",
    "ошибка",
    "🚀",
    "\"quoted\"",
    "back\\slash",
    "line\nbreak",
    "tab\there",
    "données",
    "cargo",
    "deploy",
];

/// Where a string value is cut for torn lines and where bytes are inserted.
const MARK: &str = "@@cut@@";

/// Writes one JSON value: canonical (sorted keys, compact, `\u` escapes) or
/// spaced (insertion order, `", "`/`": "`, raw UTF-8), as the writers do.
pub fn write_json(v: &Value, canonical: bool, out: &mut String) {
    match v {
        Value::Object(m) => {
            out.push('{');
            let mut keys: Vec<&String> = m.keys().collect();
            if canonical {
                keys.sort();
            }
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push_str(if canonical { "," } else { ", " });
                }
                write_str(k, canonical, out);
                out.push_str(if canonical { ":" } else { ": " });
                write_json(&m[k], canonical, out);
            }
            out.push('}');
        }
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push_str(if canonical { "," } else { ", " });
                }
                write_json(x, canonical, out);
            }
            out.push(']');
        }
        Value::String(s) => write_str(s, canonical, out),
        other => out.push_str(&other.to_string()),
    }
}

fn write_str(s: &str, ascii: bool, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c if ascii && !c.is_ascii() => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{u:04x}");
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Builds one session's lines.
struct Writer<'r> {
    rng: &'r mut Rng,
    id: String,
    parent: Option<String>,
    workspace: String,
    gen: Gen,
    n: u64,
}

impl Writer<'_> {
    fn words(&mut self, n: usize) -> String {
        (0..n).map(|_| *self.rng.pick(&WORDS)).collect::<Vec<_>>().join(" ")
    }

    fn timestamp(&mut self) -> String {
        self.n += 1;
        let (m, s) = (self.n / 60 % 60, self.n % 60);
        match self.gen {
            Gen::B => format!("2026-03-01T10:{m:02}:{s:02}.{:06}+00:00", self.rng.below(1_000_000)),
            Gen::Spaced => format!("2026-03-01T10:{m:02}:{s:02}.{:03}Z", self.rng.below(1000)),
            _ => {
                let digits = *self.rng.pick(&[0usize, 3, 6, 9]);
                let frac = format!("{:09}", self.rng.below(1_000_000_000));
                let frac = if digits == 0 { String::new() } else { format!(".{}", &frac[..digits]) };
                format!("2026-03-01T10:{m:02}:{s:02}{frac}+00:00")
            }
        }
    }

    /// An event's line; `note` goes into `data.note` (where damage is put).
    fn event(&mut self, name: &str, note: &str, extra_text: usize) -> String {
        let ts = self.timestamp();
        let mut data = Map::new();
        data.insert("session_id".into(), json!(self.id));
        data.insert("parent_id".into(), self.parent.as_ref().map_or(Value::Null, |p| json!(p)));
        data.insert("note".into(), json!(note));
        match name {
            "tool:pre" | "tool:post" | "tool:error" => {
                data.insert("tool_name".into(), json!(self.rng.pick(&["bash", "read_file", "grep"])));
                data.insert("tool_call_id".into(), json!(format!("toolu_{:016x}", self.rng.next())));
                data.insert("tool_input".into(), json!({"command": self.words(4)}));
            }
            "llm:response" => {
                let usage = if self.gen == Gen::B {
                    json!({"input": self.rng.below(50_000), "output": self.rng.below(4000)})
                } else {
                    json!({"input_tokens": self.rng.below(50_000), "output_tokens": self.rng.below(4000),
                           "cost_usd": format!("0.{:04}", self.rng.below(10_000))})
                };
                data.insert("model".into(), json!("claude-sonnet-4-5"));
                data.insert("usage".into(), usage);
            }
            _ => {}
        }
        if extra_text > 0 {
            let text: String = "é日x".repeat(extra_text / 6 + 1);
            data.insert("text".into(), json!(text));
        }
        let words = self.words(3);
        data.insert("prompt".into(), json!(words));
        let with_ts = !(self.gen == Gen::Future && self.rng.chance(30));
        if with_ts {
            data.insert("timestamp".into(), json!(ts));
        }
        let mut rec = Map::new();
        rec.insert("event".into(), json!(name));
        if self.gen != Gen::B {
            rec.insert("workspace".into(), json!(self.workspace));
        }
        if with_ts {
            rec.insert("timestamp".into(), json!(ts));
        }
        if self.gen == Gen::Future {
            rec.insert("v".into(), json!(2));
            rec.insert("seq".into(), json!(self.n));
        }
        rec.insert("data".into(), Value::Object(data));
        let mut out = String::new();
        write_json(&Value::Object(rec), self.gen != Gen::Spaced, &mut out);
        out
    }

    fn plain(&mut self) -> String {
        let name = *self.rng.pick(&EVENTS);
        let note = self.words(2);
        self.event(name, &note, 0)
    }

    /// An event line with [`MARK`] in `data.note`, and where the mark ends.
    fn marked(&mut self) -> (String, usize) {
        let before = self.words(2);
        // Plain ASCII after the mark: its string ends 4 bytes later.
        let note = format!("{before}{MARK}end");
        let line = self.plain_with(&note);
        let at = line.find(MARK).expect("mark") + MARK.len();
        (line, at)
    }

    fn plain_with(&mut self, note: &str) -> String {
        let name = *self.rng.pick(&EVENTS);
        self.event(name, note, 0)
    }

    /// A damaged line and the reason the toolkit gives for it.
    fn damaged(&mut self, d: Damage) -> (Vec<u8>, String) {
        let json_at = |at: usize, what: &str| format!("invalid JSON at byte {at}: {what}");
        match d {
            Damage::Blank => (vec![], "blank line".into()),
            Damage::Spaces => (b"  \t ".to_vec(), "blank line".into()),
            Damage::TornCut => {
                let (line, at) = self.marked();
                (line.as_bytes()[..at].to_vec(), "torn record: line ends inside a JSON value".into())
            }
            Damage::TornGlued => {
                let (line, at) = self.marked();
                let next = self.plain();
                // The cut string runs on into the glued record and closes at its
                // first `"`; the byte after that is where a `,` or `}` was due.
                let bytes = [&line.as_bytes()[..at], next.as_bytes()].concat();
                (bytes, json_at(at + 2, "expected ',' or '}'"))
            }
            Damage::TwoRecords => {
                let a = self.plain();
                let b = self.plain();
                (format!("{a}{b}").into_bytes(), json_at(a.len(), "trailing characters after the record"))
            }
            Damage::NotObject => {
                let text = *self.rng.pick(&["[1,2,3]", "42", "\"text\"", "null", "true"]);
                (text.as_bytes().to_vec(), "not a JSON object".into())
            }
            Damage::Garbage => (b"not json".to_vec(), json_at(0, "expected a value")),
            Damage::NulRun => (vec![0; 1 + self.rng.below(64)], json_at(0, "expected a value")),
            Damage::NulPadded => {
                let mut b = vec![0; 1 + self.rng.below(16)];
                b.extend_from_slice(self.plain().as_bytes());
                (b, json_at(0, "expected a value"))
            }
            Damage::InvalidUtf8 | Damage::CutUtf8Char | Damage::ControlChar | Damage::BadEscape => {
                let (line, at) = self.marked();
                let insert: &[u8] = match d {
                    Damage::InvalidUtf8 => b"\xff\xfe",
                    Damage::CutUtf8Char => b"\xe6\x97x",
                    Damage::ControlChar => b"\x01",
                    _ => b"\\q",
                };
                let bytes = [&line.as_bytes()[..at], insert, &line.as_bytes()[at..]].concat();
                let reason = match d {
                    Damage::InvalidUtf8 | Damage::CutUtf8Char => format!("invalid UTF-8 at byte {at}"),
                    Damage::ControlChar => json_at(at, "control character in string"),
                    _ => json_at(at, "invalid escape"),
                };
                (bytes, reason)
            }
            Damage::TooDeep => {
                let (line, at) = self.marked();
                // Replace the whole `note` string with nested arrays. The
                // record is level 1 and `data` level 2, so the k-th `[`
                // (0-based) opens level 3 + k and the one at k = MAX_DEPTH - 2
                // is the first too deep.
                let start = line[..at].rfind("\"note\"").expect("note key") + "\"note\"".len();
                let value_start = start + line[start..].find('"').expect("value");
                let value_end = at + "end\"".len();
                let depth = MAX_DEPTH + 3;
                let nested = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
                let bytes = format!("{}{nested}{}", &line[..value_start], &line[value_end..]);
                (bytes.into_bytes(), format!("JSON nested deeper than {MAX_DEPTH} levels at byte {}", value_start + MAX_DEPTH - 2))
            }
            Damage::OtherLogger => (
                format!(
                    r#"{{"ts": "2026-03-01T10:00:00.000+00:00", "lvl": "INFO", "schema": {{"name": "amplifier.log", "ver": "1.0.0"}}, "event": "session:start", "session_id": "{}"}}"#,
                    self.id
                )
                .into_bytes(),
                "another logger's line (amplifier.log format), not an event".into(),
            ),
            Damage::HookLine => (
                format!(
                    r#"{{"session_id": "{}", "transcript_path": "t.jsonl", "cwd": "/w", "permission_mode": "default", "hook_event_name": "Stop"}}"#,
                    self.id
                )
                .into_bytes(),
                "a Claude Code hook line where an Amplifier event was expected".into(),
            ),
            Damage::Transcript => (
                br#"{"type":"user","uuid":"u-1","sessionId":"s","message":{"role":"user","content":"hi"}}"#.to_vec(),
                "a Claude Code transcript line, not an event".into(),
            ),
            Damage::SessionRecord => (
                br#"{"session":"other","path":"/elsewhere/events.jsonl","project":"-p"}"#.to_vec(),
                "a session record where an event was expected".into(),
            ),
            Damage::NotEvent => {
                let text = *self.rng.pick(&[
                    r#"{"event":42,"data":{}}"#,
                    r#"{"event":"tool:pre","data":"not an object"}"#,
                    r#"{"data":{"session_id":"x"},"timestamp":""}"#,
                ]);
                (text.as_bytes().to_vec(), "not an event record (needs a string \"event\" and an object \"data\")".into())
            }
        }
    }
}

fn session_id(rng: &mut Rng, i: usize) -> String {
    let hex = |r: &mut Rng| format!("{:016x}", r.next());
    match i % 4 {
        0 => {
            let h = format!("{}{}", hex(rng), hex(rng));
            format!("{}-{}-4{}-8{}-{}", &h[..8], &h[8..12], &h[13..16], &h[17..20], &h[20..32])
        }
        1 => format!("0000000000000000-{}_foundation-explorer", hex(rng)),
        2 => format!("foundation:bug-hunter@{}-{}.v2", &hex(rng)[..6], &hex(rng)[..6]),
        _ => hex(rng),
    }
}

/// Writes a damaged root with `n` sessions from `seed` and returns its facts.
/// Every [`Damage`], [`Tail`] and [`Gen`] occurs once `n` ≥ 6; every odd good
/// line occurs in session 0.
pub fn generate(seed: u64, n: usize) -> Tree {
    let dir = crate::kit::Tree::new();
    let mut rng = Rng::new(seed);
    let mut sessions = vec![];
    let mut prev_root: Option<String> = None;
    for i in 0..n {
        let (slug, workspace) = PROJECTS[i % PROJECTS.len()];
        let gen = GENS[(i + seed as usize) % GENS.len()];
        let id = session_id(&mut rng, i);
        let tail = TAILS[i % TAILS.len()];
        let parent = if i % 3 == 1 { prev_root.clone() } else { None };
        if parent.is_none() {
            prev_root = Some(id.clone());
        }
        // Spread the damage kinds over the sessions, plus a few at random.
        // Spread the damage kinds over the sessions (sessions 0-4 hold them
        // all), plus a few at random; a zero-byte capture holds none.
        let mut damages: Vec<Damage> = DAMAGES.iter().copied().skip(i % 5).step_by(5).collect();
        for _ in 0..rng.below(3) {
            damages.push(*rng.pick(&DAMAGES));
        }
        if tail == Tail::Empty {
            damages.clear();
        }
        let capture = dir.amplifier(slug, &id);
        let mut w =
            Writer { rng: &mut rng, id: id.clone(), parent: parent.clone(), workspace: workspace.into(), gen, n: 0 };
        let mut s = Session {
            id: id.clone(),
            path: capture.events_path(),
            gen,
            good: vec![],
            bad: vec![],
            damages: damages.clone(),
            tail,
            odd: vec![],
        };
        let mut bytes: Vec<u8> = vec![];
        let mut line_no = 0u64;
        let mut push = |bytes: &mut Vec<u8>, line: &[u8]| {
            bytes.extend_from_slice(line);
            bytes.push(b'\n');
            line_no += 1;
            line_no
        };
        if tail != Tail::Empty {
            let goods = 3 + w.rng.below(6);
            let mut plan: Vec<Option<Damage>> = (0..goods).map(|_| None).collect();
            for d in &damages {
                let at = w.rng.below(plan.len() + 1);
                plan.insert(at, Some(*d));
            }
            if i == 0 {
                for odd in [Odd::Crlf, Odd::Indented, Odd::Huge, Odd::RareName, Odd::RecordInText] {
                    let line = match odd {
                        Odd::Crlf => format!("{}\r", w.plain()),
                        Odd::Indented => format!("   {}", w.plain()),
                        Odd::Huge => w.event("llm:request", "huge", 300 * 1024),
                        Odd::RareName => w.event("llm:stream_block_start", "rare", 0),
                        Odd::RecordInText => w.event("tool:post", r#"{"event":"tool:pre","workspace":"decoy-ws"}"#, 0),
                    };
                    let name = event_name(line.as_bytes());
                    let n = push(&mut bytes, line.as_bytes());
                    s.good.push((n, name));
                    s.odd.push(odd);
                }
            }
            for step in plan {
                match step {
                    None => {
                        let line = w.plain();
                        let n = push(&mut bytes, line.as_bytes());
                        s.good.push((n, event_name(line.as_bytes())));
                    }
                    Some(d) => {
                        let (line, reason) = w.damaged(d);
                        let n = push(&mut bytes, &line);
                        s.bad.push((n, reason));
                    }
                }
            }
            match tail {
                Tail::CompleteNoNewline => {
                    let line = w.plain();
                    let n = push(&mut bytes, line.as_bytes());
                    bytes.pop();
                    s.good.push((n, event_name(line.as_bytes())));
                }
                Tail::Torn => {
                    let line = w.plain();
                    let cut = 1 + w.rng.below(line.len() - 1);
                    bytes.extend_from_slice(&line.as_bytes()[..cut]);
                }
                Tail::TornInChar => {
                    // Cut inside a multi-byte character of raw UTF-8.
                    let mut line = String::new();
                    write_json(
                        &json!({"event": "prompt:submit", "data": {"prompt": "données 日本語"}}),
                        false,
                        &mut line,
                    );
                    let at = line.find('日').expect("char") + 1;
                    bytes.extend_from_slice(&line.as_bytes()[..at]);
                }
                Tail::Nuls => bytes.extend_from_slice(&[0; 37]),
                Tail::Newline | Tail::Empty => {}
            }
        }
        let ci = capture.metadata(metadata(&s, workspace, parent.as_deref(), i)).raw(&bytes).write().dir;
        decoys(&ci, &id, i);
        sessions.push(s);
    }
    // A context-intelligence folder with only metadata: not a capture.
    let orphan = dir.amplifier("-home-user-my-api", "orphan-0001").no_events();
    orphan.metadata(r#"{"format":"context-intelligence","session_id":"orphan-0001"}"#).write();
    Tree { dir, sessions }
}

/// The `event` of a good line (the generator's own lines only).
fn event_name(line: &[u8]) -> String {
    let v: Value = serde_json::from_slice(line).expect("a good line is JSON");
    v["event"].as_str().expect("event").to_owned()
}

/// The `metadata.json` of capture `i`, as its writer generation writes it.
fn metadata(s: &Session, workspace: &str, parent: Option<&str>, i: usize) -> String {
    let started = format!("2026-03-{:02}T10:00:00+00:00", 1 + i % 28);
    let mut m = Map::new();
    if s.gen != Gen::Spaced {
        m.insert("format".into(), json!("context-intelligence"));
        m.insert("version".into(), json!("1.0.0"));
    }
    m.insert("session_id".into(), json!(s.id));
    if s.gen != Gen::B {
        m.insert("workspace".into(), json!(workspace));
    }
    m.insert("parent_id".into(), json!(parent.unwrap_or("")));
    m.insert("started_at".into(), json!(started));
    if s.gen != Gen::B {
        m.insert("last_event_at".into(), json!(started));
    }
    m.insert("status".into(), json!(if s.held_tail() { "running" } else { "completed" }));
    m.insert("working_dir".into(), json!("/home/user/x"));
    Value::Object(m).to_string()
}

/// The files next to a capture that are never events (formats.md §1). Each
/// holds lines that would be reported (or counted) if a tool read it.
fn decoys(ci: &Path, id: &str, i: usize) {
    let session_dir = ci.parent().expect("session dir");
    let write = |p: PathBuf, text: &str| crate::kit::tree::write(&p, text);
    write(ci.join("metadata.json.4242.tmp"), "{");
    if i % 2 == 1 {
        return;
    }
    write(
        session_dir.join("metadata.json"),
        &format!(r#"{{"session_id": "{id}", "created": "2026-03-01T08:00:00Z", "turn_count": 3}}"#),
    );
    write(
        session_dir.join("events.jsonl"),
        &format!(
            "{{\"ts\":\"2026-03-01T08:00:00.000+00:00\",\"lvl\":\"INFO\",\"schema\":{{\"name\":\"amplifier.log\"}},\"event\":\"tool:pre\",\"session_id\":\"{id}\"}}\n\n"
        ),
    );
    write(session_dir.join("transcript.jsonl"), "{\"role\":\"user\",\"content\":\"hello\"}\nnot json\n");
    write(session_dir.join("metadata.json.backup"), "{}");
    write(session_dir.join("config.md"), "# config\n");
    write(session_dir.join("blobs/x__llm_request__1__raw.json"), "{\"event\":\"llm:request\",\"data\":{}}\n");
}

/// Coverage of one tree: which damage kinds, tails, generations and odd lines occur.
pub fn coverage(t: &Tree) -> (BTreeSet<Damage>, BTreeSet<Tail>, BTreeSet<Gen>, BTreeSet<Odd>) {
    let d = t.sessions.iter().flat_map(|s| s.damages.iter().copied()).collect();
    let tails = t.sessions.iter().map(|s| s.tail).collect();
    let gens = t.sessions.iter().filter(|s| !s.good.is_empty()).map(|s| s.gen).collect();
    let odd = t.sessions.iter().flat_map(|s| s.odd.iter().copied()).collect();
    (d, tails, gens, odd)
}
