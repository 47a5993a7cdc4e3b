//! Reports people read (issue 32): a table when stdout is a terminal (a
//! real pseudo-terminal here), tables that fit 80, 120 and 200 columns,
//! numbers, durations, model names and the zone shown for people,
//! `--format markdown`, `--per-period`, `--total`, `--last`, `--reverse`,
//! `--top` on time buckets, and the header of an empty result.

use std::io::Read;
use std::os::fd::{FromRawFd, OwnedFd};
use std::process::Stdio;

use serde_json::Value;

use crate::util::{ci, ci_command, root, Run};

const CLEAN: &str = "fixtures/demo-clean";
const TRANSCRIPTS: &str = "fixtures/claude-transcripts/projects";

fn agg(args: &[&str]) -> Run {
    ci("ci-agg").args(args).run()
}

fn at_width(width: usize, bin: &str, args: &[&str]) -> Run {
    ci(bin).env("CI_COLUMNS", width.to_string()).args(args).run()
}

fn width(line: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(line)
}

/// Runs `bin ARGS` with stdout on a pseudo-terminal `cols` wide (stderr a
/// pipe, stdin /dev/null); returns stdout (the terminal's CR LF as LF) and
/// the exit code.
pub fn on_terminal(bin: &str, args: &[&str], cols: u16) -> (String, i32) {
    let (mut master, mut slave) = (0, 0);
    let size = libc::winsize { ws_row: 50, ws_col: cols, ws_xpixel: 0, ws_ypixel: 0 };
    // SAFETY: openpty writes two descriptors into the integers given; the
    // name and termios pointers may be null.
    let rc = unsafe { libc::openpty(&mut master, &mut slave, std::ptr::null_mut(), std::ptr::null(), &size) };
    assert_eq!(rc, 0, "openpty: {}", std::io::Error::last_os_error());
    // SAFETY: both descriptors were just opened and are owned by nobody else.
    let (master, slave) = unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
    let mut cmd = ci_command(bin);
    cmd.args(args).stdin(Stdio::null()).stdout(slave).stderr(Stdio::null());
    let mut child = cmd.spawn().expect("binary runs");
    // The parent's copy of the slave went with `cmd`: once the child exits,
    // reading the master ends (EIO).
    drop(cmd);
    let mut out = Vec::new();
    let _ = std::fs::File::from(master).read_to_end(&mut out);
    let code = child.wait().expect("child waited for").code().unwrap_or(-1);
    (String::from_utf8_lossy(&out).replace("\r\n", "\n"), code)
}

// ------------------------------------------------------------- terminals

/// On a terminal the default is a table as wide as the terminal (read with
/// the terminal's size); into a pipe, NDJSON; `--format` always wins.
#[test]
fn a_terminal_gets_a_table_a_pipe_ndjson() {
    let (table, code) = on_terminal("ci-agg", &["--tools", CLEAN], 60);
    assert_eq!(code, 0);
    let pinned = at_width(60, "ci-agg", &["--tools", "--format", "table", CLEAN]);
    assert_eq!(table, pinned.stdout);
    assert!(table.starts_with("tool       calls  errors  success_rate  p95_ms  max_ms\n"), "{table}");
    assert!(table.lines().all(|l| width(l) <= 60), "{table}");
    let (json, _) = on_terminal("ci-agg", &["--tools", "--format", "json", CLEAN], 60);
    assert_eq!(json, agg(&["--tools", CLEAN]).stdout);
    assert!(agg(&["--tools", CLEAN]).stdout.starts_with("{\"tool\":\"bash\""));

    let (found, code) = on_terminal("ci-find", &["--root", CLEAN], 200);
    assert_eq!(code, 0);
    assert_eq!(found, ci("ci-find").args(["--root", CLEAN, "--format", "table"]).run().stdout);
    // Paths stay paths on a terminal.
    let (paths, _) = on_terminal("ci-find", &["--root", CLEAN, "--paths"], 200);
    assert_eq!(paths, ci("ci-find").args(["--root", CLEAN, "--paths"]).run().stdout);
}

