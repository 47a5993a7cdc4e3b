//! The ordered writer: output in submission (input) order whatever order
//! the workers finish in, and a clean stop when the reader goes away.

use super::{write_ordered, Chunk, Sink};
use crate::error::{Error, Result};
use crossbeam_channel::{bounded, unbounded};
use proptest::prelude::*;

/// A sink that keeps what is written; with `room`, the reader goes away
/// after that many bytes (a closed pipe: [`Error::BrokenPipe`]).
#[derive(Default)]
struct Buffer {
    bytes: Vec<u8>,
    flushes: usize,
    room: Option<usize>,
}

impl Sink for Buffer {
    fn write(&mut self, bytes: &[u8]) -> Result<()> {
        if self.room.is_some_and(|room| self.bytes.len() + bytes.len() > room) {
            return Err(Error::BrokenPipe);
        }
        self.bytes.extend_from_slice(bytes);
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        self.flushes += 1;
        Ok(())
    }
}

/// The output of unit `u`: `len` bytes naming it (empty when `len` is 0, as
/// for a unit that prints nothing).
fn unit_bytes(u: usize, len: usize) -> Vec<u8> {
    format!("<{u}>").bytes().cycle().take(len).collect()
}

/// One worker's chunks: its units' output in order, cut into chunks at
/// `cuts` (offsets into the concatenated output, each unit end a place a
/// chunk may also end), as [`super::super::worker`] hands them on.
fn chunks_of(units: &[(usize, usize)], cuts: &[usize]) -> Vec<Chunk> {
    let mut stream = Vec::new();
    let mut ends = Vec::new();
    for &(u, len) in units {
        stream.extend(unit_bytes(u, len));
        ends.push(stream.len());
    }
    let mut bounds: Vec<usize> = cuts.iter().map(|c| c % (stream.len() + 1)).collect();
    bounds.extend(&ends);
    bounds.sort_unstable();
    bounds.dedup();
    let (mut chunks, mut start, mut next_end) = (Vec::new(), 0, 0);
    for b in bounds {
        let mut chunk = Chunk { buf: stream[start..b].to_vec(), ends: Vec::new() };
        while next_end < ends.len() && ends[next_end] <= b {
            chunk.ends.push(ends[next_end] - start);
            next_end += 1;
        }
        chunks.push(chunk);
        start = b;
    }
    chunks
}

/// The work of a run: for each unit, its worker and the length of its output.
fn run_shape() -> impl Strategy<Value = (usize, Vec<(usize, usize)>, Vec<usize>)> {
    (1usize..5).prop_flat_map(|n| {
        (Just(n), prop::collection::vec((0..n, 0usize..40), 0..60), prop::collection::vec(0usize..2000, 0..20))
    })
}

/// Runs the writer over workers on their own threads, each sending its
/// chunks through a channel bounded as in a run, in its own time; returns
/// what was written and the writer's result.
fn write_threaded(
    n: usize,
    units: &[(usize, usize)],
    cuts: &[usize],
    yields: u64,
    mut out: Buffer,
) -> (Buffer, Result<()>) {
    let (order_tx, order_rx) = unbounded();
    let mut per_worker: Vec<Vec<(usize, usize)>> = vec![Vec::new(); n];
    for (u, &(w, len)) in units.iter().enumerate() {
        per_worker[w].push((u, len));
        order_tx.send(w).unwrap();
    }
    drop(order_tx);
    let result = std::thread::scope(|s| {
        let mut out_rx = Vec::new();
        for (w, mine) in per_worker.iter().enumerate() {
            let (tx, rx) = bounded::<Chunk>(8);
            out_rx.push(rx);
            let chunks = chunks_of(mine, cuts);
            s.spawn(move || {
                for (i, chunk) in chunks.into_iter().enumerate() {
                    // Workers finish their chunks in an order of their own.
                    for _ in 0..(yields.rotate_left((w * 7 + i) as u32) % 4) {
                        std::thread::yield_now();
                    }
                    if tx.send(chunk).is_err() {
                        return; // the writer is gone
                    }
                }
            });
        }
        let order = (n > 1).then_some(order_rx);
        let result = write_ordered(&out_rx, order, &mut out, false);
        // As a run does: the workers blocked on a full channel are released.
        drop(out_rx);
        result
    });
    (out, result)
}

fn expected(units: &[(usize, usize)]) -> Vec<u8> {
    units.iter().enumerate().flat_map(|(u, &(_, len))| unit_bytes(u, len)).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Whatever worker has each unit, however its output is cut into chunks
    /// and whenever each worker sends them, the output is every unit's in
    /// input order, each byte once.
    #[test]
    fn writes_in_input_order((n, units, cuts) in run_shape(), yields in any::<u64>()) {
        let (out, result) = write_threaded(n, &units, &cuts, yields, Buffer::default());
        prop_assert!(result.is_ok());
        prop_assert_eq!(out.bytes, expected(&units));
    }

    /// A reader that goes away mid-run: the writer returns the closed pipe,
    /// what it wrote is the start of the output, and every worker ends.
    #[test]
    fn stops_when_the_reader_goes_away((n, units, cuts) in run_shape(), yields in any::<u64>(), room in 0usize..400) {
        let whole = expected(&units);
        let out = Buffer { room: Some(room), ..Buffer::default() };
        let (out, result) = write_threaded(n, &units, &cuts, yields, out);
        if whole.len() > room {
            prop_assert!(matches!(result, Err(Error::BrokenPipe)));
        } else {
            prop_assert!(result.is_ok());
        }
        prop_assert!(whole.starts_with(&out.bytes));
    }
}

#[test]
fn one_worker_writes_as_it_comes_and_following_flushes_each_chunk() {
    let (tx, rx) = unbounded();
    for chunk in chunks_of(&[(0, 5), (1, 0), (2, 9)], &[3, 12]) {
        tx.send(chunk).unwrap();
    }
    drop(tx);
    let mut out = Buffer::default();
    write_ordered(&[rx], None, &mut out, true).unwrap();
    assert_eq!(out.bytes, expected(&[(0, 5), (0, 0), (0, 9)]));
    // Cut at 3, 5 (unit 0's end, also unit 1's), 12 and 14: four chunks,
    // each flushed, then the last flush.
    assert_eq!(out.flushes, 5);
}

#[test]
fn a_worker_gone_mid_unit_ends_the_output_after_what_it_sent() {
    // Worker 1 stopped (a signal) inside unit 1: its part is written, then
    // the writer ends, without waiting for units it will never finish.
    let (tx0, rx0) = unbounded();
    let (tx1, rx1) = unbounded();
    let (order_tx, order_rx) = unbounded();
    for w in [0, 1, 0] {
        order_tx.send(w).unwrap();
    }
    tx0.send(Chunk { buf: b"aaa".to_vec(), ends: vec![3] }).unwrap();
    tx1.send(Chunk { buf: b"bb".to_vec(), ends: vec![] }).unwrap();
    drop(tx1);
    let mut out = Buffer::default();
    write_ordered(&[rx0, rx1], Some(order_rx), &mut out, false).unwrap();
    assert_eq!(out.bytes, b"aaabb");
    drop((tx0, order_tx));
}
