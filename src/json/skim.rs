//! A structural skim: the end of a JSON object or array found without
//! validating what is inside it.
//!
//! Jobs that decide on a record's envelope (`event`, `workspace`, `timestamp`)
//! must not pay for its `data`, which holds almost all the bytes (97% of a
//! real capture sits in `llm:request` payloads). [`skip_container`] finds the
//! bracket that closes a container 64 bytes at a time, the way simdjson's
//! first stage does: bit masks of quotes, backslashes and brackets; escaped
//! characters from runs of backslashes; the inside of strings as a prefix XOR
//! of the unescaped quotes; then only brackets outside strings are counted.
//! No work is done per escape, so text dense with `\uXXXX` escapes skims as
//! fast as plain text.
//!
//! What the skim checks: strings are closed, brackets outside strings balance
//! (an opening bracket of either kind against a closing one of either kind),
//! and the line does not end inside the container. A torn line almost always
//! fails these. What it does not check: the grammar inside (escapes, numbers,
//! commas, colons, control characters, nesting depth) — [`fn@crate::json::validate`]
//! does, for the lines a tool goes on to use.
//!
//! The trusted walk lives here too: [`skip_trusted`] and [`string_end`] step
//! over a value inside a line that was already validated ([`super::Raw::get`],
//! [`super::Raw::members`]), trusting the grammar but never panicking.

use memchr::memchr2;

use super::error::ParseError;
use super::simd::{self, block_at, escaped, prefix_xor, Classify, Scan, BLOCK};

/// One past the bracket that closes the object or array opening at `b[i]`.
///
/// Fails with [`ParseError::UnexpectedEnd`] when the line ends first (inside
/// a string or with brackets open) and with a syntax error when a closing
/// bracket outside strings has no opening one. Never panics; `b[i]` must be
/// `{` or `[` for a meaningful answer.
pub fn skip_container(b: &[u8], i: usize) -> Result<usize, ParseError> {
    simd::with_popcnt(Skip { b, i })
}

/// [`skip_container`] as a block scan, for every classifier.
struct Skip<'a> {
    b: &'a [u8],
    i: usize,
}

impl Scan for Skip<'_> {
    type Out = Result<usize, ParseError>;

    #[inline(always)]
    fn run<C: Classify>(self, c: C) -> Self::Out {
        skip(c, self.b, self.i)
    }
}

/// [`skip_container`] with the classifier `c`.
#[inline(always)]
fn skip<C: Classify>(c: C, b: &[u8], i: usize) -> Result<usize, ParseError> {
    let mut prev_escaped = 0u64;
    let mut in_string = 0u64;
    let mut depth: u64 = 0;
    let mut at = i;
    let mut pad = [b' '; BLOCK];
    while at < b.len() {
        let block = block_at(b, at, &mut pad);
        let m = c.structure(block);
        let esc = escaped(m.backslash, &mut prev_escaped);
        let quotes = m.quote & !esc;
        let inside = prefix_xor(quotes) ^ in_string;
        in_string = ((inside as i64) >> 63) as u64;
        let open = m.open & !inside;
        let close = m.close & !inside;
        let closes = u64::from(close.count_ones());
        if depth > closes {
            // This block cannot close the container: count and move on.
            depth = depth + u64::from(open.count_ones()) - closes;
        } else {
            let mut brackets = open | close;
            while brackets != 0 {
                let k = brackets.trailing_zeros();
                let bit = 1u64 << k;
                if open & bit != 0 {
                    depth += 1;
                } else {
                    match depth.checked_sub(1) {
                        Some(0) => return Ok(at + k as usize + 1),
                        Some(d) => depth = d,
                        None => return Err(ParseError::Syntax(at + k as usize, "unbalanced bracket")),
                    }
                }
                brackets &= brackets - 1;
            }
        }
        at += BLOCK;
    }
    Err(ParseError::UnexpectedEnd)
}

/// One past the closing quote of the (trusted) string at `i`.
#[inline]
pub(crate) fn string_end(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    loop {
        let k = memchr2(b'"', b'\\', b.get(j..)?)?;
        j += k;
        if b[j] == b'"' {
            return Some(j + 1);
        }
        j += 2;
    }
}

