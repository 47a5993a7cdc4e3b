//! Generated Gemini CLI homes (`.gemini/tmp/<project>/chats`, formats-next.md
//! §1): mutation logs whose expected tokens per day and per session and tool
//! calls come from the figures written, not from reading the files back.
//!
//! The logs hold the traps a reader must get right: a response written
//! again whole as its tokens grow and its calls finish (the last copy
//! counts), `$set` metadata lines, `$rewindTo` a turn (the billed response
//! stays, a message without tokens and its call go), checkpoints
//! (`$set.messages`) replacing the list with the last turns only, subagent
//! files under `chats/<parent>/`, legacy `.json` documents alone and a
//! legacy `.json` continued in a `.jsonl` that copies its messages.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{json, Value};

use crate::kit::Rng;
use crate::util::ci;

/// Uncached input (with the tool-use prompt), cache read, billed output.
type Counts = [u64; 3];

/// What a generated home holds.
#[derive(Debug, Default)]
pub struct Expected {
    /// Day → counts of the responses that day.
    pub by_day: BTreeMap<String, Counts>,
    /// Session id → counts of its own responses (a subagent's are its own).
    pub by_session: BTreeMap<String, Counts>,
    /// Tool → (calls, errors).
    pub tools: BTreeMap<String, (u64, u64)>,
    /// How many rewinds, checkpoints, subagents, legacy pairs were written.
    pub traps: [u64; 4],
}

impl Expected {
    /// Counts a response's final `tokens` for its session and day.
    fn count(&mut self, session: &str, day: &str, tokens: &Value) {
        let n = |k: &str| tokens[k].as_u64().unwrap();
        let c = [n("input") - n("cached") + n("tool"), n("cached"), n("output") + n("thoughts")];
        for sum in
            [self.by_day.entry(day.to_owned()).or_default(), self.by_session.entry(session.to_owned()).or_default()]
        {
            for (a, b) in sum.iter_mut().zip(c) {
                *a += b;
            }
        }
    }
}

/// One session being written: its lines, its messages' last copies.
struct Log<'a> {
    rng: &'a mut Rng,
    id: String,
    day: String,
    second: u64,
    lines: Vec<Value>,
    last: Vec<Value>,
}

impl Log<'_> {
    fn at(&mut self) -> String {
        self.second += 1;
        format!("{}T10:{:02}:{:02}.000Z", self.day, self.second / 60 % 60, self.second % 60)
    }

    /// Appends a message (a copy: its id may be there already).
    fn message(&mut self, m: Value) {
        self.last.retain(|l| l["id"] != m["id"]);
        self.last.push(m.clone());
        self.lines.push(m);
    }

    /// A turn: a prompt, then a response written again as its tokens grow
    /// and its call finishes; counts its final copy. Returns the prompt's id.
    fn turn(&mut self, t: usize, expected: &mut Expected) -> String {
        let (u, g) = (format!("{}-u{t}", self.id), format!("{}-g{t}", self.id));
        let at = self.at();
        self.message(json!({"id": u, "timestamp": at, "type": "user", "content": [{"text": format!("step {t}")}]}));
        let input = 100 + self.rng.below(9000);
        let cached = self.rng.below(input + 1);
        let (output, thoughts, tool) =
            (1 + self.rng.below(500), self.rng.below(3) * self.rng.below(200), self.rng.below(50));
        let call =
            (self.rng.below(2) == 0).then(|| ["read_file", "run_shell_command", "glob"][self.rng.below(3) as usize]);
        let failed = self.rng.below(4) == 0;
        let copies = 1 + self.rng.below(3);
        let at = self.at();
        for k in 1..=copies {
            let fin = k == copies;
            let grow = |n: u64| n * k / copies;
            let tokens = json!({"input": input, "output": grow(output), "cached": cached, "thoughts": grow(thoughts),
                "tool": grow(tool), "total": input + grow(output) + grow(thoughts) + grow(tool)});
            let mut m = json!({"id": g, "timestamp": at, "type": "gemini", "content": if fin { "done" } else { "" },
                "thoughts": [], "model": "gemini-2.5-flash", "tokens": tokens});
            if let Some(name) = call {
                let cid = format!("{name}_{}_{t}", self.id);
                let mut c = json!({"id": cid, "name": name, "args": {"path": "/home/dev/app"}, "status": "executing"});
                if fin {
                    c["status"] = json!(if failed { "error" } else { "success" });
                    c["result"] =
                        json!([{"functionResponse": {"id": cid, "name": name, "response": {"output": "ok"}}}]);
                }
                m["toolCalls"] = json!([c]);
            }
            self.message(m);
            if self.rng.below(2) == 0 {
                let at = self.at();
                self.lines.push(json!({"$set": {"lastUpdated": at}}));
            }
        }
        expected.count(&self.id, &self.day, &self.last.last().unwrap()["tokens"]);
        if let Some(name) = call {
            let e = expected.tools.entry(name.to_owned()).or_default();
            e.0 += 1;
            e.1 += u64::from(failed);
        }
        u
    }

    /// Rewinds to prompt `u` after a message with no tokens and a call (both
    /// dropped: nothing was billed).
    fn rewind(&mut self, u: &str) {
        let at = self.at();
        let cid = format!("{u}-dropped");
        self.message(json!({"id": format!("{u}-x"), "timestamp": at, "type": "gemini", "content": "",
            "toolCalls": [{"id": cid, "name": "write_file", "args": {"path": "/x"}, "status": "cancelled"}]}));
        self.lines.push(json!({"$rewindTo": u}));
        let from = self.last.iter().position(|m| m["id"] == u).unwrap();
        let kept: Vec<Value> = self.last.drain(from..).filter(|m| m.get("tokens").is_some()).collect();
        self.last.extend(kept);
    }

    /// A checkpoint: the list replaced by its last `keep` messages.
    fn checkpoint(&mut self, keep: usize) {
        let at = self.at();
        let from = self.last.len().saturating_sub(keep);
        self.last.drain(..from);
        self.lines.push(json!({"$set": {"lastUpdated": at, "messages": self.last}}));
    }
}

