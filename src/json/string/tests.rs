use super::*;

/// Every escape the grammar has, and some it has not: [`escape_at`]
/// decodes exactly what serde_json decodes, to the same character.
#[test]
fn escape_at_decodes_as_serde_json() {
    let cases = [
        r#"\""#,
        r"\\",
        r"\/",
        r"\b",
        r"\f",
        r"\n",
        r"\r",
        r"\t",
        r"\u0041",
        r"\u00e9",
        r"\u4E2D",
        r"\uffff",
        r"\ud83d\ude80",
        r"\uDBFF\uDFFF",
        r"\ud800\udc00",
        r"\q",
        r"\u12",
        r"\u12g4",
        r"\uDC00",
        r"\ud83d",
        r"\ud83d\u0041",
        r"\ud83d\\ude80",
        r"\ud83d\ud83d",
        r"\",
        r"\u",
    ];
    for case in cases {
        let serde = serde_json::from_str::<String>(&format!("\"{case}\"")).ok();
        let ours = escape_at(case.as_bytes(), 0)
            .filter(|&(_, used)| used == case.len())
            .and_then(|(cp, _)| char::from_u32(cp))
            .map(String::from);
        assert_eq!(ours, serde, "{case}");
    }
}

#[test]
fn hex4_takes_exactly_four_hex_digits() {
    assert_eq!(hex4(b"09aF"), Some(0x09af));
    assert_eq!(hex4(b"ffff"), Some(0xffff));
    for bad in [&b"09a"[..], b"09aF0", b"09ag", b"09a\xc6", b"-001", b" 001"] {
        assert_eq!(hex4(bad), None, "{bad:?}");
    }
}

proptest::proptest! {
    /// The block scan of long strings agrees with the scalar scan on every
    /// input: same end, same error and position.
    #[test]
    fn block_and_scalar_string_scans_agree(
        parts in proptest::collection::vec(proptest::sample::select(vec![
            "x", "ab", "é", r"\\", r#"\""#, r"\", r"\u00e9", r"\u4E2D", r"\ud83d\ude80", r"\uDC00", r"\ud83d",
            r"\u12", r"\uzz00", r"\q", r"\/", r"\n", r"\t", r"\b\f\r", r"\\\", r"\u", r"\ud8", r"\uD",
            r"\uD800\u0041", r"\u00", "\t", r"\\u0041", "\"", r"\uD55c", r"\udbff\udfff", r"\ud83d\\ude80",
        ]), 0..120),
        pad in 0usize..70,
        close in proptest::bool::ANY,
    ) {
        let mut s = format!("\"{}", "p".repeat(pad));
        for p in &parts {
            s.push_str(p);
        }
        if close {
            s.push_str("\" tail");
        }
        let b = s.as_bytes();
        proptest::prop_assert_eq!(string_checked(b, 0), string_from(b, 0, usize::MAX), "{}", s);
    }
}
