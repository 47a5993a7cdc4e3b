//! Reports for people (issue 15, item 5): `--sort KEY|count|COLUMN`,
//! `--columns`, narrow default tables for `--sessions` and `--tokens`,
//! `ci-find --format table|tsv|csv`, and the total row of `--tokens` and
//! sums.

use std::path::Path;

use crate::util::{ci, Run};

const CLEAN: &str = "fixtures/demo-clean";

fn agg(args: &[&str]) -> Run {
    ci("ci-agg").args(args).arg(CLEAN).run()
}

fn find(args: &[&str]) -> Run {
    ci("ci-find").args(["--root", CLEAN]).args(args).run()
}

/// A usage error: nothing on stdout, this one line on stderr, exit 2.
fn assert_usage_error(run: &Run, stderr: &str) {
    assert_eq!((run.stdout.as_str(), run.stderr.as_str(), run.code), ("", stderr, 2), "{run:?}");
}

fn assert_printed(run: &Run, stdout: &str) {
    assert_eq!((run.stderr.as_str(), run.code), ("", 0), "{run:?}");
    assert_eq!(run.stdout, stdout);
}

// ------------------------------------------------------------------ ci-agg

/// `--sessions --format table` was 55 columns and over 1,000 characters
/// wide; by default it now shows who, where, when, how long, how much.
#[test]
fn a_sessions_table_is_narrow_by_default() {
    let run = agg(&["--sessions", "--format", "table"]);
    assert_printed(
        &run,
        "\
session                                                workspace           started           duration_ms  sum(events)  sum(tool_calls)  tool_errors  cost_usd
abcdef12-0000-4000-8000-000000000002                   pipeline            2026-03-06 02:00       2m 58s            4                0            0      null
abcdef12-0000-4000-8000-000000000001                   pipeline            2026-03-06 02:00       3m 10s            4                0            0      null
b2d4f6a8-1c3e-4a5b-8c7d-9e0f1a2b3c4d                   -home-user-webapp   2026-03-03 14:00        20.0s           10                2            0     $0.01
0000000000000000-5f3c9a1e7b2d4c60_foundation-explorer  my-api              2026-03-02 09:15        48.3s           11                1            0     $0.01
a7c3e9d1-4b2f-4e8a-9d61-0c5b7e2f3a10                   my-api              2026-03-02 09:15       1m 28s           29                5            2     $0.05
c0ffee00-d1a2-4b3c-9d4e-5f6a7b8c9d0e                   -C-Users-dev-tools  2026-03-01 21:25       6m 06s            7                1            0     $0.00
",
    );
    // NDJSON keeps every field.
    let json = agg(&["--sessions"]);
    assert_eq!(json.json()[0].as_object().unwrap().len(), 26, "{}", json.stdout);
}

#[test]
fn columns_choose_and_order_the_columns_of_a_table() {
    // An object stands for its columns; sum(NAME) adds up the numbers under NAME.
    let run = agg(&["--sessions", "--format", "tsv", "--columns", "session,tokens,sum(tool_calls)", "--top", "3"]);
    assert_printed(
        &run,
        "\
session\ttokens.input\ttokens.output\ttokens.cache_read\ttokens.cache_write\tsum(tool_calls)
abcdef12-0000-4000-8000-000000000002\t0\t0\t0\t0\t0
abcdef12-0000-4000-8000-000000000001\t0\t0\t0\t0\t0
b2d4f6a8-1c3e-4a5b-8c7d-9e0f1a2b3c4d\t9120\t388\t4096\t0\t2
",
    );
    // A name under an object (events.tool:pre) is a column too.
    let run = agg(&["--sessions", "--format", "csv", "--columns", "events.tool:pre,session", "--top", "3"]);
    assert_printed(
        &run,
        "\
events.tool:pre,session
,abcdef12-0000-4000-8000-000000000002
,abcdef12-0000-4000-8000-000000000001
2,b2d4f6a8-1c3e-4a5b-8c7d-9e0f1a2b3c4d
",
    );
    let run = agg(&["--tools", "--format", "table", "--columns", "tool,p95_ms,calls"]);
    assert_printed(
        &run,
        "\
tool       p95_ms  calls
bash       5m 06s      4
read_file    2.3s      2
delegate    49.5s      1
edit_file    45ms      1
grep        177ms      1
",
    );
}

