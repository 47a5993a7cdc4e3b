//! Claude Code 2.1 transcripts (`fixtures/claude-progress`, hand-made from
//! formats.md §5): a subagent's responses written into the parent transcript
//! as `progress` lines (`data.type: "agent_progress"`), the same responses in
//! `<id>/subagents/agent-*.jsonl`, a failed tool call, and the lines Claude
//! Code writes without a time (`file-history-snapshot`, `summary`,
//! `last-prompt`). fixtures/README.md lists every line.

use super::*;

const PROGRESS: &str = "fixtures/claude-progress";
const ID: &str = "5b0f2c1e-7a3d-4e9b-8c21-2a1d0e6f9b01";
const PROJECT: &str = "projects/-home-dev-app";

/// The fixture tree copied without its `subagents/` folder (a transcript
/// copied or committed alone): only the main file.
fn without_subagents() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temporary directory");
    let project = dir.path().join(PROJECT);
    std::fs::create_dir_all(&project).unwrap();
    let main = format!("{ID}.jsonl");
    std::fs::copy(root().join(PROGRESS).join(PROJECT).join(&main), project.join(&main)).unwrap();
    dir
}

/// `ci-agg ARGS ROOT`, which must succeed without a word.
fn agg(args: &[&str], tree: &Path) -> String {
    let run = ci("ci-agg").args(args).arg(tree).run();
    assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{run:?}");
    run.stdout
}

/// Per (day, model), the responses of the fixture, each counted once: the
/// main agent's three (Opus) and the subagent's two (Haiku: `msg_sub1` on
/// March 1st; `msg_sub2`, written twice, its largest output 90, on March
/// 2nd). Tokens and cost are what ccusage 20.0.24 reports for the tree,
/// with and without `subagents/` (`ccusage daily --json --breakdown`).
const TOKENS_BY_DAY: &str = r#"{"day":"2026-03-01","tz":"UTC","model":"claude-haiku-4-5-20251001","responses":1,"input_tokens":12,"output_tokens":40,"cache_read_tokens":0,"cache_write_tokens":3000,"cost_usd":0.003962,"cost_source":"computed","unpriced_models":[]}
{"day":"2026-03-01","tz":"UTC","model":"claude-opus-4-5-20251101","responses":1,"input_tokens":10,"output_tokens":120,"cache_read_tokens":0,"cache_write_tokens":5000,"cost_usd":0.0343,"cost_source":"computed","unpriced_models":[]}
{"day":"2026-03-02","tz":"UTC","model":"claude-opus-4-5-20251101","responses":2,"input_tokens":10,"output_tokens":90,"cache_read_tokens":10200,"cache_write_tokens":200,"cost_usd":0.00865,"cost_source":"computed","unpriced_models":[]}
{"day":"2026-03-02","tz":"UTC","model":"claude-haiku-4-5-20251001","responses":1,"input_tokens":8,"output_tokens":90,"cache_read_tokens":3000,"cache_write_tokens":0,"cost_usd":0.000758,"cost_source":"computed","unpriced_models":[]}
"#;

#[test]
fn subagent_responses_in_progress_lines_count_with_or_without_the_subagents_folder() {
    let alone = without_subagents();
    let args = ["--tokens", "--by", "day", "--tz", "UTC"];
    assert_eq!(agg(&args, &root().join(PROGRESS)), TOKENS_BY_DAY);
    // Without subagents/, the progress lines are the only record of the
    // subagent's spend: the Haiku rows are there all the same.
    assert_eq!(agg(&args, alone.path()), TOKENS_BY_DAY);
}

#[test]
fn a_session_totals_the_same_with_or_without_its_subagents_folder() {
    let alone = without_subagents();
    let totals = |tree: &Path| {
        let out = agg(&["--sessions"], tree);
        let recs: Vec<Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(recs.len(), 1, "{out}");
        let r = &recs[0];
        ["tokens", "cost_usd", "models", "messages"].map(|k| (k, r[k].clone()))
    };
    let want = [
        ("tokens", serde_json::json!({"input":40,"output":340,"cache_read":13200,"cache_write":8200})),
        ("cost_usd", serde_json::json!(0.04767)),
        ("models", serde_json::json!(["claude-haiku-4-5-20251001", "claude-opus-4-5-20251101"])),
        ("messages", serde_json::json!(6)),
    ];
    assert_eq!(totals(&root().join(PROGRESS)), want);
    assert_eq!(totals(alone.path()), want);
}

#[test]
fn a_progress_line_yields_its_subagent_response_as_part_2_or_3() {
    let file = format!("{PROGRESS}/{PROJECT}/{ID}.jsonl");
    let run = ci("ci-cat").args(["--lines", "4-7", &file]).run();
    assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{run:?}");
    let got: Vec<(u64, u64, String, Value, Value)> = run
        .json()
        .iter()
        .map(|r| {
            let (line, part) = (u(&r["ci"]["line"]), u(&r["ci"]["part"]));
            (
                line,
                part,
                r["event"].as_str().unwrap().to_owned(),
                r["data"]["type"].clone(),
                r["data"]["requestId"].clone(),
            )
        })
        .collect();
    let progress = |line| (line, 0, "progress:agent_progress".to_owned(), Value::from("progress"), Value::Null);
    let response = |line, part, name: &str, request: &str| {
        (line, part, name.to_owned(), Value::from("assistant"), Value::from(request))
    };
    assert_eq!(
        got,
        vec![
            progress(4),
            response(4, 2, "llm:response", "req_sub1"),
            // Line 5 carries the subagent's tool result: no response.
            progress(5),
            progress(6),
            response(6, 2, "llm:response", "req_sub2"),
            progress(7),
            response(7, 3, "llm:content", "req_sub2"),
        ]
    );
}

