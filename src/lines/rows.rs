//! Rows of a SQLite database as records: the row framing.
//!
//! A writer that keeps its sessions in a database names, per table, the SQL
//! expression that makes a row's record (a JSON object, built by SQLite's
//! JSON functions: [`Table`]); a session's records are its rows in the
//! writer's order ([`Rows`]), each at a [`Site`] whose framing is
//! [`Framing::Row`]: the table, and the row's `rowid` as its offset. A row
//! is read again the same way ([`read_row`]), so a record cut by one tool
//! is made whole by the next, and a row that changed is told by its hash.
//!
//! # Opening without writing
//! A database is opened read-only ([`open`]) and nothing is ever written to
//! it or beside it. How depends on its journal mode (byte 18 of its header)
//! and on whether a `-wal` file is there:
//! - WAL mode with a `-wal` file: a writer may be live. The database is
//!   opened `mode=ro`, a WAL reader: it sees every committed transaction,
//!   takes no lock a writer waits on, and reuses the writer's `-shm`.
//! - WAL mode without a `-wal` file: no writer has it open (a writer in WAL
//!   mode keeps the file while it is connected). Opened `immutable=1`, so
//!   SQLite creates no `-wal` or `-shm` beside it (a `mode=ro` open would)
//!   and works in a read-only folder.
//! - Rollback-journal mode: `mode=ro`; a writer's lock is waited for up to
//!   [`BUSY_WAIT_MS`], then reported ("database is locked").

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

use super::{Framing, Line, LineSource, Site};

pub mod fingerprint;
pub use fingerprint::fingerprints;

mod kept;

pub use kept::Db;

/// The `-wal` file beside the database `db` (SQLite's write-ahead log: a
/// commit is there before it reaches the main file).
pub fn wal_path(db: &Path) -> PathBuf {
    let mut wal = db.as_os_str().to_owned();
    wal.push("-wal");
    PathBuf::from(wal)
}

/// How long a read waits for a writer's lock (rollback-journal mode only)
/// before reporting the database as locked.
pub const BUSY_WAIT_MS: u64 = 2000;

/// A table whose rows are records: its name and how a row becomes one.
#[derive(Debug, PartialEq, Eq)]
pub struct Table {
    /// The writer (format name) whose table it is.
    pub writer: &'static str,
    /// The table's name.
    pub name: &'static str,
    /// `SELECT <expression> FROM <table> WHERE rowid = ?1`: the row's
    /// record as JSON text (SQLite's `json_object`), a function of the row
    /// (and of rows it names) only, so that a re-read makes the same bytes.
    pub record: &'static str,
    /// A condition on a row (SQL) true of every row a tokens count reads:
    /// each whose record carries usage, each the writer's dialect rejects,
    /// and each whose record may be longer than `?2` bytes (the longest
    /// line, [`super::max_line`]; [`Rows::usage_only`]). `None`: every row
    /// is read.
    pub usage: Option<&'static str>,
}

/// Opens the database at `path` read-only, leaving nothing beside it (module docs).
pub fn open(path: &Path) -> Result<Connection, String> {
    let text = path.to_str().ok_or("the path is not UTF-8")?;
    let mut header = [0u8; 100];
    // What is not a regular file is never opened (a FIFO would block).
    if !std::fs::metadata(path).map_err(|e| e.to_string())?.is_file() {
        return Err("not a regular file".into());
    }
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    read_header(&file, &mut header).map_err(|e| e.to_string())?;
    if !header.starts_with(MAGIC) {
        return Err("not a SQLite database".into());
    }
    let wal_mode = header[18] == 2;
    let wal_file = Path::new(&format!("{text}-wal")).exists();
    let mode = if wal_mode && !wal_file { "immutable=1" } else { "mode=ro" };
    let uri = format!("file:{}?{mode}", escape_uri(text));
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(uri, flags).map_err(|e| e.to_string())?;
    conn.busy_timeout(Duration::from_millis(BUSY_WAIT_MS)).map_err(|e| e.to_string())?;
    conn.pragma_update(None, "query_only", true).map_err(|e| e.to_string())?;
    Ok(conn)
}

/// The first bytes of every SQLite database file.
const MAGIC: &[u8] = b"SQLite format 3\0";

