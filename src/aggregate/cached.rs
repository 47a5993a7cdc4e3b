//! ci-agg's capture cache: each capture's answer to a question, kept so that a
//! later run of the same question reads only what changed.
//!
//! A question's state is mergeable ([`super::partial`]: that is what
//! `--partial`/`--merge` and the worker threads rely on), so the state of
//! each capture can be kept on its own and merged again later with the
//! same result. The cache ([`crate::cache::Store`], one file per question)
//! keeps, per capture file, its [`Identity`] when read and the question's
//! state of its whole lines, in the `--partial` line form. On a later run:
//!
//! - a capture whose file is as it was (one `stat`) is not read at all: its
//!   kept state is merged in;
//! - one that grew, of a writer whose lines are independent
//!   ([`crate::format::Profile::lines_independent`]: Amplifier), for a
//!   `--by`/`--tokens` question that does not read the session's agent, is
//!   read from its old end on, on top of its kept state;
//! - anything else (rotated, shrunk, rewritten, or grown where earlier
//!   lines matter) is read again from the start.
//!
//! A large capture read in parts by several threads ([`crate::source::Part`])
//! is kept as one entry: the first part to start takes the verdict for all
//! ([`Cache::known`]); the parts' states are gathered and the last part
//! stores them together; grown, only the parts from the kept end on read.
//!
//! A `--sessions` state is kept with the calls and responses it holds for
//! settling against other sessions' copies (Claude Code copies a resumed
//! session's history into the new file): [`super::bin::encode_sessions`].
//!
//! Only captures that read silently are kept: a capture with a bad line, an
//! error, or a last line read unfinished is read again every run, so the
//! run prints the same reports and exits the same way as without the cache.
//! An unfinished last line held back is not kept (the entry ends before it)
//! and is read again. Records without a usable timestamp are counted in the
//! entry and counted again when it answers.
//!
//! Percentiles (`--p50`, `--p95`, `--p99`, `--stats`, `--tools`' latency):
//! past [`super::stat::EXACT_MAX`] values a thread's state is a t-digest,
//! whose estimate depends on the order values arrive in. A capture's state is
//! therefore kept as the tape of its values ([`super::stat::Quantiles`]) and
//! merged by adding them one by one where the capture's turn is, which is what
//! reading it gives.
//!
//! A session read whole and visited in another order than its files'
//! (time order, or a mutation log's last copies: [`crate::format::Order`])
//! is kept whole too: its files' ends are told once it is visited; changed,
//! it is read whole again (never from its kept end).
//!
//! A session of a database is one entry, keyed by the database's path and
//! the session id ([`crate::cache::database`]): answered while the
//! database's and its `-wal`'s stats are as they were, else while its rows'
//! fingerprint is; read again whole otherwise ([`rows`]).
//!
//! Not cached (always read): a writer's JSON array file (read element by
//! element); piped event records.
//!
//! A capture of several files (a Claude Code session and its subagent
//! transcripts; a hooks session and the transcript copy `--tokens` and
//! `--sessions` read after its events) is one entry: its first file is
//! checked as above, the others by their [`Stat`] (hashed into the entry's
//! context) and only while each was modified well before the entry was
//! written; any change to one of them reads the whole capture again.

use std::mem;
use std::path::{Path, PathBuf};

use crate::cache::kept_end;
use crate::cache::{Entry, Fresh, Identity, Stat, Store, Update};
use crate::diag::Diag;
use crate::lines::Resume;
use crate::session::Capture;
use crate::source::{ReadEnd, Tail};

use super::bin;
use super::query::{Preset, Query};
use super::responses::Responses;

mod parts;
mod rows;
mod span;

pub use self::parts::PartReading;
use self::parts::Split;
pub use self::span::Span;
use super::Answer;

/// Bumped when what an entry's state means changes without the crate
/// version changing: older files then belong to another question's name.
/// 4: a response's best copy is named by its absolute path (issue 38, D4),
/// float sums keep their exact partials (D3), Claude Code progress lines
/// yield their subagents' responses (issue 31, item 5). 5: a Codex fork's
/// copy of its parent's history is `copy:…` events, none counted (issue 38).
/// 6: a held response keeps the best copy of each session holding one, with
/// its session and time (issue 38: a session's totals never include what it
/// copied from another). 7: a `--tools` state holds the calls of a writer
/// that copies history, and its sessions' ends, until the run ends. 8: a
/// payload starts with the capture's [`Span`] (issue 33: window pruning).
const SCHEMA: u32 = 8;

