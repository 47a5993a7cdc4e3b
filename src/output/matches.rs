//! `ci-grep`'s NDJSON records (their text twins are in [`super::text`]):
//!
//! - a match: `{"session","line","event","timestamp","workspace"[,"tool"],
//!   "path","key","offset","char_offset","match","snippet"[,"record"][,"ci"]}`,
//!   where `tool` is the tool a call's end names through its start,
//!   `record` the event record a match came whole from a pipe in, `ci`
//!   the event's provenance with the site of its line (neither with
//!   `--no-provenance`);
//! - a session's count (`--count`): `{"session","path","count"}`.

use crate::record::Event;
use crate::search::snippet::Snippet;

use super::json_str;

/// Where a match is and what is known of it, as its record says.
pub struct Found<'a> {
    /// The session id.
    pub session: &'a str,
    /// The line of the capture file.
    pub line: u64,
    /// The field path of the matched string.
    pub path: &'a str,
    /// Whether the match is in a key (not a value).
    pub key: bool,
    /// The byte offset of the match in the decoded string.
    pub offset: usize,
    /// The character offset of the match in the decoded string.
    pub char_offset: usize,
    /// Whether the record carries the event's provenance (`ci`, and the
    /// `record` of a piped event record).
    pub provenance: bool,
}

/// Writes the match record of `m` in the event `ev`, its match and snippet
/// from `snip`.
pub fn write_match(out: &mut Vec<u8>, ev: &Event<'_>, m: &Found<'_>, snip: &Snippet<'_>) {
    out.extend_from_slice(b"{\"session\":");
    json_str(out, m.session);
    out.extend_from_slice(format!(",\"line\":{},\"event\":", m.line).as_bytes());
    json_str(out, &ev.name());
    out.extend_from_slice(b",\"timestamp\":");
    match ev.timestamp_str() {
        Some(t) => json_str(out, &t),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"workspace\":");
    match ev.workspace() {
        Some(w) => json_str(out, &w),
        None => out.extend_from_slice(b"null"),
    }
    // A call's end names its tool through its start, an earlier line: the
    // record carries it, so a tool reading the event again names it too.
    if let Some(tool) = ev.paired_tool() {
        out.extend_from_slice(b",\"tool\":");
        out.extend_from_slice(tool.bytes());
    }
    out.extend_from_slice(b",\"path\":");
    json_str(out, m.path);
    out.extend_from_slice(
        format!(",\"key\":{},\"offset\":{},\"char_offset\":{}", m.key, m.offset, m.char_offset).as_bytes(),
    );
    out.extend_from_slice(b",\"match\":");
    json_str(out, &snip.match_text());
    out.extend_from_slice(b",\"snippet\":");
    json_str(out, &snip.render());
    if m.provenance {
        // An event record that came whole from a pipe: its line's place is
        // not known, so the match carries the record (README, ci-grep).
        if ev.provenance().is_some() && ev.cut_origin().is_none() {
            out.extend_from_slice(b",\"record\":");
            out.extend_from_slice(ev.rec.line().trim_ascii());
        }
        // The event's provenance, with the site of its line: a later tool
        // reads the event again from it.
        out.extend_from_slice(b",\"ci\":");
        super::write_event_site(out, ev);
    }
    out.extend_from_slice(b"}\n");
}

/// Writes the count record of a session: its id, its capture's path and
/// its number of matches.
pub fn write_count(out: &mut Vec<u8>, session: &str, path: &str, count: u64) {
    out.extend_from_slice(b"{\"session\":");
    json_str(out, session);
    out.extend_from_slice(b",\"path\":");
    json_str(out, path);
    out.extend_from_slice(format!(",\"count\":{count}}}\n").as_bytes());
}