/// Whether `path` is a regular file that starts as a SQLite database does
/// (nothing but its first bytes is read; a FIFO is never opened).
pub fn is_database(path: &Path) -> bool {
    let mut header = [0u8; 16];
    let regular = std::fs::metadata(path).is_ok_and(|m| m.is_file());
    regular && std::fs::File::open(path).is_ok_and(|f| read_header(&f, &mut header).is_ok()) && header == MAGIC
}

/// Reads the first bytes of a database (a shorter file leaves zeros).
fn read_header(mut file: &std::fs::File, out: &mut [u8]) -> std::io::Result<()> {
    use std::io::Read;
    let mut got = 0;
    while got < out.len() {
        match file.read(&mut out[got..])? {
            0 => break,
            n => got += n,
        }
    }
    Ok(())
}

/// A path as the path of a `file:` URI: `%`, `?` and `#` escaped.
fn escape_uri(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.chars() {
        match c {
            '%' => out.push_str("%25"),
            '?' => out.push_str("%3f"),
            '#' => out.push_str("%23"),
            c => out.push(c),
        }
    }
    out
}

/// Reads the record of row `rowid` of `table` into `out` (cleared first);
/// `Ok(false)` when there is no such row.
pub fn read_row(conn: &Connection, table: &'static Table, rowid: i64, out: &mut Vec<u8>) -> Result<bool, String> {
    read_by(conn, &Query::all(table), rowid, out)
}

/// The statement that reads a row's record of a table ([`Table::record`]).
struct Query {
    table: &'static Table,
    sql: String,
}

impl Query {
    fn all(table: &'static Table) -> Query {
        let sql = format!("SELECT {} FROM {} WHERE rowid = ?1", table.record, table.name);
        Query { table, sql }
    }
}

/// Reads row `rowid`'s record by `q` into `out` (cleared first);
/// `Ok(false)` when there is no such row.
fn read_by(conn: &Connection, q: &Query, rowid: i64, out: &mut Vec<u8>) -> Result<bool, String> {
    out.clear();
    let mut stmt = conn.prepare_cached(&q.sql).map_err(|e| e.to_string())?;
    let mut rows = stmt.query([rowid]).map_err(|e| e.to_string())?;
    let Some(row) = rows.next().map_err(|e| e.to_string())? else { return Ok(false) };
    let text = row.get_ref(0).map_err(|e| e.to_string())?;
    match text {
        rusqlite::types::ValueRef::Text(t) | rusqlite::types::ValueRef::Blob(t) => out.extend_from_slice(t),
        _ => return Err("the row's record is not text".into()),
    }
    Ok(true)
}

/// Of the rows `rowids` of `table`, those its [`Table::usage`] condition
/// holds of (one statement: the rowids go as a JSON array).
fn usage_rows(conn: &Connection, table: &Table, cond: &str, rowids: &[i64]) -> Result<HashSet<i64>, String> {
    let sql = format!(
        "SELECT rowid FROM {} WHERE rowid IN (SELECT value FROM json_each(?1)) AND ({cond}) AND ?2 >= 0",
        table.name
    );
    let list = format!("[{}]", rowids.iter().map(i64::to_string).collect::<Vec<_>>().join(","));
    let mut stmt = conn.prepare(&sql).map_err(|e| e.to_string())?;
    let max = super::max_line() as i64;
    let rows = stmt.query_map(rusqlite::params![list, max], |r| r.get::<_, i64>(0)).map_err(|e| e.to_string())?;
    rows.map(|r| r.map_err(|e| e.to_string())).collect()
}

/// The rows `keys` lists of the database at `file`, as a [`LineSource`];
/// a database that cannot be opened or listed is reported to `diag` (as
/// `display`) and has no rows.
pub fn source<'d>(
    file: &Path,
    display: &str,
    diag: &crate::diag::Diag,
    keys: impl FnOnce(&Connection) -> Result<Vec<(&'static Table, i64)>, String>,
) -> Box<dyn LineSource + 'd> {
    let rows = Db::open(file).and_then(|conn| {
        let keys = keys(&conn)?;
        Ok(Rows::new(conn, keys))
    });
    match rows {
        Ok(rows) => Box::new(rows),
        Err(e) => {
            diag.error(&format_args!("{display}: {e}"));
            Box::new(super::LineReader::new(std::io::empty()))
        }
    }
}

/// Whether a row's record is of a row its writer will still rewrite.
type Unfinished = dyn Fn(&[u8]) -> bool;

