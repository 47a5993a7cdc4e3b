//! Claude Code hook logs as committed (`logs/*.json` arrays, formats.md §7):
//! the real files in `fixtures/hook-logs/` (their counts recounted from the
//! arrays with Python, see each test) and generated folders
//! (`tests/hooklogsgen.rs`) whose facts the generator knows.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use crate::hooklogsgen::{self, Calls, Expected};
use crate::util::{ci, without_mtime};

/// The real project (a folder holding `logs/`).
const PROJECT: &str = "fixtures/hook-logs/ranaroussi__quantstats";
const LOGS: &str = "fixtures/hook-logs/ranaroussi__quantstats/logs";
const SESSION: &str = "b23e5d8a-855f-44c5-95f0-075485a6ffcf";
const CWD: &str = "/private/var/folders/5b/dd_48lts2zsbcg8dpyl1k1_40000gn/T/vibe-kanban/vk-2b7f-please-fix";

/// `{"event": count}` of `ci-agg --by event` output.
fn by_event(stdout: &str) -> BTreeMap<String, u64> {
    stdout
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("JSON");
            (v["event"].as_str().expect("event").to_owned(), v["count"].as_u64().expect("count"))
        })
        .collect()
}

/// `{tool: Calls}` of `ci-agg --tools` output.
fn tools(stdout: &str) -> BTreeMap<String, Calls> {
    stdout
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("JSON");
            let n = |k: &str| v[k].as_u64().unwrap_or_else(|| panic!("{k} in {l}"));
            let c = Calls { calls: n("calls"), ok: n("ok"), errors: n("errors"), unfinished: n("unfinished") };
            (v["tool"].as_str().expect("tool").to_owned(), c)
        })
        .collect()
}

fn calls(calls: u64, ok: u64, errors: u64, unfinished: u64) -> Calls {
    Calls { calls, ok, errors, unfinished }
}

/// Recounted from the arrays: `python3 -c 'import json,collections; pre=json.load(open("pre_tool_use.json"));
/// post=json.load(open("post_tool_use.json")); …'` in `fixtures/hook-logs/ranaroussi__quantstats/logs`:
/// one session, 20 PreToolUse, 14 PostToolUse, no `tool_use_id`; pairing each post with the first
/// pending pre of the same (session, tool_name, tool_input): calls Bash 5, TodoWrite 6, Glob 2,
/// Read 4, Edit 3; paired TodoWrite 5, Read 4, Edit 3, Bash 2; no post without its pre.
#[test]
fn fixture_sessions_events_and_calls_are_the_recount() {
    let run = ci("ci-find").args(["--root", PROJECT]).run();
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    assert_eq!(
        without_mtime(&run.stdout),
        [json!({
            "session": SESSION, "project": format!("-{}", CWD[1..].replace('/', "-")),
            "workspace": format!("-{}", CWD[1..].replace('/', "-")),
            "parent": null, "agent": null, "status": "active", "started_at": null, "last_event_at": null,
            "ended_at": null, "working_dir": CWD, "recipe": null, "recipe_step": null, "parallel_group_id": null,
            "format": "claude-hook-logs", "path": LOGS, "bytes": 53654, "metadata": null, "model": null,
            "files": ["pre_tool_use.json", "post_tool_use.json"], "transcript": null, "events": 34, "tags": []
        })]
    );
    // The project folder, its logs/ folder, and the pipe from ci-find all give the same answer.
    let want: BTreeMap<String, u64> = [("tool:pre".to_owned(), 20), ("tool:post".to_owned(), 14)].into();
    for args in [vec!["--by", "event", PROJECT], vec!["--by", "event", LOGS]] {
        let run = ci("ci-agg").args(&args).run();
        assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{args:?}");
        assert_eq!(by_event(&run.stdout), want, "{args:?}");
    }
    let piped = ci("ci-agg").args(["--by", "event"]).stdin(run.stdout.clone()).run();
    assert_eq!((piped.code, by_event(&piped.stdout)), (0, want.clone()));
    let run = ci("ci-agg").args(["--tools", PROJECT]).run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    let want_tools: BTreeMap<String, Calls> = [
        ("Bash", calls(5, 2, 0, 3)),
        ("Edit", calls(3, 3, 0, 0)),
        ("Glob", calls(2, 0, 0, 2)),
        ("Read", calls(4, 4, 0, 0)),
        ("TodoWrite", calls(6, 5, 0, 1)),
    ]
    .into_iter()
    .map(|(t, c)| (t.to_owned(), c))
    .collect();
    assert_eq!(tools(&run.stdout), want_tools);
    // --sessions: the same counts, and no time (native hook input has none).
    let run = ci("ci-agg").args(["--sessions", PROJECT]).run();
    let s = &run.json()[0];
    assert_eq!(s["events"], json!({"tool:post": 14, "tool:pre": 20}));
    assert_eq!(s["tool_calls"], json!({"Bash": 5, "Edit": 3, "Glob": 2, "Read": 4, "TodoWrite": 6}));
    assert_eq!((&s["started"], &s["duration_ms"]), (&Value::Null, &Value::Null));
}

