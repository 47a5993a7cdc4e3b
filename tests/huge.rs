//! One huge line through every tool: a capture whose second line holds a
//! string of [`blob_bytes`] bytes (100 MB; smaller in debug builds, see there),
//! written once per test run and shared by the tests. Each tool's output is
//! checked exactly, and so is its peak memory: the contract (toolkit.md,
//! "Performance contract"; issue #7) bounds it by the longest line, measured
//! here as peak RSS ≤ 64 MB + 2 × the line, from the child's own high-water
//! mark (`VmHWM`). The 1 GB runs are in `bench/huge.sh` and BENCHMARKS.md ("Memory").
//!
//! Ignored by default (about 30 s of a debug run; `bench/huge.sh` covers the
//! large case): `cargo test --locked --test tests huge:: -- --ignored` runs them.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use crate::util::ci_command;

/// Session id (directory name) of the capture.
const SESSION: &str = "huge-session";
/// The text in the middle of the blob that ci-grep finds (raw UTF-8 `é`,
/// escaped quotes in the file).
const MIDDLE: &str = "café \"needle\"";
const FIRST: &str = r#"{"event":"session:start","workspace":"w","timestamp":"2026-03-01T10:00:00Z","data":{"session_id":"huge-session"}}"#;
const THIRD: &str = r#"{"event":"llm:response","workspace":"w","timestamp":"2026-03-01T10:00:02Z","data":{"model":"m1","usage":{"input_tokens":10,"output_tokens":5}}}"#;
/// The huge line up to its blob.
const HEAD: &str = r#"{"event":"tool:post","workspace":"w","timestamp":"2026-03-01T10:00:01Z","data":{"tool_name":"bash","tool_call_id":"c1","blob":""#;
/// The huge line after its blob.
const TAIL: &str = "\"}}";

