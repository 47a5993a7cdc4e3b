//! One cache file: written whole and renamed into place, read back only when
//! its header and checksum say it is ours, whole and current.
//!
//! Layout (little endian), 40 bytes of header then the body:
//!
//! | bytes | field |
//! |---|---|
//! | 0..8 | magic `CITOOLS\0` |
//! | 8..12 | kind ([`Kind`]), four ASCII bytes |
//! | 12..16 | format version ([`VERSION`]), u32 |
//! | 16..24 | body length, u64 |
//! | 24..32 | checked length: how many of the body's first bytes the checksum covers, u64 |
//! | 32..40 | XXH3-64 of those bytes, u64 |
//!
//! A file written whole by [`CacheDir::write`] is checked whole. A store
//! ([`super::store`]) checks only its head (the label and the index of its
//! entries) here, and each entry when it is used, against the checksum the
//! index holds for it: a run that uses a few entries of a large file reads
//! only those ([`CacheDir::map`] maps the file instead of copying it).

use std::fmt;
use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

use super::CacheDir;

/// The first bytes of every cache file.
pub const MAGIC: [u8; 8] = *b"CITOOLS\0";

/// The version of the layouts of every kind; a file of another version is
/// rebuilt, not read (and, hashed into the files' names, not even looked
/// at: an older version's files are left to the bound's eviction).
/// 3: a store's head holds the captures' bytes it covers (issue 33).
pub const VERSION: u32 = 3;

/// Length of the header.
pub const HEADER: usize = 40;

/// What a cache file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// ci-filter's line index: each capture's event lines ([`super::line_index`]).
    Lines,
    /// Per-capture answers of one question ([`super::store`]).
    Answers,
}

impl Kind {
    fn tag(self) -> [u8; 4] {
        match self {
            Kind::Lines => *b"LINE",
            Kind::Answers => *b"ANSW",
        }
    }
}

/// Why a cache file is not trusted (it is then rebuilt).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Damage {
    /// Not a cache file of this toolkit (another magic).
    Foreign,
    /// Shorter than its header.
    Short(u64),
    /// A cache file of another kind than the name says.
    OtherKind,
    /// Written by another version of the toolkit.
    OtherVersion(u32),
    /// The body is not as long as the header says (a torn or extended write).
    Length { expected: u64, found: u64 },
    /// The body's checksum does not match (damaged bytes).
    Checksum,
    /// The checksum matches but the body is not laid out as its kind is.
    Corrupt,
    /// Not a regular file (a FIFO, a device, a symbolic link): never read.
    NotRegular,
}

impl fmt::Display for Damage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Damage::Foreign => f.write_str("not a ci-tools cache file"),
            Damage::Short(n) => write!(f, "truncated to {n} bytes, shorter than its header"),
            Damage::OtherKind => f.write_str("a cache file of another kind"),
            Damage::OtherVersion(v) => write!(f, "written by cache version {v}, this is version {VERSION}"),
            Damage::Length { expected, found } => {
                write!(f, "its body is {found} bytes, its header says {expected}")
            }
            Damage::Checksum => f.write_str("its checksum does not match"),
            Damage::Corrupt => f.write_str("its contents are not laid out as this version writes them"),
            Damage::NotRegular => f.write_str("not a regular file (a FIFO, device or symbolic link)"),
        }
    }
}

/// Reading a cache file failed.
#[derive(Debug)]
pub enum ReadError {
    /// The file exists but is not to be trusted.
    Damaged(PathBuf, Damage),
    /// It could not be read.
    Io(PathBuf, io::Error),
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Damaged(p, d) => write!(f, "{}: {d}; rebuilding it", p.display()),
            ReadError::Io(p, e) => write!(f, "{}: {e}; rebuilding it", p.display()),
        }
    }
}

/// Whether `name` may name a file in the cache directory: a safe name
/// ([`crate::session::unsafe_name`]: one path component), not hidden
/// (temporary files start with `.`).
fn valid_name(name: &str) -> bool {
    !crate::session::unsafe_name(name) && !name.starts_with('.')
}

