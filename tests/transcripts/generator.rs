//! Claude Code transcripts: the generator's trees (`tests/transcriptgen`)
//! against what it knows it wrote, and `--partial`/`--merge` over them.

use super::*;

// ---------------------------------------------------------------- 2. the generator

/// The (sessions, seed) pairs every generator test runs.
const CASES: [(usize, u64); 3] = [(6, 1), (13, 7), (9, 42)];

fn find_records(dir: &tempfile::TempDir) -> String {
    let run = ci("ci-find").args(["--root", &dir_arg(dir)]).run();
    assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{run:?}");
    run.stdout
}

fn expected_by_day(exp: &Expected) -> BTreeMap<DayModel, Tokens> {
    exp.by_day_model.iter().map(|((d, m), x)| ((s(d), s(m)), *x)).collect()
}

/// `N thing(s)`.
fn n(count: usize, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

/// The summary line of a run that skipped the generator's damaged lines and
/// held back its torn tails.
fn summary(tool: &str, exp: &Expected) -> String {
    let mut parts = vec![];
    if !exp.damaged.is_empty() {
        parts.push(format!("{} skipped", n(exp.damaged.len(), "bad line", "bad lines")));
    }
    if !exp.torn_tails.is_empty() {
        parts.push(format!(
            "{} held back (capture still being written?)",
            n(exp.torn_tails.len(), "unfinished last line", "unfinished last lines")
        ));
    }
    format!("{tool}: {} (--strict makes bad lines an error)", parts.join(", "))
}

/// Every damaged line reported once, nothing else reported (torn last
/// lines in particular), and then the summary line.
fn assert_reports(tool: &str, stderr: &str, exp: &Expected) {
    let (sites, rest) = reports(stderr);
    let want: Vec<(String, u64)> = exp.damaged.iter().map(|(p, l)| (p.to_string_lossy().into_owned(), *l)).collect();
    let mut got = sites.clone();
    got.sort();
    assert_eq!(got, want, "reported (path, line) pairs; stderr:\n{stderr}");
    let distinct: BTreeSet<_> = sites.iter().collect();
    assert_eq!(distinct.len(), sites.len(), "a line reported twice:\n{stderr}");
    for torn in &exp.torn_tails {
        let last = std::fs::read(torn).expect("read").iter().filter(|&&b| b == b'\n').count() as u64 + 1;
        assert!(!sites.contains(&(torn.to_string_lossy().into_owned(), last)), "torn tail reported: {stderr}");
    }
    assert_eq!(rest, [summary(tool, exp)], "stderr:\n{stderr}");
}

fn assert_by_day_is_expected(stdout: &str, exp: &Expected, what: &str) {
    let ours = ours_by_day(stdout);
    // No rows without tokens either: `<synthetic>` lines are no responses.
    assert_eq!(with_tokens(&ours).len(), ours.len(), "{what}: a row without tokens:\n{stdout}");
    assert_eq!(with_tokens(&ours), expected_by_day(exp), "{what}");
    let responses: u64 = ours.values().map(|(r, _)| r).sum();
    assert_eq!(responses, exp.responses(), "{what}: responses");
}

#[test]
fn generated_tokens_by_day_are_the_generators() {
    for (sessions, seed) in CASES {
        let (dir, exp) = generated(sessions, seed);
        let what = format!("generate({sessions}, {seed})");
        assert!(!exp.damaged.is_empty() && !exp.torn_tails.is_empty(), "{what}: no damage to test");
        let records = find_records(&dir);
        let run = ci("ci-agg").args(["--tokens", "--by", "day"]).stdin(records.clone()).run();
        assert_eq!(run.code, 0, "{what}: {run:?}");
        assert_by_day_is_expected(&run.stdout, &exp, &what);
        assert_reports("ci-agg", &run.stderr, &exp);

        // --strict: the same reports, exit 2.
        let strict = ci("ci-agg").args(["--tokens", "--by", "day", "--strict"]).stdin(records.clone()).run();
        assert_eq!(strict.code, 2, "{what}: {strict:?}");
        let (mut sites, _) = reports(&strict.stderr);
        sites.sort();
        let want: Vec<(String, u64)> =
            exp.damaged.iter().map(|(p, l)| (p.to_string_lossy().into_owned(), *l)).collect();
        assert_eq!(sites, want, "{what} --strict");

        // The same answer on one thread and on three, and from the root argument.
        for args in [vec!["-j1"], vec!["-j3"]] {
            let other = ci("ci-agg").args(["--tokens", "--by", "day"]).args(&args).stdin(records.clone()).run();
            assert_eq!((other.code, &other.stdout, &other.stderr), (0, &run.stdout, &run.stderr), "{what} {args:?}");
        }
        let direct = ci("ci-agg").args(["--tokens", "--by", "day", &dir_arg(&dir)]).run();
        assert_eq!((direct.code, &direct.stdout), (0, &run.stdout), "{what}: root argument");

        // Piped event records (ci-cat in between) give the same answer; the
        // reports are then ci-cat's.
        let cat = ci("ci-cat").stdin(records).run();
        assert_eq!(cat.code, 0, "{what}: {}", cat.stderr);
        assert_reports("ci-cat", &cat.stderr, &exp);
        let piped = ci("ci-agg").args(["--tokens", "--by", "day"]).stdin(cat.stdout).run();
        assert_eq!((piped.code, piped.stderr.as_str()), (0, ""), "{what}: {piped:?}");
        assert_by_day_is_expected(&piped.stdout, &exp, &format!("{what} via ci-cat"));
        assert_eq!(piped.stdout, run.stdout, "{what} via ci-cat");
    }
}

/// What Expected says a session's `--sessions` record counts: its own lines
/// and its subagent files (ours reads `<id>/subagents/*.jsonl` as part of the
/// session, formats.md §5: their lines carry the parent's `sessionId`); a
/// resumed session's copied history is the original's.
fn expected_tools(exp: &Expected, id: &str) -> (BTreeMap<String, u64>, u64) {
    let session = exp.session(id).expect("generated session");
    let mut calls = session.counts.tool_calls.clone();
    let mut errors = session.counts.tool_errors;
    for a in &session.subagents {
        for (k, v) in &a.counts.tool_calls {
            *calls.entry(k.clone()).or_insert(0) += v;
        }
        errors += a.counts.tool_errors;
    }
    (calls, errors)
}

fn generated_sessions(dir: &tempfile::TempDir, exp: &Expected, args: &[&str]) -> BTreeMap<String, Value> {
    let run = ci("ci-agg").arg("--sessions").args(args).arg(dir_arg(dir)).run();
    assert_eq!(run.code, 0, "{run:?}");
    assert_reports("ci-agg", &run.stderr, exp);
    let ours = ours_sessions(&run.stdout);
    let ids: BTreeSet<&str> = exp.sessions.iter().map(|x| x.id.as_str()).collect();
    assert_eq!(ours.keys().map(String::as_str).collect::<BTreeSet<_>>(), ids);
    ours
}

#[test]
fn generated_session_tokens_are_the_generators() {
    for (sessions, seed) in CASES {
        let (dir, exp) = generated(sessions, seed);
        for threads in ["-j1", "-j3"] {
            let ours = generated_sessions(&dir, &exp, &[threads]);
            for (id, want) in &exp.by_session {
                assert_eq!(session_tokens(&ours[id]), *want, "generate({sessions}, {seed}) {threads}: session {id}");
            }
            for x in &exp.sessions {
                assert_eq!(u(&ours[&x.id]["subagents"]), x.subagents.len() as u64, "{}: subagents", x.id);
            }
        }
    }
}

/// Sessions of `exp` that are (or are not) resumes.
fn resumes(exp: &Expected, resumed: bool) -> Vec<&crate::transcriptgen::Session> {
    exp.sessions.iter().filter(|x| x.resumed_from.is_some() == resumed).collect()
}

#[test]
fn generated_session_tool_calls_and_errors_are_the_generators() {
    // Sessions that are not resumes: their own lines and their subagent files.
    for (sessions, seed) in CASES {
        let (dir, exp) = generated(sessions, seed);
        let ours = generated_sessions(&dir, &exp, &[]);
        let with_subagents = resumes(&exp, false).iter().filter(|x| !x.subagents.is_empty()).count();
        assert!(with_subagents > 0, "generate({sessions}, {seed}): no subagent to count");
        for x in resumes(&exp, false) {
            assert_tool_calls(&exp, &ours, &x.id, &format!("generate({sessions}, {seed}) session {}", x.id));
        }
    }
}

/// A session's `tool_calls` and `tool_errors` in `--sessions` are the generator's.
fn assert_tool_calls(exp: &Expected, ours: &BTreeMap<String, Value>, id: &str, what: &str) {
    let (calls, errors) = expected_tools(exp, id);
    assert_eq!(tool_calls(&ours[id]), calls, "{what}: tool_calls");
    assert_eq!(u(&ours[id]["tool_errors"]), errors, "{what}: tool_errors");
}

#[test]
fn generated_resumed_session_tool_calls_leave_the_copied_history_to_the_original() {
    // A resumed file starts with the original's lines again, same tool_use
    // ids: those calls are the original's (as their tokens are), not new ones.
    for (sessions, seed) in CASES {
        let (dir, exp) = generated(sessions, seed);
        let ours = generated_sessions(&dir, &exp, &[]);
        for x in resumes(&exp, true) {
            assert!(x.copied.tool_call_total() > 0 || x.copied_lines > 0);
            assert_tool_calls(&exp, &ours, &x.id, &format!("generate({sessions}, {seed}) resumed session {}", x.id));
        }
    }
}

// ---------------------------------------------------------------- 3. --partial / --merge

#[test]
fn partial_shards_merge_into_the_whole_tree_answer() {
    for (sessions, seed) in CASES {
        let (dir, exp) = generated(sessions, seed);
        let what = format!("generate({sessions}, {seed})");
        let records = find_records(&dir);
        let whole = ci("ci-agg").args(["--tokens", "--by", "day"]).stdin(records.clone()).run();
        assert_eq!(whole.code, 0, "{what}: {whole:?}");
        // Shards by generation order, even and odd: a resumed session (1, 5,
        // 9, …) and its original (0, 4, 8, …) always land in different ones.
        let even: BTreeSet<&str> = exp.sessions.iter().step_by(2).map(|x| x.id.as_str()).collect();
        for x in &exp.sessions {
            if let Some(from) = &x.resumed_from {
                assert_ne!(even.contains(x.id.as_str()), even.contains(from.as_str()), "{what}");
            }
        }
        let (mut a, mut b) = (String::new(), String::new());
        for line in records.lines() {
            let r: Value = serde_json::from_str(line).expect("record");
            let shard = if even.contains(r["session"].as_str().unwrap()) { &mut a } else { &mut b };
            shard.push_str(line);
            shard.push('\n');
        }
        let mut partials = String::new();
        for shard in [a, b] {
            let p = ci("ci-agg").args(["--tokens", "--by", "day", "--partial"]).stdin(shard).run();
            assert_eq!(p.code, 0, "{what}: {p:?}");
            partials.push_str(&p.stdout);
        }
        let merged = ci("ci-agg").arg("--merge").stdin(partials.clone()).run();
        assert_eq!(merged.code, 0, "{what}: {merged:?}");
        assert_eq!(merged.stdout, whole.stdout, "{what}");
        assert_by_day_is_expected(&merged.stdout, &exp, &format!("{what} merged"));
        // The merged summary adds up the shards' skipped lines.
        assert_eq!(merged.stderr.lines().collect::<Vec<_>>(), [summary("ci-agg", &exp)], "{what}");
        let strict = ci("ci-agg").args(["--merge", "--strict"]).stdin(partials).run();
        assert_eq!(strict.code, 2, "{what}: {strict:?}");
    }
}
