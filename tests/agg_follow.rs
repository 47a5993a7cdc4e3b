//! `ci-agg --follow`: the answer printed again as a followed Claude
//! transcript grows, one NDJSON snapshot per change, each equal to a
//! one-shot `ci-agg` over the files as they were, and a final one on a
//! signal (issue 32, "Live aggregation").

use std::process::Stdio;

use crate::follow::{append, Live};
use crate::kit::Tree;
use crate::util::{ci, ci_command};

const PROJECT: &str = "-src-live";
const SESSION: &str = "live";

/// An assistant response `i` of the followed session on day `day` of
/// January 2026, written as Claude Code writes it: one line per content
/// block, each repeating the message id and its usage (counted once).
fn response(i: u64, day: u32) -> String {
    let line = |block: &str| {
        format!(
            r#"{{"type":"assistant","timestamp":"2026-01-{day:02}T10:00:{i:02}.000Z","sessionId":"{SESSION}","uuid":"u{i}-{block}","requestId":"req-{i}","message":{{"id":"msg-{i}","role":"assistant","model":"claude-sonnet-4-20250514","content":[{{"type":"{block}","text":"t"}}],"usage":{{"input_tokens":{},"output_tokens":{},"cache_creation_input_tokens":5,"cache_read_input_tokens":7}}}}}}"#,
            100 * i,
            10 * i
        )
    };
    format!("{}\n{}\n", line("thinking"), line("text"))
}

/// A tool call `i` (a response asking for Bash) and its result.
fn tool_call(i: u64) -> String {
    format!(
        concat!(
            r#"{{"type":"assistant","timestamp":"2026-01-05T11:00:{i:02}.000Z","sessionId":"{s}","uuid":"t{i}","requestId":"req-t{i}","message":{{"id":"msg-t{i}","role":"assistant","model":"claude-sonnet-4-20250514","content":[{{"type":"tool_use","id":"tool-{i}","name":"Bash","input":{{"command":"ls"}}}}],"usage":{{"input_tokens":3,"output_tokens":4}}}}}}"#,
            "\n",
            r#"{{"type":"user","timestamp":"2026-01-05T11:00:{i:02}.500Z","sessionId":"{s}","uuid":"r{i}","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"tool-{i}","content":"ok","is_error":false}}]}}}}"#,
            "\n"
        ),
        i = i,
        s = SESSION
    )
}

/// The snapshots printed so far: each `{"snapshot":N,"final":F}` record
/// with the records after it.
pub(crate) fn snapshots(lines: &[String]) -> Vec<(serde_json::Value, Vec<String>)> {
    let mut all: Vec<(serde_json::Value, Vec<String>)> = Vec::new();
    for l in lines {
        let v: serde_json::Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"));
        match (v.get("snapshot"), all.last_mut()) {
            (Some(_), _) => all.push((v, Vec::new())),
            (None, Some((_, records))) => records.push(l.clone()),
            (None, None) => panic!("a record before the first snapshot record: {l}"),
        }
    }
    all
}

/// The records of a one-shot `ci-agg ARGS ROOT` (none, exit 1, when it
/// found nothing: `--tools` before the first tool call).
fn one_shot(args: &[&str], root: &std::path::Path) -> Vec<String> {
    let run = ci("ci-agg").args(args).arg(root).run();
    assert!(run.code == 0 || (run.code == 1 && run.stdout.is_empty()), "{}", run.stderr);
    run.lines().iter().map(|l| (*l).to_owned()).collect()
}