/// The name of `q`'s cache file: a hash of everything that defines its
/// answer (the query's wire form, the price table's bytes, the version).
pub fn file_name(q: &Query, prices: &[u8]) -> String {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(env!("CARGO_PKG_VERSION").as_bytes());
    h.update(&SCHEMA.to_le_bytes());
    h.update(&crate::cache::file::VERSION.to_le_bytes());
    h.update(&serde_json::to_vec(&q.spec).unwrap_or_default());
    h.update(&xxhash_rust::xxh3::xxh3_64(prices).to_le_bytes());
    // Another line limit reads other lines (the default's names stay).
    if crate::lines::max_line() != crate::lines::DEFAULT_MAX_LINE {
        h.update(&crate::lines::max_line().to_le_bytes());
    }
    format!("agg-{:016x}.bin", h.digest())
}

/// What a question's cache file is labelled with, as JSON: the tool and
/// its query's wire form (`ci-find --cache-info` shows it).
pub fn label(q: &Query) -> String {
    serde_json::json!({"tool": "ci-agg", "query": q.spec}).to_string()
}

/// The cache of one question, shared by the worker threads of a run.
#[derive(Debug)]
pub struct Cache {
    store: Store,
    /// Captures read in parts by several threads ([`crate::source::Part`]):
    /// the verdict the first part took, and the parts' states as they end.
    split: std::sync::Mutex<std::collections::HashMap<(PathBuf, u64), Split>>,
    /// Whether a grown capture may be read from its old end on (else from the start).
    resumable: bool,
    /// To make capture paths absolute.
    cwd: PathBuf,
    /// Now, in seconds since the epoch (entries' last use).
    now: u64,
    /// The databases whose sessions this run met ([`rows`]).
    databases: crate::cache::database::Databases,
    /// The run's time window: closed, kept states answer nothing (they
    /// hold every event); entries prune captures outside it ([`Span`]).
    window: crate::time::Interval,
}

/// A capture's kept state, read back.
pub enum Kept {
    /// The groups of a `--by`/`--tokens` state, and its held responses.
    Groups(bin::KeyedGroups, Responses),
    /// Any state.
    Answer(Answer),
}

impl Kept {
    /// Merges it into `answer` (the same query's).
    pub fn merge_into(self, answer: &mut Answer) {
        match (self, answer) {
            (Kept::Groups(groups, responses), Answer::Groups(g)) => {
                for (key, group) in groups {
                    g.merge_group(key, group);
                }
                g.responses.merge(responses);
            }
            (Kept::Answer(a), answer) => answer.merge(a),
            (Kept::Groups(..), _) => {}
        }
    }

    /// As a whole state of `q`.
    fn into_answer(self, q: &Query) -> Answer {
        let mut a = Answer::for_capture(q);
        self.merge_into(&mut a);
        a
    }
}

/// What a worker does with a capture.
pub enum Begin {
    /// Its kept state answers: merge it, count its untimed records, read
    /// nothing; with an update noting the entry's use, once a day.
    Answered(Box<Kept>, u64, Option<Update>),
    /// Read it (from the start, or where the kept state ends), keeping what is read.
    Read(Box<Reading>),
    /// Read it as without a cache.
    Uncached,
    /// No event of it is in the run's window ([`Span::outside`]): read
    /// nothing, count its untimed records (as the window would); with an
    /// update noting the entry's use, once a day.
    Pruned(u64, Option<Update>),
}

