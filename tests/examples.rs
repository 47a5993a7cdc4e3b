//! Every EXAMPLES line of each tool's --help runs as written, in a sandbox
//! made of the demo fixtures: a home whose default Amplifier root is a copy
//! of `fixtures/demo` (for `--blocks`, one whose Claude Code root is
//! `fixtures/claude-blocks`),
//! `events.jsonl` one of the demo's captures, `myproject/logs` committed hook
//! logs, `$SESSION_DATA_DIR` the hooks fixture (set only for the examples
//! that name it). The few
//! placeholders the examples name are the demo's: `ROOT`, `A`, `B` are
//! roots, the session prefix `63cc3feb` one of its ids. An example passes
//! when it exits 0 or 1 (1: nothing matched, e.g. `--since 2h` at the
//! pinned time) with no usage error, panic or unreadable path on stderr,
//! and its answer (stdout, the sandbox's path written `$SANDBOX`, the
//! copies' `mtime` elided) is the one
//! checked in, `fixtures/examples/answers.txt` (`CI_BLESS=1` rewrites it);
//! a following example (`-f`) is stopped at an arbitrary point, so only its
//! exit is checked.

use std::path::Path;
use std::process::{Command, Stdio};

use crate::conformance::copy_tree;
use crate::util::{ci, ci_command, root};

const DEMO_ID: &str = "a7c3e9d1-4b2f-4e8a-9d61-0c5b7e2f3a10";

/// The EXAMPLES lines of `tool --help` (continuation lines of a comment
/// left out), each cut to its command (before its comment, set off by two
/// spaces or more).
fn examples(tool: &str) -> Vec<String> {
    let help = ci(tool).arg("--help").env("COLUMNS", "400").run().stdout;
    let section = help.split("\nEXAMPLES:\n").nth(1).expect("an EXAMPLES section");
    section
        .lines()
        .take_while(|l| !l.is_empty())
        .filter_map(|l| l.strip_prefix("  ").filter(|c| !c.starts_with(' ')))
        .map(|l| l.split("  ").next().unwrap_or(l).trim().to_owned())
        .collect()
}

/// The sandbox: `dir/home`, `dir/work` (the working directory).
fn sandbox(dir: &Path) {
    let fixtures = root().join("fixtures");
    copy_tree(&fixtures.join("demo"), &dir.join("home/.amplifier/projects"));
    copy_tree(&fixtures.join("claude-blocks"), &dir.join("claude-home/.claude"));
    let work = dir.join("work");
    for (name, from) in
        [("ROOT", "demo"), ("A", "demo-clean"), ("B", "sessiondata"), ("myproject", "hook-logs/ranaroussi__quantstats")]
    {
        copy_tree(&fixtures.join(from), &work.join(name));
    }
    let capture = format!("demo/-home-user-my-api/sessions/{DEMO_ID}/context-intelligence/events.jsonl");
    std::fs::copy(fixtures.join(capture), work.join("events.jsonl")).unwrap();
}

/// `line` as the sandbox runs it: the demo's session for the placeholder one.
fn in_sandbox(line: &str) -> String {
    line.replace("-home-u-api/sessions/63cc3feb-…/", &format!("-home-user-my-api/sessions/{DEMO_ID}/"))
        .replace("63cc3feb", &DEMO_ID[..8])
}

