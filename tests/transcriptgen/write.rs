//! Writing a generated transcript tree: the lines of each turn (prompts,
//! assistant messages one line per block, tool results, subagent files,
//! resumes, compactions, summaries), the damage and torn tails put into each
//! file, and [`generate`], which writes the sessions and records what they
//! hold (the module docs of `transcriptgen` list every line shape).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use super::*;

/// The calling context of the lines being written.
#[derive(Clone)]
struct Ctx {
    sid: String,
    cwd: String,
    version: &'static str,
    branch: &'static str,
    /// `Some(agentId)` in a subagent file.
    agent: Option<String>,
}

/// One file being built.
struct File {
    path: PathBuf,
    /// Physical lines, without their newline.
    lines: Vec<Vec<u8>>,
    /// The good lines as values, in order (what a resume copies).
    good: Vec<Value>,
    last_uuid: Option<String>,
}

/// A file, its context and what its lines hold.
struct Sink {
    ctx: Ctx,
    file: File,
    counts: Counts,
}

impl Sink {
    fn new(ctx: Ctx, path: PathBuf) -> Sink {
        Sink { ctx, file: File { path, lines: vec![], good: vec![], last_uuid: None }, counts: Counts::default() }
    }

    /// Appends a good line; `ts` is its top-level timestamp, if any.
    fn push(&mut self, v: Value, ts: Option<&str>) {
        if let Some(ts) = ts {
            self.counts.seen(ts);
        }
        self.file.lines.push(serde_json::to_vec(&v).expect("serialise"));
        self.file.good.push(v);
    }
}

/// A message's facts, keyed by (message.id, requestId).
struct Msg {
    model: String,
    day: String,
    tokens: Tokens,
}

struct Gen<'r> {
    rng: &'r mut Rng,
    /// Unix milliseconds of the last line written.
    clock: i64,
    used: BTreeSet<String>,
    messages: BTreeMap<(String, String), Msg>,
}

