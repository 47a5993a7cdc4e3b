//! The conformance suite: every registered format ([`kit::formats`]) runs
//! through the same checks over `fixtures/conformance/<format>/root`, with
//! the expected answers in `fixtures/conformance/<format>/expect/`. A format
//! without that directory fails. `CI_BLESS=1` rewrites the expected files
//! instead of comparing (read them before committing).

use crate::kit;
use crate::util::{ci, Run};
use std::path::PathBuf;

/// The ci-agg queries whose answers are checked in, with their file names.
const AGG: [(&str, &[&str]); 4] = [
    ("tokens-by-day", &["--tokens", "--by", "day"]),
    ("sessions", &["--sessions"]),
    ("tools", &["--tools"]),
    ("by-event", &["--by", "event"]),
];

/// A format's fixture directory, relative to the repository root.
fn dir(format: &str) -> String {
    format!("fixtures/conformance/{format}")
}

/// `format`'s capture root; fails when the format brought no fixtures.
fn root(format: &str) -> String {
    let root = format!("{}/root", dir(format));
    assert!(
        crate::util::root().join(&root).is_dir(),
        "format {format} has no fixture tree {root} (see fixtures/README.md)"
    );
    root
}

/// A successful run's stdout; fails on any stderr or a non-zero exit.
fn ok(run: Run, what: &str) -> String {
    assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{what}");
    run.stdout
}

/// The path of `format`'s expected file `name`.
fn expected_path(format: &str, name: &str) -> PathBuf {
    crate::util::root().join(dir(format)).join("expect").join(name)
}

/// `format`'s expected file `name`; fails when it is missing.
fn expected(format: &str, name: &str) -> String {
    let path = expected_path(format, name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e} (CI_BLESS=1 writes it)", path.display()))
}

