//! What a Goose record means: a database row's record ([`super::store`])
//! or a legacy JSONL line ([`super::legacy`]); module docs of [`super`].

use std::borrow::Cow;

use super::legacy::{is_message, is_metadata};
use super::Goose;
use crate::format::{str_at, CallKey, Dialect, ReadState};
use crate::json::{Kind, Raw, Record};

/// Part `1 + i` is content item `i` of a message (a tool request or
/// response); at most this many are read.
const MAX_ITEMS: usize = 1 << 20;

/// What a part of a record is ([`part_of`]): part 0 is the record's own
/// event; part 1 of a session row its accumulated totals, of a ledger row
/// its compaction; part `1 + i` of a message its content item `i`, and the
/// part after its items a legacy file's totals (on its first message).
enum Part<'a> {
    Own,
    Item(Raw<'a>),
    Totals,
    Compaction,
}

/// What part `part` of `rec` is ([`Part`]).
fn part_of<'a>(rec: &Record<'a>, part: u32) -> Part<'a> {
    if part == 0 {
        return Part::Own;
    }
    match kind(rec).as_deref() {
        Some("session") => Part::Totals,
        Some("usage") => Part::Compaction,
        _ => items(rec).nth(part as usize - 1).map_or(Part::Totals, Part::Item),
    }
}

/// Whether a ledger record is a compaction's (`is_compaction` set).
fn is_compaction(rec: &Record<'_>) -> bool {
    rec.get("is_compaction").is_some_and(|v| match v.kind() {
        Kind::Number => v.as_f64().is_some_and(|n| n != 0.0),
        Kind::Bool => v.bytes() == b"true",
        _ => false,
    })
}

/// Why a line is not one of Goose's records.
const NOT_A_RECORD: &str =
    "not a Goose record (needs \"type\" session, message or usage, or a legacy metadata or message line)";

/// Why a message is not read.
const NOT_CONTENT: &str = "its content is not a JSON array (damaged or half-written row or line)";

/// The `goose:` names it gives.
const KNOWN: [&str; 1] = ["goose:message"];

/// The event names it gives for the records it knows.
pub(super) fn vocabulary() -> Vec<&'static str> {
    let mapped =
        ["session:start", "prompt:submit", "llm:response", "context:compaction", "tool:pre", "tool:post", "tool:error"];
    mapped.into_iter().chain(KNOWN).collect()
}

/// A database record's kind: `session`, `message` or `usage`.
fn kind<'a>(rec: &Record<'a>) -> Option<Cow<'a, str>> {
    rec.get_str("type")
}

/// Whether the record is a session's head (a session row, a legacy metadata line).
fn is_head(rec: &Record<'_>) -> bool {
    kind(rec).as_deref() == Some("session") || is_metadata(rec)
}

/// A message's content items.
fn items<'a>(rec: &Record<'a>) -> impl Iterator<Item = Raw<'a>> {
    let content = rec.get("content").filter(|c| c.kind() == Kind::Array);
    content.into_iter().flat_map(|c| c.items()).take(MAX_ITEMS)
}

/// A content item's `type`.
fn item_type<'a>(item: Raw<'a>) -> Option<Cow<'a, str>> {
    str_at(item, "type")
}

/// Whether a content item is a tool request or response (an event of its own).
fn is_tool_item(item: Raw<'_>) -> bool {
    matches!(item_type(item).as_deref(), Some("toolRequest" | "toolResponse"))
}

/// A tool response item's `toolResult.status` is `error`.
fn response_failed(item: Raw<'_>) -> bool {
    item.get("toolResult").and_then(|r| str_at(r, "status")).as_deref() == Some("error")
}

/// The toolkit's usage object of a legacy metadata line: its
/// `accumulated_*` counts (the session's totals).
fn write_accumulated(meta: [u64; 2], out: &mut Vec<u8>) {
    use std::io::Write as _;
    let [input, output] = meta;
    // Writing into a Vec cannot fail.
    let _ = write!(
        out,
        "{{\"usage\":{{\"input_tokens\":{input},\"output_tokens\":{output},\"cache_read_tokens\":0,\"cache_write_tokens\":0}}}}"
    );
}

