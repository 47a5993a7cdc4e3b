//! Claude Code transcripts through ci-cat, ci-filter and ci-grep (block
//! events, parts, raw lines) and ci-find (listing, projects, paths, hostile
//! files, a root argument).

use super::*;

// ---------------------------------------------------------------- 4. ci-cat, ci-filter, ci-grep

/// (line, part, event) of `ci-find --root TREE --session ID | ci-cat --lines
/// RANGE`, every record's `ci` checked to name the session and its file.
fn cat_events(file: &str, session: &str, range: &str) -> Vec<(u64, u64, String)> {
    cat_records(session, &["--lines", range])
        .iter()
        .map(|r| {
            let c = &r["ci"];
            assert_eq!((c["session"].as_str(), c["path"].as_str()), (Some(session), Some(file)), "{r}");
            assert_eq!(c.as_object().unwrap().len(), 4, "ci = session, path, line, part: {c}");
            assert_eq!(r["transcript"], if r["event"] == "tool:post" { "user" } else { "assistant" });
            (u(&c["line"]), u(&c["part"]), r["event"].as_str().unwrap().to_owned())
        })
        .collect()
}

/// `ci-find --root TREE --session ID | ci-cat ARGS`, parsed.
fn cat_records(session: &str, args: &[&str]) -> Vec<Value> {
    let recs = ci("ci-find").args(["--root", TREE, "--session", session]).run();
    assert_eq!((recs.code, recs.lines().len()), (0, 1), "{recs:?}");
    let run = ci("ci-cat").args(args).stdin(recs.stdout).run();
    assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{run:?}");
    run.json()
}

#[test]
fn cat_gives_each_block_its_part_index() {
    const ID: &str = "1af7fc5e-8455-4414-9ccd-011d40f70b2a";
    // Lines 3–4: message msg_01TqDZ… written as a text block (line 3) and a
    // TodoWrite tool_use (line 4); line 5 its tool_result (a user line of
    // results only: no event of its own); lines 6–10: message msg_018mu4…,
    // one tool_use a line (Bash, then four Glob).
    let lines = object_lines(&root().join(SMALL));
    let content = |n: u64| -> Vec<String> {
        let o = &lines.iter().find(|(l, _, _)| *l == n).unwrap().2;
        o["message"]["content"].as_array().unwrap().iter().map(|b| b["type"].as_str().unwrap().to_owned()).collect()
    };
    assert_eq!(content(3), ["text"]);
    assert_eq!(content(4), ["tool_use"]);
    assert_eq!(content(5), ["tool_result"]);
    let id = |n: u64| lines.iter().find(|(l, _, _)| *l == n).unwrap().2["message"]["id"].clone();
    assert_eq!(id(3), id(4));
    assert_eq!(id(6), id(10));
    assert_ne!(id(4), id(6));
    let ev = |line: u64, part: u64, e: &str| (line, part, e.to_owned());
    assert_eq!(
        cat_events(SMALL, ID, "3-7"),
        [
            ev(3, 0, "llm:response"),
            ev(4, 1, "llm:content"),
            ev(4, 2, "tool:pre"),
            ev(5, 2, "tool:post"),
            ev(6, 0, "llm:response"),
            ev(6, 2, "tool:pre"),
            ev(7, 1, "llm:content"),
            ev(7, 2, "tool:pre"),
        ]
    );
    // A tool_use at index 1 of its message's content is part 3: simonw's
    // line 3 is [text, tool_use Write] (no message.id: each line its own response).
    assert_eq!(cat_events(SIMONW, "test-session-id", "3"), [ev(3, 0, "llm:response"), ev(3, 3, "tool:pre")]);
    // The block event's data is the block itself.
    let recs = cat_records("test-session-id", &["--lines", "3", "--full"]);
    let block = &object_lines(&root().join(SIMONW))[2].2["message"]["content"][1];
    assert_eq!(&recs[1]["data"], block);
    assert_eq!(recs[1]["data"]["name"], "Write");
}

#[test]
fn cat_raw_prints_a_line_once() {
    // Line 3 yields one event, line 4 two (llm:content and tool:pre), line 5
    // one (tool:post): --raw prints the exact bytes of each line once.
    let run = ci("ci-cat").args([SMALL, "--lines", "3-5", "--raw"]).run();
    assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{run:?}");
    let file = std::fs::read_to_string(root().join(SMALL)).unwrap();
    let l: Vec<&str> = file.lines().collect();
    let want = [l[2], l[3], l[4]].iter().map(|x| format!("{x}\n")).collect::<String>();
    assert_eq!(run.stdout, want);
}

