//! Claude Code transcripts (formats.md §5; `src/format/claude_transcript.rs`):
//! token counts against ccusage 20.0.24's own answers on the copied real
//! files of `fixtures/claude-transcripts` (fixtures/README.md, "Claude Code
//! transcripts"), and against what `tests/transcriptgen.rs` knows it wrote.
//!
//! Every expected number comes from outside our tools: ccusage's stored JSON,
//! the generator's [`Expected`], or a recount of the fixture lines done here
//! with serde_json ([`recount`]), never from a run of ours.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::transcriptgen::{generate, Expected, Tokens};
use crate::util::{ci, root};

const TREE: &str = "fixtures/claude-transcripts";
const CCUSAGE: &str = "fixtures/claude-transcripts/ccusage";
const SMALL: &str =
    "fixtures/claude-transcripts/projects/-src-d-kimuson-claude-code-viewer/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl";
const SIMONW: &str = "fixtures/claude-transcripts/projects/-src-simonw-claude-code-transcripts/test-session-id.jsonl";
const EDGE: &str = "fixtures/claude-transcripts/projects/-src-daaain-claude-code-log/edge_cases.jsonl";

/// (day, model) of a `--tokens --by day` record; `None` for JSON null.
type DayModel = (Option<String>, Option<String>);

fn s(x: &str) -> Option<String> {
    Some(x.to_owned())
}

fn t(input: u64, output: u64, cache_creation: u64, cache_read: u64) -> Tokens {
    Tokens { input, output, cache_creation, cache_read }
}

fn sub(a: &Tokens, b: &Tokens) -> Tokens {
    t(a.input - b.input, a.output - b.output, a.cache_creation - b.cache_creation, a.cache_read - b.cache_read)
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

fn opt_str(v: &Value) -> Option<String> {
    v.as_str().map(str::to_owned)
}

fn sum<'a>(it: impl IntoIterator<Item = &'a Tokens>) -> Tokens {
    let mut total = Tokens::default();
    for x in it {
        total.add(x);
    }
    total
}

// ---------------------------------------------------------------- our outputs

/// `--tokens --by day` records: (day, model) → (responses, the four sums).
/// Each (day, model) must occur once.
fn ours_by_day(stdout: &str) -> BTreeMap<DayModel, (u64, Tokens)> {
    let mut out = BTreeMap::new();
    for line in stdout.lines() {
        let r: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        assert_eq!(r["tz"], "UTC", "{line}");
        let key = (opt_str(&r["day"]), opt_str(&r["model"]));
        let tokens =
            t(u(&r["input_tokens"]), u(&r["output_tokens"]), u(&r["cache_write_tokens"]), u(&r["cache_read_tokens"]));
        let old = out.insert(key.clone(), (u(&r["responses"]), tokens));
        assert!(old.is_none(), "(day, model) {key:?} printed twice");
    }
    out
}

/// The four sums alone, rows whose four sums are all 0 left out (ccusage
/// leaves them out too).
fn with_tokens(rows: &BTreeMap<DayModel, (u64, Tokens)>) -> BTreeMap<DayModel, Tokens> {
    rows.iter().filter(|(_, (_, x))| x.total() > 0).map(|(k, (_, x))| (k.clone(), *x)).collect()
}

/// `--sessions` records by session id.
fn ours_sessions(stdout: &str) -> BTreeMap<String, Value> {
    let mut out = BTreeMap::new();
    for line in stdout.lines() {
        let r: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        let id = r["session"].as_str().expect("session id").to_owned();
        assert!(out.insert(id.clone(), r).is_none(), "session {id} printed twice");
    }
    out
}

fn session_tokens(r: &Value) -> Tokens {
    let x = &r["tokens"];
    t(u(&x["input"]), u(&x["output"]), u(&x["cache_write"]), u(&x["cache_read"]))
}

fn tool_calls(r: &Value) -> BTreeMap<String, u64> {
    r["tool_calls"].as_object().expect("tool_calls").iter().map(|(k, v)| (k.clone(), u(v))).collect()
}

/// The (path, line) of every `PATH:LINE: reason` line of stderr, in order,
/// and the other lines.
fn reports(stderr: &str) -> (Vec<(String, u64)>, Vec<String>) {
    let (mut sites, mut rest) = (vec![], vec![]);
    for line in stderr.lines() {
        let site = line.find(".jsonl:").and_then(|i| {
            let (path, tail) = line.split_at(i + ".jsonl".len());
            let (n, reason) = tail[1..].split_once(": ")?;
            (!reason.is_empty()).then_some(())?;
            Some((path.to_owned(), n.parse::<u64>().ok()?))
        });
        match site {
            Some(site) => sites.push(site),
            None => rest.push(line.to_owned()),
        }
    }
    (sites, rest)
}

// ---------------------------------------------------------------- ccusage's JSON

fn ccusage(name: &str) -> Value {
    let path = root().join(CCUSAGE).join(name);
    serde_json::from_slice(&std::fs::read(&path).expect("ccusage JSON")).expect("valid JSON")
}

fn cc_tokens(v: &Value) -> Tokens {
    t(u(&v["inputTokens"]), u(&v["outputTokens"]), u(&v["cacheCreationTokens"]), u(&v["cacheReadTokens"]))
}

/// `daily.json`: (day, ccusage's model name) → the four sums.
fn ccusage_daily() -> BTreeMap<(String, String), Tokens> {
    let mut out = BTreeMap::new();
    for day in ccusage("daily.json")["daily"].as_array().expect("daily") {
        let period = day["period"].as_str().expect("period");
        let rows = day["modelBreakdowns"].as_array().expect("modelBreakdowns");
        // A day's own sums are the sums of its model rows.
        assert_eq!(cc_tokens(day), sum(&rows.iter().map(cc_tokens).collect::<Vec<_>>()), "{period}");
        for b in rows {
            let key = (period.to_owned(), b["modelName"].as_str().expect("modelName").to_owned());
            assert!(out.insert(key, cc_tokens(b)).is_none());
        }
    }
    out
}

// ---------------------------------------------------------------- the recount

/// One message of the fixture tree, counted here from its lines.
#[derive(Debug, Clone)]
struct Message {
    /// The file stem of the first file (in path order) holding a copy.
    session: String,
    /// UTC day of its timestamp (all copies agree), `None` without one.
    day: Option<String>,
    model: Option<String>,
    /// `usage.speed == "fast"`: ccusage names the model `<model>-fast`.
    fast: bool,
    /// Whether ccusage reads it: the line holds the bytes `"usage":{` (not
    /// spaced JSON) and a string `timestamp` (with 0 or 3 fraction digits).
    ccusage_reads: bool,
    /// The largest of each field over its copies.
    tokens: Tokens,
}

