//! How much the cache holds, and keeping it under its size bound.
//!
//! Each cache file's modification time is when a run last used it (a run
//! that reads a file without changing it sets its time, [`CacheDir::touch`]).
//! After a run writes a file, the files used least recently are removed
//! until the directory holds at most the bound (`CI_CACHE_MAX_BYTES`, a
//! size such as `500M`; default [`DEFAULT_MAX_BYTES`]); the file just
//! written always stays. A write that finds the file system full (or the
//! quota used up) before the bound is reached removes the least recently
//! used files until the file's size is freed and writes it again, once
//! ([`CacheDir::write_making_room`]). A removed file only costs its question
//! one cold run.

use std::io;
use std::time::SystemTime;

use super::CacheDir;

/// The default size bound: 1 GiB.
pub const DEFAULT_MAX_BYTES: u64 = 1 << 30;

/// One file of the cache directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheFile {
    /// Its name.
    pub name: String,
    /// Its size.
    pub bytes: u64,
    /// When it was last used (its modification time).
    pub used: SystemTime,
    /// Whether it is a regular file (else a FIFO, device or symbolic link
    /// put there by someone else: never read, replaced when next written).
    pub regular: bool,
    /// Whether it is a run's temporary file (`.NAME.PID.N.tmp`), renamed
    /// into place when whole, or left behind by a run that was killed.
    pub temp: bool,
}

/// A temporary file not written to for this long was left by a run that was
/// killed while writing it (a run writes its file in one go, a gigabyte in
/// seconds): the next run that writes the cache removes it.
pub const STALE_TEMP: std::time::Duration = std::time::Duration::from_secs(15 * 60);

impl CacheFile {
    /// Whether it is a temporary file left by a killed run ([`STALE_TEMP`]).
    pub fn stale_temp(&self, now: SystemTime) -> bool {
        self.temp && now.duration_since(self.used).is_ok_and(|d| d >= STALE_TEMP)
    }
}

/// The size bound: `CI_CACHE_MAX_BYTES` when set and valid, else the default
/// (an invalid value is the error to report).
pub fn max_bytes() -> Result<u64, String> {
    match std::env::var("CI_CACHE_MAX_BYTES") {
        Ok(v) => crate::units::size(&v).map_err(|e| format!("CI_CACHE_MAX_BYTES={v:?}: {e}")),
        Err(_) => Ok(DEFAULT_MAX_BYTES),
    }
}

impl CacheDir {
    /// Its cache files, runs' temporary files included (they take room
    /// too), folders and other hidden names left out; entries that are not
    /// regular files are kept, so that they are shown and evicted; least
    /// recently used first.
    pub fn files(&self) -> io::Result<Vec<CacheFile>> {
        let mut out = vec![];
        for e in std::fs::read_dir(self.path())? {
            let e = e?;
            let Ok(name) = e.file_name().into_string() else { continue };
            let temp = name.starts_with('.') && name.ends_with(".tmp");
            if name.starts_with('.') && !temp {
                continue;
            }
            let meta = match e.metadata() {
                Ok(m) => m,
                // Removed or renamed over by another run since it was listed.
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(e) => return Err(e),
            };
            if meta.is_dir() {
                continue;
            }
            let used = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
            out.push(CacheFile { name, bytes: meta.len(), used, regular: meta.is_file(), temp });
        }
        out.sort_by(|a, b| a.used.cmp(&b.used).then_with(|| a.name.cmp(&b.name)));
        Ok(out)
    }

    /// Notes that the file `name` was used now (for the least-recently-used
    /// order); nothing when it does not exist.
    pub fn touch(&self, name: &str) {
        let mut opts = std::fs::File::options();
        opts.append(true);
        #[cfg(unix)]
        {
            // A FIFO put in its place must not block the run, a link not be followed.
            use std::os::unix::fs::OpenOptionsExt;
            opts.custom_flags((rustix::fs::OFlags::NONBLOCK | rustix::fs::OFlags::NOFOLLOW).bits() as i32);
        }
        if let Ok(f) = opts.open(self.file(name)) {
            let _ = f.set_modified(SystemTime::now());
        }
    }

    /// Removes the temporary files of killed runs ([`STALE_TEMP`]), and
    /// the least recently used files until at most `max` bytes are left
    /// (counting the temporary files of runs writing now, which stay), never
    /// those in `keep`; the names removed.
    pub fn evict(&self, max: u64, keep: &[&str]) -> io::Result<Vec<String>> {
        self.remove_until(self.files()?, max, keep)
    }

    /// [`CacheDir::evict`] until at least `need` bytes are removed (fewer
    /// when only the files in `keep` and runs' temporary files are left).
    pub fn make_room(&self, need: u64, keep: &[&str]) -> io::Result<Vec<String>> {
        let files = self.files()?;
        let total: u64 = files.iter().map(|f| f.bytes).sum();
        self.remove_until(files, total.saturating_sub(need), keep)
    }