/// Compares `actual` with the expected file `name` of `format`, or writes it
/// when `CI_BLESS` is set.
fn expect(format: &str, name: &str, actual: &str) {
    if std::env::var_os("CI_BLESS").is_some() {
        let path = expected_path(format, name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    assert_eq!(
        actual,
        expected(format, name),
        "{format}: {name} differs from {}",
        expected_path(format, name).display()
    );
}

#[test]
fn every_format_has_fixtures() {
    for f in kit::formats() {
        root(f);
    }
}

#[test]
fn find_records() {
    for f in kit::formats() {
        let out = ok(ci("ci-find").args(["--root", &root(f)]).run(), f);
        assert!(!out.is_empty(), "{f}: no sessions");
        expect(f, "find.ndjson", &checkout_free(&out));
    }
}

/// Session records with `mtime` (the time of the checkout) set to `null`,
/// in place, so the expected file holds on any clone.
fn checkout_free(records: &str) -> String {
    let mut out = String::new();
    for line in records.lines() {
        let mut r: serde_json::Value = serde_json::from_str(line).expect("a session record");
        if let Some(m) = r.get_mut("mtime") {
            *m = serde_json::Value::Null;
        }
        out.push_str(&format!("{r}\n"));
    }
    out
}

/// ci-agg's whole outcome (stdout, stderr, exit code) for `args` on `root`
/// with the cache in `home`.
fn agg(root: &str, home: &std::path::Path, args: &[&str]) -> (String, String, i32) {
    let run = ci("ci-agg").env("XDG_CACHE_HOME", home).args(args).arg(root).run();
    (run.stdout, run.stderr, run.code)
}

/// Each query's answer (`--no-cache -j1`) is the checked-in one;
/// `ci-find | ci-filter --event '*' | ci-agg` gives it too (issue 38); so do
/// `-j4` and an answer read from a filled cache (a cache home per format, the
/// first `-j4` run filling it, the `-j1` one after it reading it). One test,
/// so each format's tree is read as few times as these need.
#[test]
fn agg_answers_pipelines_threads_and_cache() {
    for f in kit::formats() {
        let r = root(f);
        let records = ok(ci("ci-find").args(["--root", &r]).run(), f);
        let events = ci("ci-filter").args(["--event", "*"]).stdin(records).run();
        let home = tempfile::tempdir().unwrap();
        let h = home.path();
        for (name, args) in AGG {
            let direct = agg(&r, h, &[args, &["--no-cache", "-j1"]].concat());
            expect(f, &format!("agg-{name}.ndjson"), &direct.0);
            expect(f, &format!("agg-{name}.stderr"), &format!("exit {}\n{}", direct.2, direct.1));
            let piped = ci("ci-agg").args(args).stdin(events.stdout.clone()).run().stdout;
            assert_eq!(piped, direct.0, "{f}: ci-find | ci-filter --event '*' | ci-agg {args:?}");
            assert_eq!(agg(&r, h, &[args, &["-j4"]].concat()), direct, "{f}: -j4, cache filled {args:?}");
            assert_eq!(agg(&r, h, &[args, &["-j1"]].concat()), direct, "{f}: cache read {args:?}");
        }
    }
}

#[test]
fn cut_records_read_back_whole() {
    for f in kit::formats() {
        let r = root(f);
        let full = ci("ci-cat").args(["--full", &r]).run();
        let cut = ci("ci-cat").args(["--max-bytes", "1k", &r]).run();
        assert_eq!((cut.code, &cut.stderr), (full.code, &full.stderr), "{f}: ci-cat --max-bytes 1k");
        let (full, cut) = (full.stdout, cut.stdout);
        let back = ok(ci("ci-cat").arg("--full").stdin(cut).run(), f);
        assert!(back == full, "{f}: ci-cat --max-bytes 1k | ci-cat --full differs from ci-cat --full");
    }
}

/// History copies, one rule: a session's totals never include what it copied
/// from another. `fixtures/codex-fork`: the fork `…000b` copies its parent's
/// two prompts and token counts, then adds one prompt and one response
/// (input 500, output 100) of its own, starting 2026-06-02T09:00:00Z.
const FORK: &str = "019e8000-0000-7000-8000-00000000000b";

/// Session `id`'s row of ci-agg `args` on the tree `path`.
fn row(path: &str, args: &[&str], id: &str) -> serde_json::Value {
    let rows = ci("ci-agg").args(args).arg(path).run().json();
    rows.into_iter().find(|r| r["session"] == id).unwrap_or_else(|| panic!("{path}: no row of {id}"))
}

/// A `--tokens --by session` row's (responses, input, output).
fn own_tokens(row: &serde_json::Value) -> (Option<u64>, Option<u64>, Option<u64>) {
    (row["responses"].as_u64(), row["input_tokens"].as_u64(), row["output_tokens"].as_u64())
}

#[test]
fn history_copies_not_counted_in_tokens() {
    let row = row("fixtures/codex-fork", &["--tokens", "--by", "session"], FORK);
    assert_eq!(own_tokens(&row), (Some(1), Some(500), Some(100)));
}

#[test]
fn history_copies_not_counted_in_sessions() {
    let row = row("fixtures/codex-fork", &["--sessions"], FORK);
    assert_eq!((&row["turns"], &row["messages"]), (&serde_json::json!(1), &serde_json::json!(1)));
    assert_eq!(row["started"], "2026-06-02T09:00:00Z");
    assert_eq!(row["tokens"], serde_json::json!({"input": 500, "output": 100, "cache_read": 0, "cache_write": 0}));
}

/// `fixtures/qwen-fork`: the fork `…002` copies its parent's four records
/// (`forkedFrom`), then adds one prompt and one response (prompt 2,000,
/// cached 1,500, candidates 10) from 2026-06-02T10:00:00Z.
const QWEN_FORK: (&str, &str) = ("fixtures/qwen-fork/.qwen", "aaaaaaaa-0000-4000-8000-000000000002");

#[test]
fn history_copies_of_a_qwen_fork_not_counted() {
    let (tree, fork) = QWEN_FORK;
    let tokens = row(tree, &["--tokens", "--by", "session"], fork);
    assert_eq!(
        (own_tokens(&tokens), tokens["cache_read_tokens"].as_u64()),
        ((Some(1), Some(500), Some(10)), Some(1500))
    );
    let row = row(tree, &["--sessions"], fork);
    assert_eq!((&row["turns"], &row["messages"]), (&serde_json::json!(1), &serde_json::json!(2)));
    assert_eq!(
        (&row["started"], &row["tool_calls"]),
        (&serde_json::json!("2026-06-02T10:00:00Z"), &serde_json::json!({}))
    );
    assert_eq!(row["tokens"], serde_json::json!({"input": 500, "output": 10, "cache_read": 1500, "cache_write": 0}));
}

/// `fixtures/claude-resume`: two Claude Code sessions, each resumed once
/// (fixtures/README.md). An original's own part: 1 prompt, 2 responses
/// (input 1,000 + 1,100, output 200 + 30), a Bash call; its resume copies
/// those lines, then adds 1 prompt and 2 responses (input 500 + 600, output
/// 100 + 40) and a Read call, from 2026-05-02T09:00:00Z. (original, resume):
/// the first pair's resume sorts before its original, the second's after.
const RESUMES: [(&str, &str); 2] = [
    ("e0000000-0000-4000-8000-00000000000e", "b0000000-0000-4000-8000-00000000000b"),
    ("a0000000-0000-4000-8000-00000000000a", "f0000000-0000-4000-8000-00000000000f"),
];

/// Each session of `pair` has its own tokens and nothing else.
fn resume_tokens_are_their_own(pair: (&str, &str)) {
    let (original, resume) = pair;
    let by_session = ["--tokens", "--by", "session"];
    let own = own_tokens(&row("fixtures/claude-resume", &by_session, original));
    assert_eq!(own, (Some(2), Some(2100), Some(230)), "original {original}");
    let own = own_tokens(&row("fixtures/claude-resume", &by_session, resume));
    assert_eq!(own, (Some(2), Some(1100), Some(140)), "resume {resume}");
}

#[test]
fn history_copies_of_a_claude_resume_sorting_after_not_counted_in_tokens() {
    resume_tokens_are_their_own(RESUMES[1]);
}

#[test]
fn history_copies_of_a_claude_resume_sorting_first_not_counted_in_tokens() {
    resume_tokens_are_their_own(RESUMES[0]);
}

#[test]
fn history_copies_of_a_claude_resume_not_counted_in_sessions() {
    use serde_json::json;
    for (_, resume) in RESUMES {
        let row = row("fixtures/claude-resume", &["--sessions"], resume);
        let counts = (&row["started"], &row["turns"], &row["messages"], &row["tool_calls"]);
        assert_eq!(counts, (&json!("2026-05-02T09:00:00Z"), &json!(1), &json!(3), &json!({"Read": 1})), "{resume}");
        assert_eq!(row["tokens"], json!({"input": 1100, "output": 140, "cache_read": 0, "cache_write": 0}), "{resume}");
    }
}

/// `--tools --by session`: each call counts in the session that made it, not
/// in the resume holding its copy (each original's Bash, each resume's Read).
#[test]
fn history_copies_of_a_claude_resume_not_counted_in_tools() {
    let rows = ci("ci-agg").args(["--tools", "--by", "session"]).arg("fixtures/claude-resume").run().json();
    let mut calls: Vec<(String, String, u64)> = rows
        .iter()
        .map(|r| {
            (
                r["session"].as_str().unwrap().to_owned(),
                r["tool"].as_str().unwrap().to_owned(),
                r["calls"].as_u64().unwrap(),
            )
        })
        .collect();
    calls.sort();
    let mut want: Vec<(String, String, u64)> = RESUMES
        .iter()
        .flat_map(|(original, resume)| {
            [(original.to_string(), "Bash".into(), 1), (resume.to_string(), "Read".into(), 1)]
        })
        .collect();
    want.sort();
    assert_eq!(calls, want);
}

/// `--sessions`' files read: a copied call's file is the owner's only. The
/// tree is `fixtures/claude-resume` with each original's Bash call a Read of
/// `b.md` (copied into its resume), the resumes reading `a.md` themselves.
#[test]
fn history_copies_of_a_claude_resume_files_not_listed_in_sessions() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("projects/-home-dev-notes");
    std::fs::create_dir_all(&dir).unwrap();
    let from = crate::util::root().join("fixtures/claude-resume/projects/-home-dev-notes");
    for f in std::fs::read_dir(&from).unwrap() {
        let f = f.unwrap().path();
        let text = std::fs::read_to_string(&f).unwrap();
        let bash = r#""name":"Bash","input":{"command":"ls notes"}"#;
        assert_eq!(text.matches(bash).count(), 1, "{}", f.display());
        let read = text.replace(bash, r#""name":"Read","input":{"file_path":"/home/dev/notes/b.md"}"#);
        std::fs::write(dir.join(f.file_name().unwrap()), read).unwrap();
    }
    let root = tmp.path().to_str().unwrap();
    for (original, resume) in RESUMES {
        for (id, file) in [(original, "b.md"), (resume, "a.md")] {
            let row = row(root, &["--sessions", "--no-cache"], id);
            assert_eq!(row["files_read"], serde_json::json!([format!("/home/dev/notes/{file}")]), "{id}");
            assert_eq!(row["tool_calls"], serde_json::json!({"Read": 1}), "{id}");
        }
    }
}

/// The resumes' answers do not depend on threads, the cache or shards: `-j4`
/// filling a cache and `-j1` reading it give the `--no-cache -j1` answer, and
/// so does `--partial` (`--tokens`, `--tools`) over one file per shard, merged (each
/// original and its resume in different shards, both orders).
#[test]
fn history_copies_of_a_claude_resume_settled_across_threads_cache_and_shards() {
    let r = "fixtures/claude-resume";
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let tokens: &[&str] = &["--tokens", "--by", "session"];
    for args in [tokens, &["--sessions"], &["--tools", "--by", "session"]] {
        let direct = agg(r, h, &[args, &["--no-cache", "-j1"]].concat());
        assert_eq!((direct.1.as_str(), direct.2), ("", 0), "{args:?}");
        assert_eq!(agg(r, h, &[args, &["-j4"]].concat()), direct, "-j4, cache filled {args:?}");
        assert_eq!(agg(r, h, &[args, &["-j1"]].concat()), direct, "cache read {args:?}");
    }
    let files = ok(ci("ci-find").args(["--root", r, "--paths"]).run(), r);
    for args in [tokens, &["--tools", "--by", "session"]] {
        let direct = agg(r, h, &[args, &["--no-cache"]].concat()).0;
        for order in [false, true] {
            let mut files: Vec<&str> = files.lines().collect();
            assert_eq!(files.len(), 4);
            if order {
                files.reverse();
            }
            let parts: String = files
                .iter()
                .map(|f| ok(ci("ci-agg").args(args).args(["--partial", "--no-cache", f]).run(), f))
                .collect();
            let merged = ok(ci("ci-agg").arg("--merge").stdin(parts).run(), "--merge");
            assert_eq!(merged, direct, "{args:?} --partial per file, reversed: {order}");
        }
    }
}

/// The phrase planted in a format's tree and where it stands
/// (`fixtures/conformance/<format>/phrase.json`): it occurs in one event only.
struct Planted {
    phrase: String,
    session: String,
    /// The file holding it, as ci-* names it (under `root`).
    file: String,
    /// The line its record starts on.
    line: u64,
}

/// `format`'s planted phrase; fails when the format has none.
fn planted(format: &str) -> Planted {
    let path = crate::util::root().join(dir(format)).join("phrase.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (every format plants a phrase, see fixtures/README.md)", path.display()));
    let v: serde_json::Value = serde_json::from_str(&text).expect("phrase.json");
    let s = |k: &str| v[k].as_str().unwrap_or_else(|| panic!("{}: no string {k}", path.display())).to_owned();
    Planted {
        phrase: s("phrase"),
        session: s("session"),
        file: format!("{}/{}", root(format), s("file")),
        line: v["line"].as_u64().expect("line"),
    }
}

/// The one match record of `p`'s phrase in `format`'s tree, with ci-grep's stdout.
fn planted_match(format: &str, p: &Planted) -> (serde_json::Value, String) {
    let out = ok(ci("ci-grep").args(["-F", &p.phrase, &root(format)]).run(), format);
    let matches: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).expect("a match")).collect();
    assert_eq!(matches.len(), 1, "{format}: the planted phrase {:?} matches once: {out}", p.phrase);
    (matches.into_iter().next().unwrap(), out)
}

