//! Text for people, made safe to print: every control character written as a
//! visible escape, so a hostile file name or value can neither forge a line
//! of a report nor drive the terminal (`evil\nfake.jsonl:99: x\e[2J` prints
//! as `evil\nfake.jsonl:99: x\u{1b}[2J`, on one line), as `ls` and `rg` do.
//! Used for every report on stderr ([`crate::diag::eprint`]), every table
//! cell ([`crate::output::table`]) and `ci-grep`'s snippets and text lines
//! ([`crate::search::snippet`], [`crate::output::text`]): one escaper
//! ([`escape_into`]), whose callers differ on purpose in three ways
//! ([`Escapes`]).

use std::borrow::Cow;
use std::fmt::Write as _;

/// How [`escape_into`] shows what it escapes. All callers escape the control
/// characters (Unicode `Cc`: U+0000–U+001F, U+007F–U+009F) and write `\n`,
/// `\r` and `\t` as those two-character escapes; they differ on purpose only
/// in these three.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Escapes {
    /// `\` doubled too: TSV cells, where the escapes must read back.
    pub backslash: bool,
    /// A newline followed by two spaces is kept: the indented continuation
    /// lines of a report ([`escape_report`]).
    pub continuation: bool,
    /// Other control characters as `\u001b` (four hex digits, JSON's
    /// spelling: `ci-grep`'s snippets and text lines) instead of Rust's
    /// `\u{1b}` (reports and table cells).
    pub hex4: bool,
}

impl Escapes {
    /// A table cell (`--format table`) and the base of the others.
    pub(crate) const CELL: Escapes = Escapes { backslash: false, continuation: false, hex4: false };
    /// A TSV cell.
    pub(crate) const TSV: Escapes = Escapes { backslash: true, ..Escapes::CELL };
    /// A report line for stderr.
    pub(crate) const REPORT: Escapes = Escapes { continuation: true, ..Escapes::CELL };
    /// A snippet or a `ci-grep` text line.
    pub(crate) const SNIPPET: Escapes = Escapes { hex4: true, ..Escapes::CELL };

    /// Whether `c` is written as an escape.
    #[inline]
    fn escapes(self, c: char) -> bool {
        c.is_control() || self.backslash && c == '\\'
    }
}

/// Appends `s` to `out` with control characters (and, per `how`, `\`)
/// written as visible escapes; runs without any are copied whole.
pub(crate) fn escape_into(out: &mut String, s: &str, how: Escapes) {
    let mut rest = s;
    while let Some(i) = rest.find(|c: char| how.escapes(c)) {
        out.push_str(&rest[..i]);
        let c = rest[i..].chars().next().unwrap_or(' ');
        rest = &rest[i + c.len_utf8()..];
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' if how.continuation && rest.starts_with("  ") => out.push('\n'),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            // Writing into a String cannot fail.
            c if how.hex4 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.extend(c.escape_default()),
        }
    }
    out.push_str(rest);
}

/// `s` escaped as `how` says ([`escape_into`]); borrowed when there is
/// nothing to escape.
pub(crate) fn escape(s: &str, how: Escapes) -> Cow<'_, str> {
    if !s.chars().any(|c| how.escapes(c)) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    escape_into(&mut out, s, how);
    Cow::Owned(out)
}

/// `s` with control characters written as Rust escapes (`\n`, `\t`,
/// `\u{1b}`), and `\` doubled when `backslash` (TSV, where the escapes must
/// read back). Borrowed when there is nothing to escape.
pub(crate) fn escape_controls(s: &str, backslash: bool) -> Cow<'_, str> {
    escape(s, if backslash { Escapes::TSV } else { Escapes::CELL })
}

/// A report line for stderr: [`escape_controls`], except that a newline
/// followed by two spaces is kept. Every report starts at column 0 with the
/// tool's name or a `path:line:`, and the few that go on over several lines
/// (a `--where` caret, the candidates of an ambiguous id) indent their
/// continuation lines; a newline from a name or a value, followed by anything
/// else, is shown as `\n`, so it can never start a line of its own.
pub(crate) fn escape_report(s: &str) -> Cow<'_, str> {
    escape(s, Escapes::REPORT)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The three escapers this one replaced, as they were: the one
    /// implementation must write what each wrote.
    mod before {
        pub(super) fn controls(s: &str, backslash: bool) -> String {
            let mut out = String::new();
            for c in s.chars() {
                if c.is_control() {
                    out.extend(c.escape_default());
                } else if c == '\\' && backslash {
                    out.push_str("\\\\");
                } else {
                    out.push(c);
                }
            }
            out
        }

        pub(super) fn report(s: &str) -> String {
            let mut out = String::new();
            for (i, c) in s.char_indices() {
                if c == '\n' && s[i + 1..].starts_with("  ") {
                    out.push('\n');
                } else if c.is_control() {
                    out.extend(c.escape_default());
                } else {
                    out.push(c);
                }
            }
            out
        }

        pub(super) fn snippet(s: &str) -> String {
            let mut out = String::new();
            for c in s.chars() {
                match c {
                    '\n' => out.push_str("\\n"),
                    '\r' => out.push_str("\\r"),
                    '\t' => out.push_str("\\t"),
                    c if c.is_control() && (c as u32) < 0xa0 => out.push_str(&format!("\\u{:04x}", c as u32)),
                    c => out.push(c),
                }
            }
            out
        }
    }

    proptest! {
        #[test]
        fn every_caller_gets_what_it_got_before(s in "(\\PC|[\\x00-\\x1f\\x7f-\\u{a0}\\\\ ]|\n  ){0,40}") {
            prop_assert_eq!(escape_controls(&s, false), before::controls(&s, false));
            prop_assert_eq!(escape_controls(&s, true), before::controls(&s, true));
            prop_assert_eq!(escape_report(&s), before::report(&s));
            let mut snip = String::new();
            escape_into(&mut snip, &s, Escapes::SNIPPET);
            prop_assert_eq!(snip, before::snippet(&s));
        }
    }

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