impl Dialect for Goose {
    /// A database record (`type` session, message or usage, with
    /// `session_id` or `working_dir`) or a legacy metadata or message line.
    fn claims(&self, rec: &Record<'_>) -> bool {
        let has = |k: &str| rec.get(k).is_some();
        match kind(rec).as_deref() {
            Some("session") => has("id") && has("working_dir") && has("ledger_rows"),
            Some("message") => has("session_id") && has("role") && has("content"),
            Some("usage") => has("session_id") && has("usage"),
            Some(_) => false,
            None => is_metadata(rec) || is_message(rec),
        }
    }

    /// A record it claims whose message content is an array.
    fn accept(&self, rec: &Record<'_>) -> std::result::Result<(), &'static str> {
        crate::format::fits_as_data(rec)?;
        if !self.claims(rec) {
            return Err(NOT_A_RECORD);
        }
        match rec.get("role").is_some() && rec.get("content").is_some_and(|c| c.kind() != Kind::Array) {
            true => Err(NOT_CONTENT),
            false => Ok(()),
        }
    }

    /// A legacy file's accumulated totals (its metadata line), made into
    /// the data of its first message's totals part ([`Part::Totals`]).
    fn observe(&self, rec: &Record<'_>, state: &mut ReadState) {
        state.line_data.clear();
        if is_metadata(rec) {
            let n = |k: &str| rec.get(k).map_or(0, crate::format::whole_count);
            state.totals = Some([n("accumulated_input_tokens"), n("accumulated_output_tokens"), 0, 0, 0]);
        } else if is_message(rec) && !state.meta_read {
            state.meta_read = true;
            // Made even without totals: a re-read of the line alone then
            // reads the file up to it ([`crate::reread`]).
            match state.totals {
                Some([input, output, ..]) => write_accumulated([input, output], &mut state.line_data),
                None => state.line_data.extend_from_slice(b"{}"),
            }
        }
    }

    /// A legacy metadata line, a message (which may be a legacy file's
    /// first), or a `\u` escape, which could spell either.
    fn observes(&self, raw: &[u8]) -> bool {
        use bstr::ByteSlice;
        [&b"\"accumulated_"[..], b"\"role\"", b"\\u"].iter().any(|k| raw.find(k).is_some())
    }

    /// The record's own event (a message's only when it holds more than
    /// tool items), one per tool item, a session's accumulated totals and a
    /// ledger row's compaction ([`Part`]).
    fn parts(&self, rec: &Record<'_>, state: &mut ReadState, out: &mut Vec<u32>) {
        if rec.get("role").is_none() {
            out.push(0);
            let more = match kind(rec).as_deref() {
                Some("session") => rec.get("usage").is_some_and(|u| u.kind() == Kind::Object),
                Some("usage") => is_compaction(rec),
                _ => false,
            };
            if more {
                out.push(1);
            }
            return;
        }
        let (mut other, mut n) = (false, 0);
        for (i, item) in items(rec).enumerate() {
            n = i + 1;
            match is_tool_item(item) {
                true => out.push(1 + i as u32),
                false => other = true,
            }
        }
        // Its own event unless it is tool items only.
        if other || out.is_empty() {
            out.insert(0, 0);
        }
        if state.line_data.starts_with(b"{\"usage\"") {
            out.push(1 + n as u32);
        }
    }

    /// A database record's `type`, a tool item's `type`, a legacy message's
    /// `role` (a legacy session's totals: none).
    fn original<'a>(&self, rec: &Record<'a>, part: u32) -> Option<Raw<'a>> {
        match part_of(rec, part) {
            Part::Own => rec.get("type").or_else(|| rec.get("role")),
            Part::Item(item) => item.get("type"),
            Part::Totals | Part::Compaction => rec.get("type"),
        }
    }

    fn name_raw<'a>(&self, _rec: &Record<'a>, _part: u32) -> Option<Raw<'a>> {
        None
    }

    fn name<'a>(&self, rec: &Record<'a>, part: u32, _state: &'a ReadState) -> Cow<'a, str> {
        let name = match part_of(rec, part) {
            Part::Totals => "llm:response",
            Part::Compaction => "context:compaction",
            Part::Own if is_head(rec) => "session:start",
            Part::Own if kind(rec).as_deref() == Some("usage") => "llm:response",
            Part::Own => {
                let user = rec.get_str("role").as_deref() == Some("user");
                let text = items(rec).any(|i| item_type(i).as_deref() == Some("text"));
                if user && text {
                    "prompt:submit"
                } else {
                    "goose:message"
                }
            }
            Part::Item(item) if item_type(item).as_deref() == Some("toolRequest") => "tool:pre",
            Part::Item(item) if response_failed(item) => "tool:error",
            Part::Item(_) => "tool:post",
        };
        Cow::Borrowed(name)
    }

    /// The record whole; a tool item's object; a legacy session's made usage.
    fn data<'a>(&self, rec: &Record<'a>, part: u32, state: &'a ReadState) -> Option<Raw<'a>> {
        match part_of(rec, part) {
            Part::Totals if rec.get("role").is_some() => Some(Raw(&state.line_data)),
            Part::Own | Part::Totals | Part::Compaction => Some(Raw(rec.line().trim_ascii())),
            Part::Item(item) => Some(item),
        }
    }

    /// Records carry no workspace: the session's.
    fn workspace<'a>(&self, _rec: &Record<'a>) -> Option<Cow<'a, str>> {
        None
    }

    /// A database record's `timestamp`, a legacy message's `created`.
    fn timestamp<'a>(&self, rec: &Record<'a>) -> Option<Raw<'a>> {
        rec.get("timestamp").or_else(|| rec.get("created"))
    }

    /// Unix seconds as RFC 3339; a string as written.
    fn timestamp_text<'a>(&self, raw: Raw<'a>) -> Option<Cow<'a, str>> {
        match raw.kind() {
            Kind::String => raw.as_str(),
            _ => crate::format::kimi::parse_time(raw).map(|t| Cow::Owned(crate::time::format_timestamp(t))),
        }
    }

    /// A legacy metadata line carries no time.
    fn untimed_by_design(&self, name: &str) -> bool {
        name == "session:start"
    }

    /// A tool request's `toolCall.value.name`.
    fn tool_name<'a>(&self, data: Raw<'a>) -> Option<Raw<'a>> {
        let call = data.get("toolCall")?.get("value")?;
        call.get("name").filter(|n| n.kind() == Kind::String)
    }

    /// A tool item's `id` (its request's and its response's).
    fn call_key<'a>(&self, data: Raw<'a>) -> CallKey<'a> {
        match is_tool_item(data) {
            true => str_at(data, "id").map_or(CallKey::Alone, CallKey::Id),
            false => CallKey::Alone,
        }
    }

    /// A tool response whose `toolResult.status` is `error`.
    fn failed(&self, data: Raw<'_>) -> bool {
        response_failed(data)
    }

    /// A ledger row's or session row's `model`.
    fn model<'a>(&self, data: Raw<'a>) -> Option<Raw<'a>> {
        data.get("model").filter(|m| m.kind() == Kind::String)
    }

    /// The record's `usage` (made by the database, or from a legacy
    /// metadata line).
    fn tokens<'a>(&self, data: Raw<'a>) -> [Option<Raw<'a>>; 5] {
        let Some(usage) = data.get("usage").filter(|u| u.kind() == Kind::Object) else { return [None; 5] };
        crate::format::Usage::ALL.map(|u| usage.get(u.name()).filter(|v| v.kind() != Kind::Null))
    }

    /// A tool request's `path` argument.
    fn file_path<'a>(&self, data: Raw<'a>) -> Option<Cow<'a, str>> {
        str_at(data.get("toolCall")?.get("value")?.get("arguments")?, "path")
    }

    /// A database record's session (legacy lines do not name theirs).
    fn session_id<'a>(&self, data: Raw<'a>) -> Option<Cow<'a, str>> {
        match str_at(data, "type").as_deref() {
            Some("session") => str_at(data, "id"),
            _ => str_at(data, "session_id"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accumulated_usage_is_a_usage_object() {
        let mut out = Vec::new();
        write_accumulated([24500, 490], &mut out);
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["usage"]["input_tokens"], 24500);
        assert_eq!(v["usage"]["output_tokens"], 490);
    }
}