/// Recounted from the arrays: every string value of every element (keys not searched),
/// `sum(s.count("numpy") …)` = 88, `sum(s.count("setup.py") …)` = 24, all in the one session.
#[test]
fn fixture_grep_counts_are_the_recount_and_lines_are_the_elements_first_lines() {
    for (pat, n) in [("numpy", 88), ("setup.py", 24)] {
        let run = ci("ci-grep").args(["-F", "-c", pat, PROJECT]).run();
        assert_eq!((run.code, run.stderr.as_str()), (0, ""));
        assert_eq!(run.json(), [json!({"session": SESSION, "path": LOGS, "count": n})], "{pat}");
    }
    let run = ci("ci-grep").args(["-F", "setup.py", PROJECT]).run();
    let matches = run.json();
    assert_eq!(matches.len(), 24);
    for m in &matches {
        let (path, line) = (m["ci"]["path"].as_str().unwrap(), m["ci"]["line"].as_u64().unwrap());
        // The line is where an element starts (`  {` in the template's layout)…
        let text = std::fs::read_to_string(crate::util::root().join(path)).unwrap();
        assert_eq!(text.lines().nth(line as usize - 1), Some("  {"), "{path}:{line}");
        // … and ci-cat --lines gives that element, which holds the match.
        let l = line.to_string();
        let cat = ci("ci-cat").args(["--full", "--lines", &format!("{l}-{l}"), path]).run();
        let ev = cat.json();
        assert_eq!(ev.len(), 1, "{path}:{line}");
        assert_eq!(ev[0]["ci"]["line"], line);
        assert!(ev[0]["data"].to_string().contains("setup.py"));
    }
}

/// A file named alone is read alone; every event is one line with a null time.
#[test]
fn fixture_file_argument_reads_that_array_only() {
    let run = ci("ci-cat").arg(format!("{LOGS}/pre_tool_use.json")).run();
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    let ev = run.json();
    assert_eq!(ev.len(), 20);
    assert!(ev.iter().all(|e| e["event"] == "tool:pre" && e["timestamp"].is_null() && e["hook"] == "PreToolUse"));
    assert_eq!(ev[0]["ci"], json!({"session": SESSION, "path": format!("{LOGS}/pre_tool_use.json"), "line": 2}));
    // --full --raw-free output: the element's own bytes, compacted (strings as written).
    let full = ci("ci-cat").args(["--full", &format!("{LOGS}/pre_tool_use.json")]).run();
    let arr: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(crate::util::root().join(LOGS).join("pre_tool_use.json")).unwrap(),
    )
    .unwrap();
    let data: Vec<Value> = full.json().into_iter().map(|e| e["data"].clone()).collect();
    assert_eq!(data, arr);
}

