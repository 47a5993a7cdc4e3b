//! When stdin is the input (issue 15, item A): with no PATH, stdin is read
//! when it is a pipe, a socket or a regular file; otherwise (a terminal,
//! `/dev/null`, another character device) the default roots are read, as on
//! a terminal. `-` always reads stdin.

use std::fs::File;
use std::process::Stdio;

use crate::util::{ci, ci_command, root, run_std, DEMO};

/// The four tools that read stdin, each with arguments that print something
/// for every writer's fixtures.
const TOOLS: &[(&str, &[&str])] = &[
    ("ci-cat", &[]),
    ("ci-filter", &["--not-event", "no-such-event"]),
    ("ci-agg", &["--by", "event"]),
    ("ci-grep", &["-F", "e"]),
];

/// A fixture root for a format that has a root env var, by format name,
/// when its conformance tree (`fixtures/conformance/<name>/root`) is not the
/// one to read.
const FIXTURE_ROOTS: &[(&str, &str)] = &[
    ("amplifier", DEMO),
    ("claude-hooks", "fixtures/sessiondata"),
    ("claude-transcript", "fixtures/claude-transcripts"),
    ("codex", "fixtures/codex"),
    ("qwen-code", "fixtures/qwen-code/.qwen"),
    ("copilot-cli", "fixtures/copilot-cli/.copilot"),
    ("kimi", "fixtures/kimi/.kimi"),
    ("cline", "fixtures/cline/User"),
    ("gemini-cli", "fixtures/gemini-cli"),
    ("opencode", "fixtures/opencode/handmade"),
    ("goose", "fixtures/goose/planted"),
];

/// Each registered format's root env var and its fixture root: the one of
/// [`FIXTURE_ROOTS`], else its conformance tree (which every format has).
fn env_roots() -> Vec<(&'static str, String)> {
    let with_env = ci_tools::format::FORMATS.iter().flat_map(|f| f.root_env.iter().map(|v| (f.name, *v)));
    let fixture = |name| match FIXTURE_ROOTS.iter().find(|(n, _)| *n == name) {
        Some((_, dir)) => dir.to_string(),
        None => format!("fixtures/conformance/{name}/root"),
    };
    with_env.map(|(name, var)| (var, fixture(name))).collect()
}

/// `</dev/null` (cron, CI, subprocesses) reads the default roots, so a root
/// given through a writer's env var gives the same records as that root named
/// as a PATH (absolute in both, so the `ci.path` of each record is the same).
#[test]
fn dev_null_stdin_reads_the_default_roots() {
    for (tool, args) in TOOLS {
        for (var, dir) in env_roots() {
            let abs = root().join(dir);
            let mut by_env = ci_command(tool);
            by_env.args(*args).env(var, &abs).stdin(Stdio::null());
            let by_env = run_std(by_env);
            let mut by_path = ci_command(tool);
            by_path.args(*args).arg(&abs).stdin(Stdio::null());
            let by_path = run_std(by_path);
            assert!(!by_path.stdout.is_empty(), "{tool} {var}: {by_path:?}");
            assert_eq!(by_env.stdout, by_path.stdout, "{tool} {var}: {}", by_env.stderr);
            // Only the Amplifier root replaces the default Amplifier root
            // (~/.amplifier/projects, missing under the test HOME: exit 2).
            if ci_tools::format::amplifier::FORMAT.root_env.contains(&var) {
                assert_eq!(by_env.code, by_path.code, "{tool} {var}: {}", by_env.stderr);
            }
        }
    }
}

/// With no root at all, `</dev/null` says once where the tools looked and
/// finds nothing: exit 1, not 2 (a missing default place is no error).
#[test]
fn dev_null_stdin_without_roots_names_the_default_root() {
    for (tool, args) in TOOLS {
        let mut cmd = ci_command(tool);
        cmd.args(*args).stdin(Stdio::null());
        let run = run_std(cmd);
        assert_eq!(run.code, 1, "{tool}: {run:?}");
        assert_eq!(run.stdout, "", "{tool}");
        assert_eq!(run.stderr, format!("{tool}: {}\n", ci_tools::format::no_default_root()), "{tool}");
    }
}

/// A home with only `~/.claude` (issue 31, item 1): the missing Amplifier
/// and Codex places are skipped without a word, and the run answers
/// (it used to fail with `~/.amplifier/projects: No such file or
/// directory`, exit 2).
#[test]
fn a_claude_only_home_is_read_without_errors() {
    let home = tempfile::tempdir().unwrap();
    let claude = home.path().join(".claude");
    std::fs::create_dir_all(claude.join("projects")).unwrap();
    let project = claude.join("projects/-home-dev-app");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::copy(
        root().join("fixtures/claude-transcripts/projects/-src-ryoppippi-ccusage/session-alpha.jsonl"),
        project.join("s1.jsonl"),
    )
    .unwrap();
    for (tool, args) in TOOLS {
        let mut by_home = ci_command(tool);
        by_home.args(*args).env("HOME", home.path()).stdin(Stdio::null());
        let by_home = run_std(by_home);
        let mut by_path = ci_command(tool);
        by_path.args(*args).arg(&claude).stdin(Stdio::null());
        let by_path = run_std(by_path);
        assert_eq!(by_home.code, 0, "{tool}: {by_home:?}");
        assert_eq!(by_home.stderr, by_path.stderr, "{tool}");
        assert_eq!(by_home.stdout, by_path.stdout, "{tool}");
    }
}

/// A regular file on stdin (`< records.ndjson`) is read, as a pipe is.
#[test]
fn regular_file_on_stdin_is_read() {
    let records = crate::util::find_demo(&[]);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("sessions.ndjson");
    std::fs::write(&file, &records).unwrap();
    for (tool, args) in TOOLS {
        let mut from_file = ci_command(tool);
        from_file.args(*args).stdin(Stdio::from(File::open(&file).unwrap()));
        let from_file = run_std(from_file);
        let piped = ci(tool).args(*args).stdin(records.clone()).run();
        assert!(!piped.stdout.is_empty(), "{tool}: {piped:?}");
        assert_eq!((from_file.stdout, from_file.code), (piped.stdout, piped.code), "{tool}");
    }
}

/// An explicit `-` reads stdin whatever it is: `/dev/null` is then an empty
/// input, answered as an empty pipe is (nothing printed; no root read).
#[test]
fn dash_reads_dev_null_as_empty_input() {
    let demo = root().join(DEMO);
    for (tool, args) in TOOLS {
        let mut cmd = ci_command(tool);
        cmd.args(*args).arg("-").env("AMPLIFIER_CONTEXT_INTELLIGENCE_BASE_PATH", &demo).stdin(Stdio::null());
        let run = run_std(cmd);
        let empty = ci(tool).args(*args).arg("-").stdin("").run();
        assert_eq!(run.stdout, "", "{tool}");
        assert_eq!((run.stderr, run.code), (empty.stderr, empty.code), "{tool}");
    }
}

/// An empty pipe (what the test helper `ci()` gives when no stdin is set)
/// is still stdin: no root is read.
#[test]
fn empty_pipe_is_still_stdin() {
    let demo = root().join(DEMO);
    for (tool, args) in TOOLS {
        let run = ci(tool).args(*args).env("AMPLIFIER_CONTEXT_INTELLIGENCE_BASE_PATH", &demo).run();
        let dash = ci(tool).args(*args).arg("-").run();
        assert_eq!(run.stdout, "", "{tool}");
        assert_eq!((run.stderr, run.code), (dash.stderr, dash.code), "{tool}");
    }
}