/// Every JSON object line of a file, with its 1-based physical line number
/// and raw bytes; lines that are not JSON objects are left out.
fn object_lines(path: &Path) -> Vec<(u64, Vec<u8>, serde_json::Map<String, Value>)> {
    let bytes = std::fs::read(path).expect("read fixture");
    let mut out = vec![];
    for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
        if let Ok(Value::Object(o)) = serde_json::from_slice::<Value>(line) {
            out.push((i as u64 + 1, line.to_vec(), o));
        }
    }
    out
}

/// The transcript files of a tree, in path order (`projects/<folder>/<id>.jsonl`
/// and `projects/<folder>/<id>/subagents/*.jsonl`).
fn tree_files(tree: &Path) -> Vec<PathBuf> {
    let mut out = vec![];
    let mut stack = vec![tree.join("projects")];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).expect("read_dir") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Whether a line is an assistant message (its `type`, else `message.role`).
fn is_assistant(o: &serde_json::Map<String, Value>) -> bool {
    match o.get("type").and_then(Value::as_str) {
        Some(kind) => kind == "assistant",
        None => o.get("message").and_then(|m| m.get("role")).and_then(Value::as_str) == Some("assistant"),
    }
}

/// An RFC 3339 timestamp with 0 or 3 fraction digits and `Z` (what ccusage
/// accepts; every timestamp in the fixture tree is UTC `Z`).
fn ccusage_timestamp(ts: &str) -> bool {
    let Some(rest) = ts.strip_suffix('Z') else { return false };
    match rest.split_once('.') {
        None => rest.len() == 19,
        Some((whole, frac)) => whole.len() == 19 && frac.len() == 3,
    }
}

/// The fixture tree's messages: assistant lines with a `message.usage`
/// object, deduplicated across the whole tree by (`message.id`,
/// `requestId`) keeping the largest of each field (a line without
/// `message.id` is a message of its own), in first-sight order.
fn recount(tree: &Path) -> Vec<Message> {
    let mut out: Vec<Message> = vec![];
    let mut index: BTreeMap<(String, String), usize> = BTreeMap::new();
    for file in tree_files(tree) {
        let session = file.file_stem().unwrap().to_string_lossy().into_owned();
        for (n, raw, o) in object_lines(&file) {
            let Some(message) = o.get("message").and_then(Value::as_object) else { continue };
            let Some(usage) = message.get("usage").and_then(Value::as_object) else { continue };
            if !is_assistant(&o) {
                continue;
            }
            let field = |k: &str| usage.get(k).and_then(Value::as_u64).unwrap_or(0);
            let cache_creation = field("cache_creation_input_tokens");
            // Where the 5m/1h split is written it adds up to the total, so
            // either reading of "cache creation" gives the same numbers here.
            if let Some(split) = usage.get("cache_creation").and_then(Value::as_object) {
                let parts: u64 = split.values().filter_map(Value::as_u64).sum();
                assert_eq!(parts, cache_creation, "{}:{n}", file.display());
            }
            let tokens =
                t(field("input_tokens"), field("output_tokens"), cache_creation, field("cache_read_input_tokens"));
            let ts = o.get("timestamp").and_then(Value::as_str);
            if let Some(ts) = ts {
                assert!(ts.ends_with('Z') && ts.len() >= 20, "{}:{n}: {ts}", file.display());
            }
            let copy = Message {
                session: session.clone(),
                day: ts.map(|x| x[..10].to_owned()),
                model: message.get("model").and_then(Value::as_str).filter(|m| *m != "<synthetic>").map(str::to_owned),
                fast: usage.get("speed").and_then(Value::as_str) == Some("fast"),
                ccusage_reads: find(&raw, br#""usage":{"#) && ts.is_some_and(ccusage_timestamp),
                tokens,
            };
            let key = message
                .get("id")
                .and_then(Value::as_str)
                .map(|id| (id.to_owned(), o.get("requestId").and_then(Value::as_str).unwrap_or("").to_owned()));
            let Some(key) = key else {
                out.push(copy);
                continue;
            };
            match index.get(&key) {
                None => {
                    index.insert(key, out.len());
                    out.push(copy);
                }
                Some(&i) => {
                    let m = &mut out[i];
                    let what = format!("{}:{n} {key:?}", file.display());
                    assert_eq!((&m.day, &m.model, m.fast), (&copy.day, &copy.model, copy.fast), "{what}");
                    assert_eq!(m.ccusage_reads, copy.ccusage_reads, "{what}");
                    let (a, b) = (&mut m.tokens, copy.tokens);
                    a.input = a.input.max(b.input);
                    a.output = a.output.max(b.output);
                    a.cache_creation = a.cache_creation.max(b.cache_creation);
                    a.cache_read = a.cache_read.max(b.cache_read);
                }
            }
        }
    }
    out
}

fn find(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

fn recount_by_day<'a>(msgs: impl IntoIterator<Item = &'a Message>) -> BTreeMap<DayModel, Tokens> {
    let mut out: BTreeMap<DayModel, Tokens> = BTreeMap::new();
    for m in msgs {
        out.entry((m.day.clone(), m.model.clone())).or_default().add(&m.tokens);
    }
    out.retain(|_, x| x.total() > 0);
    out
}

fn recount_by_session<'a>(msgs: impl IntoIterator<Item = &'a Message>) -> BTreeMap<String, Tokens> {
    let mut out: BTreeMap<String, Tokens> = BTreeMap::new();
    for m in msgs {
        out.entry(m.session.clone()).or_default().add(&m.tokens);
    }
    out.retain(|_, x| x.total() > 0);
    out
}

fn fixture_messages() -> Vec<Message> {
    recount(&root().join(TREE))
}

/// The four `edge_cases.jsonl` reports every reading run of the tree prints:
/// lines 13–16 are `"massive error"`, `{"silly": "this"}`, `42` and `[1]`.
fn edge_case_reports() -> Vec<String> {
    vec![
        format!("{EDGE}:13: not a JSON object"),
        format!("{EDGE}:14: not a Claude Code transcript line (needs a string \"type\" or a \"message\" object)"),
        format!("{EDGE}:15: not a JSON object"),
        format!("{EDGE}:16: not a JSON object"),
    ]
}

// ---------------------------------------------------------------- 1. ccusage on the fixture tree

