//! A worker thread: its reusable state, its loop over the units dealt to it,
//! and the hand-over of its output to the writer in chunks.

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender, TryRecvError};

use super::capture::LineState;
use super::deal::Unit;
use super::follow;
use super::writer::Chunk;
use super::{SessionFlow, Visitor};
use crate::diag::Diag;
use crate::format;
use crate::json::Index;
use crate::session::SessionRecord;

/// Output is handed to the writer in chunks of about this size.
pub(super) const CHUNK: usize = 256 * 1024;

/// A worker hands its output on after at most this many finished units.
pub(super) const MAX_ENDS: usize = 64;

/// A worker thread's reusable state.
pub(super) struct Worker<'d> {
    pub(super) diag: &'d Diag,
    pub(super) tx: Sender<Chunk>,
    pub(super) idx: Index,
    pub(super) out: Vec<u8>,
    /// Where each unit finished since the last hand-over ends in `out`.
    pub(super) ends: Vec<usize>,
    /// The line buffer of the file being read, kept for the next one.
    pub(super) buffer: Vec<u8>,
    /// Follow mode: keep captures' files open after the first pass.
    pub(super) follow: bool,
    /// Follow mode: the files read so far, polled for new lines.
    pub(super) followed: Vec<follow::Followed>,
    /// Follow mode: the databases read so far, polled for new rows.
    pub(super) followed_rows: Vec<follow::FollowedRows>,
    /// Follow mode: the writer's state of each followed capture but the
    /// one in `parts` ([`Worker::use_state_of`]).
    pub(super) states: follow::States,
    /// Follow mode: when each followed session (by its path) last grew, or
    /// its file's modification time until then ([`follow::ACTIVE`]).
    pub(super) grew: std::collections::HashMap<std::path::PathBuf, std::time::SystemTime>,
    /// Follow mode: how many followed files may stay open between polls
    /// ([`follow::open_budget`]; those beyond are closed between
    /// polls), and how many do.
    pub(super) open_budget: usize,
    pub(super) kept_open: usize,
    /// What the writer remembers of the capture being read.
    pub(super) parts: LineState,
    /// Piped records printed cut, made whole again from their lines.
    pub(super) reread: crate::reread::Reread,
    /// Following: the provenance of the last piped line when it was a
    /// ci-grep match record ([`Worker::piped`]).
    pub(super) last_match: Option<Vec<u8>>,
    /// The index of a rebuilt record.
    pub(super) whole_idx: Index,
    /// Lines of the capture being read that were events, and that were
    /// damaged (to tell a file that is no capture at all).
    pub(super) lines_ok: u64,
    pub(super) lines_bad: u64,
    /// How far the whole lines of the file being read went ([`super::ReadEnd`]).
    pub(super) file_ends: Ends,
    /// Follow mode: what the followed mutation logs hold back ([`super::held`]).
    pub(super) held: super::held::Held,
}

/// Where the last whole line of the file being read ended, and what is after it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Ends {
    pub(super) whole: u64,
    pub(super) last_line_at: Option<u64>,
    pub(super) lines: u64,
    pub(super) tail: super::Tail,
}

impl Ends {
    /// Nothing read yet from `at` on.
    pub(super) fn at(at: crate::lines::Resume) -> Ends {
        Ends { whole: at.offset, last_line_at: None, lines: at.number, tail: super::Tail::None }
    }

    /// Notes a line just taken.
    #[inline]
    pub(super) fn line(&mut self, line: &crate::lines::Line<'_>) {
        if line.terminated {
            self.whole = line.site.offset + line.site.len + 1;
            self.last_line_at = Some(line.site.offset);
            self.lines = line.number;
        } else {
            self.tail = super::Tail::Read;
        }
    }
}

impl<'d> Worker<'d> {
    pub(super) fn new(diag: &'d Diag, tx: Sender<Chunk>) -> Worker<'d> {
        Worker {
            diag,
            tx,
            idx: Index::new(),
            out: Vec::with_capacity(CHUNK * 2),
            ends: Vec::new(),
            buffer: Vec::new(),
            follow: false,
            followed: Vec::new(),
            followed_rows: Vec::new(),
            states: follow::States::default(),
            grew: Default::default(),
            open_budget: 0,
            kept_open: 0,
            parts: LineState::default(),
            reread: Default::default(),
            last_match: None,
            whole_idx: Index::new(),
            lines_ok: 0,
            lines_bad: 0,
            file_ends: Ends::at(Default::default()),
            held: Default::default(),
        }
    }

    pub(super) fn run<V: Visitor>(&mut self, v: &mut V, rx: Receiver<Vec<Unit>>) {
        if self.follow {
            self.run_following(v, &rx);
            return;
        }
        loop {
            let units = match rx.try_recv() {
                Ok(units) => units,
                Err(TryRecvError::Disconnected) => break,
                Err(TryRecvError::Empty) => {
                    // Nothing to do yet: hand on what is done first.
                    if !self.hand_on() {
                        return;
                    }
                    // Waits in steps, so that a signal is noticed by an idle worker too.
                    match rx.recv_timeout(follow::POLL) {
                        Ok(units) => units,
                        Err(RecvTimeoutError::Timeout) if !crate::signal::stop_requested() => continue,
                        Err(_) => break,
                    }
                }
            };
            for unit in units {
                let stop = self.diag.is_stopped() || crate::signal::stop_requested();
                let (captures, weight) = (unit.captures(), unit.weight());
                let going = !stop && self.unit(v, unit);
                crate::progress::done(captures, weight);
                if !going || !self.finish_unit() {
                    // What is held is whole records: hand it on (a no-op
                    // when the writer is gone).
                    self.hand_on();
                    return;
                }
            }
        }
        self.hand_on();
    }

    /// Reads one unit; false when the writer is gone or a stop was asked for.
    pub(super) fn unit<V: Visitor>(&mut self, v: &mut V, unit: Unit) -> bool {
        match unit {
            Unit::Capture(cap) => self.capture(v, &cap),
            Unit::Part(part) => self.part(v, part),
            Unit::Session(rec, line) => self.session(v, *rec, &line),
            Unit::Piped { buf, first, open_tail } => self.piped(v, &buf, first, open_tail),
        }
    }

    /// A session record from stdin: the visitor decides, else it is expanded.
    pub(super) fn session<V: Visitor>(&mut self, v: &mut V, rec: SessionRecord, line: &[u8]) -> bool {
        match v.session(&rec, line, &mut self.out) {
            SessionFlow::Expand => self.capture(v, &format::capture(rec)),
            SessionFlow::Handled => true,
        }
    }

    /// Marks the end of a unit's output, handing output on when enough is
    /// held (at once when following); false when the writer is gone.
    pub(super) fn finish_unit(&mut self) -> bool {
        self.ends.push(self.out.len());
        if self.follow || self.out.len() >= CHUNK || self.ends.len() >= MAX_ENDS {
            return self.send();
        }
        true
    }

    /// Hands on whatever is held; false when the writer is gone.
    pub(super) fn hand_on(&mut self) -> bool {
        self.out.is_empty() && self.ends.is_empty() || self.send()
    }

    /// Hands the output so far to the writer; false when it is gone.
    pub(super) fn send(&mut self) -> bool {
        // Units without output (aggregations) hand on only their ends: the
        // buffer stays for the next unit.
        let buf = if self.out.is_empty() {
            Vec::new()
        } else {
            std::mem::replace(&mut self.out, Vec::with_capacity(CHUNK * 2))
        };
        let ends = std::mem::take(&mut self.ends);
        self.tx.send(Chunk { buf, ends }).is_ok()
    }
}