/// Follows a transcript under a temporary root with `ci-agg -f ARGS`,
/// appends each of `appends` once the answer before it is printed, and
/// checks every snapshot against a one-shot run over the files as they were
/// then: numbered 1, 2, … and not final; a SIGTERM prints the last answer
/// again as the final snapshot, and ends the run with 0 and nothing on
/// stderr.
fn follow_and_append(args: &[&str], appends: &[String]) {
    let tree = Tree::new();
    let path = tree.transcript(PROJECT, SESSION, response(1, 3));
    let mut cmd = ci_command("ci-agg");
    cmd.args(["-f", "--interval", "1s"]).args(args).arg(tree.path());
    let mut live = Live::start(cmd, Stdio::null());
    let mut expected = vec![one_shot(args, tree.path())];
    for (n, text) in appends.iter().enumerate() {
        let want = n + 1;
        live.wait_until(&format!("snapshot {want} of {args:?}"), |out, _| {
            snapshots(out).len() == want && snapshots(out)[n].1.len() == expected[n].len()
        });
        append(&path, text);
        expected.push(one_shot(args, tree.path()));
        assert_ne!(expected[n], expected[n + 1], "the append changes the answer of {args:?}");
    }
    let last = expected.len();
    live.wait_until(&format!("snapshot {last} of {args:?}"), |out, _| {
        snapshots(out).len() == last && snapshots(out)[last - 1].1.len() == expected[last - 1].len()
    });
    let (code, out, err) = live.end_with("-TERM");
    assert_eq!((code, err), (Some(0), vec![]), "{args:?}");
    let got = snapshots(&out);
    let mut want: Vec<(serde_json::Value, Vec<String>)> = expected
        .iter()
        .enumerate()
        .map(|(i, records)| (serde_json::json!({"snapshot": i + 1, "final": false}), records.clone()))
        .collect();
    want.push((serde_json::json!({"snapshot": last + 1, "final": true}), expected[last - 1].clone()));
    assert_eq!(got, want, "{args:?}");
}

/// The issue's target: responses appended to a followed Claude transcript
/// (on a new day, and a later one) each bring a snapshot, the last equal to
/// a one-shot `ci-agg --tokens --by day` over the same files.
#[test]
fn tokens_by_day_snapshot_per_appended_response() {
    follow_and_append(&["--tokens", "--by", "day"], &[response(2, 4), response(3, 4) + &response(4, 6)]);
}

/// Every preset and `--by` follows the same way.
#[test]
fn every_preset_follows() {
    follow_and_append(&["--tools"], &[tool_call(1), tool_call(2)]);
    follow_and_append(&["--sessions"], &[response(2, 4) + &tool_call(1)]);
    follow_and_append(&["--by", "event"], &[tool_call(1)]);
    follow_and_append(&["--tokens", "--per-period", "--by", "month"], &[response(2, 9)]);
}

/// SIGINT ends a follow run as SIGTERM does: the last answer once more,
/// marked final, exit 0.
#[test]
fn sigint_prints_the_final_snapshot() {
    let tree = Tree::new();
    tree.transcript(PROJECT, SESSION, response(1, 3));
    let mut cmd = ci_command("ci-agg");
    cmd.args(["-f", "--tokens"]).arg(tree.path());
    let mut live = Live::start(cmd, Stdio::null());
    live.wait_until("the first snapshot", |out, _| out.len() >= 2);
    let (code, out, _) = live.end_with("-INT");
    let got = snapshots(&out);
    let heads: Vec<_> = got.iter().map(|(h, _)| h.clone()).collect();
    assert_eq!(
        (code, heads),
        (
            Some(0),
            vec![serde_json::json!({"snapshot":1,"final":false}), serde_json::json!({"snapshot":2,"final":true})]
        )
    );
    assert_eq!(got[1].1, one_shot(&["--tokens"], tree.path()));
}

/// A table (any --format) is printed again whole, a blank line between two.
#[test]
fn csv_snapshots_are_separated_by_a_blank_line() {
    let tree = Tree::new();
    let path = tree.transcript(PROJECT, SESSION, response(1, 3));
    let mut cmd = ci_command("ci-agg");
    cmd.args(["-f", "--tokens", "--format", "csv", "--columns", "model,responses"]).arg(tree.path());
    let mut live = Live::start(cmd, Stdio::null());
    live.wait_until("the first table", |out, _| out.len() >= 2);
    append(&path, &response(2, 3));
    live.wait_until("the second table", |out, _| out.len() >= 5);
    let (code, out, _) = live.end_with("-TERM");
    let table = |n: u64| vec!["model,responses".to_owned(), format!("claude-sonnet-4-20250514,{n}")];
    let want = [table(1), vec![String::new()], table(2), vec![String::new()], table(2)].concat();
    assert_eq!((code, out), (Some(0), want));
}