fn fixture_by_day() -> BTreeMap<DayModel, (u64, Tokens)> {
    let recs = ci("ci-find").args(["--root", TREE]).run();
    assert_eq!((recs.code, recs.stderr.as_str()), (0, ""), "{recs:?}");
    let run = ci("ci-agg").args(["--tokens", "--by", "day"]).stdin(recs.stdout).run();
    assert_eq!(run.code, 0, "{run:?}");
    let mut want = edge_case_reports();
    // test-transcript.jsonl's two assistant lines have no timestamp.
    want.push(
        "ci-agg: 4 bad lines skipped, 2 records without a usable timestamp (--strict makes bad lines an error)".into(),
    );
    assert_eq!(run.stderr.lines().collect::<Vec<_>>(), want);
    ours_by_day(&run.stdout)
}

#[test]
fn tokens_by_day_equal_ccusage_daily_but_for_the_documented_differences() {
    let ours = fixture_by_day();
    let msgs = fixture_messages();
    // Our rows are the recount (all lines that are responses, JSON spacing
    // and timestamps aside).
    assert_eq!(with_tokens(&ours), recount_by_day(&msgs));

    // (a) ccusage appends `-fast` to the model of a `speed: "fast"` response;
    // we keep the model. In the tree that is one response: session-alpha
    // line 2, claude-opus-4-20250514 on 2026-01-09.
    let fast: Vec<DayModel> = msgs.iter().filter(|m| m.fast).map(|m| (m.day.clone(), m.model.clone())).collect();
    assert_eq!(fast, [(s("2026-01-09"), s("claude-opus-4-20250514"))]);
    // ccusage's (day, model) as ours: `-fast` dropped where the response was fast.
    let ours_model = |day: &str, model: &str| -> DayModel {
        match model.strip_suffix("-fast") {
            Some(base) if fast.contains(&(s(day), s(base))) => (s(day), s(base)),
            _ => (s(day), s(model)),
        }
    };

    // Every ccusage (day, model) row's four counts are exactly ours.
    let cc = ccusage_daily();
    assert_eq!(cc.len(), 8);
    assert!(cc.contains_key(&("2026-01-09".to_owned(), "claude-opus-4-20250514-fast".to_owned())));
    let mut matched = BTreeSet::new();
    for ((day, model), want) in &cc {
        let key = ours_model(day, model);
        let got = ours.get(&key).unwrap_or_else(|| panic!("no row of ours for ccusage's ({day}, {model})"));
        assert_eq!(&got.1, want, "ccusage ({day}, {model}) vs ours {key:?}");
        matched.insert(key);
    }

    // (b) ccusage skips lines written as spaced JSON (`"usage": {`: the 9
    // claude-3-sonnet-20240229 responses of the daaain files) and lines
    // without a timestamp (ryoppippi's test-transcript.jsonl): we count them.
    // Those are our only extra rows, with the recount of exactly those lines.
    let skipped: Vec<&Message> = msgs.iter().filter(|m| !m.ccusage_reads).collect();
    let extra: BTreeMap<DayModel, Tokens> =
        with_tokens(&ours).into_iter().filter(|(k, _)| !matched.contains(k)).collect();
    assert_eq!(extra, recount_by_day(skipped.iter().copied()));
    assert_eq!(
        extra,
        BTreeMap::from([
            // test-transcript.jsonl lines 2 and 4: 1000+2000, 50+100, 100+200, 500+800.
            ((None, None), t(3000, 150, 300, 1300)),
            // test_session 25+45+78+25+45, edge_cases 35+200+85, session_b 20 = 558 input;
            // 120+85+95+35+110, 145+25+180, 35 = 830 output; no cache fields used.
            ((s("2025-06-14"), s("claude-3-sonnet-20240229")), t(558, 830, 0, 0)),
        ])
    );
    // Each of those responses is counted: 9 + 2.
    assert_eq!(ours[&(s("2025-06-14"), s("claude-3-sonnet-20240229"))].0, 9);
    assert_eq!(ours[&(None, None)].0, 2);
    // The rows ccusage does read are exactly the recount of the lines it reads.
    let read_by_ccusage = recount_by_day(msgs.iter().filter(|m| m.ccusage_reads));
    let cc_as_ours: BTreeMap<DayModel, Tokens> = cc.iter().map(|((d, m), x)| (ours_model(d, m), *x)).collect();
    assert_eq!(cc_as_ours, read_by_ccusage);

    // No row without tokens: simonw's three assistant lines (lines 3, 5
    // and 8) have no usage and no model; --tokens on transcripts counts the
    // responses that carry usage (a line without the bytes "usage" yields no
    // event there), and ccusage leaves them out too.
    let zero: BTreeMap<&DayModel, u64> =
        ours.iter().filter(|(_, (_, x))| x.total() == 0).map(|(k, (n, _))| (k, *n)).collect();
    let simonw = object_lines(&root().join(SIMONW));
    let bare: Vec<u64> = simonw
        .iter()
        .filter(|(_, _, o)| is_assistant(o) && o["message"].get("usage").is_none())
        .map(|(n, _, _)| *n)
        .collect();
    assert_eq!(bare, [3, 5, 8]);
    assert_eq!(zero, BTreeMap::new());

    // Totals: ccusage's totals = the sum of its rows = ours minus the extras.
    let cc_total = cc_tokens(&ccusage("daily.json")["totals"]);
    assert_eq!(cc_total, sum(cc.values()));
    assert_eq!(cc_total, t(2659, 57169, 199556, 4078499));
    let ours_total = sum(ours.values().map(|(_, x)| x).collect::<Vec<_>>());
    assert_eq!(cc_total, sub(&ours_total, &sum(extra.values())));
    // The cross-file duplicate (msg_004/req_004 in todowrite_session.jsonl
    // line 6 and edge_cases.jsonl line 17) counts once: 20+25+150+168+250+270.
    assert_eq!(ours[&(s("2025-06-14"), s("claude-sonnet-4"))].1, t(883, 328, 0, 0));
}

