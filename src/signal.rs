//! Interruption by SIGINT, SIGTERM and SIGHUP, for every tool.
//!
//! A signal never kills a tool in the middle of a record. The handler
//! ([`crate::cli::main`] installs it for all five tools) only sets a flag
//! ([`stop_requested`]); the engine's workers check it before each line and
//! stop at a record boundary, everything they produced is written, and the
//! run returns [`crate::error::Error::Stopped`] up to `cli::main`, which
//! prints the summary line and returns the exit status ([`status`]):
//!
//! - **status 130** (128 + SIGINT, as shells report an interrupted command)
//!   for a tool that was streaming a finite input: its output holds complete
//!   records only, and is known to be incomplete. `ci-agg` prints nothing (a
//!   partial aggregate would look like a whole one);
//! - **status 0** in follow mode (`--follow`), where a signal is the normal
//!   way to end the run (2 when an error was reported before).
//!
//! A safety net covers a tool blocked where the flag is not checked (e.g. a
//! directory walk): [`GRACE`] after the signal the handler exits the process
//! with the same status (the one exit outside `main`'s return; see
//! `cli::main`), but only once no write to stdout is in progress (every
//! write of [`crate::output::Output`] holds [`write_guard`], and each writes
//! whole records), so even then no record is cut.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

/// Exit status of a tool interrupted while streaming (128 + SIGINT).
pub(crate) const INTERRUPTED: u8 = 130;

/// How long a stop may take before the signal handler exits the process.
pub(crate) const GRACE: Duration = Duration::from_secs(2);

/// Set by the signal handler. Necessarily a static: the handler runs on a
/// thread of its own, installed before the run starts, and can reach the
/// run only through state every thread sees; all else (the follow mode, the
/// outcome) is passed explicitly.
static STOP: AtomicBool = AtomicBool::new(false);
static WRITING: Mutex<()> = Mutex::new(());

/// Whether a stop was asked for (by a signal, or [`request_stop`]).
pub(crate) fn stop_requested() -> bool {
    STOP.load(Ordering::Relaxed)
}

/// Asks the run to stop, as a signal does.
pub(crate) fn request_stop() {
    STOP.store(true, Ordering::SeqCst);
}

/// The exit status of a stopped run: 0 when `following` (2 when `failed`),
/// else [`INTERRUPTED`].
pub(crate) fn status(following: bool, failed: bool) -> u8 {
    match (following, failed) {
        (true, false) => 0,
        (true, true) => 2,
        (false, _) => INTERRUPTED,
    }
}

/// Held while bytes are written to stdout, so that the safety net never
/// exits in the middle of a write.
pub(crate) fn write_guard() -> MutexGuard<'static, ()> {
    WRITING.lock().unwrap_or_else(|e| e.into_inner())
}
