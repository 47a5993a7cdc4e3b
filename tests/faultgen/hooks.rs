//! The fault generator's Claude Code hook sessions (medicine-wheel
//! `_sessiondata`): timed and untimed sessions, damaged lines in every event
//! file, unfinished and unterminated last lines, and the files and
//! directories that are not events, with the facts a correct reader finds.

use std::path::Path;

use serde_json::{json, Map, Value};

use super::{summary_line, write_json, Rng};

/// Hook files written per session: (file, hook name, canonical event name).
const HOOK_FILES: [(&str, &str, &str); 6] = [
    ("_claude_session_starts.jsonl", "SessionStart", "session:start"),
    ("_claude_user_inputs.jsonl", "UserPromptSubmit", "prompt:submit"),
    ("_claude_PreToolUse.jsonl", "PreToolUse", "tool:pre"),
    ("_claude_PostToolUse.jsonl", "PostToolUse", "tool:post"),
    ("_claude_Stop.jsonl", "Stop", "prompt:complete"),
    ("_claude_SessionEnd.jsonl", "SessionEnd", "session:end"),
];

/// One generated Claude Code hook session (medicine-wheel `_sessiondata`).
#[derive(Debug, Clone)]
pub struct HookSession {
    pub id: String,
    /// Every hook line has a `timestamp`: events come out in time order.
    pub timed: bool,
    /// (file path, line, canonical event, timestamp in ms for timed sessions).
    pub good: Vec<(String, u64, String, u64)>,
    /// (file path, line, reason).
    pub bad: Vec<(String, u64, String)>,
    /// Files ending in an unfinished line.
    pub held: u64,
}

/// A generated hooks root and its facts.
pub struct HookTree {
    pub dir: crate::kit::Tree,
    pub sessions: Vec<HookSession>,
}

impl HookTree {
    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// Every good event as (session, file path, line, event), sorted.
    pub fn good(&self) -> Vec<(String, String, u64, String)> {
        let mut all: Vec<_> = self
            .sessions
            .iter()
            .flat_map(|s| s.good.iter().map(|(p, l, e, _)| (s.id.clone(), p.clone(), *l, e.clone())))
            .collect();
        all.sort();
        all
    }

    /// Every report, `path:line: reason`, sorted.
    pub fn reports(&self) -> Vec<String> {
        let mut all: Vec<String> =
            self.sessions.iter().flat_map(|s| s.bad.iter().map(|(p, l, r)| format!("{p}:{l}: {r}"))).collect();
        all.sort();
        all
    }

    pub fn summary(&self, prog: &str, strict: bool) -> String {
        let bad = self.sessions.iter().map(|s| s.bad.len() as u64).sum();
        summary_line(prog, bad, self.sessions.iter().map(|s| s.held).sum(), strict)
    }
}