#[test]
fn session_tokens_equal_ccusage_sessions_but_for_the_documented_differences() {
    let run = ci("ci-agg").args(["--sessions", TREE]).run();
    assert_eq!(run.code, 0, "{run:?}");
    let mut want = edge_case_reports();
    want.push("ci-agg: 4 bad lines skipped (--strict makes bad lines an error)".into());
    assert_eq!(run.stderr.lines().collect::<Vec<_>>(), want);
    let ours = ours_sessions(&run.stdout);
    let msgs = fixture_messages();

    // The unified report and `ccusage claude session` agree with each other.
    let unified: BTreeMap<String, Tokens> = ccusage("session.json")["session"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["period"].as_str().unwrap().to_owned(), cc_tokens(r)))
        .collect();
    let claude = ccusage("claude-session.json");
    let mut cc: BTreeMap<String, Tokens> = BTreeMap::new();
    for r in claude["sessions"].as_array().unwrap() {
        let id = r["sessionId"].as_str().unwrap().to_owned();
        // ccusage's project is our project folder.
        assert_eq!(ours[&id]["project"], r["projectPath"], "{id}");
        cc.insert(id, cc_tokens(r));
    }
    assert_eq!(unified, cc);
    assert_eq!(cc.len(), 8);

    // Ours are the recount (a message belongs to the first file holding it,
    // in path order), and ccusage's are the recount of what it reads.
    let all: BTreeMap<String, Tokens> =
        ours.iter().map(|(k, r)| (k.clone(), session_tokens(r))).filter(|(_, x)| x.total() > 0).collect();
    assert_eq!(all, recount_by_session(&msgs));
    assert_eq!(cc, recount_by_session(msgs.iter().filter(|m| m.ccusage_reads)));
    let skipped = recount_by_session(msgs.iter().filter(|m| !m.ccusage_reads));

    // Every ccusage session row's four counts are ours, less the responses
    // ccusage skips (b): only edge_cases has both (lines 2, 4 and 9 are spaced:
    // 35+200+85 input, 145+25+180 output).
    assert_eq!(skipped.get("edge_cases"), Some(&t(320, 350, 0, 0)));
    for (id, want) in &cc {
        let got = session_tokens(&ours[id]);
        let less = skipped.get(id).copied().unwrap_or_default();
        assert_eq!(sub(&got, &less), *want, "session {id}");
    }
    // The cross-file duplicate msg_004 goes to edge_cases (its path sorts
    // first), as in ccusage: todowrite_session is 883-168 / 328-85.
    assert_eq!(session_tokens(&ours["todowrite_session"]), t(715, 243, 0, 0));
    assert_eq!(session_tokens(&ours["edge_cases"]), t(168 + 320, 85 + 350, 0, 0));

    // The sessions ccusage lacks: three whose every response it skips, and
    // test-session-id, whose responses have no usage (all zero, no row).
    let extra: BTreeSet<&str> = ours.keys().filter(|k| !cc.contains_key(*k)).map(String::as_str).collect();
    assert_eq!(extra, BTreeSet::from(["session_b", "test-session-id", "test-transcript", "test_session"]));
    for id in &extra {
        assert_eq!(session_tokens(&ours[*id]), skipped.get(*id).copied().unwrap_or_default(), "session {id}");
    }
    assert_eq!(session_tokens(&ours["test-transcript"]), t(3000, 150, 300, 1300));
    assert_eq!(session_tokens(&ours["test_session"]), t(218, 445, 0, 0));
    assert_eq!(session_tokens(&ours["session_b"]), t(20, 35, 0, 0));
    assert_eq!(session_tokens(&ours["test-session-id"]), Tokens::default());

    // Totals: ccusage's = ours minus what it skips.
    let ours_total = sum(all.values());
    assert_eq!(cc_tokens(&claude["totals"]), sub(&ours_total, &sum(skipped.values())));
}

// ---------------------------------------------------------------- 2. the generator

/// The (sessions, seed) pairs every generator test runs.
const CASES: [(usize, u64); 3] = [(6, 1), (13, 7), (9, 42)];

fn generated(sessions: usize, seed: u64) -> (tempfile::TempDir, Expected) {
    let dir = tempfile::tempdir().expect("tempdir");
    let exp = generate(dir.path(), sessions, seed);
    (dir, exp)
}

fn dir_arg(dir: &tempfile::TempDir) -> String {
    dir.path().to_str().expect("UTF-8 tempdir").to_owned()
}

fn find_records(dir: &tempfile::TempDir) -> String {
    let run = ci("ci-find").args(["--root", &dir_arg(dir)]).run();
    assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{run:?}");
    run.stdout
}

fn expected_by_day(exp: &Expected) -> BTreeMap<DayModel, Tokens> {
    exp.by_day_model.iter().map(|((d, m), x)| ((s(d), s(m)), *x)).collect()
}

