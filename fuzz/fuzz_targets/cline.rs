//! The Cline family's normaliser (`format::cline`): a task's
//! `ui_messages.json` rows (the array's elements, each read as one compact
//! line, as the engine reads them) turned into event records, a usage row's
//! `data` made from the JSON string in its `text` (the toolkit's usage
//! first), a tool row's from its `tool` and `path`.
//!
//! Input and properties as for `transcript` ([`normalise`]): the rows'
//! bytes, or lines of JSON objects built from the rows' own keys and
//! strings (among them whole `ClineApiReqInfo` and tool texts); nothing
//! panics; every printed record is one line of JSON with a non-empty
//! `event` and an object `data`; the printed record read back as a piped
//! record gives the same answers as the file's event; a second read from a
//! fresh state prints the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "common/normalise.rs"]
mod normalise;

/// The rows' keys and strings.
const WORDS: &[&str] = &[
    "ts",
    "type",
    "say",
    "ask",
    "text",
    "task",
    "api_req_started",
    "deleted_api_reqs",
    "subagent_usage",
    "tool",
    "use_mcp_server",
    "command",
    "command_output",
    "completion_result",
    "user_feedback",
    "reasoning",
    "diff_error",
    "partial",
    "modelInfo",
    "modelId",
    "conversationHistoryIndex",
    r#"{"tokensIn":9803,"tokensOut":120,"cacheWrites":0,"cacheReads":9800,"cost":0.0051,"apiProtocol":"openai"}"#,
    r#"{"request":"r","tokensIn":3,"tokensOut":1.5,"cacheReads":-4,"cost":1e400,"modelId":"m"}"#,
    r#"{"tool":"editedExistingFile","path":"a.txt"}"#,
    r#"{"serverName":"s","toolName":"t"}"#,
    "{\"tokensIn\":\"\\u0031\"}",
    "{",
    "usage",
    "model",
    "path",
    "ci",
    "event",
    "cline",
    "data",
    "\\u0000",
];

fuzz_target!(|data: &[u8]| normalise::run(&ci_tools::format::cline::CLINE_FORMAT, data, WORDS));
