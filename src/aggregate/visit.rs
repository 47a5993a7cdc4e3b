//! The per-thread visitor that feeds events into the aggregation state.

use std::collections::HashMap;
use std::path::Path as FsPath;

use crate::diag::Diag;
use crate::discover;
use crate::predicate::nearest::Watch;
use crate::record::Event;
use crate::session::{Capture, SessionRecord};
use crate::source::{Flow, Visitor};

use super::cached::{self, Begin, Cache, Reading};
use super::calls::{self, call_keys, Calls, Tools};
use super::field::Context;
use super::query::{Preset, Query};
use super::session::{SessionKey, SessionState};
use super::Answer;

/// One worker thread's aggregation.
///
/// Events read from a capture belong to that capture's session: its call
/// pairing and session state end with the capture ([`Visitor::end`]). Piped
/// event records have no capture; their pairing and session state are kept by
/// session until every thread is done, because one session's records may be
/// spread over several threads ([`combine`]).
pub struct Aggregator<'q> {
    q: &'q Query,
    diag: &'q Diag,
    cx: Context,
    answer: Answer,
    /// Calls of the capture being read (`--tools`).
    calls: Calls,
    /// Calls of piped records.
    piped_calls: Calls,
    /// The session being read (`--sessions`).
    current: Option<SessionState>,
    /// Sessions of piped records.
    piped: HashMap<SessionKey, SessionState>,
    /// Session records of piped records, by provenance path and session id.
    records: HashMap<(String, String), Option<SessionRecord>>,
    /// Piped sessions whose companion file is to be read after the stream
    /// ([`Aggregator::piped_companions`]).
    companions_wanted: HashMap<SessionKey, SessionRecord>,
    /// The run reads piped sessions' companion files only: each capture's
    /// session state joins `piped` ([`Aggregator::for_companions`]).
    companions_only: bool,
    /// `--tokens` over a capture whose writer names the bytes every usage
    /// line holds: lines without them (nor a `\u` escape) yield no event.
    usage_bytes: Option<memchr::memmem::Finder<'static>>,
    /// The message key of the current response (a buffer reused per line).
    key: String,
    /// The capture cache, when on ([`super::cached`]).
    cache: Option<&'q Cache>,
    /// The capture being read for the cache, and the thread's answer
    /// without it (the capture's own answer is `answer` meanwhile).
    reading: Option<(Box<Reading>, Answer)>,
    /// A part of a split capture being read for the cache, and the
    /// thread's answer without it.
    part: Option<(cached::PartReading, Answer)>,
    /// Records counted without a usable timestamp.
    untimed: u64,
    /// What this thread changes in the cache.
    pub updates: Vec<crate::cache::Update>,
    /// Whether the run reads a time window (`--since`/`--until`).
    windowed: bool,
    /// A usage or cost metric met a response its writer writes on several
    /// lines ([`Query::usage_metric`]): the answer would count it several
    /// times. The formats of such responses, each once.
    pub repeated: Vec<&'static crate::format::Format>,
    /// Whether to look for such responses: the query has a usage or cost
    /// metric (decided once, not per event).
    watch_repeats: bool,
    /// The query's field paths, as the events read have them ([`Query::paths`]).
    pub watches: Vec<Watch>,
}

impl<'q> Aggregator<'q> {
    /// A visitor for `q`.
    pub fn new(q: &'q Query, diag: &'q Diag) -> Aggregator<'q> {
        Aggregator {
            q,
            diag,
            cx: Context::new(q),
            answer: Answer::new(q),
            calls: Calls::default(),
            piped_calls: Calls::default(),
            current: None,
            piped: HashMap::new(),
            records: HashMap::new(),
            companions_wanted: HashMap::new(),
            companions_only: false,
            usage_bytes: None,
            key: String::new(),
            cache: None,
            reading: None,
            part: None,
            untimed: 0,
            updates: Vec::new(),
            windowed: false,
            repeated: Vec::new(),
            watch_repeats: q.usage_metric().is_some(),
            watches: q.paths().into_iter().map(Watch::new).collect(),
        }
    }

    /// The visitor of a run that reads the events of `window` only
    /// ([`crate::source::RunOpts::window`]): `--sessions` then lists the
    /// sessions with an event in it, as `ci-find --since` lists them.
    pub fn with_window(mut self, window: crate::time::Interval) -> Aggregator<'q> {
        self.windowed = !window.is_open();
        self
    }

    /// The visitor, keeping each capture's answer in `cache` and answering
    /// from it ([`super::cached`]).
    pub fn with_cache(mut self, cache: Option<&'q Cache>) -> Aggregator<'q> {
        self.cache = cache;
        self
    }

    /// The visitor of the run that reads the companion files of piped
    /// sessions ([`Aggregator::piped_companions`], as captures without
    /// files of their own): each session's state is kept as a piped
    /// session's, for [`combine`] to join to the stream's.
    pub fn for_companions(mut self) -> Aggregator<'q> {
        self.companions_only = true;
        self
    }

    /// The piped sessions whose companion file ([`crate::format::Layout::companion`])
    /// the answer reads, as the direct read does: those whose stream held a
    /// `prompt:complete` (the Stop hook: the session's responses, which the
    /// companion holds, are among what the stream was filtered to keep).
    pub fn piped_companions(&self) -> impl Iterator<Item = (&SessionKey, &SessionRecord)> {
        self.companions_wanted.iter()
    }

    /// The usage-bytes pre-check for `--tokens` over `cap` ([`crate::format::Profile::usage_bytes`]).
    fn usage_finder(&self, cap: &Capture) -> Option<memchr::memmem::Finder<'static>> {
        if self.q.preset != Preset::Tokens {
            return None;
        }
        cap.format.profile.usage_bytes.map(memchr::memmem::Finder::new)
    }
}