/// `N thing(s)`.
fn n(count: usize, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

/// The summary line of a run that skipped the generator's damaged lines and
/// held back its torn tails.
fn summary(tool: &str, exp: &Expected) -> String {
    let mut parts = vec![];
    if !exp.damaged.is_empty() {
        parts.push(format!("{} skipped", n(exp.damaged.len(), "bad line", "bad lines")));
    }
    if !exp.torn_tails.is_empty() {
        parts.push(format!(
            "{} held back (capture still being written?)",
            n(exp.torn_tails.len(), "unfinished last line", "unfinished last lines")
        ));
    }
    format!("{tool}: {} (--strict makes bad lines an error)", parts.join(", "))
}

/// Every damaged line reported once, nothing else reported (torn last
/// lines in particular), and then the summary line.
fn assert_reports(tool: &str, stderr: &str, exp: &Expected) {
    let (sites, rest) = reports(stderr);
    let want: Vec<(String, u64)> = exp.damaged.iter().map(|(p, l)| (p.to_string_lossy().into_owned(), *l)).collect();
    let mut got = sites.clone();
    got.sort();
    assert_eq!(got, want, "reported (path, line) pairs; stderr:\n{stderr}");
    let distinct: BTreeSet<_> = sites.iter().collect();
    assert_eq!(distinct.len(), sites.len(), "a line reported twice:\n{stderr}");
    for torn in &exp.torn_tails {
        let last = std::fs::read(torn).expect("read").iter().filter(|&&b| b == b'\n').count() as u64 + 1;
        assert!(!sites.contains(&(torn.to_string_lossy().into_owned(), last)), "torn tail reported: {stderr}");
    }
    assert_eq!(rest, [summary(tool, exp)], "stderr:\n{stderr}");
}

fn assert_by_day_is_expected(stdout: &str, exp: &Expected, what: &str) {
    let ours = ours_by_day(stdout);
    // No rows without tokens either: `<synthetic>` lines are no responses.
    assert_eq!(with_tokens(&ours).len(), ours.len(), "{what}: a row without tokens:\n{stdout}");
    assert_eq!(with_tokens(&ours), expected_by_day(exp), "{what}");
    let responses: u64 = ours.values().map(|(r, _)| r).sum();
    assert_eq!(responses, exp.responses(), "{what}: responses");
}

#[test]
fn generated_tokens_by_day_are_the_generators() {
    for (sessions, seed) in CASES {
        let (dir, exp) = generated(sessions, seed);
        let what = format!("generate({sessions}, {seed})");
        assert!(!exp.damaged.is_empty() && !exp.torn_tails.is_empty(), "{what}: no damage to test");
        let records = find_records(&dir);
        let run = ci("ci-agg").args(["--tokens", "--by", "day"]).stdin(records.clone()).run();
        assert_eq!(run.code, 0, "{what}: {run:?}");
        assert_by_day_is_expected(&run.stdout, &exp, &what);
        assert_reports("ci-agg", &run.stderr, &exp);

        // --strict: the same reports, exit 2.
        let strict = ci("ci-agg").args(["--tokens", "--by", "day", "--strict"]).stdin(records.clone()).run();
        assert_eq!(strict.code, 2, "{what}: {strict:?}");
        let (mut sites, _) = reports(&strict.stderr);
        sites.sort();
        let want: Vec<(String, u64)> =
            exp.damaged.iter().map(|(p, l)| (p.to_string_lossy().into_owned(), *l)).collect();
        assert_eq!(sites, want, "{what} --strict");

        // The same answer on one thread and on three, and from the root argument.
        for args in [vec!["-j1"], vec!["-j3"]] {
            let other = ci("ci-agg").args(["--tokens", "--by", "day"]).args(&args).stdin(records.clone()).run();
            assert_eq!((other.code, &other.stdout, &other.stderr), (0, &run.stdout, &run.stderr), "{what} {args:?}");
        }
        let direct = ci("ci-agg").args(["--tokens", "--by", "day", &dir_arg(&dir)]).run();
        assert_eq!((direct.code, &direct.stdout), (0, &run.stdout), "{what}: root argument");

        // Piped event records (ci-cat in between) give the same answer; the
        // reports are then ci-cat's.
        let cat = ci("ci-cat").stdin(records).run();
        assert_eq!(cat.code, 0, "{what}: {}", cat.stderr);
        assert_reports("ci-cat", &cat.stderr, &exp);
        let piped = ci("ci-agg").args(["--tokens", "--by", "day"]).stdin(cat.stdout).run();
        assert_eq!((piped.code, piped.stderr.as_str()), (0, ""), "{what}: {piped:?}");
        assert_by_day_is_expected(&piped.stdout, &exp, &format!("{what} via ci-cat"));
        assert_eq!(piped.stdout, run.stdout, "{what} via ci-cat");
    }
}

/// What Expected says a session's `--sessions` record counts: its own lines
/// and its subagent files (ours reads `<id>/subagents/*.jsonl` as part of the
/// session, formats.md §5: their lines carry the parent's `sessionId`); a
/// resumed session's copied history is the original's.
fn expected_tools(exp: &Expected, id: &str) -> (BTreeMap<String, u64>, u64) {
    let session = exp.session(id).expect("generated session");
    let mut calls = session.counts.tool_calls.clone();
    let mut errors = session.counts.tool_errors;
    for a in &session.subagents {
        for (k, v) in &a.counts.tool_calls {
            *calls.entry(k.clone()).or_insert(0) += v;
        }
        errors += a.counts.tool_errors;
    }
    (calls, errors)
}

fn generated_sessions(dir: &tempfile::TempDir, exp: &Expected, args: &[&str]) -> BTreeMap<String, Value> {
    let run = ci("ci-agg").arg("--sessions").args(args).arg(dir_arg(dir)).run();
    assert_eq!(run.code, 0, "{run:?}");
    assert_reports("ci-agg", &run.stderr, exp);
    let ours = ours_sessions(&run.stdout);
    let ids: BTreeSet<&str> = exp.sessions.iter().map(|x| x.id.as_str()).collect();
    assert_eq!(ours.keys().map(String::as_str).collect::<BTreeSet<_>>(), ids);
    ours
}

#[test]
fn generated_session_tokens_are_the_generators() {
    for (sessions, seed) in CASES {
        let (dir, exp) = generated(sessions, seed);
        for threads in ["-j1", "-j3"] {
            let ours = generated_sessions(&dir, &exp, &[threads]);
            for (id, want) in &exp.by_session {
                assert_eq!(session_tokens(&ours[id]), *want, "generate({sessions}, {seed}) {threads}: session {id}");
            }
            for x in &exp.sessions {
                assert_eq!(u(&ours[&x.id]["subagents"]), x.subagents.len() as u64, "{}: subagents", x.id);
            }
        }
    }
}

/// Sessions of `exp` that are (or are not) resumes.
fn resumes(exp: &Expected, resumed: bool) -> Vec<&crate::transcriptgen::Session> {
    exp.sessions.iter().filter(|x| x.resumed_from.is_some() == resumed).collect()
}

#[test]
fn generated_session_tool_calls_and_errors_are_the_generators() {
    // Sessions that are not resumes: their own lines and their subagent files.
    for (sessions, seed) in CASES {
        let (dir, exp) = generated(sessions, seed);
        let ours = generated_sessions(&dir, &exp, &[]);
        let with_subagents = resumes(&exp, false).iter().filter(|x| !x.subagents.is_empty()).count();
        assert!(with_subagents > 0, "generate({sessions}, {seed}): no subagent to count");
        for x in resumes(&exp, false) {
            assert_tool_calls(&exp, &ours, &x.id, &format!("generate({sessions}, {seed}) session {}", x.id));
        }
    }
}

/// A session's `tool_calls` and `tool_errors` in `--sessions` are the generator's.
fn assert_tool_calls(exp: &Expected, ours: &BTreeMap<String, Value>, id: &str, what: &str) {
    let (calls, errors) = expected_tools(exp, id);
    assert_eq!(tool_calls(&ours[id]), calls, "{what}: tool_calls");
    assert_eq!(u(&ours[id]["tool_errors"]), errors, "{what}: tool_errors");
}

#[test]
fn generated_resumed_session_tool_calls_leave_the_copied_history_to_the_original() {
    // A resumed file starts with the original's lines again, same tool_use
    // ids: those calls are the original's (as their tokens are), not new ones.
    for (sessions, seed) in CASES {
        let (dir, exp) = generated(sessions, seed);
        let ours = generated_sessions(&dir, &exp, &[]);
        for x in resumes(&exp, true) {
            assert!(x.copied.tool_call_total() > 0 || x.copied_lines > 0);
            assert_tool_calls(&exp, &ours, &x.id, &format!("generate({sessions}, {seed}) resumed session {}", x.id));
        }
    }
}

// ---------------------------------------------------------------- 3. --partial / --merge

#[test]
fn partial_shards_merge_into_the_whole_tree_answer() {
    for (sessions, seed) in CASES {
        let (dir, exp) = generated(sessions, seed);
        let what = format!("generate({sessions}, {seed})");
        let records = find_records(&dir);
        let whole = ci("ci-agg").args(["--tokens", "--by", "day"]).stdin(records.clone()).run();
        assert_eq!(whole.code, 0, "{what}: {whole:?}");
        // Shards by generation order, even and odd: a resumed session (1, 5,
        // 9, …) and its original (0, 4, 8, …) always land in different ones.
        let even: BTreeSet<&str> = exp.sessions.iter().step_by(2).map(|x| x.id.as_str()).collect();
        for x in &exp.sessions {
            if let Some(from) = &x.resumed_from {
                assert_ne!(even.contains(x.id.as_str()), even.contains(from.as_str()), "{what}");
            }
        }
        let (mut a, mut b) = (String::new(), String::new());
        for line in records.lines() {
            let r: Value = serde_json::from_str(line).expect("record");
            let shard = if even.contains(r["session"].as_str().unwrap()) { &mut a } else { &mut b };
            shard.push_str(line);
            shard.push('\n');
        }
        let mut partials = String::new();
        for shard in [a, b] {
            let p = ci("ci-agg").args(["--tokens", "--by", "day", "--partial"]).stdin(shard).run();
            assert_eq!(p.code, 0, "{what}: {p:?}");
            partials.push_str(&p.stdout);
        }
        let merged = ci("ci-agg").arg("--merge").stdin(partials.clone()).run();
        assert_eq!(merged.code, 0, "{what}: {merged:?}");
        assert_eq!(merged.stdout, whole.stdout, "{what}");
        assert_by_day_is_expected(&merged.stdout, &exp, &format!("{what} merged"));
        // The merged summary adds up the shards' skipped lines.
        assert_eq!(merged.stderr.lines().collect::<Vec<_>>(), [summary("ci-agg", &exp)], "{what}");
        let strict = ci("ci-agg").args(["--merge", "--strict"]).stdin(partials).run();
        assert_eq!(strict.code, 2, "{what}: {strict:?}");
    }
}

// ---------------------------------------------------------------- 4. ci-cat, ci-filter, ci-grep

/// (line, part, event) of `ci-find --root TREE --session ID | ci-cat --lines
/// RANGE`, every record's `ci` checked to name the session and its file.
fn cat_events(file: &str, session: &str, range: &str) -> Vec<(u64, u64, String)> {
    cat_records(session, &["--lines", range])
        .iter()
        .map(|r| {
            let c = &r["ci"];
            assert_eq!((c["session"].as_str(), c["path"].as_str()), (Some(session), Some(file)), "{r}");
            assert_eq!(c.as_object().unwrap().len(), 4, "ci = session, path, line, part: {c}");
            assert_eq!(r["transcript"], if r["event"] == "tool:post" { "user" } else { "assistant" });
            (u(&c["line"]), u(&c["part"]), r["event"].as_str().unwrap().to_owned())
        })
        .collect()
}

/// `ci-find --root TREE --session ID | ci-cat ARGS`, parsed.
fn cat_records(session: &str, args: &[&str]) -> Vec<Value> {
    let recs = ci("ci-find").args(["--root", TREE, "--session", session]).run();
    assert_eq!((recs.code, recs.lines().len()), (0, 1), "{recs:?}");
    let run = ci("ci-cat").args(args).stdin(recs.stdout).run();
    assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{run:?}");
    run.json()
}

#[test]
fn cat_gives_each_block_its_part_index() {
    const ID: &str = "1af7fc5e-8455-4414-9ccd-011d40f70b2a";
    // Lines 3–4: message msg_01TqDZ… written as a text block (line 3) and a
    // TodoWrite tool_use (line 4); line 5 its tool_result (a user line of
    // results only: no event of its own); lines 6–10: message msg_018mu4…,
    // one tool_use a line (Bash, then four Glob).
    let lines = object_lines(&root().join(SMALL));
    let content = |n: u64| -> Vec<String> {
        let o = &lines.iter().find(|(l, _, _)| *l == n).unwrap().2;
        o["message"]["content"].as_array().unwrap().iter().map(|b| b["type"].as_str().unwrap().to_owned()).collect()
    };
    assert_eq!(content(3), ["text"]);
    assert_eq!(content(4), ["tool_use"]);
    assert_eq!(content(5), ["tool_result"]);
    let id = |n: u64| lines.iter().find(|(l, _, _)| *l == n).unwrap().2["message"]["id"].clone();
    assert_eq!(id(3), id(4));
    assert_eq!(id(6), id(10));
    assert_ne!(id(4), id(6));
    let ev = |line: u64, part: u64, e: &str| (line, part, e.to_owned());
    assert_eq!(
        cat_events(SMALL, ID, "3-7"),
        [
            ev(3, 0, "llm:response"),
            ev(4, 1, "llm:content"),
            ev(4, 2, "tool:pre"),
            ev(5, 2, "tool:post"),
            ev(6, 0, "llm:response"),
            ev(6, 2, "tool:pre"),
            ev(7, 1, "llm:content"),
            ev(7, 2, "tool:pre"),
        ]
    );
    // A tool_use at index 1 of its message's content is part 3: simonw's
    // line 3 is [text, tool_use Write] (no message.id: each line its own response).
    assert_eq!(cat_events(SIMONW, "test-session-id", "3"), [ev(3, 0, "llm:response"), ev(3, 3, "tool:pre")]);
    // The block event's data is the block itself.
    let recs = cat_records("test-session-id", &["--lines", "3", "--full"]);
    let block = &object_lines(&root().join(SIMONW))[2].2["message"]["content"][1];
    assert_eq!(&recs[1]["data"], block);
    assert_eq!(recs[1]["data"]["name"], "Write");
}

#[test]
fn cat_raw_prints_a_line_once() {
    // Line 3 yields one event, line 4 two (llm:content and tool:pre), line 5
    // one (tool:post): --raw prints the exact bytes of each line once.
    let run = ci("ci-cat").args([SMALL, "--lines", "3-5", "--raw"]).run();
    assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{run:?}");
    let file = std::fs::read_to_string(root().join(SMALL)).unwrap();
    let l: Vec<&str> = file.lines().collect();
    let want = [l[2], l[3], l[4]].iter().map(|x| format!("{x}\n")).collect::<String>();
    assert_eq!(run.stdout, want);
}

/// (tool_use, tool_result ok, tool_result is_error) blocks in every JSON line
/// of the tree, counted per line as written (a repeated line counts again).
fn recount_blocks() -> (u64, u64, u64) {
    let (mut uses, mut ok, mut errors) = (0, 0, 0);
    for file in tree_files(&root().join(TREE)) {
        for (_, _, o) in object_lines(&file) {
            let Some(blocks) = o.get("message").and_then(|m| m.get("content")).and_then(Value::as_array) else {
                continue;
            };
            for b in blocks {
                match b.get("type").and_then(Value::as_str) {
                    Some("tool_use") => uses += 1,
                    Some("tool_result") if b.get("is_error") == Some(&Value::Bool(true)) => errors += 1,
                    Some("tool_result") => ok += 1,
                    _ => {}
                }
            }
        }
    }
    (uses, ok, errors)
}

#[test]
fn filter_by_block_event_counts_every_block() {
    let (uses, ok, errors) = recount_blocks();
    for (event, want) in [("tool:pre", uses), ("tool:post", ok), ("tool:error", errors)] {
        let run = ci("ci-filter").args(["--event", event, TREE]).run();
        assert_eq!(run.code, 0, "{run:?}");
        assert_eq!(run.stderr.lines().collect::<Vec<_>>()[..4], edge_case_reports()[..]);
        let recs = run.json();
        assert_eq!(recs.len() as u64, want, "{event}");
        assert!(recs.iter().all(|r| r["event"] == event && u(&r["ci"]["part"]) >= 2), "{event}");
    }
    assert!(uses > 200 && errors > 0, "the tree has blocks to count: {uses} {ok} {errors}");
}

#[test]
fn grep_finds_a_tool_input_string_in_its_block_event() {
    // "Commit changes" is only the `description` of the Bash tool_use in
    // simonw's line 5 (the line's only content block, index 0 → part 2).
    let file = std::fs::read_to_string(root().join(SIMONW)).unwrap();
    let hits: Vec<usize> =
        file.lines().enumerate().filter(|(_, l)| l.contains("Commit changes")).map(|(i, _)| i + 1).collect();
    assert_eq!(hits, [5]);
    let line5 = &object_lines(&root().join(SIMONW))[4].2;
    assert_eq!(line5["message"]["content"][0]["input"]["description"], "Commit changes");
    let ci_of = |part: u64| serde_json::json!({"session": "test-session-id", "path": SIMONW, "line": 5, "part": part});

    let run = ci("ci-grep").args(["--event", "tool:pre", "Commit changes", TREE]).run();
    assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{run:?}");
    let recs = run.json();
    assert_eq!(recs.len(), 1, "{}", run.stdout);
    assert_eq!(recs[0]["event"], "tool:pre");
    assert_eq!(recs[0]["path"], "data.input.description");
    assert_eq!(recs[0]["line"], 5);
    assert_eq!(recs[0]["match"], "Commit changes");
    assert_eq!(recs[0]["ci"], ci_of(2));

    // Without --event the string is found twice: in the block event and in
    // the line's own event, whose data is the whole line.
    let all = ci("ci-grep").args(["Commit changes", TREE]).run();
    assert_eq!(all.code, 0, "{all:?}");
    let got: Vec<(String, String, Value)> = all
        .json()
        .iter()
        .map(|r| (r["event"].as_str().unwrap().to_owned(), r["path"].as_str().unwrap().to_owned(), r["ci"].clone()))
        .collect();
    assert_eq!(
        got,
        [
            ("llm:response".to_owned(), "data.message.content.0.input.description".to_owned(), ci_of(0)),
            ("tool:pre".to_owned(), "data.input.description".to_owned(), ci_of(2)),
        ]
    );
}

// ---------------------------------------------------------------- 5. ci-find

#[test]
fn find_lists_the_fixture_sessions() {
    let run = ci("ci-find").args(["--root", TREE]).run();
    assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{run:?}");
    let recs = run.json();
    let listed: Vec<(String, String)> = recs
        .iter()
        .map(|r| {
            assert_eq!(r["format"], "claude-transcript", "{r}");
            assert_eq!(r["files"], serde_json::json!([]), "{r}");
            let path = r["path"].as_str().unwrap();
            let (folder, id) = (r["project"].as_str().unwrap(), r["session"].as_str().unwrap());
            assert_eq!(path, format!("{TREE}/projects/{folder}/{id}.jsonl"));
            assert_eq!(u(&r["bytes"]), std::fs::metadata(root().join(path)).unwrap().len(), "{path}");
            (folder.to_owned(), id.to_owned())
        })
        .collect();
    // One session per file, named by its stem; newest start first (the
    // timestamp-less test-transcript last).
    let p = |f: &str, id: &str| (f.to_owned(), id.to_owned());
    assert_eq!(
        listed,
        [
            p("-src-kvsankar-agent-history", "06090cb1-3e64-433a-bc7e-a621c0f596d2"),
            p("-src-ryoppippi-ccusage", "session-beta"),
            p("-src-ryoppippi-ccusage", "session-alpha"),
            p("-src-simonw-claude-code-transcripts", "test-session-id"),
            p("-src-d-kimuson-claude-code-viewer", "5c0375b4-57a5-4f26-b12d-d022ee4e51b7"),
            p("-src-d-kimuson-claude-code-viewer", "fe5e1c67-53e7-4862-81ae-d0e013e3270b"),
            p("-src-d-kimuson-claude-code-viewer", "1af7fc5e-8455-4414-9ccd-011d40f70b2a"),
            p("-src-daaain-claude-code-log", "session_b"),
            p("-src-daaain-claude-code-log", "edge_cases"),
            p("-src-daaain-claude-code-log", "test_session"),
            p("-src-daaain-claude-code-log", "todowrite_session"),
            p("-src-ryoppippi-ccusage", "test-transcript"),
        ]
    );
    let files: BTreeSet<String> = tree_files(&root().join(TREE))
        .iter()
        .map(|f| f.strip_prefix(root()).unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(files, recs.iter().map(|r| r["path"].as_str().unwrap().to_owned()).collect());

    // 1af7fc5e by hand: its first line (a /init prompt) is stamped
    // 00:47:19.293Z and its last (line 29, the closing reply) 00:47:52.264Z,
    // the earliest and latest of its 29 lines; every cwd is /path/to/Demo.
    let r = recs.iter().find(|r| r["session"] == "1af7fc5e-8455-4414-9ccd-011d40f70b2a").unwrap();
    assert_eq!(r["started_at"], "2025-09-03T00:47:19.293Z");
    assert_eq!(r["last_event_at"], "2025-09-03T00:47:52.264Z");
    assert_eq!(r["working_dir"], "/path/to/Demo");
    assert_eq!(r["model"], "claude-sonnet-4-20250514");
    assert_eq!(r["workspace"], "-src-d-kimuson-claude-code-viewer");
    // test-transcript has no timestamp at all.
    let r = recs.iter().find(|r| r["session"] == "test-transcript").unwrap();
    assert_eq!((&r["started_at"], &r["last_event_at"]), (&Value::Null, &Value::Null));
}

// ---------------------------------------------------------------- a transcript named by its path

const FE5E: &str =
    "fixtures/claude-transcripts/projects/-src-d-kimuson-claude-code-viewer/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl";

#[test]
fn a_transcript_named_by_its_path_is_read_as_from_the_root() {
    // 1af7fc5e starts with a user line: named by its path, the same events as
    // through discovery.
    let via_root = cat_records("1af7fc5e", &[]);
    let run = ci("ci-cat").arg(SMALL).run();
    assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{run:?}");
    assert_eq!(run.json(), via_root);
}

#[test]
fn a_transcript_starting_with_a_summary_line_is_read_when_named() {
    // fe5e1c67 (real) and simonw's file start with {"type":"summary",...},
    // as Claude Code writes them; the rest are ordinary transcript lines.
    for (file, id) in [(FE5E, "fe5e1c67"), (SIMONW, "test-session-id")] {
        let first = &object_lines(&root().join(file))[0];
        assert_eq!((first.0, first.2["type"].as_str()), (1, Some("summary")));
        let via_root = cat_records(id, &[]);
        let run = ci("ci-cat").arg(file).run();
        let first_report = run.stderr.lines().next();
        assert_eq!((run.code, first_report), (0, None), "ci-cat {file}: {} stderr lines", run.stderr.lines().count());
        assert_eq!(run.json(), via_root, "ci-cat {file}");
    }
    // A project folder as the root lists all its sessions.
    let run =
        ci("ci-find").args(["--root", "fixtures/claude-transcripts/projects/-src-d-kimuson-claude-code-viewer"]).run();
    assert_eq!(run.code, 0, "{run:?}");
    let ids: BTreeSet<String> = run.json().iter().map(|r| r["session"].as_str().unwrap().to_owned()).collect();
    assert_eq!(
        ids,
        BTreeSet::from(
            [
                "1af7fc5e-8455-4414-9ccd-011d40f70b2a",
                "5c0375b4-57a5-4f26-b12d-d022ee4e51b7",
                "fe5e1c67-53e7-4862-81ae-d0e013e3270b"
            ]
            .map(str::to_owned)
        )
    );
}

/// `ci-find --project` takes a working directory, converted by Claude Code's
/// folder rule (every character but ASCII letters, digits and `-` becomes
/// `-`), as well as the folder name itself.
#[test]
fn find_project_by_working_directory() {
    let dir = tempfile::tempdir().unwrap();
    let exp = generate(dir.path(), 6, 3);
    let root = dir.path().to_str().unwrap();
    for s in &exp.sessions {
        let folder: String =
            s.cwd.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '-' }).collect();
        assert_eq!(folder, s.project, "the generator names folders by the same rule");
        let want: BTreeSet<String> =
            exp.sessions.iter().filter(|o| o.project == s.project).map(|o| o.id.clone()).collect();
        for value in [s.cwd.as_str(), s.project.as_str()] {
            let run = ci("ci-find").args(["--root", root, "--project", value]).run();
            let got: BTreeSet<String> =
                run.json().iter().map(|r| r["session"].as_str().unwrap_or("").to_owned()).collect();
            assert_eq!(got, want, "--project {value}");
        }
    }
}

