//! Text for people, made safe to print: every control character written as a
//! visible escape, so a hostile file name or value can neither forge a line
//! of a report nor drive the terminal (`evil\nfake.jsonl:99: x\e[2J` prints
//! as `evil\nfake.jsonl:99: x\u{1b}[2J`, on one line), as `ls` and `rg` do.
//! Used for every report on stderr ([`crate::diag::eprint`]) and every table
//! cell ([`crate::output::table`]).

use std::borrow::Cow;

/// `s` with control characters written as Rust escapes (`\n`, `\t`,
/// `\u{1b}`), and `\` doubled when `backslash` (TSV, where the escapes must
/// read back). Borrowed when there is nothing to escape.
pub fn escape_controls(s: &str, backslash: bool) -> Cow<'_, str> {
    if !s.chars().any(|c| c.is_control() || backslash && c == '\\') {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else if c == '\\' && backslash {
            out.push_str("\\\\");
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A report line for stderr: [`escape_controls`], except that a newline
/// followed by two spaces is kept. Every report starts at column 0 with the
/// tool's name or a `path:line:`, and the few that go on over several lines
/// (a `--where` caret, the candidates of an ambiguous id) indent their
/// continuation lines; a newline from a name or a value, followed by anything
/// else, is shown as `\n`, so it can never start a line of its own.
pub fn escape_report(s: &str) -> Cow<'_, str> {
    if !s.chars().any(char::is_control) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for (i, c) in s.char_indices() {
        if c == '\n' && s[i + 1..].starts_with("  ") {
            out.push('\n');
        } else if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_become_visible() {
        assert_eq!(escape_controls("evil\nfake.jsonl:99: x\u{1b}[2J", false), "evil\\nfake.jsonl:99: x\\u{1b}[2J");
        assert_eq!(escape_controls("a\tb\0c\u{9b}d", true), "a\\tb\\u{0}c\\u{9b}d");
        assert_eq!(escape_controls("C:\\x", true), "C:\\\\x");
        assert!(matches!(escape_controls("plain é 日本", false), Cow::Borrowed(_)));
    }

    #[test]
    fn reports_keep_only_their_indented_continuation_lines() {
        assert_eq!(escape_report("bad: x\n  x\n  ^"), "bad: x\n  x\n  ^");
        assert_eq!(escape_report("a\nfake:1: b\u{1b}[2J\n"), "a\\nfake:1: b\\u{1b}[2J\\n");
        assert_eq!(escape_report("a\n "), "a\\n ");
    }
}
