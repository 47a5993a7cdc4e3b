//! Cline, Roo Code and Kilo Code task folders: the hand-made tree
//! (fixtures/cline: the shared sample with its expected totals, plus a Kilo
//! task and a Cline task with a subagent's usage) against SOURCE.md's
//! expected totals (ccusage reads none of these), every tool on it, and
//! damaged or rewritten task files.

use std::path::Path;

use serde_json::Value;

use crate::util::{ci, Run};

/// A VS Code user folder holding the three extensions' tasks.
const USER: &str = "fixtures/cline/User";
const CLINE: &str = "fixtures/cline/User/globalStorage/saoudrizwan.claude-dev";
const TASK: &str = "fixtures/cline/User/globalStorage/saoudrizwan.claude-dev/tasks/1760000000000";
const ROO: &str = "fixtures/cline/User/globalStorage/rooveterinaryinc.roo-cline";
const KILO: &str = "fixtures/cline/User/globalStorage/kilocode.kilo-code";

/// (session, input, output, cache read, cache write, cost) of each
/// `ci-agg --tokens --by session` row.
fn tokens(run: &Run) -> Vec<(String, u64, u64, u64, u64, f64)> {
    assert_eq!((run.stderr.as_str(), run.code), ("", 0), "{run:?}");
    let row = |r: &Value| {
        let n = |k: &str| r[k].as_u64().unwrap_or_else(|| panic!("no {k}: {r}"));
        let s = r["session"].as_str().unwrap().to_owned();
        (
            s,
            n("input_tokens"),
            n("output_tokens"),
            n("cache_read_tokens"),
            n("cache_write_tokens"),
            r["cost_usd"].as_f64().unwrap(),
        )
    };
    run.json().iter().map(row).collect()
}

