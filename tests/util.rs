//! Test helpers: run a built binary once from the repository root with a pinned
//! environment, and get stdout, stderr and the exit code together.

#![allow(dead_code)]

use std::path::PathBuf;

/// The outcome of one run.
#[derive(Debug)]
pub struct Run {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

impl Run {
    /// stdout lines.
    pub fn lines(&self) -> Vec<&str> {
        self.stdout.lines().collect()
    }

    /// stdout parsed as NDJSON.
    pub fn json(&self) -> Vec<serde_json::Value> {
        self.stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("invalid JSON output {e}: {l}")))
            .collect()
    }
}

/// A command for one of the ci-* binaries.
pub struct Cmd {
    inner: assert_cmd::Command,
}

/// The repository root (tests run binaries from there, so paths in outputs
/// are `fixtures/...`).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The demo capture root, relative to the repository root.
pub const DEMO: &str = "fixtures/demo";

/// `bin` as a plain `std::process::Command` with a clean environment: no
/// capture-root env vars (every registered format's [`Format::root_env`](ci_tools::format::Format)), no CI_MAX_BYTES, NO_COLOR, COLUMNS or CI_COLUMNS, TZ=UTC, CI_NOW
/// fixed, HOME pointing at a folder with no captures, the cache in a
/// temporary directory ([`cache_home`]), run from the repository root. For tests that spawn and wait themselves (tests/huge.rs measures peak memory).
pub fn ci_command(bin: &str) -> std::process::Command {
    pinned(std::process::Command::new(assert_cmd::cargo::cargo_bin(bin)))
}

/// `cmd` with the pinned environment of [`ci_command`], run from the
/// repository root: for a program that runs the binaries itself (`sh -c`
/// with them on `PATH`).
pub fn pinned(mut cmd: std::process::Command) -> std::process::Command {
    for var in ci_tools::format::FORMATS.iter().flat_map(|f| f.root_env.iter().copied()) {
        cmd.env_remove(var);
    }
    cmd.current_dir(root())
        .env_remove("CI_MAX_BYTES")
        .env_remove("CI_PRICING")
        .env_remove("NO_COLOR")
        .env_remove("COLUMNS")
        .env_remove("CI_COLUMNS")
        .env("TZ", "UTC")
        .env("CI_NOW", "2026-03-10T00:00:00Z")
        .env("HOME", root().join("fixtures/no-home"))
        .env_remove("CI_CACHE")
        // OpenCode's default root is under it.
        .env_remove("XDG_DATA_HOME")
        .env("XDG_CACHE_HOME", cache_home());
    cmd
}

/// The capture cache of every tool a test runs (`XDG_CACHE_HOME`): one new
/// directory for the whole test process under cargo's temporary directory
/// for tests (`target/tmp`), shared by tests running at once (so the suite
/// runs warm, and runs at once share it), never the user's.
pub fn cache_home() -> &'static std::path::Path {
    static HOME: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    HOME.get_or_init(|| {
        let dir = tempfile::Builder::new().prefix("cache-home-").tempdir_in(env!("CARGO_TARGET_TMPDIR"));
        dir.expect("temporary cache home").keep()
    })
}

/// A builder for running `bin` with the clean environment of [`ci_command`].
pub fn ci(bin: &str) -> Cmd {
    Cmd { inner: assert_cmd::Command::from_std(ci_command(bin)) }
}

impl Cmd {
    pub fn arg(mut self, a: impl AsRef<std::ffi::OsStr>) -> Cmd {
        self.inner.arg(a);
        self
    }

    pub fn args<I, S>(mut self, args: I) -> Cmd
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        self.inner.args(args);
        self
    }

    pub fn env(mut self, k: &str, v: impl AsRef<std::ffi::OsStr>) -> Cmd {
        self.inner.env(k, v);
        self
    }

    /// Runs in `dir` (absolute), with `$PWD` set to it as a shell would.
    pub fn current_dir(mut self, dir: impl AsRef<std::path::Path>) -> Cmd {
        self.inner.current_dir(dir.as_ref()).env("PWD", dir.as_ref());
        self
    }

    pub fn stdin(mut self, input: impl Into<Vec<u8>>) -> Cmd {
        self.inner.write_stdin(input.into());
        self
    }

    /// Runs once.
    pub fn run(mut self) -> Run {
        let out = self.inner.output().expect("binary runs");
        Run {
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            code: out.status.code().unwrap_or(-1),
        }
    }
}

/// Runs `ci-find --root fixtures/demo ARGS` and returns its stdout, for piping.
pub fn find_demo(args: &[&str]) -> String {
    let run = ci("ci-find").args(["--root", DEMO]).args(args).run();
    assert!(run.code == 0, "ci-find failed: {run:?}");
    run.stdout
}

/// Session records with the `mtime` key dropped (it depends on the checkout).
pub fn without_mtime(stdout: &str) -> Vec<serde_json::Value> {
    stdout
        .lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).expect("JSON");
            if let Some(o) = v.as_object_mut() {
                o.remove("mtime");
            }
            v
        })
        .collect()
}

