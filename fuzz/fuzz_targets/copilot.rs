//! The GitHub Copilot CLI normaliser (`format::copilot`): an event log's
//! lines turned into event records, a shutdown's roll-ups into one response
//! per model whose `data` is made from the growth since the previous
//! shutdown (compaction resets, the recorded cost).
//!
//! Input and properties as for `transcript` ([`normalise`]): the file's
//! bytes, or lines of JSON objects built from Copilot's own keys and
//! strings; nothing panics; every printed record is one line of JSON with a
//! non-empty `event` and an object `data`; the printed record read back as
//! a piped record gives the same answers as the file's event (name,
//! timestamp, workspace, session, `data`, tool name, call key, failure,
//! model, tokens, …); a second read from a fresh state prints the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "common/normalise.rs"]
mod normalise;

/// The event log's keys and strings.
const WORDS: &[&str] = &[
    "type",
    "data",
    "id",
    "parentId",
    "timestamp",
    "2026-07-01T09:00:00.000Z",
    "session.start",
    "sessionId",
    "copilotVersion",
    "context",
    "cwd",
    "/home/dev/demo",
    "session.model_change",
    "newModel",
    "user.message",
    "content",
    "assistant.message",
    "assistant.turn_end",
    "model",
    "claude-sonnet-4.6",
    "gpt-5.4",
    "toolRequests",
    "outputTokens",
    "tool.execution_start",
    "tool.execution_complete",
    "toolCallId",
    "call_1",
    "toolName",
    "bash",
    "arguments",
    "path",
    "success",
    "result",
    "session.compaction_complete",
    "session.shutdown",
    "totalNanoAiu",
    "modelMetrics",
    "usage",
    "inputTokens",
    "cacheReadTokens",
    "cacheWriteTokens",
    "reasoningTokens",
    "input_tokens",
    "cost_usd",
    "ci",
    "event",
    "copilot",
    "\\u2028",
    "\\u0000",
];

fuzz_target!(|data: &[u8]| normalise::run(&ci_tools::format::copilot::FORMAT, data, WORDS));