/// `head -c 20000 post_tool_use.json`: cut inside element 10 (its first line 468: the
/// 10th `  {` line of the file), so 9 elements are read; reported once, exit 2.
#[test]
fn a_torn_copy_of_the_real_file_is_reported_once_and_its_elements_kept() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = std::fs::read(crate::util::root().join(LOGS).join("post_tool_use.json")).unwrap();
    std::fs::write(dir.path().join("post_tool_use.json"), &bytes[..20000]).unwrap();
    let d = dir.path().to_str().unwrap();
    let run = ci("ci-agg").args(["--by", "event", d]).run();
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        format!(
            "ci-agg: {d}/post_tool_use.json:element 10: torn array: the file ends inside this element (it starts on line 468; cut mid-write?); the 9 elements before it are read\n"
        )
    );
    assert_eq!(by_event(&run.stdout), [("tool:post".to_owned(), 9)].into());
    assert!(!run.stderr.contains("still being written") && !run.stderr.contains("held back"));
}

fn generated(sessions: usize, seed: u64) -> (tempfile::TempDir, String, Expected) {
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("logs");
    let display = logs.to_str().unwrap().to_owned();
    let exp = hooklogsgen::generate(&logs, &display, sessions, seed);
    (dir, display, exp)
}

/// The generator's report lines for tool `prog`, then its summary line.
fn reports(prog: &str, exp: &Expected) -> String {
    let mut s: String =
        exp.reports.iter().map(|(pre, r)| if *pre { format!("{prog}: {r}\n") } else { format!("{r}\n") }).collect();
    if exp.bad > 0 {
        let n = exp.bad;
        let p = if n == 1 { "" } else { "s" };
        s.push_str(&format!("{prog}: {n} bad line{p} skipped (--strict makes bad lines an error)\n"));
    }
    s
}

#[test]
fn generated_sessions_are_the_generators() {
    for seed in [1, 7] {
        let (_dir, logs, exp) = generated(4, seed);
        let run = ci("ci-find").args(["--root", &logs, "--sort", "id"]).run();
        assert_eq!((run.code, run.stderr.clone()), (2, reports("ci-find", &exp)), "seed {seed}");
        let recs = run.json();
        let ids: Vec<&str> = recs.iter().map(|r| r["session"].as_str().unwrap()).collect();
        assert_eq!(ids, exp.sessions.keys().map(String::as_str).collect::<Vec<_>>(), "seed {seed}");
        for r in &recs {
            let s = &exp.sessions[r["session"].as_str().unwrap()];
            let slug = s.cwd.replace('/', "-");
            assert_eq!(r["format"], "claude-hook-logs");
            assert_eq!(r["path"], logs.as_str());
            assert_eq!((&r["workspace"], &r["working_dir"]), (&json!(slug), &json!(s.cwd)));
            assert_eq!(r["events"], s.events.values().sum::<u64>(), "{r}");
            assert_eq!(r["files"], json!(s.files), "{r}");
            assert_eq!(r["status"], if s.ended { "ended" } else { "active" });
            // Naive local times are not instants: no start, no end.
            assert_eq!((&r["started_at"], &r["last_event_at"]), (&Value::Null, &Value::Null), "{r}");
        }
    }
}

#[test]
fn generated_events_and_tool_calls_are_the_generators() {
    for seed in [1, 7, 23] {
        let (_dir, logs, exp) = generated(5, seed);
        // The folder holds what the test is about: failed and unfinished calls.
        assert!(exp.tools.values().any(|c| c.errors > 0) && exp.tools.values().any(|c| c.unfinished > 0), "{exp:?}");
        let run = ci("ci-agg").args(["--by", "event", &logs]).run();
        assert_eq!((run.code, run.stderr.clone()), (2, reports("ci-agg", &exp)), "seed {seed}");
        assert_eq!(by_event(&run.stdout), exp.events, "seed {seed}");
        let run = ci("ci-agg").args(["--tools", &logs]).run();
        assert_eq!(tools(&run.stdout), exp.tools, "seed {seed}");
        // Per session, through the pipe from ci-find: damage is reported once
        // per tool, by the tool that reads the file (pre_compact.json holds no
        // session, so ci-agg, reading sessions, never opens it).
        let find = ci("ci-find").args(["--root", &logs]).run();
        let run = ci("ci-agg").arg("--sessions").stdin(find.stdout).run();
        let mut read = Expected { reports: exp.reports.clone(), bad: exp.bad, ..Expected::default() };
        read.reports.retain(|r| !r.1.contains("pre_compact.json"));
        assert_eq!((run.code, run.stderr.clone()), (2, reports("ci-agg", &read)), "seed {seed}");
        let got: BTreeMap<String, (Value, Value, Value)> = run
            .json()
            .into_iter()
            .map(|s| {
                (
                    s["session"].as_str().unwrap().to_owned(),
                    (s["events"].clone(), s["tool_calls"].clone(), s["duration_ms"].clone()),
                )
            })
            .collect();
        let want: BTreeMap<String, (Value, Value, Value)> = exp
            .sessions
            .iter()
            .map(|(id, s)| (id.clone(), (json!(s.events), json!(s.tool_calls), Value::Null)))
            .collect();
        assert_eq!(got, want, "seed {seed}");
    }
}

