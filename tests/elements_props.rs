//! `elements::ElementReader` (the hook-log array reader) on generated input,
//! without `cargo fuzz` (the `elements` fuzz target checks the same longer):
//!
//! - a pretty-printed array of any JSON values gives each element exactly as
//!   `serde_json::to_string` writes it (whitespace outside strings gone,
//!   strings and numbers byte for byte), one line each, with its number,
//!   first line and its bytes on disk, whatever the read sizes;
//! - the same array cut anywhere gives a prefix of its elements and then a
//!   torn or unclosed array (nothing for an empty cut, all of it for none);
//! - arbitrary bytes never panic, give the same answer for every read size,
//!   never yield a line with a newline, and end after an error.

use std::io::{self, Read};

use ci_tools::elements::{ArrayError, ElementReader, ReadError};
use proptest::prelude::*;
use serde_json::Value;

use crate::kit::strategies::{finite_f64, from_pieces, json_tree};

fn arb_string() -> impl Strategy<Value = String> + Clone {
    from_pieces(
        &["a", "b c", "é", "🚀", "\"", "\\", "/", "\n", "\t", "[", "]", "{", "}", ",", " ", "\u{1f}", "\u{2028}"],
        8,
    )
}

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        finite_f64(),
        arb_string().prop_map(Value::String),
    ];
    json_tree(leaf, arb_string())
}

/// A reader handing out at most `step` bytes per read.
struct Trickle<'a>(&'a [u8], usize);

impl Read for Trickle<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let n = self.0.len().min(self.1).min(out.len());
        out[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

/// Every element as (bytes, index, line, offset, len), and the array error.
type Read_ = (Vec<(Vec<u8>, u64, u64, u64, u64)>, Option<ArrayError>);

fn read_all(input: &[u8], step: usize) -> Read_ {
    let mut r = ElementReader::new(Trickle(input, step.max(1)));
    let mut out = vec![];
    loop {
        match r.next_element() {
            Ok(Some(e)) => out.push((e.bytes.to_vec(), e.index, e.line, e.offset, e.len)),
            Ok(None) => return (out, None),
            Err(ReadError::Array(e)) => {
                assert!(matches!(r.next_element(), Ok(None)), "the reader ends after an error");
                return (out, Some(e));
            }
            Err(ReadError::Io(e)) => panic!("{e}"),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn pretty_arrays_give_their_elements_compacted(values in prop::collection::vec(arb_json(), 0..6), step in 1usize..64) {
        let text = serde_json::to_string_pretty(&Value::Array(values.clone())).unwrap();
        let (els, err) = read_all(text.as_bytes(), step);
        prop_assert_eq!(err, None);
        prop_assert_eq!(els.len(), values.len());
        for (i, ((bytes, index, line, offset, len), v)) in els.iter().zip(&values).enumerate() {
            prop_assert_eq!(String::from_utf8_lossy(bytes), serde_json::to_string(v).unwrap());
            prop_assert!(!bytes.contains(&b'\n'));
            prop_assert_eq!(*index, i as u64 + 1);
            let on_disk = &text.as_bytes()[*offset as usize..(*offset + *len) as usize];
            prop_assert_eq!(&serde_json::from_slice::<Value>(on_disk).unwrap(), v);
            let lines_before = text.as_bytes()[..*offset as usize].iter().filter(|&&b| b == b'\n').count();
            prop_assert_eq!(*line, lines_before as u64 + 1);
        }
    }

    #[test]
    fn a_cut_array_gives_a_prefix_then_says_it_is_torn(values in prop::collection::vec(arb_json(), 1..5), at in any::<prop::sample::Index>()) {
        let text = serde_json::to_string_pretty(&Value::Array(values.clone())).unwrap();
        let cut = at.index(text.len() + 1);
        let (els, err) = read_all(&text.as_bytes()[..cut], 4096);
        prop_assert!(els.len() <= values.len());
        for ((bytes, ..), v) in els.iter().zip(&values) {
            prop_assert_eq!(String::from_utf8_lossy(bytes), serde_json::to_string(v).unwrap());
        }
        if cut == text.len() {
            prop_assert_eq!((els.len(), err), (values.len(), None));
        } else if cut == 0 {
            prop_assert_eq!((els.len(), err), (0, None));
        } else {
            prop_assert!(matches!(err, Some(ArrayError::Torn { .. } | ArrayError::Unclosed { .. })), "{:?} at {}", err, cut);
            if let Some(ArrayError::Torn { element, .. }) = err {
                prop_assert_eq!(element, els.len() as u64 + 1);
            }
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic_and_read_sizes_do_not_matter(bytes in prop::collection::vec(any::<u8>(), 0..300), step in 1usize..17) {
        let whole = read_all(&bytes, usize::MAX);
        prop_assert_eq!(&read_all(&bytes, step), &whole);
        for (b, ..) in &whole.0 {
            prop_assert!(!b.contains(&b'\n'));
        }
    }

    #[test]
    fn json_ish_bytes_never_panic(pieces in prop::collection::vec(prop::sample::select(vec![
        "[", "]", "{", "}", ",", "\"", "\\", "\n", " ", "1", "a", ":", "\"k\":", "\u{feff}", "é",
    ]), 0..40), step in 1usize..9) {
        let text = pieces.concat();
        let whole = read_all(text.as_bytes(), usize::MAX);
        prop_assert_eq!(&read_all(text.as_bytes(), step), &whole);
    }
}
