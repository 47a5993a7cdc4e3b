//! Dealing units of work (a capture, a session record, a batch of piped
//! lines) to the worker threads, in batches, by a deterministic rule.

use crossbeam_channel::Sender;

use super::chunk::PartUnit;
use crate::session::{Capture, SessionRecord};

/// Units dealt to a worker at once, at most (fewer when reading stdin would
/// wait)…
pub(super) const DEAL: usize = 16;

/// … and of at most about this many bytes together.
pub(super) const DEAL_BYTES: u64 = 1 << 20;

/// A unit of work.
pub(super) enum Unit {
    Capture(Box<Capture>),
    /// A part of a capture split across threads ([`super::chunk`]).
    Part(PartUnit),
    /// A session record read from stdin, and its line.
    Session(Box<SessionRecord>, Vec<u8>),
    /// Piped lines, `\n`-separated, the first being line `first` of stdin;
    /// `open_tail` when the last one had no `\n` (the end of a stream that is
    /// still being written: held back like a capture's unfinished last line).
    Piped {
        buf: Vec<u8>,
        first: u64,
        open_tail: bool,
    },
}

impl Unit {
    /// The bytes it is expected to read, for dealing.
    /// The captures it completes: one for a capture or a session record,
    /// one for the last part of a capture read in parts, none for piped lines.
    pub(super) fn captures(&self) -> u64 {
        match self {
            Unit::Capture(_) | Unit::Session(..) => 1,
            Unit::Part(part) => u64::from(part.is_last()),
            Unit::Piped { .. } => 0,
        }
    }

    pub(super) fn weight(&self) -> u64 {
        match self {
            Unit::Capture(cap) => cap.record.as_ref().map_or(0, |r| r.bytes),
            Unit::Part(part) => part.weight(),
            Unit::Session(rec, _) => rec.bytes,
            Unit::Piped { buf, .. } => buf.len() as u64,
        }
    }
}

/// Deals units to the workers in batches: a batch of consecutive units (up
/// to [`DEAL`] of them and [`DEAL_BYTES`] together) goes to the worker with
/// the fewest bytes dealt so far, a deterministic rule (the same input is
/// split the same way every run, so merged aggregates do not change).
///
/// Only the batch being filled is held back, so every unit dealt before it
/// is with a worker: the writer, waiting for the oldest unit not yet
/// written, never waits for one held here while the dealer waits for a
/// worker whose output the writer is not reading.
pub(super) struct Dealer {
    pub(super) tx: Vec<Sender<Vec<Unit>>>,
    /// Tells the writer which worker has each unit (with several workers).
    pub(super) order: Option<Sender<usize>>,
    /// The batch being filled, its worker and its bytes.
    pub(super) batch: Vec<Unit>,
    pub(super) to: usize,
    pub(super) bytes: u64,
    pub(super) load: Vec<u64>,
    /// Units per batch at most (1 when following).
    pub(super) deal: usize,
}

impl Dealer {
    pub(super) fn new(tx: Vec<Sender<Vec<Unit>>>, order: Option<Sender<usize>>, deal: usize) -> Dealer {
        let load = vec![0; tx.len()];
        Dealer { tx, order, batch: Vec::new(), to: 0, bytes: 0, load, deal }
    }

    /// Deals a unit; false when the workers are gone.
    pub(super) fn push(&mut self, unit: Unit) -> bool {
        if self.batch.is_empty() {
            self.to = (0..self.load.len()).min_by_key(|&i| self.load[i]).unwrap_or(0);
        }
        let weight = unit.weight().max(1);
        self.load[self.to] = self.load[self.to].saturating_add(weight);
        self.bytes = self.bytes.saturating_add(weight);
        if self.order.as_ref().is_some_and(|o| o.send(self.to).is_err()) {
            return false;
        }
        self.batch.push(unit);
        (self.batch.len() < self.deal && self.bytes < DEAL_BYTES) || self.flush()
    }

    /// Hands on the batch being filled.
    pub(super) fn flush(&mut self) -> bool {
        self.bytes = 0;
        let units = std::mem::take(&mut self.batch);
        units.is_empty() || self.tx[self.to].send(units).is_ok()
    }
}

#[cfg(test)]
mod tests;