    /// Runs `write`, which writes a cache file of `need` bytes; when it
    /// fails because the file system is full ([`full`]: the bound is above
    /// what it has room for), makes room for the file ([`CacheDir::make_room`],
    /// never removing those in `keep`) and runs it once more. The error is
    /// the first one when nothing could be removed.
    pub fn write_making_room(&self, need: u64, keep: &[&str], write: impl Fn() -> io::Result<()>) -> io::Result<()> {
        match write() {
            Err(e) if full(&e) => match self.make_room(need, keep) {
                Ok(removed) if !removed.is_empty() => write(),
                _ => Err(e),
            },
            done => done,
        }
    }

    /// Removes the stale temporary files of `files` (least recently used
    /// first), and the others in order until at most `max` bytes are left,
    /// but those in `keep` and runs' temporary files; the names removed.
    fn remove_until(&self, files: Vec<CacheFile>, max: u64, keep: &[&str]) -> io::Result<Vec<String>> {
        let mut total: u64 = files.iter().map(|f| f.bytes).sum();
        let mut removed = vec![];
        let now = SystemTime::now();
        for f in files {
            let over = total > max && !f.temp && !keep.contains(&f.name.as_str());
            if !(over || f.stale_temp(now)) {
                continue;
            }
            match std::fs::remove_file(self.file(&f.name)) {
                Ok(()) => {}
                // Another run removed it first.
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
            total -= f.bytes;
            removed.push(f.name);
        }
        Ok(removed)
    }
}

/// Whether a write failed because the file system is full (`ENOSPC`) or the
/// user's quota is used up (`EDQUOT`): removing cache files makes room.
pub fn full(e: &io::Error) -> bool {
    matches!(e.kind(), io::ErrorKind::StorageFull | io::ErrorKind::QuotaExceeded)
}

/// What `ci-find --cache-info` prints: a record for the directory (where,
/// whether it is used or why not, files, bytes, bound), then one per cache
/// file, least recently used first. Nothing is created.
pub fn describe(var: impl Fn(&str) -> Option<std::ffi::OsString>) -> Vec<serde_json::Value> {
    use serde_json::json;
    let Some(path) = super::dir::location(&var) else {
        return vec![json!({"cache": null, "state": super::Refusal::NoPlace.to_string()})];
    };
    let max = max_bytes();
    let max = max.as_ref().map_or_else(|e| json!(e), |m| json!(m));
    let shown = path.to_string_lossy();
    if std::fs::symlink_metadata(&path).is_err() {
        return vec![json!({"cache": shown, "state": "none yet", "files": 0, "bytes": 0, "max_bytes": max})];
    }
    let dir = match CacheDir::open(&path) {
        Ok(d) => d,
        Err(refusal) => return vec![json!({"cache": shown, "state": refusal.to_string(), "max_bytes": max})],
    };
    let files = dir.files().unwrap_or_default();
    let total: u64 = files.iter().map(|f| f.bytes).sum();
    let mut out =
        vec![json!({"cache": shown, "state": "used", "files": files.len(), "bytes": total, "max_bytes": max})];
    for f in files {
        let used = crate::time::Timestamp::try_from(f.used).ok().map(crate::time::format_timestamp);
        let odd = if f.stale_temp(SystemTime::now()) {
            Some("a temporary file left by a run that was killed (removed when the cache is next written)")
        } else if f.temp {
            Some("a temporary file of a run writing the cache")
        } else if !f.regular {
            Some("not a regular file: never read (replaced when next used)")
        } else {
            None
        };
        if let Some(state) = odd {
            out.push(json!({"file": f.name, "state": state, "bytes": f.bytes, "used": used}));
            continue;
        }
        // Every kind is in the store layout; the header says which it is.
        let kinds = [super::Kind::Answers, super::Kind::Lines];
        let file = kinds.into_iter().find_map(|k| dir.map(&f.name, k).ok().flatten());
        out.push(match file.as_ref().and_then(super::store::summary) {
            Some((label, entries)) => {
                let question = serde_json::from_str(&label).unwrap_or(serde_json::Value::String(label));
                let mut rec =
                    json!({"file": f.name, "question": question, "entries": entries, "bytes": f.bytes, "used": used});
                // A store's delta names its base (super::store::Store).
                if let Some(base) = f.name.strip_suffix(super::store::DELTA) {
                    rec["delta_of"] = json!(base);
                }
                rec
            }
            None => json!({"file": f.name, "state": "not a cache file of this version (replaced when next used)", "bytes": f.bytes, "used": used}),
        });
    }
    out
}
