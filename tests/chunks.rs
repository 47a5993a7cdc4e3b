//! One large capture read by every worker (`src/source/chunk.rs`): a capture
//! file split at line boundaries into parts gives the stdout, stderr and exit
//! status of a one-thread read, byte for byte, in every tool that splits.
//!
//! The captures are generated here (long lines, damaged lines of every kind,
//! a byte-order mark, a torn tail) and split into small parts with the
//! hidden `CI_CHUNK_BYTES`, so that lines straddle the parts' boundaries
//! everywhere; `-j2` with parts is compared with `-j1` (never split).

use std::path::Path;

use proptest::prelude::*;

use crate::kit::Tree;
use crate::util::{ci, Run};

/// A deterministic pseudo-random sequence (xorshift64*), so that a
/// generated capture is the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number below `n`.
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// Damage a generated line can carry instead of being an event.
const DAMAGE: &[&[u8]] = &[
    b"",
    b"   ",
    b"not json {",
    b"[1,2,3]",
    b"{\"event\":\"tool:pre\",\"data\":{\"s\":\"\xff\xfe\"}}",
    b"{\"event\":\"tool:pre\",\"data\":{\"cut\":",
    b"{\"a\":1}\r{\"b\":2}",
    b"{\"data\":{\"no\":\"event\"}}",
];

/// Pieces of the text in events: escapes, multi-byte characters, the
/// words the tests search for.
const TEXT: &[&str] = &["café ", "\\u00e9 ", "\\\"error\\\" ", "日本語 ", "x"];