/// A capture being read for the cache.
#[derive(Debug)]
pub struct Reading {
    key: PathBuf,
    /// Where reading starts, when the kept state covers what is before it.
    resume: Option<Resume>,
    /// The kept state, read on top of.
    pub base: Option<Answer>,
    /// The kept entry's last line and untimed count.
    base_last_line: Option<u64>,
    base_untimed: u64,
    /// Whether an entry was there (dropped when this read cannot be kept).
    pub had_entry: bool,
    /// Reports this thread had printed when the capture began.
    reports: u64,
    /// [`context`] of the capture (with its other files' stats).
    context: u64,
    /// What reading ended with: the file's identity and its whole lines.
    end: Option<(Identity, u64)>,
    /// The times of the events read (on top of the kept state's).
    pub span: Span,
    /// Read in a time window: only the span is kept (the state is of the
    /// window's events).
    windowed: bool,
    /// The stats of the capture's other files when it began, and whether
    /// each was read to its end as it was then.
    others: Vec<(Stat, bool)>,
}

impl Reading {
    /// A capture read from its start for the entry `key`, whose answer
    /// depends on `context` besides its files.
    fn new(key: PathBuf, context: u64, had_entry: bool) -> Reading {
        Reading {
            key,
            resume: None,
            base: None,
            base_last_line: None,
            base_untimed: 0,
            had_entry,
            reports: crate::diag::reports_here(),
            context,
            end: None,
            others: Vec::new(),
            span: Span::start(),
            windowed: false,
        }
    }

    /// The same, with the stats of the capture's other files when it began.
    fn with_others(mut self, others: &[Stat]) -> Reading {
        self.others = others.iter().map(|&s| (s, false)).collect();
        self
    }

    /// Where to start reading ([`crate::source::Visitor::start`]).
    pub fn start(&self) -> Option<Resume> {
        self.resume
    }

    /// Notes how a file's reading ended ([`crate::source::Visitor::read_end`]):
    /// the first file's identity and lines; another file counts as read when
    /// it ended with a whole line and is as it was when the capture began.
    pub fn read_end(&mut self, end: &ReadEnd<'_>) {
        match end.index.checked_sub(1) {
            None => self.end = kept_end(end, self.resume, self.base_last_line),
            Some(i) => {
                let as_begun = |stat: &Stat| {
                    end.tail == Tail::None
                        && end.file.metadata().is_ok_and(|m| Stat::of(&m) == *stat && m.len() == end.whole)
                };
                if let Some((stat, read)) = self.others.get_mut(i) {
                    *read = as_begun(stat);
                }
            }
        }
    }
}

impl Cache {
    /// The cache of `q` (its file named by [`file_name`]), or `None` when it
    /// is off or unusable; an unusable cache directory or a damaged file is
    /// reported as a warning (the run goes on without it, or rebuilds it).
    /// `window`: the run's time window ([`Cache::windowed`]).
    pub fn open(q: &Query, name: &str, window: crate::time::Interval, diag: &Diag) -> Option<Cache> {
        let store = Store::for_run(name, crate::cache::Kind::Answers, &label(q), diag)?;
        let resumable = matches!(q.preset, Preset::Group | Preset::Tokens) && !q.needs_agent();
        let cwd = crate::files::working_dir().unwrap_or_default();
        let now = crate::cache::store::now();
        Some(Cache { store, split: Default::default(), resumable, cwd, now, databases: Default::default(), window })
    }

    /// Whether the run reads a time window (`--since`/`--until`): kept
    /// states then only prune ([`Begin::Pruned`]), and what is read keeps
    /// its span only.
    pub fn windowed(&self) -> bool {
        !self.window.is_open()
    }

