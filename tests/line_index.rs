//! ci-filter's line index (`src/cache/line_index.rs`): a capture as indexed
//! is read only at the lines whose event name can match, a grown one at
//! those lines and from its old end on; the index is listed, can be turned
//! off, and a capture that read with a report is never kept. (That answers
//! with it equal answers without it, under every change to the captures,
//! is the property test in `cache.rs`.)

use std::path::Path;

use crate::cache::lines;
use crate::cache_dir::{in_parts, own_cache};
use crate::kit::Tree;
use crate::util::{ci, Run};

fn filter_in(home: &Path, args: &[&str], path: &Path) -> Run {
    ci("ci-filter").env("XDG_CACHE_HOME", home).args(args).arg(path).run()
}

/// Sets a file's modification time to `at`.
fn set_time(path: &Path, at: std::time::SystemTime) {
    std::fs::File::options().append(true).open(path).unwrap().set_modified(at).unwrap();
}

/// The lines of a capture's text whose event is `name`, as ci-filter prints
/// them without the index.
fn expected(home: &Path, q: &[&str], path: &Path) -> Run {
    ci("ci-filter").env("XDG_CACHE_HOME", home).arg("--no-cache").args(q).arg(path).run()
}

/// A line that no question picks is not read again: damage put there in
/// place, behind the index's back (same size, same modification time), is
/// not reported until `--no-cache` or a question that picks it.
#[test]
fn only_the_picked_lines_are_read() {
    let tree = Tree::new();
    let text = lines(0, &[1, 4, 1, 1, 4, 6]);
    let cap = tree.amplifier("p", "s").raw(&text).write();
    // An hour back: old enough that a `stat` showing it unchanged is proof.
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    set_time(&cap.events, old);
    let (home, _dir) = own_cache();
    let q = ["--event", "tool:error"];
    let first = filter_in(home.path(), &q, &cap.events);
    assert_eq!((first.stdout.lines().count(), first.stderr.as_str(), first.code), (2, "", 0), "{first:?}");
    assert_eq!(first.stdout, expected(home.path(), &q, &cap.events).stdout);
    // Line 3 (a tool:pre) damaged in place, its length kept.
    let third = text.lines().nth(2).unwrap();
    let damaged = format!("{:<width$}", "not json", width = third.len());
    std::fs::write(&cap.events, text.replacen(third, &damaged, 1)).unwrap();
    set_time(&cap.events, old);
    let warm = filter_in(home.path(), &q, &cap.events);
    assert_eq!((warm.stdout.as_str(), warm.stderr.as_str(), warm.code), (first.stdout.as_str(), "", 0));
    let cold = expected(home.path(), &q, &cap.events);
    assert_eq!(cold.stdout, first.stdout);
    assert!(cold.stderr.contains(":3: "), "{cold:?}");
    // A question that picks tool:pre lines reads line 3 and reports it as
    // a whole read does.
    let pre = ["--event", "tool:pre"];
    let (warm, cold) = (filter_in(home.path(), &pre, &cap.events), expected(home.path(), &pre, &cap.events));
    assert_eq!((warm.stdout, warm.stderr, warm.code), (cold.stdout, cold.stderr, cold.code));
}

/// A capture that grew is read at its picked lines and from its old end
/// on: a line changed in place past its first 4 KiB and before its last
/// indexed line is not read; the new lines are, and are indexed.
#[test]
fn a_grown_capture_is_read_from_its_old_end() {
    let tree = Tree::new();
    let text = lines(0, &[1; 100]) + &lines(100, &[4]) + &lines(101, &[1; 100]);
    let cap = tree.amplifier("p", "big").raw(&text).write();
    assert!(text.len() > 3 * 4096);
    let (home, _dir) = own_cache();
    let q = ["--event", "tool:error"];
    let first = filter_in(home.path(), &q, &cap.events);
    assert_eq!(first.stdout.lines().count(), 1, "{first:?}");
    // A tool:pre line past the first 4 KiB made a tool:error in place.
    let at = text[6000..].find("tool:pre").unwrap() + 6000;
    let mut changed = text.clone().into_bytes();
    changed[at..at + 8].copy_from_slice(b"tool:err");
    std::fs::write(&cap.events, &changed).unwrap();
    let renamed = |r: &Run| r.stdout.lines().filter(|l| l.contains("tool:err\"")).count();
    assert_eq!(renamed(&expected(home.path(), &["--event", "tool:err"], &cap.events)), 1);
    use std::io::Write;
    std::fs::File::options().append(true).open(&cap.events).unwrap().write_all(lines(300, &[4, 1]).as_bytes()).unwrap();
    let grown = filter_in(home.path(), &["--event", "tool:err*"], &cap.events);
    assert_eq!(grown.stdout.lines().count(), 2, "the kept line and the new one, not the changed one: {grown:?}");
    assert_eq!(renamed(&grown), 0);
    assert_eq!(grown.stderr, "");
    // The new lines are indexed: the capture is current now, and the same
    // question reads the same lines (a changed time would read it whole).
    let again = filter_in(home.path(), &["--event", "tool:err*"], &cap.events);
    assert_eq!((again.stdout, again.stderr), (grown.stdout, grown.stderr));
    let cold = expected(home.path(), &["--event", "tool:err*"], &cap.events);
    assert_eq!(cold.stdout.lines().count(), 3);
}

