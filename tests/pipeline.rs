//! The mission's headline pipelines, end to end through several binaries.

use crate::util::*;

fn pipe(input: String, bin: &str, args: &[&str]) -> String {
    let run = ci(bin).args(args).stdin(input).run();
    assert!(run.code == 0 || run.code == 1, "{bin} {args:?}: {run:?}");
    run.stdout
}

#[test]
fn filter_then_agg_equals_cat_filter_agg_for_every_workspace() {
    for w in ["my-api", "-home-user-webapp", "pipeline", "", "-C-Users-dev-tools", "nope"] {
        let flag = format!("--workspace={w}");
        let direct = pipe(pipe(find_demo(&[]), "ci-filter", &[&flag]), "ci-agg", &["--by", "event"]);
        let via_cat =
            pipe(pipe(pipe(find_demo(&[]), "ci-cat", &[]), "ci-filter", &[&flag]), "ci-agg", &["--by", "event"]);
        assert_eq!(direct, via_cat, "workspace {w:?}");
    }
    // The my-api answer, counted by hand from fixtures/README.md (sessions 1 and 2; 6 is empty).
    let direct = pipe(pipe(find_demo(&[]), "ci-filter", &["--workspace", "my-api"]), "ci-agg", &["--by", "event"]);
    let total: u64 =
        direct.lines().map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["count"].as_u64().unwrap()).sum();
    assert_eq!(total, 40);
}

#[test]
fn grep_list_pipes_into_agg() {
    // Sessions that mention 日本語 (stored as \u escapes in session 1), then their events by type.
    let sessions = pipe(find_demo(&[]), "ci-grep", &["-l", "日本語"]);
    let ids: Vec<String> = sessions
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["session"].as_str().unwrap().to_owned())
        .collect();
    assert!(ids.contains(&"a7c3e9d1-4b2f-4e8a-9d61-0c5b7e2f3a10".to_owned()), "{ids:?}");
    let by_event = pipe(sessions, "ci-agg", &["--by", "session"]);
    assert_eq!(by_event.lines().count(), ids.len());
}

/// The README's main job, on the clean demo: the table, and not one warning.
#[test]
fn the_readme_main_job_runs_without_a_warning() {
    let records = ci("ci-find").args(["--root", "fixtures/demo-clean"]).run();
    assert_eq!((records.code, records.stderr.as_str(), records.lines().len()), (0, "", 6), "{records:?}");
    let run = ci("ci-agg").args(["--by", "event", "--format", "table"]).stdin(records.stdout).run();
    assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{run:?}");
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 19, "{}", run.stdout);
    assert_eq!(lines[0], "event                     count");
    assert_eq!(lines[1], "tool:pre                      9");
    assert_eq!(lines[18], "tool:error                    1");
}
