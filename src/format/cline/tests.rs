use super::*;
use crate::format::{Dialect, ReadState};
use crate::json::Index;

fn usage(info: &str) -> [u64; 4] {
    let mut idx = Index::new();
    usage_counts(&idx.parse(info.as_bytes()).unwrap())
}

/// The names and data of rows read in order, as one capture reads them.
fn read(rows: &[&str]) -> Vec<(String, String)> {
    let mut state = ReadState::default();
    let mut out = vec![];
    for row in rows {
        let mut idx = Index::new();
        let rec = idx.parse(row.as_bytes()).unwrap();
        rows::Rows.observe(&rec, &mut state);
        let name = rows::Rows.name(&rec, 0, &state).into_owned();
        let data = String::from_utf8(rows::Rows.data(&rec, 0, &state).unwrap().bytes().to_vec()).unwrap();
        out.push((name, data));
    }
    out
}

#[test]
fn tokens_in_holds_the_cache_reads_only_over_the_openai_protocol() {
    let anthropic = r#"{"tokensIn":5,"tokensOut":210,"cacheWrites":400,"cacheReads":9800}"#;
    assert_eq!(usage(anthropic), [5, 210, 9800, 400]);
    let openai = r#"{"apiProtocol":"openai","tokensIn":9803,"tokensOut":120,"cacheWrites":0,"cacheReads":9800}"#;
    assert_eq!(usage(openai), [3, 120, 9800, 0]);
    let said = r#"{"apiProtocol":"anthropic","tokensIn":9803,"cacheReads":9800}"#;
    assert_eq!(usage(said), [9803, 0, 9800, 0]);
}

