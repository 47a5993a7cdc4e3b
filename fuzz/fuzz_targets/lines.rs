//! `lines::LineReader` over arbitrary bytes, arbitrary read sizes and an
//! arbitrary (tiny) initial buffer.
//!
//! Property: the lines are exactly `bytes.split('\n')`, except that an empty
//! piece after a final `\n` (or an empty input) is no line; every line but an
//! unterminated last one has `terminated` set; numbers count 1, 2, 3, … and
//! `line_number()` follows them; after the end `next_line` keeps returning
//! `None`; and a `reset` onto a second input starts over with the same rules
//! (the buffer is reused with stale bytes in it). Reads return whatever the
//! chunk sizes say, including `Interrupted` errors (size 0), which must be
//! retried.
#![no_main]

use arbitrary::Arbitrary;
use ci_tools::lines::LineReader;
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
struct Input {
    /// Initial buffer capacity (0 is clamped to 1 by the reader).
    capacity: u8,
    /// Read sizes, cycled; 0 means one `Interrupted` error.
    chunks: Vec<u8>,
    first: Vec<u8>,
    second: Option<Vec<u8>>,
}

#[path = "common/chunky.rs"]
mod chunky;
use chunky::Chunky;

fn expected(bytes: &[u8]) -> Vec<(&[u8], bool)> {
    let mut pieces: Vec<&[u8]> = bytes.split(|&c| c == b'\n').collect();
    let last = pieces.pop().unwrap_or_default();
    let mut want: Vec<(&[u8], bool)> = pieces.into_iter().map(|p| (p, true)).collect();
    if !last.is_empty() {
        want.push((last, false));
    }
    want
}

fn check(r: &mut LineReader<Chunky<'_>>, bytes: &[u8]) {
    let want = expected(bytes);
    let mut n = 0usize;
    while let Some(line) = r.next_line().expect("no I/O error") {
        let (bytes, terminated) = want.get(n).copied().expect("no extra line");
        n += 1;
        assert_eq!(line.bytes, bytes, "line {n}");
        assert_eq!(line.terminated, terminated, "line {n}");
        assert_eq!(line.number, n as u64);
        assert_eq!(r.line_number(), n as u64);
    }
    assert_eq!(n, want.len(), "line count");
    assert!(r.next_line().expect("no I/O error").is_none());
    assert_eq!(r.line_number(), n as u64);
}

fuzz_target!(|input: Input| {
    let chunky = |data| Chunky { data, chunks: &input.chunks, k: 0, interrupted: false };
    let mut r = LineReader::with_capacity(chunky(&input.first), usize::from(input.capacity));
    check(&mut r, &input.first);
    if let Some(second) = &input.second {
        r.reset(chunky(second));
        check(&mut r, second);
    }
});