/// (tool_use, tool_result ok, tool_result is_error) blocks in every JSON line
/// of the tree, counted per line as written (a repeated line counts again).
fn recount_blocks() -> (u64, u64, u64) {
    let (mut uses, mut ok, mut errors) = (0, 0, 0);
    for file in tree_files(&root().join(TREE)) {
        for (_, _, o) in object_lines(&file) {
            let Some(blocks) = o.get("message").and_then(|m| m.get("content")).and_then(Value::as_array) else {
                continue;
            };
            for b in blocks {
                match b.get("type").and_then(Value::as_str) {
                    Some("tool_use") => uses += 1,
                    Some("tool_result") if b.get("is_error") == Some(&Value::Bool(true)) => errors += 1,
                    Some("tool_result") => ok += 1,
                    _ => {}
                }
            }
        }
    }
    (uses, ok, errors)
}

#[test]
fn filter_by_block_event_counts_every_block() {
    let (uses, ok, errors) = recount_blocks();
    for (event, want) in [("tool:pre", uses), ("tool:post", ok), ("tool:error", errors)] {
        let run = ci("ci-filter").args(["--event", event, TREE]).run();
        assert_eq!(run.code, 0, "{run:?}");
        assert_eq!(run.stderr.lines().collect::<Vec<_>>()[..4], edge_case_reports()[..]);
        let recs = run.json();
        assert_eq!(recs.len() as u64, want, "{event}");
        assert!(recs.iter().all(|r| r["event"] == event && u(&r["ci"]["part"]) >= 2), "{event}");
    }
    assert!(uses > 200 && errors > 0, "the tree has blocks to count: {uses} {ok} {errors}");
}

#[test]
fn grep_finds_a_tool_input_string_in_its_block_event() {
    // "Commit changes" is only the `description` of the Bash tool_use in
    // simonw's line 5 (the line's only content block, index 0 → part 2).
    let file = std::fs::read_to_string(root().join(SIMONW)).unwrap();
    let hits: Vec<usize> =
        file.lines().enumerate().filter(|(_, l)| l.contains("Commit changes")).map(|(i, _)| i + 1).collect();
    assert_eq!(hits, [5]);
    let line5 = &object_lines(&root().join(SIMONW))[4].2;
    assert_eq!(line5["message"]["content"][0]["input"]["description"], "Commit changes");
    let ci_of = |part: u64| serde_json::json!({"session": "test-session-id", "path": SIMONW, "line": 5, "part": part});
    // A match record's `ci` is its event's, with where the line is (checked
    // in grep.rs): that marker aside.
    let sans_cut = |ci: &Value| {
        let mut ci = ci.clone();
        let cut = ci.as_object_mut().unwrap().remove("cut").unwrap();
        assert_eq!(cut["writer"], "claude-transcript");
        ci
    };

    let run = ci("ci-grep").args(["--event", "tool:pre", "Commit changes", TREE]).run();
    assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{run:?}");
    let recs = run.json();
    assert_eq!(recs.len(), 1, "{}", run.stdout);
    assert_eq!(recs[0]["event"], "tool:pre");
    assert_eq!(recs[0]["path"], "data.input.description");
    assert_eq!(recs[0]["line"], 5);
    assert_eq!(recs[0]["match"], "Commit changes");
    assert_eq!(sans_cut(&recs[0]["ci"]), ci_of(2));

    // Without --event the string is found twice: in the block event and in
    // the line's own event, whose data is the whole line.
    let all = ci("ci-grep").args(["Commit changes", TREE]).run();
    assert_eq!(all.code, 0, "{all:?}");
    let got: Vec<(String, String, Value)> = all
        .json()
        .iter()
        .map(|r| (r["event"].as_str().unwrap().to_owned(), r["path"].as_str().unwrap().to_owned(), sans_cut(&r["ci"])))
        .collect();
    assert_eq!(
        got,
        [
            ("llm:response".to_owned(), "data.message.content.0.input.description".to_owned(), ci_of(0)),
            ("tool:pre".to_owned(), "data.input.description".to_owned(), ci_of(2)),
        ]
    );
}

// ---------------------------------------------------------------- 5. ci-find

