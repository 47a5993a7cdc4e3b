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

/// Where the ordered writer writes: stdout ([`Output`]) in a run, a buffer
/// in the tests (a generic, so a run's writes stay direct calls).
pub(super) trait Sink {
    /// Writes bytes (whole records, once a unit's output is complete).
    fn write(&mut self, bytes: &[u8]) -> Result<()>;
    /// Flushes.
    fn flush(&mut self) -> Result<()>;
}

impl Sink for Output {
    #[inline]
    fn write(&mut self, bytes: &[u8]) -> Result<()> {
        Output::write(self, bytes)
    }

    #[inline]
    fn flush(&mut self) -> Result<()> {
        Output::flush(self)
    }
}

/// Writes the workers' output in input order: with one worker, as it comes;
/// with several, unit by unit from the worker `order` names for each.
pub(super) fn write_ordered<W: Sink>(
    out_rx: &[Receiver<Chunk>],
    order: Option<Receiver<usize>>,
    out: &mut W,
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

#[cfg(test)]
mod tests;