impl Gen<'_> {
    fn unique(&mut self, make: &mut dyn FnMut(&mut Rng) -> String) -> String {
        loop {
            let s = make(self.rng);
            if self.used.insert(s.clone()) {
                return s;
            }
        }
    }

    fn b62(&mut self, prefix: &str, n: usize) -> String {
        self.unique(&mut |r: &mut Rng| {
            let mut s = prefix.to_owned();
            for _ in 0..n {
                s.push(B62[r.below(B62.len())] as char);
            }
            s
        })
    }

    fn uuid(&mut self) -> String {
        self.unique(&mut |r: &mut Rng| {
            let (a, b) = (r.next(), r.next());
            format!(
                "{:08x}-{:04x}-4{:03x}-{:x}{:03x}-{:012x}",
                a >> 32,
                (a >> 16) & 0xffff,
                a & 0xfff,
                8 + (b >> 62),
                (b >> 48) & 0xfff,
                b & 0xffff_ffff_ffff
            )
        })
    }

    fn words(&mut self, n: usize) -> String {
        (0..n).map(|_| *self.rng.pick(&WORDS)).collect::<Vec<_>>().join(" ")
    }

    /// Advances the clock by `lo..=hi` ms and returns the new time.
    fn tick(&mut self, lo: u64, hi: u64) -> i64 {
        self.clock += self.rng.range(lo, hi) as i64;
        self.clock
    }

    /// Makes sure the next `span` ms stay on one UTC day (moves past midnight).
    fn same_day(&mut self, span: i64) {
        let day = self.clock.div_euclid(DAY_MS);
        if (self.clock + span).div_euclid(DAY_MS) != day {
            self.clock = (day + 1) * DAY_MS + self.rng.range(200, 5000) as i64;
        }
    }

    /// The envelope every conversation line starts with, in Claude Code's key
    /// order; `type` goes after it (user, system) or after `requestId` (assistant).
    fn envelope(&mut self, s: &mut Sink, uuid: &str) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("parentUuid".into(), s.file.last_uuid.as_ref().map_or(Value::Null, |u| json!(u)));
        m.insert("isSidechain".into(), json!(s.ctx.agent.is_some()));
        m.insert("userType".into(), json!("external"));
        m.insert("cwd".into(), json!(s.ctx.cwd));
        m.insert("sessionId".into(), json!(s.ctx.sid));
        m.insert("version".into(), json!(s.ctx.version));
        m.insert("gitBranch".into(), json!(s.ctx.branch));
        if let Some(a) = &s.ctx.agent {
            m.insert("agentId".into(), json!(a));
        }
        s.file.last_uuid = Some(uuid.to_owned());
        m
    }

    fn finish(&mut self, s: &mut Sink, mut m: Map<String, Value>, uuid: String, ts: i64) {
        let ts = rfc3339_ms(ts);
        m.insert("uuid".into(), json!(uuid));
        m.insert("timestamp".into(), json!(ts));
        s.push(Value::Object(m), Some(&ts));
    }

    fn user_line(&mut self, s: &mut Sink, content: Value, extra: &[(&str, Value)]) {
        let ts = self.tick(300, 90_000);
        let uuid = self.uuid();
        let mut m = self.envelope(s, &uuid);
        m.insert("type".into(), json!("user"));
        m.insert("message".into(), json!({"role": "user", "content": content}));
        for (k, v) in extra {
            m.insert((*k).into(), v.clone());
        }
        self.finish(s, m, uuid, ts);
    }

    fn prompt(&mut self, s: &mut Sink) {
        let text = format!("please {}", self.words(5));
        let content = match self.rng.below(3) {
            0 => json!(text),
            1 => json!([{"type": "text", "text": text}]),
            _ => json!([{"type": "text", "text": text},
                        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}]),
        };
        self.user_line(s, content, &[]);
        s.counts.prompts += 1;
    }

    fn meta(&mut self, s: &mut Sink) {
        let content = if self.rng.chance(50) { json!(META_TEXT) } else { json!([{"type": "text", "text": META_TEXT}]) };
        self.user_line(s, content, &[("isMeta", json!(true))]);
    }

    fn snapshot(&mut self, s: &mut Sink) {
        let id = self.uuid();
        let ts = rfc3339_ms(self.clock);
        let v = json!({"type": "file-history-snapshot", "messageId": id,
                       "snapshot": {"messageId": id, "trackedFileBackups": {}, "timestamp": ts},
                       "isSnapshotUpdate": false});
        s.push(v, None);
    }

    fn summary(&mut self, s: &mut Sink) {
        let leaf = self.uuid();
        let text = format!("Session about {}", self.words(3));
        s.push(json!({"type": "summary", "summary": text, "leafUuid": leaf}), None);
    }

    fn system(&mut self, s: &mut Sink, subtype: &str) {
        let ts = self.tick(5, 2000);
        let uuid = self.uuid();
        let mut m = self.envelope(s, &uuid);
        m.insert("type".into(), json!("system"));
        m.insert("subtype".into(), json!(subtype));
        match subtype {
            "turn_duration" => {
                m.insert("durationMs".into(), json!(self.rng.range(800, 400_000)));
                m.insert("isMeta".into(), json!(false));
            }
            "api_error" => {
                m.insert("level".into(), json!("error"));
                m.insert(
                    "error".into(),
                    json!({"status": 529, "headers": {}, "requestID": null,
                           "error": {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}}),
                );
                m.insert("retryInMs".into(), json!(self.rng.range(500, 8000)));
                m.insert("retryAttempt".into(), json!(1));
                m.insert("maxRetries".into(), json!(10));
            }
            _ => {
                // compact_boundary: starts a new chain; the old one is the logical parent.
                let prev = m.insert("parentUuid".into(), Value::Null).unwrap_or(Value::Null);
                m.insert("logicalParentUuid".into(), prev);
                m.insert("content".into(), json!("Conversation compacted"));
                m.insert("isMeta".into(), json!(false));
                m.insert("level".into(), json!("info"));
                m.insert(
                    "compactMetadata".into(),
                    json!({"trigger": "auto", "preTokens": self.rng.range(100_000, 160_000)}),
                );
            }
        }
        self.finish(s, m, uuid, ts);
    }

    fn compact(&mut self, s: &mut Sink) {
        self.system(s, "compact_boundary");
        self.user_line(
            s,
            json!(COMPACT_TEXT),
            &[("isCompactSummary", json!(true)), ("isVisibleInTranscriptOnly", json!(true))],
        );
    }

    fn synthetic(&mut self, s: &mut Sink) {
        let ts = self.tick(10, 3000);
        let uuid = self.uuid();
        let id = self.uuid();
        let mut m = self.envelope(s, &uuid);
        m.insert("type".into(), json!("assistant"));
        m.insert(
            "message".into(),
            json!({"id": id, "container": null, "model": "<synthetic>", "role": "assistant",
                   "stop_reason": "stop_sequence", "stop_sequence": "", "type": "message",
                   "usage": {"input_tokens": 0, "output_tokens": 0, "cache_creation_input_tokens": 0,
                             "cache_read_input_tokens": 0, "server_tool_use": {"web_search_requests": 0},
                             "service_tier": null,
                             "cache_creation": {"ephemeral_1h_input_tokens": 0, "ephemeral_5m_input_tokens": 0}},
                   "content": [{"type": "text", "text": "No response requested."}]}),
        );
        m.insert("isApiErrorMessage".into(), json!(false));
        self.finish(s, m, uuid, ts);
        s.counts.synthetic_messages += 1;
    }

    fn tool_input(&mut self, name: &str, cwd: &str) -> Value {
        match name {
            "Bash" => json!({"command": format!("cargo test {}", self.words(1)), "description": "Run the tests"}),
            "Read" => json!({"file_path": format!("{cwd}/src/main.rs")}),
            "Edit" => {
                json!({"file_path": format!("{cwd}/src/lib.rs"), "old_string": self.words(2), "new_string": self.words(2)})
            }
            "Grep" => json!({"pattern": "fn parse", "path": cwd}),
            "Glob" => json!({"pattern": "**/*.rs"}),
            "Write" => json!({"file_path": format!("{cwd}/NOTES.md"), "content": self.words(6)}),
            "TodoWrite" => json!({"todos": [{"content": self.words(3), "status": "pending", "activeForm": "Working"}]}),
            _ => json!({"description": "Explore the code", "prompt": format!("Find {}", self.words(4)),
                        "subagent_type": "general-purpose"}),
        }
    }

    /// One API response: its content blocks, one line each, then the facts.
    /// Returns the tool calls (id, name) it made.
    fn response(&mut self, s: &mut Sink, model: &str, tools: &[&str], text: bool) -> Vec<(String, String)> {
        let id = self.b62("msg_01", 22);
        let req = self.b62("req_011C", 18);
        let input = self.rng.range(1, 40);
        let cache_creation = if self.rng.chance(70) { self.rng.range(0, 6000) } else { 0 };
        let cache_read = if self.rng.chance(85) { self.rng.range(1000, 90_000) } else { 0 };
        let with_cache_object = self.rng.chance(80);
        let mut blocks: Vec<Value> = vec![];
        if self.rng.chance(30) {
            let thought = format!("Thinking about {}", self.words(4));
            let sig = self.b62("", 40);
            blocks.push(json!({"type": "thinking", "thinking": thought, "signature": sig}));
        }
        if text || tools.is_empty() || self.rng.chance(50) {
            blocks.push(json!({"type": "text", "text": format!("I'll {}", self.words(6))}));
        }
        let mut calls = vec![];
        for name in tools {
            let tid = self.b62("toolu_01", 22);
            let input = self.tool_input(name, &s.ctx.cwd.clone());
            blocks.push(json!({"type": "tool_use", "id": tid, "name": name, "input": input}));
            calls.push((tid, (*name).to_owned()));
        }
        // Streamed copies: small output counts first, the final one largest;
        // sometimes the largest is not on the last line.
        let k = blocks.len();
        let fin = self.rng.range(40, 2500);
        let mut outs: Vec<u64> = (0..k - 1).map(|_| self.rng.range(1, 30)).collect();
        outs.sort_unstable();
        outs.push(fin);
        if k >= 2 && self.rng.chance(25) {
            outs.swap(k - 1, k - 2);
        }
        let twice = if self.rng.chance(12) { Some(self.rng.below(k)) } else { None };
        self.same_day(i64::try_from(k + 2).unwrap_or(8) * 2600);
        let mut day = String::new();
        for (j, block) in blocks.iter().enumerate() {
            let last = j + 1 == k;
            let stop = if !last {
                Value::Null
            } else if tools.is_empty() {
                json!("end_turn")
            } else {
                json!("tool_use")
            };
            let mut usage = Map::new();
            usage.insert("input_tokens".into(), json!(input));
            usage.insert("cache_creation_input_tokens".into(), json!(cache_creation));
            usage.insert("cache_read_input_tokens".into(), json!(cache_read));
            if with_cache_object {
                let h1 = if cache_creation > 0 && self.rng.chance(30) { cache_creation / 3 } else { 0 };
                usage.insert(
                    "cache_creation".into(),
                    json!({"ephemeral_5m_input_tokens": cache_creation - h1, "ephemeral_1h_input_tokens": h1}),
                );
            }
            usage.insert("output_tokens".into(), json!(outs[j]));
            usage.insert("service_tier".into(), json!("standard"));
            let copies = if twice == Some(j) { 2 } else { 1 };
            for _ in 0..copies {
                let ts = self.tick(40, 2500);
                if day.is_empty() {
                    day = utc_day(ts);
                }
                debug_assert_eq!(day, utc_day(ts), "a message straddles midnight");
                let uuid = self.uuid();
                let mut m = self.envelope(s, &uuid);
                m.insert(
                    "message".into(),
                    json!({"id": id, "type": "message", "role": "assistant", "model": model,
                           "content": [block], "stop_reason": stop, "stop_sequence": null,
                           "usage": Value::Object(usage.clone())}),
                );
                m.insert("requestId".into(), json!(req));
                m.insert("type".into(), json!("assistant"));
                self.finish(s, m, uuid, ts);
            }
        }
        let tokens = Tokens { input, output: outs.iter().copied().max().unwrap_or(0), cache_creation, cache_read };
        s.counts.assistant_messages += 1;
        s.counts.tokens.add(&tokens);
        for (_, name) in &calls {
            *s.counts.tool_calls.entry(name.clone()).or_insert(0) += 1;
        }
        let old = self.messages.insert((id, req), Msg { model: model.to_owned(), day, tokens });
        assert!(old.is_none(), "message ids are unique");
        calls
    }

    /// The `tool_result` line for one call.
    fn tool_result(&mut self, s: &mut Sink, tid: &str, name: &str, sub: Option<&Subagent>) {
        let error = sub.is_none() && self.rng.chance(15);
        let text =
            if error { format!("Error: {} failed: {}", name, self.words(3)) } else { format!("ok: {}", self.words(4)) };
        let mut block = Map::new();
        block.insert("tool_use_id".into(), json!(tid));
        block.insert("type".into(), json!("tool_result"));
        if sub.is_some() || self.rng.chance(30) {
            block.insert("content".into(), json!([{"type": "text", "text": text}]));
        } else {
            block.insert("content".into(), json!(text));
        }
        if error || self.rng.chance(40) {
            block.insert("is_error".into(), json!(error));
        }
        let result = match (error, sub) {
            (true, _) => json!(text),
            (false, Some(a)) => json!({
                "status": "completed", "agentId": a.agent_id, "content": [{"type": "text", "text": text}],
                "totalDurationMs": self.rng.range(2000, 90_000), "totalTokens": a.counts.tokens.total(),
                "totalToolUseCount": a.counts.tool_call_total(),
                "usage": {"input_tokens": 7, "cache_creation_input_tokens": 501, "cache_read_input_tokens": 12_935,
                          "output_tokens": 308, "service_tier": "standard"}}),
            (false, None) if name == "Bash" => {
                json!({"stdout": text, "stderr": "", "interrupted": false, "isImage": false})
            }
            (false, None) => json!({"type": "text", "content": text}),
        };
        self.user_line(s, json!([Value::Object(block)]), &[("toolUseResult", result)]);
        if error {
            s.counts.tool_errors += 1;
        }
    }

    /// A subagent transcript for the `Task` call `tid`, written now.
    fn subagent(&mut self, parent: &Ctx, root: &Path, project: &str, tid: &str) -> (Subagent, File) {
        let agent_id = self.unique(&mut |r: &mut Rng| format!("{:08x}", r.next() >> 32));
        let path = crate::kit::tree::subagent_path(root, project, &parent.sid, &agent_id);
        let ctx = Ctx { agent: Some(agent_id.clone()), ..parent.clone() };
        let mut s = Sink::new(ctx, path);
        let task = format!("Find {}", self.words(4));
        self.user_line(&mut s, json!(task), &[]);
        s.counts.prompts += 1;
        let model = if self.rng.chance(70) { SUBAGENT_MODEL } else { MODELS[0] };
        for _ in 0..self.rng.range(1, 3) {
            let n = self.rng.below(3);
            let tools: Vec<&str> = (0..n).map(|_| *self.rng.pick(&SUB_TOOLS)).collect();
            let calls = self.response(&mut s, model, &tools, false);
            for (id, name) in calls {
                self.tool_result(&mut s, &id, &name, None);
            }
        }
        self.response(&mut s, model, &[], true);
        let sub = Subagent { agent_id, path: s.file.path.clone(), task_id: tid.to_owned(), counts: s.counts };
        (sub, s.file)
    }

    /// One user turn: prompt, responses and tool results, the closing lines.
    fn turn(&mut self, s: &mut Sink, t: &mut TurnCtx<'_>) {
        if self.rng.chance(25) {
            self.meta(s);
        }
        self.snapshot(s);
        self.prompt(s);
        let steps = self.rng.range(if t.force_task { 2 } else { 1 }, 3);
        for step in 0..steps {
            if self.rng.chance(8) {
                self.system(s, "api_error");
            }
            let mut tools: Vec<&str> = vec![];
            if step + 1 < steps {
                for _ in 0..self.rng.range(1, 2) {
                    tools.push(*self.rng.pick(&TOOLS));
                }
                if std::mem::take(&mut t.force_task) || self.rng.chance(12) {
                    tools.push("Task");
                }
            }
            let model = if self.rng.chance(85) { t.model } else { *self.rng.pick(&MODELS) };
            let calls = self.response(s, model, &tools, false);
            for (id, name) in calls {
                if name == "Task" {
                    let (sub, file) = self.subagent(&s.ctx, t.root, t.project, &id);
                    self.tick(500, 4000);
                    self.tool_result(s, &id, &name, Some(&sub));
                    t.subagents.push((sub, file));
                } else {
                    self.tool_result(s, &id, &name, None);
                }
            }
        }
        if std::mem::take(&mut t.force_synthetic) || self.rng.chance(10) {
            self.synthetic(s);
        }
        self.system(s, "turn_duration");
    }

    /// A torn last line (a new prompt or response, never counted) and the
    /// damaged lines mid-file; writes the file. Returns (damaged line numbers, torn).
    fn write(&mut self, mut file: File, damage: usize, torn: bool) -> (Vec<u64>, bool) {
        let n_good = file.lines.len();
        let mut bad: Vec<(usize, Vec<u8>)> = vec![];
        for k in 0..damage {
            if n_good < 2 {
                break;
            }
            // Insert before good line `at` (1..n_good): a good line always follows.
            let at = 1 + self.rng.below(n_good - 1);
            let near = file.lines[at].clone();
            let line = match (k + self.rng.below(4)) % 4 {
                0 => cut(&near, self.rng),
                1 => [near.as_slice(), file.lines[at - 1].as_slice()].concat(),
                2 => b"not json: {\"type\":\"user\",\"message\":".to_vec(),
                _ => {
                    let mut b = near.clone();
                    let at = find(&b, b"\":\"").map_or(b.len() / 2, |i| i + 3);
                    b.insert(at, 0xFF);
                    b
                }
            };
            bad.push((at, line));
        }
        bad.sort_by_key(|(at, _)| *at);
        let mut out: Vec<Vec<u8>> = Vec::with_capacity(n_good + bad.len());
        let mut numbers = vec![];
        let mut next_bad = bad.into_iter().peekable();
        for (i, line) in file.lines.drain(..).enumerate() {
            while next_bad.peek().is_some_and(|(at, _)| *at == i) {
                out.push(next_bad.next().expect("peeked").1);
                numbers.push(out.len() as u64);
            }
            out.push(line);
        }
        let mut bytes = out.join(&b'\n');
        bytes.push(b'\n');
        if torn {
            let tail = if let Some(last) = file.good.iter().rev().find(|v| v["type"] == "assistant") {
                let mut v = last.clone();
                v["message"]["id"] = json!(self.b62("msg_01", 22));
                v["requestId"] = json!(self.b62("req_011C", 18));
                v["uuid"] = json!(self.uuid());
                serde_json::to_vec(&v).expect("serialise")
            } else {
                br#"{"type":"user","message":{"role":"user","content":"unfinished prompt"}}"#.to_vec()
            };
            bytes.extend_from_slice(&cut(&tail, self.rng));
        }
        crate::kit::tree::write(&file.path, bytes);
        (numbers, torn)
    }
}

