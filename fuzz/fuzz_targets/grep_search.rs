//! ci-grep's search: `search::Matcher` (regex and raw pre-check),
//! `search::walk::strings`, `json::decode_str` and `search::snippet::Snippet`
//! on arbitrary patterns and lines.
//!
//! Input: up to three patterns with the `-F`/`-i`/`-w` flags, a context
//! width, `--keys`, and a line. The line is either arbitrary bytes or, most
//! of the time, an event record whose `data` holds a fuzzed string (as a
//! value and as a key) encoded in one of several legal ways: raw UTF-8,
//! `\u` escapes for everything non-ASCII or for every character (random hex
//! case, surrogate pairs), `\/` for `/`, short escapes. Real matches are then
//! common and their raw bytes vary.
//!
//! Properties:
//! - nothing panics (matcher construction may refuse a pattern);
//! - differential: whenever the decoded search finds a match in a string of
//!   the line (a value in `data`, or with `--keys` a key), the raw pre-check
//!   accepts the whole line and the raw content of that string (ci-grep runs
//!   it on both), so the pre-check never hides a match;
//! - every snippet is made of pieces of the decoded string around the match:
//!   `before` ends where the match starts, `after` starts where it ends, each
//!   at most `context` characters; the match is shown whole up to
//!   `MAX_MATCH_CHARS` characters (else cut, with `cut_match`); the rendered
//!   line holds no raw control character and contains the escaped match.
#![no_main]

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt::Write;

use arbitrary::Arbitrary;
use ci_tools::json::{decode_str, Index};
use ci_tools::search::snippet::{escape_into, Snippet, MAX_MATCH_CHARS};
use ci_tools::search::walk::{strings, Scope};
use ci_tools::search::Matcher;
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
struct Input<'a> {
    patterns: Vec<&'a str>,
    fixed: bool,
    ignore_case: bool,
    word: bool,
    keys: bool,
    context: u8,
    text: &'a str,
    /// How `text` is encoded; 255: `raw` is the whole line instead.
    encoding: u8,
    /// Per-character choices for the mixed encodings.
    choices: &'a [u8],
    raw: &'a [u8],
}

/// Patterns whose compiled size could make one input take seconds (large or
/// nested counted repetitions) are skipped; they test the regex crate, not us.
fn too_costly(p: &str) -> bool {
    let mut digits = 0;
    for b in p.bytes() {
        digits = if b.is_ascii_digit() { digits + 1 } else { 0 };
        if digits > 2 {
            return true;
        }
    }
    p.len() > 64 || p.matches('{').count() > 1
}

/// `text` as the content of a JSON string, encoded per `mode` and `choices`.
fn encode(text: &str, mode: u8, choices: &[u8]) -> String {
    let mut out = String::new();
    for (i, c) in text.chars().enumerate() {
        let pick = choices.get(i % choices.len().max(1)).copied().unwrap_or(0);
        let must = c == '"' || c == '\\' || (c as u32) < 0x20;
        let escape_u = match mode % 4 {
            0 => must,                  // canonical: raw UTF-8
            1 => must || !c.is_ascii(), // ASCII-only writer
            2 => true,                  // everything as \u
            _ => must || pick & 1 == 1, // mixed
        };
        let short = match c {
            '"' => Some("\\\""),
            '\\' => Some("\\\\"),
            '\n' => Some("\\n"),
            '\t' => Some("\\t"),
            '\r' => Some("\\r"),
            '\u{8}' => Some("\\b"),
            '\u{c}' => Some("\\f"),
            '/' if pick & 2 == 2 => Some("\\/"),
            _ => None,
        };
        match short {
            Some(s) if pick & 4 == 0 || !escape_u => out.push_str(s),
            _ if escape_u => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    if pick & 8 == 8 {
                        let _ = write!(out, "\\u{u:04X}");
                    } else {
                        let _ = write!(out, "\\u{u:04x}");
                    }
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// Compiled matchers by pattern and flags: compiling a regex costs far more
/// than searching one short line, and libFuzzer often mutates only the line.
type Key = (Vec<String>, bool, bool, bool);

thread_local! {
    static MATCHERS: RefCell<HashMap<Key, Option<Matcher>>> = RefCell::new(HashMap::new());
}

fuzz_target!(|input: Input<'_>| {
    let patterns: Vec<String> = input.patterns.iter().take(3).map(|p| p.to_string()).collect();
    if patterns.iter().any(|p| too_costly(p)) {
        return;
    }
    let key = (patterns, input.fixed, input.ignore_case, input.word);
    let Some(m) = MATCHERS.with(|cache| {
        let mut cache = cache.borrow_mut();
        if cache.len() > 20_000 {
            cache.clear();
        }
        cache.entry(key.clone()).or_insert_with(|| Matcher::new(&key.0, key.1, key.2, key.3).ok()).clone()
    }) else {
        return;
    };
    let line: Vec<u8> = if input.encoding == 255 {
        input.raw.to_vec()
    } else {
        let s = encode(input.text, input.encoding, input.choices);
        format!("{{\"event\":\"e\",\"data\":{{\"s\":\"{s}\",\"{s}\":[1,\"{s}\"]}}}}").into_bytes()
    };
    let line_ok = m.prefilter().may_match(&line);
    let mut idx = Index::new();
    let Ok(rec) = idx.parse(&line) else {
        return;
    };
    if input.encoding != 255 {
        assert_eq!(
            decode_str(encode(input.text, input.encoding, input.choices).as_bytes()).as_deref(),
            Some(input.text)
        );
    }
    let context = usize::from(input.context % 50);
    strings(&rec, &Scope::new(&[]), input.keys, &mut |found| {
        let Some(text) = decode_str(found.raw) else {
            return true;
        };
        for hit in m.regex().find_iter(&text) {
            if !hit.is_empty() {
                assert!(line_ok, "pre-check skipped a line matching at {}: {:?}", found.path, hit.as_str());
                assert!(
                    m.prefilter().may_match(found.raw),
                    "pre-check skipped the string {}: {:?}",
                    found.path,
                    hit.as_str()
                );
            }
            check_snippet(&text, hit.start(), hit.end(), context);
        }
        true
    });
});

fn check_snippet(text: &str, start: usize, end: usize, context: usize) {
    let sn = Snippet::new(text, start, end, context);
    let whole = &text[start..end];
    assert!(whole.starts_with(sn.matched));
    if sn.cut_match {
        assert_eq!(sn.matched.chars().count(), MAX_MATCH_CHARS);
        assert!(sn.after.is_empty() && sn.cut_after);
    } else {
        assert_eq!(sn.matched, whole);
        assert!(text[end..].starts_with(sn.after));
        assert_eq!(sn.cut_after, sn.after.len() < text.len() - end);
    }
    assert!(text[..start].ends_with(sn.before));
    assert_eq!(sn.cut_before, sn.before.len() < start);
    assert!(sn.before.chars().count() <= context && sn.after.chars().count() <= context);
    let rendered = sn.render();
    assert!(!rendered.chars().any(|c| c.is_control() && (c as u32) < 0xa0), "{rendered:?}");
    let mut shown = String::new();
    escape_into(&mut shown, sn.matched);
    assert!(rendered.contains(&shown));
    assert!(sn.match_text().starts_with(sn.matched));
}
