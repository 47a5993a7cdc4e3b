//! The Kimi normaliser (`format::kimi`): a wire file's lines turned into
//! event records, one per line, a numeric time printed as RFC 3339.
//!
//! Input and properties as for `transcript` ([`normalise`]): the file's
//! bytes, or lines of JSON objects built from Kimi's own keys and strings;
//! nothing panics; every printed record is one line of JSON with a
//! non-empty `event` and an object `data`; the printed record read back as
//! a piped record gives the same answers as the file's event (name,
//! timestamp, workspace, session, `data`, tool name, call key, failure,
//! model, tokens, …); a second read from a fresh state prints the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "common/normalise.rs"]
mod normalise;

/// The wire records' keys and strings (Kimi CLI's and Kimi Code's).
const WORDS: &[&str] = &[
    "timestamp",
    "1781085600.12",
    "1781085600120",
    "-1",
    "1e300",
    "message",
    "type",
    "payload",
    "metadata",
    "protocol_version",
    "TurnBegin",
    "user_input",
    "TurnEnd",
    "StepBegin",
    "CompactionBegin",
    "StatusUpdate",
    "token_usage",
    "input_other",
    "output",
    "input_cache_read",
    "input_cache_creation",
    "message_id",
    "ToolCall",
    "function",
    "id",
    "name",
    "arguments",
    "{\"path\": \"a\"}",
    "ToolResult",
    "tool_call_id",
    "return_value",
    "is_error",
    "SubagentEvent",
    "event",
    "usage.record",
    "usageScope",
    "turn",
    "session",
    "usage",
    "inputOther",
    "inputCacheRead",
    "inputCacheCreation",
    "time",
    "turnId",
    "model",
    "kimi-for-coding",
    "turn.prompt",
    "config.update",
    "cwd",
    "ci",
    "kimi",
    "data",
    "\\u0000",
];

fuzz_target!(|data: &[u8]| normalise::run(&ci_tools::format::kimi::FORMAT, data, WORDS));
