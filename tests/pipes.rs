//! Every tool exits 0, quietly, when its reader goes away early.

use std::io::{BufRead, BufReader};
use std::process::Stdio;

use crate::util::ci_command;

const S1_FILE: &str =
    "fixtures/demo/-home-user-my-api/sessions/a7c3e9d1-4b2f-4e8a-9d61-0c5b7e2f3a10/context-intelligence/events.jsonl";

/// Runs `tool ARGS`, reads `lines` lines of its stdout (0: none), closes it,
/// and checks the exit code and that stderr holds nothing but the tool's
/// metadata warnings on the demo fixtures.
fn closed_early(tool: &str, args: &[&str], lines: usize) {
    // stderr goes to a file: a pipe nobody reads could fill up and block the tool.
    let err = tempfile::NamedTempFile::new().unwrap();
    let mut child = ci_command(tool).args(args).stdout(Stdio::piped()).stderr(err.reopen().unwrap()).spawn().unwrap();
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    for _ in 0..lines {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        assert!(line.starts_with('{'), "{tool}: {line}");
    }
    drop(reader);
    let out = child.wait_with_output().unwrap();
    let stderr = std::fs::read_to_string(err.path()).unwrap();
    assert_eq!(out.status.code(), Some(0), "{tool}: {stderr}");
    let noise: Vec<&str> = stderr.lines().filter(|l| !l.contains(": warning: ")).collect();
    assert!(noise.is_empty(), "{tool}: {noise:?}");
}

#[test]
fn every_tool_is_quiet_on_a_closed_pipe() {
    let many = vec![S1_FILE; 400];
    let roots: Vec<&str> = ["--root", "fixtures/demo"].repeat(300);
    closed_early("ci-find", &roots, 1);
    closed_early("ci-cat", &many, 1);
    let mut filter = vec!["--event", "tool:post"];
    filter.extend(&many);
    closed_early("ci-filter", &filter, 1);
    let mut grep = vec!["."];
    grep.extend(&many);
    closed_early("ci-grep", &grep, 1);
    // ci-agg prints at the end: its reader is gone before it writes.
    let mut agg = vec!["--by", "event"];
    agg.extend(&many);
    closed_early("ci-agg", &agg, 0);
    // Read at once and closed: the same for the streaming tools.
    closed_early("ci-cat", &many, 0);
}