fn header(id: &str, day: &str, kind: &str) -> Value {
    json!({"sessionId": id, "projectHash": "h", "startTime": format!("{day}T10:00:00.000Z"),
        "lastUpdated": format!("{day}T10:00:00.000Z"), "kind": kind})
}

fn write_lines(path: &Path, lines: &[Value]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
}

/// Writes `sessions` sessions (seeded by `seed`) in a home under `root`.
pub fn generate(root: &Path, seed: u64, sessions: usize) -> Expected {
    let project = root.join(".gemini/tmp/app");
    std::fs::create_dir_all(project.join("chats")).unwrap();
    std::fs::write(project.join(".project_root"), "/home/dev/app").unwrap();
    let mut rng = Rng(seed);
    let mut expected = Expected::default();
    for s in 0..sessions {
        let id = format!("{s:08x}-0000-4000-8000-000000000000");
        let day = format!("2026-08-{:02}", 1 + s % 28);
        let name = |minute: u32, ext: &str| format!("session-{day}T10-{minute:02}-{}.{ext}", &id[..8]);
        let legacy = rng.below(5);
        let mut log = Log { rng: &mut rng, id: id.clone(), day: day.clone(), second: 0, lines: vec![], last: vec![] };
        let turns = 1 + log.rng.below(5) as usize;
        for t in 0..turns {
            let u = log.turn(t, &mut expected);
            if legacy > 1 && log.rng.below(4) == 0 {
                log.rewind(&u);
                expected.traps[0] += 1;
            }
        }
        if legacy <= 1 {
            // A legacy document (its messages as they ended), continued in a
            // `.jsonl` that copies them first when `legacy` is 1.
            let doc = json!({"sessionId": id, "projectHash": "h", "startTime": format!("{day}T10:00:00.000Z"),
                "lastUpdated": log.at(), "messages": log.last});
            let text = serde_json::to_string_pretty(&doc).unwrap();
            std::fs::write(project.join("chats").join(name(0, "json")), text).unwrap();
            if legacy == 0 {
                continue;
            }
            expected.traps[3] += 1;
            log.lines = log.last.clone();
            log.turn(turns, &mut expected);
        } else if log.rng.below(3) == 0 {
            let keep = 1 + log.rng.below(4) as usize;
            log.checkpoint(keep);
            log.turn(turns, &mut expected);
            expected.traps[1] += 1;
        }
        let mut lines = vec![header(&id, &day, "main")];
        lines.append(&mut log.lines);
        write_lines(&project.join("chats").join(name(5, "jsonl")), &lines);
        if rng.below(3) == 0 {
            let sub = format!("{s:08x}-5ab0-4000-8000-000000000000");
            let mut log =
                Log { rng: &mut rng, id: sub.clone(), day: day.clone(), second: 30, lines: vec![], last: vec![] };
            log.turn(0, &mut expected);
            let mut lines = vec![header(&sub, &day, "subagent")];
            lines.append(&mut log.lines);
            write_lines(&project.join("chats").join(&id).join(format!("{sub}.jsonl")), &lines);
            expected.traps[2] += 1;
        }
    }
    expected
}