#[test]
fn generated_search_counts_and_sites_are_the_generators() {
    let (_dir, logs, exp) = generated(4, 3);
    let mut want: BTreeMap<String, u64> = BTreeMap::new();
    for (s, _, _) in &exp.marker_sites {
        *want.entry(s.clone()).or_default() += 1;
    }
    assert!(want.len() >= 2, "the marker is in several sessions: {want:?}");
    let run = ci("ci-grep").args(["-F", "-c", exp.marker, &logs]).run();
    assert_eq!((run.code, run.stderr.clone()), (2, reports("ci-grep", &exp)));
    let got: BTreeMap<String, u64> = run
        .json()
        .into_iter()
        .filter(|r| r["count"].as_u64() > Some(0))
        .map(|r| (r["session"].as_str().unwrap().to_owned(), r["count"].as_u64().unwrap()))
        .collect();
    assert_eq!(got, want);
    let run = ci("ci-grep").args(["-F", exp.marker, &logs]).run();
    let mut sites: Vec<(String, String, u64)> = run
        .json()
        .into_iter()
        .map(|m| {
            let path = m["ci"]["path"].as_str().unwrap().rsplit('/').next().unwrap().to_owned();
            (m["ci"]["session"].as_str().unwrap().to_owned(), path, m["ci"]["line"].as_u64().unwrap())
        })
        .collect();
    let mut want_sites = exp.marker_sites.clone();
    sites.sort();
    want_sites.sort();
    assert_eq!(sites, want_sites);
}

#[test]
fn generated_events_stream_one_record_per_line_with_no_time() {
    let (_dir, logs, exp) = generated(3, 11);
    let run = ci("ci-cat").args(["--full", &logs]).run();
    assert_eq!(run.code, 2);
    let ev = run.json();
    assert_eq!(ev.len() as u64, exp.events.values().sum::<u64>());
    // Naive `timestamp`/`logged_at` stay in data; the event's time is null.
    assert!(ev.iter().all(|e| e["timestamp"].is_null()));
    assert!(
        ev.iter().any(|e| e["data"]["timestamp"].is_string()) && ev.iter().any(|e| e["data"]["logged_at"].is_string())
    );
    // Sessions come out whole, each in reading order of the files.
    let sessions: Vec<&str> = ev.iter().map(|e| e["ci"]["session"].as_str().unwrap()).collect();
    let mut runs = sessions.clone();
    runs.dedup();
    assert_eq!(runs.len(), exp.sessions.len(), "each session's events are together");
    // ci-filter on the event name, and a file named alone.
    let run = ci("ci-filter").args(["--event", "tool:error", &logs]).run();
    assert_eq!(run.lines().len() as u64, exp.events.get("tool:error").copied().unwrap_or(0));
    let run = ci("ci-agg").args(["--by", "event", &format!("{logs}/stop.json")]).run();
    assert_eq!(by_event(&run.stdout), [("prompt:complete".to_owned(), exp.events["prompt:complete"])].into());
    assert_eq!(
        run.stderr,
        format!(
            "ci-agg: warning: {}\n",
            exp.reports.iter().find(|r| r.1.contains("stop.json")).unwrap().1.trim_start_matches("warning: ")
        )
    );
}

