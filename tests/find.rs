//! ci-find on the demo root: discovery, decoys, filters, orders and failures.

use crate::util::*;

const S1: &str = "a7c3e9d1-4b2f-4e8a-9d61-0c5b7e2f3a10";
const S2: &str = "0000000000000000-5f3c9a1e7b2d4c60_foundation-explorer";
const S3: &str = "b2d4f6a8-1c3e-4a5b-8c7d-9e0f1a2b3c4d";
const S4: &str = "c0ffee00-d1a2-4b3c-9d4e-5f6a7b8c9d0e";
const S5: &str = "d4a7b1e3-9c2f-4d85-a0b6-3e1f7c9d2b84";
const S6: &str = "e1f2a3b4-c5d6-4e7f-8a9b-0c1d2e3f4a5b";
const S8A: &str = "9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d";
const S8B: &str = "8c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f";
const S9A: &str = "abcdef12-0000-4000-8000-000000000001";
const S9B: &str = "abcdef12-0000-4000-8000-000000000002";

const METADATA_WARNINGS: &str = "\
ci-find: warning: fixtures/demo/-home-user-webapp/sessions/8c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f/context-intelligence/metadata.json: missing
ci-find: warning: fixtures/demo/-home-user-webapp/sessions/9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d/context-intelligence/metadata.json: invalid JSON: EOF while parsing a string at line 1 column 24
";

fn ids(args: &[&str]) -> Vec<String> {
    let run = ci("ci-find").args(["--root", DEMO]).args(args).run();
    without_mtime(&run.stdout).iter().map(|r| r["session"].as_str().unwrap().to_owned()).collect()
}

#[test]
fn lists_every_capture_newest_first_and_no_decoy() {
    let run = ci("ci-find").args(["--root", DEMO]).run();
    assert_eq!(run.code, 0);
    assert_eq!(run.stderr, METADATA_WARNINGS);
    let got: Vec<String> = without_mtime(&run.stdout).iter().map(|r| r["session"].as_str().unwrap().into()).collect();
    // Newest start first; the two sessions without metadata (no start) last, by id.
    assert_eq!(got, [S9B, S9A, S6, S5, S3, S2, S1, S4, S8B, S8A]);
}

#[test]
fn paths_match_the_fixed_depth_rule() {
    let run = ci("ci-find").args(["--root", DEMO, "--paths", "--sort", "path"]).run();
    let want: Vec<String> = [
        ("-C-Users-dev-tools", S4),
        ("-home-bob-myapp", S5),
        ("-home-user-my-api", S2),
        ("-home-user-my-api", S1),
        ("-home-user-my-api", S6),
        ("-home-user-webapp", S8B),
        ("-home-user-webapp", S8A),
        ("-home-user-webapp", S3),
        ("-srv-build-data pipeline", S9A),
        ("-srv-build-data pipeline", S9B),
    ]
    .iter()
    .map(|(p, s)| format!("fixtures/demo/{p}/sessions/{s}/context-intelligence/events.jsonl"))
    .collect();
    let mut want_sorted = want.clone();
    want_sorted.sort();
    assert_eq!(run.lines(), want_sorted);
}

#[test]
fn null_terminated_paths() {
    let run = ci("ci-find").args(["--root", DEMO, "-0", "--session", S1]).run();
    assert_eq!(
        run.stdout,
        format!("fixtures/demo/-home-user-my-api/sessions/{S1}/context-intelligence/events.jsonl\0")
    );
}

#[test]
fn session_record_of_a_current_writer_capture() {
    let run = ci("ci-find").args(["--root", DEMO, "--session", S1]).run();
    let recs = without_mtime(&run.stdout);
    assert_eq!(
        recs,
        [serde_json::json!({
            "session": S1, "project": "-home-user-my-api", "workspace": "my-api", "parent": null,
            "agent": null, "status": "completed", "started_at": "2026-03-02T09:15:00+00:00",
            "last_event_at": "2026-03-02T09:16:28.461750218+00:00",
            "ended_at": "2026-03-02T09:16:28.461750218+00:00", "working_dir": "/home/user/my-api",
            "recipe": "release-notes", "recipe_step": null, "parallel_group_id": null,
            "format": "amplifier",
            "path": format!("fixtures/demo/-home-user-my-api/sessions/{S1}/context-intelligence/events.jsonl"),
            "bytes": 17214, "metadata": "ok",
            "model": null, "files": null, "transcript": null, "events": null, "tags": null
        })]
    );
    // Keys come in a fixed order (serde_json keeps it), mtime included.
    let rec: serde_json::Value = serde_json::from_str(run.stdout.trim_end()).unwrap();
    let keys: Vec<&str> = rec.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ci_tools::session::FIELDS);
}

