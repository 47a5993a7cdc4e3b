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
//! retried. With a line limit (issue 38), a line longer than it comes back
//! empty and `too_long`, in its place, with its number and whole site; the
//! buffer never holds much more than the limit.
#![no_main]

use arbitrary::Arbitrary;
use ci_tools::lines::LineReader;
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
struct Input {
    /// Initial buffer capacity (0 is clamped to 1 by the reader).
    capacity: u8,
    /// The longest line read (0 is clamped to 1); none: the default.
    max: Option<u8>,
    /// Read sizes, cycled; 0 means one `Interrupted` error.
    chunks: Vec<u8>,
    first: Vec<u8>,
    second: Option<Vec<u8>>,
}

#[path = "common/chunky.rs"]
mod chunky;
use chunky::Chunky;

/// The lines of `bytes`: each one's bytes (after a byte-order mark on the
/// first), offset, length and whether it is terminated.
fn expected(bytes: &[u8]) -> Vec<(&[u8], u64, bool)> {
    let mut pieces = vec![];
    let mut at = 0usize;
    for p in bytes.split(|&c| c == b'\n') {
        pieces.push((p, at as u64));
        at += p.len() + 1;
    }
    let last = pieces.pop().unwrap_or_default();
    let mut want: Vec<(&[u8], u64, bool)> = pieces.into_iter().map(|(p, at)| (p, at, true)).collect();
    if !last.0.is_empty() {
        want.push((last.0, last.1, false));
    }
    if let Some(first) = want.first_mut() {
        if let Some(rest) = first.0.strip_prefix(b"\xEF\xBB\xBF") {
            *first = (rest, 3, first.2);
        }
    }
    want
}

fn check(r: &mut LineReader<Chunky<'_>>, bytes: &[u8], max: usize) {
    let want = expected(bytes);
    let mut n = 0usize;
    while let Some(line) = r.next_line().expect("no I/O error") {
        let (bytes, at, terminated) = want.get(n).copied().expect("no extra line");
        n += 1;
        let too_long = bytes.len() > max;
        assert_eq!(line.too_long, too_long, "line {n}");
        assert_eq!(line.bytes, if too_long { &[][..] } else { bytes }, "line {n}");
        assert_eq!((line.site.offset, line.site.len), (at, bytes.len() as u64), "line {n}");
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
    let capacity = usize::from(input.capacity).max(1);
    let mut r = LineReader::with_capacity(chunky(&input.first), capacity);
    let max = input.max.map_or(usize::MAX, |m| usize::from(m).max(1));
    if let Some(m) = input.max {
        r.set_max_line(usize::from(m));
    }
    check(&mut r, &input.first, max);
    if let Some(second) = &input.second {
        r.reset(chunky(second));
        check(&mut r, second, max);
    }
    // A line over the limit is not buffered: the buffer stays within the
    // limit and one read (the 256 KiB the reader asks at most).
    if input.max.is_some() {
        let held = r.into_buffer().len();
        assert!(held <= (max + 1).max(capacity) + (256 << 10), "buffer of {held} bytes");
    }
});
