use std::io::{Cursor, Write};
use std::sync::OnceLock;

use proptest::prelude::*;

use super::*;
use crate::lines::Site;
use crate::output::Output;
use crate::record::Event;
use crate::source::{Flow, Input, RunOpts};

/// The part size of the lib tests' runs (instead of [`CHUNK_ENV`], which a
/// test cannot set safely while others run): small, so that a small file is split.
pub(super) static CHUNK: OnceLock<u64> = OnceLock::new();

/// `bytes` in a temporary file.
fn file_of(bytes: &[u8]) -> File {
    let mut f = tempfile::tempfile().expect("temporary file");
    f.write_all(bytes).expect("write");
    f
}

/// One line as read: number, site, bytes, terminated.
type Read1 = (u64, Site, Vec<u8>, bool);

/// Every line of `bytes` read whole.
fn whole(bytes: &[u8]) -> Vec<Read1> {
    let mut lines = LineReader::with_capacity(Cursor::new(bytes), 16);
    let mut all = vec![];
    while let Some(l) = lines.next_line().expect("read") {
        all.push((l.number, l.site, l.bytes.to_vec(), l.terminated));
    }
    all
}

/// The parts of `bytes` in parts of `chunk` bytes, read as the workers read
/// them: each part's (start, end, newlines) and the lines of all parts in
/// order, numbered from the earlier parts' counts.
fn parted(bytes: &[u8], chunk: u64) -> (Vec<(u64, u64, u64)>, Vec<Read1>) {
    let file = file_of(bytes);
    let len = bytes.len() as u64;
    let bounds = plan(len, chunk).unwrap_or_else(|| vec![0, len]);
    let n = bounds.len() - 1;
    let (mut parts, mut all, mut before) = (vec![], vec![], 0);
    for k in 0..n {
        let start = line_start(&file, bounds[k], u64::MAX).expect("line start");
        let mut lines = LineReader::with_capacity(Cursor::new(&bytes[start as usize..]), 16);
        lines.restart_at(Resume { offset: start, number: 0, mid_line: false });
        let (count, end) = if k + 1 < n { load(&mut lines, start, bounds[k + 1]).expect("load") } else { (0, len) };
        lines.set_line_number(before);
        while let Some(l) = lines.next_line().expect("read") {
            all.push((l.number, l.site, l.bytes.to_vec(), l.terminated));
        }
        parts.push((start, end, count));
        before += count;
    }
    (parts, all)
}

/// What every split must be: parts that start at 0 or after a newline,
/// follow each other, cover the file, count their newlines, and read the
/// lines of a whole read.
fn check(bytes: &[u8], chunk: u64) {
    let (parts, lines) = parted(bytes, chunk);
    assert_eq!(parts[0].0, 0);
    for (k, &(start, end, count)) in parts.iter().enumerate() {
        // A part starts at 0, after a newline, or (holding nothing) at the end.
        let at_end = start == bytes.len() as u64 && end == start;
        assert!(start == 0 || at_end || bytes[start as usize - 1] == b'\n', "part {k} starts mid-line at {start}");
        assert!(start <= end, "part {k}: {start}..{end}");
        if let Some(&(next, _, _)) = parts.get(k + 1) {
            assert_eq!(end, next, "part {k} ends where part {} starts", k + 1);
            let newlines = bytes[start as usize..end as usize].iter().filter(|&&b| b == b'\n').count();
            assert_eq!(count, newlines as u64, "part {k}");
            assert!(end == bytes.len() as u64 || bytes[end as usize - 1] == b'\n', "part {k} ends mid-line");
        }
    }
    assert_eq!(parts.last().map(|p| p.1), Some(bytes.len() as u64));
    assert_eq!(lines, whole(bytes));
}

#[test]
fn a_file_shorter_than_two_parts_is_not_split() {
    assert_eq!(plan(0, 10), None);
    assert_eq!(plan(19, 10), None);
    assert_eq!(plan(20, 10), Some(vec![0, 10, 20]));
    assert_eq!(plan(35, 10), Some(vec![0, 11, 23, 35]));
    let huge = plan(u64::MAX, u64::MAX / 4).expect("split");
    assert_eq!((huge.len(), huge[0], huge[4]), (5, 0, u64::MAX));
    assert!(huge.windows(2).all(|w| w[1] - w[0] >= u64::MAX / 4), "{huge:?}");
}

#[test]
fn a_part_starts_after_the_first_newline_at_or_after_its_nominal_start_minus_one() {
    let file = file_of(b"ab\ncd\n\nef");
    let starts: Vec<u64> = (0..=10).map(|at| line_start(&file, at, u64::MAX).expect("line start")).collect();
    // At 3 the byte before is a newline: a line starts right there.
    assert_eq!(starts, [0, 3, 3, 3, 6, 6, 6, 7, 9, 9, 9]);
    // A search stops where the part ends: inside one long line, no start.
    let until: Vec<u64> = (1..=5).map(|at| line_start(&file, at, 5).expect("line start")).collect();
    assert_eq!(until, [3, 3, 3, 5, 5]);
    assert_eq!(part_len(b"ab\ncd\n", 0), Some(3));
    assert_eq!(part_len(b"ab\ncd\n", 2), Some(3));
    assert_eq!(part_len(b"ab\ncd\n", 3), Some(6));
    assert_eq!(part_len(b"ab\ncd", 3), None);
    assert_eq!(part_len(b"ab\ncd", 9), None);
}

