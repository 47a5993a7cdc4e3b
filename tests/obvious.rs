//! The obvious command gives the right answer (issue 31): the README's first
//! examples, run as written on a home of fixtures, and the metrics that used
//! to over-count money silently.

use std::path::Path;

use crate::kit::tree::Tree;
use crate::util::{ci, pinned, root, run_std, Run};

/// The README's first examples, in order: the commands of the first `sh`
/// block after "The first questions" (the test fails when the README and
/// this list part).
const FIRST_QUESTIONS: [&str; 5] = [
    "ci-agg --tokens --by day --since this-month",
    "ci-agg --tokens --since today",
    "ci-filter --since yesterday --until today --workspace my-api | ci-agg --by event",
    "ci-grep -F 'connection refused' --since 7d",
    "ci-agg --tokens --by day --since last-week --until this-week --format table",
];

/// The first `sh` block after `marker` in the README: its commands, comments cut.
fn readme_block(marker: &str) -> Vec<String> {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let after = &readme[readme.find(marker).expect("marker in README")..];
    let block = &after[after.find("```sh\n").expect("an sh block") + 6..];
    let block = &block[..block.find("```").unwrap()];
    block.lines().map(|l| l.split(" # ").next().unwrap().trim().to_owned()).filter(|l| !l.is_empty()).collect()
}

/// A home holding Claude Code transcripts (the fixtures), Codex rollouts
/// (the fixtures) and an Amplifier project `my-api` with a day of work on
/// 2026-06-04 (yesterday at NOW) and a response on 2026-05-27 (last week).
const NOW: &str = "2026-06-05T18:00:00Z";

