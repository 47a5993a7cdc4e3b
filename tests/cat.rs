//! ci-cat: expansion, provenance, line selection, truncation, damage and pipes.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::process::Stdio;

use crate::kit::Tree;
use crate::util::*;

const S1_DIR: &str = "fixtures/demo/-home-user-my-api/sessions/a7c3e9d1-4b2f-4e8a-9d61-0c5b7e2f3a10";
const S1_FILE: &str =
    "fixtures/demo/-home-user-my-api/sessions/a7c3e9d1-4b2f-4e8a-9d61-0c5b7e2f3a10/context-intelligence/events.jsonl";
const S3_FILE: &str =
    "fixtures/demo/-home-user-webapp/sessions/b2d4f6a8-1c3e-4a5b-8c7d-9e0f1a2b3c4d/context-intelligence/events.jsonl";
const S4_FILE: &str =
    "fixtures/demo/-C-Users-dev-tools/sessions/c0ffee00-d1a2-4b3c-9d4e-5f6a7b8c9d0e/context-intelligence/events.jsonl";
const S5_FILE: &str =
    "fixtures/demo/-home-bob-myapp/sessions/d4a7b1e3-9c2f-4d85-a0b6-3e1f7c9d2b84/context-intelligence/events.jsonl";

/// Physical line `n` (1-based) of a fixture file, as `sed -n Np` prints it.
fn line_of(path: &str, n: usize) -> Vec<u8> {
    let bytes = std::fs::read(root().join(path)).unwrap();
    bytes.split(|&b| b == b'\n').nth(n - 1).unwrap().to_vec()
}

