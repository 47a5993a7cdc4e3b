//! ci-filter's use of the line index ([`crate::cache::line_index`]): a
//! capture whose file is as indexed is read only at the lines whose event
//! name can match; one that grew, at those lines and then from its old end
//! on; any other is read whole and indexed as it is read.
//!
//! The index is used for a question whose events are narrowed by name
//! (`--event`, `--not-event`, `--errors`) and whose answer depends on the
//! picked lines alone: not with `--invert` (it prints the other lines),
//! `--strict` (every line is validated, and reported when bad), or
//! `--where` (whose "never held" warning looks at every event read). Only
//! captures read without a report are kept, so a run answered from the
//! index prints the reports and exits the way a whole read does; a line
//! whose damage only shows when it is selected is picked and reported then,
//! as a whole read would report it.

use std::path::PathBuf;

use crate::cache::line_index::{LineIndex, Lines, Look, PartLines};
use crate::cache::{Identity, Update};
use crate::lines::Resume;
use crate::predicate::Selection;
use crate::record::Event;
use crate::session::Capture;
use crate::source::{Pick, ReadEnd};

/// One capture being read for the index.
pub(super) struct Building {
    key: PathBuf,
    /// An entry was there (dropped when this read cannot be kept).
    had_entry: bool,
    /// Reports this thread had printed when the capture began.
    reports: u64,
    /// The lines indexed so far (the kept ones of a grown file first).
    lines: Lines,
    /// Where this read goes on from the kept lines, and the last kept line.
    resume: Option<(Resume, Option<u64>)>,
    /// Whether every event read went into `lines` in order.
    ordered: bool,
    /// How the file's reading ended.
    end: Option<(Identity, u64)>,
}

impl Building {
    /// A capture about to be read whole (or a part of one) for its entry.
    fn new(key: PathBuf, had_entry: bool) -> Building {
        let reports = crate::diag::reports_here();
        Building { key, had_entry, reports, lines: Lines::default(), resume: None, ordered: true, end: None }
    }
}

/// ci-filter's side of the index, per worker thread.
pub(super) struct Indexed<'a> {
    pub(super) index: &'a LineIndex,
    /// Whether the question may read only the picked lines.
    pub(super) picks: bool,
    pub(super) building: Option<Building>,
    pub(super) updates: Vec<Update>,
}

impl<'a> Indexed<'a> {
    /// The index's side of a run, or `None` without an index.
    pub(super) fn new(index: Option<&'a LineIndex>, picks: bool) -> Option<Indexed<'a>> {
        Some(Indexed { index: index?, picks, building: None, updates: vec![] })
    }

    /// [`crate::source::Visitor::pick`]: the lines of `cap` to read, if
    /// the index has them; `names` is told the names of every event line
    /// not read (for the `--event` hint).
    pub(super) fn pick(&mut self, cap: &Capture, sel: &Selection, mut names: impl FnMut(&str)) -> Option<Pick> {
        self.building = None;
        let key = self.index.key(cap)?;
        let picks = self.picks;
        match self.index.look(&key, &cap.path, cap, |n| picks && sel.name_may_match(n)) {
            Look::Current { names: all, picked, touch } if picks => {
                self.updates.extend(touch);
                all.iter().for_each(|n| names(n));
                Some(Pick { lines: picked, then: None })
            }
            Look::Current { .. } => None,
            Look::Grown { lines, from, last_line } if picks => {
                lines.names.iter().for_each(|n| names(n));
                let pick = Pick { lines: lines.pick(|n| sel.name_may_match(n)), then: Some(from) };
                self.building = Some(Building { lines, resume: Some((from, last_line)), ..Building::new(key, true) });
                Some(pick)
            }
            Look::Grown { .. } => {
                self.building = Some(Building::new(key, true));
                None
            }
            Look::Read { had_entry } => {
                self.building = Some(Building::new(key, had_entry));
                None
            }
        }
    }

    /// A part of a capture read in parts by several threads begins
    /// ([`crate::source::Part`]): its lines are gathered for the capture's
    /// entry (the index has none: it would be read whole, [`LineIndex::has`]).
    pub(super) fn begin_part(&mut self, cap: &Capture) {
        self.building = self.index.key(cap).map(|key| Building::new(key, false));
    }

    /// A part ended: its lines go to the capture's; after the last part,
    /// the capture's entry.
    pub(super) fn end_part(&mut self, cap: &Capture, part: &crate::source::Part<'_>) {
        let Some(b) = self.building.take() else { return };
        let kept = b.ordered && crate::diag::reports_here() == b.reports;
        let lines = PartLines { index: part.index, lines: b.lines, kept, end: b.end };
        self.updates.extend(self.index.part_end(b.key, cap, part.reading, lines, part.last));
    }

    /// Notes an event read, named `name` (the picked lines of a grown file
    /// are indexed already).
    pub(super) fn event(&mut self, ev: &Event<'_>, name: &str) {
        let Some(b) = &mut self.building else { return };
        let Some(site) = ev.site() else { return };
        if b.resume.is_some_and(|(from, _)| site.offset < from.offset) {
            return;
        }
        b.ordered &= b.lines.push(name, ev.line, site);
    }

    /// [`crate::source::Visitor::read_end`].
    pub(super) fn read_end(&mut self, end: &ReadEnd<'_>) {
        if let Some(b) = self.building.as_mut().filter(|_| end.index == 0) {
            let (resume, last) = b.resume.unzip();
            b.end = crate::cache::kept_end(end, resume, last.flatten());
        }
    }

    /// The capture ended: its entry, when its read can be kept.
    pub(super) fn end(&mut self, cap: &Capture) {
        let Some(b) = self.building.take() else { return };
        let silent = crate::diag::reports_here() == b.reports;
        match b.end {
            Some(end) if silent && b.ordered => self.updates.push(self.index.put(b.key, cap, &b.lines, end)),
            _ if b.had_entry => self.updates.push(Update::Drop(b.key)),
            _ => {}
        }
    }
}