/// `ci-find --cache-info` in `home`, less discovery's kept peeks (a
/// `peek-` file, which ci-filter writes beside its line index).
fn cache_info(home: &Path) -> Vec<serde_json::Value> {
    let info = ci("ci-find").env("XDG_CACHE_HOME", home).arg("--cache-info").run().json();
    info.into_iter().filter(|r| r["question"]["tool"] != "discovery").collect()
}

/// A capture whose read printed a report is not indexed (its next run reads
/// it whole and reports again); the index is listed by `ci-find
/// --cache-info`, and `--no-cache` and `CI_CACHE=0` neither read nor write it.
#[test]
fn the_index_is_listed_kept_only_when_silent_and_can_be_off() {
    let tree = Tree::new();
    tree.amplifier("p", "good").raw(lines(0, &[4, 1])).write();
    tree.amplifier("p", "bad").raw(lines(10, &[4]) + "not json\n").write();
    let (home, dir) = own_cache();
    let q = ["--event", "tool:error"];
    ci("ci-filter").env("XDG_CACHE_HOME", home.path()).arg("--no-cache").args(q).arg(tree.path()).run();
    ci("ci-filter").env("XDG_CACHE_HOME", home.path()).env("CI_CACHE", "0").args(q).arg(tree.path()).run();
    assert!(!dir.exists(), "no cache directory made");
    let cold = expected(home.path(), &q, tree.path());
    assert!(cold.stderr.contains("bad/context-intelligence/events.jsonl:2: "), "{cold:?}");
    for pass in ["building", "used"] {
        let run = filter_in(home.path(), &q, tree.path());
        assert_eq!((&run.stdout, &run.stderr, run.code), (&cold.stdout, &cold.stderr, cold.code), "{pass}");
    }
    let info = cache_info(home.path());
    assert_eq!(info.len(), 2, "{info:?}");
    assert_eq!(info[1]["question"], serde_json::json!({"tool": "ci-filter", "index": "event names", "schema": 2}));
    assert_eq!(info[1]["entries"], 1, "the capture with a bad line is not kept");
    assert!(info[1]["file"].as_str().unwrap().starts_with("lines-"));
}

/// A large capture read in parts by several threads (`CI_CHUNK_BYTES`) is
/// indexed from its parts' lines; once indexed it is read whole, at its
/// picked lines only, with the answer a read in parts without the index
/// gives.
#[test]
fn a_capture_read_in_parts_is_indexed_and_then_picked() {
    let tree = Tree::new();
    let kinds: Vec<u8> = (0..700u32).map(|i| [1, 4, 2, 1, 6, 3, 1][i as usize % 7]).collect();
    let text = lines(0, &kinds);
    let cap = tree.amplifier("p", "big").raw(&text).write();
    assert!(text.len() > 8 * 4096);
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    set_time(&cap.events, old);
    let (home, _dir) = own_cache();
    let run = |q: &[&str], cache: bool| in_parts("ci-filter", home.path(), q, &cap.events, cache);
    let q = ["--errors"];
    let cold = run(&q, false);
    assert_eq!((cold.0.lines().count(), cold.1.as_str(), cold.2), (200, "", 0));
    assert_eq!(run(&q, true), cold, "building, in parts");
    let info = cache_info(home.path());
    assert_eq!(info[1]["entries"], 1, "{info:?}");
    assert_eq!(run(&q, true), cold, "picked");
    assert_eq!(run(&["--event", "tool:pre"], true), run(&["--event", "tool:pre"], false));
    // A tool:pre line (line 4) damaged in place behind the index's back:
    // an --errors run does not read it.
    let fourth = text.lines().nth(3).unwrap();
    assert!(fourth.contains("tool:pre"));
    std::fs::write(&cap.events, text.replacen(fourth, &format!("{:<w$}", "{", w = fourth.len()), 1)).unwrap();
    set_time(&cap.events, old);
    assert_eq!(run(&q, true), cold, "only the picked lines are read");
    let (_, stderr, _) = run(&q, false);
    assert!(stderr.contains(":4: "), "{stderr}");
}
