//! File-system helpers every writer's discovery uses: the usable-file check
//! (never open a FIFO or a device), sorted directory listings, `~` expansion.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// Why a session whose path is not UTF-8 is skipped: session records carry
/// paths as JSON strings, and a lossy path would not open again.
pub(crate) const NOT_UTF8: &str = "path is not valid UTF-8 (not supported: records carry paths as JSON strings)";

/// The metadata of `path` when it is a readable regular file (following
/// symbolic links). `Err(None)`: nothing there (not a capture); `Err(Some)`:
/// something unusable is there — a dangling or looping symbolic link, a
/// FIFO, socket, device or directory (never opened: it could block) — with
/// the reason to report.
pub(crate) fn usable_file(path: &Path) -> std::result::Result<fs::Metadata, Option<String>> {
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

/// [`usable_file`] for discovery: the metadata of a capture file, or `None`
/// when nothing is there or (reported as `path: reason, skipped` when a
/// `diag` is given) something unusable is.
pub(crate) fn usable_or_reported(path: &Path, diag: Option<&crate::diag::Diag>) -> Option<fs::Metadata> {
    match usable_file(path) {
        Ok(m) => Some(m),
        Err(reason) => {
            if let (Some(d), Some(r)) = (diag, reason) {
                d.error(&format_args!("{}: {r}, skipped", path.display()));
            }
            None
        }
    }
}

/// The entries of `dir`, sorted. All share the parent `dir`, so comparing the
/// whole paths as bytes gives the order of `Path`'s component-wise comparison
/// at a fraction of its cost (a sessions folder can hold thousands of entries).
pub(crate) fn read_dir_sorted(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut v: Vec<PathBuf> = fs::read_dir(dir)?.filter_map(|e| e.ok().map(|e| e.path())).collect();
    v.sort_unstable_by(|a, b| by_bytes(a, b));
    Ok(v)
}

/// The order of [`read_dir_sorted`]: paths of one directory as bytes.
fn by_bytes(a: &Path, b: &Path) -> std::cmp::Ordering {
    a.as_os_str().as_encoded_bytes().cmp(b.as_os_str().as_encoded_bytes())
}

/// An entry of a directory listing and its type ([`read_dir_typed`]).
pub(crate) struct Listed {
    pub path: PathBuf,
    /// A directory (a symbolic link to one too).
    pub dir: bool,
    /// A regular file (a symbolic link to one too).
    pub file: bool,
}

/// The entries of `dir` with their types, sorted as [`read_dir_sorted`]:
/// the type the listing itself gives (no `stat` per entry, which on a tree
/// of 28,000 files is most of a walk's cost), a symbolic link's (or an
/// entry the listing gives no type of) by a `stat` of its target.
pub(crate) fn read_dir_typed(dir: &Path) -> std::io::Result<Vec<Listed>> {
    let typed = |e: fs::DirEntry| {
        let path = e.path();
        let (dir, file) = match e.file_type() {
            Ok(t) if !t.is_symlink() => (t.is_dir(), t.is_file()),
            _ => (path.is_dir(), path.is_file()),
        };
        Listed { path, dir, file }
    };
    let mut v: Vec<Listed> = fs::read_dir(dir)?.filter_map(|e| e.ok().map(typed)).collect();
    v.sort_unstable_by(|a, b| by_bytes(&a.path, &b.path));
    Ok(v)
}

/// The directories in `dir`, sorted as [`read_dir_sorted`] (none when it
/// cannot be read).
pub(crate) fn sorted_dirs(dir: &Path) -> Vec<PathBuf> {
    let mut v = read_dir_sorted(dir).unwrap_or_default();
    v.retain(|p| p.is_dir());
    v
}

/// `~` and `~/…` expanded against `$HOME`; anything else unchanged.
pub(crate) fn expand_tilde(s: &str) -> PathBuf {
    match (s.strip_prefix('~'), std::env::var_os("HOME")) {
        (Some(rest), Some(home)) if rest.is_empty() || rest.starts_with('/') => {
            PathBuf::from(home).join(rest.trim_start_matches('/'))
        }
        _ => PathBuf::from(s),
    }
}

/// The working directory as the shell shows it (`pwd`): `$PWD` when it is
/// absolute and names the same directory as `.` (a path through a symbolic
/// link stays as typed), else the physical one; `None` when neither can be
/// read (the directory was removed).
pub(crate) fn working_dir() -> Option<PathBuf> {
    let physical = std::env::current_dir().ok();
    let logical = std::env::var_os("PWD").map(PathBuf::from).filter(|p| p.is_absolute());
    match (logical, &physical) {
        (Some(l), Some(p)) if same_file(&l, p) => Some(l),
        _ => physical,
    }
}

#[cfg(unix)]
fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (fs::metadata(a), fs::metadata(b)) {
        (Ok(x), Ok(y)) => (x.dev(), x.ino()) == (y.dev(), y.ino()),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_file(a: &Path, b: &Path) -> bool {
    a == b
}

/// `path` made absolute against [`working_dir`], with `.` and `..` resolved
/// lexically (as `cd` does: `a/link/..` is `a`), so `.`, `..`, `./x` and
/// `sessions/<id>` name the folders they stand for. Unchanged when the
/// working directory cannot be read.
pub(crate) fn absolute(path: &Path) -> PathBuf {
    if path.is_absolute() {
        return absolute_in(Path::new("/"), path);
    }
    match working_dir() {
        Some(cwd) => absolute_in(&cwd, path),
        None => path.to_path_buf(),
    }
}

/// [`absolute`] against a working directory read once (`cwd`, absolute):
/// for callers that make many paths absolute (the capture cache's keys).
pub(crate) fn absolute_in(cwd: &Path, path: &Path) -> PathBuf {
    use std::path::Component;
    let joined = cwd.join(path);
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// The name of the folder `up` levels above `path` (0: its own name), as
/// the path is typed when it shows it, else as it resolves against the
/// working directory ([`absolute`]): writers name sessions and projects
/// after folders, and `.`, `..` or a short relative path (`sessions/<id>`
/// typed inside a project folder) does not show them.
pub(crate) fn name_above(path: &Path, up: usize) -> Option<String> {
    use std::path::Component;
    let nth = |p: &Path| {
        let mut names = p.components().rev().filter_map(|c| match c {
            Component::Normal(n) => Some(n),
            _ => None,
        });
        names.nth(up).map(|n| n.to_string_lossy().into_owned())
    };
    let lexical = !path.components().any(|c| c == Component::ParentDir);
    match nth(path) {
        Some(n) if lexical => Some(n),
        _ => nth(&absolute(path)),
    }
}

/// The folder `up` levels above `path` (0: `path` itself): as typed when the
/// typed path holds it, else resolved against the working directory
/// ([`absolute`]), so a bare `events.jsonl` still has its session folder.
pub(crate) fn dir_above(path: &Path, up: usize) -> Option<PathBuf> {
    use std::path::Component;
    let typed = path.ancestors().nth(up).filter(|p| !p.as_os_str().is_empty());
    let lexical = !path.components().any(|c| c == Component::ParentDir);
    match typed {
        Some(p) if lexical => Some(p.to_path_buf()),
        _ => absolute(path).ancestors().nth(up).map(Path::to_path_buf),
    }
}

/// Opens `path` for reading without waiting: a FIFO opens at once (and reads
/// as empty with no writer) instead of blocking the tool. Reading a regular
/// file is unaffected.
pub(crate) fn open_nonblocking(path: &Path) -> io::Result<fs::File> {
    open_read(path, false)
}

/// [`open_nonblocking`], not following a symbolic link in the last
/// component (a link is an error, `ELOOP`): for files the toolkit wrote
/// itself, in its private cache directory, which are never links.
pub(crate) fn open_own(path: &Path) -> io::Result<fs::File> {
    open_read(path, true)
}

/// Opens `path` for reading with `O_NONBLOCK` (and `O_NOFOLLOW`).
fn open_read(path: &Path, nofollow: bool) -> io::Result<fs::File> {
    #[cfg(unix)]
    {
        use rustix::fs::OFlags;
        use std::os::unix::fs::OpenOptionsExt;
        let flags = if nofollow { OFlags::NONBLOCK | OFlags::NOFOLLOW } else { OFlags::NONBLOCK };
        fs::OpenOptions::new().read(true).custom_flags(flags.bits() as i32).open(path)
    }
    #[cfg(not(unix))]
    {
        let _ = nofollow;
        fs::File::open(path)
    }
}

/// Opens a file to read events from: a regular file only (a FIFO, device or
/// directory named by a piped session record or a rotated followed file is
/// never read: it could block or never end), checked on the open handle,
/// with no extra path lookup.
pub(crate) fn open_regular(path: &Path) -> io::Result<fs::File> {
    let file = open_nonblocking(path)?;
    if file.metadata()?.is_file() {
        Ok(file)
    } else {
        Err(io::Error::new(io::ErrorKind::InvalidInput, "not a regular file, skipped"))
    }
}

/// Non-blank lines of a file (0 when it cannot be read as a regular file).
pub(crate) fn count_lines(path: &Path) -> u64 {
    let Ok(f) = open_regular(path) else { return 0 };
    let mut lines = crate::lines::LineReader::new(f);
    let mut n = 0;
    while let Ok(Some(l)) = lines.next_line() {
        if !l.bytes.trim_ascii().is_empty() {
            n += 1;
        }
    }
    n
}

/// `f` of every item, on all cores, kept in the given order (`None`s left
/// out): for discovery, where each item costs a few system calls and a tree
/// holds 100,000. Items are handed out in small blocks, so a thread that is
/// slowed down (a busy machine, a cold cache) does not leave the other
/// waiting. Each result is written once into its slot of one allocation,
/// which is then compacted in place (session records are large: copying
/// 100,000 of them into fresh memory costs more than reading their metadata).
pub(crate) fn in_parallel<T: Sync, R: Send>(
    items: &[T],
    f: impl Fn(&T) -> Option<R> + Sync,
    diag: &crate::diag::Diag,
) -> Vec<R> {
    const BLOCK: usize = 256;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    if threads < 2 || items.len() < BLOCK {
        return items.iter().filter_map(&f).collect();
    }
    let mut slots: Vec<Option<R>> = Vec::new();
    slots.resize_with(items.len(), || None);
    let blocks = std::sync::Mutex::new(items.chunks(BLOCK).zip(slots.chunks_mut(BLOCK)));
    let work = || loop {
        // A poisoned lock means another worker panicked: stop taking blocks.
        let Some((block, out)) = blocks.lock().ok().and_then(|mut b| b.next()) else { return };
        for (item, slot) in block.iter().zip(out) {
            *slot = f(item);
        }
    };
    std::thread::scope(|s| {
        let helpers: Vec<_> = (1..threads.min(items.len().div_ceil(BLOCK))).map(|_| s.spawn(work)).collect();
        work();
        // A worker only panics on a bug; its results are then missing, never
        // silently: the join error is reported.
        for h in helpers {
            if h.join().is_err() {
                diag.error(&"internal error: a discovery thread panicked");
            }
        }
    });
    // `filter_map` (unlike `flatten`) collects in place: no second allocation.
    #[allow(clippy::filter_map_identity)]
    slots.into_iter().filter_map(|r| r).collect()
}
