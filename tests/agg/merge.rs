//! ci-agg `--partial` and `--merge`: fan-out through xargs and GNU
//! parallel equals one run, bad partial input is reported, long states stay
//! under PIPE_BUF, and estimates do not depend on how the input is split or
//! paced; and a key or metric no record has, named with the nearest field.

use super::*;

// ---------------------------------------------------------------- partial and merge

const QUERIES: &[&[&str]] = &[
    &["--by", "event"],
    &[
        "--by",
        "day,workspace",
        "--tz",
        "America/Los_Angeles",
        "--stats",
        "data.usage.output_tokens",
        "--distinct",
        "session",
    ],
    &["--by", "model", "--sum", "cost_usd", "--p95", "data.duration_ms", "--max", "data.iteration"],
    &["--tools"],
    &["--tokens", "--by", "hour"],
    &["--sessions"],
];

fn demo_paths() -> Vec<String> {
    find_demo(&["--paths"]).lines().map(str::to_owned).collect()
}

#[test]
fn fan_out_with_xargs_equals_one_run() {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_ci-agg"));
    let dir = bin.parent().unwrap().to_string_lossy().into_owned();
    for q in [&["--by", "event"][..], &["--sessions"], &["--tools"]] {
        let single = agg(&[q, &[DEMO]].concat()).stdout;
        let script = format!(
            "ci-find --root {DEMO} --paths -0 | xargs -0 -n 3 -P 2 sh -c 'ci-agg --partial {} \"$@\"' _ | ci-agg --merge",
            q.join(" ")
        );
        let run = ci_sh(&dir, &script);
        assert_eq!(run.0, single, "{script}\n{}", run.1);
    }
}

#[test]
fn fan_out_with_gnu_parallel_equals_one_run() {
    if !crate::kit::skip::runs("parallel", &["--version"]) {
        return crate::kit::skip("parallel", "GNU parallel is not installed (Debian: apt-get install parallel)");
    }
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_ci-agg"));
    let dir = bin.parent().unwrap().to_string_lossy().into_owned();
    let single = agg(&["--by", "event", DEMO]).stdout;
    let script = format!(
        "ci-find --root {DEMO} --paths | parallel --will-cite -X -n 3 -j 2 ci-agg --partial --by event | ci-agg --merge"
    );
    let run = ci_sh(&dir, &script);
    assert_eq!(run.0, single, "{}", run.1);
}

