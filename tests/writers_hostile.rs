//! Hostile input for the writers of round 2 (issue 18, "And for what this
//! round adds"): Claude Code transcripts, Codex rollouts and hook-log arrays.
//! Here: what their normalisers print is what the next tool reads.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::util::ci;

const TS: &str = "2026-03-01T00:00:00.000Z";

/// A transcript prompt line of session `s1` holding `text`.
fn prompt(text: &str) -> String {
    json!({"type": "user", "sessionId": "s1", "cwd": "/p", "timestamp": TS,
           "message": {"role": "user", "content": text}})
    .to_string()
}

/// `<dir>/projects/-p/<name>` with `lines`, each ended by a newline.
fn transcript(dir: &Path, name: &OsStr, lines: &[String]) -> PathBuf {
    let folder = dir.join("projects").join("-p");
    std::fs::create_dir_all(&folder).unwrap();
    let path = folder.join(name);
    std::fs::write(&path, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    path
}

/// A rollout's session meta line naming session `id`.
fn meta(id: &str) -> String {
    json!({"timestamp": "2026-05-01T10:00:00Z", "type": "session_meta", "payload": {"id": id, "cwd": "/w"}}).to_string()
}

/// A rollout's user message line.
fn user_message(text: &str) -> String {
    json!({"timestamp": "2026-05-01T10:00:01Z", "type": "event_msg",
           "payload": {"type": "user_message", "message": text}})
    .to_string()
}

/// `<dir>/sessions/2026/05/01/<name>` with `lines`.
fn rollout(dir: &Path, name: &OsStr, lines: &[String]) -> PathBuf {
    let folder = dir.join("sessions/2026/05/01");
    std::fs::create_dir_all(&folder).unwrap();
    let path = folder.join(name);
    std::fs::write(&path, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    path
}

/// `<dir>/logs/<name>` holding `elements` as a pretty-printed array (one
/// element per line, as raw JSON text).
fn hook_log(dir: &Path, name: &str, elements: &[String]) -> PathBuf {
    let logs = dir.join("logs");
    std::fs::create_dir_all(&logs).unwrap();
    let path = logs.join(name);
    std::fs::write(&path, format!("[\n  {}\n]\n", elements.join(",\n  "))).unwrap();
    path
}

fn summary(tool: &str, n: usize) -> String {
    let s = if n == 1 { "" } else { "s" };
    format!("{tool}: {n} bad line{s} skipped (--strict makes bad lines an error)\n")
}

// ---------------------------------------------------------------------------
// Nesting

/// A line nested exactly as deep as the limit (127 levels) is valid, but a
/// writer whose event record holds the whole line as `data` (transcripts,
/// hooks, hook logs) would print it one level deeper, and the next tool in
/// a pipe would refuse the record. Such a line is a bad line where it is
/// read, by every tool; a rollout's `data` is its payload, which keeps its
/// depth, so there the line is read and its record pipes cleanly.
/// (Found by the `transcript` fuzz target.)
#[test]
fn lines_nested_to_the_limit_are_refused_where_their_record_would_nest_deeper() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // 127 levels: the line, `message` (or `payload`) and 125 levels of
    // arrays; the line and 126 levels.
    let deepest = format!("{}{}", "[".repeat(125), "]".repeat(125));
    let deeper = format!("[{deepest}]");
    let t = transcript(
        d,
        "s1.jsonl".as_ref(),
        &[format!(r#"{{"type":"user","sessionId":"s1","message":{{"content":{deepest}}}}}"#), prompt("two")],
    );
    let h = hook_log(d, "stop.json", &[format!(r#"{{"session_id":"h1","hook_event_name":"Stop","v":{deeper}}}"#)]);
    let r = rollout(
        d,
        "rollout-r.jsonl".as_ref(),
        &[meta("r1"), format!(r#"{{"type":"event_msg","payload":{{"v":{deepest}}}}}"#)],
    );
    let reason =
        "JSON nested 127 levels deep, the limit: its event record, which holds the line as \"data\", would nest deeper";
    for (path, report) in
        [(&t, format!("{}:1: {reason}\n", t.display())), (&h, format!("{}:2: element 1: {reason}\n", h.display()))]
    {
        for (tool, args) in
            [("ci-cat", vec![]), ("ci-filter", vec!["--event", "*", "--strict"]), ("ci-agg", vec!["--by", "event"])]
        {
            let run = ci(tool).args(&args).arg(path).run();
            let strict = args.contains(&"--strict");
            let tail = if strict { format!("{tool}: 1 bad line skipped\n") } else { summary(tool, 1) };
            assert_eq!(run.stderr, report.clone() + &tail, "{tool} {}", path.display());
        }
    }
    // What is printed pipes cleanly.
    for path in [&t, &h, &r] {
        let first = ci("ci-cat").arg(path).run();
        let again = ci("ci-cat").stdin(first.stdout.clone()).run();
        assert_eq!(
            (again.stdout.as_str(), again.stderr.as_str(), again.code),
            (first.stdout.as_str(), "", if first.stdout.is_empty() { 1 } else { 0 })
        );
    }
    let run = ci("ci-cat").arg(&r).run();
    assert_eq!((run.json().len(), run.stderr.as_str(), run.code), (2, "", 0));
}

// ---------------------------------------------------------------------------
// What the normalisers print is what the next tool reads

/// A rollout line of an unknown type whose `payload` is not an object was
/// printed as an event record with a non-object `data`, which the next tool
/// refused as "not an event record". It is a bad line where it is read.
/// (Found by the `rollout` fuzz target.)
#[test]
fn rollout_payloads_that_are_not_objects_are_bad_lines() {
    let dir = tempfile::tempdir().unwrap();
    let r = rollout(
        dir.path(),
        "rollout-r.jsonl".as_ref(),
        &[
            meta("r1"),
            r#"{"type":"later","payload":5}"#.into(),
            r#"{"type":"later","payload":[1]}"#.into(),
            user_message("hi"),
        ],
    );
    let run = ci("ci-cat").arg(&r).run();
    let reason = "not a Codex rollout line (needs a string \"type\" and an object \"payload\")";
    assert_eq!(run.stderr, format!("{0}:2: {reason}\n{0}:3: {reason}\n", r.display()) + &summary("ci-cat", 2));
    let names: Vec<Value> = run.json().iter().map(|r| r["event"].clone()).collect();
    assert_eq!(names, ["session:start", "prompt:submit"]);
    let again = ci("ci-cat").stdin(run.stdout.clone()).run();
    assert_eq!((again.stdout, again.stderr.as_str(), again.code), (run.stdout, "", 0));
}

/// A transcript's block event (a `tool_use` block) read from the file and
/// the same record read back from a pipe give the same answers: the
/// capture took a block's model and usage as none, the piped record read
/// them off the block. (Found by the `transcript` fuzz target.)
#[test]
fn transcript_block_records_answer_the_same_piped() {
    let dir = tempfile::tempdir().unwrap();
    let line = json!({"type": "assistant", "sessionId": "s1", "timestamp": TS, "requestId": "r",
        "message": {"id": "m", "model": "claude-a", "role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "Read", "input": {},
             "message": {"id": "m2", "model": "claude-b", "usage": {"input_tokens": 5}}}],
            "usage": {"input_tokens": 3, "output_tokens": 4}}});
    let t = transcript(dir.path(), "s1.jsonl".as_ref(), &[line.to_string()]);
    let events = ci("ci-cat").arg(&t).run().stdout;
    for args in [&["--by", "model"][..], &["--tokens"], &["--by", "event,model"]] {
        let direct = ci("ci-agg").args(args).arg(&t).run();
        let piped = ci("ci-agg").args(args).stdin(events.clone()).run();
        assert_eq!(piped.stdout, direct.stdout, "ci-agg {args:?}");
    }
    let run = ci("ci-agg").args(["--by", "event,model"]).arg(&t).run();
    assert_eq!(
        run.lines(),
        [
            r#"{"event":"llm:response","model":"claude-a","count":1}"#,
            r#"{"event":"tool:pre","model":"claude-b","count":1}"#
        ]
    );
}