/// An instant (with an offset) is used; `chat.json` is never read.
#[test]
fn times_with_an_offset_count_and_chat_json_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let el = |hook: &str, ts: &str| {
        format!(
            "  {{\n    \"session_id\": \"s1\",\n    \"cwd\": \"/w\",\n    \"hook_event_name\": \"{hook}\",\n    \"timestamp\": \"{ts}\"\n  }}"
        )
    };
    std::fs::write(
        d.join("user_prompt_submit.json"),
        format!("[\n{}\n]\n", el("UserPromptSubmit", "2026-02-03T10:00:00+01:00")),
    )
    .unwrap();
    std::fs::write(
        d.join("stop.json"),
        format!("[\n{},\n{}\n]\n", el("Stop", "2026-02-03T09:00:30Z"), el("Stop", "2026-02-03T12:00:00")),
    )
    .unwrap();
    std::fs::write(d.join("chat.json"), "[{\"type\": \"user\"}]").unwrap();
    let run = ci("ci-find").args(["--root", d.to_str().unwrap()]).run();
    let r = &run.json()[0];
    assert_eq!(
        (&r["started_at"], &r["last_event_at"]),
        (&json!("2026-02-03T09:00:00Z"), &json!("2026-02-03T09:00:30Z"))
    );
    let cat = ci("ci-cat").arg(d).run();
    let ts: Vec<Value> = cat.json().into_iter().map(|e| e["timestamp"].clone()).collect();
    assert_eq!(ts, [json!("2026-02-03T10:00:00+01:00"), json!("2026-02-03T09:00:30Z"), Value::Null]);
    let chat = d.join("chat.json");
    let run = ci("ci-cat").arg(&chat).run();
    assert_eq!(
        (run.code, run.stdout.as_str(), run.stderr.clone()),
        (
            1,
            "",
            format!(
                "ci-cat: warning: {}: the hooks template's transcript lines (chat.json), not hook events: not read\n",
                chat.display()
            )
        )
    );
}

/// Issue 38, D5: the template rewrites each array in place (truncate, then
/// write) on every hook. A file found holding a session and empty when it
/// is read (the race, made certain by reading the session record later) is
/// said, and the run exits 2; it used to print nothing and exit 1, silently.
#[test]
fn an_array_emptied_after_discovery_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("logs");
    std::fs::create_dir(&logs).unwrap();
    for entry in std::fs::read_dir(crate::util::root().join(LOGS)).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), logs.join(entry.file_name())).unwrap();
    }
    let found = ci("ci-find").arg("--root").arg(dir.path()).run();
    assert_eq!(found.code, 0, "{}", found.stderr);
    let files: Vec<String> =
        found.json()[0]["files"].as_array().unwrap().iter().map(|f| f.as_str().unwrap().to_owned()).collect();
    let emptied = logs.join(&files[0]);
    std::fs::write(&emptied, "").unwrap();
    let run = ci("ci-cat").stdin(found.stdout).run();
    assert_eq!(run.code, 2, "{run:?}");
    let want = format!(
        "ci-cat: {}: the file changed while it was read: it holds no element of session {SESSION} now (rewritten?); read it again\n",
        emptied.display()
    );
    assert!(run.stderr.contains(&want), "{}", run.stderr);
    // The other arrays' elements are still printed.
    assert!(files.len() == 1 || !run.stdout.is_empty());
}

/// Every failed call of a hook log names its tool (`tool_name` is in the
/// payload), from the files and through a pipe alike.
#[test]
fn generated_failed_calls_name_their_tools() {
    let (_dir, logs, exp) = generated(5, 7);
    let got: BTreeMap<String, u64> = crate::util::errors_by_tool(&logs)
        .into_iter()
        .map(|(tool, events)| (tool.expect("a failed call names its tool"), events.iter().map(|e| e.1).sum()))
        .collect();
    let want: BTreeMap<String, u64> =
        exp.tools.iter().filter(|(_, c)| c.errors > 0).map(|(t, c)| (t.clone(), c.errors)).collect();
    assert!(!want.is_empty(), "{exp:?}");
    assert_eq!(got, want);
}
