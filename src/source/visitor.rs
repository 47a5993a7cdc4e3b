//! What a tool plugs into the engine: a [`Visitor`], one per worker thread,
//! called for each capture, line and event in input order, and the
//! [`Flow`] it answers with; and the [`Part`] of a capture split across
//! threads that a visitor reads.

use std::sync::atomic::{AtomicU64, Ordering};

pub(crate) use crate::lines::{ReadEnd, Tail};
use crate::lines::{Resume, Site};
use crate::record::Event;
use crate::session::{Capture, SessionRecord};

/// What a visitor already has of a capture about to be read in parts
/// ([`Visitor::known`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Known {
    /// Nothing: every part is read.
    Nothing,
    /// All of it: no part is read.
    All,
    /// Everything before this place (a capture that grew): only the lines
    /// from there on are read.
    Until(Resume),
}

/// The lines of a capture's file a visitor asks for ([`Visitor::pick`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Pick {
    /// Each line's number and place, in file order.
    pub lines: Vec<(u64, Site)>,
    /// Where to go on reading the file whole after them (the first byte
    /// the visitor does not know), or `None` to stop there.
    pub then: Option<Resume>,
}

/// What a visitor wants next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flow {
    /// Go on.
    Continue,
    /// Skip this line without parsing it.
    Skip,
    /// Stop reading the current capture.
    Stop,
}

/// What to do with a session record read from stdin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SessionFlow {
    /// Read the capture's events (then `begin`, `event`…, `end` are called).
    Expand,
    /// The visitor dealt with the record itself (printed it, or dropped it).
    Handled,
}

/// One part of a large capture file split at line boundaries and read by
/// several threads ([`Visitor::splits`], `source::chunk`): the bytes
/// `start..end` of the file, whose first line is line `first_line + 1`.
/// Parts are consecutive and cover the file; line numbers and byte sites
/// are those of a whole read.
#[derive(Debug, Clone, Copy)]
#[cfg_attr(
    not(test),
    expect(
        dead_code,
        reason = "start, end and first_line describe the part; no visitor needs them yet, the chunk tests check them"
    )
)]
pub(crate) struct Part<'a> {
    /// Byte offset of the part's first line (0, or just after a newline).
    pub start: u64,
    /// Byte offset just after its last line's newline; for the last part,
    /// the file's length when it was split (it reads on to the end of the
    /// file as it is then).
    pub end: u64,
    /// The number of lines before the part (its first line is `first_line + 1`).
    pub first_line: u64,
    /// Which part, from 0.
    pub index: usize,
    /// Whether it is the capture's last part: its [`Visitor::end_part`] is
    /// called after every other part's.
    pub last: bool,
    /// Which reading of the capture it is a part of: the same for every part
    /// of one split, another for each split in the run (a capture named
    /// twice is read twice).
    pub reading: u64,
    /// A sum shared by the capture's parts ([`Part::tally`]).
    pub(super) tally: &'a AtomicU64,
}

impl Part<'_> {
    /// Adds `n` to a sum shared by all parts of the capture and returns the
    /// sum so far: in the last part's [`Visitor::end_part`], the whole
    /// capture's (`ci-grep -c`: its matches).
    pub(crate) fn tally(&self, n: u64) -> u64 {
        self.tally.fetch_add(n, Ordering::AcqRel).saturating_add(n)
    }
}

/// A tool's per-thread work on the event stream. Output goes to `out`, which
/// the engine writes in input order.
pub(crate) trait Visitor: Send {
    /// Called for each session record (from `ci-find`) read from stdin, with
    /// its line as read, before it is expanded. The default expands it; a
    /// tool that can decide on session fields alone (`ci-filter` with only
    /// session-level predicates) returns [`SessionFlow::Handled`] and may
    /// print the line to pass the record on unchanged.
    fn session(&mut self, _rec: &SessionRecord, _line: &[u8], _out: &mut Vec<u8>) -> SessionFlow {
        SessionFlow::Expand
    }

    /// Whether lines may be skimmed instead of validated ([`crate::json::Index::skim`]): the
    /// insides of `data` are then not checked, and the visitor must confirm
    /// each event it goes on to use beyond the envelope with
    /// [`Event::confirm`] (which validates it and reports it when bad). For
    /// tools that decide on the envelope and drop most lines (`ci-filter`).
    fn lazy(&self) -> bool {
        false
    }

    /// Called before a capture is read; `false` skips it (session-level filters).
    fn begin(&mut self, _cap: &Capture, _out: &mut Vec<u8>) -> bool {
        true
    }

    /// Called after `begin` for a capture of one plain file (not in follow
    /// mode): where to start reading it. `None` (the default) reads it from
    /// the start; `Some(at)` goes on at `at` (the visitor has what came
    /// before it, from the capture cache), with line numbers counted on
    /// from `at.number`.
    fn start(&mut self, _cap: &Capture) -> Option<Resume> {
        None
    }

    /// Called after `begin` for a capture of one plain file (not in follow
    /// mode), before [`Visitor::start`]: the only lines of it to read, when
    /// the visitor knows which of its lines can matter (ci-filter's line
    /// index). `None` (the default) reads the file as `start` says. With a
    /// [`Pick`], its lines are read at their places, then the file from
    /// [`Pick::then`] on (`None`: nothing more), which is when
    /// [`Visitor::read_end`] is called; `start` is not.
    fn pick(&mut self, _cap: &Capture) -> Option<Pick> {
        None
    }