struct TurnCtx<'a> {
    root: &'a Path,
    project: &'a str,
    model: &'static str,
    force_task: bool,
    force_synthetic: bool,
    subagents: Vec<(Subagent, File)>,
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// A proper prefix of a JSON object (so never valid JSON), cut on a character
/// boundary somewhere in its second half.
fn cut(line: &[u8], rng: &mut Rng) -> Vec<u8> {
    let text = std::str::from_utf8(line).expect("generated lines are UTF-8");
    let mut at = line.len() / 2 + rng.below((line.len() / 2).max(1));
    at = at.min(line.len() - 1);
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    line[..at].to_vec()
}

/// Writes `sessions` sessions under `root` (`root/projects/...`) and returns
/// what they hold. The same `(sessions, seed)` always writes the same bytes.
/// Session 0 always has a subagent, a `<synthetic>` line, damaged lines and a
/// torn tail; session 1 (and 5, 9, …) resumes the session before it.
pub fn generate(root: &Path, sessions: usize, seed: u64) -> Expected {
    let mut rng = Rng::new(seed);
    let base = days_from_civil(2025, 6, 1) * DAY_MS;
    let mut g = Gen { rng: &mut rng, clock: base, used: BTreeSet::new(), messages: BTreeMap::new() };
    let mut exp = Expected::default();
    // The previous session: (id, cwd, good lines, counts, last clock).
    let mut prev: Option<(String, String, Vec<Value>, Counts, i64)> = None;
    for i in 0..sessions {
        let resume = i % 4 == 1 && prev.is_some();
        let (sid, cwd, resumed_from, history, copied) = if resume {
            let (pid, pcwd, lines, counts, end) = prev.take().expect("checked");
            // A later file name than the original's, so path order meets the original first.
            let sid = loop {
                let id = g.uuid();
                if id > pid {
                    break id;
                }
            };
            g.clock = end + g.rng.range(600_000, 30 * 3_600_000) as i64;
            (sid, pcwd, Some(pid), lines, counts)
        } else {
            let sid = g.uuid();
            let cwd = (*g.rng.pick(&CWDS)).to_owned();
            // Start on one of six days; now and then just before midnight.
            let day = base + g.rng.range(0, 5) as i64 * DAY_MS;
            let at =
                if g.rng.chance(25) { 23 * 3_600_000 + 50 * 60_000 } else { g.rng.range(6, 21) as i64 * 3_600_000 };
            g.clock = day + at + g.rng.range(0, 600_000) as i64;
            (sid, cwd, None, vec![], Counts::default())
        };
        let project = project_folder(&cwd);
        let path = crate::kit::tree::transcript_path(root, &project, &sid);
        let ctx = Ctx {
            sid: sid.clone(),
            cwd: cwd.clone(),
            version: VERSIONS[g.rng.below(VERSIONS.len())],
            branch: BRANCHES[g.rng.below(BRANCHES.len())],
            agent: None,
        };
        let mut s = Sink::new(ctx, path.clone());
        let copied_lines = history.len() as u64;
        for mut v in history {
            if let Some(o) = v.as_object_mut() {
                if o.contains_key("sessionId") {
                    o.insert("sessionId".into(), json!(sid));
                }
                if let Some(u) = o.get("uuid").and_then(Value::as_str) {
                    s.file.last_uuid = Some(u.to_owned());
                }
            }
            // Copied lines do not count for this session.
            s.file.lines.push(serde_json::to_vec(&v).expect("serialise"));
            s.file.good.push(v);
        }
        if !resume && g.rng.chance(30) {
            g.summary(&mut s);
        }
        let mut t = TurnCtx {
            root,
            project: &project,
            model: MODELS[g.rng.below(3)],
            force_task: i == 0,
            force_synthetic: i == 0,
            subagents: vec![],
        };
        let turns = g.rng.range(2, 4);
        for k in 0..turns {
            g.tick(5_000, 1_800_000);
            g.turn(&mut s, &mut t);
            if k + 1 < turns && g.rng.chance(15) {
                g.compact(&mut s);
            }
        }
        let end = g.clock;
        let good = s.file.good.clone();
        let counts = s.counts.clone();
        let damage = if i == 0 {
            2
        } else if g.rng.chance(40) {
            g.rng.range(1, 2) as usize
        } else {
            0
        };
        let torn = i % 3 == 0 || g.rng.chance(20);
        let (bad, torn) = g.write(s.file, damage, torn);
        exp.damaged.extend(bad.into_iter().map(|n| (path.clone(), n)));
        if torn {
            exp.torn_tails.push(path.clone());
        }
        exp.files.push(path.clone());
        let mut subagents = vec![];
        let mut tokens = counts.tokens;
        for (sub, file) in t.subagents {
            let damage = if g.rng.chance(20) { 1 } else { 0 };
            let torn = g.rng.chance(20);
            let (bad, torn) = g.write(file, damage, torn);
            exp.damaged.extend(bad.into_iter().map(|n| (sub.path.clone(), n)));
            if torn {
                exp.torn_tails.push(sub.path.clone());
            }
            exp.files.push(sub.path.clone());
            tokens.add(&sub.counts.tokens);
            subagents.push(sub);
        }
        exp.by_session.insert(sid.clone(), tokens);
        exp.sessions.push(Session {
            id: sid.clone(),
            project,
            cwd: cwd.clone(),
            path,
            resumed_from,
            copied_lines,
            copied,
            counts: counts.clone(),
            subagents,
            tokens,
        });
        prev = Some((sid, cwd, good, counts, end));
    }
    for m in g.messages.values() {
        exp.by_day_model.entry((m.day.clone(), m.model.clone())).or_default().add(&m.tokens);
    }
    exp.damaged.sort();
    exp.torn_tails.sort();
    exp.files.sort();
    exp
}
