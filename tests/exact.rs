//! The stream between the tools is exact: a record printed cut says so
//! (`ci.cut`, with its line's offset, length and hash), and every tool that
//! reads it works on the whole line, read again from its file; when that line
//! is gone or changed, the record is reported and the run ends with exit 2.

use std::path::Path;

use crate::util::*;

/// Runs `bin args` on `input`, expecting success; returns stdout.
fn pipe(input: impl Into<Vec<u8>>, bin: &str, args: &[&str]) -> String {
    let run = ci(bin).args(args).stdin(input).run();
    assert!(run.code == 0 || run.code == 1, "{bin} {args:?}: {run:?}");
    assert_eq!(run.stderr, "", "{bin} {args:?}");
    run.stdout
}

/// Runs `bin args` on `input`; returns stdout and stderr (a warning about
/// the question, such as a field no record has, is the direct form's too).
fn pipe_both(input: impl Into<Vec<u8>>, bin: &str, args: &[&str]) -> (String, String) {
    let run = ci(bin).args(args).stdin(input).run();
    assert!(run.code == 0 || run.code == 1, "{bin} {args:?}: {run:?}");
    (run.stdout, run.stderr)
}

/// `ci-cat ARGS ROOT` as the first tool of a pipeline (its damage reports
/// are the input's, not the pipeline's).
fn first(bin: &str, args: &[&str], root: &Path) -> String {
    let run = ci(bin).args(args).arg(root).run();
    assert!(run.code <= 2, "{bin} {args:?}: {run:?}");
    run.stdout
}

/// Asserts two outputs are equal, naming the first line that differs
/// (shortened: these lines are long).
fn same(got: &str, want: &str, what: &str) {
    if got == want {
        return;
    }
    let (g, w): (Vec<&str>, Vec<&str>) = (got.lines().collect(), want.lines().collect());
    let i = g.iter().zip(&w).position(|(a, b)| a != b).unwrap_or(g.len().min(w.len()));
    let at = |l: Option<&&str>| {
        let l = l.copied().unwrap_or("<none>");
        let d = g.get(i).zip(w.get(i)).map_or(0, |(a, b)| a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count());
        let from = l.char_indices().map(|(k, _)| k).take_while(|&k| k + 80 <= d).last().unwrap_or(0);
        l[from..].chars().take(240).collect::<String>()
    };
    panic!(
        "{what}: {} vs {} lines; line {} differs:\n got: {}\nwant: {}",
        g.len(),
        w.len(),
        i + 1,
        at(g.get(i)),
        at(w.get(i))
    );
}

/// How many records of an NDJSON text carry a cut marker with its line's site.
fn cut_records(out: &str) -> usize {
    out.lines()
        .filter(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["ci"]["cut"]["xxh3"].is_string())
        .count()
}

/// A capture with records far over the budget: long strings (with escapes
/// and non-ASCII text), long arrays, a nested object, number literals that
/// must come back byte for byte, and an own `ci` key.
fn write_amplifier(root: &Path) -> std::path::PathBuf {
    let mut body = String::new();
    for i in 0..12 {
        let text = format!("line {i}: ").repeat(400 + 37 * i) + "caf\\u00e9 \\\"quoted\\\" 日本語 kernel";
        let items: Vec<String> =
            (0..200 + i).map(|k| format!("{{\"k\":{k},\"v\":\"item-{k}-{}\"}}", "z".repeat(30))).collect();
        body += &format!(
            "{{\"event\":\"llm:request\",\"timestamp\":\"2026-03-0{}T10:00:00Z\",\"workspace\":\"app\",\"data\":{{\"text\":\"{text}\",\"n\":1E5,\"big\":123456789012345678901234567890,\"items\":[{}],\"nested\":{{\"a\":{{\"b\":\"{}\"}}}}}}}}\n",
            1 + i % 9,
            items.join(","),
            "q".repeat(3000)
        );
        body += &format!("{{\"event\":\"tool:pre\",\"data\":{{\"tool_name\":\"Bash\",\"i\":{i}}},\"ci\":{{\"path\":\"/etc/passwd\"}},\"pad\":\"{}\"}}\n", "p".repeat(5000));
    }
    let meta = r#"{"format":"context-intelligence","version":"1.0.0","session_id":"0a1b2c3d-0000-4000-8000-000000000001","workspace":"app","status":"completed"}"#;
    let capture = crate::kit::Tree::at(root).amplifier("-srv-app", "0a1b2c3d-0000-4000-8000-000000000001");
    capture.metadata(meta).raw(body).write().events
}

