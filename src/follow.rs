//! Following captures that are still being written (`ci-cat --follow`).
//!
//! After the first pass over a capture, its files stay open and are polled
//! every [`POLL`] (200 ms; plain polling, portable and dependency-free, and
//! cheap: one `fstat` and one `stat` per file per round). Rules:
//!
//! - each complete (`\n`-terminated) line is emitted exactly once; an
//!   unterminated tail is held (neither emitted nor reported) until its
//!   newline arrives;
//! - **truncation** (the open file is now shorter than what was read): the
//!   file is read again from its first byte and its line numbers restart at
//!   1; the held tail, if any, is dropped and counted as torn. Lines emitted
//!   before the truncation are never emitted again: what the file held before
//!   is gone, and only what is written after it is new;
//! - **rotation** (the path now names another file, e.g. renamed away and
//!   recreated): the old file is read to its end first (nothing appended
//!   before the rename is lost), then the new file is followed from its first
//!   byte, line numbers restarting at 1;
//! - a file that is deleted and not recreated is still read through its open
//!   handle;
//! - limits, as `tail -F`: a truncation followed by a rewrite past the old
//!   size within one poll interval is not seen as a truncation.
//!
//! SIGINT, SIGTERM and SIGHUP set a flag: the engine finishes the record at
//! hand, flushes and the tool exits 0.

use std::fs::File;
use std::io::Seek;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::lines::LineReader;
use crate::record::Capture;

/// How often followed files are polled for new bytes.
pub const POLL: Duration = Duration::from_millis(200);

static STOP: AtomicBool = AtomicBool::new(false);

/// Installs the SIGINT/SIGTERM/SIGHUP handler that asks following to stop.
/// A second call, or a failure to install, leaves the default handlers
/// (the process then dies on the signal, which loses at most the unflushed
/// output).
///
/// A safety net: when the tool has not finished [`GRACE`] after the signal
/// (blocked reading a stdin that never ends), it exits 0 from the handler;
/// everything printed so far was already flushed (follow mode flushes each
/// batch).
pub fn install_signal_handlers() {
    let _ = ctrlc::set_handler(|| {
        STOP.store(true, Ordering::SeqCst);
        std::thread::sleep(GRACE);
        std::process::exit(0);
    });
}

/// How long a stop may take before the signal handler exits the process.
pub const GRACE: Duration = Duration::from_secs(2);

/// Whether a stop was asked for (by a signal, or [`request_stop`]).
pub fn stop_requested() -> bool {
    STOP.load(Ordering::Relaxed)
}

/// Asks following to stop (as a signal does).
pub fn request_stop() {
    STOP.store(true, Ordering::SeqCst);
}

/// Sleeps one poll interval, waking early when a stop is asked for.
pub fn nap() {
    for _ in 0..4 {
        if stop_requested() {
            return;
        }
        std::thread::sleep(POLL / 4);
    }
}

/// One file being followed.
pub struct Followed {
    /// The capture it belongs to (for provenance).
    pub cap: Capture,
    /// Its path, as opened.
    pub path: PathBuf,
    /// Its path as shown.
    pub display: String,
    /// The open file, positioned after the last byte read.
    pub lines: LineReader<File>,
    /// True once the visitor stopped reading it.
    pub done: bool,
}

/// What happened to a followed file since the last poll.
pub enum Change {
    /// Nothing unusual (it may have grown).
    Same,
    /// It is shorter than what was read: read it again from the start.
    Truncated(File),
    /// Its path names another file now: read the old one to its end, then this.
    Replaced(File),
}

impl Followed {
    /// Checks for truncation and rotation. Errors (a path gone for now, a
    /// failed stat) count as no change: the open handle is read on.
    pub fn change(&self) -> Change {
        let mut handle = self.lines.get_ref();
        let Ok(open_meta) = handle.metadata() else { return Change::Same };
        if let Ok(path_meta) = std::fs::metadata(&self.path) {
            if file_id(&path_meta) != file_id(&open_meta) {
                return File::open(&self.path).map(Change::Replaced).unwrap_or(Change::Same);
            }
        }
        match handle.stream_position() {
            Ok(read) if open_meta.len() < read => File::open(&self.path).map(Change::Truncated).unwrap_or(Change::Same),
            _ => Change::Same,
        }
    }
}

#[cfg(unix)]
fn file_id(m: &std::fs::Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn file_id(_: &std::fs::Metadata) -> Option<(u64, u64)> {
    None
}
