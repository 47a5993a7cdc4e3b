//! The capture cache: where it lives, its files, and when what it holds of a
//! capture is still true (`docs/cache.md`; ci-agg's use of it:
//! [`crate::aggregate::cached`]).
//!
//! - [`dir`]: the cache directory, `$XDG_CACHE_HOME/ci-tools` (default
//!   `~/.cache/ci-tools`), created mode 0700. It holds extracted content of
//!   private logs, so a directory that another user could have prepared is
//!   refused: a symlink, one owned by another user, or one that is group- or
//!   world-writable. The tools then run without a cache, with one warning.
//! - [`mod@file`]: one cache file, written whole to a temporary file and renamed
//!   into place (two runs at once never leave a half-written file: the last
//!   rename wins), mode 0600, with a header naming its kind and version and
//!   an XXH3 checksum (of the whole body, or of a store's head, its entries
//!   carrying their own). Files are mapped, not copied. A file that is truncated, damaged, of
//!   another kind or version, or not ours is [`file::Damage`]: never trusted,
//!   reported once by the caller, and rebuilt.
//! - [`identity`]: what an index records of its capture (device, inode,
//!   bytes indexed, length, modification time, hashes of the first bytes and
//!   of the last indexed line), and the verdict on the file now: current,
//!   grown (read the new bytes only), or to be built again.
//! - [`database`]: the sessions of a database file, each an entry, proved
//!   current by the database's and its `-wal`'s stats, else by a fingerprint
//!   of its rows.
//! - [`counts`]: `ci-find --min-events`/`--max-events` counts, per capture.
//! - [`line_index`]: ci-filter's index of each capture's event lines.
//! - [`peeks`]: what discovery reads of a file's bytes for its session record.
//! - [`store`]: one question's entries (a capture's identity and the
//!   question's state of its whole lines), one file per question, looked up
//!   through an index, with a delta file for a run's few changes.
//! - [`usage`]: what the directory holds, and keeping it within its bound
//!   (least recently used files removed).
//!
//! The bodies are made of the checked little-endian pieces of [`crate::codec`].

pub mod counts;
pub mod database;
pub mod dir;
pub mod file;
pub mod identity;
pub mod line_index;
pub mod peeks;
pub mod store;
pub mod usage;

#[cfg(all(test, unix))]
mod tests;

pub use dir::{CacheDir, Refusal};
pub use file::{Damage, Kind, ReadError};
pub use identity::{Fresh, Identity, Stat, Why};
pub use store::{kept_end, Entry, EntryRef, Store, Update};
pub use usage::CacheFile;

/// Whether the cache is turned off by the environment (`CI_CACHE=0`,
/// `false`, `no` or `off`).
pub fn off_by_env() -> bool {
    std::env::var("CI_CACHE")
        .is_ok_and(|v| matches!(v.trim().to_ascii_lowercase().as_str(), "0" | "false" | "no" | "off"))
}