/// Bytes of `x` on each side of [`MIDDLE`]: 50 MB (a 100 MB line) when the
/// binaries are optimised (`cargo test --release`), 20 MB (a 40 MB line) in
/// debug builds, where a 100 MB line takes 1.3–5.5 s per run (about 30 s for
/// the module on 2 cores); `CI_HUGE_HALF_BYTES` overrides. 40 MB is just over a
/// power of two (32 MiB), so the line buffer, which doubles, is at its
/// largest relative to the line (64 MiB).
fn half() -> usize {
    let default = if cfg!(debug_assertions) { 20_000_000 } else { 50_000_000 };
    std::env::var("CI_HUGE_HALF_BYTES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

struct Big {
    root: PathBuf,
    events: PathBuf,
    /// Bytes of the huge line (without its newline).
    line: usize,
}

/// The capture `<tmp>/huge/root/-p/sessions/huge-session/context-intelligence/`,
/// written once per run under the test target's temporary directory (so no
/// stale copy is ever used, and nothing is left in /tmp).
fn big() -> &'static Big {
    static BIG: OnceLock<Big> = OnceLock::new();
    BIG.get_or_init(|| {
        let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("huge/root");
        let dir = root.join("-p/sessions").join(SESSION).join("context-intelligence");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("metadata.json"), format!(r#"{{"session_id":"{SESSION}","workspace":"w"}}"#)).unwrap();
        let events = dir.join("events.jsonl");
        let mut f = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(&events).unwrap());
        writeln!(f, "{FIRST}").unwrap();
        f.write_all(HEAD.as_bytes()).unwrap();
        xs(&mut f, half());
        f.write_all(MIDDLE.replace('"', "\\\"").as_bytes()).unwrap();
        xs(&mut f, half());
        writeln!(f, "{TAIL}").unwrap();
        writeln!(f, "{THIRD}").unwrap();
        f.flush().unwrap();
        let line = HEAD.len() + 2 * half() + MIDDLE.len() + 2 + TAIL.len();
        Big { root, events, line }
    })
}

fn xs(f: &mut impl Write, mut n: usize) {
    let chunk = vec![b'x'; 1 << 20];
    while n > 0 {
        let k = n.min(chunk.len());
        f.write_all(&chunk[..k]).unwrap();
        n -= k;
    }
}

/// One finished run and the child's peak resident set.
struct Measured {
    stdout: Vec<u8>,
    stderr: String,
    code: i32,
    peak_rss: u64,
}

impl Measured {
    fn lines(&self) -> Vec<&str> {
        std::str::from_utf8(&self.stdout).expect("UTF-8 output").lines().collect()
    }
}

/// `VmHWM` of a live process, in KiB (`None` once it has exited).
fn vm_hwm_kib(pid: libc::pid_t) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Runs `bin ARGS` (stdin empty), sampling its peak RSS until it exits, and
/// reaps it with `wait4`.
#[allow(clippy::zombie_processes)] // reaped by wait4 below, not by Child::wait
fn measure(bin: &str, args: &[&str]) -> Measured {
    let mut cmd: Command = ci_command(bin);
    cmd.args(args).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn");
    let mut out = child.stdout.take().expect("stdout");
    let mut err = child.stderr.take().expect("stderr");
    let out_reader = std::thread::spawn(move || {
        let mut v = vec![];
        out.read_to_end(&mut v).map(|_| v)
    });
    let err_reader = std::thread::spawn(move || {
        let mut v = vec![];
        err.read_to_end(&mut v).map(|_| v)
    });
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // Peak RSS from the child's own high-water mark (VmHWM), polled until it
    // exits. Not `ru_maxrss`: Linux folds the hiwater RSS of the memory the
    // child replaced at exec into it, and with vfork-style spawning that is
    // this test process, whose size depends on the tests running beside it.
    // VmHWM only grows, so the last reading before the exit is the peak (a
    // peak reached in the last millisecond could be missed: never a false
    // failure).
    let mut peak_kib = 0u64;
    loop {
        // SAFETY: valid pointers to locals; `pid` is a child of this process not yet reaped.
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, std::ptr::null_mut()) };
        if r == pid {
            break;
        }
        if r < 0 {
            assert_eq!(std::io::Error::last_os_error().kind(), std::io::ErrorKind::Interrupted, "wait4");
        }
        if let Some(kib) = vm_hwm_kib(pid) {
            peak_kib = peak_kib.max(kib);
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    let code = if libc::WIFEXITED(status) { libc::WEXITSTATUS(status) } else { -1 };
    Measured {
        stdout: out_reader.join().unwrap().unwrap(),
        stderr: String::from_utf8_lossy(&err_reader.join().unwrap().unwrap()).into_owned(),
        code,
        peak_rss: peak_kib * 1024,
    }
}

/// Runs and checks the memory bound: peak RSS ≤ 64 MB + 2 × the huge line.
fn bounded(bin: &str, args: &[&str]) -> Measured {
    let big = big();
    let run = measure(bin, args);
    let bound = 64_000_000 + 2 * big.line as u64;
    eprintln!("{bin} {args:?}: peak RSS {:.1} MB (bound {:.1} MB)", run.peak_rss as f64 / 1e6, bound as f64 / 1e6);
    assert!(run.peak_rss <= bound, "{bin} {args:?}: peak RSS {} > {bound}", run.peak_rss);
    run
}

fn events() -> &'static str {
    big().events.to_str().expect("UTF-8 temp path")
}

fn provenance(line: u64) -> serde_json::Value {
    serde_json::json!({"session": SESSION, "path": events(), "line": line})
}

fn parse(line: &str) -> serde_json::Value {
    serde_json::from_str(line).unwrap_or_else(|e| panic!("invalid JSON ({e}): {:.200}", line))
}

/// The small lines as printed (with provenance).
fn small(text: &str, line: u64) -> serde_json::Value {
    let mut v = parse(text);
    v["ci"] = provenance(line);
    v
}

