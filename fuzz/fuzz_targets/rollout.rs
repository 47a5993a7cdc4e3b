//! The Codex rollout normaliser (`format::codex`): a rollout's lines turned
//! into event records, with the running token total and the last turn
//! context's model kept from line to line.
//!
//! Input and properties as for `transcript` ([`normalise`]): the file's
//! bytes, or lines of JSON objects built from the rollout's own keys and
//! strings; nothing panics; every printed record is one line of JSON with
//! a non-empty `event` and an object `data` (a counted `token_count`'s
//! made data included); the printed record read back as a piped record
//! gives the same answers as the rollout's event (name, timestamp,
//! workspace, session, `data`, tool name, call key, failure, model, tokens,
//! …); a second read from a fresh state prints the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "common/normalise.rs"]
mod normalise;

/// The rollout's keys and strings.
const WORDS: &[&str] = &[
    "type",
    "payload",
    "timestamp",
    "2026-05-01T10:00:00Z",
    "session_meta",
    "turn_context",
    "response_item",
    "event_msg",
    "compacted",
    "token_count",
    "info",
    "total_token_usage",
    "last_token_usage",
    "input_tokens",
    "cached_input_tokens",
    "output_tokens",
    "reasoning_output_tokens",
    "total_tokens",
    "model",
    "model_name",
    "metadata",
    "gpt-5.2",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "local_shell_call",
    "web_search_call",
    "call_id",
    "c1",
    "name",
    "shell",
    "arguments",
    "output",
    "exit_code",
    "Exit code: 1",
    "Exit code: 0\nOutput:\nok",
    "{\"output\":\"x\",\"metadata\":{\"exit_code\":2}}",
    "user_message",
    "task_complete",
    "message",
    "id",
    "cwd",
    "/w",
    "originator",
    "cli_version",
    "source",
    "reasoning",
    "agent_message",
    "ci",
    "event",
    "codex",
    "data",
    "usage",
];

fuzz_target!(|data: &[u8]| normalise::run(&ci_tools::format::codex::FORMAT, data, WORDS));
