//! Skipping a test whose prerequisite is missing: never silently. A skip
//! says why on stderr (`cargo test -- --nocapture` shows it); under
//! `CI=true` it fails instead, because `.ci/run` installs every such
//! prerequisite (GNU parallel; `setpriv` for the permission tests run as
//! root), so a skip there means CI lost one.

/// Skips the calling test for `why`: prints `skipped: WHY` on stderr and
/// returns (the caller returns next), or under `CI=true` panics with it.
#[track_caller]
pub fn skip(why: &str) {
    let at = std::panic::Location::caller();
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{at}: cannot run: {why} (CI=true: .ci/run installs this prerequisite)");
    }
    eprintln!("{at}: skipped: {why}");
}

/// Whether `program ARGS` runs and exits 0 (a prerequisite check).
pub fn runs(program: &str, args: &[&str]) -> bool {
    std::process::Command::new(program)
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .is_ok_and(|o| o.status.success())
}