/// stdin cannot be read again at each update: refused, as a bad interval is.
#[test]
fn follow_refuses_stdin_and_bad_intervals() {
    let run = ci("ci-agg").args(["-f", "--tokens", "-"]).stdin("").run();
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("--follow reads its PATHs (or the default roots) again at each update"),
        "{}",
        run.stderr
    );
    for bad in ["0", "0s", "1ms", "soon"] {
        let run = ci("ci-agg").args(["-f", "--tokens", "--interval", bad, "fixtures/claude-transcripts"]).run();
        assert_eq!(run.code, 2, "{bad}");
        assert!(run.stderr.contains("--interval"), "{bad}: {}", run.stderr);
    }
    let run = ci("ci-agg").args(["--tokens", "--interval", "2s", "fixtures/claude-transcripts"]).run();
    assert_eq!(run.code, 2, "--interval without --follow");
}

/// A subagent transcript created under the followed session after the start
/// (`<session>/subagents/agent-x.jsonl`) is read at the next update: each
/// update discovers the roots again.
#[test]
fn subagent_transcript_created_later_is_counted() {
    let tree = Tree::new();
    tree.transcript(PROJECT, SESSION, response(1, 3));
    let mut cmd = ci_command("ci-agg");
    cmd.args(["-f", "--tokens", "--by", "session"]).arg(tree.path());
    let mut live = Live::start(cmd, Stdio::null());
    live.wait_until("the first snapshot", |out, _| snapshots(out).len() == 1 && snapshots(out)[0].1.len() == 1);
    tree.subagent(PROJECT, SESSION, "x", response(2, 3));
    let want = one_shot(&["--tokens", "--by", "session"], tree.path());
    assert!(want[0].contains(r#""responses":2"#), "{want:?}");
    live.wait_until("the subagent's response counted", |out, _| {
        snapshots(out).get(1).is_some_and(|(_, records)| *records == want)
    });
    let (code, _, err) = live.end_with("-TERM");
    assert_eq!((code, err), (Some(0), Vec::<String>::new()));
}

/// Each update reads the files again, but what it reports (a bad line) is
/// reported once, and the summary line counts the last update's reading.
#[test]
fn reports_are_printed_once_over_updates() {
    let tree = Tree::new();
    let path = tree.transcript(PROJECT, SESSION, response(1, 3) + "not json\n");
    let mut cmd = ci_command("ci-agg");
    cmd.args(["-f", "--tokens"]).arg(tree.path());
    let mut live = Live::start(cmd, Stdio::null());
    live.wait_until("the first snapshot", |out, _| out.len() >= 2);
    append(&path, &response(2, 3));
    live.wait_until("the second snapshot", |out, _| snapshots(out).len() == 2 && snapshots(out)[1].1.len() == 1);
    let (code, out, err) = live.end_with("-TERM");
    assert_eq!(snapshots(&out).len(), 3);
    let shown = path.to_string_lossy();
    assert_eq!(
        (code, err),
        (
            Some(0),
            vec![
                format!("{shown}:3: invalid JSON at byte 0: expected a value"),
                "ci-agg: 1 bad line skipped (--strict makes bad lines an error)".to_owned()
            ]
        )
    );
}

/// A reader that goes away (`| head -1`) ends the run with 0, though
/// nothing new is written.
#[test]
fn closed_reader_ends_the_run() {
    let tree = Tree::new();
    tree.transcript(PROJECT, SESSION, response(1, 3));
    let mut child = ci_command("ci-agg")
        .args(["-f", "--tools"])
        .arg(tree.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut first = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(child.stdout.take().unwrap()), &mut first).unwrap();
    assert_eq!(first, "{\"snapshot\":1,\"final\":false}\n");
    assert_eq!(crate::util::exits_within(&mut child, "the end on a closed reader"), Some(0));
}
