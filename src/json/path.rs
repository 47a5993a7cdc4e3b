//! Field paths: the one grammar of `--fields`, `--where`, `--by` and metric
//! paths (and ci-grep's `--field`).
//!
//! ```text
//! path  := ["."] key ("." key | "[" digits "]")*
//! key   := bare | "\"" chars with JSON escapes "\""
//! bare  := one or more characters other than whitespace, control characters
//!          and  . [ ] " ' = ! < > ~ & | ( )
//! ```
//!
//! `data.usage.output_tokens`, `data.raw.messages[0].role`, `.event`,
//! `data."odd.key"`, `data."a b"`. A key of decimal digits also indexes an
//! array (`messages.0` is `messages[0]`), as an index names an object key of
//! those digits: a path is a list of keys, resolved on the value it meets.
//! The characters a bare key may not hold are the ones a `--where`
//! expression uses around its paths, so a path reads the same in every flag.

use std::fmt;

/// A field path, parsed once when a flag is read ([`Path::parse`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Path {
    text: String,
    segments: Vec<String>,
}

/// A malformed path: what is wrong, at which 1-based column (in characters).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathError {
    /// 1-based column of the offending character (one past the end when missing).
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

/// Whether `c` may appear in a bare (unquoted) key.
pub fn is_bare(c: char) -> bool {
    !(c.is_whitespace()
        || c.is_control()
        || matches!(c, '.' | '[' | ']' | '"' | '\'' | '=' | '!' | '<' | '>' | '~' | '&' | '|' | '(' | ')'))
}

impl Path {
    /// Parses a whole path (a `--fields`, `--by` or metric value).
    pub fn parse(text: &str) -> Result<Path, String> {
        let t = text.trim();
        let chars: Vec<char> = t.chars().collect();
        let bad = |e: PathError| format!("invalid field path {t:?}: {} at column {}", e.message, e.column);
        if chars.is_empty() {
            return Err(format!("invalid field path {t:?}: empty (use a path like data.tool_name)"));
        }
        let (path, end) = Path::parse_at(&chars, 0).map_err(bad)?;
        match chars.get(end) {
            None => Ok(path),
            Some(&c) => Err(bad(PathError {
                column: end + 1,
                message: format!("unexpected character {c:?} (quote such a key: \"…\")"),
            })),
        }
    }

    /// Parses the path that starts at `chars[start]` and ends before the first
    /// character that cannot continue it; returns it and that end. For
    /// `--where`, where a path is followed by an operator.
    pub fn parse_at(chars: &[char], start: usize) -> Result<(Path, usize), PathError> {
        let err = |at: usize, message: &str| PathError { column: at + 1, message: message.to_owned() };
        let mut i = start;
        if chars.get(i) == Some(&'.') {
            i += 1;
        }
        let mut segments = vec![];
        loop {
            match chars.get(i) {
                Some('"') => {
                    let (key, end) = quoted(chars, i)?;
                    segments.push(key);
                    i = end;
                }
                Some(&c) if is_bare(c) => {
                    let s = i;
                    while chars.get(i).is_some_and(|&c| is_bare(c)) {
                        i += 1;
                    }
                    segments.push(chars[s..i].iter().collect());
                }
                _ if segments.is_empty() && i == start => return Err(err(i, "expected a field name")),
                _ => return Err(err(i, "expected a field name after '.'")),
            }
            while chars.get(i) == Some(&'[') {
                let open = i;
                i += 1;
                let s = i;
                while chars.get(i).is_some_and(char::is_ascii_digit) {
                    i += 1;
                }
                if i == s || chars.get(i) != Some(&']') {
                    return Err(err(open, "expected an array index like [0]"));
                }
                segments.push(chars[s..i].iter().collect());
                i += 1;
            }
            if chars.get(i) == Some(&'.') {
                i += 1;
                continue;
            }
            let text = chars[start..i].iter().collect();
            return Ok((Path { text, segments }, i));
        }
    }

    /// The path of `keys`, written so that [`Path::parse`] reads it back (a
    /// key is quoted when it is empty or holds a character a bare key may not).
    pub fn from_keys(keys: &[String]) -> Path {
        let mut text = String::new();
        for (i, k) in keys.iter().enumerate() {
            if i > 0 {
                text.push('.');
            }
            if !k.is_empty() && k.chars().all(is_bare) {
                text.push_str(k);
            } else {
                text.push_str(&serde_json::Value::String(k.clone()).to_string());
            }
        }
        Path { text, segments: keys.to_vec() }
    }

    /// The path as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The keys, in order (an array index as its digits).
    pub fn segments(&self) -> &[String] {
        &self.segments
    }

    /// The keys joined by dots (`data.raw.messages.0.role`), the form in
    /// which ci-grep names the fields it searches.
    pub fn dotted(&self) -> String {
        self.segments.join(".")
    }

    /// Whether the path looks inside `data`.
    pub fn in_data(&self) -> bool {
        self.segments.first().is_some_and(|s| s == "data")
    }
}

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Reads a `"…"` string with JSON escapes whose opening quote is
/// `chars[open]`; returns it and the index after the closing quote.
pub fn quoted(chars: &[char], open: usize) -> Result<(String, usize), PathError> {
    let err = |at: usize, message: &str| PathError { column: at, message: message.to_owned() };
    let mut i = open + 1;
    let mut s = String::new();
    loop {
        let Some(&c) = chars.get(i) else {
            return Err(err(open + 1, "unterminated string"));
        };
        i += 1;
        match c {
            '"' => return Ok((s, i)),
            '\\' => {
                let at = i;
                i += 1;
                match chars.get(at) {
                    Some('"') => s.push('"'),
                    Some('\\') => s.push('\\'),
                    Some('/') => s.push('/'),
                    Some('b') => s.push('\u{8}'),
                    Some('f') => s.push('\u{c}'),
                    Some('n') => s.push('\n'),
                    Some('r') => s.push('\r'),
                    Some('t') => s.push('\t'),
                    Some('u') => {
                        let (ch, end) = unicode_escape(chars, at).ok_or_else(|| err(at, "invalid \\u escape"))?;
                        s.push(ch);
                        i = end;
                    }
                    _ => return Err(err(at, "invalid escape in a \"…\" string (use '…' for regexes)")),
                }
            }
            _ => s.push(c),
        }
    }
}

/// `\uXXXX` (with a surrogate pair when needed) whose `u` is `chars[at]`;
/// the character and the index after the escape.
fn unicode_escape(chars: &[char], at: usize) -> Option<(char, usize)> {
    let hex4 = |i: usize| -> Option<u32> {
        let digits: String = chars.get(i..i + 4)?.iter().collect();
        u32::from_str_radix(&digits, 16).ok()
    };
    let hi = hex4(at + 1)?;
    let mut end = at + 5;
    let cp = if (0xD800..0xDC00).contains(&hi) {
        if chars.get(end..end + 2) != Some(&['\\', 'u']) {
            return None;
        }
        let lo = hex4(end + 2)?;
        if !(0xDC00..0xE000).contains(&lo) {
            return None;
        }
        end += 6;
        0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
    } else {
        hi
    };
    char::from_u32(cp).map(|c| (c, end))
}

#[cfg(test)]
mod tests;
