//! `ci-cat --follow` against a concurrent writer: every complete line once, no
//! partial lines, truncation handled, clean exit on SIGTERM.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::util::{exits_within, root};

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
    follow_with("ci-cat", args, Stdio::null())
}

/// Starts `TOOL -f ARGS` with the given stdin, stdout and stderr collected by threads.
fn follow_with(
    tool: &str,
    args: &[&str],
    stdin: Stdio,
) -> (Child, Arc<Mutex<Vec<String>>>, std::thread::JoinHandle<String>) {
    let mut child = Command::new(assert_cmd::cargo::cargo_bin(tool))
        .current_dir(root())
        .arg("-f")
        .args(args)
        .stdin(stdin)
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

/// Waits (bounded, generously: the assertions that follow tell what is
/// missing) until `n` lines were printed.
fn wait_for(lines: &Mutex<Vec<String>>, n: usize) {
    let deadline = Instant::now() + Duration::from_secs(10);
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
    named_event("tick", i, pad)
}

fn named_event(name: &str, i: usize, pad: usize) -> String {
    format!("{{\"event\":\"{name}\",\"data\":{{\"i\":{i},\"pad\":\"{}\"}}}}\n", "x".repeat(pad))
}

/// Appends `bytes` in random-size chunks (1 to 4000 bytes, so often ending
/// mid-line), flushing each and pausing now and then.
fn write_in_chunks(file: &mut std::fs::File, bytes: &[u8], rng: &mut Rng) {
    let mut at = 0;
    while at < bytes.len() {
        let n = (1 + rng.below(4000) as usize).min(bytes.len() - at);
        file.write_all(&bytes[at..at + n]).unwrap();
        file.flush().unwrap();
        at += n;
        // Pauses (often mid-line): about 1.5 s in all for 3000 lines.
        if rng.below(3) == 0 {
            std::thread::sleep(Duration::from_millis(rng.below(20)));
        }
    }
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

/// `TOOL -f ARGS FILE` against a concurrent writer: 50 lines exist at start,
/// then a writer appends 2950 more in random-size chunks (often ending
/// mid-line) with pauses, and a torn tail it never finishes. Events `i` with
/// `keep(i)` are named "tick", the others "tock"; the tool must print exactly
/// the ticks, once each, in order, whole.
fn concurrent_writer(tool: &str, args: &[&str], keep: fn(usize) -> bool) {
    const N: usize = 3000;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.jsonl");
    let mut file = std::fs::File::create(&path).unwrap();
    let name = move |i: usize| if keep(i) { "tick" } else { "tock" };
    let head: String = (0..50).map(|i| named_event(name(i), i, i % 7)).collect();
    file.write_all(head.as_bytes()).unwrap();
    let mut args = args.to_vec();
    args.push(path.to_str().unwrap());
    let (child, lines, err) = follow_with(tool, &args, Stdio::null());
    let writer = std::thread::spawn(move || {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut text: String = (50..N).map(|i| named_event(name(i), i, rng.below(300) as usize)).collect();
        // A torn tail the writer never finishes: held, never printed.
        text.push_str("{\"event\":\"tick\",\"data\":{\"i\":99999");
        write_in_chunks(&mut file, text.as_bytes(), &mut rng);
    });
    writer.join().unwrap();
    let want: Vec<(u64, u64)> = (0..N).filter(|&i| keep(i)).map(|i| (i as u64, i as u64 + 1)).collect();
    wait_for(&lines, want.len());
    // Give a held tail the chance to be (wrongly) printed.
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(terminate(child), Some(0));
    assert_eq!(err.join().unwrap(), "");
    let got = numbers(&lines.lock().unwrap());
    assert_eq!(got.len(), want.len());
    assert!(got == want, "lines out of order, duplicated or missing");
}

#[test]
fn concurrent_writer_every_line_once() {
    concurrent_writer("ci-cat", &[], |_| true);
}

#[test]
fn filter_follow_concurrent_writer_every_match_once() {
    // Every third event is a "tock", which the filter drops.
    concurrent_writer("ci-filter", &["--event", "tick"], |i| i % 3 != 0);
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

#[test]
fn grep_follow_prints_matches_as_written() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.jsonl");
    std::fs::write(&path, event(0, 3)).unwrap();
    let (child, lines, err) = follow_with("ci-grep", &["-F", "xxx", path.to_str().unwrap()], Stdio::null());
    wait_for(&lines, 1);
    let mut f = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
    // No match, a match written in two pieces, another match.
    f.write_all(event(1, 2).as_bytes()).unwrap();
    let second = event(2, 5);
    f.write_all(&second.as_bytes()[..20]).unwrap();
    f.flush().unwrap();
    std::thread::sleep(Duration::from_millis(300));
    f.write_all(&second.as_bytes()[20..]).unwrap();
    f.write_all(event(3, 4).as_bytes()).unwrap();
    wait_for(&lines, 3);
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(signal(child, "-HUP"), Some(0));
    assert_eq!(err.join().unwrap(), "");
    let got: Vec<(u64, String)> = lines
        .lock()
        .unwrap()
        .iter()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (v["line"].as_u64().unwrap(), v["match"].as_str().unwrap().to_owned())
        })
        .collect();
    assert_eq!(got, vec![(1, "xxx".to_owned()), (3, "xxx".to_owned()), (4, "xxx".to_owned())]);
}