/// SOURCE.md: the Cline task's two requests and its deleted requests are
/// 12 in, 420 out, 19,300 cache reads, 10,200 cache writes, $0.0504 (the
/// extension's costs); taskHistory.json's equal totals are not added.
#[test]
fn the_cline_task_counts_the_expected_totals_of_source_md() {
    let run = ci("ci-agg").args(["--tokens", "--by", "session", TASK]).run();
    assert_eq!(tokens(&run), [("1760000000000".to_owned(), 12, 420, 19300, 10200, 0.0504)]);
    assert!(run.stdout.contains(r#""cost_source":"writer""#), "{}", run.stdout);
}

/// SOURCE.md: Roo's request went over the OpenAI protocol, so its tokensIn
/// 9,803 holds the 9,800 cache reads: 3 uncached; history_item.json's
/// totals are not added.
#[test]
fn an_openai_protocol_request_takes_the_cache_reads_out_of_tokens_in() {
    let run = ci("ci-agg").args(["--tokens", "--by", "session", ROO]).run();
    assert_eq!(tokens(&run), [("0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b".to_owned(), 3, 120, 9800, 0, 0.0051)]);
    // Kilo: one request over each protocol.
    let run = ci("ci-agg").args(["--tokens", "--by", "session", KILO]).run();
    assert_eq!(tokens(&run), [("7f3c2a10-5b6d-4e8f-9a0b-1c2d3e4f5a6b".to_owned(), 320, 130, 1000, 1000, 0.0056)]);
}

/// A subagent's usage row counts once; a request still streaming (no counts
/// yet) is no response.
#[test]
fn subagent_usage_counts_and_a_request_without_counts_does_not() {
    let run = ci("ci-agg").args(["--tokens", &format!("{CLINE}/tasks/1760000100000")]).run();
    // One row per model: the subagent's usage names none.
    let rows: Vec<(Option<&str>, u64, u64, u64, f64)> = run
        .json()
        .iter()
        .map(|r| {
            let n = |k: &str| r[k].as_u64().unwrap();
            (
                r["model"].as_str().map(|m| &*m.to_owned().leak()),
                n("responses"),
                n("input_tokens"),
                n("output_tokens"),
                r["cost_usd"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(rows, [(None, 1, 3, 40, 0.0008), (Some("claude-sonnet-4-5"), 1, 10, 20, 0.001)]);
    let names =
        ci("ci-filter").args(["--event", "cline:say:api_req_started", &format!("{CLINE}/tasks/1760000100000")]).run();
    assert_eq!(names.lines().len(), 1, "{names:?}");
}

/// Each extension's tasks are their own format and product.
#[test]
fn each_extension_is_its_own_writer() {
    let run = ci("ci-agg").args(["--by", "writer", "--by", "event", USER]).run();
    let responses = run.json().into_iter().filter(|r| r["event"] == "llm:response");
    let rows: Vec<(String, u64)> =
        responses.map(|r| (r["writer"].as_str().unwrap().to_owned(), r["count"].as_u64().unwrap())).collect();
    assert_eq!(rows, [("Cline".to_owned(), 5), ("Kilo Code".to_owned(), 2), ("Roo Code".to_owned(), 1)]);
    let find = ci("ci-find").args(["--root", USER]).run();
    let formats: Vec<String> = find.json().iter().map(|r| format!("{} {}", r["format"], r["session"])).collect();
    assert_eq!(
        formats,
        [
            r#""kilo-code" "7f3c2a10-5b6d-4e8f-9a0b-1c2d3e4f5a6b""#,
            r#""cline" "1760000100000""#,
            r#""roo-code" "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b""#,
            r#""cline" "1760000000000""#,
        ]
    );
}

/// The session record: working dir from Cline's task index (Roo's
/// history_item), model from task_metadata.json, times from the rows.
#[test]
fn a_task_record_reads_its_index_and_metadata() {
    let run = ci("ci-find").args(["--root", CLINE]).run();
    let rows = run.json();
    let r = rows.iter().find(|r| r["session"] == "1760000000000").unwrap();
    assert_eq!((r["working_dir"].as_str(), r["workspace"].as_str()), (Some("/home/dev/demo"), Some("-home-dev-demo")));
    assert_eq!(r["model"], "claude-sonnet-4-5");
    assert_eq!(
        (r["started_at"].as_str(), r["last_event_at"].as_str()),
        (Some("2025-10-09T08:53:20Z"), Some("2025-10-09T08:53:35Z"))
    );
    assert!(r["path"].as_str().unwrap().ends_with("tasks/1760000000000/ui_messages.json"), "{r}");
}

/// Rows become the toolkit's events, with their times; the command and its
/// output pair; every root form and the env var find the same tasks.
#[test]
fn rows_are_events_and_every_root_form_reads_them() {
    let run = ci("ci-filter").args(["--event", "*", TASK]).run();
    let names: Vec<String> = run
        .json()
        .iter()
        .map(|e| format!("{} {}", e["event"].as_str().unwrap(), e["timestamp"].as_str().unwrap()))
        .collect();
    assert_eq!(
        names,
        [
            "prompt:submit 2025-10-09T08:53:20Z",
            "llm:response 2025-10-09T08:53:20.1Z",
            "llm:content 2025-10-09T08:53:22Z",
            "tool:pre 2025-10-09T08:53:23Z",
            "tool:post 2025-10-09T08:53:29Z",
            "llm:response 2025-10-09T08:53:29.5Z",
            "tool:pre 2025-10-09T08:53:31Z",
            "cline:say:diff_error 2025-10-09T08:53:32Z",
            "llm:response 2025-10-09T08:53:33Z",
            "prompt:complete 2025-10-09T08:53:35Z",
        ]
    );
    let tools = ci("ci-agg").args(["--tools", TASK]).run();
    assert_eq!(
        tools.lines().iter().map(|l| l.split(",\"ok\"").next().unwrap()).collect::<Vec<_>>(),
        [r#"{"tool":"editedExistingFile","calls":1"#, r#"{"tool":"execute_command","calls":1"#]
    );
    let sessions = |args: &[&str], env: Option<&str>| {
        let mut cmd = ci("ci-find").args(args);
        if let Some(v) = env {
            cmd = cmd.env("CI_VSCODE_DIR", v);
        }
        let run = cmd.run();
        assert_eq!((run.stderr.as_str(), run.code), ("", 0), "{args:?}");
        run.json().iter().map(|r| r["session"].as_str().unwrap().to_owned()).collect::<Vec<_>>()
    };
    let all = sessions(&["--root", USER], None);
    assert_eq!(all.len(), 4);
    assert_eq!(sessions(&["--root", &format!("{USER}/globalStorage")], None), all);
    assert_eq!(sessions(&[], Some(USER)), all);
    let task = ci("ci-agg").args(["--sessions", TASK]).run();
    assert_eq!(task.json().iter().map(|r| r["session"].as_str().unwrap()).collect::<Vec<_>>(), ["1760000000000"]);
    assert_eq!(sessions(&["--root", &format!("{CLINE}/tasks")], None), sessions(&["--root", CLINE], None));
    let cat = ci("ci-cat").args(["--no-provenance", &format!("{TASK}/ui_messages.json")]).run();
    assert_eq!((cat.lines().len(), cat.code), (10, 0), "{cat:?}");
}

/// ci-grep finds the decoded text of a row's JSON string.
#[test]
fn grep_reads_the_rows_text() {
    let run = ci("ci-grep").args(["-l", "execute_command for 'npm test'", USER]).run();
    assert_eq!((run.stderr.as_str(), run.code), ("", 0), "{run:?}");
    assert!(run.stdout.contains("1760000000000"), "{}", run.stdout);
}

/// A task copied to a temporary user folder, its ui_messages.json replaced by `text`.
fn damaged(name: &str, text: &[u8]) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let task = dir.path().join("globalStorage/saoudrizwan.claude-dev/tasks").join(name);
    std::fs::create_dir_all(&task).unwrap();
    std::fs::write(task.join("ui_messages.json"), text).unwrap();
    let path = task.join("ui_messages.json").to_str().unwrap().to_owned();
    (dir, path)
}

/// A torn array (the extension cut while writing) is a bad line at the
/// element it cuts; the rows before it count. A row that is no object is a
/// bad line (its file and line named); an api_req_started text that is no
/// JSON is no response.
#[test]
fn a_torn_or_damaged_array_is_reported_with_its_site() {
    let whole = std::fs::read(Path::new(TASK).join("ui_messages.json")).unwrap();
    let cut = &whole[..whole.len() - 200];
    let (dir, path) = damaged("1", cut);
    let run = ci("ci-agg").args(["--tokens"]).arg(dir.path()).run();
    let skipped = "ci-agg: 1 bad line skipped (--strict makes bad lines an error)\n";
    let torn = "element 9: torn array: the file ends inside this element (it starts on line 1; cut mid-write?); \
                the 8 elements before it are read";
    assert_eq!((run.stderr.clone(), run.code), (format!("{path}:1: {torn}\n{skipped}"), 0));
    assert_eq!(run.json()[0]["responses"], 2, "{run:?}");
    let (dir, path) = damaged("2", br#"[{"ts":1,"type":"say","say":"task","text":"a"},7,{"ts":2,"type":"say","say":"api_req_started","text":"{tokensIn"}]"#);
    let run = ci("ci-filter").args(["--event", "*"]).arg(dir.path()).run();
    let skipped = "ci-filter: 1 bad line skipped (--strict makes bad lines an error)\n";
    assert_eq!((run.stderr.clone(), run.code), (format!("{path}:1: not a JSON object\n{skipped}"), 0));
    let names: Vec<String> = run.json().iter().map(|e| e["event"].as_str().unwrap().to_owned()).collect();
    assert_eq!(names, ["prompt:submit", "cline:say:api_req_started"]);
}

/// A FIFO for a ui_messages.json is never opened (no hang), a row nested
/// past the limit is a bad line; the good task beside them is read.
#[test]
fn hostile_task_files_are_reported_and_never_hang() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = dir.path().join("globalStorage/saoudrizwan.claude-dev/tasks");
    for t in ["1", "2", "3"] {
        std::fs::create_dir_all(tasks.join(t)).unwrap();
    }
    crate::kit::tree::mkfifo(&tasks.join("1/ui_messages.json"));
    let deep = format!("[{}1{}]", "{\"a\":".repeat(200), "}".repeat(200));
    std::fs::write(tasks.join("2/ui_messages.json"), deep).unwrap();
    let good = r#"[{"ts":1760000000000,"type":"say","say":"task","text":"hi"}]"#;
    std::fs::write(tasks.join("3/ui_messages.json"), good).unwrap();
    let run = ci("ci-agg").args(["--by", "session"]).arg(dir.path()).run();
    let t = tasks.to_str().unwrap();
    assert_eq!(run.stdout, "{\"session\":\"3\",\"count\":1}\n", "{run:?}");
    assert_eq!(run.stderr, format!("ci-agg: {t}/1/ui_messages.json: not a regular file, skipped\n{t}/2/ui_messages.json:1: JSON nested deeper than 127 levels at byte 635\nci-agg: 1 bad line skipped (--strict makes bad lines an error)\n"));
}

/// The default roots: each VS Code build's globalStorage (here VSCodium's
/// and Cursor's on Linux) and Cline's ~/.cline/data.
#[test]
fn default_roots_are_every_vs_code_builds_and_clines_own() {
    let home = tempfile::tempdir().unwrap();
    let row = r#"[{"ts":1760000000000,"type":"say","say":"task","text":"hi"}]"#;
    for (dir, id) in [
        (".config/VSCodium/User/globalStorage/kilocode.kilo-code/tasks", "k1"),
        (".config/Cursor/User/globalStorage/rooveterinaryinc.roo-cline/tasks", "r1"),
        (".cline/data/tasks", "c1"),
    ] {
        let task = home.path().join(dir).join(id);
        std::fs::create_dir_all(&task).unwrap();
        std::fs::write(task.join("ui_messages.json"), row).unwrap();
    }
    let run = ci("ci-find").env("HOME", home.path()).run();
    assert_eq!((run.stderr.as_str(), run.code), ("", 0), "{run:?}");
    let mut found: Vec<String> = run.json().iter().map(|r| format!("{} {}", r["format"], r["session"])).collect();
    found.sort();
    assert_eq!(found, [r#""cline" "c1""#, r#""kilo-code" "k1""#, r#""roo-code" "r1""#]);
}

/// A usage row that names no model takes the one the nearest earlier row
/// named (`modelInfo.modelId`), else the one `task_metadata.json` says was
/// chosen last at its time (before the first choice: the first); a
/// subagent's usage keeps none (its requests' model is not recorded).
#[test]
fn a_request_without_a_model_takes_the_one_in_use() {
    let dir = tempfile::tempdir().unwrap();
    let task = dir.path().join("globalStorage/saoudrizwan.claude-dev/tasks/1760000000000");
    std::fs::create_dir_all(&task).unwrap();
    let metadata = serde_json::json!({"model_usage": [
        {"ts": 1760000000300u64, "model_id": "model-b", "model_provider_id": "anthropic", "mode": "act"},
        {"ts": 1760000000100u64, "model_id": "model-a", "model_provider_id": "anthropic", "mode": "plan"},
    ]});
    std::fs::write(task.join("task_metadata.json"), metadata.to_string()).unwrap();
    let usage = |ts: u64, say: &str, n: u64| {
        let info = serde_json::json!({"tokensIn": n, "tokensOut": 1, "cacheWrites": 0, "cacheReads": 0, "cost": 0.5});
        serde_json::json!({"ts": ts, "type": "say", "say": say, "text": info.to_string()})
    };
    let mut rows = vec![serde_json::json!({"ts": 1760000000000u64, "type": "say", "say": "task", "text": "go"})];
    rows.push(usage(1760000000050, "api_req_started", 1));
    rows.push(usage(1760000000200, "api_req_started", 2));
    rows.push(usage(1760000000400, "api_req_started", 4));
    let named = serde_json::json!({"ts": 1760000000500u64, "type": "say", "say": "text", "text": "on it",
        "modelInfo": {"providerId": "openrouter", "modelId": "model-c", "mode": "act"}});
    rows.push(named);
    rows.push(usage(1760000000600, "api_req_started", 8));
    rows.push(usage(1760000000700, "deleted_api_reqs", 16));
    rows.push(usage(1760000000800, "subagent_usage", 32));
    std::fs::write(task.join("ui_messages.json"), serde_json::Value::Array(rows).to_string()).unwrap();
    let run = ci("ci-agg").arg("--tokens").arg(dir.path()).run();
    assert_eq!((run.stderr.as_str(), run.code), ("", 0), "{run:?}");
    let mut got: Vec<(Value, u64, u64)> = run
        .json()
        .iter()
        .map(|r| (r["model"].clone(), r["responses"].as_u64().unwrap(), r["input_tokens"].as_u64().unwrap()))
        .collect();
    got.sort_by_key(|r| r.0.to_string());
    let m = |s: &str| Value::String(s.to_owned());
    assert_eq!(got, [(m("model-a"), 2, 3), (m("model-b"), 1, 4), (m("model-c"), 2, 24), (Value::Null, 1, 32)]);
    // Through a pipeline: the printed events carry the model.
    let cat = ci("ci-cat").arg(dir.path()).run();
    let piped = ci("ci-agg").arg("--tokens").stdin(cat.stdout).run();
    assert_eq!(piped.stdout, run.stdout);
}
