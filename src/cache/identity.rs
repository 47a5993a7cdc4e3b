//! Whether what was indexed of a capture is still what the file holds.
//!
//! Captures are append-only, so an index stays valid as a file grows and only
//! the new bytes need reading. Everything else makes it invalid: the path now
//! names another file (rotation: another device or inode), the file shrank,
//! its first bytes or its last indexed line changed (a rewrite), or it has
//! the indexed size but another modification time (a rewrite of the same
//! size). An index covers whole lines only: the bytes after the last newline
//! (a torn tail, still being written) are read again on the next run.
//!
//! Not detected, by design: a rewrite that keeps the device, inode, size
//! and modification time (to the file system's timestamp resolution:
//! [`Identity::unchanged`] then answers without reading), or one that
//! changes only bytes between the head and the last indexed line and then
//! appends. Neither is what an agent framework's logger does (`touch -r`
//! after an edit in place would be).

use std::fs::{File, Metadata};
use std::io;
use xxhash_rust::xxh3::Xxh3;

/// How many leading bytes are hashed.
pub const HEAD: u64 = 4096;

/// What an index records of the file it was built from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Identity {
    /// Device and inode of the file.
    pub dev: u64,
    /// Inode number.
    pub ino: u64,
    /// Bytes indexed: the end of the last whole line.
    pub indexed: u64,
    /// The file's length when it was indexed (past `indexed` when it had a
    /// torn tail).
    pub len: u64,
    /// Modification time then, in nanoseconds since the epoch.
    pub mtime_ns: i128,
    /// XXH3 of the first `min(HEAD, indexed)` bytes.
    pub head: u64,
    /// Offset and XXH3 of the last indexed line (with its newline), if any.
    pub last_line: Option<(u64, u64)>,
}

/// What a `stat` says of a file beside a capture's first (a Claude Code
/// session's subagent transcripts): an entry that covers such files holds
/// their stats, and is current only while every one is as it was and was
/// last modified well before the entry was written (there are no hashes of
/// their bytes to fall back on, [`Stat::settled`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Stat {
    /// Device and inode.
    pub dev: u64,
    /// Inode number.
    pub ino: u64,
    /// Length.
    pub len: u64,
    /// Modification time, in nanoseconds since the epoch.
    pub mtime_ns: i128,
}

impl Stat {
    /// The stat of `meta`.
    pub fn of(meta: &Metadata) -> Stat {
        let (dev, ino) = dev_ino(meta);
        Stat { dev, ino, len: meta.len(), mtime_ns: mtime_ns(meta) }
    }

    /// Whether the file was last modified two seconds or more before
    /// `used` (seconds since the epoch): a stat equal to this one then
    /// proves it unchanged (the rule of [`super::EntryRef::settled`]).
    pub fn settled(&self, used: u64) -> bool {
        const MARGIN_NS: i128 = 2_000_000_000;
        self.mtime_ns.saturating_add(MARGIN_NS) < i128::from(used).saturating_mul(1_000_000_000)
    }
}

impl Stat {
    /// A capture's `context` with the stats of its other files: any change
    /// to one of them (a subagent transcript that grew) makes what is kept
    /// another capture's.
    pub fn with_others(context: u64, others: &[Stat]) -> u64 {
        if others.is_empty() {
            return context;
        }
        let mut h = xxhash_rust::xxh3::Xxh3::new();
        h.update(&context.to_le_bytes());
        for s in others {
            for n in [s.dev, s.ino, s.len] {
                h.update(&n.to_le_bytes());
            }
            h.update(&s.mtime_ns.to_le_bytes());
        }
        h.digest()
    }

    /// The stats of `files`; `None` when one cannot be had.
    pub fn of_files(files: &[std::path::PathBuf]) -> Option<Vec<Stat>> {
        files.iter().map(|f| std::fs::metadata(f).ok().map(|m| Stat::of(&m))).collect()
    }
}

/// What an index of the file is worth now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fresh {
    /// Nothing changed: the index answers as it is.
    Current,
    /// The file grew: read from `from` (the end of the indexed lines) on.
    Grew {
        /// Where reading resumes.
        from: u64,
    },
    /// The index must be built again from the start.
    Rebuild(Why),
}

/// Why an index is built again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Why {
    /// The path names another file (rotated or replaced).
    Replaced,
    /// The file is shorter than what was indexed.
    Shrank,
    /// Its first bytes or its last indexed line changed.
    Rewritten,
    /// Same size, another modification time: possibly rewritten.
    Touched,
}

