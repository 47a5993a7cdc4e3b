//! The capture cache (`ci-agg`): answers with it equal answers without it
//! (`--no-cache`), byte for byte on stdout and stderr and in the exit code,
//! whatever happens to the captures between runs; damaged, shared,
//! unusable or turned-off caches.

use std::path::{Path, PathBuf};

use proptest::prelude::*;

use crate::kit::Tree;
use crate::util::{ci, Run};

/// The questions every check asks: resumable ones (`--by`, `--tokens` over
/// Amplifier), ones read again whole (`--sessions`, the agent key), metrics;
/// and time windows, which prune captures by their kept times (the
/// generated Amplifier events are of 2026-03-01 to 03, some untimed; the
/// real Claude Code transcript and hooks session of 2025, the Codex rollout
/// of 2026-06: each window has captures wholly before or after it, and
/// ones that straddle its bound).
const QUESTIONS: &[&[&str]] = &[
    &["--by", "event"],
    &["--tokens", "--by", "day"],
    &["--sessions"],
    &["--by", "workspace", "--sum", "data.n", "--min", "data.n", "--distinct", "data.k"],
    &["--by", "agent,event"],
    &["--tools", "--by", "workspace"],
    &["--by", "event", "--stats", "data.n"],
    &["--tokens", "--by", "day", "--since", "2026-03-02"],
    &["--by", "event", "--until", "2026-03-02T11:00:00Z"],
    &["--sessions", "--since", "2025-09-01"],
];

