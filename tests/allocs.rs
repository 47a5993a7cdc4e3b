//! Allocation guard: heap allocations per line on each tool's hot path.
//!
//! Times are noise on a shared machine and `bench/instructions.sh` needs
//! valgrind and a release build, so this is the speed guard `cargo test`
//! runs: a per-line allocation creeping into a hot path (a `String` per
//! event, a buffer per line) is the classic way a streaming tool loses its
//! speed, and allocation counts are exact and the same in debug builds.
//!
//! Each case runs in a child process (this binary again, with
//! `CI_ALLOCS_CHILD` set and stdout discarded) whose global allocator counts
//! calls to `alloc`/`realloc`; the tool runs in-process through its library
//! entry point, as its binary runs it. The same sessions are written twice,
//! with `N` and `2N` lines each: the difference of the two counts over the
//! `N × sessions` added lines is the cost per line, free of start-up and
//! per-session costs. Bounds are the counts measured when the guard was
//! written plus a margin for the hand-overs between threads, whose number
//! depends on timing (the tools run with `-j1`: one worker).

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};

use clap::Parser;

/// The capture-tree builder of the integration tests (tests/kit/tree.rs).
#[path = "kit/tree.rs"]
mod tree;

struct Counting;

static ALLOCS: AtomicU64 = AtomicU64::new(0);

// SAFETY: every call is passed on to the system allocator unchanged.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's contract is the system allocator's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

const SESSIONS: usize = 6;
const LINES: usize = 400;

/// A case: its name, the tool's arguments (the root is appended), and the
/// most allocations one more line may cost.
struct Case {
    name: &'static str,
    args: &'static [&'static str],
    per_line: f64,
}

const CASES: &[Case] = &[
    // Measured 2.0: the group key of each event (its bytes and its map entry).
    Case { name: "agg-by-event", args: &["ci-agg", "--by", "event"], per_line: 2.5 },
    // Measured 0.0: lines are skimmed and dropped on their envelope.
    Case { name: "filter-event", args: &["ci-filter", "--event", "no:such"], per_line: 0.25 },
    // Measured 0.0: the raw pre-check refuses every line.
    Case { name: "grep-absent", args: &["ci-grep", "-F", "no-such-text"], per_line: 0.25 },
    // Measured 0.0: the long lines hold the text only once decoded, so they
    // are parsed onto simd-json's tape and their strings decoded (buffers
    // reused line to line).
    Case { name: "grep-decoded", args: &["ci-grep", "-c", "-F", "café 日本"], per_line: 0.25 },
    // Measured 0.0: every line validated and printed whole, no allocation.
    Case { name: "cat-full", args: &["ci-cat", "--full"], per_line: 0.25 },
    // Measured 1.6: the long line of every ten is shrunk through a small DOM
    // (about 16 allocations: its truncated members); short ones are printed
    // as read.
    Case { name: "cat-default", args: &["ci-cat"], per_line: 2.0 },
];

fn main() {
    if let Ok(case) = std::env::var("CI_ALLOCS_CHILD") {
        child(&case);
        return;
    }
    // Behave as a test binary for `cargo test FILTER` and `-- --list`.
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--list") {
        println!("allocs: test");
        return;
    }
    if args.iter().any(|a| !a.starts_with('-') && !"allocs".contains(a.as_str())) {
        return;
    }
    let dir = tempfile::tempdir().expect("temporary directory");
    let small = dir.path().join("small");
    let large = dir.path().join("large");
    write_tree(&small, LINES);
    write_tree(&large, 2 * LINES);
    let added = (SESSIONS * LINES) as f64;
    let mut failed = false;
    for case in CASES {
        let per_line = (count(case, &large) as f64 - count(case, &small) as f64) / added;
        let ok = per_line <= case.per_line;
        println!(
            "allocs {:<14} {per_line:>6.2} per line (bound {}) ... {}",
            case.name,
            case.per_line,
            if ok { "ok" } else { "FAILED" }
        );
        failed |= !ok;
    }
    if failed {
        eprintln!("a hot path allocates more per line than it did: see tests/allocs.rs");
        std::process::exit(1);
    }
}

/// Allocations of one run of `case` over `root`, counted in a child process.
fn count(case: &Case, root: &Path) -> u64 {
    let exe = std::env::current_exe().expect("own path");
    let out = Command::new(exe)
        .env("CI_ALLOCS_CHILD", case.name)
        .env("CI_ALLOCS_ROOT", root)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .output()
        .expect("run the child");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{}: {stderr}", case.name);
    let line = stderr.lines().find_map(|l| l.strip_prefix("allocs: ")).unwrap_or_else(|| panic!("{stderr}"));
    line.trim().parse().expect("a count")
}

/// Runs one case in this process and reports its allocations on stderr.
fn child(name: &str) {
    let case = CASES.iter().find(|c| c.name == name).expect("a known case");
    let root = std::env::var("CI_ALLOCS_ROOT").expect("CI_ALLOCS_ROOT");
    let argv: Vec<String> = case.args.iter().map(|s| s.to_string()).chain(["-j1".into(), root]).collect();
    let diag = ci_tools::diag::Diag::new("ci-allocs", false);
    let before = ALLOCS.load(Ordering::SeqCst);
    let result = match case.args[0] {
        "ci-agg" => ci_tools::cmd::agg::run(parse(&argv), &diag),
        "ci-filter" => ci_tools::cmd::filter::run(parse(&argv), &diag),
        "ci-grep" => ci_tools::cmd::grep::run(parse(&argv), &diag),
        "ci-cat" => ci_tools::cmd::cat::run(parse(&argv), &diag),
        other => panic!("no case runs {other}"),
    };
    let after = ALLOCS.load(Ordering::SeqCst);
    assert!(result.is_ok(), "{name} failed");
    eprintln!("allocs: {}", after - before);
}

fn parse<T: Parser>(argv: &[String]) -> T {
    T::try_parse_from(argv).unwrap_or_else(|e| panic!("{e}"))
}

/// Writes `SESSIONS` Amplifier captures of `lines` lines each under `root`:
/// one long escape-dense `llm:request` line in ten (2–6 KB, over the
/// default truncation budget), the rest short tool and session events.
fn write_tree(root: &Path, lines: usize) {
    let tree = tree::Tree::at(root);
    for s in 0..SESSIONS {
        let id = format!("0000000{s}-aaaa-4bbb-8ccc-dddddddddddd");
        let meta =
            format!(r#"{{"session_id":"{id}","started_at":"2026-03-0{}T09:00:00+00:00","workspace":"app"}}"#, s + 1);
        let body = (0..lines).map(|n| {
            let ts = format!("2026-03-0{}T09:{:02}:{:02}.000000+00:00", s + 1, n / 60 % 60, n % 60);
            if n % 10 == 0 {
                let text = r#"caf\u00e9 \u65e5\u672c \ud83d\ude80 \"quoted\"\nline "#.repeat(40 + n % 80);
                format!(
                    r#"{{"data":{{"messages":[{{"content":"{text}","role":"user"}}],"model":"m"}},"event":"llm:request","timestamp":"{ts}","workspace":"app"}}"#
                )
            } else {
                format!(
                    r#"{{"data":{{"tool_call_id":"call_{n}","tool_name":"bash"}},"event":"tool:pre","timestamp":"{ts}","workspace":"app"}}"#
                )
            }
        });
        tree.amplifier("-home-user-app", &id).metadata(meta).lines(body).write();
    }
}
