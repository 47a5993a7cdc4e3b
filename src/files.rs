//! File-system helpers every writer's discovery uses: the usable-file check
//! (never open a FIFO or a device), sorted directory listings, `~` expansion.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// Why a session whose path is not UTF-8 is skipped: session records carry
/// paths as JSON strings, and a lossy path would not open again.
pub const NOT_UTF8: &str = "path is not valid UTF-8 (not supported: records carry paths as JSON strings)";

/// The metadata of `path` when it is a readable regular file (following
/// symbolic links). `Err(None)`: nothing there (not a capture); `Err(Some)`:
/// something unusable is there — a dangling or looping symbolic link, a
/// FIFO, socket, device or directory (never opened: it could block) — with
/// the reason to report.
pub fn usable_file(path: &Path) -> std::result::Result<fs::Metadata, Option<String>> {
    // One stat that follows links answers the common case (a regular file, or
    // nothing there); `lstat` is asked only when that fails with "not found",
    // to tell a dangling link from no file. Any other failure of `stat` is the
    // one `lstat` would have given first, or the link's own (a loop).
    match fs::metadata(path) {
        Ok(m) if m.is_file() => Ok(m),
        Ok(_) => Err(Some("not a regular file".into())),
        // A component that is a file (a stray `.DS_Store` where a session
        // directory is expected): nothing there, as for a missing path.
        Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => Err(None),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => match fs::symlink_metadata(path) {
            Ok(_) => Err(Some("dangling symbolic link".into())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(None),
            Err(e) => Err(Some(e.to_string())),
        },
        Err(e) => Err(Some(e.to_string())),
    }
}

/// The entries of `dir`, sorted. All share the parent `dir`, so comparing the
/// whole paths as bytes gives the order of `Path`'s component-wise comparison
/// at a fraction of its cost (a sessions folder can hold thousands of entries).
pub fn read_dir_sorted(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut v: Vec<PathBuf> = fs::read_dir(dir)?.filter_map(|e| e.ok().map(|e| e.path())).collect();
    v.sort_unstable_by(|a, b| a.as_os_str().as_encoded_bytes().cmp(b.as_os_str().as_encoded_bytes()));
    Ok(v)
}

/// The directories in `dir`, sorted as [`read_dir_sorted`] (none when it
/// cannot be read).
pub fn sorted_dirs(dir: &Path) -> Vec<PathBuf> {
    let mut v = read_dir_sorted(dir).unwrap_or_default();
    v.retain(|p| p.is_dir());
    v
}

/// `~` and `~/…` expanded against `$HOME`; anything else unchanged.
pub fn expand_tilde(s: &str) -> PathBuf {
    match (s.strip_prefix('~'), std::env::var_os("HOME")) {
        (Some(rest), Some(home)) if rest.is_empty() || rest.starts_with('/') => {
            PathBuf::from(home).join(rest.trim_start_matches('/'))
        }
        _ => PathBuf::from(s),
    }
}

/// Opens `path` for reading without waiting: a FIFO opens at once (and reads
/// as empty with no writer) instead of blocking the tool. Reading a regular
/// file is unaffected.
pub fn open_nonblocking(path: &Path) -> io::Result<fs::File> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        let nonblock = rustix::fs::OFlags::NONBLOCK.bits() as i32;
        fs::OpenOptions::new().read(true).custom_flags(nonblock).open(path)
    }
    #[cfg(not(unix))]
    {
        fs::File::open(path)
    }
}

/// Opens a file to read events from: a regular file only (a FIFO, device or
/// directory named by a piped session record or a rotated followed file is
/// never read: it could block or never end), checked on the open handle,
/// with no extra path lookup.
pub fn open_regular(path: &Path) -> io::Result<fs::File> {
    let file = open_nonblocking(path)?;
    if file.metadata()?.is_file() {
        Ok(file)
    } else {
        Err(io::Error::new(io::ErrorKind::InvalidInput, "not a regular file, skipped"))
    }
}
