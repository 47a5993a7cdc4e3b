use super::*;

type Got = (Vec<(String, u64, u64, u64, u64)>, Option<ArrayError>);

fn read(input: &[u8]) -> Got {
    let mut r = ElementReader::new(input);
    let mut out = vec![];
    loop {
        match r.next_element() {
            Ok(Some(e)) => out.push((String::from_utf8_lossy(e.bytes).into_owned(), e.index, e.line, e.offset, e.len)),
            Ok(None) => return (out, None),
            Err(ReadError::Array(e)) => {
                assert!(r.next_element().unwrap().is_none(), "ends after an error");
                return (out, Some(e));
            }
            Err(ReadError::Io(e)) => panic!("{e}"),
        }
    }
}

fn texts(input: &[u8]) -> (Vec<String>, Option<ArrayError>) {
    let (els, err) = read(input);
    (els.into_iter().map(|e| e.0).collect(), err)
}

#[test]
fn pretty_printed_elements_become_compact_lines() {
    let input = b"[\n  {\n    \"a\": \"x y\",\n    \"b\": [1, 2.50e3, true, null]\n  },\n  {\"c\": {}}\n]\n";
    let (els, err) = read(input);
    assert_eq!(err, None);
    assert_eq!(
        els,
        [(r#"{"a":"x y","b":[1,2.50e3,true,null]}"#.to_owned(), 1, 2, 4, 54), (r#"{"c":{}}"#.to_owned(), 2, 6, 62, 9),]
    );
}

#[test]
fn strings_keep_their_bytes_escapes_and_brackets() {
    let input = br#"[{"s":"a \"quoted\" ] } [ {, \\","u":"caf\u00e9 caf\xc3\xa9"}]"#;
    let (t, err) = texts(input);
    assert_eq!(err, None);
    assert_eq!(t, [r#"{"s":"a \"quoted\" ] } [ {, \\","u":"caf\u00e9 caf\xc3\xa9"}"#]);
}

#[test]
fn scalars_and_empty_arrays() {
    assert_eq!(texts(b""), (vec![], None));
    assert_eq!(texts(b"  \n "), (vec![], None));
    assert_eq!(texts(b"[]"), (vec![], None));
    assert_eq!(texts(b"\xEF\xBB\xBF[ ]\n"), (vec![], None));
    assert_eq!(
        texts(b"[1, \"two\" ,[3],-4e5]"),
        (vec!["1".into(), "\"two\"".into(), "[3]".into(), "-4e5".into()], None)
    );
}

#[test]
fn a_torn_file_names_the_cut_element() {
    let input = b"[\n  {\"a\": 1},\n  {\"b\": 2},\n  {\"c\": \"cut he";
    assert_eq!(
        texts(input),
        (vec![r#"{"a":1}"#.into(), r#"{"b":2}"#.into()], Some(ArrayError::Torn { element: 3, line: 4 }))
    );
    let e = ArrayError::Torn { element: 3, line: 4 };
    assert_eq!(e.site(), "element 3");
    assert!(e.to_string().contains("the 2 elements before it are read"), "{e}");
    // Cut right after a separator, or before any element.
    assert_eq!(texts(b"[{\"a\":1},\n"), (vec![r#"{"a":1}"#.into()], Some(ArrayError::Unclosed { after: 1, line: 2 })));
    assert_eq!(texts(b"[\n"), (vec![], Some(ArrayError::Unclosed { after: 0, line: 2 })));
}

#[test]
fn what_is_not_an_array_is_said_so() {
    assert_eq!(texts(b"\n{\"a\":1}\n"), (vec![], Some(ArrayError::NotArray { line: 2 })));
    assert_eq!(texts(b"[{}] x"), (vec!["{}".into()], Some(ArrayError::Trailing { line: 1 })));
    assert_eq!(texts(b"[{} {}]"), (vec!["{}".into()], Some(ArrayError::Unexpected { after: 1, line: 1 })));
    assert_eq!(texts(b"[{},,{}]"), (vec!["{}".into()], Some(ArrayError::Unexpected { after: 1, line: 1 })));
    assert_eq!(texts(b"[,{}]"), (vec![], Some(ArrayError::Unexpected { after: 0, line: 1 })));
}

#[test]
fn a_raw_newline_in_a_string_stays_out_of_the_line() {
    let (els, err) = read(b"[{\"a\":\"x\ny\"},\n{}]");
    assert_eq!(err, None);
    assert_eq!(els[0].0, "{\"a\":\"x\ry\"}");
    assert_eq!((els[1].1, els[1].2), (2, 3));
}

#[test]
fn seeking_returns_the_same_element() {
    let input = b"[\n {\"a\": 1},\n {\"b\": [2,\n 3]},\n {\"c\": 3}\n]".to_vec();
    let (els, _) = read(&input);
    let mut r = ElementReader::new(io::Cursor::new(input.clone()));
    for e in els.iter().rev() {
        r.seek_element(e.3, e.2, e.1, e.4).unwrap();
        let got = r.next_element().unwrap().unwrap();
        assert_eq!(
            (String::from_utf8_lossy(got.bytes).into_owned(), got.index, got.line, got.offset, got.len),
            e.clone()
        );
    }
}

/// A cursor that counts the bytes read through it.
struct Counted(io::Cursor<Vec<u8>>, u64);

impl Read for Counted {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let n = self.0.read(out)?;
        self.1 += n as u64;
        Ok(n)
    }
}

impl Seek for Counted {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        self.0.seek(to)
    }
}

#[test]
fn a_seek_with_a_span_reads_about_the_span() {
    let big = format!(r#"[{{"pad":"{}"}},{{"a":1}},{{"pad":"{}"}}]"#, "x".repeat(BUF * 2), "y".repeat(BUF * 2));
    let (els, _) = read(big.as_bytes());
    let e = &els[1];
    let mut r = ElementReader::new(Counted(io::Cursor::new(big.into_bytes()), 0));
    r.seek_element(e.3, e.2, e.1, e.4).unwrap();
    assert_eq!(r.next_element().unwrap().unwrap().bytes, br#"{"a":1}"#);
    assert_eq!(r.rdr.1, e.4, "only the element's bytes were read");
}

/// The members of a nested array, each with its own line, offset and
/// length, read back from their site like any element.
#[test]
fn members_of_a_nested_array_are_elements() {
    let doc = b"{\n  \"sessionId\": \"s\",\n  \"tags\": {\"messages\": [9]},\n  \"note\": \"a \\\"messages\\\": [\",\n  \"messages\": [\n    {\n      \"id\": \"u\"\n    },\n    {\"id\": \"g\", \"n\": [1, 2]}\n  ],\n  \"kind\": \"main\"\n}\n";
    let mut r = ElementReader::nested(std::io::Cursor::new(&doc[..]), "messages");
    let mut got = Vec::new();
    while let Some(el) = r.next_element().unwrap() {
        let raw = &doc[el.offset as usize..(el.offset + el.len) as usize];
        got.push((String::from_utf8(el.bytes.to_vec()).unwrap(), el.line, raw.first().copied(), raw.last().copied()));
    }
    assert_eq!(
        got,
        [
            (r#"{"id":"u"}"#.to_owned(), 6, Some(b'{'), Some(b'}')),
            (r#"{"id":"g","n":[1,2]}"#.to_owned(), 9, Some(b'{'), Some(b'}')),
        ]
    );
    for (doc, key) in [(&b"{\"a\": 1}"[..], "messages"), (b"{\"messages\": 3}", "messages"), (b"", "messages")] {
        let mut r = ElementReader::nested(std::io::Cursor::new(doc), key);
        assert!(r.next_element().unwrap().is_none());
    }
    let mut r = ElementReader::nested(std::io::Cursor::new(&b"[1]"[..]), "messages");
    assert!(matches!(r.next_element(), Err(ReadError::Array(ArrayError::NotArray { line: 1 }))));
    let mut r = ElementReader::nested(std::io::Cursor::new(&b"{\"messages\": [{\"id\":"[..]), "messages");
    assert!(matches!(r.next_element(), Err(ReadError::Array(ArrayError::Torn { element: 1, line: 1 }))));
}
