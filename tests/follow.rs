//! `ci-cat --follow` against a concurrent writer: every complete line once, no
//! partial lines, truncation handled, clean exit on SIGTERM.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::kit::{Rng, Tree};
use crate::util::{exits_within, through_sh};

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
    let mut child =
        follow_command(tool, args).stdin(stdin).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let (lines, _) = collect(child.stdout.take().unwrap());
    let mut stderr = child.stderr.take().unwrap();
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut stderr, &mut s).unwrap();
        s
    });
    (child, lines, err)
}

/// The lines of `from`, collected by a thread as they come, and the thread.
fn collect(from: impl std::io::Read + Send + 'static) -> (Arc<Mutex<Vec<String>>>, std::thread::JoinHandle<()>) {
    let lines = Arc::new(Mutex::new(Vec::new()));
    let sink = lines.clone();
    let reader = std::thread::spawn(move || {
        for l in BufReader::new(from).lines() {
            sink.lock().unwrap().push(l.unwrap());
        }
    });
    (lines, reader)
}

/// A follow run whose stdout and stderr lines are both collected as they
/// come, so that a test can wait for a report before it goes on.
pub(crate) struct Live {
    child: Child,
    out: Arc<Mutex<Vec<String>>>,
    err: Arc<Mutex<Vec<String>>>,
    readers: Vec<std::thread::JoinHandle<()>>,
}

impl Live {
    /// Starts `cmd` (stdout and stderr piped).
    pub(crate) fn start(mut cmd: Command, stdin: Stdio) -> Live {
        let mut child = cmd.stdin(stdin).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        let (out, r1) = collect(child.stdout.take().unwrap());
        let (err, r2) = collect(child.stderr.take().unwrap());
        Live { child, out, err, readers: vec![r1, r2] }
    }

