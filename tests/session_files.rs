//! `--sessions` `files_read` and `files_edited` by each writer's own file
//! tools (src/format/file_tools.rs): the fixtures' calls, and hand-made
//! captures with the tools the fixtures lack.

use std::path::Path;

use serde_json::Value;

use crate::util::ci;

/// (session, files read, files edited) of each `ci-agg --sessions` record
/// of `path`, by session id.
fn files(path: &Path) -> Vec<(String, Vec<String>, Vec<String>)> {
    let run = ci("ci-agg").arg("--sessions").arg(path).run();
    assert_eq!(run.code, 0, "{run:?}");
    let list = |v: &Value| v.as_array().unwrap().iter().map(|s| s.as_str().unwrap().to_owned()).collect();
    let mut out: Vec<_> = run
        .json()
        .iter()
        .map(|r| (r["session"].as_str().unwrap().to_owned(), list(&r["files_read"]), list(&r["files_edited"])))
        .collect();
    out.sort();
    out
}

/// The sessions of `path` that touched a file.
fn touched(path: &str) -> Vec<(String, Vec<String>, Vec<String>)> {
    let all = files(&crate::util::root().join(path));
    all.into_iter().filter(|(_, r, e)| !r.is_empty() || !e.is_empty()).collect()
}

fn row(session: &str, read: &[&str], edited: &[&str]) -> (String, Vec<String>, Vec<String>) {
    let v = |l: &[&str]| l.iter().map(|s| (*s).to_owned()).collect();
    (session.to_owned(), v(read), v(edited))
}

/// Copilot CLI: `view` reads, `edit` edits, the `path` argument; `bash`
/// names no file.
#[test]
fn copilot_view_reads_and_edit_edits() {
    assert_eq!(
        touched("fixtures/copilot-cli/.copilot"),
        [
            row("0a1b2c3d-0000-4000-8000-00000000000c", &[], &["/home/dev/web/header.tsx"]),
            row("c0ffee00-0000-4000-8000-00000000000b", &["/home/dev/api/src/api.rs"], &[]),
        ]
    );
}

/// Kimi CLI: `ReadFile`'s `path` (a JSON string argument); a fork's copy
/// of the call lists the file in the session owning the call only.
#[test]
fn kimi_read_file_reads_once_across_a_fork() {
    assert_eq!(touched("fixtures/kimi-fork/.kimi"), [row("bbbbbbbb-0000-4000-8000-000000000001", &["README.md"], &[])]);
}

/// The Cline family: `readFile` (Kilo) reads, `editedExistingFile` (Cline)
/// edits, the row's `path`.
#[test]
fn cline_tool_rows_read_and_edit() {
    assert_eq!(
        touched("fixtures/cline/User"),
        [
            row("1760000000000", &[], &["test/fixtures/greeting.txt"]),
            row("7f3c2a10-5b6d-4e8f-9a0b-1c2d3e4f5a6b", &["README.md"], &[]),
        ]
    );
}

/// OpenCode: `edit`'s `filePath`, even when the call failed.
#[test]
fn opencode_edit_edits() {
    assert_eq!(touched("fixtures/opencode/planted"), [row("ses_parent0001", &[], &["/home/dev/demo/test/a.test.ts"])]);
}

/// Gemini CLI's `read_file` and Qwen Code's `write_file` (as before: they
/// were in the default lists); Gemini's `list_directory` names a folder.
#[test]
fn gemini_and_qwen_read_file_and_write_file() {
    let gemini = touched("fixtures/gemini-traps/.gemini");
    assert_eq!(
        gemini.iter().map(|r| (&r.1, &r.2)).collect::<Vec<_>>(),
        [(&vec!["/home/dev/other/fetch.ts".to_owned()], &vec![])]
    );
    let qwen = touched("fixtures/qwen-fork/.qwen");
    assert_eq!(
        qwen.iter().map(|r| (&r.1, &r.2)).collect::<Vec<_>>(),
        [(&vec![], &vec!["/home/dev/demo/hello.txt".to_owned()])]
    );
}

/// A Kimi wire file whose calls write, change, read and list: each file in
/// its list once, `Shell` and `Glob` in neither.
#[test]
fn kimi_write_and_replace_edit() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("sessions/h/s1");
    std::fs::create_dir_all(&folder).unwrap();
    let call = |t: u32, name: &str, args: &str| {
        let args = serde_json::to_string(args).unwrap();
        format!(
            r#"{{"timestamp":1781085600.{t},"message":{{"type":"ToolCall","payload":{{"type":"function","id":"c{t}","function":{{"name":"{name}","arguments":{args}}}}}}}}}"#
        )
    };
    let lines = [
        call(1, "WriteFile", r#"{"path": "src/new.py", "content": "x"}"#),
        call(2, "StrReplaceFile", r#"{"path": "src/old.py", "edit": {"old": "a", "new": "b"}}"#),
        call(3, "ReadFile", r#"{"path": "src/old.py"}"#),
        call(4, "Glob", r#"{"pattern": "*.py"}"#),
        call(5, "Shell", r#"{"command": "cat src/new.py"}"#),
        call(6, "StrReplaceFile", r#"{"path": "src/new.py", "edit": {"old": "x", "new": "y"}}"#),
    ];
    std::fs::write(folder.join("wire.jsonl"), lines.join("\n") + "\n").unwrap();
    assert_eq!(files(dir.path()), [row("s1", &["src/old.py"], &["src/new.py", "src/old.py"])]);
}

/// A Cline task whose tool rows create, edit, read and list: the listing
/// names a folder and is in neither list.
#[test]
fn cline_new_files_and_roo_diffs_edit() {
    let dir = tempfile::tempdir().unwrap();
    let task = dir.path().join("globalStorage/saoudrizwan.claude-dev/tasks/1760000000001");
    std::fs::create_dir_all(&task).unwrap();
    let tool = |ts: u64, text: &str| serde_json::json!({"ts": ts, "type": "say", "say": "tool", "text": text});
    let rows = serde_json::json!([
        {"ts": 1760000000001u64, "type": "say", "say": "text", "text": "go"},
        tool(1760000000002, r#"{"tool":"newFileCreated","path":"a.rs","content":"x"}"#),
        tool(1760000000003, r#"{"tool":"appliedDiff","path":"b.rs","diff":"-a\n+b"}"#),
        tool(1760000000004, r#"{"tool":"readFile","path":"c.rs"}"#),
        tool(1760000000005, r#"{"tool":"listFilesTopLevel","path":"src"}"#),
    ]);
    std::fs::write(task.join("ui_messages.json"), rows.to_string()).unwrap();
    assert_eq!(files(dir.path()), [row("1760000000001", &["c.rs"], &["a.rs", "b.rs"])]);
}