#[test]
fn find_lists_the_fixture_sessions() {
    let run = ci("ci-find").args(["--root", TREE]).run();
    assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{run:?}");
    let recs = run.json();
    let listed: Vec<(String, String)> = recs
        .iter()
        .map(|r| {
            assert_eq!(r["format"], "claude-transcript", "{r}");
            assert_eq!(r["files"], serde_json::json!([]), "{r}");
            let path = r["path"].as_str().unwrap();
            let (folder, id) = (r["project"].as_str().unwrap(), r["session"].as_str().unwrap());
            assert_eq!(path, format!("{TREE}/projects/{folder}/{id}.jsonl"));
            assert_eq!(u(&r["bytes"]), std::fs::metadata(root().join(path)).unwrap().len(), "{path}");
            (folder.to_owned(), id.to_owned())
        })
        .collect();
    // One session per file, named by its stem; newest start first (the
    // timestamp-less test-transcript last).
    let p = |f: &str, id: &str| (f.to_owned(), id.to_owned());
    assert_eq!(
        listed,
        [
            p("-src-kvsankar-agent-history", "06090cb1-3e64-433a-bc7e-a621c0f596d2"),
            p("-src-ryoppippi-ccusage", "session-beta"),
            p("-src-ryoppippi-ccusage", "session-alpha"),
            p("-src-simonw-claude-code-transcripts", "test-session-id"),
            p("-src-d-kimuson-claude-code-viewer", "5c0375b4-57a5-4f26-b12d-d022ee4e51b7"),
            p("-src-d-kimuson-claude-code-viewer", "fe5e1c67-53e7-4862-81ae-d0e013e3270b"),
            p("-src-d-kimuson-claude-code-viewer", "1af7fc5e-8455-4414-9ccd-011d40f70b2a"),
            p("-src-daaain-claude-code-log", "session_b"),
            p("-src-daaain-claude-code-log", "edge_cases"),
            p("-src-daaain-claude-code-log", "test_session"),
            p("-src-daaain-claude-code-log", "todowrite_session"),
            p("-src-ryoppippi-ccusage", "test-transcript"),
        ]
    );
    let files: BTreeSet<String> = tree_files(&root().join(TREE))
        .iter()
        .map(|f| f.strip_prefix(root()).unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(files, recs.iter().map(|r| r["path"].as_str().unwrap().to_owned()).collect());

    // 1af7fc5e by hand: its first line (a /init prompt) is stamped
    // 00:47:19.293Z and its last (line 29, the closing reply) 00:47:52.264Z,
    // the earliest and latest of its 29 lines; every cwd is /path/to/Demo.
    let r = recs.iter().find(|r| r["session"] == "1af7fc5e-8455-4414-9ccd-011d40f70b2a").unwrap();
    assert_eq!(r["started_at"], "2025-09-03T00:47:19.293Z");
    assert_eq!(r["last_event_at"], "2025-09-03T00:47:52.264Z");
    assert_eq!(r["working_dir"], "/path/to/Demo");
    assert_eq!(r["model"], "claude-sonnet-4-20250514");
    assert_eq!(r["workspace"], "-src-d-kimuson-claude-code-viewer");
    // test-transcript has no timestamp at all.
    let r = recs.iter().find(|r| r["session"] == "test-transcript").unwrap();
    assert_eq!((&r["started_at"], &r["last_event_at"]), (&Value::Null, &Value::Null));
}

// ---------------------------------------------------------------- a transcript named by its path

const FE5E: &str =
    "fixtures/claude-transcripts/projects/-src-d-kimuson-claude-code-viewer/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl";

#[test]
fn a_transcript_named_by_its_path_is_read_as_from_the_root() {
    // 1af7fc5e starts with a user line: named by its path, the same events as
    // through discovery.
    let via_root = cat_records("1af7fc5e", &[]);
    let run = ci("ci-cat").arg(SMALL).run();
    assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{run:?}");
    assert_eq!(run.json(), via_root);
}

#[test]
fn a_transcript_starting_with_a_summary_line_is_read_when_named() {
    // fe5e1c67 (real) and simonw's file start with {"type":"summary",...},
    // as Claude Code writes them; the rest are ordinary transcript lines.
    for (file, id) in [(FE5E, "fe5e1c67"), (SIMONW, "test-session-id")] {
        let first = &object_lines(&root().join(file))[0];
        assert_eq!((first.0, first.2["type"].as_str()), (1, Some("summary")));
        let via_root = cat_records(id, &[]);
        let run = ci("ci-cat").arg(file).run();
        let first_report = run.stderr.lines().next();
        assert_eq!((run.code, first_report), (0, None), "ci-cat {file}: {} stderr lines", run.stderr.lines().count());
        assert_eq!(run.json(), via_root, "ci-cat {file}");
    }
    // A project folder as the root lists all its sessions.
    let run =
        ci("ci-find").args(["--root", "fixtures/claude-transcripts/projects/-src-d-kimuson-claude-code-viewer"]).run();
    assert_eq!(run.code, 0, "{run:?}");
    let ids: BTreeSet<String> = run.json().iter().map(|r| r["session"].as_str().unwrap().to_owned()).collect();
    assert_eq!(
        ids,
        BTreeSet::from(
            [
                "1af7fc5e-8455-4414-9ccd-011d40f70b2a",
                "5c0375b4-57a5-4f26-b12d-d022ee4e51b7",
                "fe5e1c67-53e7-4862-81ae-d0e013e3270b"
            ]
            .map(str::to_owned)
        )
    );
}

/// `ci-find --project` takes a working directory, converted by Claude Code's
/// folder rule (every character but ASCII letters, digits and `-` becomes
/// `-`), as well as the folder name itself.
#[test]
fn find_project_by_working_directory() {
    let dir = tempfile::tempdir().unwrap();
    let exp = generate(dir.path(), 6, 3);
    let root = dir.path().to_str().unwrap();
    for s in &exp.sessions {
        let folder: String =
            s.cwd.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '-' }).collect();
        assert_eq!(folder, s.project, "the generator names folders by the same rule");
        let want: BTreeSet<String> =
            exp.sessions.iter().filter(|o| o.project == s.project).map(|o| o.id.clone()).collect();
        for value in [s.cwd.as_str(), s.project.as_str()] {
            let run = ci("ci-find").args(["--root", root, "--project", value]).run();
            let got: BTreeSet<String> =
                run.json().iter().map(|r| r["session"].as_str().unwrap_or("").to_owned()).collect();
            assert_eq!(got, want, "--project {value}");
        }
    }
}