/// Writes a `_sessiondata`-style root with `n` hook sessions: every second one
/// timed, damaged lines (blank, torn, not JSON, not an object, invalid UTF-8,
/// valid JSON that is not a hook line), unfinished and unterminated last
/// lines, the files that are not events, and the directories that are not
/// sessions.
pub fn generate_hooks(seed: u64, n: usize) -> HookTree {
    let dir = crate::kit::Tree::new();
    let mut rng = Rng::new(seed ^ 0x5eed);
    let mut sessions = vec![];
    let not_hook = "not a Claude Code hook line (needs \"hook_event_name\")";
    for i in 0..n {
        let id = format!("{:08x}-hook-4000-8000-{:012x}", rng.next() as u32, rng.next() >> 16);
        let sdir = dir.hook_session(&id).dir;
        let timed = i % 2 == 0;
        let mut s = HookSession { id: id.clone(), timed, good: vec![], bad: vec![], held: 0 };
        // Distinct times, shuffled across files.
        let mut times: Vec<u64> = (0..64).map(|k| k * 1000 + rng.below(1000) as u64).collect();
        for k in (1..times.len()).rev() {
            times.swap(k, rng.below(k + 1));
        }
        let mut stops = vec![];
        for (fi, (file, hook, event)) in HOOK_FILES.iter().enumerate() {
            let path = sdir.join(file);
            let display = path.to_string_lossy().into_owned();
            let mut bytes: Vec<u8> = vec![];
            let mut line_no = 0u64;
            let lines = 1 + rng.below(3);
            for k in 0..lines {
                // Damage before some lines: every kind across each pair of sessions.
                let forced = k == 0 && fi == i % HOOK_FILES.len();
                if forced || rng.chance(40) {
                    // Session i has at least damage kind i % 6.
                    let kind = if forced { i % 6 } else { rng.below(6) };
                    let good = hook_line(&id, hook, timed.then(|| times.pop().unwrap_or(0)), "x");
                    let (line, reason): (Vec<u8>, String) = match kind {
                        0 => (vec![], "blank line".into()),
                        1 => {
                            let at = good.find("\"x").expect("mark") + 2;
                            (good.as_bytes()[..at].to_vec(), "torn record: line ends inside a JSON value".into())
                        }
                        2 => (b"not json".to_vec(), "invalid JSON at byte 0: expected a value".into()),
                        3 => (b"[1,2,3]".to_vec(), "not a JSON object".into()),
                        4 => {
                            let at = good.find("\"x").expect("mark") + 1;
                            let b = [&good.as_bytes()[..at], b"\xff", &good.as_bytes()[at..]].concat();
                            (b, format!("invalid UTF-8 at byte {at}"))
                        }
                        // Valid JSON without `hook_event_name` (and without a timestamp).
                        _ => (format!(r#"{{"session_id": "{id}", "cwd": "/w"}}"#).into_bytes(), not_hook.into()),
                    };
                    bytes.extend_from_slice(&line);
                    bytes.push(b'\n');
                    line_no += 1;
                    s.bad.push((display.clone(), line_no, reason));
                }
                let ts = timed.then(|| times.pop().unwrap_or(0));
                let line = hook_line(&id, hook, ts, &format!("{hook} {k} café"));
                if *hook == "Stop" {
                    stops.push(line.clone());
                }
                bytes.extend_from_slice(line.as_bytes());
                bytes.push(b'\n');
                line_no += 1;
                s.good.push((display.clone(), line_no, (*event).to_owned(), ts.unwrap_or(0)));
            }
            match (i + fi) % 5 {
                // An unfinished last line: held back.
                0 => {
                    let line = hook_line(&id, hook, timed.then(|| times.pop().unwrap_or(0)), "torn");
                    bytes.extend_from_slice(&line.as_bytes()[..line.len() / 2]);
                    s.held += 1;
                }
                // A complete last line without its newline: an event.
                1 => {
                    bytes.pop();
                }
                _ => {}
            }
            crate::kit::tree::write(&path, &bytes);
        }
        // Files that are not events, each with lines that would count or be reported.
        let write = |name: &str, text: String| crate::kit::tree::write(&sdir.join(name), text);
        write("_claude_AssistantResponse.jsonl", format!("{}\nnot json\n", stops.join("\n")));
        write("last_claude_Stop.json", stops.first().cloned().unwrap_or_default());
        write("_transcript_final.jsonl", "{\"type\":\"user\",\"uuid\":\"u\",\"message\":{}}\n".into());
        write("_codex_events.jsonl", "not json\n".into());
        sessions.push(s);
    }
    // Directories that are never sessions.
    for skipped in ["data", "_archive", ".cache"] {
        dir.hook_session(skipped).hook("Stop", format!("{}\n", hook_line(skipped, "Stop", None, "decoy")));
    }
    HookTree { dir, sessions }
}

/// One hook line in the spaced style the hook scripts write; `x` goes into a
/// string value (`prompt`).
fn hook_line(id: &str, hook: &str, ms: Option<u64>, text: &str) -> String {
    let mut m = Map::new();
    m.insert("session_id".into(), json!(id));
    m.insert("transcript_path".into(), json!(format!("~/.claude/projects/-w/{id}.jsonl")));
    m.insert("cwd".into(), json!("/home/dev/webapp"));
    m.insert("permission_mode".into(), json!("default"));
    m.insert("hook_event_name".into(), json!(hook));
    m.insert("prompt".into(), json!(text));
    if let Some(ms) = ms {
        m.insert(
            "timestamp".into(),
            json!(format!("2026-03-01T10:{:02}:{:02}.{:03}Z", ms / 60_000, ms / 1000 % 60, ms % 1000)),
        );
    }
    let mut out = String::new();
    write_json(&Value::Object(m), false, &mut out);
    out
}