/// One past the end of the (trusted) value at `i`.
#[inline]
pub(crate) fn skip_trusted(b: &[u8], i: usize) -> Option<usize> {
    match *b.get(i)? {
        b'"' => string_end(b, i),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            loop {
                match *b.get(j)? {
                    b'"' => {
                        j = string_end(b, j)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth = depth.checked_sub(1)?;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
        }
        _ => {
            let mut j = i;
            while let Some(c) = b.get(j) {
                if matches!(c, b',' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n') {
                    break;
                }
                j += 1;
            }
            Some(j)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn end_by_serde(s: &str) -> usize {
        let mut de = serde_json::Deserializer::from_str(s).into_iter::<serde_json::Value>();
        de.next().unwrap().unwrap();
        de.byte_offset()
    }

    #[test]
    fn finds_the_closing_bracket() {
        let cases = [
            r#"{}"#,
            r#"[]"#,
            r#"{"a":"}"}"#,
            r#"{"a":"\"}"}"#,
            r#"{"a":"\\"}"#,
            r#"{"a":"\\\"}\\"}"#,
            r#"{"a":[1,{"b":"]]]"}],"c":"{{{"}"#,
            r#"{"x":"caf\u00e9 \ud83d\ude80 \\\\\\\" ]"}"#,
        ];
        for c in cases {
            let line = format!("{c} tail");
            assert_eq!(skip_container(line.as_bytes(), 0), Ok(c.len()), "{c}");
        }
    }

    #[test]
    fn across_block_boundaries() {
        // Escapes, quotes and brackets straddling every offset of a block.
        for pad in 0..140 {
            for tricky in [r#"\\"#, r#"\""#, r#"\\\""#, r#"]}"#, r#"\u00e9"#] {
                let s = format!(r#"{{"k":"{}{}","l":[{{}}]}}"#, "x".repeat(pad), tricky);
                assert_eq!(skip_container(s.as_bytes(), 0), Ok(s.len()), "{s}");
            }
        }
    }

    #[test]
    fn torn_and_unbalanced() {
        assert_eq!(skip_container(br#"{"a":"x"#, 0), Err(ParseError::UnexpectedEnd));
        assert_eq!(skip_container(br#"{"a":[1,2"#, 0), Err(ParseError::UnexpectedEnd));
        assert_eq!(skip_container(br#"{"a":"\"}"#, 0), Err(ParseError::UnexpectedEnd));
        assert!(matches!(skip_container(b"}", 0), Err(ParseError::Syntax(0, _))));
    }

    /// Every line of every fixture file: the skim indexes valid lines exactly
    /// as the validating parse does, and refuses what it refuses (all the
    /// fixtures' damage is structural).
    #[test]
    fn skim_agrees_with_parse_on_the_fixtures() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let mut files = vec![];
        let mut dirs = vec![root];
        while let Some(d) = dirs.pop() {
            for e in std::fs::read_dir(d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    dirs.push(p);
                } else if p.extension().is_some_and(|x| x == "jsonl") {
                    files.push(p);
                }
            }
        }
        assert!(files.len() > 10);
        let (mut a, mut b) = (crate::json::Index::new(), crate::json::Index::new());
        let mut lines = 0;
        for f in files {
            for line in std::fs::read(&f).unwrap().split(|&c| c == b'\n') {
                lines += 1;
                let members = |r: crate::json::Record<'_>| {
                    r.members().map(|(k, v)| (k.to_vec(), v.bytes().to_vec())).collect::<Vec<_>>()
                };
                match (a.parse(line), b.skim(line)) {
                    (Ok(p), Ok(s)) => {
                        assert_eq!(members(p), members(s), "{}", f.display());
                        assert_eq!(p.close(), s.close());
                        assert!(p.is_validated() && !s.is_validated());
                    }
                    (Err(p), Err(s)) => assert_eq!(p, s, "{}", f.display()),
                    (p, s) => panic!("{}: parse {:?} skim {:?}", f.display(), p.is_ok(), s.is_ok()),
                }
            }
        }
        assert!(lines > 80);
    }

    fn json_value() -> impl Strategy<Value = serde_json::Value> {
        let leaf = prop_oneof![
            Just(serde_json::Value::Null),
            any::<bool>().prop_map(serde_json::Value::Bool),
            any::<i64>().prop_map(|n| serde_json::json!(n)),
            "[\\\\\"{}\\[\\]a-z\u{e9}\u{1F680} ]{0,80}".prop_map(serde_json::Value::String),
        ];
        leaf.prop_recursive(5, 64, 8, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..8).prop_map(serde_json::Value::Array),
                proptest::collection::btree_map("[a-z\"\\\\{]{0,6}", inner, 0..8)
                    .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn agrees_with_serde_on_valid_json(v in json_value(), ascii in any::<bool>()) {
            let wrapped = serde_json::json!({ "data": v });
            let mut s = serde_json::to_string(&wrapped).unwrap();
            if ascii {
                // Canonical writers escape all non-ASCII.
                s = s.chars().map(|c| if c.is_ascii() { c.to_string() } else {
                    c.encode_utf16(&mut [0; 2]).iter().map(|u| format!("\\u{u:04x}")).collect()
                }).collect();
            }
            let end = end_by_serde(&s);
            prop_assert_eq!(skip_container(s.as_bytes(), 0), Ok(end));
            // Every classifier skims alike.
            let b = s.as_bytes();
            prop_assert_eq!(skip(crate::json::simd::Scalar, b, 0), Ok(end));
            prop_assert_eq!(skip(crate::json::simd::Swar::new(), b, 0), Ok(end));
            prop_assert_eq!(skip(crate::json::simd::Baseline::new(), b, 0), Ok(end));
        }

        #[test]
        fn never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..300), start in 0usize..10) {
            let _ = skip_container(&bytes, start);
        }
    }
}
