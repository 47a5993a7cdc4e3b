//! The ordered writer: the calling thread writes the workers' output in
//! input order, told by the dealer which worker has each unit.

use crossbeam_channel::Receiver;

use crate::error::Result;
use crate::output::Output;

/// Output of a worker: the end (in `buf`) of each unit it finished in this
/// chunk, in order; bytes after the last end belong to its current unit.
pub(super) struct Chunk {
    pub(super) buf: Vec<u8>,
    pub(super) ends: Vec<usize>,
}

/// Writes the workers' output in input order: with one worker, as it comes;
/// with several, unit by unit from the worker `order` names for each.
pub(super) fn write_ordered(
    out_rx: &[Receiver<Chunk>],
    order: Option<Receiver<usize>>,
    out: &mut Output,
    follow: bool,
) -> Result<()> {
    let Some(order) = order else {
        for chunk in out_rx.iter().flat_map(Receiver::iter) {
            out.write(&chunk.buf)?;
            if follow {
                out.flush()?;
            }
        }
        return out.flush();
    };
    // Per worker: the chunk being written, how far, and its next unit end.
    let mut current: Vec<Option<(Chunk, usize, usize)>> = out_rx.iter().map(|_| None).collect();
    for w in order.iter() {
        loop {
            let (chunk, pos, next) = match current[w].take() {
                Some(c) => c,
                None => match out_rx[w].recv() {
                    Ok(c) => (c, 0, 0),
                    Err(_) => return out.flush(),
                },
            };
            match chunk.ends.get(next) {
                Some(&end) => {
                    if end > pos {
                        out.write(&chunk.buf[pos..end])?;
                    }
                    current[w] = Some((chunk, end, next + 1));
                    break;
                }
                None => out.write(&chunk.buf[pos..])?,
            }
        }
    }
    out.flush()
}