    /// Waits until `done(stdout lines, stderr lines)`; the deadline (10 s)
    /// only keeps a bug from hanging the suite: then the child is killed and
    /// this panics with "`what` did not happen" and what was printed.
    pub(crate) fn wait_until(&mut self, what: &str, done: impl Fn(&[String], &[String]) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while !done(&self.out.lock().unwrap(), &self.err.lock().unwrap()) {
            if Instant::now() >= deadline {
                let _ = self.child.kill();
                panic!("{what} did not happen: {:?} {:?}", self.out.lock().unwrap(), self.err.lock().unwrap());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits until `n` lines are on stdout.
    pub(crate) fn wait_for_lines(&mut self, n: usize) {
        self.wait_until(&format!("{n} lines printed"), |out, _| out.len() >= n);
    }

    /// Ends the run with SIGTERM: its exit code, stdout and stderr lines.
    pub(crate) fn end(self) -> (Option<i32>, Vec<String>, Vec<String>) {
        self.end_with("-TERM")
    }

    /// Ends the run with the signal `sig` (`-TERM`, `-INT`): its exit code,
    /// stdout and stderr lines.
    pub(crate) fn end_with(self, sig: &str) -> (Option<i32>, Vec<String>, Vec<String>) {
        let code = signal(self.child, sig);
        for r in self.readers {
            r.join().unwrap();
        }
        let take = |v: Arc<Mutex<Vec<String>>>| std::mem::take(&mut *v.lock().unwrap());
        (code, take(self.out), take(self.err))
    }
}

/// `TOOL -f ARGS` with the pinned environment of the other tests.
pub(crate) fn follow_command(tool: &str, args: &[&str]) -> Command {
    let mut cmd = crate::util::ci_command(tool);
    cmd.arg("-f").args(args);
    cmd
}

/// Waits (bounded, generously: the assertions that follow tell what is
/// missing) until `n` lines were printed.
fn wait_for(lines: &Mutex<Vec<String>>, n: usize) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while lines.lock().unwrap().len() < n && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Lets one and a half polls of the follower pass (it polls every 200 ms,
/// `POLL` in src/source/follow/mod.rs) before a test asserts that nothing more was
/// printed: a wrong print (a held tail, a duplicate) would have come by
/// then. The only fixed sleep the follow tests have: correct output never
/// waits on it, and what a test waits for is a condition with a deadline
/// ([`wait_for`], [`Live::wait_until`]).
pub(crate) fn let_polls_pass() {
    std::thread::sleep(Duration::from_millis(300));
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
    let_polls_pass();
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
    let mut live = Live::start(follow_command("ci-cat", &[path.to_str().unwrap()]), Stdio::null());
    live.wait_for_lines(10);
    // Truncated in place (copytruncate), then written again once the
    // follower has seen the empty file.
    std::fs::OpenOptions::new().write(true).truncate(true).open(&path).unwrap();
    live.wait_until("the truncation report", |_, err| !err.is_empty());
    write(&path, 10, 15, true);
    live.wait_for_lines(15);
    // Rotated: renamed away with one more line, and recreated.
    let old = dir.path().join("live.jsonl.1");
    std::fs::rename(&path, &old).unwrap();
    write(&old, 15, 16, true);
    write(&path, 16, 18, false);
    live.wait_for_lines(18);
    let_polls_pass();
    let (code, out, err) = live.end();
    assert_eq!(code, Some(0));
    let note = format!("ci-cat: {}: file truncated to 0 bytes; reading on from there\n", path.display());
    assert_eq!(err.iter().map(|l| format!("{l}\n")).collect::<String>(), note);
    let got = numbers(&out);
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
    let_polls_pass();
    assert_eq!(signal(child, "-INT"), Some(0));
    assert_eq!(err.join().unwrap(), "");
    let want: Vec<(u64, u64)> = (7..12).map(|i| (i, i + 1)).collect();
    assert_eq!(numbers(&lines.lock().unwrap()), want);
}

#[test]
fn live_stdin_passes_each_line_at_once_and_stops_on_sigterm() {
    let mut child = follow_command("ci-cat", &["-"])
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
    // Most likely read half-written (nothing shows it was: the test holds
    // either way, and covers the held piece when it was).
    let_polls_pass();
    f.write_all(&second.as_bytes()[20..]).unwrap();
    f.write_all(event(3, 4).as_bytes()).unwrap();
    wait_for(&lines, 3);
    let_polls_pass();
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
    let mut child = follow_command("ci-cat", &[path.to_str().unwrap()])
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
    let meta = format!("{{\"session_id\":\"{id}\",\"workspace\":\"w\",\"created\":\"2026-03-01T00:00:00Z\"}}");
    let capture = Tree::at(root).amplifier("-p", id).metadata(meta);
    match events {
        Some(text) => capture.raw(text),
        None => capture.no_events(),
    }
    .write()
    .events
}

#[test]
fn find_follow_prints_sessions_once_their_events_file_exists() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    session(root, "s1", Some(&event(0, 1)));
    let mut child = crate::util::ci_command("ci-find")
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
    let mut find = crate::util::ci_command("ci-find")
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
    let_polls_pass();
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

/// Appends `text` to the file at `path`.
pub(crate) fn append(path: &Path, text: &str) {
    std::fs::OpenOptions::new().append(true).open(path).unwrap().write_all(text.as_bytes()).unwrap();
}

/// The string at JSON pointer `key` (`/ci/session`, `/event`), `data.i` and
/// `ci.line` of each printed record, sorted.
fn sorted_by(key: &str, lines: &[String]) -> Vec<(String, u64, u64)> {
    let mut got: Vec<(String, u64, u64)> = lines
        .iter()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("partial line {e}: {l}"));
            let k = v.pointer(key).and_then(|k| k.as_str()).unwrap().to_owned();
            (k, v["data"]["i"].as_u64().unwrap(), v["ci"]["line"].as_u64().unwrap())
        })
        .collect();
    got.sort();
    got
}

/// `ci-find | ci-cat -f` over more captures than the descriptor limit lost
/// those beyond it (issue 18, item 4: "Too many open files", and not even
/// their existing lines printed). With the soft and hard limits both at 48,
/// over 150 captures: every existing line, every appended one, and after a
/// rotation of every tenth capture (renamed away, recreated) the new file's
/// lines from its line 1, each once, and no error. Most of the files are
/// closed between polls and reopened by path and identity.
#[test]
fn follow_over_more_captures_than_the_descriptor_limit() {
    const N: usize = 150;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let paths: Vec<_> = (0..N).map(|i| session(&root, &format!("s{i:03}"), Some(&event(i, 1)))).collect();
    let find = crate::util::ci("ci-find").args(["--root", root.to_str().unwrap()]).run();
    assert_eq!((find.code, find.lines().len()), (0, N), "{}", find.stderr);
    let records = dir.path().join("records.ndjson");
    std::fs::write(&records, &find.stdout).unwrap();
    let cmd = through_sh(&follow_command("ci-cat", &[]), "ulimit -n 48");
    let mut live = Live::start(cmd, Stdio::from(std::fs::File::open(&records).unwrap()));
    live.wait_for_lines(N);
    for (i, p) in paths.iter().enumerate() {
        append(p, &event(1000 + i, 1));
    }
    live.wait_for_lines(2 * N);
    for (i, p) in paths.iter().enumerate().step_by(10) {
        std::fs::rename(p, p.with_extension("jsonl.1")).unwrap();
        std::fs::write(p, event(2000 + i, 1)).unwrap();
    }
    live.wait_for_lines(2 * N + N / 10);
    let (code, out, err) = live.end();
    assert_eq!(err, Vec::<String>::new());
    assert_eq!(code, Some(0));
    let mut want: Vec<(String, u64, u64)> = (0..N as u64)
        .flat_map(|i| {
            let s = format!("s{i:03}");
            let rotated = (i % 10 == 0).then(|| (s.clone(), 2000 + i, 1));
            [(s.clone(), i, 1), (s, 1000 + i, 2)].into_iter().chain(rotated)
        })
        .collect();
    want.sort();
    assert_eq!(sorted_by("/ci/session", &out), want);
}

/// Descriptors held by something else (here seven inherited from the shell,
/// with a limit of 16) leave fewer than the budget the limit gives: opening
/// a capture then fails for want of one, and followed files are closed
/// between polls until it succeeds (issue 18, item 4). 20 files, every line
/// and every appended one, no error.
#[test]
fn follow_when_other_descriptors_leave_fewer_than_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let paths: Vec<_> = (0..20).map(|i| dir.path().join(format!("f{i:02}.jsonl"))).collect();
    for (i, p) in paths.iter().enumerate() {
        std::fs::write(p, event(i, 1)).unwrap();
    }
    let args: Vec<&str> = paths.iter().map(|p| p.to_str().unwrap()).collect();
    let inherited = (3..10).map(|fd| format!("{fd}</dev/null")).collect::<Vec<_>>().join(" ");
    let cmd = through_sh(&follow_command("ci-cat", &args), &format!("ulimit -n 16 && exec {inherited}"));
    let mut live = Live::start(cmd, Stdio::null());
    live.wait_for_lines(20);
    for (i, p) in paths.iter().enumerate() {
        append(p, &event(100 + i, 1));
    }
    live.wait_for_lines(40);
    let (code, out, err) = live.end();
    assert_eq!((code, err), (Some(0), vec![]));
    let mut got = numbers(&out);
    got.sort();
    let mut want: Vec<(u64, u64)> = (0..20).flat_map(|i| [(i, 1), (100 + i, 2)]).collect();
    want.sort();
    assert_eq!(got, want);
}