/// A match's record site: its byte offset and length in its file, or for a
/// database row (`ci.cut.table`) its table and rowid.
enum Site {
    Bytes(usize, usize),
    Row(String, i64),
}

fn site(m: &serde_json::Value) -> Site {
    let cut = &m["ci"]["cut"];
    let n = |k: &str| cut[k].as_u64().unwrap_or_else(|| panic!("no ci.cut.{k} in {m}")) as usize;
    match cut["table"].as_str() {
        Some(table) => Site::Row(table.to_owned(), cut["rowid"].as_i64().expect("ci.cut.rowid")),
        None => Site::Bytes(n("offset"), n("bytes")),
    }
}

/// The text columns of row `rowid` of `table` in the database `db` that hold `phrase`, by name.
fn row_texts(db: &std::path::Path, table: &str, rowid: i64, phrase: &str) -> Vec<(String, String)> {
    let conn = rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let mut stmt = conn.prepare(&format!("SELECT * FROM {table} WHERE rowid = ?1")).unwrap();
    let names: Vec<String> = stmt.column_names().iter().map(|c| c.to_string()).collect();
    let mut rows = stmt.query([rowid]).unwrap();
    let row = rows.next().unwrap().unwrap_or_else(|| panic!("{}: no row {rowid} in {table}", db.display()));
    let text = |i: usize| row.get::<_, String>(i).ok();
    names
        .iter()
        .enumerate()
        .filter_map(|(i, n)| Some((n.clone(), text(i)?)))
        .filter(|(_, t)| t.contains(phrase))
        .collect()
}