/// The files under `dir`, sorted.
fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out.sort();
    out
}

/// Every writer's generated tree, as (name, root): Amplifier, Claude hooks
/// (with transcript copies), Claude Code transcripts, Codex rollouts, hook
/// logs, and the hand-made Amplifier capture above.
fn trees(dir: &Path) -> Vec<(&'static str, std::path::PathBuf)> {
    let amp = dir.join("amp");
    write_amplifier(&amp);
    let transcripts = dir.join("claude");
    crate::transcriptgen::generate(&transcripts, 6, 7);
    let codex = dir.join("codex");
    crate::codexgen::generate(&codex, 6, 7);
    // A long tool output (the generator's lines are short).
    let rollout =
        walk(&codex.join("sessions")).into_iter().find(|p| p.extension().is_some_and(|e| e == "jsonl")).unwrap();
    let long = serde_json::json!({"timestamp": "2026-01-01T00:00:09.000Z", "type": "response_item",
        "payload": {"type": "function_call_output", "call_id": "c-long", "output": "kernel ".repeat(900)}});
    let mut text = std::fs::read_to_string(&rollout).unwrap();
    text += &format!("{long}\n");
    std::fs::write(&rollout, text).unwrap();
    let logs = dir.join("hook-logs/logs");
    std::fs::create_dir_all(&logs).unwrap();
    crate::hooklogsgen::generate(&logs, &logs.to_string_lossy(), 4, 7);
    // A long command (the generator's elements are short), in a pretty-printed array.
    let file = walk(&logs).into_iter().find(|p| p.ends_with("pre_tool_use.json")).unwrap();
    let mut elements: Vec<serde_json::Value> = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    let mut long = elements.last().unwrap().clone();
    long["tool_input"] = serde_json::json!({"command": "echo kernel ".repeat(500)});
    elements.push(long);
    std::fs::write(&file, serde_json::to_string_pretty(&elements).unwrap()).unwrap();
    vec![("amplifier", amp), ("transcripts", transcripts), ("codex", codex), ("hook-logs", dir.join("hook-logs"))]
}

/// `ci-cat --full` of the cut stream is `ci-cat --full` of the files, for
/// every writer (array elements included), whatever the budget.
#[test]
fn a_cut_stream_made_whole_is_the_full_stream() {
    let dir = tempfile::tempdir().unwrap();
    for (name, root) in trees(dir.path()) {
        let full = first("ci-cat", &["--full"], &root);
        for budget in ["1024", "2500"] {
            let cut = first("ci-cat", &["--max-bytes", budget], &root);
            if budget == "1024" {
                assert!(cut_records(&cut) > 0, "{name}: nothing was cut at {budget}");
            }
            same(&pipe(cut.clone(), "ci-cat", &["--full"]), &full, &format!("{name} at {budget}"));
            // Cut again downstream, then whole again: the marker is carried.
            let again = pipe(cut, "ci-cat", &["--max-bytes", "1500"]);
            same(&pipe(again, "ci-cat", &["--full"]), &full, &format!("{name} cut twice"));
        }
        // Projections of every writer's records (derived ones pick from the normalised record).
        let values =
            |t: &str| t.lines().map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()).collect::<Vec<_>>();
        for fields in ["event,workspace,data", "event,timestamp,data.tool_input,data.payload"] {
            let direct = first("ci-cat", &["--full", "--fields", fields], &root);
            let cut = first("ci-cat", &["--max-bytes", "1024", "--fields", fields], &root);
            assert!(values(&pipe(cut, "ci-cat", &["--full"])) == values(&direct), "{name}: --fields {fields}");
        }
    }
}