#[test]
fn boundaries_land_after_a_newline_and_lines_read_as_a_whole_read() {
    let mut bytes = b"\xEF\xBB\xBF{\"a\":1}\n".to_vec();
    for i in 0..200 {
        bytes.extend(std::iter::repeat_n(b'x', i * 7 % 97));
        bytes.extend_from_slice(if i % 13 == 0 { b"\r\n" } else { b"\n" });
    }
    bytes.extend_from_slice(b"{\"torn\":");
    for chunk in [1, 2, 3, 5, 8, 64, 100, 1000, 4096] {
        check(&bytes, chunk);
    }
}

#[test]
fn a_file_of_one_huge_line_is_one_part() {
    let mut bytes = vec![b'y'; 100_000];
    bytes.push(b'\n');
    let (parts, _) = parted(&bytes, 1000);
    assert_eq!(parts.len(), 100);
    assert_eq!(parts[0], (0, 100_001, 1));
    assert!(parts[1..].iter().all(|&(s, e, c)| s == 100_001 && e == 100_001 && c == 0), "{parts:?}");
    check(&bytes, 1000);
    // No newline at all: still one part, read as one unterminated line.
    check(&bytes[..100_000], 1000);
    check(b"", 1);
    check(b"\n\n\n\n", 1);
}

proptest! {
    #[test]
    fn every_split_reads_the_lines_of_a_whole_read(
        lens in prop::collection::vec(0usize..300, 0..60),
        crs in prop::collection::vec(any::<bool>(), 60),
        torn in 0usize..20,
        chunk in 1u64..2000,
    ) {
        let mut bytes = vec![];
        for (i, len) in lens.iter().enumerate() {
            bytes.extend(std::iter::repeat_n(b'a' + (i % 26) as u8, *len));
            bytes.extend_from_slice(if crs[i] { b"\r\n" } else { b"\n" });
        }
        bytes.extend(std::iter::repeat_n(b'z', torn));
        check(&bytes, chunk);
    }
}

/// A visitor that notes the parts it reads and the lines of its events.
struct Noting {
    parts: Vec<(usize, u64, u64, u64, bool)>,
    lines: Vec<u64>,
}

impl Visitor for Noting {
    fn splits(&self) -> bool {
        true
    }

    fn begin_part(&mut self, _cap: &Capture, part: &Part<'_>, _out: &mut Vec<u8>) -> bool {
        self.parts.push((part.index, part.start, part.end, part.first_line, part.last));
        true
    }

    fn event(&mut self, ev: &Event<'_>, _out: &mut Vec<u8>) -> Flow {
        self.lines.push(ev.line);
        Flow::Continue
    }
}

#[test]
fn a_large_capture_is_read_in_consecutive_parts_by_every_worker() {
    CHUNK.get_or_init(|| 4096);
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("events.jsonl");
    let mut bytes = vec![];
    let mut starts = vec![];
    for i in 0..2000 {
        starts.push(bytes.len() as u64);
        let pad = "p".repeat(i * 37 % 300);
        bytes.extend(
            format!(
                "{{\"event\":\"e{}\",\"timestamp\":\"2026-01-01T00:00:00Z\",\"data\":{{\"pad\":\"{pad}\"}}}}\n",
                i % 7
            )
            .as_bytes(),
        );
    }
    std::fs::write(&path, &bytes).expect("write");
    let diag = Diag::new("ci-test", false);
    let opts = RunOpts { threads: 2, ..RunOpts::default() };
    let made = crate::source::run(&[Input::Path(path)], &opts, &diag, &mut Output::stdout(), || Noting {
        parts: vec![],
        lines: vec![],
    })
    .expect("run");
    assert!(
        made.iter().all(|v| !v.parts.is_empty()),
        "every worker read parts: {:?}",
        made.iter().map(|v| v.parts.len()).collect::<Vec<_>>()
    );
    let mut parts: Vec<_> = made.iter().flat_map(|v| v.parts.iter().copied()).collect();
    parts.sort();
    let n = (bytes.len() as u64 / 4096) as usize;
    assert_eq!(parts.len(), n);
    let mut at = 0;
    for (k, &(index, start, end, first_line, last)) in parts.iter().enumerate() {
        assert_eq!((index, start, last), (k, at, k + 1 == n), "{parts:?}");
        assert_eq!(first_line, starts.partition_point(|&s| s < start) as u64, "part {k}");
        assert!(starts.binary_search(&start).is_ok(), "part {k} starts on a line");
        at = end;
    }
    assert_eq!(at, bytes.len() as u64);
    let mut lines: Vec<u64> = made.iter().flat_map(|v| v.lines.iter().copied()).collect();
    lines.sort();
    assert_eq!(lines, (1..=2000).collect::<Vec<u64>>());
    assert_eq!((diag.bad_lines(), diag.failed()), (0, false));
}