#[test]
fn tables_fit_80_120_and_200_columns() {
    let cases: [&[&str]; 3] = [&["--tokens", "--by", "day", TRANSCRIPTS], &["--sessions", CLEAN], &["--tools", CLEAN]];
    for args in cases {
        for w in [80, 120, 200] {
            let run = at_width(w, "ci-agg", &[&["--format", "table"], args].concat());
            assert_eq!(run.code, 0, "{run:?}");
            assert!(run.lines().len() > 3, "{run:?}");
            for line in run.lines() {
                assert!(width(line) <= w, "{args:?} at {w}: {line:?} is {} wide", width(line));
            }
            // What was left out is said; at 200 nothing is.
            if w == 200 {
                assert!(!run.stderr.contains("left out to fit"), "{args:?}: {run:?}");
            }
        }
    }
    // 80 columns: the cache columns of --tokens go first; the first column
    // never goes, text is abbreviated with an ellipsis.
    let run = at_width(80, "ci-agg", &["--sessions", "--format", "table", CLEAN]);
    assert_eq!(
        run.stdout,
        "\
session       workspace     started           duration_ms  sum(events)  cost_usd
abcdef12-00…  pipeline      2026-03-06 02:00       2m 58s            4      null
abcdef12-00…  pipeline      2026-03-06 02:00       3m 10s            4      null
b2d4f6a8-1c…  -home-user-…  2026-03-03 14:00        20.0s           10     $0.01
00000000000…  my-api        2026-03-02 09:15        48.3s           11     $0.01
a7c3e9d1-4b…  my-api        2026-03-02 09:15       1m 28s           29     $0.05
c0ffee00-d1…  -C-Users-de…  2026-03-01 21:25       6m 06s            7     $0.00
"
    );
    assert_eq!(
        run.stderr,
        "ci-agg: 2 columns left out to fit 80 columns: sum(tool_calls), tool_errors (--columns chooses; CI_COLUMNS or \
         COLUMNS sets the width)\n"
    );
    // CSV and NDJSON are never cut, whatever the width.
    let csv = at_width(20, "ci-agg", &["--sessions", "--format", "csv", CLEAN]);
    assert_eq!(csv.stdout, agg(&["--sessions", "--format", "csv", CLEAN]).stdout);
    assert_eq!(csv.stderr, "");
}

/// The README's text block after `marker`: the arguments of its `$ ci-agg
/// …` line, and what it shows.
pub fn readme_block(marker: &str) -> (Vec<String>, String) {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let after = &readme[readme.find(marker).expect("marker in README")..];
    let block = &after[after.find("```text\n").expect("a text block") + 8..];
    let block = &block[..block.find("```").unwrap()];
    let (command, shown) = block.split_once('\n').unwrap();
    let args = command.strip_prefix("$ ci-agg ").expect("a ci-agg command").split(' ').map(str::to_owned).collect();
    (args, shown.to_owned())
}

/// The README's default table is the one the tool prints on a terminal.
#[test]
fn the_readme_shows_the_default_table() {
    let (args, shown) = readme_block("The default table, on an 80-column terminal:");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (table, code) = on_terminal("ci-agg", &args, 80);
    assert_eq!((table, code), (shown, 0));
}

// ---------------------------------------------------------------- values

#[test]
fn tables_show_numbers_durations_models_and_the_zone_for_people() {
    let run = agg(&["--tokens", "--by", "day", "--format", "table", CLEAN]);
    assert_eq!(
        run.stdout,
        "\
day (UTC)   model       responses  input_tokens  output_tokens  cache_read_tokens  cache_write_tokens  cost_usd
2026-03-01  gpt-5-mini          1         2,100            150                  0                   0     $0.00
2026-03-02  sonnet-4.5          3        59,150          2,270             46,500               5,148     $0.05
2026-03-02  haiku-4.5           2        10,422            336              9,216                   0     $0.01
2026-03-03  gpt-5.1             1         9,120            388              4,096                   0     $0.01
total                           7        80,792          3,144             59,812               5,148     $0.07
"
    );
    // NDJSON and CSV keep the exact values and the full names.
    let csv = agg(&["--tokens", "--by", "day", "--format", "csv", CLEAN]);
    assert!(csv.stdout.contains("\n2026-03-02,UTC,claude-sonnet-4-5,3,59150,2270,46500,5148,0.0523\n"), "{csv:?}");
    // A zone named by --columns stays a column.
    let tz = agg(&["--by", "day", "--format", "table", "--columns", "day,tz,count", CLEAN]);
    assert!(tz.stdout.starts_with("day         tz   count\n"), "{tz:?}");
}

