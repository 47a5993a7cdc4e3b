//! One session-id rule in every tool (issue 15, item 8): `--session` in all
//! five tools (and `ci-find --parent`) takes an exact id or a prefix of at
//! least 8 characters that starts one id only; ambiguity and misuse are
//! errors that say why; a value that matches nothing is noted. Unknown
//! flags name the tool that has them.

use crate::util::ci;

const R: &str = "fixtures/demo-clean";
const S1: &str = "a7c3e9d1-4b2f-4e8a-9d61-0c5b7e2f3a10";
const S9A: &str = "abcdef12-0000-4000-8000-000000000001";
const S9B: &str = "abcdef12-0000-4000-8000-000000000002";
const TOOLS: [&str; 5] = ["ci-find", "ci-cat", "ci-filter", "ci-agg", "ci-grep"];

fn events(id: &str) -> String {
    let project = if id.starts_with("abcdef12") { "-srv-build-data pipeline" } else { "-home-user-my-api" };
    format!("{R}/{project}/sessions/{id}/context-intelligence/events.jsonl")
}

/// `tool --session ID` over the clean demo root.
fn run(tool: &str, ids: &[&str]) -> crate::util::Run {
    let mut cmd = ci(tool);
    for id in ids {
        cmd = cmd.args(["--session", id]);
    }
    match tool {
        "ci-find" => cmd.args(["--root", R]),
        "ci-grep" => cmd.args([".", R]),
        "ci-agg" => cmd.args(["--by", "session", R]),
        "ci-cat" => cmd.args(["--fields", "event", R]),
        _ => cmd.arg(R),
    }
    .run()
}

/// The sessions a tool's output is of.
fn sessions(tool: &str, run: &crate::util::Run) -> std::collections::BTreeSet<String> {
    run.json()
        .iter()
        .map(|r| match tool {
            "ci-find" | "ci-agg" | "ci-grep" => r["session"].as_str().unwrap_or("").to_owned(),
            _ => r["ci"]["session"].as_str().unwrap_or("").to_owned(),
        })
        .collect()
}

/// Every case of the rule, in every tool, with the same messages. On the
/// old code ci-cat and ci-agg had no --session, ci-filter and ci-grep took
/// an ambiguous prefix for both sessions, and a short or inner part of an
/// id matched nothing without a word (exit 1).
#[test]
fn one_rule_in_every_tool() {
    let ambiguous = format!(
        "session \"abcdef12\" is ambiguous; candidates:\n  {S9A} ({})\n  {S9B} ({})\n",
        events(S9A),
        events(S9B)
    );
    let short = format!(
        "session \"a7c3\": no exact match, and a prefix needs at least 8 characters; ids starting with it:\n  {S1} ({})\n",
        events(S1)
    );
    let inner = format!(
        "session \"4b2f-4e8a\": no session id starts with it; it is part of:\n  {S1} ({})\n  (a session is named by its exact id or its first 8 or more characters)\n",
        events(S1)
    );
    for tool in TOOLS {
        let one = |ids: &[&str]| {
            let r = run(tool, ids);
            assert_eq!((r.code, r.stderr.as_str()), (0, ""), "{tool} {ids:?}");
            sessions(tool, &r)
        };
        let set = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<std::collections::BTreeSet<_>>();
        assert_eq!(one(&[S9A]), set(&[S9A]), "{tool}: exact id");
        assert_eq!(one(&["a7c3e9d1"]), set(&[S1]), "{tool}: 8-character prefix");
        assert_eq!(one(&["abcdef12-0000-4000-8000-000000000002", "a7c3e9d1-4b2f"]), set(&[S1, S9B]), "{tool}: OR");
        for (value, want) in [("abcdef12", &ambiguous), ("a7c3", &short), ("4b2f-4e8a", &inner)] {
            let r = run(tool, &[value]);
            assert_eq!(
                (r.code, r.stdout.as_str(), r.stderr.clone()),
                (2, "", format!("{tool}: {want}")),
                "{tool} {value}"
            );
        }
        let r = run(tool, &["zzzzzzzzzz"]);
        assert_eq!(
            (r.code, r.stdout.as_str(), r.stderr.clone()),
            (1, "", format!("{tool}: no session id starts with \"zzzzzzzzzz\"\n")),
            "{tool}"
        );
    }
}