#[test]
fn workspace_by_field_and_by_project_folder() {
    assert_eq!(ids(&["--workspace", "my-api"]), [S6, S2, S1]);
    // No folder is named my-api; -home-user-webapp is a folder (and the filled workspace).
    assert_eq!(ids(&["--workspace", "-home-user-webapp"]), [S3, S8B, S8A]);
    assert_eq!(ids(&["--workspace", "pipeline", "--workspace", ""]), [S9B, S9A, S5]);
}

#[test]
fn project_as_slug_or_working_directory() {
    assert_eq!(ids(&["--project", "/home/user/my-api"]), [S6, S2, S1]);
    assert_eq!(ids(&["--project", "-srv-build-data pipeline"]), [S9B, S9A]);
    assert_eq!(ids(&["--project", "C:\\Users\\dev\\tools"]), [S4]);
}

#[test]
fn status_agent_recipe_and_size() {
    assert_eq!(ids(&["--status", "running"]), [S6, S5, S3]);
    // Session 2's agent comes from its fork line; 9b's from metadata.
    assert_eq!(ids(&["--agent", "foundation:explorer"]), [S2]);
    assert_eq!(ids(&["--agent", "foundation:bug-hunter"]), [S9B]);
    assert_eq!(ids(&["--recipe", "nightly-etl"]), [S9A]);
    assert_eq!(ids(&["--min-bytes", "4K"]), [S2, S1]);
}

#[test]
fn parents_and_children() {
    assert_eq!(ids(&["--children"]), [S9B, S2]);
    assert_eq!(ids(&["--parent", "a7c3e9d1"]), [S2]);
    assert_eq!(ids(&["--roots"]), [S9A, S6, S5, S3, S1, S4, S8B, S8A]);
}

#[test]
fn session_prefix_exact_and_ambiguous() {
    assert_eq!(ids(&["--session", "c0ffee00"]), [S4]);
    assert_eq!(ids(&["--session", S9A]), [S9A]);
    let run = ci("ci-find").args(["--root", DEMO, "--session", "abcdef12-0000"]).run();
    assert_eq!(run.code, 2);
    assert!(run.stderr.ends_with(&format!(
        "ci-find: session \"abcdef12-0000\" is ambiguous; candidates:\n  {S9A} (fixtures/demo/-srv-build-data pipeline/sessions/{S9A}/context-intelligence/events.jsonl)\n  {S9B} (fixtures/demo/-srv-build-data pipeline/sessions/{S9B}/context-intelligence/events.jsonl)\n"
    )), "{}", run.stderr);
    let run = ci("ci-find").args(["--root", DEMO, "--session", "abc"]).run();
    assert_eq!(run.code, 2);
    assert!(run.stderr.ends_with(&format!(
        "ci-find: session \"abc\": no exact match, and a prefix needs at least 8 characters; ids starting with it:\n  {S9A} (fixtures/demo/-srv-build-data pipeline/sessions/{S9A}/context-intelligence/events.jsonl)\n  {S9B} (fixtures/demo/-srv-build-data pipeline/sessions/{S9B}/context-intelligence/events.jsonl)\n"
    )), "{}", run.stderr);
}

#[test]
fn time_overlap() {
    // Sessions active on 2026-03-02 (UTC): 1 and 2 (--until is exclusive).
    assert_eq!(ids(&["--since", "2026-03-02", "--until", "2026-03-03"]), [S2, S1]);
    assert_eq!(ids(&["--since", "2026-03-02", "--until", "2026-03-02"]), Vec::<&str>::new());
    // CI_NOW is 2026-03-10: the last 5 days hold the 9a/9b sessions (03-06) and 6 (03-05).
    // Sessions with no time in their metadata (8a, 8b) never match a time bound.
    assert_eq!(ids(&["--since", "5d", "--roots"]), [S9A, S6]);
    let run = ci("ci-find").args(["--root", DEMO, "--since", "tomorrow"]).run();
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("tomorrow"), "{}", run.stderr);
}

