//! Reading one capture: each of its files in its writer's order, line by
//! line, each valid event to the visitor; a session's companion file after
//! its events; a file that is no capture at all reported.

use std::path::Path;

use super::follow;
use super::picked::Picked;
use super::worker::{Ends, Worker, CHUNK};
use super::{Flow, Pick, ReadEnd, Tail, Visitor};
use crate::format;
use crate::lines::{LineReader, LineSource, Site};
use crate::record::Event;
use crate::session::Capture;
use crate::time::Interval;

/// A visitor seen through its companion-file side: events go to
/// [`Visitor::companion_event`].
pub(super) struct Companion<'v, V>(&'v mut V);

impl<V: Visitor> Visitor for Companion<'_, V> {
    fn event(&mut self, ev: &Event<'_>, out: &mut Vec<u8>) -> Flow {
        self.0.companion_event(ev, out)
    }

    fn outside_window(&mut self, ev: &Event<'_>) {
        self.0.outside_window(ev)
    }

    fn begin(&mut self, cap: &Capture, out: &mut Vec<u8>) -> bool {
        self.0.companion_begin(cap, out);
        true
    }

    fn needs_events(&mut self, raw: &[u8]) -> bool {
        self.0.needs_events(raw)
    }

    fn usage_only(&self) -> bool {
        self.0.usage_only()
    }
}

/// Visits the events of one line of a capture: one, or (for a writer whose
/// lines can hold several) each part in turn; only those in the time window
/// ([`super::RunOpts::window`]).
#[allow(clippy::too_many_arguments)]
pub(super) fn visit_line<V: Visitor>(
    v: &mut V,
    out: &mut Vec<u8>,
    lines: &mut LineState,
    rec: crate::json::Record<'_>,
    cap: &Capture,
    (line, site): (u64, Site),
    source: &str,
    diag: &crate::diag::Diag,
) -> Flow {
    let dialect = cap.format.dialect;
    dialect.observe(&rec, &mut lines.state);
    let window = match cap.record.as_ref().and_then(|r| r.window) {
        Some(w) => lines.window.and(w),
        None => lines.window,
    };
    if !cap.format.profile.multi_part {
        let ev = Event::read(rec, cap, line, source, None, &lines.state, site);
        return visit_event(v, &ev, &window, diag, out);
    }
    lines.parts.clear();
    dialect.parts(&rec, &mut lines.state, &mut lines.parts);
    for &part in &lines.parts {
        let ev = Event::read(rec, cap, line, source, Some(part), &lines.state, site);
        if visit_event(v, &ev, &window, diag, out) == Flow::Stop {
            return Flow::Stop;
        }
    }
    Flow::Continue
}

/// Visits `ev` when it is in `window`, else tells the visitor it is not
/// ([`Visitor::outside_window`]).
pub(super) fn visit_event<V: Visitor>(
    v: &mut V,
    ev: &Event<'_>,
    window: &Interval,
    diag: &crate::diag::Diag,
    out: &mut Vec<u8>,
) -> Flow {
    if in_window(window, ev, diag) {
        return v.event(ev, out);
    }
    v.outside_window(ev);
    Flow::Continue
}

/// Whether `ev` is in `window`: always when the window is open; else when
/// its time is in it. An event without a usable time is not, and is counted
/// in the summary line ([`Diag::untimed`](crate::diag::Diag::untimed)),
/// unless its writer never stamps such lines ([`Event::untimed_by_design`]).
pub(super) fn in_window(window: &Interval, ev: &Event<'_>, diag: &crate::diag::Diag) -> bool {
    if window.is_open() {
        return true;
    }
    match ev.timestamp() {
        Some(t) => window.contains(t),
        // A line its writer never stamps is outside any window, silently.
        None if ev.untimed_by_design() => false,
        None => {
            diag.untimed();
            false
        }
    }
}

/// A worker's state of the capture being read, for writers whose lines
/// yield several events, and the run's time window.
#[derive(Default)]
pub(super) struct LineState {
    pub(super) state: format::ReadState,
    pub(super) parts: Vec<u32>,
    /// The run's time window ([`super::RunOpts::window`]).
    pub(super) window: Interval,
}

/// How reading one file of a capture ended.
pub(super) enum Read {
    /// At its end.
    Done,
    /// The visitor stopped the capture.
    Stopped,
    /// The writer is gone.
    Gone,
}