/// The header of a body `len` bytes long whose first bytes are `checked`.
fn header(kind: Kind, checked: &[u8], len: usize) -> [u8; HEADER] {
    let mut h = [0u8; HEADER];
    h[0..8].copy_from_slice(&MAGIC);
    h[8..12].copy_from_slice(&kind.tag());
    h[12..16].copy_from_slice(&VERSION.to_le_bytes());
    h[16..24].copy_from_slice(&(len as u64).to_le_bytes());
    h[24..32].copy_from_slice(&(checked.len() as u64).to_le_bytes());
    h[32..40].copy_from_slice(&xxhash_rust::xxh3::xxh3_64(checked).to_le_bytes());
    h
}

/// The body of a cache file's bytes, if they are a whole, current file of
/// `kind`, and how many of its first bytes the checksum covered (all of a
/// file written by [`CacheDir::write`]).
pub fn check(kind: Kind, bytes: &[u8]) -> Result<(&[u8], usize), Damage> {
    if bytes.len() < HEADER {
        return Err(if bytes.starts_with(&MAGIC[..bytes.len().min(8)]) {
            Damage::Short(bytes.len() as u64)
        } else {
            Damage::Foreign
        });
    }
    if bytes[0..8] != MAGIC {
        return Err(Damage::Foreign);
    }
    if bytes[8..12] != kind.tag() {
        return Err(Damage::OtherKind);
    }
    let version = u32::from_le_bytes(le(&bytes[12..16]));
    if version != VERSION {
        return Err(Damage::OtherVersion(version));
    }
    let body = &bytes[HEADER..];
    let expected = u64::from_le_bytes(le(&bytes[16..24]));
    if expected != body.len() as u64 {
        return Err(Damage::Length { expected, found: body.len() as u64 });
    }
    let checked = u64::from_le_bytes(le(&bytes[24..32]));
    let Some(head) = usize::try_from(checked).ok().and_then(|n| body.get(..n)) else {
        return Err(Damage::Corrupt);
    };
    if xxhash_rust::xxh3::xxh3_64(head) != u64::from_le_bytes(le(&bytes[32..40])) {
        return Err(Damage::Checksum);
    }
    Ok((body, head.len()))
}

/// A cache file as read: mapped into memory (a run that uses a few entries of
/// a large store touches only their pages), or its bytes when it cannot be
/// mapped (too short to hold a header, or a file system without mappings).
#[derive(Debug)]
pub struct Mapped {
    bytes: Bytes,
    checked: usize,
}

#[derive(Debug)]
enum Bytes {
    Map(memmap2::Mmap),
    Read(Vec<u8>),
}

impl Bytes {
    fn all(&self) -> &[u8] {
        match self {
            Bytes::Map(m) => m,
            Bytes::Read(v) => v,
        }
    }
}

impl Mapped {
    /// The file's body (what follows the header).
    pub fn body(&self) -> &[u8] {
        &self.bytes.all()[HEADER..]
    }

    /// How many of the body's first bytes its checksum covered.
    pub fn checked(&self) -> usize {
        self.checked
    }
}

/// The `N` bytes of a header field (`b` is exactly `N` long).
fn le<const N: usize>(b: &[u8]) -> [u8; N] {
    let mut a = [0u8; N];
    a.copy_from_slice(b);
    a
}

/// Makes temporary names unique within the process (the pid tells
/// processes apart).
static TEMP: AtomicU64 = AtomicU64::new(0);

impl CacheDir {
    /// The path of the cache file `name`.
    pub fn file(&self, name: &str) -> PathBuf {
        self.path().join(name)
    }

    /// Writes `body` as the cache file `name` of `kind`, checked whole: to a
    /// new temporary file (mode 0600) in the directory, then renamed over
    /// `name`, so a reader sees the old file or the new one, never a mix; of
    /// two runs writing at once, the later rename wins. The temporary file is
    /// removed when anything fails.
    pub fn write(&self, name: &str, kind: Kind, body: &[u8]) -> io::Result<()> {
        self.write_parts(name, kind, body, &[])
    }