/// Events by type in the demo root (fixtures/README.md, "Events by type"), count
/// descending then name.
pub const DEMO_EVENTS: &[(&str, u64)] = &[
    ("tool:pre", 10),
    ("tool:post", 9),
    ("llm:response", 8),
    ("execution:start", 7),
    ("prompt:submit", 7),
    ("session:start", 7),
    ("llm:request", 6),
    ("provider:request", 5),
    ("execution:end", 4),
    ("orchestrator:complete", 4),
    ("prompt:complete", 2),
    ("session:fork", 2),
    ("context:compaction", 1),
    ("delegate:agent_completed", 1),
    ("delegate:agent_spawned", 1),
    ("provider:error", 1),
    ("session:end", 1),
    ("tool:error", 1),
];

/// Waits for a child to exit by itself and returns its exit code; the
/// deadline (10 s) only keeps a bug from hanging the suite, it is not a
/// measure of speed. After it the child is killed (so that it does not
/// outlive the test) and this panics with "`what` did not happen".
pub fn exits_within(child: &mut std::process::Child, what: &str) -> Option<i32> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        if let Some(status) = child.try_wait().expect("child status") {
            return status.code();
        }
        if std::time::Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what} did not happen");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Runs a prepared `std::process::Command` once (for tests that choose
/// stdin themselves: `Stdio::null()`, `Stdio::from(File)`), with stdout and
/// stderr collected.
pub fn run_std(mut cmd: std::process::Command) -> Run {
    let out =
        cmd.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped()).output().expect("binary runs");
    Run {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code().unwrap_or(-1),
    }
}

/// Why [`unprivileged`] gave `None`: the skip reason of the permission tests.
pub const NO_UNPRIVILEGED: &str =
    "running as root (which ignores file modes) and `setpriv --reuid=65534` (util-linux) does not work";

/// The tool as a command that runs without permission overrides: as is for a
/// normal user; as root (which ignores file modes) through `setpriv` as
/// `nobody` when that works, else `None` (the caller skips the test with
/// `kit::skip("setpriv", NO_UNPRIVILEGED)`).
pub fn unprivileged(tool: &str) -> Option<std::process::Command> {
    let mut cmd = ci_command(tool);
    // The shared cache directory is not theirs (tests of the cache as
    // another user give it one of its own).
    cmd.env("CI_CACHE", "0");
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Some(cmd);
    }
    let drop = ["--reuid=65534", "--regid=65534", "--clear-groups"];
    let works = std::process::Command::new("setpriv").args(drop).arg("true").status().is_ok_and(|s| s.success());
    if !works {
        return None;
    }
    let mut wrapped = std::process::Command::new("setpriv");
    wrapped.args(drop).arg(cmd.get_program()).args(cmd.get_args());
    for (k, v) in cmd.get_envs() {
        match v {
            Some(v) => wrapped.env(k, v),
            None => wrapped.env_remove(k),
        };
    }
    wrapped.current_dir(root());
    Some(wrapped)
}

/// `cmd` run through `sh -c 'SETUP && exec …'`, as `ulimit -n 48` (the soft
/// and hard limits on open files both 48) or `ulimit -S -n 48` (the soft one).
pub fn through_sh(cmd: &std::process::Command, setup: &str) -> std::process::Command {
    let mut sh = std::process::Command::new("sh");
    sh.arg("-c").arg(format!("{setup} && exec \"$0\" \"$@\"")).arg(cmd.get_program()).args(cmd.get_args());
    for (k, v) in cmd.get_envs() {
        match v {
            Some(v) => sh.env(k, v),
            None => sh.env_remove(k),
        };
    }
    if let Some(d) = cmd.get_current_dir() {
        sh.current_dir(d);
    }
    sh
}

/// `ci-filter --errors PATH | ci-agg --by tool --by event` as tool → (event
/// → count) (`None`: a null tool), checked to be what the same pipeline
/// gives from ci-cat's records (`ci-cat PATH | ci-filter --errors | ci-agg
/// …`): the tool of a failed call travels with its record.
pub fn errors_by_tool(path: &str) -> std::collections::BTreeMap<Option<String>, Vec<(String, u64)>> {
    let by_tool = |records: String| {
        let run = ci("ci-agg").args(["--by", "tool", "--by", "event", "--sort", "key"]).stdin(records).run();
        assert_eq!(run.code, 0, "{run:?}");
        run.stdout
    };
    let errors = ci("ci-filter").args(["--errors", path]).run();
    let events = ci("ci-cat").arg(path).run();
    let piped = ci("ci-filter").arg("--errors").stdin(events.stdout).run();
    assert_eq!(piped.stdout, errors.stdout, "{path}: the same records from the files and from ci-cat");
    let direct = by_tool(errors.stdout);
    assert_eq!(by_tool(piped.stdout), direct, "{path}");
    let mut out: std::collections::BTreeMap<Option<String>, Vec<(String, u64)>> = Default::default();
    for l in direct.lines() {
        let r: serde_json::Value = serde_json::from_str(l).unwrap();
        let tool = r["tool"].as_str().map(str::to_owned);
        out.entry(tool).or_default().push((r["event"].as_str().unwrap().to_owned(), r["count"].as_u64().unwrap()));
    }
    out
}
