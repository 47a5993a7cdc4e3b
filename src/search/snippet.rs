//! Snippets: a match with a few characters of context, safe to print on one line.
//!
//! Context is counted in characters (Unicode scalar values) and cut on
//! character boundaries; `…` marks a side where the string goes on. Newlines,
//! carriage returns and tabs are shown as `\n`, `\r`, `\t`, other control
//! characters as `\u001b`-style escapes, so a snippet is always one line. A
//! match longer than [`MAX_MATCH_CHARS`] is cut after that many characters
//! with `…` (and no after-context).

use crate::text::printable::{self, Escapes};

/// The longest match shown whole, in characters.
pub const MAX_MATCH_CHARS: usize = 200;

/// The cut marker.
pub const ELLIPSIS: &str = "…";

/// A match and its context, as borrowed pieces of the decoded string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Snippet<'a> {
    /// Context before the match.
    pub before: &'a str,
    /// Whether the string goes on before `before`.
    pub cut_before: bool,
    /// The match (at most [`MAX_MATCH_CHARS`] characters).
    pub matched: &'a str,
    /// Whether the match was cut.
    pub cut_match: bool,
    /// Context after the match (empty when the match was cut).
    pub after: &'a str,
    /// Whether the string goes on after `after`.
    pub cut_after: bool,
}

impl<'a> Snippet<'a> {
    /// The snippet of the match `s[start..end]` with `context` characters on
    /// each side. `start` and `end` must be character boundaries (regex
    /// matches are).
    pub fn new(s: &'a str, start: usize, end: usize, context: usize) -> Snippet<'a> {
        let (start, end) = (floor(s, start.min(s.len())), floor(s, end.min(s.len())));
        let end = end.max(start);
        let head = &s[..start];
        let from = head.char_indices().rev().nth(context.saturating_sub(1)).map_or(0, |(i, _)| i);
        let from = if context == 0 { start } else { from };
        let m = &s[start..end];
        let (matched, cut_match) = match m.char_indices().nth(MAX_MATCH_CHARS) {
            Some((i, _)) => (&m[..i], true),
            None => (m, false),
        };
        let tail = if cut_match { "" } else { &s[end..] };
        let to = tail.char_indices().nth(context).map_or(tail.len(), |(i, _)| i);
        Snippet {
            before: &s[from..start],
            cut_before: from > 0,
            matched,
            cut_match,
            after: &tail[..to],
            cut_after: cut_match || to < tail.len(),
        }
    }

    /// The whole snippet as one escaped line: `…before match after…`.
    pub fn render(&self) -> String {
        let mut out = String::with_capacity(self.before.len() + self.matched.len() + self.after.len() + 8);
        if self.cut_before {
            out.push_str(ELLIPSIS);
        }
        escape_into(&mut out, self.before);
        escape_into(&mut out, self.matched);
        if self.cut_match {
            out.push_str(ELLIPSIS);
        }
        escape_into(&mut out, self.after);
        if self.cut_after && !self.cut_match {
            out.push_str(ELLIPSIS);
        }
        out
    }

    /// The match as shown in a record: cut with `…` when too long.
    pub fn match_text(&self) -> String {
        if self.cut_match {
            format!("{}{ELLIPSIS}", self.matched)
        } else {
            self.matched.to_owned()
        }
    }
}

fn floor(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Appends `s` with line breaks, tabs and other control characters escaped
/// (`\n`, `\r`, `\t`, `\u001b`: [`Escapes::SNIPPET`]).
pub fn escape_into(out: &mut String, s: &str) {
    printable::escape_into(out, s, Escapes::SNIPPET);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snip(s: &str, needle: &str, c: usize) -> String {
        let start = s.find(needle).unwrap();
        Snippet::new(s, start, start + needle.len(), c).render()
    }

    #[test]
    fn context_is_counted_in_characters() {
        assert_eq!(snip("0123456789match0123456789", "match", 3), "…789match012…");
        assert_eq!(snip("ééééématchééééé", "match", 2), "…éématchéé…");
        assert_eq!(snip("日本語日本語X日本語日本語", "X", 2), "…本語X日本…");
    }

    #[test]
    fn string_start_and_end_are_not_marked() {
        assert_eq!(snip("match at start", "match", 40), "match at start");
        assert_eq!(snip("ends with match", "match", 40), "ends with match");
        assert_eq!(snip("ab match cd", "match", 3), "ab match cd");
        assert_eq!(snip("abc match cd", "match", 3), "…bc match cd");
        assert_eq!(snip("x", "x", 0), "x");
        assert_eq!(snip("axb", "x", 0), "…x…");
    }

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(snip("a\nb\tc\u{1b}[0m match\r", "match", 40), "a\\nb\\tc\\u001b[0m match\\r");
    }

    #[test]
    fn long_matches_are_cut() {
        let s = format!("x{}y", "m".repeat(300));
        let sn = Snippet::new(&s, 1, 301, 5);
        assert_eq!(sn.matched.len(), MAX_MATCH_CHARS);
        assert!(sn.cut_match);
        assert_eq!(sn.render(), format!("x{}…", "m".repeat(200)));
        assert_eq!(sn.match_text(), format!("{}…", "m".repeat(200)));
    }
}