/// The issue's pipelines: `find | filter | grep`, `filter | cat --full`,
/// `filter | agg` give the answers of the direct forms.
#[test]
fn pipelines_give_the_direct_answers() {
    let dir = tempfile::tempdir().unwrap();
    for (name, root) in trees(dir.path()) {
        let select = ["--event", "llm:*", "--event", "tool:*"];
        let filtered = first("ci-filter", &[&select[..], &["--max-bytes", "1024"]].concat(), &root);
        assert!(cut_records(&filtered) > 0, "{name}: nothing was cut");
        let with = |args: &[&'static str]| [&select[..], args].concat();
        for pattern in ["kernel", "item-150", "zzzzzzzz", "q{2000}", "e"] {
            let direct = first("ci-grep", &with(&["-c", pattern]), &root);
            // (Discovery warnings about the session's files come again: not compared.)
            let (piped, _) = pipe_both(filtered.clone(), "ci-grep", &["-c", pattern]);
            same(&piped, &direct, &format!("{name}: grep {pattern}"));
        }
        let whole = first("ci-filter", &with(&["--full"]), &root);
        same(&pipe(filtered.clone(), "ci-cat", &["--full"]), &whole, &format!("{name}: cat --full"));
        // ci-agg has no selection of its own: the direct form aggregates the whole records.
        let by = ["data.text", "data.nested.a.b", "data.payload.output", "data.tool_input.command", "data.items"];
        for args in by.map(|k| vec!["--by", k]).into_iter().chain([vec!["--tools"], vec!["--sum", "data.items.150.k"]])
        {
            let (direct, warned) = pipe_both(whole.clone(), "ci-agg", &args);
            let (piped, piped_warned) = pipe_both(filtered.clone(), "ci-agg", &args);
            same(&piped, &direct, &format!("{name}: agg {args:?}"));
            assert_eq!(piped_warned, warned, "{name}: agg {args:?}");
        }
    }
}

/// Numbers, escapes and a line's own `ci` come back exactly as written.
#[test]
fn a_record_made_whole_keeps_every_byte_of_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = write_amplifier(dir.path());
    let cut = first("ci-cat", &[], &file);
    let whole = pipe(cut, "ci-cat", &["--full"]);
    let text = std::fs::read_to_string(&file).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    for (out, line) in whole.lines().zip(&lines) {
        // The line, then the keys we add (a line's own `ci` is kept as `ci_original`).
        let body = line.strip_suffix('}').unwrap().replace(",\"ci\":{\"path\"", ",\"ci_original\":{\"path\"");
        assert!(out.starts_with(&body), "{out:.200}");
        let added = out[body.len()..].trim_start_matches(",\"workspace\":\"app\"");
        assert!(added.starts_with(",\"ci\":{\"session\":"), "{added:.200}");
        assert!(!out.contains("\"cut\""), "{out:.200}");
    }
    assert_eq!(whole.lines().count(), lines.len());
}

/// A projection printed cut is made whole as the same projection.
#[test]
fn a_cut_projection_is_made_whole_as_a_projection() {
    let dir = tempfile::tempdir().unwrap();
    let file = write_amplifier(dir.path());
    for fields in [
        "event,data",
        "event,data.text,data.nested.a",
        "event,data.items,timestamp",
        "event,data.items[150].v,data.text",
    ] {
        let cut = first("ci-cat", &["--max-bytes", "1024", "--fields", fields], &file);
        assert!(cut_records(&cut) > 0, "{fields}");
        let direct = first("ci-cat", &["--full", "--fields", fields], &file);
        // As values: a projection is re-serialised (numbers and escapes as
        // serde_json writes them), the record made whole keeps the line's bytes.
        let values =
            |t: &str| t.lines().map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()).collect::<Vec<_>>();
        let whole = pipe(cut, "ci-cat", &["--full"]);
        assert!(values(&whole) == values(&direct), "{fields}");
    }
}

/// A line that changed, a file that is gone or shorter: each record is
/// reported with its stream line and dropped, the others are printed, exit 2.
#[test]
fn a_line_that_cannot_be_read_again_is_reported_per_record() {
    let dir = tempfile::tempdir().unwrap();
    let file = write_amplifier(dir.path());
    let cut = first("ci-filter", &["--event", "llm:request"], &file);
    let display = file.to_string_lossy().into_owned();
    let text = std::fs::read_to_string(&file).unwrap();
    // Line 3 (the second llm:request) changes, keeping its length.
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    lines[2] = lines[2].replacen("line 1:", "line X:", 1);
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let run = ci("ci-cat").arg("--full").stdin(cut.clone()).run();
    assert_eq!(run.code, 2);
    assert_eq!(run.lines().len(), 11, "the other records are printed");
    assert_eq!(run.stderr, format!("ci-cat: -:2: {display}:3: the line changed since this record was printed cut\n"));
    // Shorter: every record past the new end.
    std::fs::write(&file, lines[..4].join("\n") + "\n").unwrap();
    let run = ci("ci-cat").arg("--full").stdin(cut.clone()).run();
    assert_eq!((run.code, run.lines().len()), (2, 1), "{}", run.stderr);
    assert_eq!(run.stderr.lines().count(), 11, "{}", run.stderr);
    assert!(
        run.stderr.ends_with(&format!(
            "ci-cat: -:12: {display}:23: cannot read the line again: the file is shorter than when the record was printed\n"
        )),
        "{}",
        run.stderr
    );
    // Gone.
    std::fs::remove_file(&file).unwrap();
    let run = ci("ci-agg").args(["--by", "event"]).stdin(cut).run();
    assert_eq!((run.code, run.stdout.as_str()), (2, ""), "{}", run.stderr);
    assert!(
        run.stderr.starts_with(&format!(
            "ci-agg: -:1: {display}:1: cannot read the line again: No such file or directory (os error 2)\n"
        )),
        "{}",
        run.stderr
    );
}

