//! The capture cache's size bound (issue 33): however many questions are
//! asked, the cache directory stays within its share of the captures'
//! bytes (`CI_CACHE_MAX_BYTES=5%`), the least recently used questions'
//! files going first, and every answer stays what `--no-cache` prints.

use std::path::Path;

use crate::cache::lines;
use crate::cache_dir::own_cache;
use crate::kit::Tree;
use crate::util::{ci, Run};

/// Distinct questions, more than the bound holds files for.
const QUESTIONS: &[&[&str]] = &[
    &["--by", "event"],
    &["--by", "workspace"],
    &["--by", "day"],
    &["--by", "session"],
    &["--by", "event,workspace"],
    &["--tokens"],
    &["--tokens", "--by", "day"],
    &["--tools"],
    // A window shares its question's file (the spans prune for both):
    // these keys are asked with a window only.
    &["--by", "month", "--since", "2026-03-02"],
    &["--by", "hour", "--until", "2026-03-02"],
    &["--by", "workspace", "--sum", "data.n"],
    &["--by", "event", "--p95", "data.n"],
];

fn agg(home: &Path, q: &[&str], root: &Path, cache: bool) -> Run {
    let mut c = ci("ci-agg").env("XDG_CACHE_HOME", home).env("CI_CACHE_MAX_BYTES", "5%").arg("-j1").args(q);
    if !cache {
        c = c.arg("--no-cache");
    }
    let r = c.arg(root).run();
    assert_eq!((r.code, r.stderr.as_str()), (0, ""), "{q:?}: {r:?}");
    r
}

/// The cache directory's files and their total size.
fn cache_files(dir: &Path) -> (Vec<String>, u64) {
    let mut names = vec![];
    let mut total = 0;
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        total += e.metadata().unwrap().len();
        names.push(e.file_name().into_string().unwrap());
    }
    names.sort();
    (names, total)
}

#[test]
fn the_cache_stays_within_its_share_of_the_captures_after_many_questions() {
    let tree = Tree::new();
    let mut events = 0;
    for s in 0..20u64 {
        // One response in twenty lines: a `--tokens` state holds each response.
        let kinds: Vec<u8> = (0..800)
            .map(|i| [0, 1, 1, 4, 6, 7, 7, 1, 1, 7, 6, 1, 1, 4, 6, 7, 7, 1, 1, 7][(i + s as usize) % 20])
            .collect();
        let cap = tree.amplifier(&format!("p{}", s % 3), format!("s{s}")).raw(lines(s * 1000, &kinds)).write();
        events += cap.events.metadata().unwrap().len();
    }
    let bound = events / 20;
    let (home, dir) = own_cache();
    let mut agg_files = vec![];
    for (i, q) in QUESTIONS.iter().enumerate() {
        let cold = agg(home.path(), q, tree.path(), false).stdout;
        assert_eq!(agg(home.path(), q, tree.path(), true).stdout, cold, "{q:?}, building");
        assert_eq!(agg(home.path(), q, tree.path(), true).stdout, cold, "{q:?}, warm");
        let (names, total) = cache_files(&dir);
        assert!(total <= bound, "after {} questions: {total} bytes, over 5% of {events}: {names:?}", i + 1);
        agg_files.push(names.into_iter().filter(|n| n.starts_with("agg-")).collect::<Vec<_>>());
    }
    // Files were evicted (else the bound was not tested), the latest
    // question's kept, the first question's gone.
    let last = agg_files.last().unwrap();
    assert!(last.len() < QUESTIONS.len() / 2, "{agg_files:?}");
    let newest = agg_files[QUESTIONS.len() - 1].iter().find(|n| !agg_files[QUESTIONS.len() - 2].contains(n));
    assert!(newest.is_some_and(|n| last.contains(n)), "{agg_files:?}");
    assert!(!last.contains(&agg_files[0][0]), "{agg_files:?}");
    // Asked again, an evicted question is read and answered as before.
    let cold = agg(home.path(), QUESTIONS[0], tree.path(), false).stdout;
    assert_eq!(agg(home.path(), QUESTIONS[0], tree.path(), true).stdout, cold);
    assert!(cache_files(&dir).1 <= bound);
    // `--cache-info` states the rule, the captures' bytes and the bound.
    let info = ci("ci-find")
        .env("XDG_CACHE_HOME", home.path())
        .env("CI_CACHE_MAX_BYTES", "5%")
        .arg("--cache-info")
        .run()
        .json();
    assert_eq!(info[0]["bound"], "5% of the captures' bytes");
    assert_eq!(info[0]["captures_bytes"].as_u64(), Some(events));
    assert_eq!(info[0]["max_bytes"].as_u64(), Some(bound));
}