/// One Amplifier event line.
fn event(i: u64, kind: u8) -> String {
    let day = 1 + i % 3;
    match kind % 8 {
        0 => format!(
            r#"{{"event":"llm:response","timestamp":"2026-03-0{day}T10:00:{:02}Z","workspace":"w{}","data":{{"model":"claude-sonnet-4-5","usage":{{"input_tokens":{},"output_tokens":{},"cost_usd":"0.00{}"}}}}}}"#,
            i % 60,
            i % 2,
            100 + i,
            7 * i,
            i % 10
        ),
        1 => format!(
            r#"{{"event":"tool:pre","timestamp":"2026-03-0{day}T11:00:00Z","data":{{"n":{i},"k":"k{}"}}}}"#,
            i % 4
        ),
        2 => format!(r#"{{"event":"tool:post","data":{{"n":"{}.5","k":{}}}}}"#, i, i % 3),
        // An error, and one damaged inside its data only (a bad escape):
        // ci-filter reports it only when a predicate selects it.
        4 => format!(
            r#"{{"event":"tool:error","timestamp":"2026-03-0{day}T12:00:00Z","data":{{"tool_name":"bash","n":{i}}}}}"#
        ),
        5 => format!(r#"{{"event":"tool:error","timestamp":"2026-03-0{day}T12:00:01Z","data":{{"bad":"\q{i}"}}}}"#),
        6 => format!(
            r#"{{"event":"tool:post","timestamp":"2026-03-0{day}T12:00:02Z","data":{{"tool_name":"edit","result":{{"success":false}}}}}}"#
        ),
        _ => format!(r#"{{"event":"session:start","timestamp":"2026-03-0{day}T09:00:00Z","data":{{}}}}"#),
    }
}

pub(crate) fn lines(from: u64, kinds: &[u8]) -> String {
    kinds.iter().enumerate().map(|(i, &k)| event(from + i as u64, k) + "\n").collect()
}

pub(crate) fn agg(args: &[&str], paths: &[&Path], cache: bool) -> Run {
    run("ci-agg", args, paths, cache)
}

pub(crate) fn run(tool: &str, args: &[&str], paths: &[&Path], cache: bool) -> Run {
    let mut c = ci(tool).args(args).args(paths);
    if !cache {
        c = c.arg("--no-cache");
    }
    c.run()
}

/// Every question of `tool`, with the cache (twice: building it, then using
/// it) and without, gives the same stdout, stderr and exit code: on one
/// thread, where reports come in input order; on several (the first
/// `on_two` questions), stderr as a set of lines (the reports of captures
/// read at once interleave as the threads go, cache or not).
fn same_runs(tool: &str, questions: &[&[&str]], on_two: usize, paths: &[&Path], what: &str) {
    let two = questions[..on_two].iter().map(|q| ("-j2", *q));
    for (threads, q) in questions.iter().map(|q| ("-j1", *q)).chain(two) {
        let q: Vec<&str> = [threads].into_iter().chain(q.iter().copied()).collect();
        let key = |r: &Run| {
            let mut err: Vec<String> = r.stderr.lines().map(str::to_owned).collect();
            if threads != "-j1" {
                err.sort();
            }
            (r.stdout.clone(), err, r.code)
        };
        let cold = key(&run(tool, &q, paths, false));
        for pass in ["first", "second"] {
            let warm = key(&run(tool, &q, paths, true));
            assert_eq!(warm, cold, "{what}: {tool} {q:?}, {pass} run with the cache");
        }
    }
}

/// Every ci-agg question answers as without the cache.
pub(crate) fn same_answers(paths: &[&Path], what: &str) {
    same_runs("ci-agg", QUESTIONS, 1, paths, what);
}

/// The ci-filter questions every check asks: ones the line index answers
/// (`--event`, `--errors`, `--not-event`, with other predicates on the
/// picked lines) and ones it does not (`--where`, `--invert`, `--strict`).
const FILTERS: &[&[&str]] = &[
    &["--event", "tool:error"],
    &["--errors", "--since", "2026-03-02"],
    &["--event", "tool:*", "--tool", "bash", "--no-provenance"],
    &["--not-event", "session:start", "--event", "tool:pre", "--max-bytes", "40"],
    &["--event", "tool:pro"],
    &["--event", "tool:error", "--where", "data.n > 3"],
    &["--event", "tool:error", "--invert"],
    &["--event", "tool:error", "--strict"],
];

/// Every ci-filter question prints, with the line index, what it prints without.
fn same_filters(paths: &[&Path], what: &str) {
    same_runs("ci-filter", FILTERS, 2, paths, what);
}

/// What can happen to a capture file between two runs.
#[derive(Debug, Clone)]
enum Change {
    /// Whole lines appended.
    Append(Vec<u8>),
    /// An unfinished line appended (no newline).
    Tear(u8),
    /// A newline appended (finishes a torn line, or an empty line).
    Newline,
    /// A bad line appended.
    Bad,
    /// Cut to this share (0–99 %) of its length.
    Truncate(u8),
    /// The same bytes count, other content (and a later modification time).
    Rewrite(u8),
    /// Replaced by a new file (another inode) with other content.
    Rotate(Vec<u8>),
    /// Touched: same bytes, a later modification time.
    Touch,
    /// Its session record edited (an Amplifier `metadata.json`: another
    /// workspace); other writers' files are left alone.
    Relabel(u8),
}

fn change() -> impl Strategy<Value = Change> {
    let kinds = prop::collection::vec(any::<u8>(), 1..6);
    prop_oneof![
        3 => kinds.clone().prop_map(Change::Append),
        1 => any::<u8>().prop_map(Change::Tear),
        1 => Just(Change::Newline),
        1 => Just(Change::Bad),
        1 => (0u8..100).prop_map(Change::Truncate),
        1 => any::<u8>().prop_map(Change::Rewrite),
        1 => kinds.prop_map(Change::Rotate),
        1 => Just(Change::Touch),
        1 => any::<u8>().prop_map(Change::Relabel),
    ]
}

/// Sets the file's modification time `secs` seconds after its current one
/// (a real rewrite or touch comes later than the read it invalidates; in a
/// test it may come within the same clock tick).
fn later(path: &Path, secs: u64) {
    let f = std::fs::File::options().append(true).open(path).unwrap();
    let t = f.metadata().unwrap().modified().unwrap() + std::time::Duration::from_secs(secs);
    f.set_modified(t).unwrap();
}

/// A capture file of the tree and where its new lines come from.
struct File {
    path: PathBuf,
    /// Lines of a real capture of its writer (Claude Code, Codex), cycled;
    /// none: generated Amplifier events.
    real: Vec<String>,
}

impl File {
    /// `count` new lines from the `n`th on.
    fn lines(&self, n: u64, kinds: &[u8]) -> String {
        if self.real.is_empty() {
            return lines(n, kinds);
        }
        let pick = |i: usize| &self.real[(n as usize + i + usize::from(kinds[i])) % self.real.len()];
        (0..kinds.len()).map(|i| format!("{}\n", pick(i))).collect()
    }
}

/// Real captures the proptest changes beside generated Amplifier ones
/// (fixtures/README.md names their sources and licences).
const REAL: [(&str, &str); 2] = [
    ("fixtures/claude-transcripts/projects/-src-daaain-claude-code-log/edge_cases.jsonl", "claude"),
    (
        "fixtures/codex/sessions/2026/06/05/rollout-2026-06-05T04-58-20-019e9625-802f-7e91-840a-cfe88d14117a.jsonl",
        "codex",
    ),
];

/// A hooks session with a transcript copy (fixtures/README.md), and its id.
const HOOKS: &str = "fixtures/sessiondata-transcript/1af7fc5e-8455-4414-9ccd-011d40f70b2a";
const HOOKS_ID: &str = "1af7fc5e-8455-4414-9ccd-011d40f70b2a";

fn apply(file: &File, c: &Change, n: &mut u64) {
    let path = &file.path;
    use std::io::Write;
    let append = |bytes: &[u8]| std::fs::File::options().append(true).open(path).unwrap().write_all(bytes).unwrap();
    let len = std::fs::metadata(path).unwrap().len();
    match c {
        Change::Append(kinds) => {
            append(file.lines(*n, kinds).as_bytes());
            *n += kinds.len() as u64;
        }
        Change::Tear(k) => {
            let line = file.lines(*n, &[*k]);
            append(&line.as_bytes()[..(line.len() - 1).min(10)]);
        }
        Change::Newline => append(b"\n"),
        Change::Bad => append(b"not json\n"),
        Change::Truncate(share) => {
            let f = std::fs::File::options().write(true).open(path).unwrap();
            f.set_len(len * u64::from(*share) / 100).unwrap();
        }
        Change::Rewrite(seed) => {
            let mut text =
                lines(*n + u64::from(*seed), &[*seed, seed.wrapping_add(1), seed.wrapping_add(2)]).into_bytes();
            text.resize(len as usize, b'\n');
            std::fs::write(path, &text).unwrap();
            later(path, 10);
        }
        Change::Rotate(kinds) => {
            let new = path.with_extension("new");
            std::fs::write(&new, file.lines(*n + 100, kinds)).unwrap();
            std::fs::rename(&new, path).unwrap();
        }
        Change::Touch => later(path, 20),
        Change::Relabel(w) if file.real.is_empty() => {
            let dir = path.parent().unwrap();
            let id = dir.parent().unwrap().file_name().unwrap().to_string_lossy();
            let text = format!(r#"{{"session_id":"{id}","workspace":"w{}","status":"s{}"}}"#, w % 3, w % 2);
            std::fs::write(dir.join("metadata.json"), text).unwrap();
        }
        Change::Relabel(_) => {}
    }
}

proptest! {
    // Ten cases by default (each runs ci-agg about 70 times); PROPTEST_CASES=N for more.
    #![proptest_config(ProptestConfig { cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(10), ..ProptestConfig::default() })]

    /// Random captures under random appends, torn tails, bad lines,
    /// truncations, same-size rewrites, rotations and touches: after each
    /// change every question answers as without the cache.
    #[test]
    fn cached_answers_equal_uncached_ones_as_captures_change(
        starts in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..8), 1..4),
        changes in prop::collection::vec((0usize..6, change()), 1..5),
    ) {
        let tree = Tree::new();
        let mut files: Vec<File> = vec![];
        for (i, kinds) in starts.iter().enumerate() {
            let cap = tree.amplifier(&format!("p{}", i % 2), format!("s{i}")).raw(lines(i as u64 * 1000, kinds)).write();
            files.push(File { path: cap.events, real: vec![] });
        }
        // Claude Code and Codex captures, in roots of their own.
        let claude = Tree::new();
        let codex = Tree::new();
        for (fixture, writer) in REAL {
            let text = std::fs::read_to_string(crate::util::root().join(fixture)).unwrap();
            let path = match writer {
                "claude" => claude.transcript("-w-proj", "0e8f1c2a-1111-4222-8333-444455556666", &text),
                _ => codex.rollout("sessions/2026/06/05", fixture.rsplit('/').next().unwrap(), &text),
            };
            let real: Vec<String> = text.lines().map(str::to_owned).collect();
            if writer == "claude" {
                // A subagent transcript beside it: one capture of two files.
                let sub = claude.subagent("-w-proj", "0e8f1c2a-1111-4222-8333-444455556666", "a1", real[real.len() / 2..].join("\n") + "\n");
                files.push(File { path: sub, real: real.clone() });
            }
            files.push(File { path, real });
        }
        // A hooks session with its transcript copy (read by `--tokens` and
        // `--sessions` after its events): one capture of several files.
        let hooks = Tree::new();
        let from = crate::util::root().join(HOOKS);
        for f in std::fs::read_dir(&from).unwrap() {
            let f = f.unwrap().path();
            let to = hooks.join(format!("{}/{}", HOOKS_ID, f.file_name().unwrap().to_string_lossy()));
            crate::kit::tree::write(&to, std::fs::read(&f).unwrap());
            let name = f.file_name().unwrap().to_string_lossy().into_owned();
            if name == "_claude_user_inputs.jsonl" || name == "_transcript_final.jsonl" {
                let real = std::fs::read_to_string(&f).unwrap().lines().map(str::to_owned).collect();
                files.push(File { path: to, real });
            }
        }
        let roots = [tree.path(), claude.path(), codex.path(), hooks.path()];
        same_answers(&roots, "as written");
        same_filters(&roots, "as written");
        let mut n = 500;
        for (at, c) in &changes {
            let file = &files[at % files.len()];
            apply(file, c, &mut n);
            let what = format!("after {c:?} to {}", file.path.display());
            same_answers(&roots, &what);
            same_filters(&roots, &what);
        }
    }
}

/// The cache is used: a capture changed behind its back in the one way the
/// cache cannot see (same size, same modification time, same inode, well
/// after it was read) keeps its old answer until `--no-cache`; and a grown
/// capture is read from where its kept answer ends.
#[test]
fn a_current_capture_is_not_read_again() {
    let tree = Tree::new();
    let first = lines(0, &[1, 1, 1]);
    let cap = tree.amplifier("p", "s").raw(&first).write();
    // Old enough that a stat proves it unchanged.
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    let set_time = || std::fs::File::options().append(true).open(&cap.events).unwrap().set_modified(old).unwrap();
    set_time();
    let q = ["--by", "event"];
    let warm = agg(&q, &[tree.path()], true);
    assert_eq!(warm.stdout, "{\"event\":\"tool:pre\",\"count\":3}\n");
    // Same size, same time, other events.
    std::fs::write(&cap.events, first.replace("tool:pre", "tool:pro")).unwrap();
    set_time();
    assert_eq!(agg(&q, &[tree.path()], true).stdout, warm.stdout);
    assert_eq!(agg(&q, &[tree.path()], false).stdout, "{\"event\":\"tool:pro\",\"count\":3}\n");
    // Once it grows, its first bytes are checked: the rewrite is seen and
    // the capture read again whole.
    let append = |path: &Path, text: String| {
        use std::io::Write;
        std::fs::File::options().append(true).open(path).unwrap().write_all(text.as_bytes()).unwrap();
    };
    append(&cap.events, lines(3, &[0]));
    assert_eq!(
        agg(&q, &[tree.path()], true).stdout,
        "{\"event\":\"tool:pro\",\"count\":3}\n{\"event\":\"llm:response\",\"count\":1}\n"
    );
    // A grown capture is read from where its kept answer ends: a change in
    // place past its first 4 KiB and before its last line is not seen.
    let big = tree.amplifier("p", "big").raw(lines(0, &[1; 200])).write();
    let text = std::fs::read_to_string(&big.events).unwrap();
    assert!(text.len() > 8192);
    let one = [tree.path().join("p/sessions/big")];
    let one = [one[0].as_path()];
    assert_eq!(agg(&q, &one, true).stdout, "{\"event\":\"tool:pre\",\"count\":200}\n");
    let at = text[6000..].find("tool:pre").unwrap() + 6000;
    let mut changed = text.clone().into_bytes();
    changed[at..at + 8].copy_from_slice(b"tool:pro");
    std::fs::write(&big.events, changed).unwrap();
    append(&big.events, lines(100, &[3]));
    assert_eq!(
        agg(&q, &one, true).stdout,
        "{\"event\":\"tool:pre\",\"count\":200}\n{\"event\":\"session:start\",\"count\":1}\n"
    );
    assert_eq!(
        agg(&q, &one, false).stdout,
        "{\"event\":\"tool:pre\",\"count\":199}\n{\"event\":\"session:start\",\"count\":1}\n{\"event\":\"tool:pro\",\"count\":1}\n"
    );
}

/// Tool calls with latencies, `n` of them from `from` on: a `tool:pre` and
/// a `tool:post` each (one in nine failed), `data.n` and `duration_ms` all
/// different, so that past 1024 values the percentiles are estimates.
fn timed_calls(from: u64, n: u64) -> String {
    let mut out = String::new();
    for i in from..from + n {
        let ok = i % 9 != 0;
        out += &format!(
            "{{\"event\":\"tool:pre\",\"timestamp\":\"2026-03-01T10:00:00Z\",\"data\":{{\"tool_call_id\":\"c{i}\",\"tool_name\":\"t{}\",\"n\":{}}}}}\n",
            i % 2,
            (i * 7919) % 100_003
        );
        out += &format!(
            "{{\"event\":\"tool:post\",\"data\":{{\"tool_call_id\":\"c{i}\",\"duration_ms\":{}.{},\"result\":{{\"success\":{ok}}}}}}}\n",
            (i * 104_729) % 30_011,
            i % 10
        );
    }
    out
}

/// Percentiles past 1024 values are t-digest estimates, which depend on
/// the order values arrive in: a capture's kept values are added where its
/// turn is, one by one, so the cached answer is the one reading gives, on
/// one thread and on two, as written, grown, and answered without a read.
#[test]
fn kept_percentiles_equal_read_ones_past_the_exact_limit() {
    let tree = Tree::new();
    let caps: Vec<_> =
        (0..3u64).map(|i| tree.amplifier("p", format!("s{i}")).raw(timed_calls(i * 10_000, 700)).write()).collect();
    let questions: &[&[&str]] = &[
        &["--tools"],
        &["--tools", "--by", "event"],
        &["--by", "event", "--p50", "data.n", "--p99", "data.n", "--p95", "data.duration_ms"],
        &["--stats", "data.duration_ms"],
    ];
    same_runs("ci-agg", questions, questions.len(), &[tree.path()], "as written");
    // Estimates indeed (else this checks nothing a merge of exact values would not).
    let tools = agg(&["-j1", "--tools"], &[tree.path()], false).stdout;
    assert!(tools.contains(r#""tool":"t0","calls":1050,"ok":934,"errors":116"#), "{tools}");
    let stats = agg(&["-j1", "--stats", "data.duration_ms"], &[tree.path()], false).stdout;
    assert!(stats.contains(r#""approximate":["p50","p95","p99"]"#), "{stats}");
    // Grown: the kept values, then the new ones.
    use std::io::Write;
    std::fs::File::options()
        .append(true)
        .open(&caps[1].events)
        .unwrap()
        .write_all(timed_calls(50_000, 300).as_bytes())
        .unwrap();
    same_runs("ci-agg", questions, questions.len(), &[tree.path()], "grown");
    // Answered from the cache: a change its stat cannot see is not read.
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    for c in &caps {
        std::fs::File::options().append(true).open(&c.events).unwrap().set_modified(old).unwrap();
    }
    let warm = agg(&["-j1", "--tools"], &[tree.path()], true).stdout;
    let text = std::fs::read_to_string(&caps[0].events).unwrap();
    std::fs::write(&caps[0].events, text.replace("\"t0\"", "\"t9\"")).unwrap();
    std::fs::File::options().append(true).open(&caps[0].events).unwrap().set_modified(old).unwrap();
    assert_eq!(agg(&["-j1", "--tools"], &[tree.path()], true).stdout, warm);
    assert_ne!(agg(&["-j1", "--tools"], &[tree.path()], false).stdout, warm);
}

/// Two runs at once over different captures, then a run over both: each
/// answer is right, and the last one is answered as without the cache.
#[test]
fn runs_at_once_share_the_cache() {
    let trees: Vec<Tree> = (0..4).map(|_| Tree::new()).collect();
    for (i, t) in trees.iter().enumerate() {
        for s in 0..20 {
            t.amplifier("p", format!("s{s}")).raw(lines(s * 10 + i as u64, &[0, 1, 2, 3, 1])).write();
        }
    }
    let q = ["--tokens", "--by", "day"];
    let children: Vec<_> = trees
        .iter()
        .map(|t| {
            crate::util::ci_command("ci-agg")
                .args(q)
                .arg(t.path())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for (c, t) in children.into_iter().zip(&trees) {
        let out = c.wait_with_output().unwrap();
        let cold = agg(&q, &[t.path()], false);
        assert_eq!(String::from_utf8_lossy(&out.stdout), cold.stdout);
        assert_eq!(String::from_utf8_lossy(&out.stderr), cold.stderr);
    }
    let all: Vec<&Path> = trees.iter().map(Tree::path).collect();
    same_answers(&all, "after runs at once");
}

/// Time-window pruning (issue 33): a capture whose kept times are all before
/// `--since` is not read (a change its `stat` cannot show is not seen, as for
/// any current capture), and its untimed records are counted as reading it
/// counts them; one appended to after it was kept, and one whose times
/// straddle the bound, are read; every other answer is `--no-cache`'s.
#[test]
fn a_capture_before_the_window_is_not_read() {
    let line = |name: &str, day: u8| {
        format!("{{\"event\":\"{name}\",\"timestamp\":\"2026-03-0{day}T10:00:00Z\",\"data\":{{}}}}\n")
    };
    let tree = Tree::new();
    let before_text = line("a:x", 1) + &line("a:x", 1) + "{\"event\":\"a:untimed\",\"data\":{}}\n";
    let before = tree.amplifier("p", "before").raw(&before_text).write();
    let straddle = tree.amplifier("p", "straddle").raw(line("b:x", 1) + &line("b:y", 3)).write();
    let grows = tree.amplifier("p", "grows").raw(line("c:x", 1)).write();
    // Old enough that a stat proves them unchanged.
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    let set_time = |p: &Path| std::fs::File::options().append(true).open(p).unwrap().set_modified(old).unwrap();
    for c in [&before, &straddle, &grows] {
        set_time(&c.events);
    }
    let q = ["--by", "event", "--since", "2026-03-02"];
    let root = [tree.path()];
    let cold = agg(&q, &root, false);
    assert_eq!(cold.stdout, "{\"event\":\"b:y\",\"count\":1}\n");
    assert!(cold.stderr.contains("1 record without a usable timestamp"), "{}", cold.stderr);
    for pass in ["building", "warm"] {
        let warm = agg(&q, &root, true);
        assert_eq!((&warm.stdout, &warm.stderr, warm.code), (&cold.stdout, &cold.stderr, cold.code), "{pass}");
    }
    // Same size, same time, now in the window: pruned by its kept times, not read.
    std::fs::write(&before.events, before_text.replace("2026-03-01", "2026-03-03")).unwrap();
    set_time(&before.events);
    assert_eq!(agg(&q, &root, true).stdout, cold.stdout);
    assert_eq!(agg(&q, &root, false).stdout, "{\"event\":\"a:x\",\"count\":2}\n{\"event\":\"b:y\",\"count\":1}\n");
    // Appended to, with a line in the window: its stat shows it, it is read.
    use std::io::Write;
    let mut f = std::fs::File::options().append(true).open(&grows.events).unwrap();
    f.write_all(line("c:y", 2).as_bytes()).unwrap();
    let with_cache = agg(&q, &root, true);
    assert!(with_cache.stdout.contains("{\"event\":\"c:y\",\"count\":1}"), "{}", with_cache.stdout);
    // A run without the window reads the captures a windowed run kept only
    // the times of (the rewrite is seen then), and keeps their answers, whose
    // times the window prunes by.
    agg(&["--by", "event"], &root, true);
    let after = agg(&q, &root, false);
    let all = "{\"event\":\"a:x\",\"count\":2}\n{\"event\":\"b:y\",\"count\":1}\n{\"event\":\"c:y\",\"count\":1}\n";
    assert_eq!(after.stdout, all);
    assert_eq!(agg(&q, &root, true).stdout, after.stdout);
}
