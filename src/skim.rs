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
//! commas, colons, control characters, nesting depth) — [`crate::json::validate`]
//! does, for the lines a tool goes on to use.

use crate::json::ParseError;

/// Bytes per block.
pub(crate) const BLOCK: usize = 64;

/// The masks of one 64-byte block: bit `k` is byte `k`.
struct Masks {
    quote: u64,
    backslash: u64,
    open: u64,
    close: u64,
}

/// Classifies 64 bytes (SSE2 on x86_64, where it is always available).
#[inline(always)]
fn masks(block: &[u8; BLOCK]) -> Masks {
    #[cfg(target_arch = "x86_64")]
    {
        sse2_masks(block)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        scalar_masks(block)
    }
}

#[cfg(any(test, not(target_arch = "x86_64")))]
fn scalar_masks(block: &[u8; BLOCK]) -> Masks {
    let mut m = Masks { quote: 0, backslash: 0, open: 0, close: 0 };
    for (k, &c) in block.iter().enumerate() {
        let bit = 1u64 << k;
        match c {
            b'"' => m.quote |= bit,
            b'\\' => m.backslash |= bit,
            b'{' | b'[' => m.open |= bit,
            b'}' | b']' => m.close |= bit,
            _ => {}
        }
    }
    m
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn sse2_masks(block: &[u8; BLOCK]) -> Masks {
    use std::arch::x86_64::*;
    // SAFETY: SSE2 is part of the x86_64 baseline, so these intrinsics are
    // always available; every load reads 16 bytes at offset 0, 16, 32 or 48 of
    // a 64-byte array (unaligned loads are allowed by `_mm_loadu_si128`).
    unsafe {
        let quote = _mm_set1_epi8(b'"' as i8);
        let backslash = _mm_set1_epi8(b'\\' as i8);
        // `{` 0x7B and `[` 0x5B differ only in bit 0x20, as do `}` and `]`.
        let case = _mm_set1_epi8(0x20);
        let open = _mm_set1_epi8(b'{' as i8);
        let close = _mm_set1_epi8(b'}' as i8);
        let mut m = Masks { quote: 0, backslash: 0, open: 0, close: 0 };
        for k in 0..4 {
            let v = _mm_loadu_si128(block.as_ptr().add(16 * k) as *const __m128i);
            let folded = _mm_or_si128(v, case);
            let bits = |x: __m128i| u64::from(_mm_movemask_epi8(x) as u16) << (16 * k);
            m.quote |= bits(_mm_cmpeq_epi8(v, quote));
            m.backslash |= bits(_mm_cmpeq_epi8(v, backslash));
            m.open |= bits(_mm_cmpeq_epi8(folded, open));
            m.close |= bits(_mm_cmpeq_epi8(folded, close));
        }
        m
    }
}

/// The 64 bytes of `b` at `at` (`at < b.len()`), or what is left of them
/// padded with spaces (which are neither quotes, backslashes, brackets nor
/// control characters) in `pad`.
#[inline(always)]
pub(crate) fn block_at<'a>(b: &'a [u8], at: usize, pad: &'a mut [u8; BLOCK]) -> &'a [u8; BLOCK] {
    match b.get(at..at + BLOCK).and_then(|s| s.try_into().ok()) {
        Some(full) => full,
        None => {
            let rest = b.get(at..).unwrap_or(&[]);
            pad[..rest.len()].copy_from_slice(rest);
            pad[rest.len()..].fill(b' ');
            pad
        }
    }
}

/// Characters escaped by a backslash, given the block's backslashes and
/// whether the previous block ended with an unfinished escape (simdjson's
/// branchless odd-run rule: in a run of backslashes, every second one is
/// escaped, and the character after an odd-length run is).
#[inline(always)]
pub(crate) fn escaped(backslash: u64, prev_escaped: &mut u64) -> u64 {
    const EVEN: u64 = 0x5555_5555_5555_5555;
    let backslash = backslash & !*prev_escaped;
    if backslash & (backslash << 1) == 0 {
        // No two backslashes in a row (the common case: `\u`, `\n`): each
        // escapes the character after it.
        let escaped = (backslash << 1) | *prev_escaped;
        *prev_escaped = backslash >> 63;
        return escaped;
    }
    let follows_escape = (backslash << 1) | *prev_escaped;
    let odd_starts = backslash & !EVEN & !follows_escape;
    let (on_even, overflow) = odd_starts.overflowing_add(backslash);
    *prev_escaped = u64::from(overflow);
    let invert = on_even << 1;
    (EVEN ^ invert) & follows_escape
}

/// XOR of all lower bits: 1 from an opening quote up to (not including) its
/// closing quote.
#[inline(always)]
fn prefix_xor(mut x: u64) -> u64 {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    x
}

/// One past the bracket that closes the object or array opening at `b[i]`.
///
/// Fails with [`ParseError::UnexpectedEnd`] when the line ends first (inside
/// a string or with brackets open) and with a syntax error when a closing
/// bracket outside strings has no opening one. Never panics; `b[i]` must be
/// `{` or `[` for a meaningful answer.
pub fn skip_container(b: &[u8], i: usize) -> Result<usize, ParseError> {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("popcnt") {
            // SAFETY: the CPU supports the one feature the function enables.
            return unsafe { skip_popcnt(b, i) };
        }
    }
    skip(b, i)
}

/// [`skip`] compiled with the `popcnt` instruction, which the x86_64 baseline
/// lacks (a software popcount per block costs a third of the skim).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
unsafe fn skip_popcnt(b: &[u8], i: usize) -> Result<usize, ParseError> {
    skip(b, i)
}

#[inline(always)]
fn skip(b: &[u8], i: usize) -> Result<usize, ParseError> {
    let mut prev_escaped = 0u64;
    let mut in_string = 0u64;
    let mut depth: u64 = 0;
    let mut at = i;
    let mut pad = [b' '; BLOCK];
    while at < b.len() {
        let block = block_at(b, at, &mut pad);
        let m = masks(block);
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

    #[test]
    fn sse2_and_scalar_masks_agree() {
        let mut block = [0u8; BLOCK];
        for seed in 0..200u32 {
            for (k, b) in block.iter_mut().enumerate() {
                let alphabet = b"\"\\{}[]ax \x7b\x5b\x7d\x5d\xfb\xdb\x00";
                *b = alphabet[((seed as usize * 31 + k * 7) ^ (k >> 2)) % alphabet.len()];
            }
            let (a, b) = (masks(&block), scalar_masks(&block));
            assert_eq!((a.quote, a.backslash, a.open, a.close), (b.quote, b.backslash, b.open, b.close));
        }
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
        }

        /// The odd-run rule (with its fast path for lone backslashes) against
        /// a walk of the block byte by byte, over chains of blocks: dense
        /// masks give runs of every length, sparse ones lone backslashes.
        #[test]
        fn escaped_as_a_byte_walk(blocks in proptest::collection::vec((any::<u64>(), any::<u64>()), 1..8)) {
            let (mut prev, mut pending) = (0u64, false);
            for (a, b) in blocks {
                let backslash = if b % 3 == 0 { a & b } else { a };
                let mut want = 0u64;
                for k in 0..64 {
                    if pending {
                        want |= 1 << k;
                        pending = false;
                    } else if backslash >> k & 1 == 1 {
                        pending = true;
                    }
                }
                prop_assert_eq!(escaped(backslash, &mut prev), want);
                prop_assert_eq!(prev, u64::from(pending));
            }
        }

        #[test]
        fn never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..300), start in 0usize..10) {
            let _ = skip_container(&bytes, start);
        }
    }
}
