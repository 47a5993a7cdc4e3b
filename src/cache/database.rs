//! Database sessions in the capture cache (`docs/cache.md`, "Databases").
//!
//! One database file holds many sessions, each a capture with its own
//! entry, keyed by the database's path and the session id
//! ([`session_key`]). An entry is proved current by a `stat` of the database
//! and of its `-wal` file (present or absent, size, time), taken once per
//! run ([`Databases::of`]): both as they were, and settled (modified two
//! seconds or more before the entry was written), every session of the
//! database is answered without opening it. Otherwise the database is
//! opened once, and one grouped statement per table fingerprints every
//! session's rows ([`crate::lines::rows::fingerprints`]); a session whose
//! fingerprint is the kept one is still answered, the others are read
//! again, whole (a row may be updated in place, so there is no reading on
//! from the last row).
//!
//! How an entry's [`Identity`] holds this: device, inode and modification
//! time are the database's; `indexed` and `len` are the session's bytes
//! (what the cache's bound counts); `head` is the hash of the database's
//! and the `-wal`'s stats; `last_line` is (rows read, the fingerprint).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use super::{Identity, Stat};

/// The key of session `session` of the database at `db` (an absolute
/// path): the database's path with the session id as a last component, a
/// path no file can have (a file has no children).
pub fn session_key(db: &Path, session: &str) -> PathBuf {
    db.join(session)
}

/// What a `stat` says of a database and of its `-wal` file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DbStat {
    /// The database file's.
    pub db: Stat,
    /// The `-wal` file's, when there is one.
    pub wal: Option<Stat>,
}

impl DbStat {
    /// The stats of the database at `path` and its `-wal`; `None` when the
    /// database cannot be stat-ed.
    pub fn of(path: &Path) -> Option<DbStat> {
        let db = Stat::of(&std::fs::metadata(path).ok()?);
        let wal = std::fs::metadata(crate::lines::rows::wal_path(path)).ok().map(|m| Stat::of(&m));
        Some(DbStat { db, wal })
    }

    /// A hash of both stats.
    fn hash(&self) -> u64 {
        let wal: Vec<Stat> = self.wal.into_iter().collect();
        Stat::with_others(Stat::with_others(u64::from(self.wal.is_some()), &[self.db]), &wal)
    }

    /// The identity an entry of a session read with these stats holds: its
    /// `bytes` and its rows' `fingerprint` (module docs).
    pub fn identity(&self, bytes: u64, rows: u64, fingerprint: u64) -> Identity {
        let d = self.db;
        Identity {
            dev: d.dev,
            ino: d.ino,
            indexed: bytes,
            len: bytes,
            mtime_ns: d.mtime_ns,
            head: self.hash(),
            last_line: Some((rows, fingerprint)),
        }
    }

    /// Whether an entry with identity `id`, written at `used`, is current
    /// by these stats alone: the same stats, each settled at `used`
    /// ([`Stat::settled`]: a write in the same clock tick as the read could
    /// leave them as they were).
    pub fn proves(&self, id: &Identity, used: u64) -> bool {
        id.head == self.hash()
            && (id.dev, id.ino, id.mtime_ns) == (self.db.dev, self.db.ino, self.db.mtime_ns)
            && self.db.settled(used)
            && self.wal.is_none_or(|w| w.settled(used))
    }
}

/// The rows' fingerprint a database session's entry was kept with.
pub fn kept_fingerprint(id: &Identity) -> Option<u64> {
    id.last_line.map(|(_, f)| f)
}

/// The fingerprint of a session without rows.
pub const NO_ROWS: u64 = 0;

/// One database as a run finds it: its stats, taken once, and its
/// sessions' fingerprints, taken the first time a session needs them
/// (`None`: the database could not be read; its sessions are not cached).
#[derive(Debug)]
pub struct Database {
    /// The stats, taken before any fingerprint.
    pub stat: DbStat,
    prints: OnceLock<Option<HashMap<String, u64>>>,
}

impl Database {
    /// The fingerprint of `session`'s rows by the writer's `statements`
    /// (the database opened read-only once for all its sessions); a
    /// session without rows has [`NO_ROWS`]' (a Copilot CLI session the
    /// store has no usage row of). `None` when the database cannot be read.
    pub fn fingerprint(&self, path: &Path, statements: &[&str], session: &str) -> Option<u64> {
        let prints = self.prints.get_or_init(|| {
            let conn = crate::lines::rows::open(path).ok()?;
            crate::lines::rows::fingerprints(&conn, statements).ok()
        });
        Some(prints.as_ref()?.get(session).copied().unwrap_or(NO_ROWS))
    }
}

/// The databases a run has met, by path, shared by its threads.
#[derive(Debug, Default)]
pub struct Databases {
    seen: Mutex<HashMap<PathBuf, Option<Arc<Database>>>>,
}

impl Databases {
    /// The database at `path` (absolute) as this run found it first;
    /// `None` when it cannot be stat-ed.
    pub fn of(&self, path: &Path) -> Option<Arc<Database>> {
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        let db = seen
            .entry(path.to_path_buf())
            .or_insert_with(|| DbStat::of(path).map(|stat| Arc::new(Database { stat, prints: OnceLock::new() })));
        db.clone()
    }
}
