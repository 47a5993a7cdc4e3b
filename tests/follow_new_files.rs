//! `--follow` of ci-cat, ci-grep and ci-filter picks up files a writer adds
//! to a followed session after it was first read: a Claude subagent's
//! transcript `<session>/subagents/agent-*.jsonl` (issue 32, item 8: six
//! lines written there never appeared).

use std::process::Stdio;

use crate::follow::{append, Live};
use crate::kit::Tree;
use crate::util::ci_command;

/// A transcript line of session `s1` (`uuid` `u{i}`, its own message).
fn line(i: u64) -> String {
    format!(
        r#"{{"type":"assistant","timestamp":"2026-01-03T10:00:{i:02}.000Z","sessionId":"s1","uuid":"u{i}","requestId":"r{i}","message":{{"id":"m{i}","role":"assistant","model":"claude-sonnet-4-20250514","content":[{{"type":"text","text":"needle {i}"}}],"usage":{{"input_tokens":1,"output_tokens":1}}}}}}"#
    ) + "\n"
}

/// The `ci.path` and `ci.line` of each record printed.
fn provenance(out: &[String]) -> Vec<(String, u64)> {
    out.iter()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"));
            (v["ci"]["path"].as_str().unwrap().to_owned(), v["ci"]["line"].as_u64().unwrap())
        })
        .collect()
}

/// `TOOL -f ARGS ROOT` over a session; a subagent transcript is created
/// after the start, then appended to: both of its lines are printed, once,
/// after the main file's, with their own path and line numbers.
fn picks_up_subagent(tool: &str, args: &[&str]) {
    let tree = Tree::new();
    let main = tree.transcript("-p", "s1", line(1));
    let mut cmd = ci_command(tool);
    cmd.arg("-f").args(args).arg(tree.path());
    let mut live = Live::start(cmd, Stdio::null());
    live.wait_until("the main file's line", |out, _| !out.is_empty());
    let sub = tree.subagent("-p", "s1", "x", line(2));
    live.wait_until("the subagent's first line", |out, _| out.len() >= 2);
    append(&sub, &line(3));
    live.wait_until("the subagent's second line", |out, _| out.len() >= 3);
    let (code, out, err) = live.end_with("-TERM");
    let (main, sub) = (main.to_string_lossy().into_owned(), sub.to_string_lossy().into_owned());
    assert_eq!((code, provenance(&out), err), (Some(0), vec![(main, 1), (sub.clone(), 1), (sub, 2)], vec![]), "{tool}");
}

#[test]
fn cat_follow_picks_up_a_subagent_transcript_created_later() {
    picks_up_subagent("ci-cat", &["--fields", "event"]);
}

#[test]
fn grep_follow_picks_up_a_subagent_transcript_created_later() {
    picks_up_subagent("ci-grep", &["needle"]);
}

#[test]
fn filter_follow_picks_up_a_subagent_transcript_created_later() {
    picks_up_subagent("ci-filter", &["--event", "llm:response"]);
}
