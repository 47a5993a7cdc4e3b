//! What a transcript line's message holds: its type, usage, message key,
//! content blocks and the subagent response a `progress` line carries.

use std::borrow::Cow;

use super::{str_at, ReadState, BLOCKS};
use crate::json::{Kind, Raw, Record};

/// A message's `usage` in the toolkit's names, one pass over it.
pub(super) fn usage_tokens(usage: Raw<'_>) -> [Option<Raw<'_>>; 5] {
    let mut out = [None; 5];
    for (key, v) in usage.members() {
        const KEYS: [&str; 4] =
            ["input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"];
        if let Some(slot) = KEYS.iter().position(|k| crate::json::key_eq(key, k)) {
            out[slot] = Some(v);
        }
    }
    out
}

/// A usage object's `cache_creation.ephemeral_1h_input_tokens`.
pub(super) fn write_1h(usage: Raw<'_>) -> Option<Raw<'_>> {
    usage.get("cache_creation")?.get("ephemeral_1h_input_tokens")
}

/// A line's `type`, else its message's `role`.
pub(super) fn line_type<'a>(rec: &Record<'a>) -> Option<Cow<'a, str>> {
    rec.get_str("type").or_else(|| rec.get_in("message", "role").and_then(|r| r.as_str()))
}

/// Whether the message `id` (a string) + `request` is seen for the first
/// time in the capture (a message without an id always is).
pub(super) fn first_sight(state: &mut ReadState, id: Option<Raw<'_>>, request: Option<Raw<'_>>) -> bool {
    match id.filter(|i| i.kind() == Kind::String) {
        Some(id) => state.first_sight(&[id.bytes(), request.map_or(&b""[..], |r| r.bytes())]),
        None => true,
    }
}

/// Whether the line is a `progress` line.
pub(super) fn is_progress(rec: &Record<'_>) -> bool {
    line_type(rec).as_deref() == Some("progress")
}

/// The subagent response a `progress` line carries (Claude Code 2.1's
/// `agent_progress`): `data.message` when it is an assistant line with a
/// `message` object (`{type, message: {id, model, content, usage}, requestId,
/// uuid, timestamp}`, the shape of an assistant line of the subagent's own
/// transcript).
pub(super) fn subagent_message<'a>(rec: &Record<'a>) -> Option<Raw<'a>> {
    let m = rec.get("data")?.get("message").filter(|m| m.kind() == Kind::Object)?;
    let assistant = block_type(m).as_deref() == Some("assistant");
    (assistant && m.get("message").is_some_and(|x| x.kind() == Kind::Object)).then_some(m)
}

/// `message.id` + `requestId` (or the id alone without a request id), into `out`.
pub(super) fn message_key_of(id: Option<Raw<'_>>, request: Option<Raw<'_>>, out: &mut String) -> bool {
    out.clear();
    let Some(id) = id.and_then(|i| i.as_str()) else { return false };
    out.push_str(&id);
    if let Some(r) = request.and_then(|r| r.as_str()) {
        out.push('\u{0}');
        out.push_str(&r);
    }
    true
}

/// A content block's `type`.
pub(super) fn block_type<'a>(block: Raw<'a>) -> Option<Cow<'a, str>> {
    str_at(block, "type")
}

/// The content block of a block part.
pub(super) fn block_at<'a>(rec: &Record<'a>, part: u32) -> Option<Raw<'a>> {
    let content = rec.get_in("message", "content")?;
    content.items().nth((part - BLOCKS) as usize)
}

/// Whether a user message holds prompt text: string content, or a text
/// (or image) block beside no tool result.
pub(super) fn has_prompt_text(content: Option<Raw<'_>>) -> bool {
    let Some(content) = content else { return false };
    match content.kind() {
        Kind::String => true,
        Kind::Array => content.items().any(|b| matches!(block_type(b).as_deref(), Some("text" | "image"))),
        _ => false,
    }
}
