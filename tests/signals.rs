//! SIGINT, SIGTERM and SIGHUP while a tool streams a finite input: stdout
//! holds complete records only, and the exit status is 130. ci-agg prints
//! nothing. (Follow mode, where a signal ends the run with 0: tests/follow.rs.)

use crate::kit::Tree;
use crate::util::exits_within;
use std::io::{Read, Write};
use std::process::{Child, Command, Stdio};

/// A capture of about 4 MB in `tree`; its path.
fn big_capture(tree: &Tree) -> String {
    let mut text = String::with_capacity(4 << 20);
    for i in 0..20_000 {
        let pad = "x".repeat(i % 400);
        text.push_str(&format!(
            "{{\"event\":\"tick\",\"timestamp\":\"2026-03-01T00:00:00Z\",\"data\":{{\"i\":{i},\"pad\":\"{pad}\"}}}}\n"
        ));
    }
    tree.file("big.jsonl", text).to_str().unwrap().to_owned()
}

fn spawn(tool: &str, args: &[&str], stdin: Stdio) -> Child {
    crate::util::ci_command(tool).args(args).stdin(stdin).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap()
}

fn kill(child: &Child, sig: &str) {
    let status = Command::new("kill").args([sig, &child.id().to_string()]).status().unwrap();
    assert!(status.success());
}

/// Runs `tool ARGS`, reads 32 KiB of its output (so it is streaming, with
/// its handlers installed, and blocked on the full pipe), sends `sig`, reads
/// the rest: whole JSON lines only, ending in a newline, and exit 130.
fn interrupted(tool: &str, args: &[&str], sig: &str) {
    let mut child = spawn(tool, args, Stdio::null());
    let mut stdout = child.stdout.take().unwrap();
    let mut out = vec![0u8; 32 * 1024];
    stdout.read_exact(&mut out).unwrap();
    kill(&child, sig);
    stdout.read_to_end(&mut out).unwrap();
    assert_eq!(exits_within(&mut child, "exit after the signal"), Some(130), "{tool} {sig}");
    assert_eq!(out.last(), Some(&b'\n'), "{tool} {sig}: output ends mid-record");
    for line in out.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let v: Result<serde_json::Value, _> = serde_json::from_slice(line);
        assert!(v.is_ok(), "{tool} {sig}: not a whole record: {}", String::from_utf8_lossy(line));
    }
}

#[test]
fn cat_interrupted_by_sigint() {
    let tree = Tree::new();
    let big = big_capture(&tree);
    interrupted("ci-cat", &[&big, &big], "-INT");
}

#[test]
fn cat_interrupted_by_sigterm() {
    let tree = Tree::new();
    let big = big_capture(&tree);
    interrupted("ci-cat", &["--full", &big, &big], "-TERM");
}

#[test]
fn grep_interrupted() {
    let tree = Tree::new();
    let big = big_capture(&tree);
    interrupted("ci-grep", &["-F", "xx", &big, &big], "-INT");
}

#[test]
fn filter_interrupted() {
    let tree = Tree::new();
    let big = big_capture(&tree);
    interrupted("ci-filter", &["--event", "tick", &big, &big], "-TERM");
}

#[test]
fn find_interrupted() {
    // The demo root named 400 times: about 3 MB of session records.
    let roots: Vec<&str> = ["--root", "fixtures/demo"].repeat(400);
    interrupted("ci-find", &roots, "-HUP");
}

#[test]
fn agg_interrupted_prints_nothing() {
    let mut child = spawn("ci-agg", &["--by", "event", "-"], Stdio::piped());
    let mut stdin = child.stdin.take().unwrap();
    // 1 MB through a 64 KiB pipe: once written, ci-agg is reading, so its
    // handlers are installed. Stdin stays open: the run cannot end by itself.
    let line = "{\"event\":\"tick\",\"data\":{\"i\":1}}\n";
    stdin.write_all(line.repeat((1 << 20) / line.len()).as_bytes()).unwrap();
    kill(&child, "-INT");
    let mut out = Vec::new();
    child.stdout.take().unwrap().read_to_end(&mut out).unwrap();
    assert_eq!(exits_within(&mut child, "exit after the signal"), Some(130));
    assert_eq!(String::from_utf8_lossy(&out), "");
    drop(stdin);
}
