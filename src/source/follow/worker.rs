//! A worker in follow mode: units read as they arrive, and in between the
//! files read so far polled for new lines, within the budget of open files.

use std::fs::File;
use std::io;
use std::path::Path;

use crossbeam_channel::{Receiver, RecvTimeoutError, TryRecvError};

use crate::source::capture::Read;
use crate::source::deal::Unit;
use crate::source::follow;
use crate::source::worker::Worker;
use crate::source::Visitor;

impl Worker<'_> {
    /// Follow mode: reads each unit as it arrives (a session record on a live
    /// stdin is read, then followed, at once) and, in between, polls the
    /// files read so far for new lines. Ends on a stop, when stdout's reader
    /// is gone, or when the inputs ended and nothing is left to follow.
    pub(in crate::source) fn run_following<V: Visitor>(&mut self, v: &mut V, rx: &Receiver<Vec<Unit>>) {
        let mut inputs_open = true;
        let mut polling = false;
        let mut listed = std::time::Instant::now();
        // A stop, or the writer gone (the diagnostics stopped: stdout's
        // reader went away while nothing was held here to hand on).
        while !crate::signal::stop_requested() && !self.diag.is_stopped() {
            while inputs_open && !crate::signal::stop_requested() {
                match rx.try_recv() {
                    Ok(units) => {
                        if !self.units_now(v, units) {
                            return;
                        }
                    }
                    Err(TryRecvError::Empty) => break,
                    Err(TryRecvError::Disconnected) => inputs_open = false,
                }
            }
            if !inputs_open && self.followed.is_empty() && self.followed_rows.is_empty() {
                break;
            }
            if !polling {
                v.following();
                polling = true;
            }
            if listed.elapsed() >= follow::RELIST {
                self.adopt_new_files();
                listed = std::time::Instant::now();
            }
            let Some(progressed) = self.poll_all(v) else { return };
            let Some(rows) = self.poll_rows(v) else { return };
            let progressed = progressed || rows;
            if !self.hand_on() {
                return;
            }
            if progressed {
                continue;
            }
            // Quiet: what a followed mutation log held is printed.
            if self.release_held(v, false) == crate::source::Flow::Stop || !self.hand_on() {
                return;
            }
            if follow::stdout_closed() {
                // Tells the engine (and the producer) the reader is gone.
                self.diag.stop();
                return;
            }
            // Idle: wait for the next unit, or one poll interval.
            if !inputs_open {
                follow::nap();
                continue;
            }
            match rx.recv_timeout(follow::POLL) {
                Ok(units) => {
                    if !self.units_now(v, units) {
                        return;
                    }
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => inputs_open = false,
            }
        }
        self.release_held(v, true);
        self.hand_on();
    }

    /// Follow mode: makes the writer's state of `cap` the current one
    /// (new for a capture not read yet), keeping the one it replaces for
    /// its capture ([`follow::States`]).
    pub(in crate::source) fn use_state_of(&mut self, cap: &crate::session::Capture) {
        let key = (cap.session.clone(), cap.path.clone());
        if self.states.current.as_ref() == Some(&key) {
            return;
        }
        let state = self.states.kept.remove(&key).unwrap_or_default();
        let old = std::mem::replace(&mut self.parts.state, state);
        if let Some(owner) = self.states.current.replace(key) {
            self.states.kept.insert(owner, old);
        }
    }

    /// Follow mode: reads units and hands their output on at once; false
    /// when the writer is gone or a stop was asked for.
    pub(in crate::source) fn units_now<V: Visitor>(&mut self, v: &mut V, units: Vec<Unit>) -> bool {
        units.into_iter().all(|unit| !self.diag.is_stopped() && self.unit(v, unit) && self.finish_unit())
    }

    /// Follows the files the followed sessions have now and did not have
    /// when read (a Claude subagent's transcript written later): the record
    /// of each session active lately ([`follow::ACTIVE`]) is made again from
    /// its path ([`Layout::record_of_file`]), and each of its files not
    /// followed yet is followed from its first line (read at the next poll;
    /// a database from its first row).
    /// A file that cannot be opened is left for the next listing.
    ///
    /// [`Layout::record_of_file`]: crate::format::Layout::record_of_file
    fn adopt_new_files(&mut self) {
        let now = std::time::SystemTime::now();
        let known: std::collections::HashSet<std::path::PathBuf> =
            self.followed.iter().map(|f| f.path.clone()).collect();
        let mut sessions: Vec<&crate::session::Capture> = Vec::new();
        for f in &self.followed {
            if f.cap.record.is_none() || sessions.iter().any(|c| c.path == f.cap.path) {
                continue;
            }
            // Until it grows while followed: when its file was last written.
            let grew = *self.grew.entry(f.cap.path.clone()).or_insert_with(|| {
                std::fs::metadata(&f.cap.path).and_then(|m| m.modified()).unwrap_or(std::time::UNIX_EPOCH)
            });
            if now.duration_since(grew).unwrap_or_default() <= follow::ACTIVE {
                sessions.push(&f.cap);
            }
        }
        let cx = crate::discover::cx();
        let mut adopted = Vec::new();
        let mut new_rows = Vec::new();
        for cap in sessions {
            let Some(rec) = cap.format.layout.record_of_file(&cap.path, &cap.session, &cx) else { continue };
            for path in cap.format.layout.files(&rec) {
                if known.contains(&path) || adopted.iter().any(|(p, _): &(std::path::PathBuf, _)| *p == path) {
                    continue;
                }
                // A database (a Copilot store made after the start) is
                // followed by its rows, from the next poll.
                if crate::lines::rows::is_database(&path) {
                    if !self.followed_rows.iter().any(|r| r.is(cap, &path))
                        && !new_rows.iter().any(|r: &follow::FollowedRows| r.is(cap, &path))
                    {
                        new_rows.push(follow::FollowedRows::new(cap, &path));
                    }
                    continue;
                }
                let Ok(file) = crate::files::open_regular(&path) else { continue };
                let display = path.to_string_lossy().into_owned();
                let lines = crate::lines::LineReader::with_buffer(file, Vec::new());
                adopted.push((path.clone(), follow::Followed::new(cap.clone(), path, display, lines)));
            }
        }
        for (_, f) in adopted {
            self.keep_following(f);
        }
        self.followed_rows.append(&mut new_rows);
    }

    /// Polls every followed file once; `Some(true)` when lines were read,
    /// `None` when the writer is gone.
    pub(in crate::source) fn poll_all<V: Visitor>(&mut self, v: &mut V) -> Option<bool> {
        let mut files = std::mem::take(&mut self.followed);
        let mut progressed = false;
        let mut result = Some(());
        for f in files.iter_mut() {
            match self.poll(v, f) {
                Some(p) => {
                    if p {
                        self.grew.insert(f.cap.path.clone(), std::time::SystemTime::now());
                    }
                    progressed |= p;
                }
                None => {
                    result = None;
                    break;
                }
            }
            if crate::signal::stop_requested() {
                break;
            }
        }
        files.retain(|f| !f.done);
        // Files of captures read while polling (none today) come after.
        files.append(&mut self.followed);
        self.followed = files;
        self.kept_open = self.followed.iter().filter(|f| f.is_open_between_polls()).count();
        result.map(|()| progressed)
    }

    /// Reads what was appended to a followed file, dealing with truncation
    /// and rotation first. `Some(true)` when lines were read, `None` when the
    /// writer is gone.
    pub(in crate::source) fn poll<V: Visitor>(&mut self, v: &mut V, f: &mut follow::Followed) -> Option<bool> {
        use follow::Change;
        let mut progressed = false;
        match f.change(self.diag, &mut self.buffer) {
            Change::Wait => return Some(false),
            Change::Same => {}
            Change::Replaced(file) => {
                // Drain the old file first: lines written before the rename.
                progressed |= self.poll_lines(v, f)?;
                f.switch_to(file, self.diag);
            }
        }
        if !f.done {
            progressed |= self.poll_lines(v, f)?;
        }
        f.rest(&mut self.buffer);
        Some(progressed)
    }

    /// Reads the complete lines a followed file has now; `Some(true)` when
    /// there were some, `None` when the writer is gone.
    pub(in crate::source) fn poll_lines<V: Visitor>(&mut self, v: &mut V, f: &mut follow::Followed) -> Option<bool> {
        let Some((cap, display, lines)) = f.reading() else { return Some(false) };
        self.use_state_of(cap);
        let before = lines.line_number();
        let read = self.capture_lines(v, cap, display, lines, true);
        let progressed = lines.line_number() != before;
        match read {
            Read::Done => {}
            Read::Stopped => f.done = true,
            Read::Gone => return None,
        }
        Some(progressed)
    }

    /// Opens a capture file to read; following, when no descriptor is free,
    /// followed files are closed between polls ([`Worker::park_one`]) until
    /// one is.
    pub(in crate::source) fn open_capture_file(&mut self, path: &Path) -> io::Result<File> {
        loop {
            match crate::files::open_regular(path) {
                Err(e) if self.follow && follow::out_of_descriptors(&e) && self.park_one() => {}
                opened => return opened,
            }
        }
    }

    /// Follows a file read to its end: open between polls while the budget
    /// allows, else closed between them.
    pub(in crate::source) fn keep_following(&mut self, mut f: follow::Followed) {
        if self.kept_open < self.open_budget {
            self.kept_open += 1;
        } else {
            f.park(&mut self.buffer);
        }
        self.followed.push(f);
    }

    /// Out of descriptors though within the budget (something else holds
    /// some): the followed file opened last is closed between polls from now
    /// on, and the budget shrinks to what stays open. False when none is open.
    pub(in crate::source) fn park_one(&mut self) -> bool {
        let Some(f) = self.followed.iter_mut().rev().find(|f| f.is_open_between_polls()) else {
            return false;
        };
        f.park(&mut self.buffer);
        self.kept_open -= 1;
        self.open_budget = self.kept_open;
        true
    }
}
