//! The Gemini CLI normaliser (`format::gemini`): a chat recording's lines
//! turned into event records, several per message (a response and each
//! tool call's start and end), a response's `data` made from its message
//! (the toolkit's usage first).
//!
//! Input and properties as for `transcript` ([`normalise`]): the file's
//! bytes, or lines of JSON objects built from Gemini's own keys and
//! strings; nothing panics; every printed record is one line of JSON with a
//! non-empty `event` and an object `data`; the printed record read back as
//! a piped record gives the same answers as the file's event (name,
//! timestamp, workspace, session, `data`, tool name, call key, failure,
//! model, tokens, …); a second read from a fresh state prints the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "common/normalise.rs"]
mod normalise;

/// The recordings' keys and strings.
const WORDS: &[&str] = &[
    "sessionId",
    "projectHash",
    "startTime",
    "lastUpdated",
    "kind",
    "main",
    "subagent",
    "directories",
    "id",
    "g-1",
    "timestamp",
    "2026-06-10T10:00:00.000Z",
    "type",
    "user",
    "gemini",
    "info",
    "error",
    "warning",
    "content",
    "text",
    "thoughts",
    "subject",
    "description",
    "model",
    "gemini-2.5-pro",
    "tokens",
    "input",
    "output",
    "cached",
    "tool",
    "total",
    "toolCalls",
    "name",
    "read_file",
    "args",
    "absolute_path",
    "file_path",
    "result",
    "functionResponse",
    "response",
    "status",
    "executing",
    "success",
    "cancelled",
    "$set",
    "$rewindTo",
    "messages",
    "summary",
    "usage",
    "ci",
    "event",
    "data",
    "\\u0000",
];

fuzz_target!(|data: &[u8]| normalise::run(&ci_tools::format::gemini::FORMAT, data, WORDS));
