//! ci-agg's views over `--tokens` records: `--blocks` (Claude's 5-hour
//! windows) on fixtures/claude-blocks (fixtures/README.md), checked against
//! ccusage's numbers; `--statusline` with stdin JSON, empty and bad stdin;
//! `--week-start` buckets.

use super::*;

const BLOCKS: &str = "fixtures/claude-blocks";

/// `ci-agg --blocks fixtures/claude-blocks` at CI_NOW 2026-03-10T00:00:00Z.
const BLOCKS_NDJSON: &str = r#"{"start":"2026-03-01T08:00:00Z","end":"2026-03-01T13:00:00Z","actual_end":"2026-03-01T12:59:00Z","status":"complete","responses":3,"input_tokens":55,"output_tokens":430,"cache_read_tokens":7000,"cache_write_tokens":7300,"cost_usd":0.03021,"total_tokens":14785,"cost_source":"computed","unpriced_models":[],"models":["claude-sonnet-4-5-20250929","claude-haiku-4-5-20251001"],"elapsed_minutes":null,"remaining_minutes":null,"remaining":null,"tokens_per_minute":null,"cost_per_hour":null,"projected_tokens":null,"projected_cost_usd":null}
{"start":"2026-03-01T13:00:00Z","end":"2026-03-01T18:00:00Z","actual_end":"2026-03-01T13:05:30.5Z","status":"complete","responses":1,"input_tokens":3,"output_tokens":400,"cache_read_tokens":8000,"cache_write_tokens":100,"cost_usd":0.008784,"total_tokens":8503,"cost_source":"computed","unpriced_models":[],"models":["claude-sonnet-4-5-20250929"],"elapsed_minutes":null,"remaining_minutes":null,"remaining":null,"tokens_per_minute":null,"cost_per_hour":null,"projected_tokens":null,"projected_cost_usd":null}
{"start":"2026-03-01T18:05:30.5Z","end":"2026-03-02T01:20:00Z","actual_end":null,"status":"gap","responses":0,"input_tokens":0,"output_tokens":0,"cache_read_tokens":0,"cache_write_tokens":0,"cost_usd":0,"total_tokens":0,"cost_source":null,"unpriced_models":[],"models":[],"elapsed_minutes":null,"remaining_minutes":null,"remaining":null,"tokens_per_minute":null,"cost_per_hour":null,"projected_tokens":null,"projected_cost_usd":null}
{"start":"2026-03-02T01:00:00Z","end":"2026-03-02T06:00:00Z","actual_end":"2026-03-02T01:20:00Z","status":"complete","responses":1,"input_tokens":100,"output_tokens":50,"cache_read_tokens":0,"cache_write_tokens":0,"cost_usd":0.25,"total_tokens":150,"cost_source":"writer","unpriced_models":[],"models":["claude-haiku-4-5-20251001"],"elapsed_minutes":null,"remaining_minutes":null,"remaining":null,"tokens_per_minute":null,"cost_per_hour":null,"projected_tokens":null,"projected_cost_usd":null}
{"start":"2026-03-02T06:20:00Z","end":"2026-03-09T21:30:00Z","actual_end":null,"status":"gap","responses":0,"input_tokens":0,"output_tokens":0,"cache_read_tokens":0,"cache_write_tokens":0,"cost_usd":0,"total_tokens":0,"cost_source":null,"unpriced_models":[],"models":[],"elapsed_minutes":null,"remaining_minutes":null,"remaining":null,"tokens_per_minute":null,"cost_per_hour":null,"projected_tokens":null,"projected_cost_usd":null}
{"start":"2026-03-09T21:00:00Z","end":"2026-03-10T02:00:00Z","actual_end":"2026-03-09T23:00:00Z","status":"active","responses":3,"input_tokens":76,"output_tokens":900,"cache_read_tokens":14000,"cache_write_tokens":10400,"cost_usd":0.055828,"total_tokens":25376,"cost_source":"computed","unpriced_models":[],"models":["claude-sonnet-4-5-20250929","claude-haiku-4-5-20251001"],"elapsed_minutes":180,"remaining_minutes":120,"remaining":"2h 00m","tokens_per_minute":281.96,"cost_per_hour":0.0372,"projected_tokens":59211,"projected_cost_usd":0.13}
"#;