/// Of some tables, the rowids a tokens count reads ([`Rows::choose_usage`]).
pub type Chosen = Vec<(&'static Table, HashSet<i64>)>;

/// A writer's own choice of the rows a tokens count reads.
type Chooser = dyn FnOnce(&Connection) -> Result<Chosen, String>;

/// A session's rows, in the writer's order, as a [`LineSource`]: line `n`
/// is the `n`-th row (its site: table, rowid, length of its record).
///
/// Followed (`--follow`), its complete lines are its writer's *finished*
/// rows: a row its writer still rewrites (as the test given to
/// [`Rows::hold_unfinished`] tells, the writer's `Dialect::unfinished`) is
/// held, as an unterminated line is, and [`Rows::taken`] tells which rows
/// were given; rows taken before are left out of a later listing
/// ([`Rows::leave_out`]).
pub struct Rows {
    conn: Db,
    /// (table, rowid, line number) of each row, in order.
    keys: Vec<(&'static Table, i64, u64)>,
    next: usize,
    /// The line number of the row given last.
    number: u64,
    buf: Vec<u8>,
    /// Whether a row's record is unfinished, when those are held.
    hold: Option<Box<Unfinished>>,
    /// The rows held (unfinished) so far.
    held: Vec<(&'static Table, i64)>,
    /// Each table's statement.
    queries: Vec<Query>,
    /// The writer's choice of the rows a tokens count reads, if it makes one.
    chooser: Option<Box<Chooser>>,
}

impl Rows {
    /// The rows `keys` (table, rowid) of the database `conn`.
    pub fn new(conn: impl Into<Db>, keys: Vec<(&'static Table, i64)>) -> Rows {
        let conn = conn.into();
        let keys: Vec<_> = keys.into_iter().zip(1..).map(|((t, r), n)| (t, r, n)).collect();
        let mut queries: Vec<Query> = Vec::new();
        for (t, _, _) in &keys {
            if !queries.iter().any(|q| std::ptr::eq(q.table, *t)) {
                queries.push(Query::all(t));
            }
        }
        Rows { conn, keys, next: 0, number: 0, buf: Vec::new(), hold: None, held: Vec::new(), queries, chooser: None }
    }

    /// Leaves out the rows a tokens count does not read, by each table's
    /// [`Table::usage`] (one statement per table): their records are never
    /// made, and the other rows keep their line numbers. A table whose
    /// condition cannot be checked keeps every row; the tables a writer
    /// chooses for ([`Rows::choose_usage`]) are chosen by it instead (every
    /// row kept when its choice fails). Not for rows followed (a row left
    /// out would count as taken).
    pub fn usage_only(&mut self) {
        let tables: Vec<&'static Table> = self.queries.iter().map(|q| q.table).collect();
        let chosen = self.chooser.take().map(|choose| choose(&self.conn));
        for table in tables {
            let by_writer = match &chosen {
                Some(Ok(chosen)) => chosen.iter().find(|(t, _)| std::ptr::eq(*t, table)).map(|(_, k)| k),
                Some(Err(_)) => continue,
                None => None,
            };
            let by_sql;
            let keep = match by_writer {
                Some(keep) => keep,
                None => {
                    let Some(cond) = table.usage else { continue };
                    let of_table: Vec<i64> = self.keys[self.next..]
                        .iter()
                        .filter(|(t, _, _)| std::ptr::eq(*t, table))
                        .map(|k| k.1)
                        .collect();
                    let Ok(keep) = usage_rows(&self.conn, table, cond, &of_table) else { continue };
                    by_sql = keep;
                    &by_sql
                }
            };
            let (next, mut i) = (self.next, 0);
            self.keys.retain(|(t, r, _)| {
                i += 1;
                i <= next || !std::ptr::eq(*t, table) || keep.contains(r)
            });
        }
    }

    /// From now on, [`Rows::usage_only`] asks `choose` which rows of the
    /// tables it names a tokens count reads (a superset of those the
    /// tables' [`Table::usage`] conditions hold of), instead of those
    /// conditions: a writer that tells them faster from the raw rows.
    pub fn choose_usage(&mut self, choose: impl FnOnce(&Connection) -> Result<Chosen, String> + 'static) {
        self.chooser = Some(Box::new(choose));
    }

    /// Leaves out the rows `taken` names (by table name and rowid), keeping
    /// the others' line numbers (their places in the whole listing).
    pub fn leave_out(&mut self, taken: &std::collections::HashSet<(&'static str, i64)>) {
        self.keys.retain(|(t, r, _)| !taken.contains(&(t.name, *r)));
    }

    /// From now on, [`LineSource::next_complete_line`] holds back the rows
    /// whose record `unfinished` is true of.
    pub fn hold_unfinished(&mut self, unfinished: impl Fn(&[u8]) -> bool + 'static) {
        self.hold = Some(Box::new(unfinished));
    }

    /// The rows given so far, by table name and rowid (the held ones not).
    pub fn taken(&self) -> impl Iterator<Item = (&'static str, i64)> + '_ {
        let given = &self.keys[..self.next];
        given.iter().filter(|(t, r, _)| !self.held.contains(&(*t, *r))).map(|(t, r, _)| (t.name, *r))
    }

    /// The next row's record; a row gone since it was listed is skipped,
    /// and so is an unfinished one when `complete` and rows are held.
    fn next_row(&mut self, complete: bool) -> std::io::Result<Option<Line<'_>>> {
        loop {
            let Some(&(table, rowid, number)) = self.keys.get(self.next) else { return Ok(None) };
            self.next += 1;
            let found = match self.queries.iter().find(|q| std::ptr::eq(q.table, table)) {
                Some(q) => read_by(&self.conn, q, rowid, &mut self.buf),
                None => read_row(&self.conn, table, rowid, &mut self.buf),
            };
            let found = found.map_err(std::io::Error::other)?;
            if !found {
                continue;
            }
            if let Some(unfinished) = self.hold.as_ref().filter(|_| complete) {
                if unfinished(&self.buf) {
                    self.held.push((table, rowid));
                    continue;
                }
            }
            self.number = number;
            let too_long = self.buf.len() > super::max_line();
            let site = Site { offset: rowid as u64, len: self.buf.len() as u64, framing: Framing::Row(table) };
            let bytes = if too_long { &[][..] } else { &self.buf[..] };
            return Ok(Some(Line { bytes, number, site, terminated: true, too_long }));
        }
    }
}

impl LineSource for Rows {
    /// The next row's record; a row gone since it was listed is skipped.
    fn next_line(&mut self) -> std::io::Result<Option<Line<'_>>> {
        self.next_row(false)
    }

    /// The next finished row (a committed row is whole; an unfinished one
    /// is held when [`Rows::hold_unfinished`] was asked).
    fn next_complete_line(&mut self) -> std::io::Result<Option<Line<'_>>> {
        self.next_row(true)
    }

    fn line_number(&self) -> u64 {
        self.number
    }

    fn as_rows(&mut self) -> Option<&mut Rows> {
        Some(self)
    }
}

/// The rows of session `id` as a writer's `sql` lists them: each result
/// row is (the index of its table in `tables`, its rowid), in order.
pub fn keys_of(
    conn: &Connection,
    sql: &str,
    id: &str,
    tables: &[&'static Table],
) -> Result<Vec<(&'static Table, i64)>, String> {
    let last = tables.len().checked_sub(1).ok_or("no table")?;
    let mut stmt = conn.prepare(sql).map_err(|e| e.to_string())?;
    let rows = stmt.query_map([id], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?))).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    for r in rows {
        let (t, rowid) = r.map_err(|e| e.to_string())?;
        out.push((tables[t.clamp(0, last as i64) as usize], rowid));
    }
    Ok(out)
}

/// Column `i` of a result row as text (`None`: not text).
pub fn text_at(r: &rusqlite::Row<'_>, i: usize) -> rusqlite::Result<Option<String>> {
    Ok(match r.get_ref(i)? {
        rusqlite::types::ValueRef::Text(t) => Some(String::from_utf8_lossy(t).into_owned()),
        _ => None,
    })
}

/// What `read` makes of the database at `db` when `is_writer` says it is
/// the writer's (`None`: it is not); a database that cannot be opened or
/// read is reported to `diag` (as its path) and gives nothing.
pub fn read_store<T>(
    db: &Path,
    diag: Option<&crate::diag::Diag>,
    is_writer: fn(&Connection) -> Result<bool, String>,
    read: impl FnOnce(&Connection) -> Result<Vec<T>, String>,
) -> Option<Vec<T>> {
    let read = Db::open(db).and_then(|conn| match is_writer(&conn)? {
        true => read(&conn).map(Some),
        false => Ok(None),
    });
    match read {
        Ok(rows) => rows,
        Err(e) => {
            if let Some(d) = diag {
                d.error(&format_args!("{}: {e}", db.display()));
            }
            Some(Vec::new())
        }
    }
}

#[cfg(test)]
mod tests;
