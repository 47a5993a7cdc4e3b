use super::*;

fn lit(s: &str) -> Vec<Position> {
    s.chars().map(|c| vec![c]).collect()
}

fn line(content: &str) -> Vec<u8> {
    format!("{{\"data\":{{\"k\":\"{content}\"}},\"event\":\"e\"}}").into_bytes()
}

#[test]
fn plain_literal_is_found_raw_and_behind_escapes() {
    let p = Prefilter::new(&[lit("tool")], false);
    assert!(p.may_match(&line("a tool here")));
    assert!(!p.may_match(&line("a to\\u00e9l here")));
    assert!(p.may_match(&line("a to\\u006Fl here")));
    assert!(p.may_match(&line("a \\u0074ool here")));
    assert!(!p.may_match(&line("a TOOL here")));
    assert!(!p.may_match(&line("caf\\u00e9 \\u65e5")));
}

#[test]
fn non_ascii_literal_needs_one_of_its_encodings() {
    let p = Prefilter::new(&[lit("café")], false);
    assert!(p.may_match(&line("caf\\u00e9")));
    assert!(p.may_match(&line("caf\\u00E9")));
    assert!(p.may_match(&line("café")));
    assert!(!p.may_match(&line("cafe \\u00e8")));
    let p = Prefilter::new(&[lit("日本語")], false);
    assert!(p.may_match(&line("\\u65e5\\u672c\\u8a9e")));
    assert!(!p.may_match(&line("\\u65e5 only")));
    let p = Prefilter::new(&[lit("🚀")], false);
    assert!(p.may_match(&line("\\ud83d\\ude80")));
    assert!(p.may_match(&line("🚀")));
}

#[test]
fn quotes_backslashes_and_newlines() {
    let p = Prefilter::new(&[lit("\"quoted\"")], false);
    assert!(p.may_match(&line("a \\\"quoted\\\" b")));
    assert!(!p.may_match(&line("a quoted b")));
    // The user's literal `\u00e9` (six characters) is stored as `\\u00e9`.
    let p = Prefilter::new(&[lit("\\u00e9")], false);
    assert!(!p.may_match(&line("caf\\u00e9")));
    assert!(p.may_match(&line("caf\\\\u00e9")));
    let p = Prefilter::new(&[lit("a\nb")], false);
    assert!(p.may_match(&line("a\\nb")));
    assert!(p.may_match(&line("a\\u000Ab")));
}

#[test]
fn alternatives_and_everything() {
    let p = Prefilter::new(&[lit("alpha"), lit("beta")], false);
    assert!(p.may_match(&line("x beta")));
    assert!(!p.may_match(&line("gamma")));
    assert!(Prefilter::new(&[lit("alpha"), vec![]], false).is_everything());
}

#[test]
fn printable_ascii_escape_scan() {
    assert!(has_printable_ascii_escape(b"xx\\u0041"));
    assert!(has_printable_ascii_escape(b"\\u007e"));
    assert!(!has_printable_ascii_escape(b"\\u001b \\u00e9 \\u0080 \\u00"));
    let mut long = vec![b'a'; 10_000];
    long.extend_from_slice(b"\\u0065");
    assert!(has_printable_ascii_escape(&long));
    long.truncate(9_000);
    assert!(!has_printable_ascii_escape(&long));
}

#[test]
fn windows_respect_the_string_budget() {
    let digits: Position = ('0'..='9').collect();
    let ps = vec![digits.clone(), digits.clone(), digits.clone(), vec!['x']];
    assert_eq!(plain_windows(&ps, false), [(2, 4)]);
    let ps: Vec<Position> = "\"ab\"cdef\"g\"".chars().map(|c| vec![c]).collect();
    assert_eq!(plain_windows(&ps, false), [(4, 8), (1, 3)]);
}

mod property {
    use proptest::prelude::*;

    use crate::json::{decode_str, Index};
    use crate::search::Matcher;

