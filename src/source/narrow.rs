//! `--session` over a run's inputs and its engine: the inputs narrowed
//! before anything is read when every session is known
//! ([`SessionIds::narrow_inputs`]), else a [`Narrow`] visitor noting every
//! session met and the rule checked at the end ([`SessionIds::check_stream`]).
//! The rule itself is [`crate::session_id`]'s.

use std::collections::BTreeMap;

use super::{captures_at, Flow, Input, Part, SessionFlow, Visitor};
use crate::diag::Diag;
use crate::error::Result;
use crate::format::Detail;
use crate::record::Event;
use crate::session::{Capture, SessionRecord};
use crate::session_id::SessionIds;

impl SessionIds {
    /// The inputs of a run with the rule applied before anything is read,
    /// when every input is a PATH: each is expanded into its captures now
    /// (`detail` as the run's) and the rule is applied over all of them; with
    /// `drop`, only the selected captures are kept. With stdin among the
    /// inputs (or no value given) they are returned as they are, and
    /// [`SessionIds::check_stream`] decides at the end.
    pub fn narrow_inputs(&self, inputs: Vec<Input>, drop: bool, detail: Detail, diag: &Diag) -> Result<Vec<Input>> {
        if self.is_empty() || has_stdin(&inputs) {
            return Ok(inputs);
        }
        let mut caps: Vec<Capture> = vec![];
        for input in &inputs {
            if let Input::Path(p) = input {
                caps.extend(captures_at(p, detail, diag));
            }
        }
        let selected = self.select(caps.iter().collect(), |c| (c.session.as_str(), c.display.as_str()), diag)?;
        if drop {
            caps = selected.into_iter().cloned().collect();
        }
        Ok(vec![Input::Captures(caps)])
    }

    /// After a run over `inputs` with visitors wrapped in [`Narrow`]: the
    /// rule over every session the stream held (when [`SessionIds::narrow_inputs`]
    /// could not decide it before).
    pub fn check_stream<V>(&self, inputs: &[Input], visitors: &[Narrow<'_, V>], diag: &Diag) -> Result<()> {
        if self.is_empty() || !has_stdin(inputs) {
            return Ok(());
        }
        let ids: Vec<(&str, &str)> =
            visitors.iter().flat_map(|v| v.seen.iter().map(|(id, at)| (id.as_str(), at.as_str()))).collect();
        self.check(&ids, true, diag).map(drop)
    }

    /// `visitor` narrowed to the selected sessions (`drop`: events and
    /// records of other sessions never reach it), noting the sessions met.
    /// Without `drop` it sees everything (a tool that selects sessions itself,
    /// e.g. `ci-filter --invert`), and only the noting is done here.
    pub fn narrow<V>(&self, visitor: V, drop: bool) -> Narrow<'_, V> {
        Narrow { inner: visitor, ids: self, drop, seen: BTreeMap::new() }
    }
}

fn has_stdin(inputs: &[Input]) -> bool {
    inputs.iter().any(|i| matches!(i, Input::Stdin))
}

/// A visitor seen through `--session` ([`SessionIds::narrow`]): it notes
/// the id (and where it is) of every session met, and with `drop` passes
/// on only what the selected sessions hold.
pub struct Narrow<'a, V> {
    /// The tool's visitor.
    pub inner: V,
    ids: &'a SessionIds,
    drop: bool,
    /// Session ids met, with where each is.
    seen: BTreeMap<String, String>,
}

impl<V> Narrow<'_, V> {
    /// Notes session `id` (at `at`) and tells whether it passes.
    fn meet(&mut self, id: &str, at: &str) -> bool {
        if self.ids.is_empty() {
            return true;
        }
        if !self.seen.contains_key(id) {
            self.seen.insert(id.to_owned(), at.to_owned());
        }
        !self.drop || self.ids.matches(id)
    }
}

impl<V> Narrow<'_, V> {
    /// Whether event `ev` passes: a piped event record by its own session
    /// (noted), a capture's event always (its session was met in `begin`).
    fn passes(&mut self, ev: &Event<'_>) -> bool {
        if ev.capture.is_some() || self.ids.is_empty() {
            return true;
        }
        let id = ev.session().unwrap_or_default();
        let at = ev.provenance().and_then(|p| p.get("path")?.as_str()).unwrap_or_default();
        self.meet(&id, &at)
    }
}

impl<V: Visitor> Visitor for Narrow<'_, V> {
    fn session(&mut self, rec: &SessionRecord, line: &[u8], out: &mut Vec<u8>) -> SessionFlow {
        if !self.meet(&rec.session, &rec.path) {
            return SessionFlow::Handled;
        }
        self.inner.session(rec, line, out)
    }

    fn lazy(&self) -> bool {
        self.inner.lazy()
    }

    fn begin(&mut self, cap: &Capture, out: &mut Vec<u8>) -> bool {
        self.meet(&cap.session, &cap.display) && self.inner.begin(cap, out)
    }

    fn start(&mut self, cap: &Capture) -> Option<crate::lines::Resume> {
        self.inner.start(cap)
    }

    fn pick(&mut self, cap: &Capture) -> Option<crate::source::Pick> {
        self.inner.pick(cap)
    }

    fn read_end(&mut self, cap: &Capture, end: &crate::source::ReadEnd<'_>) {
        self.inner.read_end(cap, end)
    }

    fn splits(&self) -> bool {
        self.inner.splits()
    }

    fn known(&mut self, cap: &Capture, reading: u64) -> crate::source::Known {
        match self.meet(&cap.session, &cap.display) {
            true => self.inner.known(cap, reading),
            false => crate::source::Known::Nothing,
        }
    }

    fn begin_part(&mut self, cap: &Capture, part: &Part<'_>, out: &mut Vec<u8>) -> bool {
        self.meet(&cap.session, &cap.display) && self.inner.begin_part(cap, part, out)
    }

    fn end_part(&mut self, cap: &Capture, part: &Part<'_>, out: &mut Vec<u8>) {
        self.inner.end_part(cap, part, out)
    }

    fn line(&mut self, number: u64) -> Flow {
        self.inner.line(number)
    }

    fn precheck(&mut self, raw: &[u8]) -> bool {
        self.inner.precheck(raw)
    }

    fn needs_events(&mut self, raw: &[u8]) -> bool {
        self.inner.needs_events(raw)
    }

    fn usage_only(&self) -> bool {
        self.inner.usage_only()
    }

    fn reads_tools(&self) -> bool {
        self.inner.reads_tools()
    }

    fn event(&mut self, ev: &Event<'_>, out: &mut Vec<u8>) -> Flow {
        match self.passes(ev) {
            true => self.inner.event(ev, out),
            false => Flow::Continue,
        }
    }

    fn outside_window(&mut self, ev: &Event<'_>) {
        if self.passes(ev) {
            self.inner.outside_window(ev)
        }
    }

    fn end(&mut self, cap: &Capture, out: &mut Vec<u8>) {
        self.inner.end(cap, out)
    }

    fn following(&mut self) {
        self.inner.following()
    }

    fn companions(&self) -> bool {
        self.inner.companions()
    }

    fn companion_begin(&mut self, cap: &Capture, out: &mut Vec<u8>) {
        self.inner.companion_begin(cap, out)
    }

    fn companion_event(&mut self, ev: &Event<'_>, out: &mut Vec<u8>) -> Flow {
        self.inner.companion_event(ev, out)
    }
}
