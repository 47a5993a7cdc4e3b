//! Relative paths and project folders (issue 15, item 7): a path typed
//! relative to the working directory (`.`, `..`, a bare file name) names
//! what it stands for, `--project .` is the working directory, and a
//! writer's project folder (or any level of its layout) given as PATH is
//! read as its sessions.

use std::fs;
use std::path::Path;

use crate::util::{ci, root};

const PIPELINE: &str = "fixtures/demo-clean/-srv-build-data pipeline";
const S9A: &str = "abcdef12-0000-4000-8000-000000000001";
const S9B: &str = "abcdef12-0000-4000-8000-000000000002";

/// Every level of every writer's layout, typed from the repository root and
/// typed as `.` (or the bare file name) from inside it, gives the same
/// sessions, workspaces and counts. On the old code `.` lost the folder
/// names (`session`/`workspace` null, a session named `events`) or found
/// nothing at all.
#[test]
fn a_path_typed_from_inside_names_the_same_sessions() {
    let hooks = "fixtures/sessiondata/11111111-aaaa-4000-8000-000000000001";
    let session = format!("{PIPELINE}/sessions/{S9A}");
    let cases: Vec<(String, &str)> = vec![
        // (folder to stand in, what to type there)
        ("fixtures/demo-clean".into(), "."),
        (PIPELINE.into(), "."),
        (format!("{PIPELINE}/sessions"), "."),
        (session.clone(), "."),
        (format!("{session}/context-intelligence"), "."),
        (format!("{session}/context-intelligence"), "events.jsonl"),
        ("fixtures/sessiondata".into(), "."),
        (hooks.into(), "."),
        (hooks.into(), "_claude_Stop.jsonl"),
        ("fixtures/claude-transcripts".into(), "."),
        ("fixtures/claude-transcripts/projects".into(), "."),
        ("fixtures/claude-transcripts/projects/-src-ryoppippi-ccusage".into(), "."),
        ("fixtures/claude-transcripts/projects/-src-ryoppippi-ccusage".into(), "session-alpha.jsonl"),
        ("fixtures/codex".into(), "."),
        ("fixtures/codex/sessions".into(), "."),
        ("fixtures/codex/sessions/2026".into(), "."),
        ("fixtures/codex/sessions/2026/06/05".into(), "."),
        ("fixtures/hook-logs/ranaroussi__quantstats".into(), "."),
        ("fixtures/hook-logs/ranaroussi__quantstats/logs".into(), "."),
        ("fixtures/hook-logs/ranaroussi__quantstats/logs".into(), "pre_tool_use.json"),
    ];
    for (dir, typed) in &cases {
        let full = if *typed == "." { dir.clone() } else { format!("{dir}/{typed}") };
        let args = ["--by", "session,workspace", "--sort", "key"];
        let want = ci("ci-agg").args(args).arg(&full).run();
        assert_eq!(want.code, 0, "{full}: {want:?}");
        let got = ci("ci-agg").args(args).arg(typed).current_dir(root().join(dir)).run();
        assert_eq!((got.code, &got.stdout), (0, &want.stdout), "{typed} in {dir}: {}", got.stderr);
    }
}

/// The same for `ci-find --root`: a session directory, a project folder or
/// a `sessions` folder lists its sessions (as the other tools read it),
/// typed in full or as `.`.
#[test]
fn find_root_takes_every_level_of_a_layout() {
    let ids = |run: &crate::util::Run| -> Vec<String> {
        run.json().iter().map(|r| r["session"].as_str().unwrap_or("").to_owned()).collect()
    };
    for (dir, want) in [
        (PIPELINE.to_owned(), vec![S9B, S9A]),
        (format!("{PIPELINE}/sessions"), vec![S9B, S9A]),
        (format!("{PIPELINE}/sessions/{S9A}"), vec![S9A]),
        (
            "fixtures/sessiondata/11111111-aaaa-4000-8000-000000000001".to_owned(),
            vec!["11111111-aaaa-4000-8000-000000000001"],
        ),
    ] {
        let typed = ci("ci-find").args(["--root", &dir]).run();
        assert_eq!((typed.code, ids(&typed)), (0, want.iter().map(|s| s.to_string()).collect()), "{dir}");
        let dot = ci("ci-find").args(["--root", "."]).current_dir(root().join(&dir)).run();
        assert_eq!(ids(&dot), ids(&typed), "{dir}");
        let fmt = |run: &crate::util::Run| -> Vec<(String, String)> {
            run.json().iter().map(|r| (r["project"].to_string(), r["workspace"].to_string())).collect()
        };
        assert_eq!(fmt(&dot), fmt(&typed), "{dir}");
    }
}