/// Runs `line` with `sh -c` in the sandbox, the tools first on PATH, in a
/// process group of its own: a following example (`-f`) is stopped with
/// SIGTERM after a second, any other after 60 s (a hang, reported): its
/// exit code, stderr and stdout.
fn run(dir: &Path, line: &str) -> (i32, String, String) {
    use std::os::unix::process::CommandExt;
    let bin = ci_command("ci-cat").get_program().to_owned();
    let bins = Path::new(&bin).parent().expect("the tools' directory").to_owned();
    let path = format!("{}:{}", bins.display(), std::env::var("PATH").unwrap_or_default());
    let log = dir.join("stderr");
    let mut cmd = crate::util::pinned(Command::new("sh"));
    // Blocks are Claude Code's (an Amplifier-only home has none); the other
    // examples read Amplifier captures (`--sum cost_usd` is refused on
    // Claude Code transcripts, as its example says).
    let home = if line.contains("--blocks") { "claude-home" } else { "home" };
    cmd.arg("-c").arg(line).current_dir(dir.join("work")).env("PATH", path).env("HOME", dir.join(home));
    // Named only where an example names it (it adds its sessions to the default roots).
    if line.contains("$SESSION_DATA_DIR") {
        cmd.env("SESSION_DATA_DIR", root().join("fixtures/sessiondata"));
    }
    cmd.process_group(0);
    let out = dir.join("stdout");
    cmd.stdin(Stdio::null()).stdout(std::fs::File::create(&out).unwrap()).stderr(std::fs::File::create(&log).unwrap());
    let mut child = cmd.spawn().expect("sh runs");
    let limit = if line.contains(" -f ") { 10 } else { 600 };
    let mut status = None;
    for _ in 0..limit {
        status = child.try_wait().expect("sh waited for");
        if status.is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let code = match status {
        Some(s) => s.code().unwrap_or(-1),
        None => {
            // SAFETY: kill(2) on the process group of a child this test spawned.
            unsafe { libc::kill(-(child.id() as i32), libc::SIGTERM) };
            let s = child.wait().expect("sh waited for");
            if line.contains(" -f ") {
                s.code().unwrap_or(0)
            } else {
                -2
            }
        }
    };
    let stdout = String::from_utf8_lossy(&std::fs::read(&out).unwrap_or_default()).into_owned();
    (code, std::fs::read_to_string(&log).unwrap_or_default(), stdout)
}

#[test]
fn every_example_of_every_help_runs() {
    let dir = tempfile::tempdir().unwrap();
    sandbox(dir.path());
    let mut failed = vec![];
    let mut answers = String::new();
    let mtime = regex::Regex::new(r#""mtime":"[^"]*""#).unwrap();
    let mut ran = 0;
    for tool in ["ci-find", "ci-cat", "ci-filter", "ci-agg", "ci-grep"] {
        let lines = examples(tool);
        assert!(lines.len() >= 5, "{tool}: {lines:?}");
        for line in lines {
            let (code, stderr, stdout) = run(dir.path(), &in_sandbox(&line));
            ran += 1;
            if !line.contains(" -f ") {
                let sandbox = dir.path().to_string_lossy();
                let stdout = stdout.replace(sandbox.as_ref(), "$SANDBOX");
                // The copies' modification times are the test's.
                let stdout = mtime.replace_all(&stdout, r#""mtime":"…""#);
                answers.push_str(&format!("$ {line}\n{stdout}\n"));
            }
            let bad = ["error:", "panicked", "No such file", "unexpected argument", "not found"];
            if !(code == 0 || code == 1) || bad.iter().any(|b| stderr.contains(b)) {
                failed.push(format!("{tool}: {line}\n  exit {code}\n{stderr}"));
            }
        }
    }
    assert!(ran >= 50, "{ran} examples");
    assert!(failed.is_empty(), "{} of {ran} examples failed:\n{}", failed.len(), failed.join("\n"));
    let expected = root().join("fixtures/examples/answers.txt");
    if std::env::var_os("CI_BLESS").is_some() {
        std::fs::create_dir_all(expected.parent().unwrap()).unwrap();
        std::fs::write(&expected, &answers).unwrap();
    }
    let want = std::fs::read_to_string(&expected)
        .unwrap_or_else(|e| panic!("{}: {e} (CI_BLESS=1 writes it)", expected.display()));
    assert!(answers == want, "the examples' answers differ from {} (diff it with CI_BLESS=1)", expected.display());
}

/// Found by running the examples: an empty `--blocks` table was refused
/// (`--columns: no column "start"`, exit 2), its header taken from the
/// `--tokens` records' instead of the view's columns.
#[test]
fn an_empty_blocks_table_prints_its_header() {
    let run =
        ci("ci-agg").args(["--blocks", "--since", "2030-01-01", "--format", "table", "fixtures/claude-blocks"]).run();
    assert_eq!(
        (run.code, run.stdout.as_str(), run.stderr.as_str()),
        (1, "start  status  models  responses  total_tokens  cost_usd  remaining\n", "")
    );
}

/// The README's first pipelines (the block after "They compose"), run as
/// written in the sandbox: each answers what its direct form answers.
#[test]
fn the_readmes_first_pipelines_answer_as_their_direct_forms() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let block = readme.split("They compose with each other").nth(1).expect("the pipelines' paragraph");
    let block = block.split("```sh\n").nth(1).and_then(|b| b.split("```").next()).expect("their code block");
    let line = |start: &str| {
        let l = block.lines().find(|l| l.starts_with(start)).unwrap_or_else(|| panic!("{start}: {block}"));
        l.split(" # ").next().unwrap().trim().to_owned()
    };
    let dir = tempfile::tempdir().unwrap();
    sandbox(dir.path());
    let same = |piped: &str, direct: &str| {
        let (a, b) = (run(dir.path(), piped), run(dir.path(), direct));
        assert_eq!(a.0, 0, "{piped}: {a:?}");
        assert!(!a.2.is_empty(), "{piped}: no answer");
        // The answer and the exit status (each stage of a pipeline reports the bad lines it reads).
        assert_eq!((a.0, &a.2), (b.0, &b.2), "{piped} against {direct}");
    };
    same(&line("ci-find -0 --paths | xargs"), "ci-agg --by event");
    same(&line("ci-find | ci-filter --workspace my-api"), "ci-find --workspace my-api | ci-agg --by event");
    // Its comment says which direct form it equals (in the same format).
    let since = block.lines().find(|l| l.starts_with("ci-find --since 7d")).expect("the window's pipeline");
    let (piped, direct) = since.split_once(" # = ").expect("its direct form");
    assert!(piped.contains("--format table"), "{piped}");
    same(piped.trim(), &format!("{} --format table", direct.trim()));
}
