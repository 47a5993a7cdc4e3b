//! Issue 38, "no unbounded allocation from one huge line": a record longer
//! than `CI_MAX_LINE_BYTES` is a bad line named by file and line, skipped
//! without being buffered, and every other line is still read.

use crate::kit::Tree;
use crate::util::ci;

/// The limit the tests set: 200 bytes.
const LIMIT: &str = "200";
const FIRST: &str =
    r#"{"event":"session:start","workspace":"w","timestamp":"2026-03-01T10:00:00Z","data":{"session_id":"s1"}}"#;
const THIRD: &str = r#"{"event":"llm:response","workspace":"w","timestamp":"2026-03-01T10:00:02Z","data":{"model":"m1","usage":{"input_tokens":10,"output_tokens":5}}}"#;

/// A line of `len` bytes (at least 100) whose blob holds the needle `café`.
fn long_line(len: usize) -> String {
    let head = r#"{"event":"tool:post","workspace":"w","timestamp":"2026-03-01T10:00:01Z","data":{"blob":"café"#;
    let line = format!("{head}{}\"}}}}", "x".repeat(len - head.len() - 3));
    assert_eq!(line.len(), len);
    line
}

/// `events.jsonl` of an Amplifier session whose second line is `len` bytes.
fn capture(len: usize) -> (Tree, String) {
    let tree = Tree::new();
    let lines = [FIRST.to_owned(), long_line(len), THIRD.to_owned()];
    let events = tree.amplifier("p", "s1").metadata(r#"{"session_id":"s1"}"#).lines(lines).write().events;
    let path = events.to_str().unwrap().to_owned();
    (tree, path)
}

fn report(path: &str, line: u64) -> String {
    format!("{path}:{line}: longer than the limit of 200 bytes (CI_MAX_LINE_BYTES); skipped unread\n")
}

/// ci-cat, ci-agg and ci-grep, on the file and on stdin: the line over the
/// limit is the one bad line (exit 0, exit 2 with --strict), the lines
/// around it are read. A line of exactly the limit is read.
#[test]
fn a_line_over_the_limit_is_a_bad_line_and_the_others_are_read() {
    let (_dir, path) = capture(201);
    let ci_of = |n: u32| format!(r#","ci":{{"session":"s1","path":"{path}","line":{n}}}}}"#);
    let cat = ci("ci-cat").env("CI_MAX_LINE_BYTES", LIMIT).arg(&path).run();
    let summary = "ci-cat: 1 bad line skipped (--strict makes bad lines an error)\n";
    assert_eq!((cat.stderr, cat.code), (report(&path, 2) + summary, 0));
    let with_ci = |line: &str, n| format!("{}{}", &line[..line.len() - 1], ci_of(n));
    assert_eq!(cat.stdout, format!("{}\n{}\n", with_ci(FIRST, 1), with_ci(THIRD, 3)));

    let strict = ci("ci-cat").env("CI_MAX_LINE_BYTES", LIMIT).args(["--strict", &path]).run();
    assert_eq!((strict.stdout, strict.code), (cat.stdout, 2));

    let agg = ci("ci-agg").env("CI_MAX_LINE_BYTES", LIMIT).args(["--by", "event", &path]).run();
    let summary = "ci-agg: 1 bad line skipped (--strict makes bad lines an error)\n";
    assert_eq!((agg.stderr.clone(), agg.code), (report(&path, 2) + summary, 0));
    assert_eq!(agg.stdout, "{\"event\":\"llm:response\",\"count\":1}\n{\"event\":\"session:start\",\"count\":1}\n");
    // Asked again (from the cache when it kept the capture): the same.
    let again = ci("ci-agg").env("CI_MAX_LINE_BYTES", LIMIT).args(["--by", "event", &path]).run();
    assert_eq!((again.stdout, again.stderr, again.code), (agg.stdout, agg.stderr, 0));

    // The needle is in the line over the limit only: not found, said.
    let grep = ci("ci-grep").env("CI_MAX_LINE_BYTES", LIMIT).args(["café", &path]).run();
    let summary = "ci-grep: 1 bad line skipped (--strict makes bad lines an error)\n";
    assert_eq!((grep.stdout.as_str(), grep.stderr, grep.code), ("", report(&path, 2) + summary, 1));
    let grep = ci("ci-grep").env("CI_MAX_LINE_BYTES", LIMIT).args(["-e", "s1", "-e", "m1", &path]).run();
    assert_eq!((grep.lines().len(), grep.stderr, grep.code), (2, report(&path, 2) + summary, 0));

    let piped = std::fs::read(&path).unwrap();
    let stdin = ci("ci-cat").env("CI_MAX_LINE_BYTES", LIMIT).stdin(piped).run();
    let summary = "ci-cat: 1 bad line skipped (--strict makes bad lines an error)\n";
    assert_eq!((stdin.stderr.clone(), stdin.code), (report("-", 2) + summary, 0));
    assert_eq!(stdin.lines().len(), 2);

    let (_dir, path) = capture(200);
    let cat = ci("ci-cat").env("CI_MAX_LINE_BYTES", LIMIT).arg(&path).run();
    assert_eq!((cat.stderr.as_str(), cat.code, cat.lines().len()), ("", 0, 3));
}

/// A line over the limit that is far longer than the reader's buffer (256
/// KiB), last and without its newline: still one bad line.
#[test]
fn a_long_unterminated_last_line_is_a_bad_line() {
    let tree = Tree::new();
    let body = format!("{FIRST}\n{}", long_line(1 << 20));
    let path = tree.amplifier("p", "s1").metadata(r#"{"session_id":"s1"}"#).raw(body).write().events;
    let path = path.to_str().unwrap();
    let cat = ci("ci-cat").env("CI_MAX_LINE_BYTES", "64K").arg(path).run();
    let reason = "longer than the limit of 65536 bytes (CI_MAX_LINE_BYTES); skipped unread";
    let summary = "ci-cat: 1 bad line skipped (--strict makes bad lines an error)";
    assert_eq!((cat.stderr.clone(), cat.code, cat.lines().len()), (format!("{path}:2: {reason}\n{summary}\n"), 0, 1));
}

/// A hook-log array whose second element is over the limit: reported as
/// that element, on its first line; the others are read.
#[test]
fn a_hook_log_element_over_the_limit_is_a_bad_line() {
    let tree = Tree::new();
    let el = |n: u32, extra: &str| {
        format!(
            r#"  {{"session_id": "s1", "hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": "/w", "n": {n}, "x": "{extra}"}}"#
        )
    };
    let text = format!("[\n{},\n{},\n{}\n]\n", el(1, ""), el(2, &"y".repeat(300)), el(3, ""));
    let path = tree.hook_log("pre_tool_use.json", text);
    let path = path.to_str().unwrap();
    let cat = ci("ci-cat").env("CI_MAX_LINE_BYTES", LIMIT).arg(tree.path()).run();
    let reason = "element 2: longer than the limit of 200 bytes (CI_MAX_LINE_BYTES); skipped unread";
    let summary = "ci-cat: 1 bad line skipped (--strict makes bad lines an error)";
    assert_eq!((cat.stderr.clone(), cat.code), (format!("{path}:3: {reason}\n{summary}\n"), 0));
    let n: Vec<_> = cat.json().iter().map(|r| r["data"]["n"].clone()).collect();
    assert_eq!(n, [1, 3]);
}

/// A value that is not a size is warned about, and the default used.
#[test]
fn an_invalid_limit_is_a_warning() {
    let (_dir, path) = capture(201);
    let cat = ci("ci-cat").env("CI_MAX_LINE_BYTES", "lots").arg(&path).run();
    let warning = "ci-cat: warning: CI_MAX_LINE_BYTES=\"lots\" is not a size of at least 1 byte; using 268435456\n";
    assert_eq!((cat.stderr.as_str(), cat.code, cat.lines().len()), (warning, 0, 3));
}