#[test]
fn an_unknown_column_is_an_error_naming_the_nearest() {
    assert_usage_error(
        &agg(&["--sessions", "--format", "table", "--columns", "session,duraton_ms"]),
        "ci-agg: --columns: no column \"duraton_ms\"; did you mean \"duration_ms\"?\n",
    );
    assert_usage_error(
        &agg(&["--by", "tool", "--format", "csv", "--columns", "zzzzzz"]),
        "ci-agg: --columns: no column \"zzzzzz\" (the columns: tool, count)\n",
    );
    // NDJSON names the columns it has as tables do.
    assert_usage_error(
        &agg(&["--by", "tool", "--columns", "tol"]),
        "ci-agg: --columns: no column \"tol\"; did you mean \"tool\"?\n",
    );
}

#[test]
fn sort_takes_count_key_or_a_column() {
    let keys = |run: &Run, key: &str| -> Vec<String> {
        assert_eq!((run.stderr.as_str(), run.code), ("", 0), "{run:?}");
        run.json().iter().map(|r| r[key].to_string()).collect()
    };
    // count (the default for non-time keys) and key.
    let by_count = agg(&["--by", "tool", "--sort", "count"]);
    assert_eq!(
        keys(&by_count, "tool"),
        ["null", "\"bash\"", "\"read_file\"", "\"delegate\"", "\"edit_file\"", "\"grep\""]
    );
    assert_eq!(by_count.stdout, agg(&["--by", "tool"]).stdout);
    let by_key = agg(&["--by", "tool", "--sort", "key"]);
    assert_eq!(
        keys(&by_key, "tool"),
        ["null", "\"bash\"", "\"delegate\"", "\"edit_file\"", "\"grep\"", "\"read_file\""]
    );
    // A metric: numbers largest first, null last.
    let by_cost = agg(&["--by", "model", "--sum", "cost_usd", "--sort", "cost_usd.sum"]);
    assert_eq!(
        keys(&by_cost, "model"),
        ["\"claude-sonnet-4-5\"", "\"gpt-5.1\"", "\"claude-haiku-4-5\"", "\"gpt-5-mini\"", "null"]
    );
    // An object with one column stands for it (cost_usd is {"sum": …}).
    assert_eq!(agg(&["--by", "model", "--sum", "cost_usd", "--sort", "cost_usd"]).stdout, by_cost.stdout);
    // A key column: text ascending.
    let by_day = agg(&["--tokens", "--by", "day", "--sort", "model"]);
    assert_eq!(
        keys(&by_day, "model"),
        ["\"claude-haiku-4-5\"", "\"claude-sonnet-4-5\"", "\"gpt-5-mini\"", "\"gpt-5.1\""]
    );
    // --sessions too (else newest first), by a field or a sum.
    let longest = agg(&["--sessions", "--sort", "duration_ms"]);
    assert_eq!(keys(&longest, "duration_ms"), ["366000", "190251", "177801", "88461", "48302", "19980"],);
    let busiest = agg(&["--sessions", "--sort", "sum(events)", "--format", "tsv", "--columns", "sum(events)"]);
    assert_printed(&busiest, "sum(events)\n29\n11\n10\n7\n4\n4\n");
    // --top keeps the first records of that order.
    let table = agg(&["--tools", "--sort", "p95_ms", "--format", "table", "--top", "2"]);
    assert_printed(
        &table,
        "\
tool      calls  ok  errors  unfinished  success_rate  p50_ms  p95_ms  max_ms
bash          4   3       1           0          0.75   13.0s  5m 06s  5m 57s
delegate      1   1       0           0             1   49.5s   49.5s   49.5s
",
    );
}

#[test]
fn a_bad_sort_column_is_an_error_naming_the_nearest() {
    assert_usage_error(
        &agg(&["--sessions", "--sort", "durations"]),
        "ci-agg: --sort: no column \"durations\"; did you mean \"duration_ms\"?\n",
    );
    assert_usage_error(
        &agg(&["--sessions", "--sort", "tokens"]),
        "ci-agg: --sort: \"tokens\" is 4 columns; name one: tokens.input, tokens.output, tokens.cache_read, tokens.cache_write\n",
    );
    let run = agg(&["--by", "tool", "--sort", ""]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("expected auto, count, key or a column name"), "{}", run.stderr);
}

#[test]
fn token_and_sum_tables_end_with_a_total_row() {
    let run = agg(&["--tokens", "--format", "table"]);
    assert_printed(
        &run,
        "\
model       responses  input_tokens  output_tokens  cache_read_tokens  cache_write_tokens  cost_usd
sonnet-4.5          3        59,150          2,270             46,500               5,148     $0.05
haiku-4.5           2        10,422            336              9,216                   0     $0.01
gpt-5-mini          1         2,100            150                  0                   0     $0.00
gpt-5.1             1         9,120            388              4,096                   0     $0.01
total               7        80,792          3,144             59,812               5,148     $0.07
",
    );
    let run = agg(&["--by", "workspace", "--sum", "data.duration_ms", "--format", "table", "--top", "1"]);
    // The total sums the rows shown, and says so.
    assert_printed(
        &run,
        "workspace       count  data.duration_ms.sum\nmy-api             40                1m 05s\ntotal (1 of 4)     40                1m 05s\n",
    );
    // A total needs its label: without the key column there is none.
    let run = agg(&["--by", "workspace", "--sum", "data.duration_ms", "--format", "table", "--columns", "count"]);
    assert_printed(&run, "count\n   40\n   10\n    8\n    7\n");
}