/// A record that arrived whole and is cut by a later tool has no line to go
/// back to: it says `"cut":true`, and a third tool reports it.
#[test]
fn a_record_cut_after_a_pipe_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let file = write_amplifier(dir.path());
    let whole = first("ci-cat", &["--full", "--head", "1"], &file);
    let cut = pipe(whole, "ci-cat", &[]);
    let rec: serde_json::Value = serde_json::from_str(cut.trim_end()).unwrap();
    assert_eq!(rec["ci"]["cut"], serde_json::json!(true));
    assert!(cut.len() <= 4097, "{}", cut.len());
    let run = ci("ci-grep").args(["-c", "kernel"]).stdin(cut).run();
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        format!(
            "ci-grep: -:1: {}:1: the record was cut by a tool that read it whole from a pipe, so its line is not known; \
             print it with a larger --max-bytes (or --full) there\n",
            file.to_string_lossy()
        )
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 24, ..Default::default() })]

    /// For any records and any budget, the cut stream made whole is the
    /// full stream (the property behind every pipeline above).
    #[test]
    fn any_cut_stream_made_whole_is_the_full_stream(
        datas in proptest::collection::vec(crate::truncate_props::arb_data(), 1..6),
        budget in 1024usize..6000,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("events.jsonl");
        let body: String = datas
            .iter()
            .map(|d| {
                let data = if d.is_object() { d.clone() } else { serde_json::json!({ "v": d }) };
                format!("{}\n", serde_json::json!({"event": "e:x", "data": data}))
            })
            .collect();
        std::fs::write(&file, body).unwrap();
        let full = first("ci-cat", &["--full"], &file);
        let cut = first("ci-cat", &["--max-bytes", &budget.to_string()], &file);
        same(&pipe(cut, "ci-cat", &["--full"]), &full, "ci-cat | ci-cat --full");
    }
}

/// Found by fuzz/fuzz_targets/reread.rs: a line with its own `ci` key (so it
/// is re-serialised) and whitespace in `data`, printed with `--full`, was
/// marked cut (its `data` compacted). Whole, it is printed as written.
#[test]
fn a_whole_record_with_its_own_ci_is_not_marked_cut() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("events.jsonl");
    std::fs::write(
        &file,
        "{\"event\": \"tool:pre\", \"data\": {\"tool_name\": \"bash\"}, \"ci\": {\"path\": \"/etc/passwd\"}}\n",
    )
    .unwrap();
    let run = ci("ci-cat").arg("--full").arg(&file).run();
    assert_eq!(run.code, 0, "{run:?}");
    let line = run.stdout.trim_end();
    assert!(line.starts_with("{\"event\":\"tool:pre\",\"data\":{\"tool_name\": \"bash\"},\"ci_original\":{\"path\": \"/etc/passwd\"},\"ci\":{"), "{line}");
    assert!(!line.contains("\"cut\""), "{line}");
}

/// fuzz target reread: a record over budget in which nothing could be cut
/// (its envelope alone is past the budget, its `data` compact) was printed
/// re-serialised, its whitespace dropped, yet without a marker, so a later
/// tool took it for the line as written. It is printed as `--full` prints it.
#[test]
fn a_record_at_its_floor_is_printed_as_written() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("events.jsonl");
    let line = format!("{{\"event\": \"{}\", \"data\": {{\"tems\":\"m\"}}}}", "e".repeat(1100));
    std::fs::write(&file, format!("{line}\n")).unwrap();
    let full = ci("ci-cat").arg("--full").arg(&file).run();
    let cut = ci("ci-cat").args(["--max-bytes", "1024"]).arg(&file).run();
    assert_eq!((cut.stdout.as_str(), cut.code), (full.stdout.as_str(), 0));
    assert!(cut.stdout.starts_with(&line[..line.len() - 1]), "{}", cut.stdout);
}

