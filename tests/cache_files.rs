//! The capture cache by files' stats: a Claude Code session with subagent
//! transcripts is kept as one entry, current while its first file is as
//! read and every other file's `stat` is as it was (and old enough to prove
//! it), any change to one of them reading the session again; and what
//! ci-find reads of each transcript is kept the same way.

use std::path::Path;

use crate::cache_dir::own_cache;
use crate::kit::Tree;
use crate::util::ci;

const SID: &str = "0e8f1c2a-1111-4222-8333-444455556666";

/// An assistant line with usage (`output` output tokens).
fn response(msg: &str, output: u32, sidechain: bool) -> String {
    format!(
        r#"{{"type":"assistant","sessionId":"{SID}","isSidechain":{sidechain},"uuid":"u-{msg}","timestamp":"2026-03-01T10:00:00Z","requestId":"r-{msg}","message":{{"id":"{msg}","model":"claude-sonnet-4-5","role":"assistant","content":[{{"type":"text","text":"hi"}}],"usage":{{"input_tokens":10,"output_tokens":{output}}}}}}}"#
    ) + "\n"
}

fn set_time(path: &Path, at: std::time::SystemTime) {
    std::fs::File::options().append(true).open(path).unwrap().set_modified(at).unwrap();
}

#[test]
fn a_session_with_subagent_transcripts_is_kept_whole() {
    let tree = Tree::new();
    let main = tree.transcript("-w-proj", SID, response("msg_1", 5, false));
    let sub = tree.subagent("-w-proj", SID, "a1", response("msg_2", 7, true));
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    set_time(&main, old);
    set_time(&sub, old);
    let (home, _dir) = own_cache();
    let run = |cache: bool| {
        let mut c = ci("ci-agg").env("XDG_CACHE_HOME", home.path()).args(["--tokens", "--by", "day"]);
        if !cache {
            c = c.arg("--no-cache");
        }
        let r = c.arg(tree.path()).run();
        (r.stdout, r.stderr, r.code)
    };
    let cold = run(false);
    assert_eq!(cold.2, 0, "{cold:?}");
    assert!(cold.0.contains(r#""output_tokens":12"#), "{cold:?}");
    assert_eq!(run(true), cold, "building");
    assert_eq!(run(true), cold, "answered");
    let info = ci("ci-find").env("XDG_CACHE_HOME", home.path()).arg("--cache-info").run().json();
    assert_eq!(info[1]["entries"], 1, "{info:?}");
    // The subagent transcript changed in place behind the cache's back (same
    // size, same time): the kept answer stands, --no-cache sees the change.
    std::fs::write(&sub, response("msg_2", 8, true)).unwrap();
    set_time(&sub, old);
    assert_eq!(run(true), cold, "a stat that shows no change is trusted");
    let changed = run(false);
    assert!(changed.0.contains(r#""output_tokens":13"#), "{changed:?}");
    // It grew: the session is read again.
    use std::io::Write;
    std::fs::File::options()
        .append(true)
        .open(&sub)
        .unwrap()
        .write_all(response("msg_3", 100, true).as_bytes())
        .unwrap();
    let grown = run(false);
    assert!(grown.0.contains(r#""output_tokens":113"#), "{grown:?}");
    assert_eq!(run(true), grown, "grown, read again");
    assert_eq!(run(true), grown, "grown, answered");
    // A subagent transcript modified just before it was read proves
    // nothing by its stat: changed again in place with the same time, it
    // is read again (git's racily-clean rule).
    std::fs::write(&sub, response("msg_2", 9, true)).unwrap();
    let just_now = std::fs::metadata(&sub).unwrap().modified().unwrap();
    let fresh = run(false);
    assert!(fresh.0.contains(r#""output_tokens":14"#), "{fresh:?}");
    assert_eq!(run(true), fresh);
    std::fs::write(&sub, response("msg_2", 6, true)).unwrap();
    set_time(&sub, just_now);
    let racy = run(false);
    assert!(racy.0.contains(r#""output_tokens":11"#), "{racy:?}");
    assert_eq!(run(true), racy);
}

/// What ci-find reads of a transcript's head and tail (its `cwd`, model,
/// first and last times) is kept while the file's stat is as it was: a
/// change in place behind the cache's back keeps the old record until
/// `--no-cache`, and any change to the stat reads the file again.
#[test]
fn ci_find_keeps_what_it_read_of_each_transcript() {
    let tree = Tree::new();
    let line = |cwd: &str| {
        format!(
            r#"{{"type":"user","sessionId":"{SID}","uuid":"u1","cwd":"{cwd}","timestamp":"2026-03-01T10:00:00Z","message":{{"role":"user","content":"hi"}}}}"#
        ) + "\n"
            + &response("msg_1", 5, false)
    };
    let main = tree.transcript("-w-proj", SID, line("/w/proj"));
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    set_time(&main, old);
    let (home, _dir) = own_cache();
    let find = |args: &[&str]| {
        let r = ci("ci-find").env("XDG_CACHE_HOME", home.path()).arg("--root").arg(tree.path()).args(args).run();
        assert_eq!((r.stderr.as_str(), r.code), ("", 0), "{r:?}");
        r.json()[0]["working_dir"].clone()
    };
    assert_eq!(find(&["--no-cache"]), "/w/proj");
    assert_eq!(find(&[]), "/w/proj", "read and kept");
    std::fs::write(&main, line("/w/prox")).unwrap();
    set_time(&main, old);
    assert_eq!(find(&[]), "/w/proj", "kept: the stat is as it was");
    assert_eq!(find(&["--no-cache"]), "/w/prox");
    set_time(&main, old + std::time::Duration::from_secs(1));
    assert_eq!(find(&[]), "/w/prox", "touched: read again");
    let info = ci("ci-find").env("XDG_CACHE_HOME", home.path()).arg("--cache-info").run().json();
    assert_eq!(info[1]["question"], serde_json::json!({"tool": "discovery", "peek": "session records", "schema": 1}));
    assert_eq!(info[1]["entries"], 1);
}

/// `ci-find --min-events` counts a session's subagent transcripts too, and
/// its kept count is current only while their stats are as they were: a
/// subagent transcript that grows (or appears) is counted again (the main
/// file's stat alone kept the old count).
#[test]
fn ci_find_counts_again_when_a_subagent_transcript_changes() {
    let tree = Tree::new();
    let main = tree.transcript("-w-proj", SID, response("msg_1", 5, false) + &response("msg_2", 5, false));
    let sub = tree.subagent("-w-proj", SID, "a1", response("msg_3", 7, true));
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    set_time(&main, old);
    set_time(&sub, old);
    let (home, _dir) = own_cache();
    let listed = |min: &str, cache: bool| {
        let mut c = ci("ci-find").env("XDG_CACHE_HOME", home.path()).args(["--min-events", min, "--root"]);
        c = c.arg(tree.path());
        if !cache {
            c = c.arg("--no-cache");
        }
        let run = c.run();
        assert_eq!(run.stderr, "", "{run:?}");
        run.lines().len()
    };
    assert_eq!((listed("3", true), listed("3", true), listed("4", true)), (1, 1, 0), "2 + 1 lines, kept");
    use std::io::Write;
    let grow = |path: &Path, msg: &str| {
        std::fs::File::options().append(true).open(path).unwrap().write_all(response(msg, 1, true).as_bytes()).unwrap();
        set_time(path, old + std::time::Duration::from_secs(60));
    };
    grow(&sub, "msg_4");
    assert_eq!((listed("4", false), listed("4", true), listed("4", true)), (1, 1, 1), "the subagent grew");
    let a2 = tree.subagent("-w-proj", SID, "a2", response("msg_5", 1, true));
    set_time(&a2, old);
    assert_eq!((listed("5", false), listed("5", true)), (1, 1), "a subagent appeared");
}