impl Identity {
    /// The identity of `file` indexed up to `indexed` bytes (the end of its
    /// last whole line), whose last line starts at `last_line_at` (`None`
    /// when no line was indexed).
    pub fn of(file: &File, indexed: u64, last_line_at: Option<u64>) -> io::Result<Identity> {
        let meta = file.metadata()?;
        let head = hash_range(file, 0, indexed.min(HEAD))?;
        let last_line = match last_line_at {
            Some(at) if at < indexed => Some((at, hash_range(file, at, indexed - at)?)),
            _ => None,
        };
        let (dev, ino) = dev_ino(&meta);
        Ok(Identity { dev, ino, indexed, len: meta.len(), mtime_ns: mtime_ns(&meta), head, last_line })
    }

    /// What a `stat` of the file said when it was indexed.
    pub fn stat(&self) -> Stat {
        Stat { dev: self.dev, ino: self.ino, len: self.len, mtime_ns: self.mtime_ns }
    }

    /// The identity of a file known by its `stat` alone, indexed whole (no
    /// hashes: for what is kept only while the stat is unchanged and settled).
    pub fn of_stat(s: Stat) -> Identity {
        Identity { dev: s.dev, ino: s.ino, indexed: s.len, len: s.len, mtime_ns: s.mtime_ns, head: 0, last_line: None }
    }

    /// Whether `now` (a `stat` of the capture's path) shows the file as it
    /// was indexed, with no torn tail: the same device, inode, length and
    /// modification time. The index is then current without reading a byte
    /// (the common case of a warm run: one `stat` per capture).
    pub fn unchanged(&self, now: Stat) -> bool {
        now == self.stat() && self.len == self.indexed
    }

    /// What an index with this identity is worth for `file` now.
    pub fn check(&self, file: &File) -> io::Result<Fresh> {
        let meta = file.metadata()?;
        if dev_ino(&meta) != (self.dev, self.ino) {
            return Ok(Fresh::Rebuild(Why::Replaced));
        }
        let len = meta.len();
        if len < self.indexed {
            return Ok(Fresh::Rebuild(Why::Shrank));
        }
        if hash_range(file, 0, self.indexed.min(HEAD))? != self.head {
            return Ok(Fresh::Rebuild(Why::Rewritten));
        }
        if let Some((at, hash)) = self.last_line {
            if hash_range(file, at, self.indexed - at)? != hash {
                return Ok(Fresh::Rebuild(Why::Rewritten));
            }
        }
        let same_time = mtime_ns(&meta) == self.mtime_ns;
        Ok(match (len == self.len, same_time) {
            (true, true) if len == self.indexed => Fresh::Current,
            // A torn tail as it was: its bytes are read again, nothing else.
            (true, true) => Fresh::Grew { from: self.indexed },
            (true, false) => Fresh::Rebuild(Why::Touched),
            (false, _) => Fresh::Grew { from: self.indexed },
        })
    }
}

/// XXH3 of `len` bytes of `file` at `at` (fewer if the file is shorter: the
/// hash then differs from one taken when it was longer), read 64 KiB at a
/// time (a last line may be megabytes).
fn hash_range(file: &File, at: u64, len: u64) -> io::Result<u64> {
    let mut hasher = Xxh3::new();
    let mut buf = [0u8; 64 * 1024];
    let mut done = 0u64;
    while done < len {
        let want = usize::try_from(len - done).map_or(buf.len(), |n| n.min(buf.len()));
        match read_at(file, &mut buf[..want], at + done) {
            Ok(0) => break,
            Ok(n) => {
                hasher.update(&buf[..n]);
                done += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(hasher.digest())
}

#[cfg(unix)]
fn read_at(file: &File, buf: &mut [u8], at: u64) -> io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, buf, at)
}

#[cfg(windows)]
fn read_at(file: &File, buf: &mut [u8], at: u64) -> io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(file, buf, at)
}

#[cfg(not(any(unix, windows)))]
fn read_at(_file: &File, _buf: &mut [u8], _at: u64) -> io::Result<usize> {
    Err(io::Error::new(io::ErrorKind::Unsupported, "positioned reads"))
}

#[cfg(unix)]
fn dev_ino(meta: &Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (meta.dev(), meta.ino())
}

#[cfg(not(unix))]
fn dev_ino(_meta: &Metadata) -> (u64, u64) {
    (0, 0)
}

fn mtime_ns(meta: &Metadata) -> i128 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| i128::try_from(d.as_nanos()).unwrap_or(i128::MAX))
}

#[cfg(all(test, unix))]
mod tests;
