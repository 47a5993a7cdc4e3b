//! How much the cache holds, and keeping it under its size bound.
//!
//! Each cache file's modification time is when a run last used it (a run
//! that reads a file without changing it sets its time, [`CacheDir::touch`]).
//! After a run writes a file, the files used least recently are removed
//! until the directory holds at most the bound ([`Bound`]); the file just
//! written always stays. The bound (`CI_CACHE_MAX_BYTES`) is a size such as
//! `500M`, or a share of the captures' bytes such as `5%`; by default 5% of
//! the captures' bytes, at least [`DEFAULT_FLOOR`] and at most
//! [`DEFAULT_MAX_BYTES`] (issue 33: a cache that stays small however many
//! questions were asked). The captures' bytes are the most any one cache
//! file covers: each store's head holds the total length of the captures it
//! has entries for ([`super::store::covers`]), so the bound follows the
//! history, not the number of questions. A run reads the other files' heads
//! only when the directory is over the bound its own file alone sets (the
//! bound only grows with the bytes covered), so a write within the bound
//! costs one listing of the directory. A write that finds the file system
//! full (or the quota used up) before the bound is reached removes the least
//! recently used files until the file's size is freed and writes it again,
//! once ([`CacheDir::write_making_room`]). A removed file only costs its
//! question one cold run.

use std::io;
use std::time::SystemTime;

use super::CacheDir;

/// The default bound's cap: 1 GiB.
pub const DEFAULT_MAX_BYTES: u64 = 1 << 30;

/// The default bound's floor: 4 MiB (a small history's cache is not worth
/// evicting; 5% of it would hold one or two questions).
pub const DEFAULT_FLOOR: u64 = 4 << 20;

/// The default bound's share of the captures' bytes, in parts per million: 5%.
pub const DEFAULT_PPM: u64 = 50_000;

/// How many bytes the cache directory may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// At most this many (`CI_CACHE_MAX_BYTES=500M`).
    Fixed(u64),
    /// A share of the bytes of the captures the cache covers, in parts per
    /// million, kept within `floor..=cap` (`CI_CACHE_MAX_BYTES=5%`: no
    /// floor and no cap; the default: 5%, 4 MiB, 1 GiB).
    Share {
        /// Parts per million of the captures' bytes.
        ppm: u64,
        /// Never less than this.
        floor: u64,
        /// Never more than this.
        cap: u64,
    },
}

impl Default for Bound {
    fn default() -> Bound {
        Bound::Share { ppm: DEFAULT_PPM, floor: DEFAULT_FLOOR, cap: DEFAULT_MAX_BYTES }
    }
}

impl From<u64> for Bound {
    fn from(max: u64) -> Bound {
        Bound::Fixed(max)
    }
}

impl Bound {
    /// The bound in bytes when the cache covers `captures` bytes of captures.
    pub fn bytes(self, captures: u64) -> u64 {
        match self {
            Bound::Fixed(max) => max,
            Bound::Share { ppm, floor, cap } => {
                let share = (u128::from(captures) * u128::from(ppm) / 1_000_000) as u64;
                share.clamp(floor, cap.max(floor))
            }
        }
    }

    /// Parses `CI_CACHE_MAX_BYTES`: a size ([`crate::units::size`]) or a
    /// percentage (`5%`, `0.5%`: up to four decimals).
    pub fn parse(v: &str) -> Result<Bound, String> {
        let Some(pct) = v.trim().strip_suffix('%') else {
            return crate::units::size(v).map(Bound::Fixed).map_err(|e| format!("{e}, or a percentage such as 5%"));
        };
        let bad = || "a percentage is a number such as 5% or 0.5% (up to four decimals)".to_owned();
        let (whole, frac) = pct.trim().split_once('.').unwrap_or((pct.trim(), ""));
        let digits = |d: &str| d.bytes().all(|b| b.is_ascii_digit());
        if whole.is_empty() || whole.len() > 9 || frac.len() > 4 || !digits(whole) || !digits(frac) {
            return Err(bad());
        }
        let ppm = whole.parse::<u64>().map_err(|_| bad())? * 10_000
            + format!("{frac:0<4}").parse::<u64>().map_err(|_| bad())?;
        Ok(Bound::Share { ppm, floor: 0, cap: u64::MAX })
    }

