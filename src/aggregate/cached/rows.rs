//! ci-agg's capture cache for the sessions of a database
//! ([`crate::cache::database`]): each session one entry, answered while
//! the database's and its `-wal`'s stats are as they were, else while its
//! rows' fingerprint is; read again whole otherwise. The capture's other
//! files, read after the rows, are kept by their stats.

use std::path::Path;

use super::{context, Begin, Cache, Reading};
use crate::aggregate::query::Query;
use crate::cache::database::{kept_fingerprint, session_key};
use crate::cache::{Entry, Stat, Update};
use crate::session::Capture;

impl Cache {
    /// [`Cache::begin`] for a session of the database `db`, whose writer
    /// fingerprints its rows with `statements`.
    pub(super) fn begin_rows(&self, q: &Query, cap: &Capture, db: &Path, statements: &[&str]) -> Begin {
        if self.windowed() {
            // A window's kept spans are of files; a database session is read.
            return Begin::Uncached;
        }
        let db = self.key(db);
        let Some(found) = self.databases.of(&db) else { return Begin::Uncached };
        let key = session_key(&db, &cap.session);
        // The capture's other files (a Copilot CLI session's event log after
        // the store's rows) are kept by their stats, as beside a file.
        let Some(others) = Stat::of_files(&cap.files[1..]) else { return Begin::Uncached };
        let context = Stat::with_others(context(q, cap), &others);
        let stored = self.store.get(&key);
        let had_entry = stored.is_some();
        let entry = stored.filter(|e| e.context == context && others.iter().all(|s| s.settled(e.used)));
        if let Some(e) = &entry {
            if found.stat.proves(&e.identity, e.used) {
                return match self.decode(q, &key, e.payload) {
                    Some(kept) => Begin::Answered(Box::new(kept), e.untimed, e.touch(&key, self.now)),
                    None => Begin::Read(Box::new(Reading::new(key, context, true).with_others(&others))),
                };
            }
        }
        // The database changed (or the entry is new): its sessions' rows
        // are fingerprinted, once for all.
        let Some(print) = found.fingerprint(&db, statements, &cap.session) else { return Begin::Uncached };
        let bytes = cap.record.as_ref().map_or(0, |r| r.bytes);
        let identity = found.stat.identity(bytes, 0, print);
        if let Some(e) = entry.filter(|e| kept_fingerprint(&e.identity) == Some(print)) {
            if let Some(kept) = self.decode(q, &key, e.payload) {
                // Kept with the stats of now, so that the next run is answered by them.
                let (lines, untimed, payload) = (e.lines, e.untimed, e.payload.to_vec());
                let entry = Entry { identity, lines, untimed, used: self.now, context, payload };
                return Begin::Answered(Box::new(kept), e.untimed, Some(Update::Put(key, entry)));
            }
        }
        let mut reading = Reading::new(key, context, had_entry).with_others(&others);
        reading.end = Some((identity, 0));
        Begin::Read(Box::new(reading))
    }
}