    /// [`CacheDir::write`] of a body made of `checked` (the bytes the
    /// header's checksum covers) then `rest`, written piece by piece.
    pub fn write_parts(&self, name: &str, kind: Kind, checked: &[u8], rest: &[&[u8]]) -> io::Result<()> {
        if !valid_name(name) {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("invalid cache file name {name:?}")));
        }
        let n = TEMP.fetch_add(1, Ordering::Relaxed);
        let temp = self.file(&format!(".{name}.{}.{n}.tmp", std::process::id()));
        let len = checked.len() + rest.iter().map(|p| p.len()).sum::<usize>();
        let head = header(kind, checked, len);
        let pieces = [&head[..], checked].into_iter().chain(rest.iter().copied());
        let result = write_new(&temp, pieces).and_then(|()| std::fs::rename(&temp, self.file(name)));
        if result.is_err() {
            let _ = std::fs::remove_file(&temp);
        }
        result
    }

    /// The cache file `name` of `kind`, mapped into memory: `Ok(None)` when
    /// there is none, the file when it is whole and current, else why not
    /// ([`ReadError`]: the caller reports it once and rebuilds the file).
    pub fn map(&self, name: &str, kind: Kind) -> Result<Option<Mapped>, ReadError> {
        let path = self.file(name);
        let bytes = match open_bytes(&path) {
            Ok(Some(b)) => b,
            Ok(None) => return Err(ReadError::Damaged(path, Damage::NotRegular)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) if is_link(&e) => return Err(ReadError::Damaged(path, Damage::NotRegular)),
            Err(e) => return Err(ReadError::Io(path, e)),
        };
        match check(kind, bytes.all()) {
            Ok((_, checked)) => Ok(Some(Mapped { bytes, checked })),
            Err(d) => Err(ReadError::Damaged(path, d)),
        }
    }
}

/// Whether opening failed because the path is a symbolic link
/// ([`crate::files::open_own`] does not follow one).
fn is_link(e: &io::Error) -> bool {
    #[cfg(unix)]
    {
        e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error())
    }
    #[cfg(not(unix))]
    {
        let _ = e;
        false
    }
}

/// The bytes of the file at `path`, mapped when it is long enough to hold a
/// header (a mapping of nothing is refused by the system) and the file
/// system allows it, else read; `None` when it is not a regular file (a
/// FIFO would block or never end, a device such as `/dev/zero` never ends).
fn open_bytes(path: &std::path::Path) -> io::Result<Option<Bytes>> {
    use std::io::Read;
    let file = crate::files::open_own(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Ok(None);
    }
    if meta.len() >= HEADER as u64 {
        // SAFETY: the mapping is read-only and private to this process. The
        // toolkit never changes a cache file in place: a new one is written
        // and renamed over it, so the mapped file stays as it was while
        // mapped. Only another program truncating it in place, in the
        // private (0700) cache directory, could make a read fault.
        if let Ok(map) = unsafe { memmap2::Mmap::map(&file) } {
            return Ok(Some(Bytes::Map(map)));
        }
    }
    // No more than the file held when checked (it cannot grow a cache file
    // in memory by appending while it is read).
    let mut bytes = Vec::new();
    file.take(meta.len()).read_to_end(&mut bytes)?;
    Ok(Some(Bytes::Read(bytes)))
}

/// Creates `path` (it must not exist; mode 0600) holding `pieces`, one
/// after the other.
fn write_new<'a>(path: &std::path::Path, pieces: impl Iterator<Item = &'a [u8]>) -> io::Result<()> {
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    let mut f = io::BufWriter::with_capacity(1 << 18, opts.open(path)?);
    for p in pieces {
        f.write_all(p)?;
    }
    #[cfg(all(test, unix))]
    if FAIL_FULL.with(|n| n.replace(n.get().saturating_sub(1))) > 0 {
        return Err(io::Error::from_raw_os_error(rustix::io::Errno::NOSPC.raw_os_error()));
    }
    // No fsync: this is a cache. After a crash a renamed file may be torn;
    // its length and checksum then refuse it, and it is rebuilt.
    f.flush()
}

#[cfg(all(test, unix))]
thread_local! {
    /// For tests: how many of this thread's next writes fail as on a full
    /// file system (`ENOSPC`, after their bytes are written), since filling
    /// a real one needs a mount.
    pub static FAIL_FULL: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}