#[test]
fn tree_shows_children_under_parents() {
    let run = ci("ci-find").args(["--root", DEMO, "--tree", "--project", "-home-user-my-api"]).run();
    assert_eq!(
        run.stdout,
        format!(
            "{S6}  my-api  -  running  2026-03-05T08:00:00.000+00:00\n\
             {S1}  my-api  -  completed  2026-03-02T09:15:00+00:00\n\
             └─ {S2}  my-api  foundation:explorer  completed  2026-03-02T09:15:31.700+00:00\n"
        )
    );
}

#[test]
fn no_match_is_exit_1_quietly() {
    let run = ci("ci-find").args(["--root", DEMO, "--status", "cancelled"]).run();
    assert_eq!((run.code, run.stdout.as_str()), (1, ""));
}

#[test]
fn empty_root_and_missing_root_fail_differently() {
    let dir = tempfile::tempdir().unwrap();
    let run = ci("ci-find").arg("--root").arg(dir.path()).run();
    assert_eq!(run.code, 1);
    assert_eq!(run.stderr, format!("ci-find: looked in {}, found 0\n", dir.path().display()));
    let missing = dir.path().join("nope");
    let run = ci("ci-find").arg("--root").arg(&missing).run();
    assert_eq!(run.code, 2);
    assert_eq!(run.stderr, format!("ci-find: root does not exist: {}\n", missing.display()));
}

#[test]
fn root_from_environment() {
    let abs = root().join(DEMO);
    let run = ci("ci-find")
        .env("AMPLIFIER_CONTEXT_INTELLIGENCE_BASE_PATH", format!("  {}  ", abs.display()))
        .arg("--paths")
        .run();
    assert_eq!(run.code, 0);
    assert_eq!(run.lines().len(), 10);
    let run = ci("ci-find").env("AMPLIFIER_CONTEXT_INTELLIGENCE_BASE_PATH", "relative/dir").run();
    assert!(run.stderr.starts_with(
        "ci-find: warning: AMPLIFIER_CONTEXT_INTELLIGENCE_BASE_PATH=\"relative/dir\" is relative and was ignored\n"
    ));
    // Falls back to $HOME/.amplifier/projects, which does not exist: found nothing.
    assert!(run.stderr.ends_with(&format!("ci-find: {}\n", ci_tools::format::no_default_root())), "{run:?}");
    assert_eq!(run.code, 1);
}

/// A bare name no session has is taken as the working directories it is the
/// last component of, and said so; a near one is suggested. It selected
/// nothing in silence.
#[test]
fn a_bare_workspace_or_project_name_is_taken_as_a_working_directory() {
    let roots = ["--root", "fixtures/codex", "--root", "fixtures/sessiondata"];
    let find = |args: &[&str]| ci("ci-find").args(roots).args(args).run();
    let by_dir = find(&["--project", "/home/dev/webapp"]);
    assert_eq!(by_dir.lines().len(), 1);
    for flag in ["--workspace", "--project"] {
        let run = find(&[flag, "webapp"]);
        assert_eq!((run.code, &run.stdout), (0, &by_dir.stdout), "{flag}");
        assert_eq!(run.stderr, format!("ci-find: {flag} webapp: taken as /home/dev/webapp (1 session)\n"));
        let run = find(&[flag, "webap"]);
        assert_eq!((run.code, run.stdout.as_str()), (1, ""));
        assert_eq!(run.stderr, format!("ci-find: {flag} webap: no session has it; did you mean \"webapp\"?\n"));
    }
    // A name a session has keeps its meaning, without a word.
    let run = ci("ci-find").args(["--root", "fixtures/demo-clean", "--workspace", "my-api"]).run();
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    assert!(run.json().iter().all(|r| r["workspace"] == "my-api"));
}
