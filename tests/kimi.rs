//! Kimi CLI and Kimi Code wire files: the hand-made trees (fixtures/kimi,
//! the shared sample with its expected totals; fixtures/kimi-fork, a session
//! and a /fork of it; fixtures/kimi-code, a Kimi Code session and its
//! subagent) against their expected facts and ccusage 20.0.24's answers for
//! them, every tool on them, and hostile wire files.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::util::{ci, root};

/// The shared sample tree (a Kimi CLI share directory).
const KIMI: &str = "fixtures/kimi/.kimi";
/// A session (`…001`) and a /fork of it (`…002`).
const FORK: &str = "fixtures/kimi-fork/.kimi";
/// A Kimi Code home: session `session_01`, its agent `coder`.
const CODE: &str = "fixtures/kimi-code/.kimi-code";
const MAIN: &str = "3f2e1d0c-9b8a-4765-8432-10fedcba9876";
const SUB: &str = "agent-explore-01";
const WIRE: &str =
    "fixtures/kimi/.kimi/sessions/caa990f2469364441262014be4057c2a/3f2e1d0c-9b8a-4765-8432-10fedcba9876/wire.jsonl";
const UNPRICED: &str = "ci-agg: warning: no price for model \"kimi-for-coding\" in litellm 1.110.2 (built in): their cost is null and named in unpriced_models (--pricing FILE adds prices)\n";

fn id(n: u8) -> String {
    format!("bbbbbbbb-0000-4000-8000-00000000000{n}")
}

/// Input, cache read, cache write, output.
type Counts = (u64, u64, u64, u64);

/// (input, cache read, cache write, output) of a row.
fn counts(r: &Value) -> Counts {
    let n = |k: &str| r[k].as_u64().unwrap_or_else(|| panic!("no {k}: {r}"));
    (n("input_tokens"), n("cache_read_tokens"), n("cache_write_tokens"), n("output_tokens"))
}

/// (input, cache read, cache write, output) of a ccusage row.
fn cc_counts(r: &Value) -> Counts {
    let n = |k: &str| r[k].as_u64().unwrap_or_else(|| panic!("no {k}: {r}"));
    (n("inputTokens"), n("cacheReadTokens"), n("cacheCreationTokens"), n("outputTokens"))
}