/// Checks the huge record as printed within the default budget (4096 bytes).
fn check_cut(printed: &str) {
    assert!(printed.len() <= 4096, "over budget: {} bytes", printed.len());
    let v = parse(printed);
    assert_eq!(v["event"], "tool:post");
    assert_eq!(v["workspace"], "w");
    assert_eq!(v["timestamp"], "2026-03-01T10:00:01Z");
    assert_eq!(v["data"]["tool_name"], "bash");
    assert_eq!(v["data"]["tool_call_id"], "c1");
    // Provenance, and the cut marker naming the whole line (line 2, after the small line 1).
    let mut ci = v["ci"].clone();
    let cut = ci.as_object_mut().and_then(|c| c.remove("cut")).expect("a cut marker");
    assert_eq!(ci, provenance(2));
    let mut first = Vec::new();
    let mut file = std::io::BufReader::new(std::fs::File::open(events()).unwrap());
    std::io::BufRead::read_until(&mut file, b'\n', &mut first).unwrap();
    assert_eq!((cut["offset"].as_u64(), cut["bytes"].as_u64()), (Some(first.len() as u64), Some(big().line as u64)));
    assert_eq!(cut["xxh3"].as_str().map(str::len), Some(16));
    let blob = v["data"]["blob"].as_str().unwrap();
    let kept = blob.bytes().take_while(|&b| b == b'x').count();
    assert!(kept > 1000 && kept < half(), "kept {kept}");
    // The marker counts omitted bytes of the decoded string (é is 2 bytes, `\"` one).
    let decoded = 2 * half() + MIDDLE.len();
    assert_eq!(&blob[kept..], format!("…[+{} bytes]", decoded - kept));
}

#[test]
#[ignore = "slow (a 40 MB line through every tool): cargo test --test tests huge:: -- --ignored"]
fn huge_line_through_ci_cat() {
    let run = bounded("ci-cat", &[events()]);
    assert_eq!((run.stderr.as_str(), run.code), ("", 0));
    let lines = run.lines();
    assert_eq!(lines.len(), 3);
    assert_eq!(parse(lines[0]), small(FIRST, 1));
    check_cut(lines[1]);
    assert_eq!(parse(lines[2]), small(THIRD, 3));
}

#[test]
#[ignore = "slow (a 40 MB line through every tool): cargo test --test tests huge:: -- --ignored"]
fn huge_line_through_ci_cat_full() {
    let big = big();
    let run = bounded("ci-cat", &["--full", events()]);
    assert_eq!((run.stderr.as_str(), run.code), ("", 0));
    // Byte-identical apart from the provenance key added at the end.
    let mut want = Vec::with_capacity(big.line + 4096);
    for (n, line) in [FIRST, "", THIRD].iter().enumerate() {
        let prov = format!(",\"ci\":{}}}\n", provenance(n as u64 + 1));
        if n == 1 {
            want.extend_from_slice(HEAD.as_bytes());
            want.resize(want.len() + half(), b'x');
            want.extend_from_slice(MIDDLE.replace('"', "\\\"").as_bytes());
            want.resize(want.len() + half(), b'x');
            want.extend_from_slice(&TAIL.as_bytes()[..TAIL.len() - 1]);
        } else {
            want.extend_from_slice(&line.as_bytes()[..line.len() - 1]);
        }
        want.extend_from_slice(prov.as_bytes());
    }
    assert_eq!(run.stdout.len(), want.len());
    assert!(run.stdout == want, "--full output differs");
}

