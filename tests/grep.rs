//! ci-grep on the demo captures and on `fixtures/grep/cases.jsonl`.
//!
//! Expected values were worked out from the fixture files by hand (offsets
//! counted in the decoded strings quoted in the comments) and cross-checked
//! with Python's `json` module walking every string of `data`; see
//! `fixtures/README.md` ("Decoded-string hits").

use serde_json::{json, Value};

use crate::util::*;

const S1: &str = "a7c3e9d1-4b2f-4e8a-9d61-0c5b7e2f3a10";
const S1_PATH: &str =
    "fixtures/demo/-home-user-my-api/sessions/a7c3e9d1-4b2f-4e8a-9d61-0c5b7e2f3a10/context-intelligence/events.jsonl";
const S4: &str = "c0ffee00-d1a2-4b3c-9d4e-5f6a7b8c9d0e";
const S4_PATH: &str =
    "fixtures/demo/-C-Users-dev-tools/sessions/c0ffee00-d1a2-4b3c-9d4e-5f6a7b8c9d0e/context-intelligence/events.jsonl";
const CASES: &str = "fixtures/grep/cases.jsonl";

fn grep(args: &[&str]) -> Run {
    ci("ci-grep").args(args).run()
}

/// (session prefix, line, path) of every match record, in output order.
fn sites(run: &Run) -> Vec<(String, u64, String)> {
    run.json()
        .iter()
        .map(|r| {
            (
                r["session"].as_str().unwrap().chars().take(8).collect(),
                r["line"].as_u64().unwrap(),
                r["path"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// `sites` with consecutive duplicates (several matches in one string) merged.
fn strings(run: &Run) -> Vec<(String, u64, String)> {
    let mut v = sites(run);
    v.dedup();
    v
}

/// The cut marker of a match in line `line` (from 1) of the Amplifier file
/// `path`: where the line is, its length and its hash, as a later tool
/// reads the event again from them.
fn marker(path: &str, line: usize) -> String {
    let text = std::fs::read(path).unwrap();
    let lines: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
    let offset: usize = lines[..line - 1].iter().map(|l| l.len() + 1).sum();
    let this = lines[line - 1];
    let hash = xxhash_rust::xxh3::xxh3_64(this);
    format!(r#","cut":{{"offset":{offset},"bytes":{},"xxh3":"{hash:016x}","writer":"amplifier"}}"#, this.len())
}

fn site(s: &str, line: u64, path: &str) -> (String, u64, String) {
    (s.to_owned(), line, path.to_owned())
}

#[test]
fn escaped_non_ascii_matches_decoded_text() {
    // Session 1 stores café as caf\u00e9: 45 matches in 9 strings (37 in the
    // long message of line 5); nothing elsewhere in the demo.
    let run = grep(&["café", DEMO]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.lines().len(), 45);
    assert_eq!(
        strings(&run),
        [
            site("a7c3e9d1", 2, "data.prompt"),
            site("a7c3e9d1", 3, "data.prompt"),
            site("a7c3e9d1", 5, "data.raw.messages.0.content"),
            site("a7c3e9d1", 5, "data.raw.messages.1.content"),
            site("a7c3e9d1", 9, "data.tool_input.file_path"),
            site("a7c3e9d1", 11, "data.tool_input.file_path"),
            site("a7c3e9d1", 16, "data.result.output"),
            site("a7c3e9d1", 27, "data.prompt"),
            site("a7c3e9d1", 27, "data.response"),
        ]
    );
    // Line 2's prompt: "Write release notes for the café module, with the 日本語
    // docs and the \"quoted\" flag 🚀\nThen run the tests." — café at char 28,
    // 40 characters of context after it, cut with an ellipsis.
    assert_eq!(
        run.lines()[0],
        format!(
            r#"{{"session":"{S1}","line":2,"event":"prompt:submit","timestamp":"2026-03-02T09:15:01.250+00:00","workspace":"my-api","path":"data.prompt","key":false,"offset":28,"char_offset":28,"match":"café","snippet":"Write release notes for the café module, with the 日本語 docs and the \"quot…","ci":{{"session":"{S1}","path":"{S1_PATH}","line":2{}}}}}"#,
            marker(S1_PATH, 2)
        )
    );
}

#[test]
fn cjk_stored_as_escapes_matches() {
    let run = grep(&["-F", "日本語", DEMO]);
    assert_eq!(run.code, 0);
    assert_eq!(run.lines().len(), 44);
    assert_eq!(
        strings(&run),
        [
            site("a7c3e9d1", 2, "data.prompt"),
            site("a7c3e9d1", 3, "data.prompt"),
            site("a7c3e9d1", 5, "data.raw.messages.0.content"),
            site("a7c3e9d1", 5, "data.raw.messages.1.content"),
            site("a7c3e9d1", 17, "data.tool_input.file_path"),
            site("a7c3e9d1", 18, "data.error.msg"),
            site("a7c3e9d1", 27, "data.prompt"),
            site("a7c3e9d1", 27, "data.response"),
        ]
    );
    // 日本語 starts at char 50 of line 2's prompt, byte 51 (after é).
    let first = &run.json()[0];
    assert_eq!((first["offset"].as_u64(), first["char_offset"].as_u64()), (Some(51), Some(50)));
    assert_eq!(
        first["snippet"],
        "…ase notes for the café module, with the 日本語 docs and the \"quoted\" flag 🚀\\nThen run t…"
    );
}

#[test]
fn quotes_stored_escaped_match_with_exact_offsets_and_snippet() {
    // "quoted" starts at char 67 of line 2's prompt; before it é (+1 byte) and
    // 日本語 (+6 bytes), so byte 74. Ten characters each side; the newline
    // after 🚀 is shown as \n.
    let run = grep(&["-F", "-C", "10", "\"quoted\"", DEMO]);
    assert_eq!(run.code, 0);
    assert_eq!(
        sites(&run),
        [
            site("a7c3e9d1", 2, "data.prompt"),
            site("a7c3e9d1", 3, "data.prompt"),
            site("a7c3e9d1", 5, "data.raw.messages.1.content"),
            site("a7c3e9d1", 27, "data.prompt"),
        ]
    );
    assert_eq!(
        run.lines()[0],
        format!(
            r#"{{"session":"{S1}","line":2,"event":"prompt:submit","timestamp":"2026-03-02T09:15:01.250+00:00","workspace":"my-api","path":"data.prompt","key":false,"offset":74,"char_offset":67,"match":"\"quoted\"","snippet":"…s and the \"quoted\" flag 🚀\\nTh…","ci":{{"session":"{S1}","path":"{S1_PATH}","line":2{}}}}}"#,
            marker(S1_PATH, 2)
        )
    );
}

#[test]
fn a_newline_in_the_pattern_is_a_real_newline() {
    // Line 2's prompt: … the "quoted" flag 🚀 (char 81), a newline, "Then run
    // the tests."; the snippet shows the newline as \n.
    let run = grep(&["-m", "1", "-C", "10", r"🚀\nThen", DEMO]);
    assert_eq!(run.code, 0);
    let r = &run.json()[0];
    assert_eq!((r["line"].as_u64(), r["char_offset"].as_u64(), r["offset"].as_u64()), (Some(2), Some(81), Some(88)));
    assert_eq!(r["match"], "🚀\nThen");
    assert_eq!(r["snippet"], "…ted\" flag 🚀\\nThen run the t…");
    // The same text typed with -F and a real newline.
    let run = grep(&["-F", "-m", "1", "🚀\nThen", DEMO]);
    assert_eq!(run.json()[0]["char_offset"], 81);
}

#[test]
fn raw_utf8_capture_and_escaped_capture_both_match() {
    // Session 4 is written in raw UTF-8, session 1 with \u escapes.
    let run = grep(&["ошибка", DEMO]);
    assert_eq!(run.code, 0);
    let s = strings(&run);
    assert_eq!(s[0], site("a7c3e9d1", 5, "data.raw.messages.0.content"));
    assert_eq!(
        &s[1..],
        [
            site("c0ffee00", 2, "data.prompt"),
            site("c0ffee00", 4, "data.result.output"),
            site("c0ffee00", 6, "data.prompt")
        ]
    );
}

#[test]
fn decoy_record_text_is_found_once_inside_the_output() {
    // Raw bytes contain `tool:pre` on 11 good lines, but the decoded text
    // `"event":"tool:pre"` exists once: in line 10's tool output
    // "running 1 test\ntest log_format::roundtrip ... ok\nsample: {\"event\":…".
    let run = grep(&["-F", "-C", "10", r#""event":"tool:pre""#, DEMO]);
    assert_eq!(run.code, 0);
    assert_eq!(
        run.lines(),
        [format!(
            r#"{{"session":"{S1}","line":10,"event":"tool:post","timestamp":"2026-03-02T09:15:09.833201775+00:00","workspace":"my-api","path":"data.result.output","key":false,"offset":58,"char_offset":58,"match":"\"event\":\"tool:pre\"","snippet":"…\\nsample: {{\"event\":\"tool:pre\",\"tool\":\"b…","ci":{{"session":"{S1}","path":"{S1_PATH}","line":10{}}}}}"#,
            marker(S1_PATH, 10)
        )]
    );
}

#[test]
fn typed_escape_sequences_are_text_not_characters() {
    // `\u00e9` typed with -F is six characters; the demo stores é as that
    // escape, but no decoded string contains the six characters.
    let run = grep(&["-F", r"\u00e9", DEMO]);
    assert_eq!((run.code, run.stdout.as_str()), (1, ""));
    // As a regex the backslash must be escaped; same answer.
    assert_eq!(grep(&[r"\\u00e9", DEMO]).code, 1);
    // In the cases file, line 4's output is "the JSON escape for é is written
    // \u00e9" (stored as \u00e9 … \\u00e9): only the typed text matches, at
    // char 33 (byte 34: é is two bytes).
    let run = grep(&["-F", r"\u00e9", CASES]);
    assert_eq!(
        run.lines(),
        [format!(
            r#"{{"session":"cases","line":4,"event":"tool:post","timestamp":"2026-03-08T10:00:03+00:00","workspace":"grep","path":"data.result.output","key":false,"offset":34,"char_offset":33,"match":"\\u00e9","snippet":"the JSON escape for é is written \\u00e9","ci":{{"session":"cases","path":"fixtures/grep/cases.jsonl","line":4{}}}}}"#,
            marker(CASES, 4)
        )]
    );
    // In regex syntax, \u00e9 is the character é (line 5 has ten more).
    let run = grep(&["--field", "data.result", r"\u00e9", CASES]);
    assert_eq!(run.json().iter().map(|r| r["char_offset"].as_u64().unwrap()).collect::<Vec<_>>(), [20]);
}

#[test]
fn snippets_at_string_edges_and_around_multibyte_characters() {
    // Line 5: prompt "日本語" (the whole string), response "ééééé 日本語 ééééé".
    let run = grep(&["-C", "3", "日本語", CASES]);
    let got: Vec<(Value, Value, Value, Value)> = run
        .json()
        .iter()
        .map(|r| (r["path"].clone(), r["offset"].clone(), r["char_offset"].clone(), r["snippet"].clone()))
        .collect();
    assert_eq!(
        got,
        [
            (json!("data.prompt"), json!(0), json!(0), json!("日本語")),
            (json!("data.response"), json!(11), json!(6), json!("…éé 日本語 éé…")),
        ]
    );
    // Context 0: only the match, cut marks on both sides.
    let run = grep(&["-C", "0", "--field", "data.response", "日本語", CASES]);
    assert_eq!(run.json()[0]["snippet"], "…日本語…");
}

#[test]
fn case_folding_covers_non_ascii() {
    // Line 1 stores "Bitte \u00dcBERPR\u00dcFUNG der Daten", line 2 (raw
    // UTF-8) "eine Überprüfung läuft".
    let run = grep(&["ÜBERPRÜFUNG", CASES]);
    assert_eq!(sites(&run), [site("cases", 1, "data.prompt")]);
    let run = grep(&["-i", "ÜBERPRÜFUNG", CASES]);
    assert_eq!(sites(&run), [site("cases", 1, "data.prompt"), site("cases", 2, "data.result.output")]);
    assert_eq!(run.json()[1]["match"], "Überprüfung");
    assert_eq!(run.json()[1]["char_offset"], 5);
    // KELVIN SIGN (stored \u212a) folds to k.
    let run = grep(&["-i", "kelvin", CASES]);
    assert_eq!(run.json()[0]["match"], "\u{212a}elvin");
}

#[test]
fn a_pattern_only_in_a_key_needs_keys() {
    let run = grep(&["zebra", CASES]);
    assert_eq!((run.code, run.stdout.as_str()), (1, ""));
    let run = grep(&["--keys", "zebra", CASES]);
    assert_eq!(
        run.lines(),
        [format!(
            r#"{{"session":"cases","line":3,"event":"tool:pre","timestamp":"2026-03-08T10:00:02+00:00","workspace":"grep","path":"data.tool_input.zebra_key","key":true,"offset":0,"char_offset":0,"match":"zebra","snippet":"zebra_key","ci":{{"session":"cases","path":"fixtures/grep/cases.jsonl","line":3{}}}}}"#,
            marker(CASES, 3)
        )]
    );
}

#[test]
fn field_scopes_by_whole_segment_prefix() {
    let run = grep(&["--field", "data.result", "ошибка", DEMO]);
    assert_eq!(sites(&run), [site("c0ffee00", 4, "data.result.output")]);
    let run = grep(&["--field", "data.result.output", "ошибка", DEMO]);
    assert_eq!(sites(&run), [site("c0ffee00", 4, "data.result.output")]);
    // data.res is not a segment prefix of data.result.
    assert_eq!(grep(&["--field", "data.res", "ошибка", DEMO]).code, 1);
    // Repeatable; paths into arrays by index.
    let run = grep(&["--field", "data.raw.messages.1", "--field", "data.prompt", "-F", "\"quoted\"", DEMO]);
    assert_eq!(run.lines().len(), 4);
    let run = grep(&["--field", "data.raw.messages.1", "-F", "\"quoted\"", DEMO]);
    assert_eq!(sites(&run), [site("a7c3e9d1", 5, "data.raw.messages.1.content")]);
    // Envelope fields only when named.
    assert_eq!(grep(&["prompt:submit", DEMO]).code, 1);
    assert_eq!(grep(&["--field", "event", "-c", "prompt:submit", DEMO]).lines().len(), 7);
}

#[test]
fn count_per_session() {
    let run = grep(&["-c", "ошибка", DEMO]);
    assert_eq!(
        run.lines(),
        [
            format!(r#"{{"session":"{S1}","path":"{S1_PATH}","count":37}}"#),
            format!(r#"{{"session":"{S4}","path":"{S4_PATH}","count":3}}"#),
        ]
    );
    let run = grep(&["-c", "--format", "text", "ошибка", DEMO]);
    assert_eq!(run.lines(), [format!("{S1}:37"), format!("{S4}:3")]);
    let run = grep(&["-c", "-m", "2", "ошибка", DEMO]);
    assert_eq!(run.json().iter().map(|r| r["count"].as_u64().unwrap()).collect::<Vec<_>>(), [2, 2]);
}

#[test]
fn max_count_stops_per_session() {
    let run = grep(&["-m", "2", "café", DEMO]);
    assert_eq!(sites(&run), [site("a7c3e9d1", 2, "data.prompt"), site("a7c3e9d1", 3, "data.prompt")]);
    let run = grep(&["-m", "1", "ошибка", DEMO]);
    assert_eq!(sites(&run), [site("a7c3e9d1", 5, "data.raw.messages.0.content"), site("c0ffee00", 2, "data.prompt")]);
    assert_eq!(grep(&["-m", "0", "ошибка", DEMO]).code, 1);
}

#[test]
fn list_prints_session_records_that_pipe_into_ci_cat() {
    let run = grep(&["-l", "-F", r#""event":"tool:pre""#, DEMO]);
    assert_eq!(run.code, 0);
    assert_eq!(without_mtime(&run.stdout), without_mtime(&find_demo(&["--session", S1])));
    let cat = ci("ci-cat").args(["--lines", "10", "--fields", "event,data.tool_name"]).stdin(run.stdout).run();
    assert_eq!(
        cat.lines(),
        [format!(
            r#"{{"event":"tool:post","data":{{"tool_name":"bash"}},"ci":{{"session":"{S1}","path":"{S1_PATH}","line":10}}}}"#
        )]
    );
    // A plain file gets a minimal record that ci-cat expands all the same.
    let run = grep(&["-l", "--keys", "zebra", CASES]);
    let rec: Value = serde_json::from_str(run.lines()[0]).unwrap();
    assert_eq!((&rec["session"], &rec["path"], &rec["format"]), (&json!("cases"), &json!(CASES), &json!("amplifier")));
    let cat = ci("ci-cat").stdin(run.stdout).run();
    assert_eq!(cat.lines().len(), 6);
    let run = grep(&["-l", "--format", "text", "ошибка", DEMO]);
    assert_eq!(run.lines(), [S1_PATH, S4_PATH]);
}

#[test]
fn session_records_from_ci_find_are_searched_and_narrowed() {
    let found = find_demo(&["--workspace=-C-Users-dev-tools"]);
    let run = ci("ci-grep").args(["-c", "ошибка"]).stdin(found).run();
    assert_eq!(run.lines(), [format!(r#"{{"session":"{S4}","path":"{S4_PATH}","count":3}}"#)]);
    let all = find_demo(&[]);
    let run = ci("ci-grep").args(["-c", "--session", "c0ffee00", "ошибка"]).stdin(all.clone()).run();
    assert_eq!(run.json().len(), 1);
    assert_eq!(run.json()[0]["session"], S4);
    let run = ci("ci-grep").args(["-c", "--workspace=-C-Users-dev-tools", "ошибка"]).stdin(all).run();
    assert_eq!(run.json()[0]["session"], S4);
    assert_eq!(run.json().len(), 1);
}

#[test]
fn event_narrowing_with_globs() {
    let run = grep(&["--event", "tool:*", "café", DEMO]);
    assert_eq!(
        strings(&run),
        [
            site("a7c3e9d1", 9, "data.tool_input.file_path"),
            site("a7c3e9d1", 11, "data.tool_input.file_path"),
            site("a7c3e9d1", 16, "data.result.output")
        ]
    );
    let run = grep(&["--event", "prompt:submit", "--event", "prompt:complete", "-c", "café", DEMO]);
    assert_eq!(run.json()[0]["count"], 3);
}

#[test]
fn piped_event_records_keep_their_provenance() {
    let events = ci("ci-cat").args(["--full", S1_PATH]).run().stdout;
    let piped = ci("ci-grep").args(["-F", "-C", "10", "\"quoted\""]).stdin(events.clone()).run();
    let direct = grep(&["-F", "-C", "10", "\"quoted\"", S1_PATH]);
    assert_eq!(piped.code, 0);
    // The same, but for where the line is: a record piped whole does not say
    // (its match records carry it instead, README "ci-grep in brief").
    let uncut = |r: &Run| {
        r.json()
            .into_iter()
            .map(|mut m| {
                let record = m.as_object_mut().unwrap().remove("record");
                assert_eq!(record.is_some(), m["ci"]["cut"] == true, "{m}");
                m["ci"].as_object_mut().unwrap().remove("cut").map(|c| (m, c.is_object()))
            })
            .collect::<Vec<_>>()
    };
    let (piped_all, direct_all) = (uncut(&piped), uncut(&direct));
    assert_eq!(piped_all.len(), 4);
    for (p, d) in piped_all.iter().zip(&direct_all) {
        assert_eq!((&p.as_ref().unwrap().0, p.as_ref().unwrap().1), (&d.as_ref().unwrap().0, false));
        assert!(d.as_ref().unwrap().1);
    }
    let piped = ci("ci-grep").args(["-m", "2", "café"]).stdin(events.clone()).run();
    assert_eq!(sites(&piped), [site("a7c3e9d1", 2, "data.prompt"), site("a7c3e9d1", 3, "data.prompt")]);
    let piped = ci("ci-grep").args(["-c", "café"]).stdin(events.clone()).run();
    assert_eq!(piped.lines(), [format!(r#"{{"session":"{S1}","path":"{S1_PATH}","count":45}}"#)]);
    let piped = ci("ci-grep").args(["-l", "café"]).stdin(events).run();
    assert_eq!(without_mtime(&piped.stdout), without_mtime(&find_demo(&["--session", S1])));
}

#[test]
fn text_format_with_and_without_colour() {
    let run = grep(&["--format", "text", "-C", "5", "-F", "\"quoted\"", "--field", "data.raw", DEMO]);
    assert_eq!(run.lines(), [format!("{S1_PATH}:5: llm:request data.raw.messages.1.content: … the \"quoted\" flag…")]);
    let run =
        grep(&["--format", "text", "--color", "always", "-C", "5", "-F", "\"quoted\"", "--field", "data.raw", DEMO]);
    assert_eq!(
        run.lines(),
        [format!(
            "\x1b[35m{S1_PATH}\x1b[0m:\x1b[32m5\x1b[0m: llm:request data.raw.messages.1.content: … the \x1b[1;31m\"quoted\"\x1b[0m flag…"
        )]
    );
    // Not a terminal: auto means no colour, whatever NO_COLOR says.
    let run = ci("ci-grep").args(["--format", "text", "--keys", "zebra", CASES]).env("NO_COLOR", "1").run();
    assert_eq!(run.lines(), [format!("{CASES}:3: tool:pre data.tool_input.zebra_key (key): zebra_key")]);
}

#[test]
fn word_and_multiple_patterns() {
    // "lignes" is a word in session 4 (lines 4 and 6); "ligne" is not one.
    assert_eq!(grep(&["-w", "ligne", DEMO]).code, 1);
    assert_eq!(grep(&["-c", "ligne", DEMO]).json()[0]["count"], 2);
    assert_eq!(grep(&["-w", "-c", "lignes", DEMO]).json()[0]["count"], 2);
    let run = grep(&["-e", "zebra", "-e", "Kelvin", "--keys", CASES]);
    assert_eq!(sites(&run), [site("cases", 3, "data.tool_input.zebra_key")]);
    let run = grep(&["-e", "zebra", "-e", "300", "--keys", CASES]);
    assert_eq!(sites(&run), [site("cases", 3, "data.tool_input.zebra_key"), site("cases", 6, "data.result.output")]);
}

#[test]
fn exit_status_and_errors() {
    assert_eq!(grep(&["no-such-text-anywhere", DEMO]).code, 1);
    let bad = grep(&["(unclosed", DEMO]);
    assert_eq!(bad.code, 2);
    assert!(bad.stderr.starts_with("ci-grep: invalid pattern: regex parse error"), "{}", bad.stderr);
    let none = grep(&[]);
    assert_eq!(none.code, 2);
    // An unreadable input is an error even when something matched.
    let run = grep(&["-c", "ошибка", S4_PATH, "fixtures/grep/missing.jsonl"]);
    assert_eq!(run.code, 2);
    assert_eq!(run.json().len(), 1);
    assert!(run.stderr.contains("fixtures/grep/missing.jsonl"), "{}", run.stderr);
}

#[test]
fn damaged_lines_are_reported_when_they_could_match_or_with_strict() {
    let s5 =
        "fixtures/demo/-home-bob-myapp/sessions/d4a7b1e3-9c2f-4d85-a0b6-3e1f7c9d2b84/context-intelligence/events.jsonl";
    // Line 4 (torn, with a glued llm:request) is the only one holding this
    // timestamp: it is parsed, reported, and cannot match.
    let run = grep(&["-F", "03.104211", s5]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains(&format!("{s5}:4: ")), "{}", run.stderr);
    assert!(!run.stderr.contains(":8: "), "{}", run.stderr);
    let run = grep(&["--strict", "hang", s5]);
    assert_eq!(run.code, 2);
    for n in [4, 6, 8, 10] {
        assert!(run.stderr.contains(&format!("{s5}:{n}: ")), "{}", run.stderr);
    }
    assert_eq!(sites(&run), [site("d4a7b1e3", 2, "data.prompt"), site("d4a7b1e3", 3, "data.prompt")]);
}

#[test]
fn an_empty_match_counts_once_per_string() {
    // cases.jsonl has 27 string values in data (3 + 5 + 5 + 5 + 4 + 5).
    let run = grep(&["-c", "", CASES]);
    assert_eq!(run.lines(), [r#"{"session":"cases","path":"fixtures/grep/cases.jsonl","count":27}"#]);
    // `é*` on "ééééé 日本語 ééééé": the run at 0, one empty match (at 6: the
    // regex crate allows none right where a match ended), the run at 10.
    let run = grep(&["--field", "data.response", "é*", CASES]);
    let offs: Vec<(u64, String)> = run
        .json()
        .iter()
        .map(|r| (r["char_offset"].as_u64().unwrap(), r["match"].as_str().unwrap().to_owned()))
        .collect();
    assert_eq!(offs, [(0, "ééééé".to_owned()), (6, String::new()), (10, "ééééé".to_owned())]);
}

#[test]
fn piped_streams_split_across_workers_count_per_session() {
    // 40 copies of session 1 (about 700 KB) are read in two batches by two
    // workers; -m and -c still apply to the whole stream, in stream order.
    let events = ci("ci-cat").args(["--full", S1_PATH]).run().stdout.repeat(40);
    let run = ci("ci-grep").args(["-j", "2", "-m", "3", "café"]).stdin(events.clone()).run();
    assert_eq!(
        strings(&run),
        [
            site("a7c3e9d1", 2, "data.prompt"),
            site("a7c3e9d1", 3, "data.prompt"),
            site("a7c3e9d1", 5, "data.raw.messages.0.content")
        ]
    );
    let run = ci("ci-grep").args(["-j", "2", "-c", "café"]).stdin(events.clone()).run();
    assert_eq!(run.lines(), [format!(r#"{{"session":"{S1}","path":"{S1_PATH}","count":1800}}"#)]);
    let run = ci("ci-grep").args(["-j", "2", "café"]).stdin(events).run();
    assert_eq!(run.lines().len(), 1800);
}

/// A Claude Code transcript `s1` with a subagent transcript under
/// `s1/subagents/`: "needle" once in the main file's line 1 and three
/// times in the subagent file's line 2 (one event: a response with two
/// text blocks).
fn subagent_tree(dir: &std::path::Path) -> (String, String) {
    let project = dir.join("projects/-p");
    std::fs::create_dir_all(project.join("s1/subagents")).unwrap();
    let line = |v: Value| format!("{v}\n");
    let main = [
        json!({"type": "user", "sessionId": "s1", "cwd": "/p", "timestamp": "2026-05-01T10:00:00Z", "uuid": "u1",
               "message": {"role": "user", "content": "find the needle"}}),
        json!({"type": "user", "sessionId": "s1", "cwd": "/p", "timestamp": "2026-05-01T10:00:01Z", "uuid": "u2",
               "message": {"role": "user", "content": "hello"}}),
    ];
    let sub = [
        json!({"type": "user", "sessionId": "s1", "isSidechain": true, "agentId": "a1", "cwd": "/p",
               "timestamp": "2026-05-01T10:00:02Z", "uuid": "v1", "message": {"role": "user", "content": "sub task"}}),
        json!({"type": "assistant", "sessionId": "s1", "isSidechain": true, "agentId": "a1", "cwd": "/p",
               "timestamp": "2026-05-01T10:00:03Z", "uuid": "v2", "requestId": "r1",
               "message": {"id": "m1", "role": "assistant", "model": "claude-x",
                           "content": [{"type": "text", "text": "a needle and another needle"},
                                       {"type": "text", "text": "third needle"}],
                           "usage": {"input_tokens": 3, "output_tokens": 4}}}),
    ];
    let main_path = project.join("s1.jsonl");
    let sub_path = project.join("s1/subagents/agent-a1.jsonl");
    std::fs::write(&main_path, main.map(line).concat()).unwrap();
    std::fs::write(&sub_path, sub.map(line).concat()).unwrap();
    (main_path.display().to_string(), sub_path.display().to_string())
}

/// `--format text` names the file and line (as ripgrep does), so a match
/// in a subagent transcript opens at its own line; `session:line` named the
/// main transcript's line 2 instead.
#[test]
fn text_output_names_the_file_of_a_subagent_match() {
    let dir = tempfile::tempdir().unwrap();
    let (main, sub) = subagent_tree(dir.path());
    let run = ci("ci-grep").args(["--format", "text", "needle"]).arg(dir.path()).run();
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    assert_eq!(
        run.lines(),
        [
            format!("{main}:1: prompt:submit data.message.content: find the needle"),
            format!("{sub}:2: llm:response data.message.content.0.text: a needle and another needle"),
            format!("{sub}:2: llm:response data.message.content.0.text: a needle and another needle"),
            format!("{sub}:2: llm:response data.message.content.1.text: third needle"),
        ]
    );
    // The line named is the one ci-cat shows for that file and line.
    let cat = ci("ci-cat").args(["--lines", "2"]).arg(&sub).run();
    assert_eq!(cat.json()[0]["data"]["uuid"], "v2");
}

/// The records of `ci-cat --full ROOT` that `matches` (ci-grep's match
/// records) name, each once, in their order.
fn matched_events(root: &str, matches: &Run) -> String {
    let site = |ci: &Value| (ci["path"].clone(), ci["line"].clone(), ci["part"].clone());
    let wanted: std::collections::HashSet<_> = matches.json().iter().map(|m| site(&m["ci"])).collect();
    let all = ci("ci-cat").args(["--full", root]).run();
    all.stdout
        .lines()
        .filter(|l| wanted.contains(&site(&serde_json::from_str::<Value>(l).unwrap()["ci"])))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// A match record carries its event's provenance with the site of its
/// line, so `ci-grep | ci-cat --full` prints the matched events as ci-cat
/// prints them from the captures, each once however many matches it holds
/// (also across the batches a long stream is read in: `\d` gives 2.4 MB of
/// match records on the demo), on every writer; they were refused as "not an
/// event record".
#[test]
fn match_records_pipe_into_ci_cat_as_their_events() {
    let dir = tempfile::tempdir().unwrap();
    subagent_tree(dir.path());
    let tree = dir.path().display().to_string();
    for (root, pattern) in [
        (tree.as_str(), "needle"),
        (DEMO, "café"),
        (DEMO, r"\d"),
        ("fixtures/sessiondata", "e"),
        ("fixtures/claude-transcripts", "error"),
        ("fixtures/hook-logs/ranaroussi__quantstats", "Bash"),
        (CASES, "é"),
    ] {
        let matches = ci("ci-grep").args([pattern, root]).run();
        assert_eq!(matches.code, 0, "{root} {pattern}: {}", matches.stderr);
        let cat = ci("ci-cat").arg("--full").stdin(matches.stdout.clone()).run();
        assert_eq!(cat.code, 0, "{root} {pattern}: {}", cat.stderr);
        let want = matched_events(root, &matches);
        assert!(!want.is_empty());
        assert_eq!(cat.stdout, want, "{root} {pattern}");
    }
}

/// `ci-grep | ci-agg --by session` counts the matched events of each
/// session (not the matches: `ci-grep -c` counts those).
#[test]
fn match_records_count_as_events_in_ci_agg() {
    let dir = tempfile::tempdir().unwrap();
    subagent_tree(dir.path());
    let matches = ci("ci-grep").arg("needle").arg(dir.path()).run();
    assert_eq!(matches.lines().len(), 4);
    let agg = ci("ci-agg").args(["--by", "session"]).stdin(matches.stdout).run();
    assert_eq!((agg.code, agg.stderr.as_str()), (0, ""));
    assert_eq!(agg.json(), [json!({"session": "s1", "count": 2})]);
    let count = ci("ci-grep").arg("-c").arg("needle").arg(dir.path()).run();
    assert_eq!(count.json()[0]["count"], 4);
}

/// A match record printed without provenance cannot be read again: said,
/// exit 2.
#[test]
fn match_records_without_a_site_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    subagent_tree(dir.path());
    let bare = ci("ci-grep").args(["--no-provenance", "hello"]).arg(dir.path()).run();
    let cat = ci("ci-cat").stdin(bare.stdout).run();
    assert_eq!(cat.stdout, "");
    assert_eq!(
        cat.stderr,
        "ci-cat: -:1: a ci-grep match record printed without its provenance (--no-provenance): its event \
         cannot be read again\n"
    );
    assert_eq!(cat.code, 2);
}

/// A match of an event record that came whole from a pipe (its line's
/// place is not known) carries that record, and stands for it downstream.
#[test]
fn match_records_of_piped_records_carry_them() {
    let dir = tempfile::tempdir().unwrap();
    subagent_tree(dir.path());
    let events = ci("ci-cat").arg("--full").arg(dir.path()).run();
    let piped = ci("ci-grep").arg("needle").stdin(events.stdout.clone()).run();
    let recs = piped.json();
    assert_eq!(recs.len(), 4);
    assert!(recs.iter().all(|m| m["ci"]["cut"] == true && m["record"]["ci"] == without_cut(&m["ci"])));
    let cat = ci("ci-cat").arg("--full").stdin(piped.stdout.clone()).run();
    assert_eq!((cat.code, cat.stderr.as_str()), (0, ""));
    let want: String = events.stdout.lines().filter(|l| l.contains("needle")).map(|l| format!("{l}\n")).collect();
    assert_eq!(cat.stdout, want);
    let agg = ci("ci-agg").args(["--by", "session"]).stdin(piped.stdout).run();
    assert_eq!(agg.json(), [json!({"session": "s1", "count": 2})]);
}

/// A provenance object without its cut marker.
fn without_cut(ci: &Value) -> Value {
    let mut ci = ci.clone();
    ci.as_object_mut().unwrap().remove("cut");
    ci
}

/// A Claude Code response written over two lines (one message id): the
/// second line is `llm:content`, also when the first cannot hold the
/// pattern and is skipped by the pre-check (ci-grep named it `llm:response`,
/// part 0, an event ci-cat never prints), and `ci-cat --lines 2` agrees.
#[test]
fn a_response_continued_on_a_later_line_is_named_as_ci_cat_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("projects/-p");
    std::fs::create_dir_all(&project).unwrap();
    let line = |text: &str| {
        json!({"type": "assistant", "sessionId": "s1", "cwd": "/p", "timestamp": "2026-05-01T10:00:00Z",
               "requestId": "r1", "message": {"id": "m1", "role": "assistant", "model": "claude-x",
               "content": [{"type": "text", "text": text}], "usage": {"input_tokens": 3, "output_tokens": 4}}})
        .to_string()
    };
    let file = project.join("s1.jsonl");
    std::fs::write(&file, format!("{}\n{}\n", line("first part"), line("the needle"))).unwrap();
    let matches = ci("ci-grep").arg("needle").arg(&file).run();
    assert_eq!(matches.json()[0]["event"], "llm:content");
    let lines = ci("ci-cat").args(["--full", "--lines", "2"]).arg(&file).run();
    assert_eq!(lines.json()[0]["event"], "llm:content");
    let piped = ci("ci-cat").arg("--full").stdin(matches.stdout).run();
    assert_eq!((piped.code, &piped.stdout), (0, &lines.stdout));
}