#[test]
fn markdown_tables_for_every_tabular_output() {
    let run = agg(&["--tools", "--format", "markdown", CLEAN]);
    assert_eq!(
        run.stdout,
        "\
| tool      | calls |  ok | errors | unfinished | success_rate | p50_ms | p95_ms | max_ms |
| --------- | ----: | --: | -----: | ---------: | -----------: | -----: | -----: | -----: |
| bash      |     4 |   3 |      1 |          0 |         0.75 |  13.0s | 5m 06s | 5m 57s |
| read_file |     2 |   1 |      1 |          0 |          0.5 |   1.2s |   2.3s |   2.4s |
| delegate  |     1 |   1 |      0 |          0 |            1 |  49.5s |  49.5s |  49.5s |
| edit_file |     1 |   1 |      0 |          0 |            1 |   45ms |   45ms |   45ms |
| grep      |     1 |   1 |      0 |          0 |            1 |  177ms |  177ms |  177ms |
"
    );
    // Markdown is never cut to a width.
    assert_eq!(at_width(40, "ci-agg", &["--tools", "--format", "markdown", CLEAN]).stdout, run.stdout);
    let tokens = agg(&["--tokens", "--format", "markdown", CLEAN]);
    assert!(tokens.stdout.ends_with("| total      |         7 |       80,792 |         3,144 |            59,812 |              5,148 |    $0.07 |\n"), "{tokens:?}");
    let find =
        ci("ci-find").args(["--root", CLEAN, "--format", "markdown", "--columns", "session,bytes", "--children"]).run();
    assert_eq!(
        find.stdout,
        "\
| session                                               | bytes |
| ----------------------------------------------------- | ----: |
| abcdef12-0000-4000-8000-000000000002                  | 1,214 |
| 0000000000000000-5f3c9a1e7b2d4c60_foundation-explorer | 4,110 |
"
    );
}

// ------------------------------------------------------ totals and order

fn ndjson(args: &[&str]) -> Vec<Value> {
    let run = agg(args);
    assert_eq!(run.code, 0, "{run:?}");
    run.json()
}

const FIGURES: [&str; 5] = ["responses", "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens"];

/// `--per-period` is the split records added up per day, models listed.
#[test]
fn per_period_folds_the_models_of_each_day() {
    let split = ndjson(&["--tokens", "--by", "day", TRANSCRIPTS, "fixtures/codex"]);
    let periods = ndjson(&["--tokens", "--by", "day", "--per-period", TRANSCRIPTS, "fixtures/codex"]);
    let days: Vec<&Value> = periods.iter().map(|p| &p["day"]).collect();
    let mut split_days: Vec<&Value> = split.iter().map(|r| &r["day"]).collect();
    split_days.dedup();
    assert_eq!(days, split_days, "each day once, in time order");
    assert!(days.len() < split.len(), "some day has several models");
    for p in &periods {
        let of_day: Vec<&Value> = split.iter().filter(|r| r["day"] == p["day"]).collect();
        let models: Vec<&Value> = of_day.iter().map(|r| &r["model"]).filter(|m| m.is_string()).collect();
        assert_eq!(p["models"].as_array().unwrap().iter().collect::<Vec<_>>(), models, "{p}");
        for f in FIGURES {
            let sum: u64 = of_day.iter().map(|r| r[f].as_u64().unwrap()).sum();
            assert_eq!(p[f].as_u64(), Some(sum), "{f} of {p}");
        }
        let cost: f64 = of_day.iter().filter_map(|r| r["cost_usd"].as_f64()).sum();
        assert!((p["cost_usd"].as_f64().unwrap_or(0.0) - cost).abs() < 1e-9, "{p}");
        assert!(p.get("model").is_none(), "{p}");
    }
    // --merge folds partial states the same way.
    let partial = agg(&["--partial", "--tokens", "--by", "day", CLEAN]).stdout;
    let merged = ci("ci-agg").args(["--merge", "--per-period", "--total"]).stdin(partial).run();
    assert_eq!(merged.stdout, agg(&["--tokens", "--by", "day", "--per-period", "--total", CLEAN]).stdout);
    // Refused before any input is read without --tokens.
    let refused = agg(&["--by", "day", "--per-period", "/nonexistent"]);
    assert_eq!(
        (refused.stdout.as_str(), refused.stderr.as_str(), refused.code),
        ("", "ci-agg: --per-period folds the models of a --tokens report: use it with --tokens\n", 2)
    );
}