    /// What to do with `cap` (`companions`: whether the visitor reads a
    /// session's companion file).
    pub fn begin(&self, q: &Query, cap: &Capture, companions: bool) -> Begin {
        let layout = cap.format.layout;
        // The first file is kept by its identity: the capture's own file, or
        // the first of a hooks session directory's event files. (A hooks
        // session read in time order is told no file's end, so not kept.)
        let Some(first) = cap.files.first() else {
            return Begin::Uncached;
        };
        // A session of a database: kept by the database's stats, else its rows' fingerprint.
        if let Some(statements) = layout.row_fingerprints(cap) {
            return self.begin_rows(q, cap, first, statements);
        }
        // The other files (subagent transcripts), and the companion file
        // read after them (a hooks session's transcript copy), are kept by
        // their stats.
        let companion = cap.record.as_ref().and_then(|r| layout.companion(r)).filter(|_| companions);
        let others = cap.files[1..].iter().chain(companion.as_ref().map(|(path, _)| path));
        let Some(others) = others.map(|f| std::fs::metadata(f).ok().map(|m| Stat::of(&m))).collect::<Option<Vec<_>>>()
        else {
            return Begin::Uncached;
        };
        let mut reading =
            Reading::new(self.key(first), Stat::with_others(context(q, cap), &others), false).with_others(&others);
        reading.windowed = self.windowed();
        let Some(entry) = self.store.get(&reading.key) else {
            return Begin::Read(Box::new(reading));
        };
        reading.had_entry = true;
        if entry.context != reading.context {
            // Its session record says something else now (metadata.json edited).
            return Begin::Read(Box::new(reading));
        }
        if !others.iter().all(|s| s.settled(entry.used)) {
            // A file beside the first changed too recently for its stat to tell.
            return Begin::Read(Box::new(reading));
        }
        let Some(fresh) = entry.fresh(first, cap.seen().map(Stat::of)) else {
            return Begin::Read(Box::new(reading));
        };
        if self.windowed() {
            return match fresh {
                Fresh::Current => match Span::read(entry.payload) {
                    Some((span, _)) if span.outside(&self.window) => {
                        Begin::Pruned(span.untimed, entry.touch(&reading.key, self.now))
                    }
                    // Its span, read again, would be the same.
                    Some((span, _)) if span.known => Begin::Uncached,
                    _ => Begin::Read(Box::new(reading)),
                },
                // A grown capture's kept state stays for the run without a
                // window that reads on from its end.
                Fresh::Grew { .. } if self.resumable && self.resumes(cap) && others.is_empty() => Begin::Uncached,
                Fresh::Grew { .. } | Fresh::Rebuild(_) => Begin::Read(Box::new(reading)),
            };
        }
        match fresh {
            Fresh::Current => match self.decode(q, &reading.key, entry.payload) {
                Some(answer) => Begin::Answered(Box::new(answer), entry.untimed, entry.touch(&reading.key, self.now)),
                None => Begin::Read(Box::new(reading)),
            },
            Fresh::Grew { from } if self.resumable && self.resumes(cap) && others.is_empty() => {
                if let Some(kept) = self.decode(q, &reading.key, entry.payload) {
                    reading.span = Span::read(entry.payload).map_or_else(Span::default, |(s, _)| s);
                    reading.resume = Some(Resume { offset: from, number: entry.lines, mid_line: false });
                    reading.base = Some(kept.into_answer(q));
                    reading.base_last_line = entry.identity.last_line.map(|(at, _)| at);
                    reading.base_untimed = entry.untimed;
                }
                Begin::Read(Box::new(reading))
            }
            Fresh::Grew { .. } | Fresh::Rebuild(_) => Begin::Read(Box::new(reading)),
        }
    }

    /// Whether a grown capture of `cap`'s writer may be read from its kept
    /// end on: its lines stand alone, and it is read in file order (a
    /// session read whole and visited in another order, time order or last
    /// copy wins, is read whole again once it changed).
    fn resumes(&self, cap: &Capture) -> bool {
        cap.format.profile.lines_independent && cap.format.profile.order == crate::format::Order::File
    }

    /// The state kept for the capture `key`; one its reader refuses (a min
    /// above its max, …: what `--merge` refuses too) is a damaged entry,
    /// reported when the run saves, and the capture is read again.
    fn decode(&self, q: &Query, key: &Path, payload: &[u8]) -> Option<Kept> {
        let (_, state) = Span::read(payload).unzip();
        // An entry a windowed run wrote holds no state: read the capture.
        if state.is_some_and(<[u8]>::is_empty) {
            return None;
        }
        let kept = state.and_then(|state| decode(q, state));
        if kept.is_none() {
            self.store.refuse(key);
        }
        kept
    }