/// Hostile files in a transcript tree: a FIFO and a dangling link named
/// `*.jsonl` beside a session, a FIFO among its subagents. Each is reported
/// (`path: reason, skipped`, exit 2) and never opened (a FIFO would hang the
/// tool); the good session is read.
#[test]
fn fifos_and_dangling_links_are_reported_not_opened() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("projects").join("-p");
    std::fs::create_dir_all(folder.join("s1").join("subagents")).unwrap();
    let line = r#"{"type":"user","sessionId":"s1","cwd":"/p","timestamp":"2026-03-01T00:00:00.000Z","message":{"role":"user","content":"hi"}}"#;
    std::fs::write(folder.join("s1.jsonl"), format!("{line}\n")).unwrap();
    let fifo = folder.join("f.jsonl");
    let sub_fifo = folder.join("s1").join("subagents").join("agent-x.jsonl");
    for f in [&fifo, &sub_fifo] {
        crate::kit::tree::mkfifo(f);
    }
    std::os::unix::fs::symlink(folder.join("gone"), folder.join("d.jsonl")).unwrap();
    let root = dir.path().to_str().unwrap();
    let mut child = crate::util::ci_command("ci-agg")
        .args(["--sessions", root])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let code = crate::util::exits_within(&mut child, "ci-agg over FIFOs");
    let out = child.wait_with_output().unwrap();
    assert_eq!(code, Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    for (path, reason) in [
        (&sub_fifo, "not a regular file"),
        (&folder.join("d.jsonl"), "dangling symbolic link"),
        (&fifo, "not a regular file"),
    ] {
        let want = format!("ci-agg: {}: {reason}, skipped", path.display());
        assert!(stderr.contains(&want), "missing {want:?} in {stderr}");
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let recs: Vec<Value> = stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(recs.len(), 1);
    assert_eq!((&recs[0]["session"], &recs[0]["turns"]), (&Value::from("s1"), &Value::from(1)));
}

/// `ci-agg ROOT` discovers without reading the transcripts' heads and tails
/// (`Detail::Reading`: no start times, so the sessions are read in path
/// order); its answers are those of `ci-find --root ROOT | ci-agg`, whose
/// records carry everything, for every preset.
#[test]
fn a_root_argument_answers_as_ci_find_records_do() {
    let mut roots: Vec<(String, Option<tempfile::TempDir>)> =
        ["claude-transcripts", "claude-progress", "sessiondata-transcript"]
            .iter()
            .map(|f| (root().join("fixtures").join(f).to_string_lossy().into_owned(), None))
            .collect();
    let (dir, _) = generated(9, 42);
    roots.push((dir_arg(&dir), Some(dir)));
    for (root, _keep) in &roots {
        let records = ci("ci-find").args(["--root", root]).run();
        assert_eq!(records.code, 0, "{root}: {records:?}");
        for args in [
            &["--tokens", "--by", "day"][..],
            &["--tokens", "--by", "session"],
            &["--sessions"],
            &["--tools"],
            &["--by", "event"],
            &["--by", "workspace,model"],
        ] {
            let piped = ci("ci-agg").args(args).stdin(records.stdout.clone()).run();
            let direct = ci("ci-agg").args(args).arg(root).run();
            if args[0] == "--tokens" {
                assert!(!piped.stdout.is_empty(), "{root} {args:?}: {piped:?}");
            }
            assert_eq!(
                (direct.code, &direct.stdout, &direct.stderr),
                (piped.code, &piped.stdout, &piped.stderr),
                "{root} {args:?}"
            );
        }
    }
}
