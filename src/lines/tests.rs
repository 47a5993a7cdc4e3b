use super::*;

/// A reader that returns at most `step` bytes per read, to force refills.
struct Trickle<'a>(&'a [u8], usize);

impl Read for Trickle<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let n = self.0.len().min(self.1).min(out.len());
        out[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

type Lines = Vec<(String, u64, bool)>;

fn collect(input: &[u8], step: usize, capacity: usize) -> Lines {
    let mut r = LineReader::with_capacity(Trickle(input, step), capacity);
    let mut out = vec![];
    while let Some(l) = r.next_line().unwrap() {
        out.push((String::from_utf8_lossy(l.bytes).into_owned(), l.number, l.terminated));
    }
    out
}

/// A UTF-8 byte-order mark before the first line is not part of it
/// (issue 18, item 19); one anywhere else is data. Every read size.
#[test]
fn a_byte_order_mark_before_the_first_line_is_skipped() {
    for step in [1, 2, 3, 4, 64] {
        assert_eq!(
            collect(b"\xEF\xBB\xBF{\"a\":1}\n\xEF\xBB\xBFx\n", step, 8),
            [("{\"a\":1}".to_string(), 1, true), ("\u{feff}x".to_string(), 2, true)],
            "step {step}"
        );
        assert_eq!(collect(b"\xEF\xBB\xBF{}", step, 8), [("{}".to_string(), 1, false)], "step {step}");
    }
}

#[test]
fn ready_when_a_whole_line_is_buffered_or_the_input_ended() {
    // Reads of 5 bytes: "a\nbb\n" then "cc".
    let mut r = LineReader::new(Trickle(b"a\nbb\ncc", 5));
    assert!(!r.line_ready(), "nothing read yet");
    assert_eq!(r.next_line().unwrap().unwrap().bytes, b"a");
    assert!(r.line_ready(), "bb is buffered");
    assert_eq!(r.next_line().unwrap().unwrap().bytes, b"bb");
    assert!(!r.line_ready(), "cc is not read yet");
    assert_eq!(r.next_line().unwrap().unwrap().bytes, b"cc");
    assert!(r.line_ready(), "the input ended");
    assert!(r.next_line().unwrap().is_none());
}

#[test]
fn complete_lines_hold_the_tail_until_its_newline() {
    let mut r = LineReader::with_capacity(io::Cursor::new(b"a\nb".to_vec()), 2);
    assert_eq!(r.next_complete_line().unwrap().map(|l| l.bytes.to_vec()), Some(b"a".to_vec()));
    assert!(r.next_complete_line().unwrap().is_none());
    assert!(r.next_complete_line().unwrap().is_none());
    assert_eq!(r.pending(), 1);
    // The writer appends the rest of the line.
    let c = &mut r.rdr;
    c.get_mut().extend_from_slice(b"c\nd");
    let l = r.next_complete_line().unwrap().unwrap();
    assert_eq!((l.bytes, l.number, l.terminated), (&b"bc"[..], 2, true));
    assert!(r.next_complete_line().unwrap().is_none());
}

#[test]
fn the_initialised_buffer_follows_the_line_not_the_next_power_of_two() {
    let line = 9 << 20;
    let mut input = vec![b'x'; line];
    input.push(b'\n');
    let mut r = LineReader::new(io::Cursor::new(input));
    assert_eq!(r.next_line().unwrap().map(|l| l.bytes.len()), Some(line));
    // Written (so resident) bytes: the line plus less than one step, not 16 MiB.
    assert!(r.buf.len() < line + GROW_STEP, "{}", r.buf.len());
    assert!(r.next_line().unwrap().is_none());
}

#[test]
fn edge_cases_through_every_read_size() {
    let big = "x".repeat(INITIAL * 3 + 7);
    let cases: Vec<(Vec<u8>, Lines)> = vec![
        (b"".to_vec(), vec![]),
        (b"\n".to_vec(), vec![("".into(), 1, true)]),
        (b"a\nb".to_vec(), vec![("a".into(), 1, true), ("b".into(), 2, false)]),
        (b"a\n\nb\n".to_vec(), vec![("a".into(), 1, true), ("".into(), 2, true), ("b".into(), 3, true)]),
        (format!("{big}\nend\n").into_bytes(), vec![(big.clone(), 1, true), ("end".into(), 2, true)]),
    ];
    for (input, want) in cases {
        for step in [1, 3, 4096, usize::MAX] {
            for capacity in [0, 1, 5, INITIAL] {
                assert_eq!(collect(&input, step, capacity), want, "step {step}, capacity {capacity}");
            }
        }
    }
}

/// A reader closed and reopened at its resume point, or restarted after a
/// truncation (`--follow`), goes on with the right line numbers and
/// offsets; inside a line taken before, the rest of that line is skipped.
#[test]
fn restarts_at_a_resume_point() {
    let text = b"a\nbb\ncc".to_vec();
    let mut r = LineReader::with_capacity(io::Cursor::new(text.clone()), 4);
    assert_eq!(r.next_complete_line().unwrap().map(|l| l.bytes), Some(&b"a"[..]));
    assert_eq!(r.next_complete_line().unwrap().map(|l| l.bytes), Some(&b"bb"[..]));
    assert!(r.next_complete_line().unwrap().is_none());
    let at = r.resume_point();
    assert_eq!((at, r.read_end()), (Resume { offset: 5, number: 2, mid_line: false }, 7));
    // Reopened: the held "cc" is read again from the file and completed.
    let mut cursor = io::Cursor::new([text, b"c\n".to_vec()].concat());
    cursor.set_position(at.offset);
    let mut r = LineReader::with_buffer(cursor, r.into_buffer());
    r.restart_at(at);
    let l = r.next_complete_line().unwrap().unwrap();
    assert_eq!((l.bytes, l.number, l.site.offset), (&b"ccc"[..], 3, 5));
    // Restarted inside line 2: its rest ("b") is skipped, "x" is line 3.
    let mut cursor = io::Cursor::new(b"a\nbb\nx\n".to_vec());
    cursor.set_position(3);
    r = LineReader::with_buffer(cursor, r.into_buffer());
    r.restart_at(Resume { offset: 3, number: 1, mid_line: true });
    let l = r.next_line().unwrap().unwrap();
    assert_eq!((l.bytes, l.number, l.site.offset), (&b"x"[..], 3, 5));
    assert!(r.next_line().unwrap().is_none());
}

#[test]
fn shrink_keeps_what_is_held() {
    let mut input = vec![b'x'; 100_000];
    input.extend_from_slice(b"\nheld");
    let mut r = LineReader::new(io::Cursor::new(input));
    assert_eq!(r.next_complete_line().unwrap().map(|l| l.bytes.len()), Some(100_000));
    assert!(r.next_complete_line().unwrap().is_none());
    r.shrink(16);
    assert_eq!((r.buf.len(), r.pending(), r.resume_point().offset), (16, 4, 100_001));
    r.get_mut().get_mut().extend_from_slice(b" on\n");
    let l = r.next_complete_line().unwrap().unwrap();
    assert_eq!((l.bytes, l.number, l.site.offset), (&b"held on"[..], 2, 100_001));
    // More held than `keep`: nothing is dropped.
    let mut r = LineReader::new(io::Cursor::new(vec![b'y'; 1000]));
    assert!(r.next_complete_line().unwrap().is_none());
    r.shrink(16);
    assert_eq!(r.pending(), 1000);
}

#[test]
fn a_preloaded_input_ends_where_it_is_told_and_numbers_on_from_a_given_line() {
    let input = b"ab\ncd\nef\ngh";
    let mut lines = LineReader::with_capacity(Trickle(&input[..], 2), 1);
    let held = lines.preload(6).expect("preload").to_vec();
    assert!(held.len() >= 6 && input.starts_with(&held), "{held:?}");
    lines.end_at(6);
    lines.set_line_number(40);
    let l = lines.next_line().expect("read").expect("a line");
    assert_eq!((l.bytes, l.number, l.site.offset, l.terminated), (&b"ab"[..], 41, 0, true));
    let l = lines.next_line().expect("read").expect("a line");
    assert_eq!((l.bytes, l.number, l.site.offset, l.terminated), (&b"cd"[..], 42, 3, true));
    assert!(lines.next_line().expect("read").is_none(), "nothing after the end");
}

/// A line longer than the limit comes back empty and `too_long`, with its
/// number and whole site, however it is split into reads and whatever the
/// buffer's size; the buffer never holds much more than the limit.
#[test]
fn a_line_over_the_limit_is_skipped_unbuffered() {
    let input = b"abc\n0123456789\nde\n0123456789";
    for step in [1, 3, 7, 64] {
        for capacity in [1, 4, 16, 256] {
            let mut r = LineReader::with_capacity(Trickle(input, step), capacity);
            r.set_max_line(5);
            let mut out = vec![];
            while let Some(l) = r.next_line().unwrap() {
                out.push((l.bytes.to_vec(), l.number, l.site.offset, l.site.len, l.terminated, l.too_long));
                assert!(r.buf.len() <= 5 + capacity.max(READ_CHUNK.min(GROW_STEP)), "step {step}");
            }
            let want: Vec<(Vec<u8>, u64, u64, u64, bool, bool)> = vec![
                (b"abc".to_vec(), 1, 0, 3, true, false),
                (vec![], 2, 4, 10, true, true),
                (b"de".to_vec(), 3, 15, 2, true, false),
                (vec![], 4, 18, 10, false, true),
            ];
            assert_eq!(out, want, "step {step}, capacity {capacity}");
        }
    }
}

/// Following a file, a line over the limit whose newline has not come yet
/// is held (dropped as it comes), then reported once it ends.
#[test]
fn a_held_line_over_the_limit_is_reported_when_it_ends() {
    let mut r = LineReader::with_capacity(io::Cursor::new(b"0123456789".to_vec()), 4);
    r.set_max_line(5);
    assert!(r.next_complete_line().unwrap().is_none());
    assert_eq!(r.pending(), 0, "nothing of it is kept");
    let at = r.get_ref().position();
    r.get_mut().get_mut().extend_from_slice(b"0123\nab\n");
    r.get_mut().set_position(at);
    let l = r.next_complete_line().unwrap().unwrap();
    assert_eq!((l.number, l.site.offset, l.site.len, l.too_long), (1, 0, 14, true));
    assert_eq!(r.next_complete_line().unwrap().unwrap().bytes, b"ab");
}