#[test]
fn odd_counts_count_nothing_and_never_underflow() {
    let u = r#"{"apiProtocol":"openai","tokensIn":10,"cacheReads":50,"tokensOut":-3,"cacheWrites":1.5}"#;
    assert_eq!(usage(u), [0, 0, 50, 0]);
    assert_eq!(usage(r#"{"tokensIn":"9"}"#), [0, 0, 0, 0]);
}

#[test]
fn usage_rows_are_responses_with_the_usage_and_cost_first() {
    let rows = [
        r#"{"ts":1,"type":"say","say":"task","text":"go"}"#,
        r#"{"ts":2,"type":"say","say":"api_req_started","text":"{\"request\":\"r\"}"}"#,
        r#"{"ts":3,"type":"say","say":"api_req_started","text":"{\"tokensIn\":1,\"tokensOut\":2,\"cost\":0.5,\"modelId\":\"m\"}","usage":9}"#,
        r#"{"ts":4,"type":"say","say":"deleted_api_reqs","text":"{\"tokensIn\":4,\"cost\":-1}"}"#,
        r#"{"ts":5,"type":"say","say":"subagent_usage","text":"not json"}"#,
    ];
    let got = read(&rows);
    let names: Vec<&str> = got.iter().map(|(n, _)| n.as_str()).collect();
    let want =
        ["prompt:submit", "cline:say:api_req_started", "llm:response", "llm:response", "cline:say:subagent_usage"];
    assert_eq!(names, want);
    assert_eq!(
        got[2].1,
        r#"{"usage":{"input_tokens":1,"output_tokens":2,"cache_read_tokens":0,"cache_write_tokens":0,"cost_usd":0.5},"model":"m","ts":3,"type":"say","say":"api_req_started","text":"{\"tokensIn\":1,\"tokensOut\":2,\"cost\":0.5,\"modelId\":\"m\"}"}"#
    );
    // A negative cost is no cost; a row naming no model takes the earlier row's.
    assert!(got[3].1.starts_with(
        r#"{"usage":{"input_tokens":4,"output_tokens":0,"cache_read_tokens":0,"cache_write_tokens":0},"model":"m","ts""#
    ));
}

#[test]
fn the_first_text_row_is_the_task_and_later_ones_are_content() {
    let rows =
        [r#"{"ts":1,"type":"say","say":"text","text":"task"}"#, r#"{"ts":2,"type":"say","say":"text","text":"a"}"#];
    let names: Vec<String> = read(&rows).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["prompt:submit", "llm:content"]);
}

#[test]
fn tool_rows_name_their_tool_and_path() {
    let rows = [
        r#"{"ts":1,"type":"ask","ask":"tool","text":"{\"tool\":\"readFile\",\"path\":\"a.rs\"}"}"#,
        r#"{"ts":2,"type":"ask","ask":"use_mcp_server","text":"{\"serverName\":\"s\",\"toolName\":\"t\"}"}"#,
        r#"{"ts":3,"type":"ask","ask":"command","text":"ls"}"#,
        r#"{"ts":4,"type":"say","say":"command_output","text":"x"}"#,
    ];
    let got = read(&rows);
    let tool = |i: usize| {
        let d = crate::json::Raw(got[i].1.as_bytes());
        rows::Rows.tool_name(d).and_then(|t| t.as_str()).map(|t| t.into_owned())
    };
    assert_eq!(
        [tool(0), tool(1), tool(2), tool(3)],
        [Some("readFile"), Some("t"), Some("execute_command"), Some("execute_command")].map(|t| t.map(str::to_owned))
    );
    assert_eq!(rows::Rows.file_path(crate::json::Raw(got[0].1.as_bytes())).as_deref(), Some("a.rs"));
    assert_eq!(got[3].0, "tool:post");
}

#[test]
fn a_task_folder_belongs_to_the_extension_whose_folder_holds_it() {
    let p = |s: &str| tasks::family_of(Path::new(s)).name;
    assert_eq!(p("/u/globalStorage/saoudrizwan.claude-dev/tasks/1"), "cline");
    assert_eq!(p("/u/globalStorage/rooveterinaryinc.roo-cline/tasks/1"), "roo-code");
    assert_eq!(p("/u/globalStorage/kilocode.kilo-code/tasks/1"), "kilo-code");
    assert_eq!(p("/h/.cline/data/tasks/1"), "cline");
}

/// The elements `rows` gives, reading `first` of them before `meanwhile` runs.
fn read_around(text: &str, first: usize, meanwhile: impl FnOnce(&Path)) -> (Vec<String>, bool, u64) {
    use crate::lines::LineSource;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(UI_MESSAGES);
    std::fs::write(&path, text).unwrap();
    let diag = Diag::new("test", false);
    let mut rows = array::Elements::open(&path, "f", &diag).unwrap();
    let mut out = vec![];
    for _ in 0..first {
        out.push(String::from_utf8(rows.next_line().unwrap().unwrap().bytes.to_vec()).unwrap());
    }
    meanwhile(&path);
    while let Some(line) = rows.next_line().unwrap() {
        out.push(String::from_utf8(line.bytes.to_vec()).unwrap());
    }
    (out, diag.failed(), diag.bad_lines())
}

/// The extension rewrites the whole array: a rewrite in place while it is
/// read is an error (what was read may mix two versions); a file replaced
/// by a rename is read whole as it was; an unchanged file reads clean.
#[test]
fn a_file_rewritten_while_it_is_read_is_reported() {
    let old = r#"[{"ts":1,"type":"say","say":"task"},{"ts":2,"type":"say","say":"text"}]"#;
    let new =
        r#"[{"ts":1,"type":"say","say":"task"},{"ts":2,"type":"say","say":"text"},{"ts":3,"type":"say","say":"text"}]"#;
    let (rows, failed, bad) = read_around(old, 1, |_| {});
    assert_eq!((rows.len(), failed, bad), (2, false, 0));
    let (_, failed, _) = read_around(old, 1, |p| std::fs::write(p, new).unwrap());
    assert!(failed, "a rewrite in place is an error");
    let (rows, failed, _) = read_around(old, 1, |p| {
        let tmp = p.with_extension("tmp");
        std::fs::write(&tmp, new).unwrap();
        std::fs::rename(&tmp, p).unwrap();
    });
    assert_eq!((rows.len(), failed), (2, false), "the old file, read whole");
}