#[test]
fn total_records_sum_the_rows_shown() {
    let rows = ndjson(&["--tokens", "--by", "day", "--total", CLEAN]);
    let (total, groups) = rows.split_last().unwrap();
    assert_eq!(total["day"], "total");
    for f in FIGURES {
        assert_eq!(total[f].as_u64(), Some(groups.iter().map(|r| r[f].as_u64().unwrap()).sum::<u64>()), "{f}");
    }
    // Without --total, no total record; CSV and TSV end with the table's row.
    assert_eq!(ndjson(&["--tokens", "--by", "day", CLEAN]), groups);
    let csv = agg(&["--tokens", "--by", "day", "--format", "csv", "--total", "--last", "1", CLEAN]);
    assert_eq!(
        csv.stdout,
        "day,tz,model,responses,input_tokens,output_tokens,cache_read_tokens,cache_write_tokens,cost_usd\n\
         2026-03-03,UTC,gpt-5.1,1,9120,388,4096,0,0.010672\n\
         total (1 of 4),,,1,9120,388,4096,0,0.010672\n"
    );
    let tsv = agg(&["--by", "workspace", "--sum", "data.duration_ms", "--format", "tsv", "--total", CLEAN]);
    assert!(tsv.stdout.ends_with("\ntotal\t65\t82144\n"), "{tsv:?}");
}

#[test]
fn last_top_and_reverse_choose_and_order_time_buckets() {
    let days = |args: &[&str]| -> Vec<String> {
        let mut all = vec!["--by", "day", CLEAN];
        all.extend(args);
        ndjson(&all).iter().map(|r| r["day"].as_str().unwrap_or("null").to_owned()).collect()
    };
    let every = days(&[]);
    assert_eq!(every, ["2026-03-01", "2026-03-02", "2026-03-03", "2026-03-06"]);
    assert_eq!(days(&["--last", "2"]), ["2026-03-03", "2026-03-06"]);
    // --top on time buckets keeps the newest too.
    assert_eq!(days(&["--top", "2"]), ["2026-03-03", "2026-03-06"]);
    assert_eq!(days(&["-r"]), ["2026-03-06", "2026-03-03", "2026-03-02", "2026-03-01"]);
    assert_eq!(days(&["--reverse", "--last", "3"]), ["2026-03-06", "2026-03-03", "2026-03-02"]);
    // --last counts buckets, not rows: two days of models.
    let split = ndjson(&["--tokens", "--by", "day", "--last", "2", CLEAN]);
    let labels: Vec<&str> = split.iter().map(|r| r["day"].as_str().unwrap()).collect();
    assert_eq!(labels, ["2026-03-02", "2026-03-02", "2026-03-03"]);
    // Not a time key: --top keeps the first (largest), --last is refused
    // before anything is read.
    let top = ndjson(&["--by", "workspace", "--top", "1", "--reverse", CLEAN]);
    assert_eq!(top[0]["workspace"], "my-api");
    let refused = agg(&["--by", "workspace", "--last", "1", "/nonexistent"]);
    assert_eq!(
        (refused.stdout.as_str(), refused.stderr.as_str(), refused.code),
        (
            "",
            "ci-agg: --last N keeps the newest N time buckets: it needs a time key (--by hour, day, week or month)\n",
            2
        )
    );
}

// ---------------------------------------------------------------- empty