// ------------------------------------------------------------------ ci-find

#[test]
fn find_prints_a_table_with_a_default_column_set() {
    assert_printed(
        &find(&["--format", "table"]),
        "\
session                                                workspace           status     started_at         bytes
abcdef12-0000-4000-8000-000000000002                   pipeline            completed  2026-03-06 02:00   1,214
abcdef12-0000-4000-8000-000000000001                   pipeline            completed  2026-03-06 02:00   1,014
b2d4f6a8-1c3e-4a5b-8c7d-9e0f1a2b3c4d                   -home-user-webapp   running    2026-03-03 14:00   3,256
0000000000000000-5f3c9a1e7b2d4c60_foundation-explorer  my-api              completed  2026-03-02 09:15   4,110
a7c3e9d1-4b2f-4e8a-9d61-0c5b7e2f3a10                   my-api              completed  2026-03-02 09:15  17,214
c0ffee00-d1a2-4b3c-9d4e-5f6a7b8c9d0e                   -C-Users-dev-tools  completed  2026-03-01 21:25   2,354
",
    );
    assert_printed(
        &find(&["--format", "csv", "--columns", "project,agent,session", "--children"]),
        "\
project,agent,session
-srv-build-data pipeline,foundation:bug-hunter,abcdef12-0000-4000-8000-000000000002
-home-user-my-api,foundation:explorer,0000000000000000-5f3c9a1e7b2d4c60_foundation-explorer
",
    );
    assert_usage_error(
        &find(&["--format", "tsv", "--columns", "sesion"]),
        "ci-find: --columns: no column \"sesion\"; did you mean \"session\"?\n",
    );
    // Nothing found: the header alone, exit 1.
    let none = find(&["--format", "table", "--workspace", "nowhere"]);
    assert_eq!((none.stdout.as_str(), none.code), ("session  workspace  status  started_at  bytes\n", 1), "{none:?}");
}

/// `root/-p/sessions/<id>/context-intelligence/` with one event and this
/// metadata workspace.
fn capture(root: &Path, id: &str, workspace: &str) {
    let meta = serde_json::json!({"session_id": id, "workspace": workspace, "started_at": "2026-03-01T00:00:00Z"});
    let capture = crate::kit::Tree::at(root).amplifier("-p", id).metadata(meta.to_string());
    capture.line("{\"event\":\"session:start\",\"data\":{}}").write();
}

#[test]
fn find_tsv_escapes_and_csv_quotes() {
    let dir = tempfile::tempdir().unwrap();
    capture(dir.path(), "s1", "tab\there, \"quoted\"\nnext\u{0}nul\u{1b}[31mred\\back");
    let run = |format: &str| {
        ci("ci-find").arg("--root").arg(dir.path()).args(["--format", format, "--columns", "session,workspace"]).run()
    };
    assert_printed(
        &run("tsv"),
        "session\tworkspace\ns1\ttab\\there, \"quoted\"\\nnext\\u{0}nul\\u{1b}[31mred\\\\back\n",
    );
    assert_printed(
        &run("csv"),
        "session,workspace\ns1,\"tab\there, \"\"quoted\"\"\nnext\u{0}nul\u{1b}[31mred\\back\"\n",
    );
    assert_printed(
        &run("table"),
        "session  workspace\ns1       tab\\there, \"quoted\"\\nnext\\u{0}nul\\u{1b}[31mred\\back\n",
    );
}

#[test]
fn find_tables_are_not_for_paths_trees_or_follow() {
    for flag in ["--paths", "-0", "--tree"] {
        let run = find(&[flag, "--format", "table"]);
        assert_eq!((run.stdout.as_str(), run.code), ("", 2), "{flag}: {run:?}");
        assert!(run.stderr.starts_with("error: the argument"), "{flag}: {}", run.stderr);
    }
    assert_usage_error(
        &find(&["--follow", "--format", "csv"]),
        "ci-find: --follow prints NDJSON records (or paths) as sessions appear: not with --format table, markdown, tsv or csv\n",
    );
    // NDJSON stays the default, --paths too.
    assert_eq!(find(&[]).stdout, find(&["--format", "json"]).stdout);
    assert_eq!(find(&["--paths"]).lines().len(), 6);
}