#[test]
fn blocks_of_the_fixture() {
    let run = ci("ci-agg").args(["--blocks", BLOCKS]).run();
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    assert_eq!(run.stdout, BLOCKS_NDJSON);
}

/// ccusage 20.0.24 `blocks --offline --json` with TZ=UTC and
/// CLAUDE_CONFIG_DIR=fixtures/claude-blocks gave these blocks: (startTime,
/// endTime, actualEndTime, isGap, inputTokens, outputTokens,
/// cacheCreationInputTokens, cacheReadInputTokens, costUSD). Its isActive
/// is false for all (its "now" is the clock, after the fixture).
/// One ccusage block: start, end, actual end, gap, the four token counts, cost.
type PeerBlock = (&'static str, &'static str, Option<&'static str>, bool, u64, u64, u64, u64, f64);

const CCUSAGE_BLOCKS: [PeerBlock; 6] = [
    (
        "2026-03-01T08:00:00.000Z",
        "2026-03-01T13:00:00.000Z",
        Some("2026-03-01T12:59:00.000Z"),
        false,
        55,
        430,
        7300,
        7000,
        0.03021,
    ),
    (
        "2026-03-01T13:00:00.000Z",
        "2026-03-01T18:00:00.000Z",
        Some("2026-03-01T13:05:30.500Z"),
        false,
        3,
        400,
        100,
        8000,
        0.008784,
    ),
    ("2026-03-01T18:05:30.500Z", "2026-03-02T01:20:00.000Z", None, true, 0, 0, 0, 0, 0.0),
    (
        "2026-03-02T01:00:00.000Z",
        "2026-03-02T06:00:00.000Z",
        Some("2026-03-02T01:20:00.000Z"),
        false,
        100,
        50,
        0,
        0,
        0.25,
    ),
    ("2026-03-02T06:20:00.000Z", "2026-03-09T21:30:00.000Z", None, true, 0, 0, 0, 0, 0.0),
    (
        "2026-03-09T21:00:00.000Z",
        "2026-03-10T02:00:00.000Z",
        Some("2026-03-09T23:00:00.000Z"),
        false,
        76,
        900,
        10400,
        14000,
        0.05582800000000001,
    ),
];

/// `ours` has ccusage's start, end, actual end, gap flag and token counts,
/// and its cost within 0.5%.
fn assert_like_ccusage(o: &Value, peer: PeerBlock) {
    let (start, end, actual, gap, input, output, write, read, cost) = peer;
    let instant = |s: &str| s.parse::<jiff::Timestamp>().unwrap();
    assert_eq!(instant(o["start"].as_str().unwrap()), instant(start), "{o}");
    assert_eq!(instant(o["end"].as_str().unwrap()), instant(end), "{o}");
    assert_eq!(o["actual_end"].as_str().map(instant), actual.map(instant), "{o}");
    assert_eq!(o["status"] == "gap", gap, "{o}");
    let tokens =
        ["input_tokens", "output_tokens", "cache_write_tokens", "cache_read_tokens"].map(|k| o[k].as_u64().unwrap());
    assert_eq!(tokens, [input, output, write, read], "{o}");
    let ours = o["cost_usd"].as_f64().unwrap();
    assert!((ours - cost).abs() <= 0.005 * cost.abs(), "cost {ours} vs ccusage {cost}");
}

#[test]
fn blocks_equal_ccusage_blocks() {
    let ours = ci("ci-agg").args(["--blocks", BLOCKS]).run().json();
    assert_eq!(ours.len(), CCUSAGE_BLOCKS.len());
    for (o, peer) in ours.iter().zip(CCUSAGE_BLOCKS) {
        assert_like_ccusage(o, peer);
    }
}

/// ccusage 20.0.24 `blocks --offline --json`, TZ=UTC,
/// CLAUDE_CONFIG_DIR=fixtures/claude-transcripts: its blocks from the third
/// on (the first two in the test below).
const CCUSAGE_TRANSCRIPT_BLOCKS: [PeerBlock; 11] = [
    (
        "2025-09-03T00:00:00.000Z",
        "2025-09-03T05:00:00.000Z",
        Some("2025-09-03T01:02:03.665Z"),
        false,
        911,
        52886,
        150674,
        3751073,
        2.486372399999999,
    ),
    ("2025-09-03T06:02:03.665Z", "2025-09-07T09:52:09.443Z", None, true, 0, 0, 0, 0, 0.0),
    (
        "2025-09-07T09:00:00.000Z",
        "2025-09-07T14:00:00.000Z",
        Some("2025-09-07T09:54:26.499Z"),
        false,
        129,
        3629,
        47747,
        324259,
        0.33115094999999994,
    ),
    ("2025-09-07T14:54:26.499Z", "2026-01-09T10:00:00.000Z", None, true, 0, 0, 0, 0, 0.0),
    (
        "2026-01-09T10:00:00.000Z",
        "2026-01-09T15:00:00.000Z",
        Some("2026-01-09T12:30:00.000Z"),
        false,
        300,
        125,
        75,
        30,
        0.46,
    ),
    ("2026-01-09T17:30:00.000Z", "2026-01-10T09:15:00.000Z", None, true, 0, 0, 0, 0, 0.0),
    (
        "2026-01-10T09:00:00.000Z",
        "2026-01-10T14:00:00.000Z",
        Some("2026-01-10T09:15:00.000Z"),
        false,
        300,
        125,
        0,
        40,
        0.56,
    ),
    ("2026-01-10T14:15:00.000Z", "2026-02-03T08:00:00.000Z", None, true, 0, 0, 0, 0, 0.0),
    (
        "2026-02-03T08:00:00.000Z",
        "2026-02-03T13:00:00.000Z",
        Some("2026-02-03T11:45:00.000Z"),
        false,
        130,
        60,
        15,
        40,
        0.07,
    ),
    ("2026-02-03T16:45:00.000Z", "2026-06-05T04:56:35.619Z", None, true, 0, 0, 0, 0, 0.0),
    (
        "2026-06-05T04:00:00.000Z",
        "2026-06-05T09:00:00.000Z",
        Some("2026-06-05T04:56:35.619Z"),
        false,
        6,
        16,
        1045,
        3057,
        0.012408500000000001,
    ),
];

#[test]
fn blocks_of_the_copied_transcripts_equal_ccusage_but_where_it_skips_lines() {
    let ours = ci("ci-agg").args(["--blocks", "fixtures/claude-transcripts"]).run().json();
    assert_eq!(ours.len(), 13);
    for (o, peer) in ours[2..].iter().zip(CCUSAGE_TRANSCRIPT_BLOCKS) {
        assert_like_ccusage(o, peer);
    }
    // ccusage's first block: 10:00-15:00, last response 10:04, 883 / 328 tokens
    // of claude-sonnet-4, then a gap from 15:04. It never reads the nine spaced
    // daaain lines (claude-3-sonnet-20240229, 558 / 830 tokens, the last at
    // 12:00:30; fixtures/README.md): ours has them.
    assert_eq!(
        (&ours[0]["start"], &ours[0]["actual_end"], &ours[0]["input_tokens"], &ours[0]["output_tokens"]),
        (&json!("2025-06-14T10:00:00Z"), &json!("2025-06-14T12:00:30Z"), &json!(883 + 558), &json!(328 + 830))
    );
    assert_eq!((&ours[1]["status"], &ours[1]["start"]), (&json!("gap"), &json!("2025-06-14T17:00:30Z")));
}

#[test]
fn blocks_table_with_a_token_limit() {
    // max: the largest finished block (14785 tokens); the active one used 25376 (171.63%).
    let run = ci("ci-agg").args(["--blocks", "--format", "table", "--token-limit", "max", BLOCKS]).run();
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    assert_eq!(
        run.stdout,
        r#"start             status    models                 responses  total_tokens  cost_usd  remaining  limit_used_percent
2026-03-01 08:00  complete  sonnet-4.5, haiku-4.5          3        14,785     $0.03  null                      100
2026-03-01 13:00  complete  sonnet-4.5                     1         8,503     $0.01  null                    57.51
2026-03-01 18:05  gap       []                             0             0     $0.00  null                     null
2026-03-02 01:00  complete  haiku-4.5                      1           150     $0.25  null                     1.01
2026-03-02 06:20  gap       []                             0             0     $0.00  null                     null
2026-03-09 21:00  active    sonnet-4.5, haiku-4.5          3        25,376     $0.06  2h 00m                 171.63
"#
    );
}

#[test]
fn blocks_read_the_time_window_and_piped_records() {
    let active = BLOCKS_NDJSON.lines().last().unwrap();
    let run = ci("ci-agg").args(["--blocks", "--since", "2026-03-09", BLOCKS]).run();
    assert_eq!((run.code, run.stdout.as_str()), (0, format!("{active}\n").as_str()));
    let sessions = ci("ci-find").args(["--root", BLOCKS]).run().stdout;
    let piped = ci("ci-agg").arg("--blocks").stdin(sessions).run();
    assert_eq!((piped.code, piped.stdout.as_str()), (0, BLOCKS_NDJSON));
    // No PATH, stdin not a pipe: the Claude Code roots (CLAUDE_CONFIG_DIR).
    let mut cmd = ci_command("ci-agg");
    cmd.arg("--blocks").env("CLAUDE_CONFIG_DIR", root().join(BLOCKS)).stdin(std::process::Stdio::null());
    let root = run_std(cmd);
    assert_eq!((root.code, root.stdout.as_str()), (0, BLOCKS_NDJSON));
}

#[test]
fn blocks_refuse_a_key_and_a_limit_needs_blocks() {
    let run = ci("ci-agg").args(["--blocks", "--by", "day", BLOCKS]).run();
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("'--blocks' cannot be used with '--by"), "{}", run.stderr);
    let run = ci("ci-agg").args(["--blocks", "--token-limit", "lots", BLOCKS]).run();
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("expected a number of tokens or max, not \"lots\""), "{}", run.stderr);
    let run = ci("ci-agg").args(["--tokens", "--token-limit", "5", BLOCKS]).run();
    assert_eq!((run.code, run.stderr.as_str()), (2, "ci-agg: --token-limit is the limit of --blocks: add --blocks\n"));
}