impl Worker<'_> {
    /// Reads a capture: each of its files in turn (in its writer's reading
    /// order), each with its own line numbers and shown as its own path (the
    /// capture's own path as the capture shows it).
    pub(super) fn capture<V: Visitor>(&mut self, v: &mut V, cap: &Capture) -> bool {
        if !v.begin(cap, &mut self.out) {
            return true;
        }
        if self.follow {
            self.use_state_of(cap);
        } else {
            self.parts.state.clear();
            cap.format.layout.prime(cap, &mut self.parts.state);
        }
        (self.lines_ok, self.lines_bad) = (0, 0);
        let files: Vec<(&Path, String)> = cap
            .files
            .iter()
            .map(|f| {
                let display = if *f == cap.path { cap.display.clone() } else { f.to_string_lossy().into_owned() };
                (f.as_path(), display)
            })
            .collect();
        let order = cap.format.profile.order;
        if order != format::Order::File && !self.follow {
            if let Some(session) = self.ordered(cap, &files, order) {
                return self.visit_ordered(v, cap, &files, session);
            }
        }
        for (index, (path, display)) in files.iter().enumerate() {
            // A writer whose files are JSON arrays reads them element by
            // element (never followed: such files are rewritten whole); a
            // database's rows are followed (follow::rows).
            if let Some(mut elements) =
                cap.format.layout.lines_of(cap, path, display, &crate::discover::cx(), self.diag)
            {
                let read = match elements.as_rows() {
                    Some(rows) if self.follow => self.read_rows_to_follow(v, cap, (path, display), rows),
                    Some(rows) if v.usage_only() => {
                        rows.usage_only();
                        self.capture_lines(v, cap, display, &mut *elements, false)
                    }
                    _ => self.capture_lines(v, cap, display, &mut *elements, false),
                };
                match read {
                    Read::Done => continue,
                    Read::Stopped => break,
                    Read::Gone => return false,
                }
            }
            let mut file = match self.open_capture_file(path) {
                Ok(f) => f,
                Err(e) => {
                    self.diag.error(&format_args!("{display}: {e}"));
                    continue;
                }
            };
            // One plain file: the visitor may know its start already (the
            // capture cache), and is told how its lines ended.
            let single = files.len() == 1 && !self.follow;
            let pick = if single { v.pick(cap) } else { None };
            let at = match &pick {
                // The picked lines, then the rest of the file from `then` (if any).
                Some(pick) => match (self.picked(v, cap, display, &file, pick), pick.then) {
                    (Read::Done, Some(then)) => Some(then),
                    (Read::Done, None) => continue,
                    (Read::Stopped, _) => break,
                    (Read::Gone, _) => return false,
                },
                None if single => v.start(cap),
                None => None,
            };
            if let Some(at) = at {
                if let Err(e) = std::io::Seek::seek(&mut file, std::io::SeekFrom::Start(at.offset)) {
                    self.diag.error(&format_args!("{display}: {e}"));
                    continue;
                }
            }
            let mut lines = LineReader::with_buffer(file, std::mem::take(&mut self.buffer));
            let at = at.unwrap_or_default();
            lines.restart_at(at);
            self.file_ends = Ends::at(at);
            let read = self.capture_lines(v, cap, display, &mut lines, self.follow);
            if !self.follow && matches!(read, Read::Done) {
                self.read_end(v, cap, index, lines.get_ref());
            }
            if self.follow && matches!(read, Read::Done) {
                self.keep_following(follow::Followed::new(cap.clone(), path.to_path_buf(), display.clone(), lines));
            } else {
                self.buffer = lines.into_buffer();
            }
            match read {
                Read::Done => {}
                Read::Stopped => break,
                Read::Gone => return false,
            }
        }
        self.not_a_capture(cap);
        self.companion(v, cap);
        v.end(cap, &mut self.out);
        true
    }

    /// Reads the lines of `file` a visitor picked ([`Visitor::pick`]).
    fn picked<V: Visitor>(
        &mut self,
        v: &mut V,
        cap: &Capture,
        display: &str,
        file: &std::fs::File,
        pick: &Pick,
    ) -> Read {
        let mut lines = Picked::new(file, &pick.lines, std::mem::take(&mut self.buffer));
        let read = self.capture_lines(v, cap, display, &mut lines, false);
        self.buffer = lines.into_buffer();
        read
    }

    /// Tells the visitor how the file just read to its end ended
    /// ([`Visitor::read_end`]).
    pub(super) fn read_end<V: Visitor>(&self, v: &mut V, cap: &Capture, index: usize, file: &std::fs::File) {
        let e = self.file_ends;
        let (whole, last_line_at, lines, tail) = (e.whole, e.last_line_at, e.lines, e.tail);
        v.read_end(cap, &ReadEnd { index, file, whole, last_line_at, lines, tail });
    }

    /// A file named as PATH in no writer's layout of which not one line
    /// was an event, and some line was damaged, is not a capture at all
    /// (`/etc/hostname`): an error naming it (exit 2), beside the reports of
    /// its lines. An empty file is an empty capture.
    pub(super) fn not_a_capture(&self, cap: &Capture) {
        if cap.record.is_none() && !self.follow && self.lines_ok == 0 && self.lines_bad > 0 {
            self.diag.error(&format_args!(
                "{}: not a capture: no line of it is an event of a writer the tools read",
                cap.display
            ));
        }
    }

    /// Reads a session's companion file for a visitor that wants it
    /// ([`Visitor::companions`]), as a capture of the companion's writer.
    pub(super) fn companion<V: Visitor>(&mut self, v: &mut V, cap: &Capture) {
        if !v.companions() || self.follow {
            return;
        }
        let Some((path, writer)) = cap.record.as_ref().and_then(|r| cap.format.layout.companion(r)) else {
            return;
        };
        let display = path.to_string_lossy().into_owned();
        let side = Capture {
            session: cap.session.clone(),
            path: path.clone(),
            display: display.clone(),
            workspace: cap.workspace.clone(),
            format: writer,
            record: None,
            files: vec![path.clone()],
        };
        let file = match crate::files::open_regular(&path) {
            Ok(f) => f,
            Err(e) => {
                self.diag.error(&format_args!("{display}: {e}"));
                return;
            }
        };
        let mut lines = LineReader::new(file);
        self.parts.state.clear();
        self.file_ends = Ends::at(Default::default());
        let mut side_v = Companion(v);
        side_v.begin(&side, &mut self.out);
        // The session record's window (`ci-find --since`) holds for the
        // companion's events as for the session's own.
        let run_window = self.parts.window;
        if let Some(w) = cap.record.as_ref().and_then(|r| r.window) {
            self.parts.window = run_window.and(w);
        }
        let read = self.capture_lines(&mut side_v, &side, &display, &mut lines, false);
        self.parts.window = run_window;
        if let Read::Done = read {
            // Told as the file after the capture's own.
            self.read_end(v, cap, cap.files.len(), lines.get_ref());
        }
    }

    pub(super) fn capture_lines<V: Visitor, L: LineSource + ?Sized>(
        &mut self,
        v: &mut V,
        cap: &Capture,
        display: &str,
        lines: &mut L,
        follow: bool,
    ) -> Read {
        let lazy = v.lazy();
        let dialect = cap.format.dialect;
        loop {
            if crate::signal::stop_requested() || self.diag.is_stopped() {
                // A signal when following: finish here, the loop flushes.
                // Else interrupted, or stdout's reader is gone (the
                // diagnostics stopped): leave.
                if follow && !self.diag.is_stopped() {
                    break;
                }
                return Read::Gone;
            }
            let next = if follow { lines.next_complete_line() } else { lines.next_line() };
            let line = match next {
                Ok(Some(l)) => l,
                Ok(None) => break,
                Err(e) => {
                    self.diag.error(&format_args!("{}:{}: {e}", display, lines.line_number() + 1));
                    break;
                }
            };
            self.file_ends.line(&line);
            let skip = match v.line(line.number) {
                Flow::Continue => false,
                Flow::Skip => true,
                Flow::Stop => return Read::Stopped,
            };
            if line.too_long {
                if !skip {
                    self.lines_bad += 1;
                    self.diag.bad_line(&display, line.number, &crate::lines::TooLong);
                }
                continue;
            }
            let pre = !skip && (!line.terminated || v.precheck(line.bytes));
            // A line the tool skips is still observed when it may change what
            // the writer keeps of earlier lines (its later events depend on it).
            let observed = dialect.observes(line.bytes) || v.reads_tools() && dialect.starts_calls(line.bytes);
            if !(pre || line.terminated && observed) {
                continue;
            }
            let wanted = pre && (!line.terminated || v.needs_events(line.bytes));
            // A line only observed is skimmed: its damage is not reported
            // (the tool skips it), and the writer reads a few keys of it.
            let parsed = if lazy || !pre { self.idx.skim(line.bytes) } else { self.idx.parse(line.bytes) };
            if !pre {
                if let Ok(rec) = parsed {
                    if dialect.accept(&rec).is_ok() {
                        dialect.observe(&rec, &mut self.parts.state);
                    }
                }
                continue;
            }
            match parsed {
                Ok(rec) => match dialect.accept(&rec) {
                    Ok(()) => {
                        self.lines_ok += 1;
                        if !wanted {
                            dialect.observe(&rec, &mut self.parts.state);
                        } else if follow && cap.format.profile.order == format::Order::LastCopy {
                            let change = super::held::Change::of(dialect, &rec);
                            let copy = super::held::Copy::of(&line, display);
                            if self.hold(v, cap, change, copy) == Flow::Stop {
                                return Read::Stopped;
                            }
                        } else if visit_line(
                            v,
                            &mut self.out,
                            &mut self.parts,
                            rec,
                            cap,
                            (line.number, line.site),
                            display,
                            self.diag,
                        ) == Flow::Stop
                        {
                            return Read::Stopped;
                        }
                    }
                    Err(reason) => {
                        self.lines_bad += 1;
                        self.diag.bad_line(&display, line.number, &reason);
                    }
                },
                Err(e) if crate::lines::held_back(line.bytes, line.terminated, &e) => {
                    self.file_ends.tail = Tail::Held;
                    self.diag.torn_tail()
                }
                Err(e) => {
                    self.lines_bad += 1;
                    self.diag.bad_line(&display, line.number, &crate::lines::BadLine(line.bytes, &e));
                }
            }
            if self.out.len() >= CHUNK && !self.send() {
                return Read::Gone;
            }
        }
        Read::Done
    }
}
