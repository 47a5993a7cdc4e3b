//! Interruption by SIGINT, SIGTERM and SIGHUP, for every tool.
//!
//! A signal never kills a tool in the middle of a record. [`install`] (called
//! by [`crate::cli::main`] for all five tools) replaces the default handlers
//! with one that only sets a flag; the engine's workers check it before each
//! line and stop at a record boundary, everything they produced is written,
//! and the tool exits ([`exit_after_stop`]):
//!
//! - **status 130** (128 + SIGINT, as shells report an interrupted command)
//!   for a tool that was streaming a finite input: its output holds complete
//!   records only, and is known to be incomplete. `ci-agg` prints nothing (a
//!   partial aggregate would look like a whole one);
//! - **status 0** in follow mode (`--follow`), where a signal is the normal
//!   way to end the run (2 when an error was reported before).
//!
//! A safety net covers a tool blocked where the flag is not checked (e.g. a
//! directory walk): [`GRACE`] after the signal the handler thread exits with
//! the same status, but only once no write to stdout is in progress (every
//! write of [`crate::output::Output`] holds [`write_guard`], and each writes
//! whole records), so even then no record is cut.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use crate::diag::Diag;

/// Exit status of a tool interrupted while streaming (128 + SIGINT).
pub const INTERRUPTED: u8 = 130;

/// How long a stop may take before the signal handler exits the process.
pub const GRACE: Duration = Duration::from_secs(2);

static STOP: AtomicBool = AtomicBool::new(false);
static FOLLOW: AtomicBool = AtomicBool::new(false);
static WRITING: Mutex<()> = Mutex::new(());

/// Installs the SIGINT/SIGTERM/SIGHUP handler. A second call, or a failure
/// to install, leaves the handlers as they are (the defaults kill the
/// process, which may cut the record being written).
pub fn install() {
    let _ = ctrlc::set_handler(|| {
        STOP.store(true, Ordering::SeqCst);
        std::thread::sleep(GRACE);
        // Never in the middle of a write: wait for the one in progress.
        let _writing = write_guard();
        std::process::exit(i32::from(status(false)));
    });
}

/// Marks the run as following: a signal then ends it with status 0.
pub fn set_follow() {
    FOLLOW.store(true, Ordering::SeqCst);
}

/// Whether the run follows its inputs (see [`set_follow`]).
pub fn is_follow() -> bool {
    FOLLOW.load(Ordering::Relaxed)
}

/// Whether a stop was asked for (by a signal, or [`request_stop`]).
pub fn stop_requested() -> bool {
    STOP.load(Ordering::Relaxed)
}

/// Asks the run to stop, as a signal does.
pub fn request_stop() {
    STOP.store(true, Ordering::SeqCst);
}

/// The exit status of a stopped run: 0 when following (2 when `failed`),
/// else [`INTERRUPTED`].
pub fn status(failed: bool) -> u8 {
    match (is_follow(), failed) {
        (true, false) => 0,
        (true, true) => 2,
        (false, _) => INTERRUPTED,
    }
}

/// Held while bytes are written to stdout, so that the safety net never
/// exits in the middle of a write.
pub fn write_guard() -> MutexGuard<'static, ()> {
    WRITING.lock().unwrap_or_else(|e| e.into_inner())
}

/// Ends a stopped run: the summary line on stderr, then the exit status of
/// [`status`]. Called once everything produced before the stop is written
/// and flushed (a producer may still be blocked on stdin, hence the exit).
pub fn exit_after_stop(diag: &Diag) -> ! {
    diag.summary();
    let _writing = write_guard();
    std::process::exit(i32::from(status(diag.failed())));
}