/// Lines Claude Code writes without a time (`file-history-snapshot`,
/// `summary`, `last-prompt`: lines 1, 12 and 13) are in no day and are no
/// "record without a usable timestamp", read from the files or piped.
#[test]
fn lines_written_without_a_time_make_no_null_day_and_no_report() {
    let want = concat!(
        r#"{"day":"2026-03-01","tz":"UTC","count":10}"#,
        "\n",
        r#"{"day":"2026-03-02","tz":"UTC","count":11}"#,
        "\n"
    );
    assert_eq!(agg(&["--by", "day"], &root().join(PROGRESS)), want);
    let events = ci("ci-cat").arg(PROGRESS).run();
    assert_eq!((events.code, events.stderr.as_str(), events.lines().len()), (0, "", 24), "{events:?}");
    let piped = ci("ci-agg").args(["--by", "day"]).stdin(events.stdout.clone()).run();
    assert_eq!((piped.code, piped.stderr.as_str(), piped.stdout.as_str()), (0, "", want));
    // A time window leaves them out without a word, as any event outside it.
    let run = ci("ci-filter").args(["--since", "2026-03-01"]).stdin(events.stdout).run();
    assert_eq!((run.code, run.stderr.as_str(), run.lines().len()), (0, "", 21), "{run:?}");
}

/// A line of a type Claude Code stamps, written without a time, is still
/// reported and makes a `null` day; the snapshot beside it does not.
#[test]
fn other_lines_without_a_time_are_still_reported() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join(PROJECT);
    std::fs::create_dir_all(&project).unwrap();
    let lines = [
        r#"{"type":"file-history-snapshot","messageId":"u1","snapshot":{"messageId":"u1","trackedFileBackups":{},"timestamp":"2026-03-01T10:00:00.000Z"},"isSnapshotUpdate":false}"#,
        r#"{"type":"user","sessionId":"s1","uuid":"u1","message":{"role":"user","content":"hello"}}"#,
        r#"{"type":"user","sessionId":"s1","uuid":"u2","timestamp":"2026-03-01T10:00:01.000Z","message":{"role":"user","content":"again"}}"#,
    ];
    std::fs::write(project.join("s1.jsonl"), lines.join("\n") + "\n").unwrap();
    let run = ci("ci-agg").args(["--by", "day"]).arg(dir.path()).run();
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.lines(), [r#"{"day":"2026-03-01","tz":"UTC","count":1}"#, r#"{"day":null,"tz":"UTC","count":1}"#]);
    assert_eq!(run.stderr, "ci-agg: 1 record without a usable timestamp\n");
}

/// A `tool_result` names no tool: its `tool:post`/`tool:error` is the tool
/// of the `tool_use` with its id (line 10 ends line 9's Bash call), printed
/// as `"tool"` so that a later tool in a pipe reads it too.
#[test]
fn a_failed_call_names_its_tool() {
    let want: BTreeMap<Option<String>, Vec<(String, u64)>> = [(s("Bash"), vec![("tool:error".to_owned(), 1)])].into();
    assert_eq!(crate::util::errors_by_tool(PROGRESS), want);
    let run = ci("ci-filter").args(["--errors", PROGRESS]).run();
    let recs = run.json();
    assert_eq!(
        (recs.len(), &recs[0]["tool"], &recs[0]["data"]["tool_use_id"]),
        (1, &Value::from("Bash"), &Value::from("toolu_bash1"))
    );
    // Every call's end names its tool, the subagent's (in its own file) too;
    // a call's start keeps it in `data` only.
    let run = ci("ci-agg").args(["--by", "tool", "--by", "event", "--sort", "key", PROGRESS]).run();
    let rows: Vec<(Value, Value, u64)> =
        run.json().iter().map(|r| (r["tool"].clone(), r["event"].clone(), u(&r["count"]))).collect();
    let row = |t: &str, e: &str| (Value::from(t), Value::from(e), 1);
    let tools = rows.iter().filter(|r| !r.0.is_null()).cloned().collect::<Vec<_>>();
    assert_eq!(
        tools,
        [
            row("Bash", "tool:error"),
            row("Bash", "tool:pre"),
            row("Read", "tool:post"),
            row("Read", "tool:pre"),
            row("Task", "tool:post"),
            row("Task", "tool:pre")
        ]
    );
    let pre = ci("ci-filter").args(["--event", "tool:pre", PROGRESS]).run();
    assert!(pre.json().iter().all(|r| r.get("tool").is_none()), "{}", pre.stdout);
    // The call's line is read for its tool when the line asked for is after it.
    let file = format!("{PROGRESS}/{PROJECT}/{ID}.jsonl");
    let run = ci("ci-cat").args(["--lines", "10", &file]).run();
    let recs = run.json();
    assert_eq!(
        (recs.len(), &recs[0]["event"], &recs[0]["tool"]),
        (1, &Value::from("tool:error"), &Value::from("Bash"))
    );
}
