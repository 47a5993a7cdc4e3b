//! A small deterministic generator of Claude Code hook-log folders (the hooks
//! template's `logs/<hook>.json` arrays, formats.md §7) for the hook-log
//! tests. Test-only.
//!
//! [`generate`] writes one folder and returns what a correct reader must
//! find ([`Expected`]), recounted from the elements that survive on disk.
//! The folder holds the shapes a reader must tell apart:
//!
//! - several sessions whose elements are interleaved in every file; even
//!   sessions carry `tool_use_id` (Claude Code 2.1), odd ones do not (their
//!   calls pair in order per session, tool and input, and one of them calls
//!   the same tool with the same input twice);
//! - calls that succeed (PostToolUse), fail (PostToolUseFailure) or never end;
//! - naive local `timestamp`/`logged_at` values (no offset) on some elements;
//! - droid payloads (camelCase `sessionId`, `hookEventName`) in two files;
//! - an element that is not an object (`user_prompt_submit.json`);
//! - a torn array: `post_tool_use.json` cut in the middle of an element;
//! - a file that is not an array (`pre_compact.json`, one object);
//! - `chat.json` (transcript lines, never events).

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{json, Value};

/// Calls of one tool: calls, ok, errors, unfinished.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Calls {
    pub calls: u64,
    pub ok: u64,
    pub errors: u64,
    pub unfinished: u64,
}

/// One session's facts.
#[derive(Debug, Default)]
pub struct Session {
    pub cwd: String,
    /// Event name → count.
    pub events: BTreeMap<String, u64>,
    /// Tool → calls.
    pub tool_calls: BTreeMap<String, u64>,
    /// Array files holding its elements, in reading order.
    pub files: Vec<String>,
    pub ended: bool,
}

/// What the generated folder holds.
#[derive(Debug, Default)]
pub struct Expected {
    pub sessions: BTreeMap<String, Session>,
    /// Event name → count, all sessions.
    pub events: BTreeMap<String, u64>,
    /// Tool → calls, all sessions.
    pub tools: BTreeMap<String, Calls>,
    /// The string searched for, and where each match is: (session, file, first line of the element).
    pub marker: &'static str,
    pub marker_sites: Vec<(String, String, u64)>,
    /// Report lines, in order: whether the tool's name and `: ` come first
    /// (errors and warnings; not bad lines, `path:line: reason`), and the text.
    pub reports: Vec<(bool, String)>,
    /// Bad lines reported.
    pub bad: u64,
}

/// The reading order of the arrays (the writer's `HOOK_FILES`).
pub const ORDER: [&str; 13] = [
    "session_start.json",
    "user_prompt_submit.json",
    "pre_tool_use.json",
    "permission_request.json",
    "post_tool_use.json",
    "post_tool_use_failure.json",
    "notification.json",
    "pre_compact.json",
    "subagent_start.json",
    "subagent_stop.json",
    "stop.json",
    "session_end.json",
    "status_line.json",
];

const MARKER: &str = "zebra-marker-42";
const TORN: &str = "post_tool_use.json";
const NOT_ARRAY: &str = "pre_compact.json";

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// The file a hook's payload goes to.
fn file_of(hook: &str) -> &'static str {
    match hook {
        "SessionStart" => "session_start.json",
        "UserPromptSubmit" => "user_prompt_submit.json",
        "PreToolUse" => "pre_tool_use.json",
        "PermissionRequest" => "permission_request.json",
        "PostToolUse" => "post_tool_use.json",
        "PostToolUseFailure" => "post_tool_use_failure.json",
        "Notification" => "notification.json",
        "SubagentStart" => "subagent_start.json",
        "SubagentStop" => "subagent_stop.json",
        "Stop" => "stop.json",
        "SessionEnd" => "session_end.json",
        _ => "status_line.json",
    }
}

/// The medicine-wheel mapping (formats.md §2).
fn canonical(hook: &str) -> String {
    match hook {
        "SessionStart" => "session:start",
        "SessionEnd" => "session:end",
        "UserPromptSubmit" => "prompt:submit",
        "Stop" => "prompt:complete",
        "PreToolUse" => "tool:pre",
        "PostToolUse" => "tool:post",
        "PostToolUseFailure" => "tool:error",
        "SubagentStart" => "delegate:agent_spawned",
        "SubagentStop" => "delegate:agent_completed",
        "PreCompact" => "context:compaction",
        "PermissionRequest" => "approval:required",
        "Notification" => "user:notification",
        other => return format!("hook:{other}"),
    }
    .to_owned()
}