    /// Called for each plain file of a capture (not in follow mode) that
    /// was read to its end, before `end` (for a capture read in parts: by
    /// its last part, before its `end_part`, with the whole file's ends). A
    /// file read as JSON array elements, or merged with the others in time
    /// order, is not told; one read after [`Visitor::pick`] is told only
    /// when it was read on from [`Pick::then`].
    fn read_end(&mut self, _cap: &Capture, _end: &ReadEnd<'_>) {}

    /// Whether a large capture may be read in parts by several threads
    /// ([`Part`], `source::chunk`): then each part is read by one visitor
    /// between [`Visitor::begin_part`] and [`Visitor::end_part`], instead of
    /// the whole capture between `begin` and `end`. Say yes only when what the
    /// visitor makes of a capture does not depend on how its lines are split
    /// into parts: its output is per line (each part's output is written in
    /// order), what it keeps merges exactly whatever the split, it never
    /// returns [`Flow::Stop`] (a whole read would not report damage after
    /// that line) nor [`Flow::Skip`] by line number, and it reads no
    /// companion file. The default: no.
    fn splits(&self) -> bool {
        false
    }

    /// Called first by each part of a capture split across threads: what
    /// the visitor already has of the capture (from the capture cache). With
    /// [`Known::All`] no part is read (and neither `begin_part` nor
    /// `end_part` is called for its parts but an empty last one); with
    /// [`Known::Until`] only the lines from there on are read, numbered on
    /// from it. Every part must get the same answer; `reading` is
    /// [`Part::reading`]. The default: [`Known::Nothing`].
    fn known(&mut self, _cap: &Capture, _reading: u64) -> Known {
        Known::Nothing
    }

    /// Called instead of `begin` before a [`Part`] of a capture split across
    /// threads is read; `false` skips it (every part of a capture must
    /// answer alike). The default calls `begin`.
    fn begin_part(&mut self, cap: &Capture, _part: &Part<'_>, out: &mut Vec<u8>) -> bool {
        self.begin(cap, out)
    }

    /// Called instead of `end` after a [`Part`] was read; the last part's
    /// after every other part's. The default calls `end`.
    fn end_part(&mut self, cap: &Capture, _part: &Part<'_>, out: &mut Vec<u8>) {
        self.end(cap, out)
    }

    /// Called with each physical line number before the line is parsed.
    fn line(&mut self, _number: u64) -> Flow {
        Flow::Continue
    }

    /// Called with the raw bytes of each complete line before it is parsed;
    /// `false` skips the line unparsed (so damage on it is not reported).
    /// For cheap pre-checks that can prove a line irrelevant, such as
    /// ci-grep's literal search. Not called for an unterminated last line.
    fn precheck(&mut self, _raw: &[u8]) -> bool {
        true
    }

    /// Called with the raw bytes of each complete line of a capture that
    /// passed [`Visitor::precheck`]; `false`: the line is still parsed and
    /// checked (damage is reported as always) but yields no event. For
    /// pre-checks that prove a line's events irrelevant without giving up
    /// the report of a damaged line (`ci-agg --tokens`).
    fn needs_events(&mut self, _raw: &[u8]) -> bool {
        true
    }

    /// Whether [`Visitor::needs_events`] wants only the lines that carry
    /// usage (a tokens count): a database's rows read whole (not followed)
    /// are then left unread where their table's condition tells they carry
    /// none and are whole ([`crate::lines::rows::Rows::usage_only`]). The
    /// default: no.
    fn usage_only(&self) -> bool {
        false
    }

    /// Whether the visitor may read the tool of a call's end that does not
    /// name it ([`Event::paired_tool`]): lines it skips unread
    /// ([`Visitor::precheck`], [`Visitor::line`]) are then still read for
    /// the calls they start ([`crate::format::Dialect::starts_calls`]).
    /// The default: yes.
    fn reads_tools(&self) -> bool {
        true
    }

    /// Called for each valid event record.
    fn event(&mut self, ev: &Event<'_>, out: &mut Vec<u8>) -> Flow;

    /// Called instead of `event` for each event (piped record or a
    /// capture's) the run's time window leaves out: a visitor may note what
    /// the record tells of its session (ci-agg: a hooks session's transcript
    /// copy, whose events the window judges on their own; a capture's times,
    /// kept for pruning). The default: nothing.
    fn outside_window(&mut self, _ev: &Event<'_>) {}

    /// Called after a capture was read (also after `Stop`).
    fn end(&mut self, _cap: &Capture, _out: &mut Vec<u8>) {}

    /// Follow mode ([`super::RunOpts::follow`]): called once before followed files
    /// are first polled for new lines (after the first pass over the inputs
    /// ready at start). Lines read by polling reach `event` without
    /// `begin`/`end`; a capture whose session record arrives later still gets
    /// its own first pass (`begin`, `event`…, `end`) before it is followed.
    fn following(&mut self) {}

    /// Whether the visitor reads a session's companion file (a hooks
    /// session's transcript copy, [`crate::format::Layout::companion`]) after
    /// its events, through [`Visitor::companion_event`].
    fn companions(&self) -> bool {
        false
    }

    /// Called before a session's companion file is read (its capture).
    fn companion_begin(&mut self, _cap: &Capture, _out: &mut Vec<u8>) {}

    /// Called for each event of a session's companion file, after the
    /// session's own events and before `end`.
    fn companion_event(&mut self, _ev: &Event<'_>, _out: &mut Vec<u8>) -> Flow {
        Flow::Continue
    }
}
