//! A mutation log ([`Order::LastCopy`]) followed as it is written: each
//! message is printed once, as its last copy, at that copy's place — what a
//! finished reader shows ([`super::ordered`]) — not each copy as it comes.
//!
//! The copy of the message being written is held, and the records written
//! after it are queued behind it. A later copy of the same message replaces
//! it (the records queued before that copy are printed first: they come
//! before it in the finished file). The held message is printed, then its
//! queue, once the recording moves on: another message is written, a
//! checkpoint (its line printed after them), a rewind (which drops the held
//! message when it has no tokens: the finished reader drops it too), when
//! the file has been quiet for a while ([`quiet`]), or when the follow ends. A copy
//! written again after that is printed again (its tokens still count once:
//! [`crate::format::Profile::copies_history`]).

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::capture::{visit_line, LineState};
use super::worker::Worker;
use super::{Flow, Visitor};
use crate::format::{Dialect, Mutation};
use crate::json::{Index, Record};
use crate::lines::{Line, Site};
use crate::session::Capture;

/// The variable naming how long (in milliseconds) a followed recording
/// stays quiet (no line read) before what it holds is printed ([`quiet`]).
const QUIET_ENV: &str = "CI_FOLLOW_QUIET_MS";

/// How long a followed recording stays quiet before what it holds is
/// printed: `CI_FOLLOW_QUIET_MS`, else one second (the last message of a
/// turn shows that long after it was last written).
fn quiet() -> Duration {
    static QUIET: std::sync::OnceLock<Duration> = std::sync::OnceLock::new();
    *QUIET.get_or_init(|| {
        let ms = std::env::var(QUIET_ENV).ok().and_then(|v| v.trim().parse().ok());
        Duration::from_millis(ms.unwrap_or(1000))
    })
}

/// What one line of a mutation log does to what is held.
pub(super) enum Change {
    /// A copy of message `id` (billed: it has tokens).
    Message(String, bool),
    /// A record of its own (a header, a `$set`).
    Record,
    /// A rewind.
    Rewind,
    /// A checkpoint (a `$set` of the whole list).
    Replace,
}

impl Change {
    /// What `rec` does ([`Dialect::mutation`]).
    pub(super) fn of(dialect: &dyn Dialect, rec: &Record<'_>) -> Change {
        match dialect.mutation(rec) {
            Mutation::Message { id, billed } => Change::Message(id.into_owned(), billed),
            Mutation::Record => Change::Record,
            Mutation::RewindTo(_) => Change::Rewind,
            Mutation::Replace(_) => Change::Replace,
        }
    }
}

/// A line kept to print later: its bytes, number, site and file as shown.
pub(super) struct Copy {
    bytes: Vec<u8>,
    line: u64,
    site: Site,
    display: String,
}

impl Copy {
    /// A copy of `line` of the file shown as `display`.
    pub(super) fn of(line: &Line<'_>, display: &str) -> Copy {
        Copy { bytes: line.bytes.to_vec(), line: line.number, site: line.site, display: display.to_owned() }
    }
}

/// What one followed recording holds: the message being written (its id,
/// whether billed, its last copy), the records queued behind it, and when
/// its last line was read.
struct Pending {
    cap: Capture,
    message: Option<(String, bool, Copy)>,
    queue: Vec<Copy>,
    queued: usize,
    read: Instant,
}

/// What the followed recordings hold, by capture path, and the index their
/// lines are parsed into when printed.
#[derive(Default)]
pub(super) struct Held {
    pending: HashMap<PathBuf, Pending>,
    idx: Index,
}

impl Worker<'_> {
    /// Takes the line `copy` of a followed mutation log, which does
    /// `change`: holds it, or prints what it releases (module docs).
    pub(super) fn hold<V: Visitor>(&mut self, v: &mut V, cap: &Capture, change: Change, copy: Copy) -> Flow {
        let mut p = self.held.pending.remove(&cap.path).unwrap_or_else(|| Pending {
            cap: cap.clone(),
            message: None,
            queue: Vec::new(),
            queued: 0,
            read: Instant::now(),
        });
        p.read = Instant::now();
        let mut now = Vec::new();
        match change {
            Change::Message(id, billed) => {
                match p.message.take() {
                    Some((held, ..)) if held == id => {}
                    Some((.., old)) => now.push(old),
                    None => {}
                }
                now.append(&mut p.queue);
                p.queued = 0;
                p.message = Some((id, billed, copy));
            }
            Change::Record if p.message.is_some() && p.queued + copy.bytes.len() <= crate::lines::max_line() => {
                p.queued += copy.bytes.len();
                p.queue.push(copy);
            }
            Change::Record | Change::Replace => {
                now.extend(p.message.take().map(|(.., m)| m));
                now.append(&mut p.queue);
                now.push(copy);
            }
            Change::Rewind => {
                now.extend(p.message.take().filter(|(_, billed, _)| *billed).map(|(.., m)| m));
                now.append(&mut p.queue);
                now.push(copy);
            }
        }
        if p.message.is_none() {
            p.queued = 0;
        }
        let flow = self.print_copies(v, cap, now);
        if p.message.is_some() || !p.queue.is_empty() {
            self.held.pending.insert(cap.path.clone(), p);
        }
        flow
    }

    /// Prints what the followed recordings hold: of those quiet for
    /// [`quiet`], or (`all`) of every one (the follow ends).
    pub(super) fn release_held<V: Visitor>(&mut self, v: &mut V, all: bool) -> Flow {
        let quiet: Vec<PathBuf> = self
            .held
            .pending
            .iter()
            .filter(|(_, p)| all || p.read.elapsed() >= quiet())
            .map(|(k, _)| k.clone())
            .collect();
        for path in quiet {
            let Some(mut p) = self.held.pending.remove(&path) else { continue };
            let copies = p.message.take().map(|(.., m)| m).into_iter().chain(p.queue.drain(..)).collect();
            if self.print_copies(v, &p.cap, copies) == Flow::Stop {
                return Flow::Stop;
            }
        }
        Flow::Continue
    }

    /// Visits held lines of `cap` in turn.
    fn print_copies<V: Visitor>(&mut self, v: &mut V, cap: &Capture, copies: Vec<Copy>) -> Flow {
        let Worker { held, out, parts, diag, .. } = self;
        for c in &copies {
            if visit_copy(v, &mut held.idx, out, parts, cap, c, diag) == Flow::Stop {
                return Flow::Stop;
            }
        }
        Flow::Continue
    }
}

/// Visits one held line (it parsed and was accepted when read).
fn visit_copy<V: Visitor>(
    v: &mut V,
    idx: &mut Index,
    out: &mut Vec<u8>,
    parts: &mut LineState,
    cap: &Capture,
    c: &Copy,
    diag: &crate::diag::Diag,
) -> Flow {
    match idx.parse(&c.bytes) {
        Ok(rec) => visit_line(v, out, parts, rec, cap, (c.line, c.site), &c.display, diag),
        Err(_) => Flow::Continue,
    }
}