/// Hostile files in a transcript tree: a FIFO and a dangling link named
/// `*.jsonl` beside a session, a FIFO among its subagents. Each is reported
/// (`path: reason, skipped`, exit 2) and never opened (a FIFO would hang the
/// tool); the good session is read.
#[test]
fn fifos_and_dangling_links_are_reported_not_opened() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("projects").join("-p");
    std::fs::create_dir_all(folder.join("s1").join("subagents")).unwrap();
    let line = r#"{"type":"user","sessionId":"s1","cwd":"/p","timestamp":"2026-03-01T00:00:00.000Z","message":{"role":"user","content":"hi"}}"#;
    std::fs::write(folder.join("s1.jsonl"), format!("{line}\n")).unwrap();
    let fifo = folder.join("f.jsonl");
    let sub_fifo = folder.join("s1").join("subagents").join("agent-x.jsonl");
    for f in [&fifo, &sub_fifo] {
        assert!(std::process::Command::new("mkfifo").arg(f).status().unwrap().success());
    }
    std::os::unix::fs::symlink(folder.join("gone"), folder.join("d.jsonl")).unwrap();
    let root = dir.path().to_str().unwrap();
    let mut child = crate::util::ci_command("ci-agg")
        .args(["--sessions", root])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let code = crate::util::exits_within(&mut child, "ci-agg over FIFOs");
    let out = child.wait_with_output().unwrap();
    assert_eq!(code, Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    for (path, reason) in [
        (&sub_fifo, "not a regular file"),
        (&folder.join("d.jsonl"), "dangling symbolic link"),
        (&fifo, "not a regular file"),
    ] {
        let want = format!("ci-agg: {}: {reason}, skipped", path.display());
        assert!(stderr.contains(&want), "missing {want:?} in {stderr}");
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let recs: Vec<Value> = stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(recs.len(), 1);
    assert_eq!((&recs[0]["session"], &recs[0]["turns"]), (&Value::from("s1"), &Value::from(1)));
}

/// `ci-agg ROOT` discovers without reading the transcripts' heads and tails
/// (`Detail::Reading`: no start times, so the sessions are read in path
/// order); its answers are those of `ci-find --root ROOT | ci-agg`, whose
/// records carry everything, for every preset.
#[test]
fn a_root_argument_answers_as_ci_find_records_do() {
    let mut roots: Vec<(String, Option<tempfile::TempDir>)> = ["claude-transcripts", "sessiondata-transcript"]
        .iter()
        .map(|f| (root().join("fixtures").join(f).to_string_lossy().into_owned(), None))
        .collect();
    let (dir, _) = generated(9, 42);
    roots.push((dir_arg(&dir), Some(dir)));
    for (root, _keep) in &roots {
        let records = ci("ci-find").args(["--root", root]).run();
        assert_eq!(records.code, 0, "{root}: {records:?}");
        for args in [
            &["--tokens", "--by", "day"][..],
            &["--tokens", "--by", "session"],
            &["--sessions"],
            &["--tools"],
            &["--by", "event"],
            &["--by", "workspace,model"],
        ] {
            let piped = ci("ci-agg").args(args).stdin(records.stdout.clone()).run();
            let direct = ci("ci-agg").args(args).arg(root).run();
            if args[0] == "--tokens" {
                assert!(!piped.stdout.is_empty(), "{root} {args:?}: {piped:?}");
            }
            assert_eq!(
                (direct.code, &direct.stdout, &direct.stderr),
                (piped.code, &piped.stdout, &piped.stderr),
                "{root} {args:?}"
            );
        }
    }
}