/// `--follow` raises the soft limit on open files to the hard one (issue 18,
/// item 4): `ulimit -S -n 48` in the shell that starts it, the hard limit
/// higher, and the running follower's soft limit is the hard one.
#[cfg(target_os = "linux")]
#[test]
fn follow_raises_the_soft_descriptor_limit_to_the_hard_one() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.jsonl");
    std::fs::write(&path, event(0, 1)).unwrap();
    let cmd = through_sh(&follow_command("ci-cat", &[path.to_str().unwrap()]), "ulimit -S -n 48");
    let mut live = Live::start(cmd, Stdio::null());
    // Following has begun: the limit was raised before the first capture was read.
    live.wait_for_lines(1);
    let limits = std::fs::read_to_string(format!("/proc/{}/limits", live.child.id())).unwrap();
    let (code, _, err) = live.end();
    assert_eq!((code, err), (Some(0), vec![]));
    let files = limits.lines().find(|l| l.starts_with("Max open files")).unwrap();
    let fields: Vec<&str> = files.split_whitespace().collect();
    let (soft, hard) = (fields[3], fields[4]);
    assert_ne!(hard, "48", "the hard limit is 48 here: nothing to raise to ({files})");
    assert_eq!(soft, hard, "{files}");
}

/// The offset just after line `n` of the file at `path` (0: its start).
fn line_end(path: &Path, n: usize) -> u64 {
    let text = std::fs::read(path).unwrap();
    text.split_inclusive(|&b| b == b'\n').take(n).map(|l| l.len() as u64).sum()
}