    /// How `--cache-info` states it.
    pub fn describe(self) -> String {
        match self {
            Bound::Fixed(max) => format!("{max} bytes"),
            Bound::Share { ppm, floor, cap } => {
                let pct = format!("{}.{:04}", ppm / 10_000, ppm % 10_000);
                let pct = pct.trim_end_matches('0').trim_end_matches('.');
                let mut s = format!("{pct}% of the captures' bytes");
                if floor > 0 {
                    s += &format!(", at least {floor} bytes");
                }
                if cap < u64::MAX {
                    s += &format!(", at most {cap} bytes");
                }
                s
            }
        }
    }
}

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
pub fn bound() -> Result<Bound, String> {
    match std::env::var("CI_CACHE_MAX_BYTES") {
        Ok(v) => Bound::parse(&v).map_err(|e| format!("CI_CACHE_MAX_BYTES={v:?}: {e}")),
        Err(_) => Ok(Bound::default()),
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
    /// the least recently used files until at most `bound` bytes are left
    /// (counting the temporary files of runs writing now, which stay), never
    /// those in `keep`; the names removed. `covered`: the captures' bytes
    /// the file just written covers; the other files' heads are read for
    /// theirs only when the directory holds more than that alone allows.
    pub fn evict(&self, bound: Bound, keep: &[&str], covered: u64) -> io::Result<Vec<String>> {
        let files = self.files()?;
        let total: u64 = files.iter().map(|f| f.bytes).sum();
        let mut max = bound.bytes(covered);
        if total > max && matches!(bound, Bound::Share { .. }) {
            max = bound.bytes(covered.max(self.covered(&files)));
        }
        self.remove_until(files, max, keep)
    }

    /// The most captures' bytes any of `files` covers (their heads read).
    pub fn covered(&self, files: &[CacheFile]) -> u64 {
        let head = |f: &CacheFile| {
            let kinds = [super::Kind::Answers, super::Kind::Lines];
            let file = kinds.into_iter().find_map(|k| self.map(&f.name, k).ok().flatten())?;
            super::store::summary(&file).map(|s| s.covers)
        };
        files.iter().filter(|f| f.regular && !f.temp).filter_map(head).max().unwrap_or(0)
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
/// whether it is used or why not, files, bytes, the bound in bytes and as
/// its rule, the captures' bytes it covers and its bytes per capture, and
/// its bytes by kind: each tool's files), then one per cache file, least
/// recently used first (its question, entries, bytes, the captures' bytes
/// it covers). Nothing is created.
pub fn describe(var: impl Fn(&str) -> Option<std::ffi::OsString>) -> Vec<serde_json::Value> {
    use serde_json::json;
    let Some(path) = super::dir::location(&var) else {
        return vec![json!({"cache": null, "state": super::Refusal::NoPlace.to_string()})];
    };
    let bound = bound();
    let rule = bound.as_ref().map_or_else(|e| json!(e), |b| json!(b.describe()));
    let max = |covered: u64| bound.as_ref().map_or_else(|e| json!(e), |b| json!(b.bytes(covered)));
    let shown = path.to_string_lossy();
    if std::fs::symlink_metadata(&path).is_err() {
        return vec![
            json!({"cache": shown, "state": "none yet", "files": 0, "bytes": 0, "max_bytes": max(0), "bound": rule}),
        ];
    }
    let dir = match CacheDir::open(&path) {
        Ok(d) => d,
        Err(refusal) => {
            return vec![json!({"cache": shown, "state": refusal.to_string(), "max_bytes": max(0), "bound": rule})]
        }
    };
    let files = dir.files().unwrap_or_default();
    let total: u64 = files.iter().map(|f| f.bytes).sum();
    let mut rows = vec![];
    let (mut covered, mut captures) = (0u64, 0usize);
    let mut kinds = serde_json::Map::new();
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
            rows.push(json!({"file": f.name, "state": state, "bytes": f.bytes, "used": used}));
            continue;
        }
        // Every kind is in the store layout; the header says which it is.
        let kinds_of_file = [super::Kind::Answers, super::Kind::Lines];
        let file = kinds_of_file.into_iter().find_map(|k| dir.map(&f.name, k).ok().flatten());
        let Some(s) = file.as_ref().and_then(super::store::summary) else {
            rows.push(json!({"file": f.name, "state": "not a cache file of this version (replaced when next used)", "bytes": f.bytes, "used": used}));
            continue;
        };
        let question = serde_json::from_str(&s.label).unwrap_or(serde_json::Value::String(s.label));
        let tool = question.get("tool").and_then(|t| t.as_str()).unwrap_or("other").to_owned();
        let kind = kinds.entry(tool).or_insert_with(|| json!({"files": 0, "bytes": 0}));
        kind["files"] = json!(kind["files"].as_u64().unwrap_or(0) + 1);
        kind["bytes"] = json!(kind["bytes"].as_u64().unwrap_or(0) + f.bytes);
        (covered, captures) = (covered.max(s.covers), captures.max(s.entries));
        let mut rec = json!({"file": f.name, "question": question, "entries": s.entries, "bytes": f.bytes, "captures_bytes": s.covers, "used": used});
        // A store's delta names its base (super::store::Store).
        if let Some(base) = f.name.strip_suffix(super::store::DELTA) {
            rec["delta_of"] = json!(base);
        }
        rows.push(rec);
    }
    let per_capture = total.checked_div(captures as u64).unwrap_or(0);
    let mut out = vec![json!({
        "cache": shown, "state": "used", "files": rows.len(), "bytes": total, "max_bytes": max(covered), "bound": rule,
        "captures_bytes": covered, "bytes_per_capture": per_capture, "kinds": kinds,
    })];
    out.extend(rows);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bound_is_a_size_or_a_share_of_the_captures() {
        assert_eq!(Bound::parse("500M"), Ok(Bound::Fixed(500 << 20)));
        assert_eq!(Bound::parse("0"), Ok(Bound::Fixed(0)));
        let share = |ppm| Bound::Share { ppm, floor: 0, cap: u64::MAX };
        assert_eq!(Bound::parse("5%"), Ok(share(50_000)));
        assert_eq!(Bound::parse(" 0.25% "), Ok(share(2_500)));
        assert_eq!(Bound::parse("100%"), Ok(share(1_000_000)));
        for bad in ["%", "5.%x", ".5%", "1.23456%", "-1%", "5 %x", "lots", "1e3%"] {
            assert!(Bound::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(share(50_000).bytes(1_000_000), 50_000);
        assert_eq!(share(50_000).describe(), "5% of the captures' bytes");
        assert_eq!(share(2_500).describe(), "0.25% of the captures' bytes");
        // The default: 5%, within 4 MiB and 1 GiB.
        let d = Bound::default();
        assert_eq!(d.bytes(0), DEFAULT_FLOOR);
        assert_eq!(d.bytes(1 << 20), DEFAULT_FLOOR);
        assert_eq!(d.bytes(1_000 << 20), 50 << 20);
        assert_eq!(d.bytes(u64::MAX), DEFAULT_MAX_BYTES);
        assert_eq!(Bound::Fixed(7).bytes(1 << 40), 7);
    }
}