/// Runs a shell pipeline from the repository root with the binaries on PATH,
/// in the pinned environment but for `HOME`: a temporary directory, since
/// GNU parallel writes `~/.parallel` (the pinned one is in the checkout).
fn ci_sh(bin_dir: &str, script: &str) -> (String, String) {
    let path = format!("{bin_dir}:{}", std::env::var("PATH").unwrap_or_default());
    let home = tempfile::tempdir().expect("tempdir");
    let out = pinned(std::process::Command::new("sh"))
        .arg("-c")
        .arg(script)
        .env("PATH", path)
        .env("HOME", home.path())
        .output()
        .expect("sh runs");
    (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn merge_reports_bad_input() {
    let partial = agg(&["--partial", "--by", "event", DEMO]).stdout;
    // A torn line: exit 2, named by line.
    let torn = format!("{partial}{{\"kind\":\"group\",\"key\":[\"x\"],\"cou\n");
    let run = ci("ci-agg").arg("--merge").stdin(torn).run();
    assert_eq!(run.code, 2);
    // Line 21: the header, the skipped-lines count (session 5), 18 groups, then the torn line.
    assert!(run.stderr.contains("-:21: not a ci-agg partial line"), "{}", run.stderr);
    // Streams of different queries.
    let other = agg(&["--partial", "--by", "tool", DEMO]).stdout;
    let run = ci("ci-agg").arg("--merge").stdin(format!("{partial}{other}")).run();
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("different queries"), "{}", run.stderr);
    // Nothing is printed for them (issue 18, item 3: event names came out as
    // tools), in either order.
    assert_eq!(run.stdout, "");
    assert_eq!(ci("ci-agg").arg("--merge").stdin(format!("{other}{partial}")).run().stdout, "");
    // Nothing to merge.
    let run = ci("ci-agg").arg("--merge").stdin("").run();
    assert_eq!((run.code, run.stdout.as_str()), (1, ""));
    // Query flags belong to the --partial runs.
    assert_eq!(ci("ci-agg").args(["--merge", "--by", "event"]).stdin("").run().code, 2);
}

#[test]
fn merge_reads_files() {
    let dir = tempfile::tempdir().unwrap();
    let paths = demo_paths();
    let (a, b) = paths.split_at(4);
    let fa = dir.path().join("a.ndjson");
    let fb = dir.path().join("b.ndjson");
    std::fs::write(
        &fa,
        agg(&[&["--partial", "--tokens"][..], &a.iter().map(String::as_str).collect::<Vec<_>>()].concat()).stdout,
    )
    .unwrap();
    std::fs::write(
        &fb,
        agg(&[&["--partial", "--tokens"][..], &b.iter().map(String::as_str).collect::<Vec<_>>()].concat()).stdout,
    )
    .unwrap();
    let merged = agg(&["--merge", &path_arg(&fa), &path_arg(&fb)]);
    assert_eq!(merged.stdout, agg(&["--tokens", DEMO]).stdout);
}

#[test]
fn long_session_states_are_split_under_pipe_buf() {
    // One session spawning 150 children with long ids: its summary is far
    // over 4096 bytes, written as several mergeable lines.
    let mut lines = vec![ev("session:start", "2026-03-01T10:00:00Z", json!({}))];
    for i in 0..150 {
        let id = format!("child-{i:04}-{}", "x".repeat(40));
        lines.push(ev("delegate:agent_spawned", "2026-03-01T10:00:01Z", json!({"sub_session_id": id})));
    }
    let root = root_with(&[("s1", lines)]);
    let p = path_arg(root.path());
    let partial = agg(&["--partial", "--sessions", &p]).stdout;
    assert!(partial.lines().count() > 2);
    assert!(partial.lines().all(|l| l.len() < 4096));
    let merged = ci("ci-agg").arg("--merge").stdin(partial).run();
    assert_eq!(merged.stdout, agg(&["--sessions", &p]).stdout);
    assert_eq!(merged.json()[0]["children"].as_array().unwrap().len(), 150);
}

/// Runs `--partial QUERY` on each shard and `--merge` on the lines of all
/// shards, shuffled (one header kept first).
fn sharded(query: &[&str], shards: &[Vec<String>], seed: u64) -> String {
    let mut header = None;
    let mut lines = vec![];
    for shard in shards.iter().filter(|s| !s.is_empty()) {
        let args: Vec<&str> = query.iter().copied().chain(shard.iter().map(String::as_str)).collect();
        let run = ci("ci-agg").arg("--partial").args(&args).run();
        for l in run.stdout.lines() {
            if l.contains("\"kind\":\"header\"") && header.is_none() {
                header = Some(l.to_owned());
            } else {
                lines.push(l.to_owned());
            }
        }
    }
    // Fisher-Yates with a small LCG: any whole-line interleaving must merge.
    let mut x = seed | 1;
    for i in (1..lines.len()).rev() {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        lines.swap(i, (x >> 33) as usize % (i + 1));
    }
    let input = header.into_iter().chain(lines).map(|l| l + "\n").collect::<String>();
    ci("ci-agg").arg("--merge").stdin(input).run().stdout
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10, ..ProptestConfig::default() })]

    #[test]
    fn partial_then_merge_equals_one_run(assign in proptest::collection::vec(0usize..4, 10), seed in any::<u64>()) {
        let paths = demo_paths();
        prop_assert_eq!(paths.len(), 10);
        let mut shards = vec![vec![]; 4];
        for (p, s) in paths.iter().zip(&assign) {
            shards[*s].push(p.clone());
        }
        for q in QUERIES {
            let single = agg(&[*q, &[DEMO]].concat()).stdout;
            prop_assert!(!single.is_empty());
            prop_assert_eq!(sharded(q, &shards, seed), single, "query {:?} shards {:?}", q, assign);
        }
    }
}

