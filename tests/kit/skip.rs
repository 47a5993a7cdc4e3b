//! Skipping a test whose prerequisite is missing: never silently. A skip
//! says why on stderr (`cargo test -- --nocapture` shows it); under
//! `CI=true` it fails instead, because `.ci/run` installs every such
//! prerequisite (GNU parallel; `setpriv` for the permission tests run as
//! root), so a skip there means CI lost one. The exception is a
//! prerequisite `.ci/run` tried and could not install on this machine (no
//! root, no sudo, no network): it lists those in `CI_UNAVAILABLE`
//! (comma-separated), and their tests are skipped with that reason.

/// Skips the calling test for want of `prerequisite` (a short name, as in
/// `CI_UNAVAILABLE`), saying `why`: prints `skipped: WHY` on stderr and
/// returns (the caller returns next), or under `CI=true` panics with it,
/// unless `.ci/run` reported `prerequisite` as impossible to install here.
#[track_caller]
pub fn skip(prerequisite: &str, why: &str) {
    let at = std::panic::Location::caller();
    let unavailable = std::env::var("CI_UNAVAILABLE").unwrap_or_default();
    if unavailable.split(',').any(|p| p == prerequisite) {
        eprintln!("{at}: skipped: {why} (.ci/run could not install {prerequisite} on this machine)");
        return;
    }
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