    /// The change to the store after `reading` ended with `answer` (the
    /// capture's whole state) and `untimed` records counted by this read.
    pub fn finish(&self, reading: Reading, answer: &Answer, untimed: u64) -> Option<Update> {
        let silent = crate::diag::reports_here() == reading.reports;
        let others_read = reading.others.iter().all(|&(_, read)| read);
        match reading.end {
            Some((identity, lines)) if silent && others_read => match encode(&reading.span, answer, reading.windowed) {
                Some(payload) => Some(Update::Put(
                    reading.key,
                    Entry {
                        identity,
                        lines,
                        untimed: reading.base_untimed.saturating_add(untimed),
                        used: self.now,
                        context: reading.context,
                        payload,
                    },
                )),
                None => reading.had_entry.then_some(Update::Drop(reading.key)),
            },
            _ if reading.had_entry => Some(Update::Drop(reading.key)),
            _ => None,
        }
    }

    /// Writes the run's changes; a failure is a warning (the answer printed
    /// is right; the next run reads again what this one could not keep).
    pub fn save(&self, updates: Vec<Update>, diag: &Diag) {
        self.store.save_for_run(updates, self.now, diag, "the next run reads the captures again");
    }

    /// The key of a capture path: absolute and lexically normalised
    /// ([`crate::files::absolute_in`]; a path named through a symlink is its
    /// own key, the identity is the file's).
    fn key(&self, path: &Path) -> PathBuf {
        crate::files::absolute_in(&self.cwd, path)
    }
}

/// What a capture's answer to `q` depends on besides its file's bytes, as
/// a hash: its session id and workspace (the `session` and `workspace` keys
/// fall back to them), the session's agent (the `agent` key), and for
/// `--sessions` its whole session record less what describes the file itself
/// (size, modification time, event count). When it changes (a
/// `metadata.json` edited), the kept answer is not used.
fn context(q: &Query, cap: &Capture) -> u64 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    let mut field = |s: Option<&str>| {
        h.update(&[u8::from(s.is_some())]);
        h.update(s.unwrap_or_default().as_bytes());
        h.update(&[0]);
    };
    field(Some(&cap.session));
    field(cap.workspace.as_deref());
    field(cap.record.as_ref().and_then(|r| r.agent.as_deref()));
    field(cap.record.as_ref().and_then(|r| r.project.as_deref()));
    if q.preset == Preset::Sessions {
        if let Some(r) = &cap.record {
            let mut r = r.clone();
            (r.bytes, r.mtime, r.events) = (0, None, None);
            let mut out = Vec::new();
            r.write_json(&mut out);
            h.update(&out);
        }
    }
    h.digest()
}

/// A capture's entry payload: its span, then its state in binary form
/// ([`super::bin`]; none when `span_only`, the state of a windowed read);
/// `None` when it holds a t-digest (a capture's state is a tape of its
/// values, so never).
fn encode(span: &Span, answer: &Answer, span_only: bool) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    span.write(&mut out);
    if span_only {
        return Some(out);
    }
    let state = match answer {
        Answer::Groups(g) => bin::encode(g),
        Answer::Sessions(s) => bin::encode_sessions(s),
        Answer::Tools(t) => bin::encode_tools(t),
    }?;
    out.extend_from_slice(&state);
    Some(out)
}

/// A kept state read back (`None`: not a state of `q`; it is read again).
fn decode(q: &Query, payload: &[u8]) -> Option<Kept> {
    match (payload.first(), q.preset) {
        (Some(&bin::TAG), Preset::Group | Preset::Tokens) => bin::groups(payload, q).map(|(g, r)| Kept::Groups(g, r)),
        (Some(&bin::SESSIONS_TAG), Preset::Sessions) => {
            let mut a = Answer::new(q);
            for s in bin::decode_sessions(payload)? {
                a.add_session(s);
            }
            Some(Kept::Answer(a))
        }
        (Some(&bin::TOOLS_TAG), Preset::Tools) => bin::decode_tools(payload, q).map(|t| Kept::Answer(Answer::Tools(t))),
        _ => None,
    }
}

/// Takes the thread's answer out for a capture's own (`base`, or empty).
pub fn swap_in(answer: &mut Answer, q: &Query, base: Option<Answer>) -> Answer {
    mem::replace(answer, base.unwrap_or_else(|| Answer::for_capture(q)))
}

#[cfg(test)]
mod tests;