/// A piped record's session id and record (looked up once per provenance
/// path and session in `records`).
fn piped_record<'r>(
    records: &'r mut HashMap<(String, String), Option<SessionRecord>>,
    ev: &Event<'_>,
) -> (String, Option<&'r SessionRecord>) {
    let id = ev.session().map(|s| s.into_owned()).unwrap_or_default();
    let path = ev.provenance().and_then(|p| p.get("path")).and_then(|p| p.as_str());
    let record = match path {
        Some(p) => records
            .entry((p.to_string(), id.clone()))
            .or_insert_with(|| discover::record_of_file(FsPath::new(p.as_ref()), &id))
            .as_ref(),
        None => None,
    };
    let record = record.filter(|r| r.session == id);
    (id, record)
}

/// The key of a session's state.
fn session_key(id: &str, record: Option<&SessionRecord>) -> SessionKey {
    (id.to_owned(), record.and_then(|r| r.project.clone()))
}

/// The state of a piped record's session.
fn piped_session<'s>(
    piped: &'s mut HashMap<SessionKey, SessionState>,
    records: &mut HashMap<(String, String), Option<SessionRecord>>,
    ev: &Event<'_>,
) -> &'s mut SessionState {
    let (id, record) = piped_record(records, ev);
    piped.entry(session_key(&id, record)).or_insert_with(|| SessionState::new(&id, record))
}