/// Runs `ci-agg ARGS` with `input` written to its stdin in pieces of
/// `piece` lines, pausing `pause` after each (a slow writer of the pipe).
fn agg_paced(args: &[&str], input: &str, piece: usize, pause: std::time::Duration) -> (String, i32) {
    use std::io::Write;
    let mut child = crate::util::ci_command("ci-agg")
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("spawn ci-agg");
    let mut stdin = child.stdin.take().expect("stdin");
    let lines: Vec<&str> = input.lines().collect();
    for chunk in lines.chunks(piece) {
        stdin.write_all((chunk.join("\n") + "\n").as_bytes()).expect("write");
        stdin.flush().expect("flush");
        std::thread::sleep(pause);
    }
    drop(stdin);
    let out = child.wait_with_output().expect("wait");
    (String::from_utf8(out.stdout).expect("utf-8"), out.status.code().unwrap_or(-1))
}

#[test]
fn estimates_do_not_depend_on_how_fast_the_pipe_fills() {
    // 60 sessions of 40 timed calls: 2,400 latencies of one tool, past the
    // 1,024 of exact percentiles, so p50/p95 are t-digest estimates that
    // depend on how the sessions are split among the threads. ci-agg deals
    // its input by a fixed rule only, never by when the writer of the pipe
    // pauses (it used to: `ci-find | ci-agg --tools` varied run to run).
    let sessions: Vec<(String, Vec<String>)> = (0..60u64)
        .map(|s| {
            let lines = (0..40u64)
                .flat_map(|c| {
                    let id = format!("call-{s}-{c}");
                    let ms = (s * 40 + c) * 7919 % 10007;
                    [
                        ev("tool:pre", "2026-03-01T10:00:00Z", json!({"tool_name": "bash", "tool_call_id": id})),
                        ev(
                            "tool:post",
                            "2026-03-01T10:00:01Z",
                            json!({"tool_name": "bash", "tool_call_id": id, "duration_ms": ms, "result": {"success": true}}),
                        ),
                    ]
                })
                .collect();
            (format!("s{s:02}"), lines)
        })
        .collect();
    let named: Vec<(&str, Vec<String>)> = sessions.iter().map(|(id, l)| (id.as_str(), l.clone())).collect();
    let root = root_with(&named);
    let records = ci("ci-find").args(["--root", &path_arg(root.path())]).run();
    assert_eq!(records.lines().len(), 60, "{records:?}");
    let args = ["-j2", "--tools"];
    let fast = agg_paced(&args, &records.stdout, 60, std::time::Duration::ZERO);
    assert_eq!(fast.1, 0);
    assert!(fast.0.starts_with(r#"{"tool":"bash","calls":2400,"ok":2400,"#), "{}", fast.0);
    for piece in [1, 5, 20] {
        let slow = agg_paced(&args, &records.stdout, piece, std::time::Duration::from_millis(3));
        assert_eq!(slow, fast, "written {piece} records at a time");
    }
}

#[test]
fn a_key_or_metric_no_record_has_is_named_with_the_nearest_field() {
    let root = root_with(&[(
        "s1",
        vec![
            ev("tool:pre", "2026-03-01T10:00:00Z", json!({"tool_name": "bash", "status": "ok"})),
            ev("tool:post", "2026-03-01T10:00:01Z", json!({"tool_name": "bash"})),
        ],
    )]);
    let path = path_arg(root.path());
    let run = agg(&["--by", "evnt", &path]);
    assert_eq!((run.code, run.stdout.as_str()), (0, "{\"evnt\":null,\"count\":2}\n"));
    assert_eq!(
        run.stderr,
        "ci-agg: warning: --by evnt: no record has this field (null in every group); did you mean \"event\"?\n"
    );
    let run = agg(&["--by", "modle", "--sum", "data.duraton_ms", &path]);
    assert_eq!(
        run.stderr,
        "ci-agg: warning: --by modle: no record has this field (null in every group); did you mean \"model\"?\n\
         ci-agg: warning: data.duraton_ms: no record has this field, so its metrics are empty\n"
    );
    // A key some records have is no typo: no warning.
    let run = agg(&["--by", "data.status", "--sum", "data.tool_name", &path]);
    assert_eq!(run.code, 0);
    assert!(!run.stderr.contains("no record has this field"), "{run:?}");
}

/// The names people guess first are taken: `--by project` is `--by
/// workspace` and `--by date` is `--by day` (records name the key by its own
/// name). Both printed one null group and a warning.
#[test]
fn project_and_date_are_other_names_of_workspace_and_day() {
    for (alias, name) in [("project", "workspace"), ("date", "day"), ("project,date", "workspace,day")] {
        let guessed = agg(&["--by", alias, "fixtures/demo-clean"]);
        let named = agg(&["--by", name, "fixtures/demo-clean"]);
        assert_eq!(guessed.code, 0, "{guessed:?}");
        assert!(!guessed.stderr.contains("no record has"), "{}", guessed.stderr);
        assert_eq!((&guessed.stdout, &guessed.stderr), (&named.stdout, &named.stderr), "--by {alias}");
        assert!(guessed.json().iter().all(|r| !r[name.split(',').next().unwrap()].is_null()), "{}", guessed.stdout);
    }
}

/// A path no record has is named with the nearest path the records read
/// have: a Claude transcript's `tool:pre` keeps the hooks' `tool_input` as
/// `input`, and its responses keep it deeper, so `data.tool_input.file_path`
/// (one key from `data.input.file_path`) had no hint; a metric path one
/// letter short gets the key the records have there.
#[test]
fn a_path_no_record_has_is_named_with_the_nearest_path_seen() {
    const VIEWER: &str = "fixtures/claude-transcripts/projects/-src-d-kimuson-claude-code-viewer";
    // Captures named: no path hint (a capture may come from the cache, and
    // warnings never depend on it); piped records: the nearest path.
    let run = agg(&["--no-cache", "--by", "data.tool_input.file_path", VIEWER]);
    assert_eq!(
        run.stderr,
        "ci-agg: warning: --by data.tool_input.file_path: no record has this field (null in every group)\n"
    );
    let demo = ci("ci-cat").args(["--full", DEMO]).run().stdout;
    let run = ci("ci-agg").args(["--by", "tool", "--sum", "data.usage.output_token"]).stdin(demo).run();
    assert!(
        run.stderr.contains(
            "ci-agg: warning: data.usage.output_token: no record has this field, so its metrics are empty; \
             did you mean \"data.usage.output_tokens\"?\n"
        ),
        "{}",
        run.stderr
    );
    // Through a pipe too, and by ci-filter's --where.
    let events = ci("ci-cat").args(["--full", VIEWER]).run().stdout;
    let run = ci("ci-agg").args(["--by", "data.tool_input.file_path"]).stdin(events.clone()).run();
    assert!(run.stderr.contains("did you mean \"data.input.file_path\"?"), "{}", run.stderr);
    let run = ci("ci-filter").args(["--where", r#"data.tool_input.file_path ~ "src""#]).stdin(events).run();
    assert_eq!(
        run.stderr,
        "ci-filter: warning: --where 'data.tool_input.file_path ~ \"src\"': no record has \
         data.tool_input.file_path; did you mean \"data.input.file_path\"?\n"
    );
}