#[test]
#[ignore = "slow (a 40 MB line through every tool): cargo test --test tests huge:: -- --ignored"]
fn huge_line_through_ci_filter() {
    let run = bounded("ci-filter", &["--event", "tool:post", events()]);
    assert_eq!((run.stderr.as_str(), run.code), ("", 0));
    let lines = run.lines();
    assert_eq!(lines.len(), 1);
    check_cut(lines[0]);

    // No tool:pre in the file: nothing printed, and the pattern is named (no
    // read name is close enough to be a typo's).
    let run = bounded("ci-filter", &["--event", "tool:pre", events()]);
    assert_eq!(
        (run.stdout.as_slice(), run.stderr.as_str(), run.code),
        (&b""[..], "ci-filter: warning: --event tool:pre: no event read matched it\n", 1)
    );

    // A field of the huge record's data: the full record is seen (the blob
    // holds the needle only in its middle).
    let run =
        bounded("ci-filter", &["--where", r#"data.tool_name == "bash" and data.blob ~ "é \"needle\"""#, events()]);
    assert_eq!((run.stderr.as_str(), run.code), ("", 0));
    let lines = run.lines();
    assert_eq!(lines.len(), 1);
    check_cut(lines[0]);

    let run = bounded("ci-filter", &["--where", "data.usage.output_tokens > 1", events()]);
    assert_eq!((run.stderr.as_str(), run.code), ("", 0));
    assert_eq!(run.lines().iter().map(|l| parse(l)).collect::<Vec<_>>(), [small(THIRD, 3)]);
}

#[test]
#[ignore = "slow (a 40 MB line through every tool): cargo test --test tests huge:: -- --ignored"]
fn huge_line_through_ci_agg() {
    let run = bounded("ci-agg", &["--by", "event", events()]);
    assert_eq!((run.stderr.as_str(), run.code), ("", 0));
    assert_eq!(
        run.lines(),
        [
            r#"{"event":"llm:response","count":1}"#,
            r#"{"event":"session:start","count":1}"#,
            r#"{"event":"tool:post","count":1}"#
        ]
    );
    let run = bounded("ci-agg", &["--tokens", events()]);
    assert_eq!(
        (run.stderr.as_str(), run.code),
        ("ci-agg: warning: no price for model \"m1\" in litellm 1.110.2 (built in): their cost is null and named in unpriced_models (--pricing FILE adds prices)\n", 0)
    );
    assert_eq!(
        run.lines(),
        [
            r#"{"model":"m1","responses":1,"input_tokens":10,"output_tokens":5,"cache_read_tokens":0,"cache_write_tokens":0,"cost_usd":null,"cost_source":"unpriced","unpriced_models":["m1"]}"#
        ]
    );
}

#[test]
#[ignore = "slow (a 40 MB line through every tool): cargo test --test tests huge:: -- --ignored"]
fn huge_line_through_ci_grep() {
    let run = bounded("ci-grep", &["-F", "-C", "3", "\"needle\"", events()]);
    assert_eq!((run.stderr.as_str(), run.code), ("", 0));
    let lines = run.lines();
    assert_eq!(lines.len(), 1);
    let m = parse(lines[0]);
    let h = half() as u64;
    assert_eq!(
        m,
        serde_json::json!({
            "session": SESSION, "line": 2, "event": "tool:post", "timestamp": "2026-03-01T10:00:01Z",
            "path": "data.blob", "key": false, "offset": h + 6, "char_offset": h + 5,
            "match": "\"needle\"", "snippet": "…fé \"needle\"xxx…", "ci": provenance(2)
        })
    );
    let run = bounded("ci-grep", &["-F", "absent", events()]);
    assert_eq!((run.stdout.as_slice(), run.stderr.as_str(), run.code), (&b""[..], "", 1));
}

#[test]
#[ignore = "slow (a 40 MB line through every tool): cargo test --test tests huge:: -- --ignored"]
fn huge_capture_through_ci_find() {
    let big = big();
    let root = big.root.to_str().unwrap();
    let run = bounded("ci-find", &["--root", root]);
    assert_eq!((run.stderr.as_str(), run.code), ("", 0));
    let lines = run.lines();
    assert_eq!(lines.len(), 1);
    let rec = parse(lines[0]);
    assert_eq!(rec["session"], SESSION);
    assert_eq!(rec["workspace"], "w");
    assert_eq!(rec["path"], events());
    let size = (FIRST.len() + 1 + big.line + 1 + THIRD.len() + 1) as u64;
    assert_eq!(rec["bytes"], size);
    assert_eq!(std::fs::metadata(&big.events).unwrap().len(), size);
    // Metadata only: ci-find never reads the capture.
    assert!(run.peak_rss < 64_000_000, "ci-find peak RSS {}", run.peak_rss);
}

/// One line of about [`half`] bytes (over the 16 MiB above which ci-grep
/// leaves simd-json's tape) holding one string of `\"ab\ncd\u00e9 `
/// repeated (16 bytes written, 9 decoded), then ` needle` (issue 18, item
/// 15), written once per run: (path, line length, decoded length of the
/// string).
fn escape_dense() -> &'static (PathBuf, usize, usize) {
    static DENSE: OnceLock<(PathBuf, usize, usize)> = OnceLock::new();
    DENSE.get_or_init(|| {
        const UNIT: &str = r#"\"ab\ncd\u00e9 "#;
        let units = half() / UNIT.len();
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("huge");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("escape-dense.jsonl");
        let mut f = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(&path).unwrap());
        let head = r#"{"event":"tool:post","workspace":"w","data":{"s":""#;
        let tail = r#" needle"}}"#;
        f.write_all(head.as_bytes()).unwrap();
        let chunk = UNIT.repeat(1 << 16);
        for _ in 0..units >> 16 {
            f.write_all(chunk.as_bytes()).unwrap();
        }
        f.write_all(UNIT.repeat(units & 0xffff).as_bytes()).unwrap();
        writeln!(f, "{tail}").unwrap();
        f.flush().unwrap();
        (path, head.len() + units * UNIT.len() + tail.len(), units * 9 + 7)
    })
}