#[test]
fn grep_follow_conflicts_with_per_session_counts() {
    for flag in [&["-c"][..], &["-l"], &["-m", "2"], &["--count"]] {
        let run = crate::util::ci("ci-grep").arg("-f").args(flag).args(["x", "fixtures/demo"]).run();
        assert_eq!(run.code, 2, "{flag:?}");
        assert!(run.stderr.contains("cannot be used with"), "{}", run.stderr);
        assert_eq!(run.stdout, "");
    }
    let run = crate::util::ci("ci-find").args(["-f", "--tree", "--root", "fixtures/demo"]).run();
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("cannot be used with"), "{}", run.stderr);
}

/// `ci-cat -f FILE` with a piped stdout: the first line is read, then the
/// reader goes away; with `write_more` a line is written after that. Either
/// way the follower must notice and exit 0, quietly.
fn closed_pipe(write_more: bool) {
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
    if write_more {
        let mut f = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(event(1, 1).as_bytes()).unwrap();
    }
    assert_eq!(exits_within(&mut child, "ci-cat -f on a closed pipe"), Some(0));
    assert_eq!(std::fs::read_to_string(err.path()).unwrap(), "");
}

#[test]
fn closed_pipe_ends_following_at_the_next_write() {
    closed_pipe(true);
}

#[test]
fn closed_pipe_ends_following_while_idle() {
    closed_pipe(false);
}

/// Creates session `id` under `root/-p/sessions` (metadata.json, and
/// events.jsonl holding `events` unless None); its events.jsonl path.
fn session(root: &Path, id: &str, events: Option<&str>) -> std::path::PathBuf {
    let ci = root.join("-p/sessions").join(id).join("context-intelligence");
    std::fs::create_dir_all(&ci).unwrap();
    let meta = format!("{{\"session_id\":\"{id}\",\"workspace\":\"w\",\"created\":\"2026-03-01T00:00:00Z\"}}");
    std::fs::write(ci.join("metadata.json"), meta).unwrap();
    let path = ci.join("events.jsonl");
    if let Some(text) = events {
        std::fs::write(&path, text).unwrap();
    }
    path
}

#[test]
fn find_follow_prints_sessions_once_their_events_file_exists() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    session(root, "s1", Some(&event(0, 1)));
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("ci-find"))
        .args(["--follow", "--paths", "--root", root.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut next = || {
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        line.trim_end().to_owned()
    };
    assert_eq!(next(), session(root, "s1", None).to_str().unwrap());
    // s2 has only its metadata; s3 is whole. Any scan that sees s3 sees s2's
    // directory too, so s3 coming first shows s2 was not announced early.
    let s2 = session(root, "s2", None);
    let s3 = session(root, "s3", Some(&event(1, 1)));
    assert_eq!(next(), s3.to_str().unwrap());
    std::fs::write(&s2, event(2, 1)).unwrap();
    assert_eq!(next(), s2.to_str().unwrap());
    // The reader goes away while nothing new appears: ci-find ends, with 0.
    drop(out);
    assert_eq!(exits_within(&mut child, "ci-find --follow on a closed pipe"), Some(0));
}

#[test]
fn find_follow_into_cat_follow_tails_new_sessions() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let s1 = session(root, "s1", Some(&(0..3).map(|i| event(i, 1)).collect::<String>()));
    let mut find = Command::new(assert_cmd::cargo::cargo_bin("ci-find"))
        .args(["--follow", "--root", root.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let records = Stdio::from(find.stdout.take().unwrap());
    let (cat, lines, err) = follow_with("ci-cat", &[], records);
    wait_for(&lines, 3);
    // A session written while it is being discovered: metadata first, then
    // its events in chunks with torn tails; and new lines in the first one.
    let s2 = session(root, "s2", None);
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let mut f2 = std::fs::File::create(&s2).unwrap();
    let text: String = (3..203).map(|i| event(i, rng.below(100) as usize)).collect();
    write_in_chunks(&mut f2, text.as_bytes(), &mut rng);
    let mut f1 = std::fs::OpenOptions::new().append(true).open(&s1).unwrap();
    f1.write_all((203..206).map(|i| event(i, 1)).collect::<String>().as_bytes()).unwrap();
    session(root, "s3", Some(&event(206, 1)));
    wait_for(&lines, 207);
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(terminate(cat), Some(0));
    assert_eq!(err.join().unwrap(), "");
    // ci-cat is gone: ci-find notices while idle and ends quietly.
    assert_eq!(exits_within(&mut find, "ci-find --follow on a closed pipe"), Some(0));
    let got = lines.lock().unwrap().clone();
    let mut seen: Vec<(String, u64, u64)> = got
        .iter()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("partial line {e}: {l}"));
            (
                v["ci"]["session"].as_str().unwrap().to_owned(),
                v["data"]["i"].as_u64().unwrap(),
                v["ci"]["line"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(seen.len(), 207, "duplicates or missing lines");
    seen.sort_by_key(|s| s.1);
    let want: Vec<(String, u64, u64)> = (0..207u64)
        .map(|i| match i {
            0..3 => ("s1".to_owned(), i, i + 1),
            3..203 => ("s2".to_owned(), i, i - 2),
            203..206 => ("s1".to_owned(), i, i - 199),
            _ => ("s3".to_owned(), i, 1),
        })
        .collect();
    assert_eq!(seen, want);
}
