use super::*;

/// A kind whose record is the document wrapped with its file name; a
/// document that does not start with `{` is refused.
static WRAP: Document = Document {
    writer: "test",
    name: "wrap",
    record: |path, doc, out| {
        if !doc.starts_with(b"{") {
            return Err("not an object".into());
        }
        let name = path.file_name().unwrap().to_string_lossy();
        out.extend_from_slice(format!("{{\"file\":\"{name}\",\"doc\":").as_bytes());
        out.extend_from_slice(doc);
        out.push(b'}');
        Ok(())
    },
};

fn compacted(doc: &str) -> String {
    let mut out = Vec::new();
    compact(doc.as_bytes(), &mut out);
    String::from_utf8(out).unwrap()
}

#[test]
fn compacting_keeps_strings_and_drops_the_whitespace_between_tokens() {
    assert_eq!(
        compacted("\u{feff}{\n  \"a b\": [1, 2],\n\t\"c\": \"x \\\" y\"\r\n}\n"),
        r#"{"a b":[1,2],"c":"x \" y"}"#
    );
    assert_eq!(compacted("{\"a\": \"line\nbreak\"}"), "{\"a\":\"line\rbreak\"}");
    assert_eq!(compacted("{\"a\": \"\\\\\" , \"b\" : 1}"), r#"{"a":"\\","b":1}"#);
}

#[test]
fn a_document_is_one_record_whose_site_is_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("d.json");
    std::fs::write(&path, "{\n  \"k\": 1\n}\n").unwrap();
    let diag = crate::diag::Diag::new("t", false);
    let mut src = source(&path, "d.json", &diag, &WRAP);
    let line = src.next_line().unwrap().unwrap();
    assert_eq!(std::str::from_utf8(line.bytes).unwrap(), r#"{"file":"d.json","doc":{"k":1}}"#);
    assert_eq!((line.number, line.terminated, line.too_long), (1, true, false));
    assert_eq!(line.site, Site { offset: 0, len: 13, framing: Framing::Document(&WRAP) });
    assert!(src.next_line().unwrap().is_none());
    assert_eq!(src.line_number(), 1);
}

#[test]
fn a_refused_document_is_its_compacted_bytes_and_a_missing_file_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.json");
    std::fs::write(&path, "not json\n").unwrap();
    let mut out = Vec::new();
    assert_eq!(read(&path, &WRAP, &mut out).unwrap(), Some(9));
    assert_eq!(out, b"notjson");
    assert!(read(&dir.path().join("gone.json"), &WRAP, &mut out).is_err());
}
