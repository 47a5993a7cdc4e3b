//! A thread's last database connection, kept for its next session of the
//! same database: the sessions of one file share a connection (its schema
//! read once, its statements prepared once, its page cache warm) instead of
//! opening the file once per session.
//!
//! A connection is kept only while its file is what it was opened on: the
//! same path, opened the same way ([`super::open`]'s mode), with the same
//! length and modification time; else the file is opened again, as it
//! would have been without the keeping. One connection per thread is kept
//! (a `-jN` run has N), none outlives its thread.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use rusqlite::Connection;

/// What a kept connection was opened on.
#[derive(Debug, PartialEq, Eq, Clone)]
struct Identity {
    path: PathBuf,
    /// The `-wal` file was there (the mode [`super::open`] chose).
    wal: bool,
    len: u64,
    modified: Option<SystemTime>,
}

impl Identity {
    fn of(path: &Path) -> Option<Identity> {
        let meta = std::fs::metadata(path).ok()?;
        let wal = Path::new(&format!("{}-wal", path.to_str()?)).exists();
        Some(Identity { path: path.to_path_buf(), wal, len: meta.len(), modified: meta.modified().ok() })
    }
}

thread_local! {
    /// The connection this thread used last, and what it was opened on.
    static KEPT: RefCell<Option<(Identity, Connection)>> = const { RefCell::new(None) };
}

/// A connection to a database that goes back to its thread's keeping when
/// dropped (one made by [`Db::from`] a plain connection does not).
pub struct Db {
    conn: Option<Connection>,
    identity: Option<Identity>,
}

impl Db {
    /// The database at `path`: the thread's kept connection when it was
    /// opened on this file as it is now, else a new one ([`super::open`]).
    pub fn open(path: &Path) -> Result<Db, String> {
        let identity = Identity::of(path);
        let kept = KEPT.with(|k| {
            let mut k = k.borrow_mut();
            match k.take() {
                Some((id, conn)) if Some(&id) == identity.as_ref() => Some(conn),
                other => {
                    *k = other;
                    None
                }
            }
        });
        let conn = match kept {
            Some(conn) => conn,
            None => super::open(path)?,
        };
        Ok(Db { conn: Some(conn), identity })
    }
}

impl From<Connection> for Db {
    fn from(conn: Connection) -> Db {
        Db { conn: Some(conn), identity: None }
    }
}

impl std::ops::Deref for Db {
    type Target = Connection;

    fn deref(&self) -> &Connection {
        self.conn.as_ref().expect("a Db holds its connection until dropped")
    }
}

impl Drop for Db {
    fn drop(&mut self) {
        if let (Some(identity), Some(conn)) = (self.identity.take(), self.conn.take()) {
            // A thread being torn down keeps nothing.
            let _ = KEPT.try_with(|k| *k.borrow_mut() = Some((identity, conn)));
        }
    }
}