/// One session being written: its id, cwd, whether its calls carry ids.
struct Writer {
    id: String,
    cwd: String,
    ids: bool,
    step: u64,
}

impl Writer {
    fn payload(&mut self, hook: &str, extra: Value) -> Value {
        self.step += 1;
        let mut v = json!({
            "session_id": self.id,
            "transcript_path": format!("/home/dev/.claude/projects/x/{}.jsonl", self.id),
            "cwd": self.cwd,
            "permission_mode": "default",
            "hook_event_name": hook,
        });
        if let (Some(o), Value::Object(e)) = (v.as_object_mut(), extra) {
            o.extend(e);
        }
        // Some loggers add naive local times (no offset).
        if self.step.is_multiple_of(3) {
            v["timestamp"] = json!(format!("2026-02-03T10:{:02}:{:02}.123456", self.step / 60 % 60, self.step % 60));
        } else if self.step % 3 == 1 {
            v["logged_at"] = json!(format!("2026-02-03 11:{:02}:{:02}", self.step / 60 % 60, self.step % 60));
        }
        v
    }
}

/// Writes `elements` as the template does (`json.dump(..., indent=2)`) and
/// returns the text and the first line of each element.
fn pretty(elements: &[Value]) -> (String, Vec<u64>) {
    if elements.is_empty() {
        return ("[]".into(), vec![]);
    }
    let mut text = String::from("[\n");
    let mut lines = vec![];
    let mut line = 2u64;
    for (i, e) in elements.iter().enumerate() {
        let p = serde_json::to_string_pretty(e).expect("JSON");
        lines.push(line);
        line += p.matches('\n').count() as u64 + 1;
        for (j, l) in p.lines().enumerate() {
            if j > 0 {
                text.push('\n');
            }
            text.push_str("  ");
            text.push_str(l);
        }
        text.push_str(if i + 1 < elements.len() { ",\n" } else { "\n" });
    }
    text.push(']');
    (text, lines)
}

/// Every string value of `v` (not keys).
fn strings<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
    match v {
        Value::String(s) => out.push(s),
        Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        Value::Object(o) => o.values().for_each(|x| strings(x, out)),
        _ => {}
    }
}