/// Our `--tokens --by KEY` rows, summed per key (over models).
fn ours(run: &crate::util::Run, key: &str) -> BTreeMap<String, Counts> {
    assert_eq!((run.stderr.as_str(), run.code), ("", 0));
    let mut out: BTreeMap<String, Counts> = BTreeMap::new();
    for r in run.json() {
        let n = |k: &str| r[k].as_u64().unwrap();
        let c = [n("input_tokens"), n("cache_read_tokens"), n("output_tokens")];
        let sum = out.entry(r[key].as_str().unwrap().to_owned()).or_default();
        for (a, b) in sum.iter_mut().zip(c) {
            *a += b;
        }
    }
    out
}

/// Each response counts once, its last copy, per day and per session;
/// each call once with its final status; rewinds and checkpoints drop no
/// billed response.
#[test]
fn generated_homes_count_each_response_once() {
    for seed in [5, 4242, 77777] {
        let dir = tempfile::tempdir().unwrap();
        let expected = generate(dir.path(), seed, 60);
        assert!(expected.traps.iter().all(|&n| n >= 3), "seed {seed}: {:?}", expected.traps);
        let home = dir.path().to_str().unwrap();
        let days = ci("ci-agg").args(["--tokens", "--by", "day", home]).run();
        assert_eq!(ours(&days, "day"), expected.by_day, "seed {seed}");
        let sessions = ci("ci-agg").args(["--tokens", "--by", "session", home]).run();
        assert_eq!(ours(&sessions, "session"), expected.by_session, "seed {seed}");
        let run = ci("ci-agg").args(["--tools", home]).run();
        let n = |r: &Value, k: &str| r[k].as_u64().unwrap();
        let tools: BTreeMap<String, (u64, u64)> = run
            .json()
            .iter()
            .map(|r| (r["tool"].as_str().unwrap().to_owned(), (n(r, "calls"), n(r, "errors"))))
            .collect();
        assert_eq!(tools, expected.tools, "seed {seed}");
    }
}

/// The same answers on one thread or several, from the cache or not, read
/// directly or from ci-cat's records through a pipe.
#[test]
fn generated_homes_answer_alike_in_every_mode() {
    let dir = tempfile::tempdir().unwrap();
    generate(dir.path(), 31337, 80);
    let home = dir.path().to_str().unwrap();
    let agg = |more: &[&str]| {
        let run = ci("ci-agg").args(["--tokens", "--by", "day,session"]).args(more).arg(home).run();
        assert_eq!((run.stderr.as_str(), run.code), ("", 0), "{more:?}");
        run.stdout
    };
    let direct = agg(&["--no-cache", "-j1"]);
    assert!(direct.lines().count() > 80, "{direct}");
    assert_eq!(agg(&["--no-cache", "-j3"]), direct);
    assert_eq!(agg(&[]), direct, "filling the cache");
    assert_eq!(agg(&["-j3"]), direct, "from the cache");
    let cat = ci("ci-cat").arg(home).run();
    assert_eq!((cat.stderr.as_str(), cat.code), ("", 0));
    let piped = ci("ci-agg").args(["--tokens", "--by", "day,session"]).stdin(cat.stdout).run();
    assert_eq!((piped.stdout.as_str(), piped.stderr.as_str(), piped.code), (direct.as_str(), "", 0));
}
