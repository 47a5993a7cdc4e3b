//! The Qwen Code normaliser (`format::qwen`): a chat file's records turned
//! into event records, several per record (a response and its calls), a
//! response's `data` made from its record (the toolkit's usage first).
//!
//! Input and properties as for `transcript` ([`normalise`]): the file's
//! bytes, or lines of JSON objects built from Qwen's own keys and strings;
//! nothing panics; every printed record is one line of JSON with a
//! non-empty `event` and an object `data`; the printed record read back as
//! a piped record gives the same answers as the file's event (name,
//! timestamp, workspace, session, `data`, tool name, call key, failure,
//! model, tokens, …); a second read from a fresh state prints the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "common/normalise.rs"]
mod normalise;

/// The chat records' keys and strings.
const WORDS: &[&str] = &[
    "uuid",
    "parentUuid",
    "sessionId",
    "timestamp",
    "2026-07-01T09:00:00.000Z",
    "type",
    "user",
    "assistant",
    "tool_result",
    "system",
    "subtype",
    "chat_compression",
    "parent_session",
    "ui_telemetry",
    "systemPayload",
    "parentSessionId",
    "cwd",
    "/home/dev/demo",
    "version",
    "model",
    "qwen3-coder-plus",
    "message",
    "role",
    "parts",
    "text",
    "thought",
    "functionCall",
    "functionResponse",
    "id",
    "call_1",
    "name",
    "read_file",
    "args",
    "absolute_path",
    "file_path",
    "response",
    "error",
    "output",
    "toolCallResult",
    "callId",
    "status",
    "success",
    "cancelled",
    "usageMetadata",
    "promptTokenCount",
    "candidatesTokenCount",
    "cachedContentTokenCount",
    "thoughtsTokenCount",
    "totalTokenCount",
    "usage",
    "input_tokens",
    "isSidechain",
    "agentId",
    "forkedFrom",
    "messageUuid",
    "ci",
    "event",
    "qwen",
    "data",
    "\\u0000",
];

fuzz_target!(|data: &[u8]| normalise::run(&ci_tools::format::qwen::FORMAT, data, WORDS));