/// ccusage's saved report `name` on fixture tree `tree`.
fn ccusage(tree: &str, name: &str) -> Value {
    let text = std::fs::read_to_string(root().join("fixtures").join(tree).join(name)).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// ccusage's saved `kimi session` report on `tree`: session → counts.
fn cc_sessions(tree: &str) -> BTreeMap<String, Counts> {
    let report = ccusage(tree, "ccusage-session.json");
    let rows = report["sessions"].as_array().unwrap().iter();
    rows.map(|s| (s["sessionId"].as_str().unwrap().to_owned(), cc_counts(s))).collect()
}

/// `ci-agg --tokens --by session` on `path`: session → (counts, responses).
fn by_session(path: &str, stderr: &str) -> BTreeMap<String, (Counts, u64)> {
    let run = ci("ci-agg").args(["--tokens", "--by", "session", path]).run();
    assert_eq!((run.stderr.as_str(), run.code), (stderr, 0), "{run:?}");
    let row = |r: &Value| (r["session"].as_str().unwrap().to_owned(), (counts(r), r["responses"].as_u64().unwrap()));
    run.json().iter().map(row).collect()
}

/// SOURCE.md: the main wire counts its two top-level StatusUpdates (input
/// 2,100 + 400, cache reads 22,100, output 210), the subagent wire its own
/// (3,000 / 40); the copy nested in the main wire's SubagentEvent counts
/// nothing. No model: unpriced, with no model to name.
#[test]
fn the_sample_counts_the_expected_totals_of_source_md() {
    let ours = by_session(KIMI, "");
    let expected = [(MAIN.to_owned(), ((2500, 22100, 0, 210), 2)), (SUB.to_owned(), ((3000, 0, 0, 40), 1))];
    assert_eq!(ours, expected.into_iter().collect());
    let run = ci("ci-agg").args(["--tokens", KIMI]).run();
    assert_eq!(
        run.stdout,
        r#"{"model":null,"responses":3,"input_tokens":5500,"output_tokens":250,"cache_read_tokens":22100,"cache_write_tokens":0,"cost_usd":null,"cost_source":"unpriced","unpriced_models":[]}"#.to_owned() + "\n"
    );
}

/// ccusage 20.0.24 (`ccusage kimi daily|session`, saved in fixtures/kimi)
/// agrees on every count of the sample, day and sessions.
#[test]
fn ccusage_agrees_on_the_sample() {
    let ours: BTreeMap<_, _> = by_session(KIMI, "").into_iter().map(|(k, (c, _))| (k, c)).collect();
    assert_eq!(cc_sessions("kimi"), ours);
    let day = &ccusage("kimi", "ccusage-daily.json")["daily"][0];
    assert_eq!((day["date"].as_str(), cc_counts(day)), (Some("2026-06-10"), (5500, 22100, 0, 250)));
    let run = ci("ci-agg").args(["--tokens", "--by", "day", KIMI]).run();
    assert_eq!((run.json()[0]["day"].as_str(), counts(&run.json()[0])), (Some("2026-06-10"), (5500, 22100, 0, 250)));
}

/// A root above the share directory (or Kimi Code's home) reads the same
/// sessions: an agents folder is walked to its wire files however deep it
/// lies (before, the subagent's 3,000 / 40 were lost from the folder above
/// `.kimi`, and Kimi Code's session whole from the folder above `.kimi-code`).
#[test]
fn a_root_above_the_home_counts_what_the_home_counts() {
    for home in [KIMI, CODE] {
        let above = std::path::Path::new(home).parent().unwrap().to_str().unwrap();
        let tokens = |root: &str| ci("ci-agg").args(["--tokens", "--by", "session", root]).run();
        let (direct, from_above) = (tokens(home), tokens(above));
        assert_eq!(direct.code, 0, "{direct:?}");
        assert_eq!(
            (from_above.stdout, from_above.stderr, from_above.code),
            (direct.stdout, direct.stderr, 0),
            "{above}"
        );
    }
    assert_eq!(by_session("fixtures/kimi", "")[SUB], ((3000, 0, 0, 40), 1));
}

/// A subagent's wire file is a child session: `parent` the session, `agent`
/// its id; the parent lists it among its children. The mirrored
/// `SubagentEvent` is an event of its own, no response.
#[test]
fn a_subagent_wire_is_a_child_session() {
    let run = ci("ci-find").args(["--root", KIMI, "--sort", "id"]).run();
    let picked: Vec<Value> = run
        .json()
        .iter()
        .map(|r| json!([r["session"], r["parent"], r["agent"], r["started_at"], r["last_event_at"], r["working_dir"]]))
        .collect();
    let dir = "/home/dev/demo";
    assert_eq!(
        picked,
        [
            json!([MAIN, null, null, "2026-06-10T10:00:00.12Z", "2026-06-10T10:00:15.1Z", dir]),
            json!([SUB, MAIN, SUB, "2026-06-10T10:00:11Z", "2026-06-10T10:00:12.1Z", dir]),
        ]
    );
    for r in run.json() {
        let same = json!([r["project"], r["workspace"], r["model"], r["tags"], r["format"]]);
        assert_eq!(
            same,
            json!([
                "caa990f2469364441262014be4057c2a",
                "caa990f2469364441262014be4057c2a",
                null,
                ["protocol:1.10"],
                "kimi"
            ])
        );
    }
    let run = ci("ci-agg").args(["--sessions", KIMI]).run();
    let main = run.json().into_iter().find(|s| s["session"] == MAIN).unwrap();
    assert_eq!(main["children"], json!([SUB]));
    assert_eq!(main["events"]["kimi:SubagentEvent"], 1);
    assert_eq!(main["tokens"], json!({"input": 2500, "output": 210, "cache_read": 22100, "cache_write": 0}));
}

/// The event of each line in the toolkit's vocabulary, Kimi's type kept as
/// `kimi`, the time printed as RFC 3339; a call and its result paired by id.
#[test]
fn lines_are_events_in_the_toolkit_vocabulary() {
    let run = ci("ci-cat").arg(WIRE).run();
    assert_eq!((run.stderr.as_str(), run.code), ("", 0));
    let names: Vec<Value> = run.json().iter().map(|e| json!([e["event"], e["kimi"], e["timestamp"]])).collect();
    assert_eq!(
        names,
        [
            json!(["kimi:metadata", "metadata", null]),
            json!(["prompt:submit", "TurnBegin", "2026-06-10T10:00:00.12Z"]),
            json!(["kimi:StepBegin", "StepBegin", "2026-06-10T10:00:00.2Z"]),
            json!(["tool:pre", "ToolCall", "2026-06-10T10:00:04.5Z"]),
            json!(["llm:response", "StatusUpdate", "2026-06-10T10:00:04.6Z"]),
            json!(["tool:error", "ToolResult", "2026-06-10T10:00:10Z"]),
            json!(["kimi:StepBegin", "StepBegin", "2026-06-10T10:00:10.1Z"]),
            json!(["kimi:SubagentEvent", "SubagentEvent", "2026-06-10T10:00:12Z"]),
            json!(["llm:response", "StatusUpdate", "2026-06-10T10:00:15Z"]),
            json!(["prompt:complete", "TurnEnd", "2026-06-10T10:00:15.1Z"]),
        ]
    );
    // `data` is the line, unchanged.
    let line = std::fs::read_to_string(root().join(WIRE)).unwrap();
    let fourth: Value = serde_json::from_str(line.lines().nth(3).unwrap()).unwrap();
    assert_eq!(run.json()[3]["data"], fourth);
    let run = ci("ci-agg").args(["--tools", KIMI]).run();
    assert_eq!(
        run.json(),
        [
            json!({"tool": "Shell", "calls": 1, "ok": 0, "errors": 1, "unfinished": 0, "success_rate": 0, "p50_ms": 5500, "p95_ms": 5500, "max_ms": 5500})
        ]
    );
    let run = ci("ci-filter").args(["--errors", KIMI]).run();
    let e = run.json();
    assert_eq!((e.len(), &e[0]["data"]["message"]["payload"]["tool_call_id"]), (1, &json!("tool_01")));
    // The result names no tool: it is its call's, read from the file or a pipe.
    let pick =
        |run: crate::util::Run| -> Vec<Value> { run.json().iter().map(|e| json!([e["event"], e["tool"]])).collect() };
    let calls = [json!(["tool:pre", null]), json!(["tool:error", "Shell"])];
    assert_eq!(pick(ci("ci-filter").args(["--tool", "Shell", KIMI]).run()), calls);
    let events = ci("ci-cat").arg(KIMI).run().stdout;
    assert_eq!(pick(ci("ci-filter").args(["--tool", "Shell"]).stdin(events).run()), calls);
}

/// A /fork copies its parent's wire lines verbatim, then goes on: each
/// copied response and event counts once, in the parent (the session that
/// ends first); the fork's totals are its own.
#[test]
fn a_fork_counts_its_own_lines_only() {
    let ours = by_session(FORK, "");
    let expected = [(id(1), ((1200, 1500, 500, 100), 2)), (id(2), ((300, 1800, 0, 60), 1))];
    assert_eq!(ours, expected.into_iter().collect());
    let run = ci("ci-agg").args(["--sessions", FORK]).run();
    let fork = run.json().into_iter().find(|s| s["session"] == id(2)).unwrap();
    assert_eq!(
        json!([fork["started"], fork["turns"], fork["tool_calls"], fork["compactions"], fork["tokens"]]),
        json!(["2026-06-11T11:00:00Z", 1, {}, 1, {"input": 300, "output": 60, "cache_read": 1800, "cache_write": 0}])
    );
    let run = ci("ci-agg").args(["--tools", FORK]).run();
    assert_eq!(run.json()[0]["calls"], 1);
    // Named alone, the fork's file holds the copies: they are its lines.
    let alone = ci("ci-agg").args(["--tokens"]).arg(fork_file()).run();
    assert_eq!(counts(&alone.json()[0]), (1500, 3300, 500, 160));
}

/// The fork's wire file.
fn fork_file() -> PathBuf {
    Path::new(FORK).join("sessions/caa990f2469364441262014be4057c2a").join(id(2)).join("wire.jsonl")
}

/// ccusage 20.0.24 on the fork tree (fixtures/kimi-fork/ccusage-*.json)
/// counts the fork's copies again: the fork's session holds its parent's
/// two responses besides its own.
#[test]
fn ccusage_counts_the_fork_copies_again() {
    let theirs = cc_sessions("kimi-fork");
    let expected = [(id(1), (1200, 1500, 500, 100)), (id(2), (1500, 3300, 500, 160))];
    assert_eq!(theirs, expected.into_iter().collect());
    let totals = ccusage("kimi-fork", "ccusage-daily.json")["totals"].clone();
    assert_eq!(cc_counts(&totals), (2700, 4800, 1000, 260));
    let ours = ci("ci-agg").args(["--tokens", FORK]).run();
    assert_eq!(counts(&ours.json()[0]), (1500, 3300, 500, 160));
}

/// Kimi Code: `agents/main` is the session, other agents its children;
/// a turn's `usage.record` is a response with its model, a session-scoped
/// one (a running total) counts nothing; the working directory is
/// `state.json`'s. ccusage agrees on the counts (it files the agent's usage
/// under the session's id).
#[test]
fn kimi_code_counts_turn_usage_records() {
    let ours = by_session(CODE, UNPRICED);
    let expected = [("coder".to_owned(), ((500, 0, 0, 30), 1)), ("session_01".to_owned(), ((800, 4000, 100, 90), 1))];
    assert_eq!(ours, expected.into_iter().collect());
    let theirs = cc_sessions("kimi-code");
    assert_eq!(theirs, [("session_01".to_owned(), (1300, 4000, 100, 120))].into_iter().collect());
    let run = ci("ci-find").args(["--root", CODE, "--sort", "id"]).run();
    let picked: Vec<Value> = run
        .json()
        .iter()
        .map(|r| json!([r["session"], r["parent"], r["model"], r["working_dir"], r["project"]]))
        .collect();
    assert_eq!(
        picked,
        [
            json!(["coder", "session_01", "kimi-for-coding", "/home/dev/shop", "wd_demo"]),
            json!(["session_01", null, "kimi-for-coding", "/home/dev/shop", "wd_demo"]),
        ]
    );
    let run = ci("ci-agg").args(["--by", "event", CODE]).run();
    let events: BTreeMap<String, u64> =
        run.json().iter().map(|r| (r["event"].as_str().unwrap().to_owned(), r["count"].as_u64().unwrap())).collect();
    let expected = [
        ("kimi:config.update", 1),
        ("kimi:llm.request", 1),
        ("kimi:usage.record", 1),
        ("llm:response", 2),
        ("prompt:submit", 2),
    ];
    assert_eq!(events, expected.into_iter().map(|(k, v)| (k.to_owned(), v)).collect());
}

/// `ci-find | ci-filter --event '*' | ci-agg X` answers as `ci-agg X`, with
/// or without the capture cache, on one thread or several.
#[test]
fn pipelines_give_the_answers_of_the_files() {
    for tree in [KIMI, FORK, CODE] {
        let found = ci("ci-find").args(["--root", tree]).run();
        let events = ci("ci-filter").args(["--event", "*"]).stdin(found.stdout.clone()).run();
        assert_eq!((events.stderr.as_str(), events.code), ("", 0), "{tree}");
        for args in [&["--tokens", "--by", "session"][..], &["--tools"], &["--sessions"], &["--by", "event"]] {
            let direct = ci("ci-agg").args(args).arg(tree).run();
            let piped = ci("ci-agg").args(args).stdin(events.stdout.clone()).run();
            assert_eq!((piped.stdout.as_str(), piped.code), (direct.stdout.as_str(), direct.code), "{tree} {args:?}");
            for more in [&["--no-cache", "-j1"][..], &["-j4"]] {
                let run = ci("ci-agg").args(args).args(more).arg(tree).run();
                assert_eq!(run.stdout, direct.stdout, "{tree} {args:?} {more:?}");
            }
        }
    }
}

/// ci-grep finds the decoded text of any string, with the site it was read at.
#[test]
fn grep_finds_text_with_its_provenance() {
    let run = ci("ci-grep").args(["1 failing", KIMI]).run();
    let m = &run.json()[0];
    assert_eq!(
        json!([m["event"], m["timestamp"], m["path"], m["ci"]["path"], m["ci"]["line"], m["ci"]["cut"]["writer"]]),
        json!(["tool:error", "2026-06-10T10:00:10Z", "data.message.payload.return_value.output", WIRE, 6, "kimi"])
    );
}

/// Kimi's own directories: `$KIMI_SHARE_DIR`, else `~/.kimi`, and
/// `$KIMI_CODE_HOME`, else `~/.kimi-code`; a session folder as a root, a
/// wire file as a PATH.
#[test]
fn default_roots_are_kimi_share_and_kimi_code_homes() {
    let ids = |run: crate::util::Run| -> Vec<String> {
        assert_eq!(run.code, 0, "{run:?}");
        run.json().iter().map(|r| r["session"].as_str().unwrap().to_owned()).collect()
    };
    let home = ci("ci-find").args(["--sort", "id"]).env("HOME", root().join("fixtures/kimi")).run();
    assert_eq!(ids(home), [MAIN, SUB]);
    let both = ci("ci-find").args(["--sort", "id"]).env("KIMI_SHARE_DIR", FORK).env("KIMI_CODE_HOME", CODE).run();
    assert_eq!(ids(both), [id(1), id(2), "coder".to_owned(), "session_01".to_owned()]);
    let session = Path::new(FORK).join("sessions/caa990f2469364441262014be4057c2a").join(id(1));
    assert_eq!(ids(ci("ci-find").arg("--root").arg(&session).run()), [id(1)]);
    let run = ci("ci-agg").args(["--tokens"]).arg(root().join(WIRE)).run();
    assert_eq!(counts(&run.json()[0]), (2500, 22100, 0, 210));
}

/// `working_dir`: the `kimi.json` work dir whose MD5 names the session's
/// folder (`<kaos>_<md5>` off the local kaos), whichever session was its
/// last; else the one whose `last_session_id` is the session; else a
/// `config.update` record's `cwd`; else null. The digests are Python's
/// `hashlib.md5` of the paths.
#[test]
fn the_working_dir_is_the_kimi_json_path_whose_md5_names_the_folder() {
    let dir = tempfile::tempdir().unwrap();
    let share = dir.path();
    let index = json!({"work_dirs": [
        {"path": "/home/dev/demo", "kaos": "local", "last_session_id": "newer"},
        {"path": "/srv/app", "kaos": "ssh", "last_session_id": null},
        {"path": "/home/dev/elsewhere", "kaos": "local", "last_session_id": "moved"},
    ]});
    std::fs::write(share.join("kimi.json"), index.to_string()).unwrap();
    let line = r#"{"timestamp":1781085600.5,"message":{"type":"TurnBegin","payload":{"user_input":"hi"}}}"#;
    let cwd = r#"{"type":"config.update","time":1781085600000,"cwd":"/home/dev/told"}"#;
    for (folder, session, first) in [
        ("caa990f2469364441262014be4057c2a", "older", line),
        ("ssh_8d9fbf108f79c6229f0b59258b273b63", "remote", line),
        ("8d9fbf108f79c6229f0b59258b273b63", "local-hash", line),
        ("03f7d059e7ac11fe4e5c919c7f47d59d", "moved", line),
        ("03f7d059e7ac11fe4e5c919c7f47d59d", "told", cwd),
        ("03f7d059e7ac11fe4e5c919c7f47d59d", "lost", line),
    ] {
        let at = share.join("sessions").join(folder).join(session);
        std::fs::create_dir_all(&at).unwrap();
        std::fs::write(at.join("wire.jsonl"), format!("{first}\n")).unwrap();
    }
    let run = ci("ci-find").arg("--root").arg(share).args(["--sort", "id"]).run();
    let picked: Vec<Value> = run.json().iter().map(|r| json!([r["session"], r["working_dir"]])).collect();
    assert_eq!(
        picked,
        [
            json!(["local-hash", null]),
            json!(["lost", null]),
            json!(["moved", "/home/dev/elsewhere"]),
            json!(["older", "/home/dev/demo"]),
            json!(["remote", "/srv/app"]),
            json!(["told", "/home/dev/told"]),
        ],
        "{run:?}"
    );
}

// ---------------------------------------------------------------------------
// Hostile wire files

/// `<dir>/sessions/h/s/wire.jsonl` holding `text`.
fn wire(dir: &Path, text: &[u8]) -> PathBuf {
    let folder = dir.join("sessions/h/s");
    std::fs::create_dir_all(&folder).unwrap();
    let path = folder.join("wire.jsonl");
    std::fs::write(&path, text).unwrap();
    path
}

/// A top-level StatusUpdate with this token usage (JSON text), at second `t`.
fn status(t: u32, usage: &str) -> String {
    format!(
        r#"{{"timestamp":1781085600.{t},"message":{{"type":"StatusUpdate","payload":{{"token_usage":{usage},"message_id":"m{t}"}}}}}}"#
    )
}

/// A line that is no JSON, one with invalid UTF-8, and a torn last line
/// (a record being written) are reported with their site; the good lines
/// around them count.
#[test]
fn bad_and_torn_lines_are_reported_and_the_rest_counts() {
    let dir = tempfile::tempdir().unwrap();
    let good = |t| status(t, r#"{"input_other":10,"output":2,"input_cache_read":5,"input_cache_creation":1}"#);
    let mut text = format!("{}\nnot json\n", good(1)).into_bytes();
    text.extend_from_slice(
        b"{\"timestamp\":1.0,\"message\":{\"type\":\"TurnBegin\",\"payload\":{\"user_input\":\"\xff\"}}}\n",
    );
    text.extend_from_slice(format!("{}\n{}", good(2), &good(3)[..40]).as_bytes());
    let path = wire(dir.path(), &text);
    let run = ci("ci-agg").arg("--tokens").arg(&path).run();
    assert_eq!(counts(&run.json()[0]), (20, 10, 2, 4), "{run:?}");
    let p = path.display();
    assert_eq!(
        run.stderr,
        format!(
            "{p}:2: invalid JSON at byte 0: expected a value\n\
             {p}:3: invalid UTF-8 at byte 72\n\
             ci-agg: 2 bad lines skipped, 1 unfinished last line held back (capture still being written?) (--strict makes bad lines an error)\n"
        )
    );
    assert_eq!(run.code, 0);
}

/// Counts that are no whole numbers are reported and count nothing; a usage
/// that is no object, or a session-scoped total, is no response; a time
/// that is no time leaves the event untimed.
#[test]
fn odd_usage_counts_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let text = [
        status(1, r#"{"input_other":-5,"output":"7","input_cache_read":1e300}"#),
        status(2, "[1,2]"),
        r#"{"type":"usage.record","time":"soon","usageScope":"session","usage":{"inputOther":9}}"#.to_owned(),
        r#"{"type":"usage.record","time":"soon","usage":{"inputOther":4}}"#.to_owned(),
    ]
    .join("\n");
    let path = wire(dir.path(), format!("{text}\n").as_bytes());
    let run = ci("ci-agg").args(["--tokens"]).arg(&path).run();
    assert_eq!((counts(&run.json()[0]), &run.json()[0]["responses"]), ((4, 0, 0, 0), &json!(2)), "{run:?}");
    let events = ci("ci-agg").args(["--by", "event"]).arg(&path).run();
    let rows: Vec<Value> = events.json().iter().map(|r| json!([r["event"], r["count"]])).collect();
    assert_eq!(rows, [json!(["llm:response", 2]), json!(["kimi:StatusUpdate", 1]), json!(["kimi:usage.record", 1])]);
    assert!(run.stderr.contains(":1: damaged token count input_tokens -5: not counted"), "{}", run.stderr);
    assert_eq!(run.code, 0);
}

/// Under a root holding Amplifier captures beside a Kimi share directory,
/// Kimi's search does not look inside the Amplifier session folders (it
/// listed each of thousands before): a `wire.jsonl` there is no Kimi
/// session, one in a folder that is no other writer's session still is,
/// and the share directory's sessions are found as on their own.
#[test]
fn kimi_does_not_search_another_writers_session_folders() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read(root().join(WIRE)).unwrap();
    let share = dir.path().join("share/sessions/caa990f2469364441262014be4057c2a").join(MAIN);
    std::fs::create_dir_all(&share).unwrap();
    std::fs::write(share.join("wire.jsonl"), &text).unwrap();
    let amp = dir.path().join("proj/sessions/amp-1");
    std::fs::create_dir_all(amp.join("context-intelligence")).unwrap();
    let line = r#"{"event":"session:start","data":{},"timestamp":"2026-06-10T10:00:00Z","workspace":"w"}"#;
    std::fs::write(amp.join("context-intelligence/events.jsonl"), format!("{line}\n")).unwrap();
    std::fs::write(amp.join("context-intelligence/metadata.json"), "{}").unwrap();
    for stray in [amp.join("agents/inside"), dir.path().join("proj/loose/s")] {
        std::fs::create_dir_all(&stray).unwrap();
        std::fs::write(stray.join("wire.jsonl"), &text).unwrap();
    }
    let run = ci("ci-find").args(["--root"]).arg(dir.path()).args(["--sort", "id"]).run();
    let found: Vec<Value> = run.json().iter().map(|r| json!([r["format"], r["session"]])).collect();
    assert_eq!(found, [json!(["kimi", MAIN]), json!(["amplifier", "amp-1"]), json!(["kimi", "s"])]);
}
