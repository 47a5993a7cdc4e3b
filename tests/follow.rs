//! `ci-cat --follow` against a concurrent writer: every complete line once, no
//! partial lines, truncation handled, clean exit on SIGTERM.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::util::root;

/// A tiny deterministic PRNG (xorshift), so the test needs no dependency.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// Starts `ci-cat -f ARGS` with stdout and stderr collected by threads.
fn follow(args: &[&str]) -> (Child, Arc<Mutex<Vec<String>>>, std::thread::JoinHandle<String>) {
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("ci-cat"))
        .current_dir(root())
        .arg("-f")
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let lines = Arc::new(Mutex::new(Vec::new()));
    let sink = lines.clone();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for l in BufReader::new(stdout).lines() {
            sink.lock().unwrap().push(l.unwrap());
        }
    });
    let mut stderr = child.stderr.take().unwrap();
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut stderr, &mut s).unwrap();
        s
    });
    (child, lines, err)
}

/// Waits (bounded) until `n` lines were printed.
fn wait_for(lines: &Mutex<Vec<String>>, n: usize) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while lines.lock().unwrap().len() < n && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Sends SIGTERM and returns the exit code.
fn terminate(child: Child) -> Option<i32> {
    signal(child, "-TERM")
}

/// Sends a signal (`-TERM`, `-INT`) and returns the exit code.
fn signal(mut child: Child, sig: &str) -> Option<i32> {
    let status = Command::new("kill").args([sig, &child.id().to_string()]).status().unwrap();
    assert!(status.success());
    child.wait().unwrap().code()
}

fn event(i: usize, pad: usize) -> String {
    format!("{{\"event\":\"tick\",\"data\":{{\"i\":{i},\"pad\":\"{}\"}}}}\n", "x".repeat(pad))
}

/// The `data.i` and `ci.line` of each printed record (each must be valid JSON).
fn numbers(lines: &[String]) -> Vec<(u64, u64)> {
    lines
        .iter()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("partial line {e}: {l}"));
            (v["data"]["i"].as_u64().unwrap(), v["ci"]["line"].as_u64().unwrap())
        })
        .collect()
}

#[test]
fn concurrent_writer_every_line_once() {
    const N: usize = 3000;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.jsonl");
    let mut file = std::fs::File::create(&path).unwrap();
    // 100 lines are there before the follower starts.
    let mut text = String::new();
    for i in 0..100 {
        text.push_str(&event(i, i % 7));
    }
    file.write_all(text.as_bytes()).unwrap();
    let (child, lines, err) = follow(&[path.to_str().unwrap()]);
    let writer = std::thread::spawn(move || {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut text = String::new();
        for i in 100..N {
            text.push_str(&event(i, rng.below(300) as usize));
        }
        // A torn tail the writer never finishes: held, never printed.
        text.push_str("{\"event\":\"tick\",\"data\":{\"i\":99999");
        let bytes = text.as_bytes();
        let mut at = 0;
        while at < bytes.len() {
            let n = (1 + rng.below(4000) as usize).min(bytes.len() - at);
            file.write_all(&bytes[at..at + n]).unwrap();
            file.flush().unwrap();
            at += n;
            // Pauses (often mid-line): about 1.5 s in all.
            if rng.below(3) == 0 {
                std::thread::sleep(Duration::from_millis(rng.below(20)));
            }
        }
    });
    writer.join().unwrap();
    wait_for(&lines, N);
    // Give a held tail the chance to be (wrongly) printed.
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(terminate(child), Some(0));
    let stderr = err.join().unwrap();
    let got = numbers(&lines.lock().unwrap());
    let want: Vec<(u64, u64)> = (0..N as u64).map(|i| (i, i + 1)).collect();
    assert_eq!(got.len(), N);
    assert!(got == want, "lines out of order, duplicated or missing");
    assert_eq!(stderr, "");
}

#[test]
fn truncation_restarts_without_duplicates() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.jsonl");
    let write = |p: &Path, from: usize, to: usize, append: bool| {
        let mut f =
            std::fs::OpenOptions::new().create(true).append(append).write(true).truncate(!append).open(p).unwrap();
        for i in from..to {
            f.write_all(event(i, 3).as_bytes()).unwrap();
        }
    };
    write(&path, 0, 10, false);
    let (child, lines, err) = follow(&[path.to_str().unwrap()]);
    wait_for(&lines, 10);
    // Truncated in place (copytruncate), then written again.
    std::fs::OpenOptions::new().write(true).truncate(true).open(&path).unwrap();
    std::thread::sleep(Duration::from_millis(400));
    write(&path, 10, 15, true);
    wait_for(&lines, 15);
    // Rotated: renamed away with one more line, and recreated.
    let old = dir.path().join("live.jsonl.1");
    std::fs::rename(&path, &old).unwrap();
    write(&old, 15, 16, true);
    write(&path, 16, 18, false);
    wait_for(&lines, 18);
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(terminate(child), Some(0));
    assert_eq!(err.join().unwrap(), "");
    let got = numbers(&lines.lock().unwrap());
    let mut want: Vec<(u64, u64)> = (0..10).map(|i| (i, i + 1)).collect();
    want.extend((10..16).map(|i| (i, i - 9)));
    want.extend((16..18).map(|i| (i, i - 15)));
    assert_eq!(got, want);
}

#[test]
fn follow_conflicts_with_head() {
    let run = crate::util::ci("ci-cat").args(["-f", "--head", "1", "fixtures/demo"]).run();
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("cannot be used with"), "{}", run.stderr);
}

#[test]
fn tail_then_follow() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.jsonl");
    let text: String = (0..10).map(|i| event(i, 1)).collect();
    std::fs::write(&path, text).unwrap();
    let (child, lines, err) = follow(&["--tail", "3", path.to_str().unwrap()]);
    wait_for(&lines, 3);
    let mut f = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
    f.write_all((10..12).map(|i| event(i, 1)).collect::<String>().as_bytes()).unwrap();
    wait_for(&lines, 5);
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(signal(child, "-INT"), Some(0));
    assert_eq!(err.join().unwrap(), "");
    let want: Vec<(u64, u64)> = (7..12).map(|i| (i, i + 1)).collect();
    assert_eq!(numbers(&lines.lock().unwrap()), want);
}

#[test]
fn closed_pipe_ends_following_at_the_next_write() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.jsonl");
    std::fs::write(&path, event(0, 1)).unwrap();
    let err = tempfile::NamedTempFile::new().unwrap();
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("ci-cat"))
        .args(["-f", path.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(err.reopen().unwrap())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
    assert!(first.starts_with("{\"event\":\"tick\""));
    // The reader is gone; the next line written makes the follower notice.
    let mut f = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
    f.write_all(event(1, 1).as_bytes()).unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "ci-cat -f did not exit on a closed pipe");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(0));
    assert_eq!(std::fs::read_to_string(err.path()).unwrap(), "");
}

#[test]
fn live_stdin_passes_each_line_at_once_and_stops_on_sigterm() {
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("ci-cat"))
        .args(["-f", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    for i in 0..3 {
        stdin.write_all(event(i, 1).as_bytes()).unwrap();
        stdin.flush().unwrap();
        // Printed before the next line is written (no batching), stdin still open.
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["data"]["i"], i);
    }
    // Blocked on a stdin that never ends: the signal still ends the run, with 0.
    let started = Instant::now();
    assert_eq!(terminate(child), Some(0));
    assert!(started.elapsed() < Duration::from_secs(4));
    drop(stdin);
}