/// One event line: its kind, day and padding from `rng`, `pad` bytes of
/// text (with escapes and multi-byte characters) in it.
fn event(rng: &mut Rng, pad: usize) -> Vec<u8> {
    let day = 1 + rng.below(4);
    let ts = format!("2026-03-0{day}T1{}:00:00Z", rng.below(10));
    let mut text = String::new();
    for piece in TEXT.iter().cycle() {
        if text.len() >= pad {
            break;
        }
        text.push_str(piece);
    }
    let line = match rng.below(5) {
        0 => format!(
            r#"{{"event":"llm:response","workspace":"w","timestamp":"{ts}","data":{{"session_id":"s1","model":"m{}","usage":{{"input_tokens":{},"output_tokens":{}}},"note":"{text}"}}}}"#,
            rng.below(3),
            rng.below(5000),
            rng.below(900)
        ),
        1 => format!(
            r#"{{"event":"tool:post","workspace":"w","timestamp":"{ts}","data":{{"session_id":"s1","tool_name":"bash","tool_call_id":"c{}","result":{{"success":false,"output":"{text}"}}}}}}"#,
            rng.below(1000)
        ),
        2 => format!(
            r#"{{"event":"tool:pre","workspace":"w","timestamp":"{ts}","data":{{"session_id":"s1","tool_name":"read","tool_input":{{"path":"{text}"}}}}}}"#
        ),
        3 => format!(r#"{{"event":"prompt:submit","timestamp":"{ts}","data":{{"prompt":"{text}"}}}}"#),
        _ => format!(r#"{{"event":"session:start","workspace":"w","data":{{"session_id":"s1","n":{pad}}}}}"#),
    };
    line.into_bytes()
}

/// A capture of about `bytes` bytes: a byte-order mark, lines of random
/// lengths (some of tens of kilobytes), a damaged line every so often
/// (one in `damage_every`; 0: none), CRLF endings on some, and an
/// unterminated last line when `torn`.
fn capture(seed: u64, bytes: usize, damage_every: u64, torn: bool) -> Vec<u8> {
    let mut rng = Rng(seed | 1);
    let mut out = b"\xEF\xBB\xBF".to_vec();
    while out.len() < bytes {
        let pad = match rng.below(20) {
            0 => 20_000 + rng.below(60_000),
            1..=4 => 1000 + rng.below(4000),
            _ => rng.below(400),
        } as usize;
        if damage_every > 0 && rng.below(damage_every) == 0 {
            out.extend_from_slice(DAMAGE[rng.below(DAMAGE.len() as u64) as usize]);
        } else {
            out.extend(event(&mut rng, pad));
        }
        out.extend_from_slice(if rng.below(17) == 0 { b"\r\n" } else { b"\n" });
    }
    if torn {
        out.extend_from_slice(br#"{"event":"tool:pre","timestamp":"2026-03-04T10:00:00Z","data":{"tool_"#);
    }
    out
}

/// `bin ARGS PATH` with `-j1`, and with `-j2` in parts of `chunk` bytes.
fn both(bin: &str, args: &[&str], path: &Path, chunk: u64) -> (Run, Run) {
    let whole = ci(bin).args(args).arg("-j1").arg(path).run();
    let parts = ci(bin).args(args).arg("-j2").arg(path).env("CI_CHUNK_BYTES", chunk.to_string()).run();
    (whole, parts)
}

/// Asserts that `bin ARGS PATH` reads the same in parts of each of `chunks`
/// bytes as in one piece; the one-piece run.
fn same(bin: &str, args: &[&str], path: &Path, chunks: &[u64]) -> Run {
    let whole = ci(bin).args(args).arg("-j1").arg(path).run();
    for &chunk in chunks {
        let parts = ci(bin).args(args).arg("-j2").arg(path).env("CI_CHUNK_BYTES", chunk.to_string()).run();
        assert_eq!(parts.stdout, whole.stdout, "{bin} {args:?} in parts of {chunk}: stdout");
        assert_eq!(parts.stderr, whole.stderr, "{bin} {args:?} in parts of {chunk}: stderr");
        assert_eq!(parts.code, whole.code, "{bin} {args:?} in parts of {chunk}: exit status");
    }
    whole
}

/// The tool runs compared: every tool and flag that reads a capture in parts.
const RUNS: &[(&str, &[&str])] = &[
    ("ci-cat", &[]),
    ("ci-cat", &["--full"]),
    ("ci-cat", &["--raw"]),
    ("ci-cat", &["--strict", "--fields", "event,timestamp"]),
    ("ci-grep", &["error"]),
    ("ci-grep", &["-c", "error"]),
    ("ci-grep", &["-c", "-F", "no such text anywhere"]),
    ("ci-grep", &["--format", "text", "-C", "5", "-i", "CAFÉ"]),
    ("ci-grep", &["--strict", "日本語"]),
    ("ci-filter", &[]),
    ("ci-filter", &["--event", "tool:post"]),
    ("ci-filter", &["-v", "--event", "llm:*"]),
    ("ci-filter", &["--event", "tool:pr"]),
    ("ci-agg", &["--by", "event"]),
    ("ci-agg", &["--tokens", "--by", "day"]),
    ("ci-agg", &["--by", "event,day", "--sum", "data.usage.input_tokens", "--strict"]),
];

#[test]
fn every_tool_reads_a_capture_in_parts_as_in_one_piece() {
    let tree = Tree::new();
    let path = tree.file("big/events.jsonl", capture(7, 3 << 20, 40, true));
    for (bin, args) in RUNS {
        same(bin, args, &path, &[4096, 65_537]);
    }
    // What the runs show: the damage is reported at its lines, the torn
    // tail is held back, --strict fails.
    let cat = same("ci-cat", &[], &path, &[]);
    assert_eq!(cat.code, 0);
    assert!(cat.stderr.contains("events.jsonl:"), "{}", cat.stderr);
    assert!(cat.stderr.contains("1 unfinished last line held back"), "{}", cat.stderr);
    let strict = same("ci-cat", &["--strict"], &path, &[]);
    assert_eq!(strict.code, 2);
    let count = same("ci-grep", &["-c", "error"], &path, &[]);
    assert_eq!(count.lines().len(), 1, "{}", count.stdout);
}

#[test]
fn a_capture_in_parts_keeps_its_line_numbers_byte_sites_and_first_line() {
    let tree = Tree::new();
    let bytes = capture(11, 1 << 20, 0, false);
    let path = tree.file("events.jsonl", &bytes);
    let (whole, parts) = both("ci-cat", &["--full"], &path, 1000);
    assert_eq!(parts.stdout, whole.stdout);
    // Every event names its physical line; the first is line 1, past the BOM.
    let lines: Vec<u64> = whole.json().iter().map(|r| r["ci"]["line"].as_u64().expect("ci.line")).collect();
    let physical = bytes.iter().filter(|&&b| b == b'\n').count() as u64;
    assert_eq!(lines, (1..=physical).collect::<Vec<u64>>());
    // A record cut to its budget carries its byte site; reading it again
    // through the pipe gives the whole line, the same in parts.
    let (whole, parts) = both("ci-cat", &["--max-bytes", "1k"], &path, 1000);
    assert_eq!((parts.stdout.as_str(), parts.stderr.as_str()), (whole.stdout.as_str(), whole.stderr.as_str()));
    assert!(parts.stdout.contains("…[+"), "some records are cut");
    let full = ci("ci-cat").args(["--full", "-"]).stdin(parts.stdout).run();
    let direct = ci("ci-cat").args(["--full", "-j1"]).arg(&path).run();
    assert_eq!(full.stdout, direct.stdout);
}

#[test]
fn a_session_directory_and_a_file_that_is_no_capture_read_in_parts_as_in_one_piece() {
    let tree = Tree::new();
    tree.amplifier("-home-u-app", "sess-1").raw(capture(3, 600_000, 25, true)).write();
    tree.amplifier("-home-u-app", "sess-2").raw(capture(5, 5000, 0, false)).write();
    for (bin, args) in RUNS {
        same(bin, args, tree.path(), &[3000]);
    }
    // Not one line an event, every line damaged: not a capture (exit 2),
    // after the reports of its lines.
    let junk: Vec<u8> = (0..40_000).flat_map(|i| format!("plain text line {i}\n").into_bytes()).collect();
    let path = tree.file("junk.log", junk);
    let run = same("ci-cat", &[], &path, &[5000, 65_536]);
    assert_eq!(run.code, 2);
    let last = run.stderr.lines().rev().nth(1).expect("two lines at least");
    assert!(last.ends_with("not a capture: no line of it is an event of a writer the tools read"), "{last}");
    assert!(run.stderr.starts_with("junk.log:1: ") || run.stderr.contains("junk.log:1: "), "{}", run.stderr);
    same("ci-agg", &["--by", "event"], &path, &[5000]);
}

#[test]
fn flags_that_carry_state_across_lines_keep_the_capture_whole() {
    let tree = Tree::new();
    let path = tree.file("events.jsonl", capture(13, 400_000, 30, true));
    for (bin, args) in [
        ("ci-cat", &["--head", "7"][..]),
        ("ci-cat", &["--tail", "3"]),
        ("ci-cat", &["--lines", "100-140"]),
        ("ci-grep", &["-m", "2", "error"]),
        ("ci-grep", &["-l", "error"]),
        ("ci-agg", &["--tools"]),
        ("ci-agg", &["--sessions"]),
        ("ci-agg", &["--by", "event", "--p50", "data.usage.input_tokens"]),
        ("ci-agg", &["--by", "agent"]),
    ] {
        same(bin, args, &path, &[2000]);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn any_split_of_any_capture_reads_as_one_piece(
        seed in any::<u64>(),
        bytes in 20_000usize..200_000,
        damage_every in 0u64..8,
        torn in any::<bool>(),
        chunk in 1000u64..40_000,
    ) {
        let tree = Tree::new();
        let path = tree.file("events.jsonl", capture(seed, bytes, damage_every, torn));
        for (bin, args) in [
            ("ci-cat", &[][..]),
            ("ci-grep", &["-c", "error"]),
            ("ci-filter", &["--event", "tool:*"]),
            ("ci-agg", &["--tokens", "--by", "day"]),
        ] {
            let (whole, parts) = both(bin, args, &path, chunk);
            prop_assert_eq!(&parts.stdout, &whole.stdout, "{} {:?}", bin, args);
            prop_assert_eq!(&parts.stderr, &whole.stderr, "{} {:?}", bin, args);
            prop_assert_eq!(parts.code, whole.code, "{} {:?}", bin, args);
        }
    }
}
