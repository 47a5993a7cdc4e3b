//! `elements::ElementReader` (hook-log arrays) over arbitrary bytes and
//! arbitrary read sizes.
//!
//! Property: nothing panics; the answer (elements with their numbers, lines,
//! offsets and lengths, and the array error) does not depend on the read
//! sizes (including `Interrupted` errors); no element holds a newline; after
//! an array error the reader returns `None`; and whenever `serde_json`
//! parses the input as an array, the reader returns no error and exactly its
//! elements, each parsing to serde's value, with its bytes on disk (offset,
//! length) parsing to the same value.
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
}

#[path = "common/chunky.rs"]
mod chunky;
use chunky::Chunky;

type Got = (Vec<(Vec<u8>, u64, u64, u64, u64)>, Option<ArrayError>);

fn read_all(r: impl Read) -> Got {
    let mut r = ElementReader::new(r);
    let mut out = vec![];
    loop {
        match r.next_element() {
            Ok(Some(e)) => {
                assert!(!e.bytes.contains(&b'\n'), "one line per element");
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
    let whole = read_all(input.bytes.as_slice());
    let chunky = Chunky { data: &input.bytes, chunks: &input.chunks, k: 0, interrupted: false };
    assert_eq!(read_all(chunky), whole, "read sizes do not matter");
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