/// The case of the issue: a project folder under a root, as PATH, was
/// "looked in …, found 0", exit 2.
#[test]
fn a_project_folder_as_path_is_read_as_that_project() {
    let run = ci("ci-agg").args(["--by", "workspace", PIPELINE]).run();
    assert_eq!(
        (run.code, run.stdout.as_str(), run.stderr.as_str()),
        (0, "{\"workspace\":\"pipeline\",\"count\":8}\n", "")
    );
    let run = ci("ci-cat").args(["--fields", "event"]).arg(format!("{PIPELINE}/sessions")).run();
    assert_eq!((run.code, run.lines().len()), (0, 8), "{run:?}");
}

/// A capture root with one Amplifier project and one Claude Code project
/// for the working directory `work` (each named by its writer's folder
/// rule), and a session in another project.
fn roots_for(work: &Path) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let w = work.to_str().unwrap();
    let amp = |project: &str, id: &str| {
        let ci = dir.path().join("amp").join(project).join("sessions").join(id).join("context-intelligence");
        fs::create_dir_all(&ci).unwrap();
        let line = r#"{"event":"session:start","timestamp":"2026-03-01T10:00:00Z","workspace":"w","data":{}}"#;
        fs::write(ci.join("events.jsonl"), format!("{line}\n")).unwrap();
    };
    amp(&ci_tools::session::slug_of(w), "aaaaaaaa-0000-4000-8000-000000000001");
    amp("-elsewhere", "bbbbbbbb-0000-4000-8000-000000000002");
    let folder = dir.path().join("claude/projects").join(ci_tools::format::claude_transcript::project_folder(w));
    fs::create_dir_all(&folder).unwrap();
    let line = format!(
        r#"{{"type":"user","sessionId":"cccccccc","cwd":{w:?},"timestamp":"2026-03-01T10:00:00Z","message":{{"role":"user","content":"hi"}}}}"#
    );
    fs::write(folder.join("cccccccc-0000-4000-8000-000000000003.jsonl"), format!("{line}\n")).unwrap();
    dir
}

/// `--project .` (and `./`, `../NAME`, a relative path with a `/`) is the
/// working directory as `pwd` shows it, compared by each writer's folder
/// rule, so it matches what `--project "$PWD"` matches. On the old code
/// only values starting with `/` or `~` were paths: `.` matched nothing, exit 1.
#[test]
fn project_dot_is_the_working_directory() {
    let base = tempfile::tempdir().unwrap();
    let work = base.path().join("my.app");
    fs::create_dir_all(work.join("src")).unwrap();
    let roots = roots_for(&work);
    let ids = |project: &str, cwd: &Path| -> (i32, Vec<String>) {
        let run = ci("ci-find")
            .args(["--root", roots.path().join("amp").to_str().unwrap()])
            .args(["--root", roots.path().join("claude").to_str().unwrap()])
            .args(["--project", project, "--sort", "id"])
            .current_dir(cwd)
            .run();
        (run.code, run.json().iter().map(|r| r["session"].as_str().unwrap_or("").to_owned()).collect())
    };
    let want =
        (0, vec!["aaaaaaaa-0000-4000-8000-000000000001".to_owned(), "cccccccc-0000-4000-8000-000000000003".to_owned()]);
    assert_eq!(ids(work.to_str().unwrap(), base.path()), want);
    for (value, cwd) in [
        (".", work.clone()),
        ("./", work.clone()),
        ("..", work.join("src")),
        ("../../my.app", work.join("src")),
        ("my.app/src/..", base.path().to_path_buf()),
    ] {
        assert_eq!(ids(value, &cwd), want, "--project {value} in {}", cwd.display());
    }
    // A folder name is still a folder name, not a path.
    assert_eq!(ids("-elsewhere", base.path()), (0, vec!["bbbbbbbb-0000-4000-8000-000000000002".to_owned()]));
}