    /// Characters that stress every encoding rule: ASCII letters with
    /// non-ASCII case partners (K/k/KELVIN SIGN, s/ſ), `/` (`\/`),
    /// characters that must be escaped, DEL, Latin-1, CJK, astral.
    const ALPHABET: &[char] = &[
        'a', 'b', 'A', 'k', 'K', '\u{212a}', 's', 'S', '\u{17f}', '/', ' ', '0', '"', '\\', '\n', '\t', '\u{1b}',
        '\u{7f}', 'é', 'É', 'ü', 'Ü', 'ß', '\u{1e9e}', '日', '本', '🚀', 'ж', 'Ж',
    ];

    /// Encodes one character as a writer might, chosen by `how`: the
    /// shortest form, ASCII-only (`\u` for non-ASCII), or `\u` even for
    /// printable ASCII; hex digits in a case picked by `how`'s bits.
    fn encode(c: char, how: u8, out: &mut String) {
        let u = |out: &mut String| {
            let mut units = [0u16; 2];
            for (n, unit) in c.encode_utf16(&mut units).iter().enumerate() {
                let hex = format!("{unit:04x}");
                let hex: String = hex
                    .chars()
                    .enumerate()
                    .map(|(i, h)| if (how >> ((i + n) % 6 + 2)) & 1 == 1 { h.to_ascii_uppercase() } else { h })
                    .collect();
                out.push_str("\\u");
                out.push_str(&hex);
            }
        };
        let short = match c {
            '"' => Some("\\\""),
            '\\' => Some("\\\\"),
            '\n' => Some("\\n"),
            '\t' => Some("\\t"),
            '/' if how % 4 == 3 => Some("\\/"),
            _ => None,
        };
        match (how % 3, short) {
            (2, _) => u(out),
            (_, Some(s)) => out.push_str(s),
            (_, None) if (c as u32) < 0x20 => u(out),
            (1, None) if !c.is_ascii() => u(out),
            _ => out.push(c),
        }
    }

    fn case_variant(c: char, flip: bool) -> char {
        let m: Vec<char> = if flip { c.to_uppercase().collect() } else { c.to_lowercase().collect() };
        match m[..] {
            [x] => x,
            _ => c,
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// The pre-check never rejects a line whose decoded string
        /// contains a match, whatever the encoding of the line.
        #[test]
        fn never_rejects_a_decoded_match(
            text in prop::collection::vec((0..ALPHABET.len(), any::<u8>()), 1..24),
            range in (0usize..24, 1usize..8),
            fold in any::<u32>(),
            ci in any::<bool>(),
            word in any::<bool>(),
        ) {
            let chars: Vec<char> = text.iter().map(|&(i, _)| ALPHABET[i]).collect();
            let decoded: String = chars.iter().collect();
            let mut raw = String::new();
            for (&c, &(_, how)) in chars.iter().zip(&text) {
                encode(c, how, &mut raw);
            }
            let start = range.0 % chars.len();
            let end = (start + range.1).min(chars.len());
            let literal: String = chars[start..end]
                .iter()
                .enumerate()
                .map(|(i, &c)| if ci { case_variant(c, (fold >> (i % 32)) & 1 == 1) } else { c })
                .collect();
            let line = format!("{{\"data\":{{\"k\":\"{raw}\"}},\"event\":\"e\"}}");
            let mut idx = Index::new();
            prop_assert!(idx.parse(line.as_bytes()).is_ok(), "{}", line);
            prop_assert_eq!(decode_str(raw.as_bytes()).unwrap(), decoded.as_str());
            let m = Matcher::new(std::slice::from_ref(&literal), true, ci, word).unwrap();
            if m.regex().is_match(&decoded) {
                prop_assert!(m.prefilter().may_match(line.as_bytes()), "line {} literal {:?}", line, literal);
                prop_assert!(m.prefilter().may_match(raw.as_bytes()), "raw {} literal {:?}", raw, literal);
            }
            // Also as a regex with the literal between other pattern parts.
            let re = format!(r"(?:x|{})\b{{end-half}}|{}.?", regex::escape(&literal), regex::escape(&literal));
            let m = Matcher::new(&[re], false, ci, false).unwrap();
            if m.regex().is_match(&decoded) {
                prop_assert!(m.prefilter().may_match(line.as_bytes()), "line {} literal {:?}", line, literal);
            }
        }
    }
}
