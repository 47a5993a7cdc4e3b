//! Hostile input for the writers of round 2 (issue 18, "And for what this
//! round adds"): Claude Code transcripts, Codex rollouts and hook-log arrays.
//! Deep nesting far past (and exactly at) the limit, huge lines and
//! elements, unsafe session ids inside payloads and in piped records, paths
//! inside payloads (never opened), names that are not UTF-8, FIFOs and
//! devices among the files. Torn arrays and torn last lines are covered by
//! the generators (`tests/transcripts.rs`, `tests/codex.rs`,
//! `tests/hooklogs.rs`).

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::kit::tree::mkfifo;
use crate::util::{ci, ci_command, exits_within, Run};

const TS: &str = "2026-03-01T00:00:00.000Z";

/// A transcript prompt line of session `s1` holding `text`.
fn prompt(text: &str) -> String {
    json!({"type": "user", "sessionId": "s1", "cwd": "/p", "timestamp": TS,
           "message": {"role": "user", "content": text}})
    .to_string()
}

/// `<dir>/projects/-p/<name>` with `lines`, each ended by a newline.
fn transcript(dir: &Path, name: &OsStr, lines: &[String]) -> PathBuf {
    let folder = dir.join("projects").join("-p");
    std::fs::create_dir_all(&folder).unwrap();
    let path = folder.join(name);
    std::fs::write(&path, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    path
}

/// A rollout's session meta line naming session `id`.
fn meta(id: &str) -> String {
    json!({"timestamp": "2026-05-01T10:00:00Z", "type": "session_meta", "payload": {"id": id, "cwd": "/w"}}).to_string()
}

/// A rollout's user message line.
fn user_message(text: &str) -> String {
    json!({"timestamp": "2026-05-01T10:00:01Z", "type": "event_msg",
           "payload": {"type": "user_message", "message": text}})
    .to_string()
}

/// `<dir>/sessions/2026/05/01/<name>` with `lines`.
fn rollout(dir: &Path, name: &OsStr, lines: &[String]) -> PathBuf {
    let folder = dir.join("sessions/2026/05/01");
    std::fs::create_dir_all(&folder).unwrap();
    let path = folder.join(name);
    std::fs::write(&path, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    path
}

/// A hook payload of session `sid`.
fn hook(sid: &str, event: &str) -> Value {
    json!({"session_id": sid, "hook_event_name": event, "cwd": "/p"})
}

/// `<dir>/logs/<name>` holding `elements` as a pretty-printed array (one
/// element per line, as raw JSON text).
fn hook_log(dir: &Path, name: &str, elements: &[String]) -> PathBuf {
    let logs = dir.join("logs");
    std::fs::create_dir_all(&logs).unwrap();
    let path = logs.join(name);
    std::fs::write(&path, format!("[\n  {}\n]\n", elements.join(",\n  "))).unwrap();
    path
}

fn summary(tool: &str, n: usize) -> String {
    let s = if n == 1 { "" } else { "s" };
    format!("{tool}: {n} bad line{s} skipped (--strict makes bad lines an error)\n")
}

/// Runs `tool ARGS` with stdin closed, within the deadline of
/// [`exits_within`] (a FIFO opened by mistake would block it).
pub(crate) fn run_within(tool: &str, args: &[&OsStr]) -> Run {
    let mut child = ci_command(tool)
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let code = exits_within(&mut child, &format!("{tool} {args:?} ending")).unwrap_or(-1);
    let out = child.wait_with_output().unwrap();
    Run {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code,
    }
}

fn sessions(run: &Run) -> Vec<String> {
    run.json().iter().map(|r| r["session"].as_str().unwrap_or("").to_owned()).collect()
}

// ---------------------------------------------------------------------------
// Nesting

/// `[` × 100,000 (far past the 127 levels of the parser) inside a value.
fn deep() -> String {
    format!("{}{}", "[".repeat(100_000), "]".repeat(100_000))
}

/// A transcript line, a rollout line and a hook-log element nested far past
/// the limit are each one bad line, reported with the byte where the 128th
/// level opens; the lines around them are read, by every tool, and the
/// stack never overflows.
#[test]
fn deep_nesting_in_every_writer_is_one_bad_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let t = transcript(
        d,
        "s1.jsonl".as_ref(),
        &[
            prompt("one"),
            format!(r#"{{"type":"user","sessionId":"s1","message":{{"content":{}}}}}"#, deep()),
            prompt("two"),
        ],
    );
    let r = rollout(
        d,
        "rollout-r.jsonl".as_ref(),
        &[
            meta("r1"),
            format!(r#"{{"type":"event_msg","payload":{{"type":"x","v":{}}}}}"#, deep()),
            user_message("two"),
        ],
    );
    let h = hook_log(
        d,
        "stop.json",
        &[hook("h1", "Stop").to_string(), format!(r#"{{"session_id":"h1","hook_event_name":"Stop","v":{}}}"#, deep())],
    );
    // Where the 128th level opens: after the envelope of each line.
    let cases = [
        (&t, 2, r#"{"type":"user","sessionId":"s1","message":{"content":"#.len() + 125, 2),
        (&r, 2, r#"{"type":"event_msg","payload":{"type":"x","v":"#.len() + 125, 2),
        (&h, 3, r#"{"session_id":"h1","hook_event_name":"Stop","v":"#.len() + 126, 1),
    ];
    for (path, line, byte, good) in cases {
        let run = run_within("ci-cat", &[path.as_os_str()]);
        let element = if path == &h { "element 2: " } else { "" };
        assert_eq!(
            run.stderr,
            format!("{}:{line}: {element}JSON nested deeper than 127 levels at byte {byte}\n", path.display())
                + &summary("ci-cat", 1),
            "{}",
            path.display()
        );
        assert_eq!((run.json().len(), run.code), (good, 0), "{}", path.display());
        let run = run_within("ci-grep", &["-c".as_ref(), "--strict".as_ref(), "e".as_ref(), path.as_os_str()]);
        assert!(run.stderr.contains("JSON nested deeper than 127 levels"), "{}", run.stderr);
        assert_eq!(run.code, 2);
    }
}

/// A line nested exactly as deep as the limit (127 levels) is valid, but a
/// writer whose event record holds the whole line as `data` (transcripts,
/// hooks, hook logs) would print it one level deeper, and the next tool in
/// a pipe would refuse the record. Such a line is a bad line where it is
/// read, by every tool; a rollout's `data` is its payload, which keeps its
/// depth, so there the line is read and its record pipes cleanly.
/// (Found by the `transcript` fuzz target.)
#[test]
fn lines_nested_to_the_limit_are_refused_where_their_record_would_nest_deeper() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // 127 levels: the line, `message` (or `payload`) and 125 levels of
    // arrays; the line and 126 levels.
    let deepest = format!("{}{}", "[".repeat(125), "]".repeat(125));
    let deeper = format!("[{deepest}]");
    let t = transcript(
        d,
        "s1.jsonl".as_ref(),
        &[format!(r#"{{"type":"user","sessionId":"s1","message":{{"content":{deepest}}}}}"#), prompt("two")],
    );
    let h = hook_log(d, "stop.json", &[format!(r#"{{"session_id":"h1","hook_event_name":"Stop","v":{deeper}}}"#)]);
    let r = rollout(
        d,
        "rollout-r.jsonl".as_ref(),
        &[meta("r1"), format!(r#"{{"type":"event_msg","payload":{{"v":{deepest}}}}}"#)],
    );
    let reason =
        "JSON nested 127 levels deep, the limit: its event record, which holds the line as \"data\", would nest deeper";
    for (path, report) in
        [(&t, format!("{}:1: {reason}\n", t.display())), (&h, format!("{}:2: element 1: {reason}\n", h.display()))]
    {
        for (tool, args) in
            [("ci-cat", vec![]), ("ci-filter", vec!["--event", "*", "--strict"]), ("ci-agg", vec!["--by", "event"])]
        {
            let run = ci(tool).args(&args).arg(path).run();
            let strict = args.contains(&"--strict");
            let tail = if strict { format!("{tool}: 1 bad line skipped\n") } else { summary(tool, 1) };
            assert_eq!(run.stderr, report.clone() + &tail, "{tool} {}", path.display());
        }
    }
    // What is printed pipes cleanly.
    for path in [&t, &h, &r] {
        let first = ci("ci-cat").arg(path).run();
        let again = ci("ci-cat").stdin(first.stdout.clone()).run();
        assert_eq!(
            (again.stdout.as_str(), again.stderr.as_str(), again.code),
            (first.stdout.as_str(), "", if first.stdout.is_empty() { 1 } else { 0 })
        );
    }
    let run = ci("ci-cat").arg(&r).run();
    assert_eq!((run.json().len(), run.stderr.as_str(), run.code), (2, "", 0));
}

// ---------------------------------------------------------------------------
// Huge lines and elements

/// A 3 MB string (over the line reader's first buffer and the transcript
/// head window of 1 MiB) in a transcript line, a rollout line and a
/// hook-log element: printed cut within the default budget, found by
/// ci-grep after the string, counted by ci-agg.
#[test]
fn huge_lines_and_elements_are_read_whole_and_printed_cut() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let big = "x".repeat(3_000_000);
    let t = transcript(d, "s1.jsonl".as_ref(), &[prompt(&format!("{big} needle")), prompt("two")]);
    let r = rollout(d, "rollout-r.jsonl".as_ref(), &[meta("r1"), user_message(&format!("{big} needle"))]);
    let mut el = hook("h1", "PreToolUse");
    el["tool_name"] = json!("Bash");
    el["tool_input"] = json!({"command": format!("{big} needle")});
    let h = hook_log(d, "pre_tool_use.json", &[serde_json::to_string_pretty(&el).unwrap()]);
    for (path, events, event) in [(&t, 2, "prompt:submit"), (&r, 2, "prompt:submit"), (&h, 1, "tool:pre")] {
        let run = ci("ci-cat").arg(path).run();
        assert_eq!((run.stderr.as_str(), run.code), ("", 0), "{}", path.display());
        let recs = run.json();
        assert_eq!(recs.len(), events);
        let huge = recs.iter().find(|r| r["ci"].get("cut").is_some()).expect("the huge record is cut");
        assert_eq!(huge["event"], event);
        assert!(run.lines().iter().all(|l| l.len() <= 4096), "within the budget");
        let run = ci("ci-grep").args(["-c", "needle"]).arg(path).run();
        assert_eq!((run.json()[0]["count"].as_u64(), run.code), (Some(1), 0), "{}", path.display());
        let run = ci("ci-agg").args(["--by", "event"]).arg(path).run();
        assert_eq!(run.json().iter().map(|g| g["count"].as_u64().unwrap()).sum::<u64>(), events as u64);
    }
}

// ---------------------------------------------------------------------------
// Session ids

/// Session ids a rollout's meta or a hook-log element names that are not
/// plain directory names (`..`-relative, with `/`, with NUL) are refused
/// where they are read (reported, the session or element skipped); an id
/// with control characters is a name like any other, escaped wherever it
/// is printed (JSON output), never printed raw.
#[test]
fn unsafe_ids_inside_payloads_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let bad = ["../../x", "a/b", "a\u{0}b", ".."];
    for (i, id) in bad.iter().enumerate() {
        rollout(d, format!("rollout-{i}.jsonl").as_ref(), &[meta(id), user_message("hi")]);
    }
    rollout(d, "rollout-esc.jsonl".as_ref(), &[meta("e\u{1b}[2Jx"), user_message("hi")]);
    let elements: Vec<String> = bad.iter().chain(&["e\u{1b}[2Jy"]).map(|id| hook(id, "Stop").to_string()).collect();
    let h = hook_log(d, "stop.json", &elements);
    let run = ci("ci-find").arg("--root").arg(d).run();
    let folder = d.join("sessions/2026/05/01");
    let mut want: String = bad
        .iter()
        .enumerate()
        .map(|(i, id)| format!("ci-find: {}/rollout-{i}.jsonl: unsafe session id {id:?}, skipped\n", folder.display()))
        .collect();
    want = bad
        .iter()
        .enumerate()
        .map(|(i, id)| format!("{}:{}: element {}: unsafe session id {id:?}\n", h.display(), i + 2, i + 1))
        .collect::<String>()
        + &summary("ci-find", 4)
        + &want;
    let mut got: Vec<&str> = run.stderr.lines().collect();
    let mut wanted: Vec<&str> = want.lines().collect();
    got.sort_unstable();
    wanted.sort_unstable();
    assert_eq!(got, wanted);
    assert_eq!(run.code, 2);
    let mut ids = sessions(&run);
    ids.sort();
    assert_eq!(ids, ["e\u{1b}[2Jx", "e\u{1b}[2Jy"]);
    assert!(!run.stdout.contains('\u{1b}') && run.stdout.contains(r"e\u001b[2Jx"), "escaped in JSON");
}

/// A `..jsonl` in a project folder (its stem, `.`, names no session) is
/// reported, not passed over in silence.
#[test]
fn a_transcript_whose_stem_is_no_session_id_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let bad = transcript(dir.path(), "..jsonl".as_ref(), &[prompt("hi")]);
    transcript(dir.path(), "s1.jsonl".as_ref(), &[prompt("hi")]);
    let run = ci("ci-find").arg("--root").arg(dir.path()).run();
    assert_eq!(sessions(&run), ["s1"]);
    assert_eq!(run.stderr, format!("ci-find: {}: unsafe session id \".\", skipped\n", bad.display()));
    assert_eq!(run.code, 2);
}

/// Piped event records whose provenance, or without one whose payload,
/// names an unsafe session are reported (`-:LINE: unsafe session id …`)
/// and dropped by every tool, as unsafe session records are: ci-grep -l
/// printed a session record for `../../x` and ci-agg --sessions reported it.
#[test]
fn piped_event_records_naming_unsafe_sessions_are_refused() {
    let lines = [
        r#"{"event":"x","data":{"s":"needle"},"ci":{"session":"../../x","path":"/tmp/nowhere.jsonl","line":5}}"#,
        r#"{"event":"prompt:complete","hook":"Stop","data":{"session_id":"a/b","hook_event_name":"Stop","s":"needle"}}"#,
        r#"{"event":"prompt:submit","transcript":"user","data":{"sessionId":"..","s":"needle"}}"#,
        r#"{"event":"x","data":{"s":"needle"},"ci":{"session":"ok","path":"/tmp/nowhere.jsonl","line":1}}"#,
    ];
    let stdin = lines.join("\n") + "\n";
    let report = |tool: &str| {
        format!(
            "{tool}: -:1: unsafe session id \"../../x\"\n{tool}: -:2: unsafe session id \"a/b\"\n\
             {tool}: -:3: unsafe session id \"..\"\n"
        )
    };
    let run = ci("ci-cat").stdin(stdin.clone()).run();
    assert_eq!((run.stdout.as_str(), run.stderr, run.code), (format!("{}\n", lines[3]).as_str(), report("ci-cat"), 2));
    let run = ci("ci-grep").args(["-l", "needle"]).stdin(stdin.clone()).run();
    assert_eq!((sessions(&run), run.stderr, run.code), (vec!["ok".to_owned()], report("ci-grep"), 2));
    let run = ci("ci-agg").arg("--sessions").stdin(stdin.clone()).run();
    assert_eq!((sessions(&run), run.stderr, run.code), (vec!["ok".to_owned()], report("ci-agg"), 2));
    let run = ci("ci-filter").args(["--event", "x"]).stdin(stdin).run();
    assert_eq!(
        (run.stdout.as_str(), run.stderr, run.code),
        (format!("{}\n", lines[3]).as_str(), report("ci-filter"), 2)
    );
}

// ---------------------------------------------------------------------------
// Paths inside payloads

/// Watches `paths` for being opened (inotify `IN_OPEN`), from now on.
struct OpenWatch {
    fd: i32,
}

impl OpenWatch {
    fn new(paths: &[&Path]) -> OpenWatch {
        // SAFETY: plain system calls on a descriptor this struct owns and
        // NUL-terminated path bytes that outlive the calls.
        let fd = unsafe { libc::inotify_init1(libc::IN_NONBLOCK | libc::IN_CLOEXEC) };
        assert!(fd >= 0, "inotify_init1");
        for p in paths {
            let c = std::ffi::CString::new(p.as_os_str().as_bytes()).unwrap();
            let w = unsafe { libc::inotify_add_watch(fd, c.as_ptr(), libc::IN_OPEN) };
            assert!(w >= 0, "inotify_add_watch {}", p.display());
        }
        OpenWatch { fd }
    }

    /// Whether any watched path was opened since the last call.
    fn opened(&self) -> bool {
        let mut buf = [0u8; 4096];
        // SAFETY: reads into a local buffer of the given length.
        let n = unsafe { libc::read(self.fd, buf.as_mut_ptr().cast(), buf.len()) };
        n > 0
    }
}

impl Drop for OpenWatch {
    fn drop(&mut self) {
        // SAFETY: the descriptor is this struct's own.
        unsafe { libc::close(self.fd) };
    }
}

/// Paths named inside payloads — a hook payload's `transcript_path` and
/// `cwd`, a tool input's `file_path`, a transcript's or a rollout's `cwd` —
/// are never opened by any tool (nor listed, as a directory): a writer
/// reads only the files of its own layout, inside the
/// session's own folder (a hooks session's `_transcript_final.jsonl` is
/// read; the `transcript_path` its payloads name is not).
#[test]
fn paths_inside_payloads_are_never_opened() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let outside = d.join("outside");
    std::fs::create_dir(&outside).unwrap();
    let file = outside.join("secret.jsonl");
    std::fs::write(&file, format!("{}\n", prompt("secret"))).unwrap();
    let (f, o) = (file.to_str().unwrap(), outside.to_str().unwrap());
    // A transcript.
    let call = json!({"type": "assistant", "sessionId": "s1", "cwd": o, "timestamp": TS, "requestId": "r",
        "message": {"id": "m", "model": "claude-x", "role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": f, "notebook_path": f}}]}});
    let result = json!({"type": "user", "sessionId": "s1", "cwd": o, "timestamp": TS, "transcript_path": f,
        "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": f}]}});
    transcript(&d.join("t"), "s1.jsonl".as_ref(), &[call.to_string(), result.to_string()]);
    // A rollout.
    let fc = json!({"timestamp": "2026-05-01T10:00:02Z", "type": "response_item", "payload": {
        "type": "function_call", "name": "shell", "call_id": "c1", "arguments": json!({"path": f}).to_string()}});
    rollout(
        &d.join("c"),
        "rollout-r.jsonl".as_ref(),
        &[meta("r1").replace("\"/w\"", &format!("{o:?}")), fc.to_string()],
    );
    // Hook logs and a medicine-wheel hooks session with a transcript copy.
    let mut el = hook("h1", "PreToolUse");
    el["transcript_path"] = json!(f);
    el["cwd"] = json!(o);
    el["tool_name"] = json!("Read");
    el["tool_input"] = json!({"file_path": f});
    hook_log(&d.join("h"), "pre_tool_use.json", &[el.to_string()]);
    let sess = d.join("sd").join("h2");
    std::fs::create_dir_all(&sess).unwrap();
    el["session_id"] = json!("h2");
    std::fs::write(sess.join("_claude_PreToolUse.jsonl"), format!("{el}\n")).unwrap();
    std::fs::write(sess.join("_transcript_final.jsonl"), format!("{}\n", call)).unwrap();

    let watch = OpenWatch::new(&[&file, &outside]);
    for root in ["t", "c", "h", "sd"] {
        let root = d.join(root);
        let found = ci("ci-find").arg("--root").arg(&root).run();
        assert_eq!((found.code, found.stderr.as_str()), (0, ""), "ci-find {}", root.display());
        for (tool, args) in [
            ("ci-cat", vec![]),
            ("ci-filter", vec!["--where", "data.tool_input.file_path ~ \"secret\""]),
            ("ci-agg", vec!["--sessions"]),
            ("ci-agg", vec!["--tools"]),
            ("ci-agg", vec!["--tokens"]),
            ("ci-grep", vec!["-c", "secret"]),
        ] {
            let run = ci(tool).args(&args).arg(&root).run();
            assert!(run.code <= 1, "{tool} {args:?} {}: {run:?}", root.display());
            let piped = ci(tool).args(&args).stdin(found.stdout.clone()).run();
            assert_eq!(piped.stdout, run.stdout, "{tool} {args:?} on piped records");
            let events = ci("ci-cat").arg(&root).run();
            ci(tool).args(&args).stdin(events.stdout).run();
        }
    }
    assert!(!watch.opened(), "a path named inside a payload was opened");
    // The watch works: reading the file is seen.
    let _ = std::fs::read(&file);
    assert!(watch.opened(), "the watch sees an open");
}

// ---------------------------------------------------------------------------
// Names and file types

/// A rollout whose file name is not UTF-8 is reported, as every writer
/// reports such a path (records carry paths as JSON strings), not passed
/// over in silence; so is a transcript's, and a subagent transcript's.
#[test]
fn non_utf8_names_in_the_new_writers_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let not_utf8 = "path is not valid UTF-8 (not supported: records carry paths as JSON strings), skipped";
    let r = rollout(d, OsStr::from_bytes(b"rollout-\xff.jsonl"), &[meta("r1"), user_message("hi")]);
    rollout(d, "rollout-ok.jsonl".as_ref(), &[meta("r2"), user_message("hi")]);
    let run = ci("ci-find").arg("--root").arg(d).run();
    assert_eq!(sessions(&run), ["r2"]);
    assert_eq!(run.stderr, format!("ci-find: {}: {not_utf8}\n", r.display()));
    assert_eq!(run.code, 2);

    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let t = transcript(d, OsStr::from_bytes(b"\xfe.jsonl"), &[prompt("hi")]);
    let main = transcript(d, "s1.jsonl".as_ref(), &[prompt("hi")]);
    let sub = main.with_file_name("s1").join("subagents");
    std::fs::create_dir_all(&sub).unwrap();
    let agent = sub.join(OsStr::from_bytes(b"agent-\xfd.jsonl"));
    std::fs::write(&agent, format!("{}\n", prompt("sub"))).unwrap();
    let run = ci("ci-find").arg("--root").arg(d).run();
    assert_eq!(sessions(&run), ["s1"]);
    assert_eq!(run.json()[0]["files"], json!([]));
    let mut got: Vec<&str> = run.stderr.lines().collect();
    got.sort_unstable();
    let mut want =
        [format!("ci-find: {}: {not_utf8}", agent.display()), format!("ci-find: {}: {not_utf8}", t.display())];
    want.sort_unstable();
    assert_eq!(got, want);
    assert_eq!(run.code, 2);
}

/// FIFOs, devices and dangling links among the files of a rollout folder
/// or a hook-log folder are reported (`path: reason, skipped`, exit 2) and
/// never opened, by every tool; hook-log arrays were passed over in
/// silence. The good sessions are read.
#[test]
fn fifos_devices_and_dangling_links_among_the_files_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let c = d.join("c");
    rollout(&c, "rollout-ok.jsonl".as_ref(), &[meta("r1"), user_message("hi")]);
    let folder = c.join("sessions/2026/05/01");
    let h = d.join("h");
    hook_log(&h, "stop.json", &[hook("h1", "Stop").to_string()]);
    let logs = h.join("logs");
    let mut bad = vec![];
    for dir in [&folder, &logs] {
        let names: [&str; 3] = if dir == &folder {
            ["rollout-fifo.jsonl", "rollout-zero.jsonl", "rollout-gone.jsonl"]
        } else {
            ["pre_tool_use.json", "post_tool_use.json", "session_end.json"]
        };
        mkfifo(&dir.join(names[0]));
        symlink("/dev/zero", dir.join(names[1])).unwrap();
        symlink(dir.join("nothing"), dir.join(names[2])).unwrap();
        bad.extend([
            (dir.join(names[0]), "not a regular file"),
            (dir.join(names[1]), "not a regular file"),
            (dir.join(names[2]), "dangling symbolic link"),
        ]);
    }
    for (tool, args) in [
        ("ci-find", vec!["--root"]),
        ("ci-cat", vec![]),
        ("ci-agg", vec!["--by", "event"]),
        ("ci-grep", vec!["-c", "x"]),
    ] {
        for root in [&c, &h] {
            let mut argv: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
            argv.push(root.as_os_str());
            let run = run_within(tool, &argv);
            for (path, reason) in bad.iter().filter(|(p, _)| p.starts_with(root)) {
                let want = format!("{tool}: {}: {reason}, skipped\n", path.display());
                assert!(run.stderr.contains(&want), "{tool} {}: missing {want:?} in {}", root.display(), run.stderr);
            }
            assert_eq!(run.stderr.lines().count(), 3, "{tool} {}: {}", root.display(), run.stderr);
            assert_eq!(run.code, 2, "{tool} {}", root.display());
            if tool == "ci-find" {
                assert_eq!(sessions(&run), [if root == &c { "r1" } else { "h1" }]);
            }
        }
    }
    // Named as a PATH: a FIFO or device is refused before anything is opened.
    for path in [logs.join("pre_tool_use.json"), folder.join("rollout-zero.jsonl")] {
        let run = run_within("ci-cat", &[path.as_os_str()]);
        assert_eq!(
            (run.stdout.as_str(), run.stderr, run.code),
            ("", format!("ci-cat: {}: not a regular file or directory, skipped\n", path.display()), 2)
        );
    }
}

// ---------------------------------------------------------------------------
// What the normalisers print is what the next tool reads

/// A rollout line of an unknown type whose `payload` is not an object was
/// printed as an event record with a non-object `data`, which the next tool
/// refused as "not an event record". It is a bad line where it is read.
/// (Found by the `rollout` fuzz target.)
#[test]
fn rollout_payloads_that_are_not_objects_are_bad_lines() {
    let dir = tempfile::tempdir().unwrap();
    let r = rollout(
        dir.path(),
        "rollout-r.jsonl".as_ref(),
        &[
            meta("r1"),
            r#"{"type":"later","payload":5}"#.into(),
            r#"{"type":"later","payload":[1]}"#.into(),
            user_message("hi"),
        ],
    );
    let run = ci("ci-cat").arg(&r).run();
    let reason = "not a Codex rollout line (needs a string \"type\" and an object \"payload\")";
    assert_eq!(run.stderr, format!("{0}:2: {reason}\n{0}:3: {reason}\n", r.display()) + &summary("ci-cat", 2));
    let names: Vec<Value> = run.json().iter().map(|r| r["event"].clone()).collect();
    assert_eq!(names, ["session:start", "prompt:submit"]);
    let again = ci("ci-cat").stdin(run.stdout.clone()).run();
    assert_eq!((again.stdout, again.stderr.as_str(), again.code), (run.stdout, "", 0));
}

/// A transcript's block event (a `tool_use` block) read from the file and
/// the same record read back from a pipe give the same answers: the
/// capture took a block's model and usage as none, the piped record read
/// them off the block. (Found by the `transcript` fuzz target.)
#[test]
fn transcript_block_records_answer_the_same_piped() {
    let dir = tempfile::tempdir().unwrap();
    let line = json!({"type": "assistant", "sessionId": "s1", "timestamp": TS, "requestId": "r",
        "message": {"id": "m", "model": "claude-a", "role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "Read", "input": {},
             "message": {"id": "m2", "model": "claude-b", "usage": {"input_tokens": 5}}}],
            "usage": {"input_tokens": 3, "output_tokens": 4}}});
    let t = transcript(dir.path(), "s1.jsonl".as_ref(), &[line.to_string()]);
    let events = ci("ci-cat").arg(&t).run().stdout;
    for args in [&["--by", "model"][..], &["--tokens"], &["--by", "event,model"]] {
        let direct = ci("ci-agg").args(args).arg(&t).run();
        let piped = ci("ci-agg").args(args).stdin(events.clone()).run();
        assert_eq!(piped.stdout, direct.stdout, "ci-agg {args:?}");
    }
    let run = ci("ci-agg").args(["--by", "event,model"]).arg(&t).run();
    assert_eq!(
        run.lines(),
        [
            r#"{"event":"llm:response","model":"claude-a","count":1}"#,
            r#"{"event":"tool:pre","model":"claude-b","count":1}"#
        ]
    );
}