/// On stdin the ids arrive with the records: each value selects what it
/// matches as it comes, and the rule is checked at the end (exit 2 after
/// the records an ambiguous prefix passed).
#[test]
fn on_a_stream_the_rule_is_checked_at_the_end() {
    let found = ci("ci-find").args(["--root", R]).run().stdout;
    let events_of_all = ci("ci-cat").arg(R).run().stdout;
    for tool in ["ci-cat", "ci-filter", "ci-agg", "ci-grep"] {
        for input in [&found, &events_of_all] {
            let args: &[&str] = match tool {
                "ci-grep" => &["-c", "."],
                "ci-agg" => &["--by", "session"],
                _ => &[],
            };
            let r = ci(tool).args(args).args(["--session", "a7c3e9d1"]).stdin(input.clone()).run();
            assert_eq!((r.code, r.stderr.as_str()), (0, ""), "{tool}");
            let r = ci(tool).args(args).args(["--session", "abcdef12"]).stdin(input.clone()).run();
            assert_eq!(r.code, 2, "{tool}");
            // The records passed are printed; an aggregate (printed at the end) is not.
            match tool {
                "ci-cat" | "ci-filter" => assert!(!r.stdout.is_empty(), "{tool}"),
                "ci-agg" => assert_eq!(r.stdout, "", "{tool}"),
                _ => {}
            }
            assert!(
                r.stderr.starts_with(&format!("{tool}: session \"abcdef12\" is ambiguous; candidates:\n  {S9A} (")),
                "{tool}: {}",
                r.stderr
            );
            let r = ci(tool).args(args).args(["--session", "fbac"]).stdin(input.clone()).run();
            assert_eq!(
                (r.code, r.stderr.clone()),
                (2, format!("{tool}: session \"fbac\": no exact match, and a prefix needs at least 8 characters\n")),
                "{tool}"
            );
            let r = ci(tool).args(args).args(["--session", "zzzzzzzz"]).stdin(input.clone()).run();
            assert_eq!(
                (r.code, r.stderr.clone()),
                (1, format!("{tool}: no session id starts with \"zzzzzzzz\"\n")),
                "{tool}"
            );
        }
    }
    // ci-filter --invert is checked the same, and inverts the selection.
    let r = ci("ci-filter").args(["--invert", "--session", "a7c3e9d1"]).stdin(found.clone()).run();
    assert_eq!((r.code, r.lines().len()), (0, found.lines().count() - 1));
}

/// `ci-find --parent` follows the rule: an id that matches nothing panicked
/// (exit 101) on the old code.
#[test]
fn parent_follows_the_rule() {
    let run = ci("ci-find").args(["--root", R, "--parent", "zzzzzzzzzz"]).run();
    assert_eq!(
        (run.code, run.stdout.as_str(), run.stderr.as_str()),
        (1, "", "ci-find: no session id starts with \"zzzzzzzzzz\"\n")
    );
    let run = ci("ci-find").args(["--root", R, "--parent", "a7c3"]).run();
    assert_eq!(run.code, 2);
    let run = ci("ci-find").args(["--root", R, "--parent", "a7c3e9d1", "--paths"]).run();
    assert_eq!((run.code, run.lines()), (0, vec![format!("{R}/-home-user-my-api/sessions/0000000000000000-5f3c9a1e7b2d4c60_foundation-explorer/context-intelligence/events.jsonl").as_str()]));
}

/// clap's own tips misled: `ci-cat --session X` suggested `--version`
/// (ci-cat now has --session), `ci-cat --root R` suggested `-- --root`. A
/// flag another tool has names that tool and the pipeline.
#[test]
fn an_unknown_flag_names_the_tool_that_has_it() {
    let usage = |tool: &str, flag: &str, tip: &str, usage: &str| {
        format!("error: unexpected argument '{flag}' found\n\n  tip: {tip}\n\nUsage: {tool} {usage}\n\nFor more information, try '--help'.\n")
    };
    for (tool, args, tip, use_) in [
        ("ci-cat", &["--root", "R"][..], "ci-cat has no --root: it reads PATHs (a root is one) or stdin; discover sessions with ci-find --root R | ci-cat", "[OPTIONS] [PATH]..."),
        ("ci-agg", &["--root=/x/y"], "ci-agg has no --root: it reads PATHs (a root is one) or stdin; discover sessions with ci-find --root /x/y | ci-agg", "[OPTIONS] [PATH]..."),
        ("ci-find", &["--event", "tool:pre"], "ci-find has no --event; ci-filter and ci-grep have it: ci-find | ci-filter --event tool:pre", "[OPTIONS]"),
        ("ci-agg", &["--tool", "bash"], "ci-agg has no --tool; ci-filter has it: ci-filter --tool bash … | ci-agg", "[OPTIONS] [PATH]..."),
        ("ci-cat", &["--by", "event"], "ci-cat has no --by; ci-agg has it: ci-cat … | ci-agg --by event", "[OPTIONS] [PATH]..."),
        // ci-find's bound is its own --limit (ci-find | ci-agg --top reads every event).
        ("ci-find", &["--top", "5"], "ci-find has no --top; the first 5 sessions: ci-find --limit 5", "[OPTIONS]"),
        ("ci-find", &["--head"], "ci-find has no --head; the first N sessions: ci-find --limit N", "[OPTIONS]"),
    ] {
        let run = ci(tool).args(args).run();
        assert_eq!((run.code, run.stdout.as_str()), (2, ""), "{tool} {args:?}");
        let flag = args[0].split('=').next().unwrap_or("");
        assert_eq!(run.stderr, usage(tool, flag, tip, use_), "{tool} {args:?}");
        assert!(!run.stderr.contains("similar argument") && !run.stderr.contains("-- --"), "{}", run.stderr);
    }
    // ci-cat --session is a flag now (it was "similar argument exists: '--version'").
    let run = ci("ci-cat").args(["--session", S1, "--head", "1", R]).run();
    assert_eq!(run.code, 0, "{run:?}");
}