/// ci-grep on a huge line dense with escapes holds the line and the one
/// string it decodes, not the line's copies for simd-json's tape (before:
/// about 2.7 × the line, 109 MB for a 40 MB line, 770 MB for 300 MB, over
/// the bound of 64 MB + 2 × the line from about 90 MB on). Checked against
/// what reading the line costs the same binary (a literal the pre-check
/// rules out: the line is read and never decoded) plus the decoded string
/// and 8 MB.
#[test]
#[ignore = "slow (a 40 MB line through every tool): cargo test --test tests huge:: -- --ignored"]
fn escape_dense_huge_line_through_ci_grep() {
    let (path, line, decoded) = escape_dense();
    let path = path.to_str().unwrap();
    let read = measure("ci-grep", &["-c", "-F", "absent", path]);
    assert_eq!((read.stdout.as_slice(), read.stderr.as_str(), read.code), (&b""[..], "", 1));
    let run = measure("ci-grep", &["needle", path]);
    let bound = read.peak_rss + *decoded as u64 + 8_000_000;
    eprintln!(
        "ci-grep on an escape-dense {:.1} MB line: peak RSS {:.1} MB (reading it {:.1} MB, bound {:.1} MB)",
        *line as f64 / 1e6,
        run.peak_rss as f64 / 1e6,
        read.peak_rss as f64 / 1e6,
        bound as f64 / 1e6
    );
    assert!(run.peak_rss <= bound, "peak RSS {} > {bound}", run.peak_rss);
    assert!(run.peak_rss <= 64_000_000 + 2 * *line as u64, "over the contract");
    assert_eq!((run.stderr.as_str(), run.code), ("", 0));
    let units = (*decoded as u64 - 7) / 9;
    assert_eq!(
        run.lines().iter().map(|l| parse(l)).collect::<Vec<_>>(),
        [serde_json::json!({
            "session": "escape-dense", "line": 1, "event": "tool:post", "timestamp": null, "path": "data.s",
            "key": false, "offset": units * 9 + 1, "char_offset": units * 8 + 1, "match": "needle",
            "snippet": "…ab\\ncdé \"ab\\ncdé \"ab\\ncdé \"ab\\ncdé \"ab\\ncdé  needle",
            "ci": {"session": "escape-dense", "path": path, "line": 1}
        })]
    );
}
