//! The cache directory: where it is, and whether it may be used.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// The name of the cache directory under `$XDG_CACHE_HOME` (or `~/.cache`).
pub const NAME: &str = "ci-tools";

/// A cache directory that passed [`CacheDir::open`]'s checks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheDir {
    path: PathBuf,
}

/// Why the cache directory is not used (the run goes on without a cache).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// Neither `XDG_CACHE_HOME` nor `HOME` gives a place for it.
    NoPlace,
    /// It does not exist and cannot be created (a read-only parent, …).
    Create(PathBuf, String),
    /// It is a symbolic link (its target could be anyone's).
    Symlink(PathBuf),
    /// It exists but is not a directory.
    NotADirectory(PathBuf),
    /// It belongs to another user.
    Owner(PathBuf),
    /// Other users may write into it (mode bits 022); its permission bits.
    Writable(PathBuf, u32),
    /// Its metadata cannot be read.
    Unreadable(PathBuf, String),
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let without = "running without the cache";
        match self {
            Refusal::NoPlace => write!(f, "no cache directory: neither XDG_CACHE_HOME nor HOME is set; {without}"),
            Refusal::Create(p, e) => write!(f, "cannot create the cache directory {}: {e}; {without}", p.display()),
            Refusal::Symlink(p) => write!(f, "cache directory {} is a symbolic link; {without}", p.display()),
            Refusal::NotADirectory(p) => write!(f, "cache directory {} is not a directory; {without}", p.display()),
            Refusal::Owner(p) => write!(f, "cache directory {} belongs to another user; {without}", p.display()),
            Refusal::Writable(p, mode) => write!(
                f,
                "cache directory {} is writable by others (mode {mode:03o}); {without} (chmod 700 it to use it)",
                p.display()
            ),
            Refusal::Unreadable(p, e) => write!(f, "cache directory {}: {e}; {without}", p.display()),
        }
    }
}

/// Where the cache directory is: `$XDG_CACHE_HOME/ci-tools` when that is an
/// absolute path (the XDG rule: a relative one is ignored), else
/// `$HOME/.cache/ci-tools`. `var` reads the environment (a parameter, so
/// tests need not change the process's).
pub fn location(var: impl Fn(&str) -> Option<std::ffi::OsString>) -> Option<PathBuf> {
    let absolute = |v: std::ffi::OsString| Some(PathBuf::from(v)).filter(|p| p.is_absolute());
    if let Some(xdg) = var("XDG_CACHE_HOME").and_then(absolute) {
        return Some(xdg.join(NAME));
    }
    var("HOME").and_then(absolute).map(|home| home.join(".cache").join(NAME))
}

impl CacheDir {
    /// The directory at [`location`] of the process's environment, created if
    /// missing, refused if unsafe ([`CacheDir::open`]).
    pub fn from_env() -> Result<CacheDir, Refusal> {
        let path = location(|k| std::env::var_os(k)).ok_or(Refusal::NoPlace)?;
        CacheDir::open(&path)
    }

    /// Opens `path` as the cache directory: creates it (mode 0700; missing
    /// parents with the default mode, as `mkdir -p`) when it does not exist,
    /// then checks it without following a link: a directory, owned by this
    /// process's effective user, not group- or world-writable.
    pub fn open(path: &Path) -> Result<CacheDir, Refusal> {
        let owned = path.to_path_buf();
        match std::fs::symlink_metadata(path) {
            Ok(_) => {}
            // Missing, or under a file (ENOTDIR): creating it says why not.
            Err(e) if matches!(e.kind(), io::ErrorKind::NotFound | io::ErrorKind::NotADirectory) => {
                create(path).map_err(|e| Refusal::Create(owned.clone(), e.to_string()))?;
            }
            Err(e) => return Err(Refusal::Unreadable(owned, e.to_string())),
        }
        let meta = std::fs::symlink_metadata(path).map_err(|e| Refusal::Unreadable(owned.clone(), e.to_string()))?;
        check(&owned, &meta)?;
        Ok(CacheDir { path: owned })
    }

    /// The directory's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(unix)]
fn create(path: &Path) -> io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    match std::fs::DirBuilder::new().mode(0o700).create(path) {
        // Another run created it meanwhile: it is checked like any other.
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(()),
        r => r,
    }
}

#[cfg(not(unix))]
fn create(path: &Path) -> io::Result<()> {
    std::fs::create_dir_all(path)
}

#[cfg(unix)]
fn check(path: &Path, meta: &std::fs::Metadata) -> Result<(), Refusal> {
    use std::os::unix::fs::MetadataExt;
    let p = || path.to_path_buf();
    if meta.file_type().is_symlink() {
        return Err(Refusal::Symlink(p()));
    }
    if !meta.is_dir() {
        return Err(Refusal::NotADirectory(p()));
    }
    if meta.uid() != rustix::process::geteuid().as_raw() {
        return Err(Refusal::Owner(p()));
    }
    if meta.mode() & 0o022 != 0 {
        return Err(Refusal::Writable(p(), meta.mode() & 0o777));
    }
    Ok(())
}

#[cfg(not(unix))]
fn check(path: &Path, meta: &std::fs::Metadata) -> Result<(), Refusal> {
    if meta.file_type().is_symlink() {
        return Err(Refusal::Symlink(path.to_path_buf()));
    }
    if !meta.is_dir() {
        return Err(Refusal::NotADirectory(path.to_path_buf()));
    }
    Ok(())
}
