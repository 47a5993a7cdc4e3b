//! Text lines for people: `ci-grep --format text`'s match, count and path
//! lines. Each is one line whatever the text holds (control characters are
//! shown escaped, as in snippets), with the file, the line number and the
//! match in colour when asked (`--color`).

use crate::search::snippet::{escape_into, Snippet};

const MAGENTA: &str = "\x1b[35m";
const GREEN: &str = "\x1b[32m";
const RED_BOLD: &str = "\x1b[1;31m";
const RESET: &str = "\x1b[0m";

/// Where a match is, as its text line names it.
pub struct Match<'a> {
    /// The capture file, as given or discovered.
    pub file: &'a str,
    /// The line of the file.
    pub line: u64,
    /// The event name.
    pub event: &'a str,
    /// The field path of the matched string.
    pub path: &'a str,
    /// Whether the match is in a key (not a value).
    pub key: bool,
}

/// Writes `FILE:LINE: EVENT PATH[ (key)]: …before MATCH after…` (the file
/// and line as ripgrep prints them), the file, line and match coloured when
/// `color`.
pub fn write_match(out: &mut Vec<u8>, color: bool, m: &Match<'_>, snip: &Snippet<'_>) {
    let paint = |s: &str, c: &str| {
        if color {
            format!("{c}{s}{RESET}")
        } else {
            s.to_owned()
        }
    };
    let mut line = String::with_capacity(160);
    line.push_str(&paint(&printable(m.file), MAGENTA));
    line.push(':');
    line.push_str(&paint(&m.line.to_string(), GREEN));
    line.push_str(": ");
    line.push_str(&printable(m.event));
    line.push(' ');
    line.push_str(&printable(m.path));
    if m.key {
        line.push_str(" (key)");
    }
    line.push_str(": ");
    if snip.cut_before {
        line.push('…');
    }
    escape_into(&mut line, snip.before);
    let mut matched = String::new();
    escape_into(&mut matched, snip.matched);
    line.push_str(&paint(&matched, RED_BOLD));
    if snip.cut_match {
        line.push('…');
    } else {
        escape_into(&mut line, snip.after);
        if snip.cut_after {
            line.push('…');
        }
    }
    line.push('\n');
    out.extend_from_slice(line.as_bytes());
}

/// Writes `SESSION:COUNT` (`-c`).
pub fn write_count(out: &mut Vec<u8>, session: &str, count: u64) {
    out.extend_from_slice(format!("{}:{count}\n", printable(session)).as_bytes());
}

/// Writes a capture's path (`-l`).
pub fn write_path(out: &mut Vec<u8>, path: &str) {
    out.extend_from_slice(printable(path).as_bytes());
    out.push(b'\n');
}

/// Text safe for one terminal line.
fn printable(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    escape_into(&mut out, s);
    out
}
