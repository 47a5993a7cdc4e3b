//! Issue 15, items 2, 4 and 6: one field-path grammar for `--fields`,
//! `--where`, `--by`, metrics and ci-grep's `--field`; projections without
//! provenance; `--head/--tail/--lines` on piped event records; warnings for
//! `--where` tests and `--by` keys that never match.

use crate::util::{ci, Run};

const S1_FILE: &str =
    "fixtures/demo/-home-user-my-api/sessions/a7c3e9d1-4b2f-4e8a-9d61-0c5b7e2f3a10/context-intelligence/events.jsonl";
const S1: &str = "a7c3e9d1-4b2f-4e8a-9d61-0c5b7e2f3a10";

fn ci_key(session: &str, path: &str, line: u64) -> String {
    format!(r#""ci":{{"session":"{session}","path":"{path}","line":{line}}}"#)
}

fn ok(run: &Run) -> &str {
    assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{run:?}");
    &run.stdout
}

// ------------------------------------------------------------ one grammar

/// `--fields 'data.raw.messages[1].role'` printed `"messages[1]":{"role":null}`:
/// the index is now an array position, as jq's `pick` prints it.
#[test]
fn a_fields_index_is_an_array_position() {
    let run = ci("ci-cat").args(["--lines", "5", "--fields", "event,data.raw.messages[1].role", S1_FILE]).run();
    assert_eq!(
        ok(&run),
        format!(
            "{{\"event\":\"llm:request\",\"data\":{{\"raw\":{{\"messages\":[null,{{\"role\":\"user\"}}]}}}},{}}}\n",
            ci_key(S1, S1_FILE, 5)
        )
    );
    // The dotted index is the same path.
    let dotted = ci("ci-cat").args(["--lines", "5", "--fields", "event,data.raw.messages.1.role", S1_FILE]).run();
    assert_eq!(dotted.stdout, run.stdout);
}

const REC: &str = r#"{"event":"e","data":{"m":[{"r":"a","x":1},{"r":"b"}],"odd.key":{"a b":7},"o":{"0":"zero"},"s":"str"},"ci":{"session":"s","path":"p","line":3}}"#;

/// The projection rules, on one piped record (its own `ci` appended whole).
#[test]
fn projections_read_the_same_paths_as_the_record() {
    let cases: &[(&str, &str)] = &[
        ("data.m[1].r,data.m[0].x", r#"{"data":{"m":[{"x":1},{"r":"b"}]}}"#),
        ("data.m[5].r", r#"{"data":{"m":[]}}"#),
        ("data.\"odd.key\".\"a b\"", r#"{"data":{"odd.key":{"a b":7}}}"#),
        (".event,data.o[0]", r#"{"event":"e","data":{"o":{"0":"zero"}}}"#),
        ("data.x.y", r#"{"data":{"x":null}}"#),
        ("data.s.y", r#"{"data":{"s":"str"}}"#),
    ];
    for (fields, want) in cases {
        let run = ci("ci-cat").args(["--fields", fields]).stdin(REC).run();
        let want = format!("{},{}}}\n", &want[..want.len() - 1], r#""ci":{"session":"s","path":"p","line":3}"#);
        assert_eq!(ok(&run), want, "--fields {fields}");
    }
}

/// `[N]` and quoted keys work in every path flag, and the same bad path gets
/// the same message from each.
#[test]
fn every_path_flag_takes_the_same_paths() {
    let agg =
        ci("ci-agg").args(["--by", "data.raw.messages[0].role", "--sum", "data.\"message_count\"", S1_FILE]).run();
    assert_eq!(
        ok(&agg),
        "{\"data.raw.messages[0].role\":null,\"count\":28,\"data.\\\"message_count\\\"\":{\"sum\":15}}\n\
         {\"data.raw.messages[0].role\":\"user\",\"count\":1,\"data.\\\"message_count\\\"\":{\"sum\":2}}\n"
    );
    let filter = ci("ci-filter").args(["--where", "data.raw.messages[1].role == 'user'", S1_FILE]).run();
    assert_eq!(ok(&filter).lines().count(), 1);
    let grep = ci("ci-grep").args(["-c", "--field", "data.raw.messages[0]", "-F", "kernel", S1_FILE]).run();
    let dotted = ci("ci-grep").args(["-c", "--field", "data.raw.messages.0", "-F", "kernel", S1_FILE]).run();
    assert_eq!(ok(&grep), dotted.stdout);
    assert!(grep.stdout.ends_with(",\"count\":36}\n"), "{grep:?}");
    let msg = "invalid field path \"data..x\": expected a field name after '.' at column 6";
    for (tool, args) in [
        ("ci-cat", &["--fields", "data..x"][..]),
        ("ci-agg", &["--by", "data..x"][..]),
        ("ci-agg", &["--sum", "data..x"][..]),
        ("ci-grep", &["--field", "data..x", "x"][..]),
    ] {
        let run = ci(tool).args(args).arg(S1_FILE).run();
        assert_eq!((run.code, run.stdout.as_str(), run.stderr.as_str()), (2, "", format!("{tool}: {msg}\n").as_str()));
    }
    let run = ci("ci-filter").args(["--where", "data..x exists", S1_FILE]).run();
    assert_eq!(
        (run.code, run.stderr.as_str()),
        (2, "ci-filter: --where: expected a field name after '.' at column 6\n  data..x exists\n       ^\n")
    );
}

// ---------------------------------------------------------- --no-provenance

/// `ci-cat F --fields event,timestamp` appended the ~200-byte `ci` object to
/// every line; `--no-provenance` leaves it out, from capture records, piped
/// records (which carry their own) and derived hook records alike.
#[test]
fn no_provenance_leaves_ci_out() {
    let run = ci("ci-cat").args(["--head", "2", "--fields", "event,timestamp", "--no-provenance", S1_FILE]).run();
    assert_eq!(
        ok(&run),
        "{\"event\":\"session:start\",\"timestamp\":\"2026-03-02T09:15:00+00:00\"}\n\
         {\"event\":\"prompt:submit\",\"timestamp\":\"2026-03-02T09:15:01.250+00:00\"}\n"
    );
    let line1 = std::fs::read_to_string(crate::util::root().join(S1_FILE)).unwrap().lines().next().unwrap().to_owned();
    let direct = ci("ci-cat").args(["--lines", "1", "--no-provenance", S1_FILE]).run();
    assert_eq!(ok(&direct), format!("{line1}\n"));
    let with_ci = ci("ci-cat").args(["--lines", "1", S1_FILE]).run();
    let piped = ci("ci-cat").arg("--no-provenance").stdin(with_ci.stdout.clone()).run();
    assert_eq!(ok(&piped), format!("{line1}\n"));
    let filtered = ci("ci-filter").args(["--event", "session:start", "--no-provenance"]).stdin(with_ci.stdout).run();
    assert_eq!(ok(&filtered), format!("{line1}\n"));
    let grep = ci("ci-grep").args(["-m", "1", "--no-provenance", "-F", "release", S1_FILE]).run();
    assert_eq!(
        ok(&grep),
        "{\"session\":\"a7c3e9d1-4b2f-4e8a-9d61-0c5b7e2f3a10\",\"line\":2,\"event\":\"prompt:submit\",\
         \"timestamp\":\"2026-03-02T09:15:01.250+00:00\",\"workspace\":\"my-api\",\"path\":\"data.prompt\",\"key\":false,\"offset\":6,\
         \"char_offset\":6,\"match\":\"release\",\"snippet\":\"Write release notes for the café module, with the 日本語…\"}\n"
    );
    let hooks = ci("ci-cat").args(["--no-provenance", "fixtures/sessiondata-timed"]).run();
    let recs = hooks.json();
    assert!(!recs.is_empty() && recs.iter().all(|r| r.get("ci").is_none() && r["hook"].is_string()), "{hooks:?}");
    for tool in ["ci-cat", "ci-filter", "ci-grep"] {
        let help = ci(tool).arg("--help").run();
        let words = help.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(words.contains("--no-provenance Leave out the provenance key `ci`"), "{tool}: {words}");
        assert!(words.contains("cannot go back to the line"), "{tool}");
    }
}

// ------------------------------------------- --head/--tail/--lines on a stream

const CLEAN: &str = "fixtures/demo-clean";

/// `ci-cat F | ci-cat --tail 2` printed nothing and `ci-filter --event
/// tool:pre F | ci-cat --head 5` printed every record: piped event records
/// now get --head/--tail per session and --lines on their capture line,
/// exactly as the records read from the captures, on one thread or several.
#[test]
fn head_tail_and_lines_apply_per_session_to_piped_records() {
    let stream = ok(&ci("ci-cat").arg(CLEAN).run()).to_owned();
    for select in [&["--head", "2"][..], &["--tail", "2"], &["--head", "4", "--tail", "2"], &["--lines", "3-4"]] {
        let direct = ci("ci-cat").args(select).args(["--fields", "event", CLEAN]).run();
        assert!(ok(&direct).lines().count() >= 4, "{select:?}: {direct:?}");
        for j in ["-j1", "-j3"] {
            let piped = ci("ci-cat").args(select).args(["--fields", "event", j]).stdin(stream.clone()).run();
            assert_eq!(ok(&piped), direct.stdout, "{select:?} {j}");
        }
    }
    let tool_pre = ok(&ci("ci-filter").args(["--event", "tool:pre", S1_FILE]).run()).to_owned();
    assert_eq!(tool_pre.lines().count(), 5);
    let head =
        ci("ci-cat").args(["--head", "2", "--fields", "data.tool_name", "--no-provenance"]).stdin(tool_pre).run();
    assert_eq!(ok(&head), "{\"data\":{\"tool_name\":\"bash\"}}\n{\"data\":{\"tool_name\":\"read_file\"}}\n");
}

/// Records without provenance (`cat events.jsonl |`) are grouped by the
/// session their payload names, and --lines reads their stdin line.
#[test]
fn head_tail_and_lines_of_bare_lines() {
    let file = std::fs::read_to_string(crate::util::root().join(S1_FILE)).unwrap();
    for select in [&["--tail", "3"][..], &["--head", "3"], &["--lines", "7-9"]] {
        let direct = ci("ci-cat").args(select).args(["--fields", "event,timestamp", "--no-provenance", S1_FILE]).run();
        let piped = ci("ci-cat")
            .args(select)
            .args(["--fields", "event,timestamp", "--no-provenance"])
            .stdin(file.clone())
            .run();
        assert_eq!(ok(&piped), ok(&direct), "{select:?}");
        assert_eq!(direct.stdout.lines().count(), 3, "{select:?}");
    }
}

/// A stream large enough to be dealt to several workers (batches of 512 KiB,
/// dealt 1 MiB at a time), with three sessions interleaved: the same records
/// with -j1 and -j3, and the ones a per-session count gives.
#[test]
fn piped_head_and_tail_are_exact_across_workers() {
    let pad = "x".repeat(900);
    let sessions = ["s-a", "s-b", "s-c"];
    let mut stream = String::new();
    let mut per: Vec<Vec<u64>> = vec![vec![]; 3];
    for n in 1..=4000u64 {
        // Runs of varying length, so sessions straddle batch boundaries.
        let s = ((n / 7 + n / 301) % 3) as usize;
        per[s].push(n);
        stream.push_str(&format!(
            "{{\"event\":\"e\",\"data\":{{\"n\":{n},\"pad\":\"{pad}\"}},\"ci\":{{\"session\":\"{}\",\"path\":\"p\",\"line\":{n}}}}}\n",
            sessions[s]
        ));
    }
    assert!(stream.len() > 3 << 20);
    let expect = |keep: &dyn Fn(&[u64]) -> Vec<u64>| {
        let mut kept: Vec<u64> = per.iter().flat_map(|v| keep(v)).collect();
        kept.sort();
        kept.iter().map(|n| format!("{{\"data\":{{\"n\":{n}}}}}\n")).collect::<String>()
    };
    let cases: [(&[&str], String); 3] = [
        (&["--head", "3"], expect(&|v| v[..3].to_vec())),
        (&["--tail", "3"], expect(&|v| v[v.len() - 3..].to_vec())),
        (&["--head", "1000", "--tail", "2"], expect(&|v| v[998..1000].to_vec())),
    ];
    for (select, want) in &cases {
        for j in ["-j1", "-j3"] {
            let run = ci("ci-cat")
                .args(*select)
                .args(["--fields", "data.n", "--no-provenance", j])
                .stdin(stream.clone())
                .run();
            assert_eq!(ok(&run), *want, "{select:?} {j}");
        }
    }
}

// ------------------------------------------------ tests and keys never met

/// `--where 'x > "5"'` matched nothing without a word: a test that never
/// held is named once per run when no record has its path (with the nearest
/// key there) or when its values are never of the type it compares with.
/// Tests that held, or that only a choice of value keeps from holding, and
/// tests under `not`, are not named.
#[test]
fn where_tests_that_never_hold_are_named_once() {
    let cases: &[(&str, &str)] = &[
        ("x > \"5\"", "--where 'x > \"5\"': no record has x"),
        (
            "data.usage.output_token > 5",
            "--where 'data.usage.output_token > 5': no record has data.usage.output_token; \
             did you mean \"data.usage.output_tokens\"?",
        ),
        (
            "event == 'x' or dat.tool_name exists",
            "--where 'event == 'x' or dat.tool_name exists': no record has dat.tool_name; \
             did you mean \"data.tool_name\"?",
        ),
        ("ci.lin == 3", "--where 'ci.lin == 3': no record has ci.lin; did you mean \"ci.line\"?"),
        (
            "data.message_count > \"5\"",
            "--where 'data.message_count > \"5\"': data.message_count is a number in every record that has it, \
             never a string: '>' compares numbers with numbers and strings with strings",
        ),
        (
            "data.tool_name == 5",
            "--where 'data.tool_name == 5': data.tool_name is a string in every record that has it, \
             never a number: '==' compares without coercion (\"5\" is not 5)",
        ),
        (
            "data.message_count ~ '1'",
            "--where 'data.message_count ~ '1'': data.message_count is a number in every record that has it, \
             never a string: '~' matches strings only",
        ),
    ];
    for (expr, warning) in cases {
        for j in ["-j1", "-j3"] {
            let run = ci("ci-filter").args(["--where", expr, j, CLEAN]).run();
            assert_eq!(
                (run.code, run.stdout.as_str(), run.stderr.as_str()),
                (1, "", format!("ci-filter: warning: {warning}\n").as_str()),
                "{expr} {j}"
            );
        }
    }
    // Held, a choice of value, or negated: no warning.
    for expr in ["data.message_count > 1000", "not data.zzz exists", "data.zzz == null", "data.tool_name ~ 'zz'"] {
        let run = ci("ci-filter").args(["--where", expr, CLEAN]).run();
        assert_eq!(run.stderr, "", "{expr}");
    }
    // Two --where: each named on its own.
    let run = ci("ci-filter").args(["--where", "x exists", "--where", "y exists", CLEAN]).run();
    assert_eq!(
        run.stderr,
        "ci-filter: warning: --where 'x exists': no record has x\nci-filter: warning: --where 'y exists': no record has y\n"
    );
}

/// On a stream dealt to several workers, a path only one late record has is
/// found (no warning), and a test that never holds is named once.
#[test]
fn where_warnings_merge_the_workers() {
    let pad = "x".repeat(900);
    let mut stream = String::new();
    for n in 1..=4000u64 {
        let extra = if n == 3999 { ",\"late\":7" } else { "" };
        stream.push_str(&format!("{{\"event\":\"e\",\"data\":{{\"n\":{n},\"pad\":\"{pad}\"{extra}}}}}\n"));
    }
    for j in ["-j1", "-j3"] {
        let run = ci("ci-filter")
            .args(["--where", "data.late == 7", "--where", "data.nn > 1", j])
            .stdin(stream.clone())
            .run();
        assert_eq!(
            (run.code, run.stderr.as_str()),
            (1, "ci-filter: warning: --where 'data.nn > 1': no record has data.nn; did you mean \"data.n\"?\n"),
            "{j}"
        );
        let run = ci("ci-filter").args(["--where", "data.late > '5'", j]).stdin(stream.clone()).run();
        assert_eq!(
            run.stderr,
            "ci-filter: warning: --where 'data.late > '5'': data.late is a number in every record that has it, \
             never a string: '>' compares numbers with numbers and strings with strings\n",
            "{j}"
        );
    }
}

/// `ci-agg --by K` where every record's K is null says so, once per key.
#[test]
fn a_key_null_for_every_record_says_so() {
    let tool_pre = ok(&ci("ci-filter").args(["--event", "tool:pre", S1_FILE]).run()).to_owned();
    for j in ["-j1", "-j3"] {
        let run = ci("ci-agg").args(["--by", "model,agent,event", j]).stdin(tool_pre.clone()).run();
        assert_eq!(run.stdout, "{\"model\":null,\"agent\":null,\"event\":\"tool:pre\",\"count\":5}\n");
        assert_eq!(
            (run.code, run.stderr.as_str()),
            (
                0,
                "ci-agg: warning: --by model: null for every record (no record names a model)\n\
                 ci-agg: warning: --by agent: null for every record (no session names its agent)\n"
            )
        );
    }
    // A key some records have: no warning.
    let run = ci("ci-agg").args(["--by", "model", S1_FILE]).run();
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
}
