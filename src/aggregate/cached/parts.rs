//! ci-agg's capture cache for a capture read in parts by several threads
//! ([`crate::source::Part`]): the first part to start takes the verdict for
//! all ([`Cache::known`]), the parts' states are gathered as they end, and
//! the last part stores them as the capture's one entry.

use std::path::PathBuf;

use super::{encode, Begin, Cache, Kept, Span};
use crate::aggregate::query::Query;
use crate::aggregate::Answer;
use crate::cache::kept_end;
use crate::cache::{Entry, Identity, Update};
use crate::lines::Resume;
use crate::session::Capture;
use crate::source::{Known, ReadEnd};

/// A capture read in parts: answered from the cache, read without it, or
/// read for it (its parts' states gathered until the last part ends).
#[derive(Debug)]
pub(super) enum Split {
    Answered,
    Uncached,
    Reading(Box<Gathered>),
}

impl Split {
    /// What the parts already have.
    fn known(&self) -> Known {
        match self {
            Split::Answered => Known::All,
            Split::Reading(g) => g.resume.map_or(Known::Nothing, |(at, _)| Known::Until(at)),
            Split::Uncached => Known::Nothing,
        }
    }
}

/// The parts of a split capture read so far.
#[derive(Debug)]
pub(super) struct Gathered {
    had_entry: bool,
    context: u64,
    /// Where the parts read from (the kept state covers what is before),
    /// and the kept entry's last line.
    resume: Option<(Resume, Option<u64>)>,
    states: Vec<Answer>,
    untimed: u64,
    silent: bool,
    end: Option<(Identity, u64)>,
}

/// One part being read for the cache.
#[derive(Debug)]
pub struct PartReading {
    key: PathBuf,
    reading: u64,
    reports: u64,
}

impl Cache {
    /// [`crate::source::Visitor::known`] for a capture read in parts: the
    /// first part to ask takes the verdict for all, and gets the kept state
    /// to merge, once (answered whole, or what comes before the place the
    /// parts read from); the others get the same verdict.
    pub fn known(&self, q: &Query, cap: &Capture, reading: u64) -> (Known, Option<Begin>) {
        let key = (self.key(&cap.path), reading);
        let Ok(mut split) = self.split.lock() else { return (Known::Nothing, None) };
        if let Some(s) = split.get(&key) {
            return (s.known(), None);
        }
        // A windowed run reads split captures as without the cache.
        if self.windowed() {
            return (Known::Nothing, None);
        }
        let (state, merge) = match self.begin(q, cap, false) {
            answered @ Begin::Answered(..) => (Split::Answered, Some(answered)),
            Begin::Read(mut r) => {
                let mut g = Gathered {
                    had_entry: r.had_entry,
                    context: r.context,
                    resume: None,
                    states: vec![],
                    untimed: 0,
                    silent: true,
                    end: None,
                };
                let mut merge = None;
                if let (Some(at), Some(base)) = (r.resume, r.base.take()) {
                    g.resume = Some((at, r.base_last_line));
                    g.untimed = r.base_untimed;
                    g.states.push(base.clone());
                    merge = Some(Begin::Answered(Box::new(Kept::Answer(base)), r.base_untimed, None));
                }
                (Split::Reading(Box::new(g)), merge)
            }
            Begin::Uncached | Begin::Pruned(..) => (Split::Uncached, None),
        };
        let known = state.known();
        split.insert(key, state);
        (known, merge)
    }

    /// A part of `cap` begins: `None` when it is not read for the cache.
    pub fn part_begin(&self, cap: &Capture, reading: u64) -> Option<PartReading> {
        let key = self.key(&cap.path);
        let split = self.split.lock().ok()?;
        matches!(split.get(&(key.clone(), reading)), Some(Split::Reading(_))).then(|| PartReading {
            key,
            reading,
            reports: crate::diag::reports_here(),
        })
    }

    /// The last part of a capture read in parts tells how the file ended.
    pub fn part_read_end(&self, p: &PartReading, end: &ReadEnd<'_>) {
        let Ok(mut split) = self.split.lock() else { return };
        let Some(Split::Reading(g)) = split.get_mut(&(p.key.clone(), p.reading)) else { return };
        let (resume, kept_last) = g.resume.map_or((None, None), |(at, last)| (Some(at), last));
        g.end = kept_end(end, resume, kept_last);
    }

    /// A part ended with `answer` (its state) and `untimed` records; after
    /// the last part, the change to the store (the parts' states merged).
    pub fn part_end(&self, q: &Query, p: PartReading, answer: &Answer, untimed: u64, last: bool) -> Option<Update> {
        let silent = crate::diag::reports_here() == p.reports;
        let mut split = self.split.lock().ok()?;
        let key = (p.key, p.reading);
        let Some(Split::Reading(g)) = split.get_mut(&key) else { return None };
        g.states.push(answer.clone());
        g.untimed = g.untimed.saturating_add(untimed);
        g.silent &= silent;
        if !last {
            return None;
        }
        let Some(Split::Reading(g)) = split.remove(&key) else { return None };
        let (key, _) = key;
        let g = *g;
        let mut whole = Answer::for_capture(q);
        for s in g.states {
            whole.merge(s);
        }
        // Parts see only their own events: the span is not known (never pruned).
        let payload = g.end.filter(|_| g.silent).and_then(|end| Some((end, encode(&Span::default(), &whole, false)?)));
        match payload {
            Some(((identity, lines), payload)) => Some(Update::Put(
                key,
                Entry { identity, lines, untimed: g.untimed, used: self.now, context: g.context, payload },
            )),
            None if g.had_entry => Some(Update::Drop(key)),
            None => None,
        }
    }
}