fn amplifier_home() -> Tree {
    let tree = Tree::new();
    let line = |event: &str, ts: &str, data: &str| {
        format!("{{\"event\":\"{event}\",\"workspace\":\"my-api\",\"timestamp\":\"{ts}\",\"data\":{data}}}\n")
    };
    let usage = r#"{"model":"gpt-5-mini","usage":{"input_tokens":1000,"output_tokens":100,"cost_usd":"0.0021"}}"#;
    let text = [
        line("prompt:submit", "2026-05-27T10:00:00Z", r#"{"prompt":"deploy"}"#),
        line("llm:response", "2026-05-27T10:00:05Z", usage),
        line("prompt:submit", "2026-06-04T09:00:00Z", r#"{"prompt":"why did the deploy fail?"}"#),
        line("tool:pre", "2026-06-04T09:00:01Z", r#"{"tool_name":"bash","tool_call_id":"c1"}"#),
        line(
            "tool:error",
            "2026-06-04T09:00:02Z",
            r#"{"tool_name":"bash","tool_call_id":"c1","error":"connection refused"}"#,
        ),
        line("llm:response", "2026-06-04T09:00:09Z", usage),
    ]
    .concat();
    let meta = r#"{"session_id":"s-my-api","workspace":"my-api","started_at":"2026-05-27T10:00:00Z","last_event_at":"2026-06-04T09:00:09Z"}"#;
    tree.amplifier("my-api", "s-my-api").metadata(meta).raw(text).write();
    tree
}

/// Runs `command` through `sh` with the binaries on PATH and the home's
/// roots in the writers' environment variables.
fn run_as_user(command: &str, amplifier: &Path) -> Run {
    let bins = assert_cmd::cargo::cargo_bin("ci-agg").parent().unwrap().to_owned();
    let mut sh = pinned(std::process::Command::new("sh"));
    sh.arg("-c")
        .arg(command)
        .stdin(std::process::Stdio::null())
        .env("PATH", format!("{}:{}", bins.display(), std::env::var("PATH").unwrap_or_default()))
        .env("CI_NOW", NOW)
        .env("AMPLIFIER_CONTEXT_INTELLIGENCE_BASE_PATH", amplifier)
        .env("CLAUDE_CONFIG_DIR", root().join("fixtures/claude-transcripts"))
        .env("CODEX_HOME", root().join("fixtures/codex"));
    run_std(sh)
}

#[test]
fn the_readme_first_questions_are_answered() {
    assert_eq!(readme_block("The first questions"), FIRST_QUESTIONS);
    let home = amplifier_home();
    let amp = home.path();
    let run = |c: &str| {
        let r = run_as_user(c, amp);
        assert_ne!(r.code, 2, "{c}: {}", r.stderr);
        r
    };
    // This month (January 2026, the tests' zone is UTC) = since its first day.
    let month = run(FIRST_QUESTIONS[0]);
    assert_eq!(month.stdout, run("ci-agg --tokens --by day --since 2026-06-01").stdout);
    let days: Vec<String> = month.json().iter().map(|r| r["day"].as_str().unwrap().to_owned()).collect();
    assert_eq!(days, ["2026-06-04", "2026-06-05", "2026-06-05"]);
    // Today: the Claude Code and Codex responses of 2026-06-05.
    let today = run(FIRST_QUESTIONS[1]);
    let models: Vec<String> = today.json().iter().map(|r| r["model"].as_str().unwrap().to_owned()).collect();
    assert_eq!(models, ["claude-opus-4-7", "gpt-5.5"]);
    assert_eq!(today.stdout, run("ci-agg --tokens --since 2026-06-05T00:00:00Z").stdout);
    // Yesterday in my-api: its four events of 2026-06-04, by type.
    let yesterday = run(FIRST_QUESTIONS[2]);
    assert_eq!(
        yesterday.stdout,
        concat!(
            "{\"event\":\"llm:response\",\"count\":1}\n",
            "{\"event\":\"prompt:submit\",\"count\":1}\n",
            "{\"event\":\"tool:error\",\"count\":1}\n",
            "{\"event\":\"tool:pre\",\"count\":1}\n"
        )
    );
    // Where a phrase was said: the one tool error, within the last 7 days.
    let said = run(FIRST_QUESTIONS[3]);
    let matches = said.json();
    assert_eq!(matches.len(), 1, "{}", said.stdout);
    assert_eq!(matches[0]["event"], "tool:error");
    // The weekly report: last week (Monday 2026-05-25 to Sunday 2026-05-31) as a table.
    let week = run(FIRST_QUESTIONS[4]);
    assert_eq!(week.code, 0);
    assert_eq!(
        week.stdout,
        run("ci-agg --tokens --by day --since 2026-05-25 --until 2026-06-01 --format table").stdout
    );
    assert!(week.stdout.contains("2026-05-27") && week.stdout.contains("gpt-5-mini"), "{}", week.stdout);
}

/// Issue 31, item 4: `--sum cost_usd` over Claude Code transcripts counted
/// each response once per content-block line (2.2× the spend); it is now
/// refused with a pointer to --tokens, directly and through a pipe.
#[test]
fn a_sum_of_cost_over_lines_that_repeat_a_response_is_refused() {
    let root = "fixtures/claude-transcripts";
    for args in [vec!["--by", "day", "--sum", "cost_usd"], vec!["--avg", "output_tokens"]] {
        let direct = ci("ci-agg").args(&args).arg(root).run();
        assert_eq!((direct.code, direct.stdout.as_str()), (2, ""), "{args:?}");
        assert!(direct.stderr.contains("--tokens counts each response once"), "{}", direct.stderr);
        let cat = ci("ci-cat").arg(root).run();
        let piped = ci("ci-agg").args(&args).stdin(cat.stdout).run();
        assert_eq!((piped.code, piped.stdout.as_str()), (2, ""), "{args:?}");
    }
    // A metric that is not money or tokens is not refused.
    let run = ci("ci-agg").args(["--by", "day", "--sum", "data.message.content[0].input.limit", root]).run();
    assert_ne!(run.code, 2, "{}", run.stderr);
}

/// The refusal names how each writer met repeats a response (the format's
/// own words, else its program's name), once each.
#[test]
fn the_refusal_names_the_writers_whose_responses_repeat() {
    let tail = "so a sum over lines would count it several times; --tokens counts each response once, \
                its largest copy (ci-agg --tokens --by day)\n";
    let claude = "Claude Code transcripts: one per content block, each repeating its usage";
    for (root, how) in [("fixtures/claude-transcripts", claude), ("fixtures/kimi", "Kimi CLI")] {
        let run = ci("ci-agg").args(["--sum", "cost_usd", root]).run();
        assert_eq!((run.code, run.stdout.as_str()), (2, ""), "{root}");
        let want = format!("ci-agg: cost_usd: these captures write one response on several lines ({how}), {tail}");
        assert!(run.stderr.ends_with(&want), "{root}: {}", run.stderr);
    }
    // Read by one thread, Kimi first: both named, in the registry's order.
    let both = ci("ci-agg").args(["-j1", "--sum", "cost_usd", "fixtures/kimi", "fixtures/claude-transcripts"]).run();
    let want = format!("({claude}; Kimi CLI), {tail}");
    assert!(both.stderr.ends_with(&want), "{}", both.stderr);
}

/// The `--help` example "cost per day" over the writers whose events carry
/// each response once equals `--tokens --by day` summed over models.
#[test]
fn the_help_cost_per_day_agrees_with_tokens() {
    for root in ["fixtures/demo-clean", "fixtures/codex"] {
        let sums = ci("ci-agg").args(["--by", "day", "--sum", "cost_usd", root]).run();
        let tokens = ci("ci-agg").args(["--tokens", "--by", "day", root]).run();
        assert_eq!(sums.code, 0, "{root}: {}", sums.stderr);
        let mut by_day: std::collections::BTreeMap<String, f64> = Default::default();
        for r in tokens.json() {
            *by_day.entry(r["day"].as_str().unwrap().to_owned()).or_default() += r["cost_usd"].as_f64().unwrap_or(0.0);
        }
        let mut compared = 0;
        for r in sums.json() {
            let day = r["day"].as_str().unwrap_or("null");
            let sum = r["cost_usd"]["sum"].as_f64().unwrap_or(0.0);
            assert!((sum - by_day.get(day).copied().unwrap_or(0.0)).abs() < 1e-12, "{root} {day}: {sum} vs {by_day:?}");
            compared += usize::from(sum > 0.0);
        }
        assert!(compared >= 2, "{root}");
    }
}