/// A partial truncation (`truncate -s N`, N > 0) printed again the lines
/// that survived it (issue 18, item 5). Reading goes on from the new end,
/// with the file's own line numbers, and each truncation is reported once:
/// inside a held unfinished line, that line is read again from its start and
/// completed; at a line's end, what is appended is read; inside a line taken
/// before, what completes that line is skipped.
#[test]
fn a_partial_truncation_reads_on_from_the_new_end() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.jsonl");
    let ev: Vec<String> = (0..15).map(|i| event(i, 3)).collect();
    // Ten lines and the first 20 bytes of line 11, held (no newline yet).
    std::fs::write(&path, ev[..10].concat() + &ev[10][..20]).unwrap();
    let mut live = Live::start(follow_command("ci-cat", &[path.to_str().unwrap()]), Stdio::null());
    // Printed after the first pass, which read the held bytes too.
    live.wait_for_lines(10);
    let mut cuts = vec![];
    let mut truncate = |live: &mut Live, len: u64| {
        std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(len).unwrap();
        cuts.push(len);
        live.wait_until("the truncation report", |_, err| err.len() == cuts.len());
    };
    // Inside the held line 11: read again from its start, completed once.
    truncate(&mut live, line_end(&path, 10) + 12);
    append(&path, &ev[10][12..]);
    live.wait_for_lines(11);
    // At the end of line 7: events 11 and 12 are lines 8 and 9.
    truncate(&mut live, line_end(&path, 7));
    append(&path, &(ev[11].clone() + &ev[12]));
    live.wait_for_lines(13);
    // Inside line 9, taken: event 13 completes it (skipped), event 14 is line 10.
    truncate(&mut live, line_end(&path, 8) + 5);
    append(&path, &(ev[13].clone() + &ev[14]));
    live.wait_for_lines(14);
    let (code, out, err) = live.end();
    assert_eq!(code, Some(0));
    let mut want: Vec<(u64, u64)> = (0..11).map(|i| (i, i + 1)).collect();
    want.extend([(11, 8), (12, 9), (14, 10)]);
    assert_eq!(numbers(&out), want);
    let note = |n: &u64| format!("ci-cat: {}: file truncated to {n} bytes; reading on from there", path.display());
    assert_eq!(err, cuts.iter().map(note).collect::<Vec<_>>());
}