/// ci-grep finds the planted phrase with its provenance: the session, file
/// and line `phrase.json` names, and a byte site that starts on that line
/// and holds the phrase.
#[test]
fn planted_phrase_found_at_its_site() {
    for f in kit::formats() {
        let p = planted(f);
        let (m, out) = planted_match(f, &p);
        expect(f, "grep.ndjson", &out);
        let at = (m["session"].as_str(), m["ci"]["path"].as_str(), m["ci"]["line"].as_u64());
        assert_eq!(at, (Some(&*p.session), Some(&*p.file), Some(p.line)), "{f}: provenance of {m}");
        let file = crate::util::root().join(&p.file);
        let (offset, bytes) = match site(&m) {
            Site::Bytes(offset, bytes) => (offset, bytes),
            Site::Row(table, rowid) => {
                let held = row_texts(&file, &table, rowid, &p.phrase);
                assert!(!held.is_empty(), "{f}: row {rowid} of {table} does not hold the phrase");
                continue;
            }
        };
        let text = std::fs::read(&file).unwrap();
        let record = String::from_utf8_lossy(&text[offset..offset + bytes]);
        assert!(record.contains(&p.phrase), "{f}: the site {offset}+{bytes} holds {record}");
        let line = 1 + text[..offset].iter().filter(|&&b| b == b'\n').count() as u64;
        assert_eq!(line, p.line, "{f}: the site starts on line {line}");
    }
}