fn ci_key(session: &str, path: &str, line: u64) -> String {
    format!(r#""ci":{{"session":"{session}","path":"{path}","line":{line}}}"#)
}

#[test]
fn every_good_event_once_with_provenance() {
    let run = ci("ci-cat").stdin(find_demo(&[])).run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    let recs = run.json();
    assert_eq!(recs.len(), 77);
    let mut by_event: BTreeMap<String, u64> = BTreeMap::new();
    for r in &recs {
        *by_event.entry(r["event"].as_str().unwrap().into()).or_default() += 1;
        assert!(r["ci"]["line"].as_u64().unwrap() >= 1);
    }
    let want: BTreeMap<String, u64> = DEMO_EVENTS.iter().map(|&(k, v)| (k.to_owned(), v)).collect();
    assert_eq!(by_event, want);
    // Workspace after filling: session 3's ten lines get the project slug.
    let filled = recs.iter().filter(|r| r["workspace"] == "-home-user-webapp").count();
    assert_eq!(filled, 15);
}

#[test]
fn a_root_argument_equals_find_piped_into_cat() {
    let piped = ci("ci-cat").stdin(find_demo(&[])).run();
    let direct = ci("ci-cat").arg(DEMO).run();
    assert_eq!(piped.stdout, direct.stdout);
    // Discovery in ci-cat reports the metadata problems ci-find reported in the pipe.
    assert!(direct.stderr.starts_with("ci-cat: warning: fixtures/demo/-home-user-webapp/sessions/8c1d2e3f"));
    assert!(direct.stderr.ends_with(&piped.stderr), "{}", direct.stderr);
}

#[test]
fn line_n_is_the_physical_line_plus_provenance() {
    let run = ci("ci-cat").args(["--lines", "8", S1_DIR]).run();
    let mut want = line_of(S1_FILE, 8);
    want.pop(); // the closing brace
    let want = format!(
        "{},{}}}\n",
        String::from_utf8(want).unwrap(),
        ci_key("a7c3e9d1-4b2f-4e8a-9d61-0c5b7e2f3a10", S1_FILE, 8)
    );
    assert_eq!(run.stdout, want);
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
}

#[test]
fn a_range_of_lines_and_raw_bytes() {
    let run = ci("ci-cat").args(["--lines", "8-11", "--raw", S1_FILE]).run();
    let want: Vec<u8> = (8..=11).flat_map(|n| [line_of(S1_FILE, n), b"\n".to_vec()].concat()).collect();
    assert_eq!(run.stdout.as_bytes(), want.as_slice());
}

#[test]
fn head_and_tail_per_capture() {
    let run = ci("ci-cat")
        .args(["--head", "2", "--fields", "event"])
        .stdin(find_demo(&["--project", "-home-user-my-api"]))
        .run();
    let lines: Vec<String> = run.json().iter().map(|r| format!("{}:{}", r["ci"]["session"], r["event"])).collect();
    // Sessions 6 (empty), 2, 1 in find order; first two events of each.
    assert_eq!(
        lines,
        [
            "\"0000000000000000-5f3c9a1e7b2d4c60_foundation-explorer\":\"session:fork\"",
            "\"0000000000000000-5f3c9a1e7b2d4c60_foundation-explorer\":\"session:start\"",
            "\"a7c3e9d1-4b2f-4e8a-9d61-0c5b7e2f3a10\":\"session:start\"",
            "\"a7c3e9d1-4b2f-4e8a-9d61-0c5b7e2f3a10\":\"prompt:submit\"",
        ]
    );
    let run = ci("ci-cat").args(["--tail", "2", "--fields", "event", S1_FILE]).run();
    let events: Vec<String> = run.json().iter().map(|r| r["event"].as_str().unwrap().to_owned()).collect();
    assert_eq!(events, ["orchestrator:complete", "execution:end"]);
}

#[test]
fn older_writer_lines_get_a_workspace() {
    let run = ci("ci-cat").args(["--lines", "1", S3_FILE]).run();
    let mut want = line_of(S3_FILE, 1);
    want.pop();
    assert_eq!(
        run.stdout,
        format!(
            "{},\"workspace\":\"-home-user-webapp\",{}}}\n",
            String::from_utf8(want).unwrap(),
            ci_key("b2d4f6a8-1c3e-4a5b-8c7d-9e0f1a2b3c4d", S3_FILE, 1)
        )
    );
}

#[test]
fn spaced_hand_written_lines_pass_through() {
    let run = ci("ci-cat").args(["--lines", "2", S4_FILE]).run();
    let line = String::from_utf8(line_of(S4_FILE, 2)).unwrap();
    let body = line.trim_end().strip_suffix('}').unwrap().trim_end();
    assert_eq!(run.stdout, format!("{body},{}}}\n", ci_key("c0ffee00-d1a2-4b3c-9d4e-5f6a7b8c9d0e", S4_FILE, 2)));
    // And it is the same JSON as the source line (what `sed -n 2p | jq -c .` gives) plus `ci`.
    let mut got: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    got.as_object_mut().unwrap().remove("ci");
    assert_eq!(got, serde_json::from_str::<serde_json::Value>(&line).unwrap());
}

#[test]
fn damaged_capture_reports_each_bad_line_and_keeps_the_good_ones() {
    let run = ci("ci-cat").arg(S5_FILE).run();
    assert_eq!(run.code, 0);
    let lines: Vec<u64> = run.json().iter().map(|r| r["ci"]["line"].as_u64().unwrap()).collect();
    assert_eq!(lines, [1, 2, 3, 5, 7, 9, 11]);
    assert_eq!(
        run.stderr,
        format!(
            "{S5_FILE}:4: invalid JSON at byte 59: expected ',' or '}}'\n\
             {S5_FILE}:6: blank line\n\
             {S5_FILE}:8: not a JSON object\n\
             {S5_FILE}:10: invalid UTF-8 at byte 257\n\
             ci-cat: 4 bad lines skipped, 1 unfinished last line held back (capture still being written?) (--strict makes bad lines an error)\n"
        )
    );
    let strict = ci("ci-cat").args(["--strict", S5_FILE]).run();
    assert_eq!(strict.code, 2);
    assert_eq!(strict.stdout, run.stdout);
}

#[test]
fn long_records_are_truncated_within_budget() {
    let run = ci("ci-cat").args(["--lines", "5", S1_FILE]).run();
    assert_eq!(run.code, 0);
    let line = run.stdout.trim_end();
    assert!(line.len() <= 4096, "{} bytes", line.len());
    assert!(!line.contains("<<END-OF-LONG-CONTENT>>"));
    assert!(line.contains("bytes]"), "no truncation marker: {line}");
    let rec: serde_json::Value = serde_json::from_str(line).unwrap();
    let src: serde_json::Value = serde_json::from_slice(&line_of(S1_FILE, 5)).unwrap();
    for key in ["event", "timestamp", "workspace"] {
        assert_eq!(rec[key], src[key]);
    }
    for key in ["session_id", "parent_id", "model", "timestamp", "message_count"] {
        assert_eq!(rec["data"][key], src["data"][key], "{key}");
    }
    // A smaller budget from the environment, and --full for none.
    let small = ci("ci-cat").env("CI_MAX_BYTES", "1500").args(["--lines", "5", S1_FILE]).run();
    assert!(small.stdout.trim_end().len() <= 1500, "{}", small.stdout.len());
    let full = ci("ci-cat").args(["--full", "--lines", "5", S1_FILE]).run();
    assert!(full.stdout.contains("<<END-OF-LONG-CONTENT>>"));
}

#[test]
fn piping_cat_into_cat_keeps_provenance() {
    let first = ci("ci-cat").arg(S1_FILE).run();
    let second = ci("ci-cat").stdin(first.stdout.clone()).run();
    assert_eq!(second.stdout, first.stdout);
    assert_eq!((second.code, second.stderr.as_str()), (0, ""));
}

#[test]
fn projection_of_fields() {
    let run = ci("ci-cat").args(["--lines", "15", "--fields", "event,data.tool_name,data.missing", S1_FILE]).run();
    assert_eq!(
        run.stdout,
        format!(
            "{{\"event\":\"tool:pre\",\"data\":{{\"tool_name\":\"bash\",\"missing\":null}},{}}}\n",
            ci_key("a7c3e9d1-4b2f-4e8a-9d61-0c5b7e2f3a10", S1_FILE, 15)
        )
    );
}

#[test]
fn missing_input_is_an_error_but_the_rest_is_read() {
    let run = ci("ci-cat").args(["--fields", "event", "no/such/file.jsonl", S3_FILE]).run();
    assert_eq!(run.code, 2);
    assert_eq!(run.json().len(), 10);
    assert_eq!(run.stderr, "ci-cat: no/such/file.jsonl: No such file or directory (os error 2)\n");
}

#[test]
fn closed_pipe_is_a_quiet_success() {
    let args = vec![S1_FILE; 300];
    let mut child = ci_command("ci-cat").args(&args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
    // stdout is dropped here: the reader is gone.
    let out = child.wait_with_output().unwrap();
    assert!(first.starts_with("{\"data\""));
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

/// What `jq -c 'select(...)'`-style recipes give on a well-formed file: its
/// events as parsed JSON, with physical line numbers.
fn recipe(path: &str) -> Vec<(u64, serde_json::Value)> {
    let bytes = std::fs::read(root().join(path)).unwrap();
    bytes
        .split(|&b| b == b'\n')
        .enumerate()
        .filter(|(_, l)| !l.is_empty())
        .map(|(i, l)| (i as u64 + 1, serde_json::from_slice(l).unwrap()))
        .collect()
}

#[test]
fn event_counts_of_one_session_equal_the_jq_recipe() {
    // jq -r .event events.jsonl | sort | uniq -c
    let mut want: BTreeMap<String, u64> = BTreeMap::new();
    for (_, v) in recipe(S1_FILE) {
        *want.entry(v["event"].as_str().unwrap().into()).or_default() += 1;
    }
    let run = ci("ci-cat").args(["--fields", "event"]).stdin(find_demo(&["--session", "a7c3e9d1"])).run();
    let mut got: BTreeMap<String, u64> = BTreeMap::new();
    for r in run.json() {
        *got.entry(r["event"].as_str().unwrap().into()).or_default() += 1;
    }
    assert_eq!(got, want);
    assert_eq!(got.values().sum::<u64>(), 29);
}

#[test]
fn first_tool_calls_equal_the_jq_recipe() {
    // jq -c 'select(.event == "tool:pre") | .data.tool_name' | head -3, with line numbers.
    let want: Vec<(u64, String)> = recipe(S1_FILE)
        .into_iter()
        .filter(|(_, v)| v["event"] == "tool:pre")
        .map(|(n, v)| (n, v["data"]["tool_name"].as_str().unwrap().to_owned()))
        .take(3)
        .collect();
    let run = ci("ci-cat").args(["--full", "--fields", "event,data.tool_name", S1_FILE]).run();
    let got: Vec<(u64, String)> = run
        .json()
        .into_iter()
        .filter(|r| r["event"] == "tool:pre")
        .map(|r| (r["ci"]["line"].as_u64().unwrap(), r["data"]["tool_name"].as_str().unwrap().to_owned()))
        .take(3)
        .collect();
    assert_eq!(got, want);
    assert_eq!(got, [(8, "bash".to_owned()), (9, "read_file".to_owned()), (15, "bash".to_owned())]);
}

#[test]
fn nested_tool_call_ids_do_not_break_the_budget() {
    // An llm:request whose 300 tool messages each carry a `tool_call_id`:
    // only the direct members of `data` are protected, so the record fits.
    let messages: Vec<serde_json::Value> = (0..300)
        .map(|i| {
            serde_json::json!({
                "role": "tool",
                "tool_call_id": format!("toolu_{i:024}"),
                "content": format!("tool output {i} ").repeat(50),
            })
        })
        .collect();
    let record = serde_json::json!({
        "data": {"model": "m", "raw": {"messages": messages}, "session_id": "s", "tool_name": "t"},
        "event": "llm:request",
        "timestamp": "2026-01-01T00:00:00.000Z",
        "workspace": "w",
        "ci": {"session": "s", "path": "p.jsonl", "line": 7},
    });
    let input = format!("{record}\n");
    let data_of = |max: usize, fields: &[&str]| {
        let max_arg = max.to_string();
        let mut args = vec!["--max-bytes", max_arg.as_str()];
        args.extend(fields);
        let run = ci("ci-cat").args(args).stdin(input.clone()).run();
        assert_eq!((run.code, run.stderr.as_str()), (0, ""));
        let line = run.stdout.trim_end().to_owned();
        assert!(line.len() <= max, "{} bytes: {line}", line.len());
        let rec: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(rec["event"], "llm:request");
        // Cut here, after a pipe: said so (the line's site is not known).
        let mut ci = record["ci"].clone();
        ci["cut"] = serde_json::json!(true);
        assert_eq!(rec["ci"], ci);
        assert_eq!(rec["data"]["model"], "m");
        assert_eq!(rec["data"]["tool_name"], "t");
        rec
    };
    let whole = data_of(1024, &[]);
    assert_eq!(whole["data"]["session_id"], "s");
    assert_eq!(whole["timestamp"], record["timestamp"]);
    let kept = whole["data"]["raw"]["messages"].as_array().unwrap().len();
    assert!((2..300).contains(&kept), "{kept} messages");
    // A projection shrinks only its `data`, whose direct members stay
    // protected: `raw` is cut, never `tool_name`/`model` (checked by
    // data_of). The smallest budget is 1024 bytes (issue 15): it used to be
    // 160 here, where `raw` was elided whole.
    let projected = data_of(1024, &["--fields", "event,data.tool_name,data.raw,data.model"]);
    let kept = projected["data"]["raw"]["messages"].as_array().unwrap().len();
    assert!((1..300).contains(&kept), "{kept} messages");
}

/// Writes `n` captures `-p/sessions/s000…` under `root`, capture `i` with
/// `lines(i)` lines of about 1 KB: event `e:<i>`, `data.n` the line's index.
fn write_captures(root: &std::path::Path, n: usize, lines: impl Fn(usize) -> usize) {
    let text = "x".repeat(1000);
    let tree = Tree::at(root);
    for i in 0..n {
        let body = (0..lines(i)).map(|k| format!("{{\"data\":{{\"n\":{k},\"text\":\"{text}\"}},\"event\":\"e:{i}\"}}"));
        tree.amplifier("-p", format!("s{i:03}")).no_metadata().lines(body).write();
    }
}

/// Captures of very different sizes read by several workers: a worker hands
/// several small captures on in one chunk and a large one (400 KB, past the
/// 256 KiB chunk) in several, and captures are dealt by size, not in turn. The output
/// is the same with any number of threads, capture by capture in order.
#[test]
fn output_order_holds_whatever_the_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    write_captures(dir.path(), 24, |i| [1, 40, 3, 400][i % 4]);
    let one = ci("ci-cat").args(["--full", "-j1"]).arg(dir.path()).run();
    assert_eq!(one.code, 0, "{}", one.stderr);
    // s00 first, each capture's lines in file order.
    let order: Vec<(String, u64)> = one
        .json()
        .iter()
        .map(|v| (v["event"].as_str().unwrap().to_owned(), v["data"]["n"].as_u64().unwrap()))
        .collect();
    let want: Vec<(String, u64)> =
        (0..24).flat_map(|i| (0..[1, 40, 3, 400][i % 4]).map(move |n| (format!("e:{i}"), n))).collect();
    assert_eq!(order, want);
    for j in ["2", "3"] {
        let run = ci("ci-cat").args(["--full", "-j", j]).arg(dir.path()).run();
        assert!(run.stdout == one.stdout, "-j{j} changed the output");
    }
    let grep: Vec<String> = ["1", "3"]
        .iter()
        .map(|j| ci("ci-grep").args(["-c", "-F", "xx", "-j", j]).arg(dir.path()).run().stdout)
        .collect();
    assert_eq!(grep[0], grep[1]);
    assert_eq!(grep[0].lines().count(), 24);
}

/// One large capture first, then many small ones with output of their own:
/// the large one's worker is busy while the other fills its output and its
/// queue. The output still comes, complete and in order (a dealer that held
/// the large capture back while waiting to hand the other worker more work
/// would wait for ever).
#[test]
fn a_large_capture_before_many_small_ones_does_not_stall() {
    let dir = tempfile::tempdir().unwrap();
    // 4 MB, then 600 captures of 5 KB: the second worker gets all of those
    // (it has fewer bytes dealt), its output fills before they are dealt.
    write_captures(dir.path(), 601, |i| if i == 0 { 4000 } else { 5 });
    for input in ["root", "records"] {
        let mut cmd = ci_command("ci-cat");
        cmd.args(["--full", "-j2"]).stdout(Stdio::piped()).stderr(Stdio::null());
        if input == "root" {
            cmd.arg(dir.path()).stdin(Stdio::null());
        } else {
            let found = ci("ci-find").arg("--root").arg(dir.path()).run();
            std::fs::write(dir.path().join("records"), found.stdout).unwrap();
            cmd.stdin(std::fs::File::open(dir.path().join("records")).unwrap());
        }
        let mut child = cmd.spawn().unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let reader = std::thread::spawn(move || {
            let mut out = Vec::new();
            std::io::Read::read_to_end(&mut stdout, &mut out).map(|_| out)
        });
        let code = exits_within(&mut child, &format!("{input}: ci-cat's end (it stalled)"));
        assert_eq!(code, Some(0), "{input}");
        let out = reader.join().unwrap().unwrap();
        assert_eq!(out.iter().filter(|&&b| b == b'\n').count(), 4000 + 600 * 5, "{input}");
    }
}