/// With -f, a device or FIFO named by a piped session record is refused as
/// without it (issue 18, item 12): reported, never opened to read, and the
/// sessions piped after it are still read and followed.
#[test]
fn follow_refuses_device_and_fifo_paths_in_piped_records() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo.jsonl");
    crate::kit::tree::mkfifo(&fifo);
    let path = dir.path().join("live.jsonl");
    std::fs::write(&path, event(0, 1)).unwrap();
    let mut live = Live::start(follow_command("ci-cat", &[]), Stdio::piped());
    let mut stdin = live.child.stdin.take().unwrap();
    for (id, p) in [("s1", Path::new("/dev/zero")), ("s2", &fifo), ("s3", &path)] {
        let record = format!("{{\"session\":\"{id}\",\"path\":{:?},\"format\":\"amplifier\"}}\n", p.to_str().unwrap());
        stdin.write_all(record.as_bytes()).unwrap();
    }
    stdin.flush().unwrap();
    live.wait_for_lines(1);
    append(&path, &event(1, 1));
    live.wait_for_lines(2);
    let (code, out, err) = live.end();
    drop(stdin);
    assert_eq!(numbers(&out), [(0, 1), (1, 2)]);
    let refused = |p: &Path| format!("ci-cat: {}: not a regular file, skipped", p.display());
    assert_eq!(err, [refused(Path::new("/dev/zero")), refused(&fifo)]);
    assert_eq!(code, Some(2));
}

/// The peak resident memory of process `pid`, in KiB (Linux).
#[cfg(target_os = "linux")]
fn peak_rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// A followed file rotated to a FIFO blocked the one follow thread (the
/// other files' lines stopped), and to a link to /dev/zero grew the follower
/// by gigabytes (issue 18, item 12). The path is reported once and not read
/// until it names a regular file again; the file it replaced is read on
/// through its handle, and the other files go on.
#[cfg(target_os = "linux")]
#[test]
fn a_followed_file_rotated_to_a_fifo_or_a_device_is_reported_and_the_others_go_on() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.jsonl"), dir.path().join("b.jsonl"));
    std::fs::write(&a, named_event("a", 0, 1)).unwrap();
    std::fs::write(&b, named_event("b", 0, 1)).unwrap();
    let mut live = Live::start(follow_command("ci-cat", &[a.to_str().unwrap(), b.to_str().unwrap()]), Stdio::null());
    live.wait_for_lines(2);
    let printed = |event: &'static str, i: u64| {
        move |out: &[String], _: &[String]| {
            out.iter().any(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                v["event"] == event && v["data"]["i"] == i
            })
        }
    };
    // Renamed away (a line more written to it), and a FIFO in its place.
    let old = dir.path().join("a.jsonl.1");
    std::fs::rename(&a, &old).unwrap();
    crate::kit::tree::mkfifo(&a);
    append(&old, &named_event("a", 1, 1));
    append(&b, &named_event("b", 1, 1));
    live.wait_until("b's next line and the report", |out, err| printed("b", 1)(out, err) && err.len() == 1);
    live.wait_until("the renamed file read on", printed("a", 1));
    // A link to /dev/zero in its place; two more rounds of b, so that one
    // began after the link was there.
    std::fs::remove_file(&a).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &a).unwrap();
    for i in 2..4u64 {
        append(&b, &named_event("b", i as usize, 1));
        live.wait_until("b's next line", printed("b", i));
    }
    let peak = peak_rss_kib(live.child.id());
    // A regular file again: followed from its first line.
    std::fs::remove_file(&a).unwrap();
    std::fs::write(&a, named_event("a", 2, 1)).unwrap();
    live.wait_until("the new file read", printed("a", 2));
    let (code, out, err) = live.end();
    assert!(peak < 64 * 1024, "peak RSS {peak} KiB");
    let got = sorted_by("/event", &out);
    let want = [("a", 0, 1), ("a", 1, 2), ("a", 2, 1), ("b", 0, 1), ("b", 1, 2), ("b", 2, 3), ("b", 3, 4)];
    assert_eq!(got, want.map(|(e, i, l)| (e.to_owned(), i, l)));
    let report = "not a regular file now: not read until the path names a readable regular file again";
    assert_eq!(err, [format!("ci-cat: {}: {report}", a.display())]);
    assert_eq!(code, Some(2));
}