#[test]
fn an_empty_result_prints_its_header_and_exits_1() {
    let none = |format: &str| {
        let run =
            agg(&["--by", "day", "--sum", "data.duration_ms", "--since", "2030-01-01", "--format", format, CLEAN]);
        assert_eq!(run.code, 1, "{run:?}");
        run.stdout
    };
    assert_eq!(none("csv"), "day,tz,count,data.duration_ms.sum\n");
    assert_eq!(none("tsv"), "day\ttz\tcount\tdata.duration_ms.sum\n");
    assert_eq!(none("table"), "day (UTC)  count  data.duration_ms.sum\n");
    assert_eq!(
        none("markdown"),
        "| day (UTC) | count | data.duration_ms.sum |\n| --------- | ----- | -------------------- |\n"
    );
    assert_eq!(none("json"), "");
    let tokens = agg(&["--tokens", "--per-period", "--by", "week", "--since", "2030-01-01", "--format", "csv", CLEAN]);
    assert_eq!(
        (tokens.stdout.as_str(), tokens.code),
        ("week,tz,models,responses,input_tokens,output_tokens,cache_read_tokens,cache_write_tokens,cost_usd\n", 1)
    );
    let tools = agg(&["--tools", "--since", "2030-01-01", "--format", "csv", CLEAN]);
    assert_eq!(tools.stdout, "tool,calls,ok,errors,unfinished,success_rate,p50_ms,p95_ms,max_ms\n");
    let sessions = ci("ci-find").args(["--root", CLEAN, "--since", "2030-01-01", "--format", "csv"]).run();
    assert_eq!((sessions.stdout.as_str(), sessions.code), ("session,workspace,status,started_at,bytes\n", 1));
}

// --------------------------------------------------------------- writers

/// `--by writer`: the product that wrote each session, for captures read
/// directly and for piped event records alike.
#[test]
fn by_writer_names_the_product() {
    let roots = [TRANSCRIPTS, "fixtures/codex", CLEAN];
    let count =
        |root: &str| -> u64 { ndjson(&["--by", "event", root]).iter().map(|r| r["count"].as_u64().unwrap()).sum() };
    let mut args = vec!["--by", "writer", "--sort", "key"];
    args.extend(roots);
    let got: Vec<(String, u64)> = ndjson(&args)
        .iter()
        .map(|r| (r["writer"].as_str().unwrap().to_owned(), r["count"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        got,
        [
            ("Amplifier".to_owned(), count(CLEAN)),
            ("Claude Code".to_owned(), count(TRANSCRIPTS)),
            ("Codex".to_owned(), count("fixtures/codex"))
        ]
    );
    let events = ci("ci-cat").arg("fixtures/codex").run().stdout;
    let piped = ci("ci-agg").args(["--by", "writer"]).stdin(events).run();
    assert_eq!(piped.json(), [serde_json::json!({"writer": "Codex", "count": count("fixtures/codex")})]);
}

/// A table shows a writer column when its rows mix writers, and only then;
/// NDJSON never gains one.
#[test]
fn a_table_of_mixed_writers_has_a_writer_column() {
    let mixed = agg(&[
        "--tokens",
        "--by",
        "day",
        "--format",
        "table",
        "--columns",
        "day,writer,model,cost_usd",
        CLEAN,
        "fixtures/codex",
    ]);
    assert_eq!(
        mixed.stdout,
        "\
day (UTC)   writer     model          cost_usd
2026-03-01  Amplifier  gpt-5-mini        $0.00
2026-03-02  Amplifier  sonnet-4.5        $0.05
2026-03-02  Amplifier  haiku-4.5         $0.01
2026-03-03  Amplifier  gpt-5.1           $0.01
2026-05-13  Codex      gpt-5.2-codex     $0.00
2026-05-14  Codex      gpt-5.3-codex     $0.01
2026-06-05  Codex      gpt-5.5           $0.02
total                                    $0.10
"
    );
    let single = agg(&["--tokens", "--format", "markdown", "fixtures/codex"]);
    assert!(single.stdout.starts_with("| model "), "{single:?}");
    let json = agg(&["--tokens", "--by", "day", CLEAN, "fixtures/codex"]);
    assert!(json.json().iter().all(|r| r.get("writer").is_none()), "{json:?}");
}
