//! Copies of one response that tie on their total (issue 38, D4): the
//! winner is the first by absolute path, however the paths were typed.

use crate::kit::tree::Tree;
use crate::util::{ci, Run};

/// Issue 38, D4: copies of one response tie on their total; the winner
/// (whose session gets the tokens) is the first by absolute path, however
/// the paths were typed, with the cache and without.
#[test]
fn a_tie_between_copies_does_not_depend_on_how_paths_are_typed() {
    let tree = Tree::new();
    let line = concat!(
        r#"{"type":"assistant","uuid":"u1","timestamp":"2026-04-01T10:00:00Z","requestId":"r1","#,
        r#""message":{"id":"m1","model":"claude-sonnet-4-5","role":"assistant","content":[],"#,
        r#""usage":{"input_tokens":10,"output_tokens":5}}}"#,
        "\n"
    );
    let a = tree.transcript("-a", "0e8f1c2a-1111-4222-8333-aaaaaaaaaaaa", line);
    let b = tree.transcript("-b", "0e8f1c2a-1111-4222-8333-bbbbbbbbbbbb", line);
    let folder_a = a.parent().unwrap();
    let by_session = |run: Run| -> Vec<String> {
        assert_eq!(run.code, 0, "{}", run.stderr);
        run.json().iter().map(|r| r["session"].as_str().unwrap().to_owned()).collect()
    };
    let want = ["0e8f1c2a-1111-4222-8333-aaaaaaaaaaaa"];
    for cache in [true, false] {
        let no_cache = if cache { vec![] } else { vec!["--no-cache"] };
        let typed = ci("ci-agg")
            .current_dir(folder_a)
            .args(["--tokens", "--by", "session"])
            .args(&no_cache)
            .args(["0e8f1c2a-1111-4222-8333-aaaaaaaaaaaa.jsonl", "../-b/0e8f1c2a-1111-4222-8333-bbbbbbbbbbbb.jsonl"])
            .run();
        assert_eq!(by_session(typed), want, "relative, cache {cache}");
        let absolute = ci("ci-agg").args(["--tokens", "--by", "session"]).args(&no_cache).arg(&b).arg(&a).run();
        assert_eq!(by_session(absolute), want, "absolute, cache {cache}");
    }
}