/// `from` (a directory, links followed) copied to `to`.
pub fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let dest = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_tree(&path, &dest);
        } else {
            std::fs::copy(&path, &dest).unwrap();
        }
    }
}

/// Rows of NDJSON `out` that are not session `id`'s.
fn others(out: &str, id: &str) -> Vec<serde_json::Value> {
    let rows = out.lines().map(|l| serde_json::from_str::<serde_json::Value>(l).expect("a row"));
    rows.filter(|r| r["session"] != id).collect()
}

/// Event records of NDJSON `out` whose provenance is not session `id`'s.
fn others_events<'a>(out: &'a str, id: &str) -> Vec<&'a str> {
    let session = |l: &str| serde_json::from_str::<serde_json::Value>(l).expect("an event")["ci"]["session"].clone();
    out.lines().filter(|l| session(l) != id).collect()
}

/// Damaged records are reported at their site: in a copy of the tree (at
/// the same relative path, so every answer names the same files), the record
/// holding the planted phrase is cut in half. ci-agg names its file and line
/// (its whole stderr and exit status are checked in: a bad line is skipped,
/// a JSON array file cut inside is an error), `--strict` makes it exit 2, it
/// still reports what it reported before, and every other session's record,
/// events (ci-cat, which names the site too) and answer are unchanged.
#[test]
fn damaged_record_reported_at_its_site() {
    for f in kit::formats() {
        let (r, p) = (root(f), planted(f));
        let (m, _) = planted_match(f, &p);
        let tmp = tempfile::tempdir().unwrap();
        copy_tree(&crate::util::root().join(&r), &tmp.path().join(&r));
        let path = tmp.path().join(&p.file);
        match site(&m) {
            Site::Bytes(offset, bytes) => {
                let mut text = std::fs::read(&path).unwrap();
                text.drain(offset + bytes / 2..offset + bytes);
                std::fs::write(&path, text).unwrap();
            }
            // A row: the columns holding the phrase cut in half.
            Site::Row(table, rowid) => {
                let conn = rusqlite::Connection::open(&path).unwrap();
                for (column, text) in row_texts(&path, &table, rowid, &p.phrase) {
                    let half: String = text.chars().take(text.chars().count() / 2).collect();
                    let sql = format!("UPDATE {table} SET {column} = ?1 WHERE rowid = ?2");
                    conn.execute(&sql, rusqlite::params![half, rowid]).unwrap();
                }
            }
        }
        let run = |bin: &str, args: &[&str]| ci(bin).current_dir(tmp.path()).args(args).arg(&r).run();

        let damaged = run("ci-agg", &["--sessions"]);
        // The intact tree's answers (those checked in, which other tests
        // compare), run here so a first blessing needs no order of tests.
        let intact_sessions = ci("ci-agg").args(["--sessions", "--no-cache", "-j1", &r]).run();
        let before = intact_sessions.stderr;
        let at = format!("{}:{}: ", p.file, p.line);
        assert!(damaged.stderr.lines().any(|l| l.starts_with(&at)), "{f}: no report at {at}: {}", damaged.stderr);
        expect(f, "damaged-sessions.stderr", &format!("exit {}\n{}", damaged.code, damaged.stderr));
        for report in before.lines().filter(|l| l.starts_with(&r)) {
            assert!(damaged.stderr.contains(report), "{f}: {report} no longer reported: {}", damaged.stderr);
        }
        let sessions = intact_sessions.stdout;
        assert_eq!(others(&damaged.stdout, &p.session), others(&sessions, &p.session), "{f}: other sessions");
        let events = run("ci-cat", &["--full"]);
        assert!(events.stderr.lines().any(|l| l.starts_with(&at)), "{f}: ci-cat: no report at {at}: {}", events.stderr);
        let intact = ci("ci-cat").args(["--full", &r]).run().stdout;
        assert!(others_events(&events.stdout, &p.session) == others_events(&intact, &p.session), "{f}: other events");
        let found = checkout_free(&run("ci-find", &["--root"]).stdout);
        let want = checkout_free(&ci("ci-find").args(["--root", &r]).run().stdout);
        assert_eq!(others(&found, &p.session), others(&want, &p.session), "{f}: other ci-find records");

        let strict = run("ci-agg", &["--sessions", "--strict"]);
        assert_eq!(strict.code, 2, "{f}: --strict: {}", strict.stderr);
        assert!(
            strict.stderr.lines().any(|l| l.starts_with(&at)),
            "{f}: --strict: no report at {at}: {}",
            strict.stderr
        );
    }
}