impl Visitor for Aggregator<'_> {
    fn needs_events(&mut self, raw: &[u8]) -> bool {
        match &self.usage_bytes {
            Some(f) => f.find(raw).is_some() || memchr::memmem::find(raw, b"\\u").is_some(),
            None => true,
        }
    }

    fn usage_only(&self) -> bool {
        self.usage_bytes.is_some()
    }

    /// `--by` and `--tokens` merge exactly whatever the split ([`Query::splits`]).
    fn splits(&self) -> bool {
        self.q.splits()
    }

    fn companion_begin(&mut self, cap: &Capture, _out: &mut Vec<u8>) {
        self.usage_bytes = self.usage_finder(cap);
    }

    fn known(&mut self, cap: &Capture, reading: u64) -> crate::source::Known {
        let Some(c) = self.cache_for(cap) else { return crate::source::Known::Nothing };
        let (known, kept) = c.known(self.q, cap, reading);
        if let Some(Begin::Answered(kept, untimed, touch)) = kept {
            self.updates.extend(touch);
            kept.merge_into(&mut self.answer);
            self.diag.add_untimed(untimed);
        }
        known
    }

    fn begin_part(&mut self, cap: &Capture, part: &crate::source::Part<'_>, _out: &mut Vec<u8>) -> bool {
        if let Some(p) = self.cache_for(cap).and_then(|c| c.part_begin(cap, part.reading)) {
            let total = cached::swap_in(&mut self.answer, self.q, None);
            self.untimed = 0;
            self.part = Some((p, total));
        }
        self.begin_reading(cap)
    }

    fn end_part(&mut self, cap: &Capture, part: &crate::source::Part<'_>, _out: &mut Vec<u8>) {
        self.end_capture(cap);
        if let (Some((p, total)), Some(c)) = (self.part.take(), self.cache) {
            let mine = std::mem::replace(&mut self.answer, total);
            self.updates.extend(c.part_end(self.q, p, &mine, self.untimed, part.last));
            self.answer.merge(mine);
        }
    }

    fn begin(&mut self, cap: &Capture, _out: &mut Vec<u8>) -> bool {
        if let Some(c) = self.cache_for(cap) {
            match c.begin(self.q, cap, self.companions()) {
                Begin::Answered(kept, untimed, touch) => {
                    self.updates.extend(touch);
                    kept.merge_into(&mut self.answer);
                    self.diag.add_untimed(untimed);
                    return false;
                }
                Begin::Pruned(untimed, touch) => {
                    self.updates.extend(touch);
                    self.diag.add_untimed(untimed);
                    return false;
                }
                Begin::Read(mut r) => {
                    let total = cached::swap_in(&mut self.answer, self.q, r.base.take());
                    self.untimed = 0;
                    self.reading = Some((r, total));
                }
                Begin::Uncached => {}
            }
        }
        self.begin_reading(cap)
    }

    fn event(&mut self, ev: &Event<'_>, _out: &mut Vec<u8>) -> Flow {
        let q = self.q;
        self.note_time(ev);
        // Piped records only: a capture may be answered from the cache, and a
        // warning must not depend on that (README: the capture cache).
        if ev.capture.is_none() {
            for w in &mut self.watches {
                w.observe(ev);
            }
        }
        let counted;
        let ev = match q.reads_counts().then(|| super::cost::damaged_count(ev)).flatten() {
            Some((usage, raw)) => {
                let (path, line) = ev.origin();
                let value = String::from_utf8_lossy(raw.bytes());
                let what = format!("{path}:{line}: damaged token count {} {value}: not counted", usage.name());
                self.diag.warn(&what);
                counted = ev.without_counts();
                &counted
            }
            None => ev,
        };
        if q.needs_agent() && ev.capture.is_some() && self.cx.capture_agent.is_none() && ev.name() == "session:fork" {
            self.cx.capture_agent = ev.fork_agent().map(|a| a.into_owned());
        }
        if ev.capture.is_none() {
            self.want_companion(ev);
        }
        match q.preset {
            // A piped record of a line the direct read would pass over.
            Preset::Tokens if ev.capture.is_none() && !ev.may_have_usage() => {}
            Preset::Group | Preset::Tokens => {
                if self.watch_repeats
                    && !self.repeated.contains(&ev.format())
                    && matches!(ev.name().as_ref(), "llm:response" | "llm:content")
                    && ev.message_key_into(&mut self.key)
                {
                    self.repeated.push(ev.format());
                }
                if let Answer::Groups(g) = &mut self.answer {
                    // A response its writer writes more than once is held by
                    // its identity and counted once at the end.
                    let held = q.preset == Preset::Tokens
                        && matches!(ev.name().as_ref(), "llm:response" | "llm:content")
                        && ev.message_key_into(&mut self.key);
                    let untimed =
                        if held { g.responses.add(q, ev, &mut self.cx, &self.key) } else { g.add(q, ev, &mut self.cx) };
                    if untimed {
                        self.diag.untimed();
                        self.untimed += 1;
                    }
                }
            }
            Preset::Tools => {
                let name = ev.name();
                // A session's end decides which of the sessions holding a
                // copied call owns it ([`super::copied_calls`]).
                if ev.copies_history()
                    && matches!(name.as_ref(), "llm:response" | "llm:content")
                    && ev.message_key_into(&mut self.key)
                {
                    if let (Answer::Tools(t), Some(at)) = (&mut self.answer, ev.timestamp()) {
                        t.held.response(&ev.session().unwrap_or_default(), at);
                    }
                }
                if calls::is_tool_event(&name) {
                    let session = ev.session().unwrap_or_default();
                    let target = if ev.capture.is_some() { &mut self.calls } else { &mut self.piped_calls };
                    let cx = &mut self.cx;
                    target.add(ev, &name, &session, || Some(call_keys(q, ev, cx)));
                }
            }
            Preset::Sessions => match (&mut self.current, ev.capture) {
                (Some(s), Some(_)) => s.event(ev, &mut self.cx.costing),
                _ => piped_session(&mut self.piped, &mut self.records, ev).event(ev, &mut self.cx.costing),
            },
        }
        Flow::Continue
    }

    /// A piped record out of the window may still be a session's
    /// `prompt:complete`, which wants the companion file read: its events are
    /// windowed on their own, as the direct read windows them. A capture's
    /// event out of the window counts in its kept span.
    fn outside_window(&mut self, ev: &Event<'_>) {
        match ev.capture {
            Some(_) => self.note_time(ev),
            None => self.want_companion(ev),
        }
    }

    /// `--sessions` and `--tokens` read a hooks session's transcript copy
    /// for its time, models and tokens.
    fn companions(&self) -> bool {
        matches!(self.q.preset, Preset::Sessions | Preset::Tokens)
    }

    fn companion_event(&mut self, ev: &Event<'_>, out: &mut Vec<u8>) -> Flow {
        match (&mut self.current, self.q.preset) {
            (Some(s), Preset::Sessions) => {
                s.companion(ev, &mut self.cx.costing);
                self.note_time(ev);
            }
            (_, Preset::Tokens) => return self.event(ev, out),
            _ => {}
        }
        Flow::Continue
    }

    fn start(&mut self, _cap: &Capture) -> Option<crate::lines::Resume> {
        self.reading.as_ref().and_then(|(r, _)| r.start())
    }

    fn read_end(&mut self, _cap: &Capture, end: &crate::source::ReadEnd<'_>) {
        if let Some((r, _)) = &mut self.reading {
            r.read_end(end);
        }
        if let (Some((p, _)), Some(c)) = (&self.part, self.cache) {
            c.part_read_end(p, end);
        }
    }

    fn end(&mut self, cap: &Capture, _out: &mut Vec<u8>) {
        self.end_capture(cap);
        if let (Some((r, total)), Some(c)) = (self.reading.take(), self.cache) {
            let mine = std::mem::replace(&mut self.answer, total);
            self.updates.extend(c.finish(*r, &mine, self.untimed));
            self.answer.merge(mine);
        }
    }
}

