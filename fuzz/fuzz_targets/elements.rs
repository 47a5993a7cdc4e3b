//! `elements::ElementReader` (hook-log arrays) over arbitrary bytes and
//! arbitrary read sizes.
//!
//! Property: nothing panics; the answer (elements with their numbers, lines,
//! offsets and lengths, and the array error) does not depend on the read
//! sizes (including `Interrupted` errors); no element holds a newline; after
//! an array error the reader returns `None`; and whenever `serde_json`
//! parses the input as an array, the reader returns no error and exactly its
//! elements, each parsing to serde's value, with its bytes on disk (offset,
//! length) parsing to the same value. With an element limit (issue 38), the
//! elements are the same ones, in the same places, except that one whose
//! compact form is longer than the limit comes back empty and `too_long`.
#![no_main]

use std::io::Read;

use arbitrary::Arbitrary;
use ci_tools::elements::{ArrayError, ElementReader, ReadError};
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
struct Input {
    /// Read sizes, cycled; 0 means one `Interrupted` error.
    chunks: Vec<u8>,
    bytes: Vec<u8>,
    /// An element limit (0 is clamped to 1).
    max: u8,
}

#[path = "common/chunky.rs"]
mod chunky;
use chunky::Chunky;

type Got = (Vec<(Vec<u8>, u64, u64, u64, u64)>, Option<ArrayError>);

/// Every element and the array error; with `max`, that element limit.
fn read_all(r: impl Read, max: Option<usize>) -> Got {
    let mut r = ElementReader::new(r);
    if let Some(m) = max {
        r.set_max_line(m);
    }
    let mut out = vec![];
    loop {
        match r.next_element() {
            Ok(Some(e)) => {
                assert!(!e.bytes.contains(&b'\n'), "one line per element");
                assert!(!e.too_long || e.bytes.is_empty(), "an element over the limit is not kept");
                out.push((e.bytes.to_vec(), e.index, e.line, e.offset, e.len));
            }
            Ok(None) => return (out, None),
            Err(ReadError::Array(e)) => {
                assert!(matches!(r.next_element(), Ok(None)), "ends after an error");
                return (out, Some(e));
            }
            Err(ReadError::Io(e)) => panic!("no I/O error: {e}"),
        }
    }
}

fuzz_target!(|input: Input| {
    let whole = read_all(input.bytes.as_slice(), None);
    let chunky = Chunky { data: &input.bytes, chunks: &input.chunks, k: 0, interrupted: false };
    assert_eq!(read_all(chunky, None), whole, "read sizes do not matter");
    let max = usize::from(input.max).max(1);
    let mut limited = whole.clone();
    for el in &mut limited.0 {
        if el.0.len() > max {
            el.0.clear();
        }
    }
    let chunky = Chunky { data: &input.bytes, chunks: &input.chunks, k: 0, interrupted: false };
    assert_eq!(read_all(chunky, Some(max)), limited, "only elements over the limit are left out");
    for (i, (_, index, ..)) in whole.0.iter().enumerate() {
        assert_eq!(*index, i as u64 + 1);
    }
    if let Ok(serde_json::Value::Array(items)) = serde_json::from_slice::<serde_json::Value>(&input.bytes) {
        assert_eq!(whole.1, None, "a valid array has no array error");
        assert_eq!(whole.0.len(), items.len());
        for ((bytes, _, _, offset, len), v) in whole.0.iter().zip(&items) {
            assert_eq!(&serde_json::from_slice::<serde_json::Value>(bytes).expect("element parses"), v);
            let on_disk = &input.bytes[*offset as usize..(*offset + *len) as usize];
            assert_eq!(&serde_json::from_slice::<serde_json::Value>(on_disk).expect("on disk parses"), v);
        }
    }
});