const HOOK: &str = r#"{"session_id":"b10c4000-0000-4000-8000-000000000001","transcript_path":"fixtures/claude-blocks/projects/-src-blocks-demo/b10c4000-0000-4000-8000-000000000001.jsonl","cwd":"/src/blocks-demo","model":{"id":"claude-sonnet-4-5-20250929","display_name":"Sonnet 4.5"}}"#;

#[test]
fn statusline_of_a_session() {
    // Session: every block's cost, 0.03021 + 0.008784 + 0.25 + 0.055828 = 0.344822;
    // today (2026-03-09) and the active block: 0.055828; 02:00 - 23:30 = 2h 30m left.
    let run = ci("ci-agg").args(["--statusline", BLOCKS]).env("CI_NOW", "2026-03-09T23:30:00Z").stdin(HOOK).run();
    assert_eq!(
        (run.code, run.stdout.as_str(), run.stderr.as_str()),
        (0, "Sonnet 4.5 | session $0.34 | today $0.06 | block $0.06 (2h 30m left)\n", "")
    );
    // The README's status line is this one.
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    assert!(
        readme.contains(&format!("plain-text line:\n\n```\n{}```", run.stdout)),
        "README.md should show {}",
        run.stdout
    );
    // The transcript named on stdin is read though no PATH or root holds it;
    // no display name: the model id. After the block's end: none active.
    let hook = HOOK.replace(r#","display_name":"Sonnet 4.5""#, "");
    let run = ci("ci-agg").arg("--statusline").env("CI_NOW", "2026-03-10T02:00:00Z").stdin(hook).run();
    assert_eq!(
        (run.code, run.stdout.as_str()),
        (0, "claude-sonnet-4-5-20250929 | session $0.34 | today $0.00 | no active block\n")
    );
    assert_eq!(
        run.stderr,
        "ci-agg: found no Claude Code root: none of ~/.claude/projects, ~/.config/claude/projects exists (name a PATH, or set CLAUDE_CONFIG_DIR)\n"
    );
}

#[test]
fn statusline_without_a_session_still_prints_and_exits_0() {
    let cases = [
        ("", "ci-agg: --statusline: no statusLine JSON on stdin: costs of no session\n"),
        ("{\"session_id\":", "ci-agg: --statusline: stdin is not Claude Code's statusLine JSON: EOF while parsing a value at line 1 column 14\n"),
        ("[1]", "ci-agg: --statusline: stdin is not a JSON object (Claude Code's statusLine JSON)\n"),
    ];
    for (stdin, err) in cases {
        let run = ci("ci-agg").args(["--statusline", BLOCKS]).stdin(stdin).run();
        assert_eq!(
            (run.code, run.stdout.as_str(), run.stderr.as_str()),
            (0, "- | session - | today $0.00 | block $0.06 (2h 00m left)\n", err),
            "stdin {stdin:?}"
        );
    }
    // A missing root is said; the session's own transcript is still read.
    let run = ci("ci-agg").args(["--statusline", "fixtures/no-such-root"]).stdin(HOOK).run();
    assert_eq!(
        (run.code, run.stdout.as_str()),
        (0, "Sonnet 4.5 | session $0.34 | today $0.00 | block $0.06 (2h 00m left)\n")
    );
    assert!(run.stderr.contains("fixtures/no-such-root"), "{}", run.stderr);
}

#[test]
fn weeks_from_a_chosen_day() {
    // Responses on Sun 2026-03-01, Mon 03-02 and Mon 03-09 (fixtures/README.md).
    let csv = |day: &str| {
        let run = ci("ci-agg")
            .args([
                "--tokens",
                "--by",
                "week",
                "--week-start",
                day,
                "--format",
                "csv",
                "--columns",
                "week,model,responses",
                BLOCKS,
            ])
            .run();
        assert_eq!(run.code, 0, "{}", run.stderr);
        run.stdout
    };
    assert_eq!(
        csv("monday"),
        "week,model,responses\n2026-02-23,claude-sonnet-4-5-20250929,3\n2026-02-23,claude-haiku-4-5-20251001,1\n\
         2026-03-02,claude-haiku-4-5-20251001,1\n2026-03-09,claude-sonnet-4-5-20250929,2\n2026-03-09,claude-haiku-4-5-20251001,1\n"
    );
    assert_eq!(
        csv("Sun"),
        "week,model,responses\n2026-03-01,claude-sonnet-4-5-20250929,3\n2026-03-01,claude-haiku-4-5-20251001,2\n\
         2026-03-08,claude-sonnet-4-5-20250929,2\n2026-03-08,claude-haiku-4-5-20251001,1\n"
    );
    // Partial state names the weeks' first day (by ["week:sunday"]): a merge gives the same weeks.
    let partial = ci("ci-agg").args(["--partial", "--tokens", "--by", "week", "--week-start", "sun", BLOCKS]).run();
    assert!(partial.stdout.contains(r#""by":["week:sunday"]"#), "{}", partial.stdout);
    let merged = ci("ci-agg")
        .args(["--merge", "--format", "csv", "--columns", "week,model,responses"])
        .stdin(partial.stdout)
        .run();
    assert_eq!(merged.stdout, csv("sunday"));
    // Without --week-start: ISO weeks, as before.
    let iso =
        ci("ci-agg").args(["--tokens", "--by", "week", "--format", "csv", "--columns", "week,responses", BLOCKS]).run();
    assert!(iso.stdout.contains("2026-W09,3\n"), "{}", iso.stdout);
    let run = ci("ci-agg").args(["--tokens", "--week-start", "monday", BLOCKS]).run();
    assert_eq!(
        (run.code, run.stderr.as_str()),
        (2, "ci-agg: --week-start sets the first day of --by week buckets: add --by week\n")
    );
    let run = ci("ci-agg").args(["--by", "week", "--week-start", "someday", BLOCKS]).run();
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("expected a day of the week (monday … sunday), not \"someday\""), "{}", run.stderr);
}

#[test]
fn readme_shows_the_blocks_table_the_tool_prints() {
    let cmd = ["--blocks", "--format", "table", "--columns", "start,status,total_tokens,cost_usd,remaining", BLOCKS];
    let run = ci("ci-agg").args(cmd).run();
    let shown = format!("$ CI_NOW=2026-03-10T00:00:00Z ci-agg {}\n{}```", cmd.join(" "), run.stdout);
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    assert!(readme.contains(&shown), "README.md should show:\n{shown}");
}