impl<'q> Aggregator<'q> {
    /// The cache for `cap`: none for a capture whose session record carries
    /// a time window (`ci-find --since 7d | ci-agg`), since a kept state
    /// holds every event of a capture and the window reads some.
    fn cache_for(&self, cap: &Capture) -> Option<&'q Cache> {
        self.cache.filter(|_| cap.record.as_ref().is_none_or(|r| r.window.is_none()))
    }

    /// Notes an event's time in the span of the capture being read for the
    /// cache ([`cached::Span`]), whether it is in the run's window or not.
    fn note_time(&mut self, ev: &Event<'_>) {
        if let Some((r, _)) = &mut self.reading {
            r.span.saw(ev);
        }
    }

    /// Notes the companion file of a piped record's session when the record
    /// is the session's `prompt:complete` and its writer has one
    /// ([`Aggregator::piped_companions`]).
    fn want_companion(&mut self, ev: &Event<'_>) {
        if !self.companions() || ev.name() != "prompt:complete" {
            return;
        }
        let (id, record) = piped_record(&mut self.records, ev);
        if let Some(r) = record.filter(|r| r.format.layout.companion(r).is_some()) {
            self.companions_wanted.entry(session_key(&id, Some(r))).or_insert_with(|| r.clone());
        }
    }

    /// What begins with a capture (or a part of one) being read.
    fn begin_reading(&mut self, cap: &Capture) -> bool {
        self.usage_bytes = self.usage_finder(cap);
        self.cx.capture_agent = cap.record.as_ref().and_then(|r| r.agent.clone());
        if self.q.preset == Preset::Sessions {
            self.current = Some(SessionState::new(&cap.session, cap.record.as_ref()));
        }
        true
    }

    /// What ends with a capture: its calls paired, its session summed up.
    fn end_capture(&mut self, cap: &Capture) {
        self.cx.capture_agent = None;
        if let Answer::Tools(t) = &mut self.answer {
            t.add_from(self.q, &mut self.calls);
        }
        if let Some(s) = self.current.take() {
            if self.companions_only {
                // A companion without an event (in the window) adds nothing:
                // the stream's events made the session, or none did.
                if !s.is_empty() {
                    self.piped.insert(session_key(&cap.session, cap.record.as_ref()), s);
                }
                return;
            }
            // A file named on its own (no session record: not in any writer's
            // layout) is a session only when it held events of a known writer
            // (one whose lines are all damaged is reported as no capture by
            // the engine); a discovered capture is one even while it is empty.
            // With a time window, a session is one when it had an event in it.
            let windowed = self.windowed || cap.record.as_ref().is_some_and(|r| r.window.is_some());
            if (cap.record.is_none() || windowed) && s.is_empty() {
                return;
            }
            self.answer.add_session(s.finish());
        }
    }
}

/// Combines the visitors of one run into one answer, pairing what piped
/// records left open across threads.
pub fn combine(q: &Query, visitors: Vec<Aggregator<'_>>) -> Answer {
    let mut answer = Answer::new(q);
    let mut piped_calls = Calls::default();
    let mut piped: HashMap<SessionKey, SessionState> = HashMap::new();
    for v in visitors {
        answer.merge(v.answer);
        piped_calls.merge(v.piped_calls);
        for (k, s) in v.piped {
            match piped.get_mut(&k) {
                Some(mine) => mine.merge(s),
                None => {
                    piped.insert(k, s);
                }
            }
        }
    }
    if !piped_calls.is_empty() {
        let mut tools = Answer::Tools(Tools::default());
        if let Answer::Tools(t) = &mut tools {
            t.add_from(q, &mut piped_calls);
        }
        answer.merge(tools);
    }
    for s in piped.into_values() {
        answer.add_session(s.finish());
    }
    answer
}