/// A forged cut marker: the record of line 1 of `path`, said to be `bytes`
/// long at `offset` with hash `xxh3` (an element of an array when `element`).
fn forged(path: &Path, offset: u64, bytes: u64, xxh3: u64, element: bool) -> String {
    let cut = serde_json::json!({"offset": offset, "bytes": bytes, "xxh3": format!("{xxh3:016x}"), "element": element});
    let ci = serde_json::json!({"session": "s", "path": path, "line": 1, "cut": cut});
    format!("{}\n", serde_json::json!({"event": "e:x", "data": {}, "ci": ci}))
}

/// A forged marker naming a terabyte of a sparse file allocates nothing
/// for it (it aborted on the allocation, or read the zeros as an element
/// until memory ran out): the record is reported, exit 2, within the
/// deadline and under a 1 GB address-space limit.
#[test]
fn a_forged_cut_marker_on_a_sparse_file_allocates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("sparse.jsonl");
    std::fs::File::create(&file).unwrap().set_len(1 << 40).unwrap();
    for (bin, element) in [("ci-cat", false), ("ci-agg", false), ("ci-cat", true)] {
        let mut tool = ci_command(bin);
        tool.args(if bin == "ci-agg" { &["--by", "event"][..] } else { &["--full"] });
        let mut cmd = through_sh(&tool, "ulimit -v 1000000");
        let input = dir.path().join("forged");
        std::fs::write(&input, forged(&file, 0, (1 << 40) - 1, 0, element)).unwrap();
        cmd.stdin(std::fs::File::open(&input).unwrap()).stdout(std::process::Stdio::piped());
        cmd.stderr(std::process::Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        let code = exits_within(&mut child, "the end of a run on a forged marker");
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!((code, out.stdout.as_slice()), (Some(2), &b""[..]), "{bin} {element}: {stderr}");
        // A line is refused for its length before a byte is read (issue 38,
        // CI_MAX_LINE_BYTES); an element's bytes are checked first.
        let why = if element {
            "the line changed since this record was printed cut"
        } else {
            "cannot read the line again: longer than the limit of 268435456 bytes (CI_MAX_LINE_BYTES); skipped unread"
        };
        assert_eq!(stderr, format!("{bin}: -:1: {}:1: {why}\n", file.display()));
    }
}

/// A forged marker with the right hash of a line that is no record (raw
/// control bytes, a bad escape, a leading zero, a trailing comma): the line
/// is checked as a read of the file checks it, reported, never printed.
#[test]
fn a_forged_cut_marker_on_a_bad_line_is_reported_not_printed() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.jsonl");
    let lines: [&[u8]; 4] = [
        b"{\"event\":\"e:x\",\"data\":{\"t\":\"\x01\x1b[2J\"}}",
        b"{\"event\":\"e:x\",\"data\":{\"t\":\"\\q\"}}",
        b"{\"event\":\"e:x\",\"data\":{\"n\":01}}",
        b"{\"event\":\"e:x\",\"data\":{\"a\":[1,]}}",
    ];
    std::fs::write(&file, lines.join(&b"\n"[..])).unwrap();
    let direct = ci("ci-cat").arg("--full").arg(&file).run();
    assert_eq!((direct.code, direct.stdout.as_str()), (2, ""), "read directly, each is a bad line");
    let mut offset = 0;
    for (i, line) in lines.into_iter().enumerate() {
        let hash = ci_tools::record::line_hash(line);
        let run = ci("ci-cat").arg("--full").stdin(forged(&file, offset, line.len() as u64, hash, false)).run();
        assert_eq!((run.code, run.stdout.as_str()), (2, ""), "{run:?}");
        // Raw control bytes end the check of the bytes before any is kept.
        let why = if i == 0 {
            "the line changed since this record was printed cut"
        } else {
            "the line read again is not a record: "
        };
        let want = format!("ci-cat: -:1: {}:1: {why}", file.display());
        assert!(run.stderr.starts_with(&want) && run.stderr.lines().count() == 1, "{}", run.stderr);
        offset += line.len() as u64 + 1;
    }
}