/// Writes a hook-log folder into `dir` (`sessions` sessions, seed `seed`) and
/// returns its facts. `display` is how the tools will name `dir` in reports.
pub fn generate(dir: &Path, display: &str, sessions: usize, seed: u64) -> Expected {
    let mut rng = Rng(seed);
    let mut writers: Vec<Writer> = (0..sessions)
        .map(|i| Writer {
            id: format!("{:08x}-1111-4000-8000-{:012x}", 0xa0 + i, i + 1),
            cwd: format!("/home/dev/proj{i}"),
            ids: i % 2 == 0,
            step: 0,
        })
        .collect();
    let mut files: BTreeMap<&'static str, Vec<Value>> = BTreeMap::new();
    let push = |files: &mut BTreeMap<&'static str, Vec<Value>>, hook: &str, v: Value| {
        files.entry(file_of(hook)).or_default().push(v);
    };
    // Each session's script of (hook, payload) steps, interleaved round robin.
    let mut scripts: Vec<Vec<(String, Value)>> = vec![];
    for (si, w) in writers.iter_mut().enumerate() {
        let mut s: Vec<(String, Value)> = vec![];
        let mut add = |w: &mut Writer, hook: &str, extra: Value| s.push((hook.to_owned(), w.payload(hook, extra)));
        add(w, "SessionStart", json!({"source": if si == 1 { "resume" } else { "startup" }}));
        let mut call = 0;
        for turn in 0..(2 + rng.below(3)) {
            let prompt = if turn == 1 { format!("turn 1 of session {si}: {MARKER}") } else { format!("turn {turn}") };
            add(w, "UserPromptSubmit", json!({"prompt": prompt}));
            for _ in 0..(1 + rng.below(4)) {
                call += 1;
                let tool = ["Bash", "Read", "Edit", "Grep"][rng.below(4) as usize];
                let mut input = match tool {
                    "Bash" if call % 3 == 0 => json!({"command": format!("echo {MARKER} {call}")}),
                    "Bash" => json!({"command": format!("ls -la dir{call}")}),
                    "Grep" => json!({"pattern": format!("fn x{call}")}),
                    _ => json!({"file_path": format!("{}/src/f{call}.rs", w.cwd)}),
                };
                // An odd session repeats its first call's input once: pairs in order.
                if !w.ids && call == 2 {
                    input = json!({"command": "cargo build"});
                }
                if !w.ids && call == 3 {
                    input = json!({"command": "cargo build"});
                }
                let tool = if !w.ids && (call == 2 || call == 3) { "Bash" } else { tool };
                let mut extra = json!({"tool_name": tool, "tool_input": input});
                if w.ids {
                    extra["tool_use_id"] = json!(format!("toolu_{si}_{call}"));
                }
                add(w, "PreToolUse", extra.clone());
                if rng.below(5) == 0 {
                    add(w, "PermissionRequest", extra.clone());
                }
                match rng.below(10) {
                    0..=6 => {
                        let mut post = extra.clone();
                        post["tool_response"] = json!({"stdout": format!("done {call}"), "interrupted": false});
                        add(w, "PostToolUse", post);
                    }
                    7 | 8 => {
                        let mut fail = extra.clone();
                        fail["error"] = json!("Exit code 1");
                        add(w, "PostToolUseFailure", fail);
                    }
                    _ => {}
                }
            }
            if rng.below(3) == 0 {
                add(w, "Notification", json!({"message": "Claude needs your permission"}));
            }
            if si == 1 && turn == 0 {
                add(w, "SubagentStart", json!({"agent_id": "ag1", "agent_type": "Explore"}));
                add(w, "SubagentStop", json!({"agent_id": "ag1", "stop_hook_active": false}));
            }
            add(w, "Stop", json!({"stop_hook_active": false}));
            add(w, "Status", json!({"model": {"id": "claude-opus-4-5", "display_name": "Opus"}}));
        }
        if si == 0 {
            add(w, "SessionEnd", json!({"reason": "exit"}));
        }
        scripts.push(s);
    }
    let longest = scripts.iter().map(Vec::len).max().unwrap_or(0);
    for k in 0..longest {
        for s in &scripts {
            if let Some((hook, v)) = s.get(k) {
                push(&mut files, hook, v.clone());
            }
        }
        // Droid payloads sit among the others.
        if k == 3 || k == 9 {
            push(
                &mut files,
                "PreToolUse",
                json!({"sessionId": "droid-1", "hookEventName": "PreToolUse", "toolName": "Execute", "toolInput": {"command": MARKER}}),
            );
        }
        if k == 5 {
            push(&mut files, "Stop", json!({"sessionId": "droid-1", "hookEventName": "Stop"}));
        }
        if k == 2 {
            push(&mut files, "UserPromptSubmit", json!(42));
        }
    }

    // Write the files; cut the torn one inside an element; keep what survives.
    let mut exp = Expected { marker: MARKER, ..Expected::default() };
    let mut kept: Vec<(&str, Vec<(Value, u64)>)> = vec![];
    let logs = crate::kit::Tree::at(dir);
    logs.hook_log("chat.json", "[\n  {\"type\": \"user\", \"message\": {\"content\": \"zebra-marker-42\"}}\n]");
    logs.hook_log(NOT_ARRAY, "{\n  \"hook_event_name\": \"PreCompact\",\n  \"note\": \"not an array\"\n}\n");
    for name in ORDER {
        if name == NOT_ARRAY {
            exp.reports.push((
                true,
                format!("{display}/{NOT_ARRAY}:line 1: not a JSON array (a hook log file holds one array), not read"),
            ));
            continue;
        }
        let Some(elements) = files.get(name) else { continue };
        let mut torn_report = None;
        let (text, lines) = pretty(elements);
        let path = format!("{display}/{name}");
        let mut els: Vec<(Value, u64)> = elements.iter().cloned().zip(lines.iter().copied()).collect();
        if name == TORN {
            // Cut in the middle of element k (1-based k = 2/3 of the way).
            let k = elements.len() * 2 / 3 + 1;
            let start = nth_element_offset(&text, &lines, k);
            let cut = start + serde_json::to_string_pretty(&elements[k - 1]).expect("JSON").len() / 2;
            logs.hook_log(name, &text.as_bytes()[..cut]);
            els.truncate(k - 1);
            torn_report = Some(format!(
                "{path}:element {k}: torn array: the file ends inside this element (it starts on line {}; cut mid-write?); the {} elements before it are read",
                lines[k - 1],
                k - 1
            ));
        } else {
            logs.hook_log(name, &text);
        }
        let mut droid = (0u64, 0u64);
        for (i, (v, line)) in els.iter().enumerate() {
            if !v.is_object() {
                exp.reports.push((false, format!("{path}:{line}: element {}: not a JSON object", i + 1)));
                exp.bad += 1;
            } else if v.get("sessionId").is_some() {
                if droid.0 == 0 {
                    droid.1 = *line;
                }
                droid.0 += 1;
            }
        }
        if droid.0 > 0 {
            let s = if droid.0 == 1 { "" } else { "s" };
            exp.reports.push((
                true,
                format!("warning: {path}:{}: {} droid hook payload{s} (camelCase keys): not read", droid.1, droid.0),
            ));
        }
        // A file's array error comes after its bad lines and warnings.
        exp.reports.extend(torn_report.map(|r| (true, r)));
        kept.push((name, els));
    }
    recount(&kept, &mut exp);
    exp
}

