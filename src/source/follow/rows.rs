//! One database being followed for one capture: the rows of the session
//! taken so far, and the database's stamp (its file's and its `-wal`'s
//! size and modification time) when it was last listed; the rules are
//! [`super`]'s.
//!
//! At each poll whose stamp differs from the last (or that comes within
//! [`SETTLE`] of the database's last write), the session's rows are
//! listed again (the writer's `Layout::lines_of`, on a new read-only
//! connection: a database whose writer came or went is opened as it is
//! now, [`crate::lines::rows::open`]) and the rows not taken yet are read,
//! finished ones only ([`crate::format::Dialect::unfinished`]); each row
//! is taken once, by table and rowid. Every read is its own short
//! statement: a WAL reader takes no lock a writer waits on, and nothing is
//! held between polls.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::lines::rows::Rows;
use crate::session::Capture;
use crate::source::capture::Read;
use crate::source::worker::Worker;
use crate::source::Visitor;

/// A database's file and `-wal` file as seen by `stat` (size, modification
/// time): a commit, a checkpoint or a writer coming or going changes it.
type Stamp = [Option<(u64, SystemTime)>; 2];

/// A followed capture's database.
pub(crate) struct FollowedRows {
    /// The capture the rows are of.
    cap: Capture,
    /// The database.
    path: PathBuf,
    /// Its path as shown.
    display: String,
    /// Its rows taken so far: table name and rowid.
    taken: HashSet<(&'static str, i64)>,
    /// The stamp when the rows were last listed (`None`: list them at the
    /// next poll; so until the database settled, [`SETTLE`]).
    stamp: Option<Stamp>,
    /// True once the visitor stopped reading it.
    done: bool,
}

/// The stamp of the database at `path` now.
fn stamp(path: &Path) -> Stamp {
    let seen = |p: &Path| std::fs::metadata(p).ok().map(|m| (m.len(), m.modified().unwrap_or(SystemTime::UNIX_EPOCH)));
    [seen(path), seen(&crate::lines::rows::wal_path(path))]
}

/// How long after a database's last write its stamp is trusted: a commit
/// is written to the `-wal` first and made visible to readers a moment
/// later (in the `-shm`, which `stat` does not show), so a listing made
/// right after a write may miss a commit the stamp already counts.
const SETTLE: std::time::Duration = std::time::Duration::from_secs(1);

/// Whether the files of `stamp` were last written `SETTLE` ago or more (a
/// time far in the future is taken as settled: waiting would not help).
fn settled(stamp: &Stamp) -> bool {
    let now = SystemTime::now();
    stamp.iter().flatten().all(|(_, written)| match now.duration_since(*written) {
        Ok(ago) => ago >= SETTLE,
        Err(ahead) => ahead.duration() > SETTLE,
    })
}

impl FollowedRows {
    /// Follows the rows of `cap` in the database `path`, from its first
    /// row (read at the next poll).
    pub(crate) fn new(cap: &Capture, path: &Path) -> FollowedRows {
        FollowedRows {
            cap: cap.clone(),
            path: path.to_path_buf(),
            display: path.to_string_lossy().into_owned(),
            taken: HashSet::new(),
            stamp: None,
            done: false,
        }
    }

    /// Whether these are the rows of `cap` (its session) in `path`.
    pub(crate) fn is(&self, cap: &Capture, path: &Path) -> bool {
        self.path == path && self.cap.session == cap.session && std::ptr::eq(self.cap.format, cap.format)
    }
}

impl Worker<'_> {
    /// Follow mode: reads the finished rows of `cap` in the database `path`
    /// that `rows` lists (its first read), then follows it. How reading ended.
    pub(in crate::source) fn read_rows_to_follow<V: Visitor>(
        &mut self,
        v: &mut V,
        cap: &Capture,
        (path, display): (&Path, &str),
        rows: &mut Rows,
    ) -> Read {
        // Listed once more at the first poll (no stamp yet): a commit since
        // the listing could leave the stamp as it is now.
        let mut f = FollowedRows { display: display.to_owned(), ..FollowedRows::new(cap, path) };
        let read = self.read_new_rows(v, &mut f, rows);
        if matches!(read, Read::Done) {
            self.followed_rows.push(f);
        }
        read
    }

    /// Reads the rows of `rows` that `f` did not take yet, holding the
    /// unfinished ones, and notes those it took.
    fn read_new_rows<V: Visitor>(&mut self, v: &mut V, f: &mut FollowedRows, rows: &mut Rows) -> Read {
        self.use_state_of(&f.cap);
        rows.leave_out(&f.taken);
        let dialect = f.cap.format.dialect;
        rows.hold_unfinished(move |record| dialect.unfinished(crate::json::Raw(record)));
        let read = self.capture_lines(v, &f.cap, &f.display, rows, true);
        f.taken.extend(rows.taken());
        read
    }

    /// Polls every followed database once; `Some(true)` when rows were
    /// read, `None` when the writer is gone.
    pub(in crate::source) fn poll_rows<V: Visitor>(&mut self, v: &mut V) -> Option<bool> {
        let mut all = std::mem::take(&mut self.followed_rows);
        let mut progressed = false;
        let mut gone = false;
        // One stamp per database a round, however many sessions it has.
        let mut stamps: std::collections::HashMap<PathBuf, Stamp> = std::collections::HashMap::new();
        for f in all.iter_mut() {
            let now = *stamps.entry(f.path.clone()).or_insert_with(|| stamp(&f.path));
            if f.stamp == Some(now) {
                continue;
            }
            f.stamp = settled(&now).then_some(now);
            let cx = crate::discover::cx();
            let Some(mut source) = f.cap.format.layout.lines_of(&f.cap, &f.path, &f.display, &cx, self.diag) else {
                continue;
            };
            // A database that could not be opened was reported: tried again
            // at its next change.
            let Some(rows) = source.as_rows() else { continue };
            let before = f.taken.len();
            match self.read_new_rows(v, f, rows) {
                Read::Done => {}
                Read::Stopped => f.done = true,
                Read::Gone => gone = true,
            }
            progressed |= f.taken.len() != before;
            if gone || crate::signal::stop_requested() {
                break;
            }
        }
        all.retain(|f| !f.done);
        all.append(&mut self.followed_rows);
        self.followed_rows = all;
        (!gone).then_some(progressed)
    }
}