/// The byte offset of element `k` (1-based) in `text`, whose elements start on `lines`.
fn nth_element_offset(text: &str, lines: &[u64], k: usize) -> usize {
    let line = lines[k - 1] as usize;
    let mut offset = 0;
    for (i, l) in text.split('\n').enumerate() {
        if i + 1 == line {
            return offset + (l.len() - l.trim_start().len());
        }
        offset += l.len() + 1;
    }
    offset
}

/// The facts of the surviving elements, read in reading order.
fn recount(kept: &[(&str, Vec<(Value, u64)>)], exp: &mut Expected) {
    // Pending calls per session: by id, or in order by (tool, input).
    let mut pending: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    for (name, els) in kept {
        for (v, line) in els {
            let Some(sid) = v.get("session_id").and_then(Value::as_str) else { continue };
            let hook = v["hook_event_name"].as_str().unwrap_or_default();
            let event = canonical(hook);
            let s = exp.sessions.entry(sid.to_owned()).or_default();
            s.cwd = v["cwd"].as_str().unwrap_or_default().to_owned();
            if !s.files.iter().any(|f| f == name) {
                s.files.push((*name).to_owned());
            }
            *s.events.entry(event.clone()).or_default() += 1;
            *exp.events.entry(event.clone()).or_default() += 1;
            s.ended |= hook == "SessionEnd";
            let mut strs = vec![];
            strings(v, &mut strs);
            for st in strs {
                for _ in 0..st.matches(MARKER).count() {
                    exp.marker_sites.push((sid.to_owned(), (*name).to_owned(), *line));
                }
            }
            let tool = v.get("tool_name").and_then(Value::as_str).unwrap_or_default().to_owned();
            let key = match v.get("tool_use_id").and_then(Value::as_str) {
                Some(id) => (sid.to_owned(), format!("id {id}")),
                None => (sid.to_owned(), format!("{tool} {}", v["tool_input"])),
            };
            match event.as_str() {
                "tool:pre" => {
                    *s.tool_calls.entry(tool.clone()).or_default() += 1;
                    exp.tools.entry(tool.clone()).or_default().calls += 1;
                    pending.entry(key).or_default().push(tool);
                }
                "tool:post" | "tool:error" => {
                    let q = pending.get_mut(&key).expect("an end has its pre");
                    assert!(!q.is_empty(), "an end has its pre");
                    let t = q.remove(0);
                    let c = exp.tools.entry(t).or_default();
                    if event == "tool:post" {
                        c.ok += 1;
                    } else {
                        c.errors += 1;
                    }
                }
                _ => {}
            }
        }
    }
    for q in pending.values() {
        for t in q {
            exp.tools.entry(t.clone()).or_default().unfinished += 1;
        }
    }
}
