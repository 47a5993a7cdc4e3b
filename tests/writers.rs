//! The writers behind one interface (src/format/): behaviour that every tool
//! gets from a writer's module, checked through the binaries. Expected values
//! are read off the fixture files (see fixtures/README.md).

use serde_json::{json, Value};

use crate::util::{ci, DEMO};

/// Session ids and models of `ci-find --root DEMO ARGS`.
fn found(args: &[&str]) -> (i32, Vec<(String, Value)>) {
    let run = ci("ci-find").args(["--root", DEMO]).args(args).run();
    let recs =
        run.json().iter().map(|r| (r["session"].as_str().unwrap_or("").to_owned(), r["model"].clone())).collect();
    (run.code, recs)
}

/// Amplifier metadata names no model: `--model` reads the capture's
/// `llm:response` events (only when asked) and keeps what it read in the record.
#[test]
fn find_model_matches_amplifier_responses() {
    assert_eq!(
        found(&["--model", "claude-sonnet-4-5"]),
        (
            0,
            vec![
                ("d4a7b1e3-9c2f-4d85-a0b6-3e1f7c9d2b84".into(), json!("claude-sonnet-4-5")),
                ("a7c3e9d1-4b2f-4e8a-9d61-0c5b7e2f3a10".into(), json!("claude-sonnet-4-5")),
            ]
        )
    );
    assert_eq!(
        found(&["--model", "gpt-5.1", "--model", "claude-haiku-4-5"]).1,
        vec![
            ("b2d4f6a8-1c3e-4a5b-8c7d-9e0f1a2b3c4d".into(), json!("gpt-5.1")),
            ("0000000000000000-5f3c9a1e7b2d4c60_foundation-explorer".into(), json!("claude-haiku-4-5")),
        ]
    );
    assert_eq!(found(&["--model", "no-such-model"]), (1, vec![]));
    // Without the flag nothing is read: the record's model stays null.
    let (_, all) = found(&[]);
    assert!(all.iter().all(|(_, m)| m.is_null()), "{all:?}");
    // ci-agg --sessions reports the same models.
    let run = ci("ci-agg").args(["--sessions", DEMO]).run();
    let models: Vec<(String, Value)> =
        run.json().iter().map(|r| (r["session"].as_str().unwrap_or("").to_owned(), r["models"].clone())).collect();
    assert!(models.contains(&("d4a7b1e3-9c2f-4d85-a0b6-3e1f7c9d2b84".into(), json!(["claude-sonnet-4-5"]))));
    assert!(models.contains(&("c0ffee00-d1a2-4b3c-9d4e-5f6a7b8c9d0e".into(), json!(["gpt-5-mini"]))));
}

/// A session record is told from an event record by its top-level keys, not
/// by the bytes `"event"` somewhere in it (here a workspace named `event` and
/// an `event` key nested in `recipe_step`).
#[test]
fn session_record_whose_strings_say_event_is_expanded() {
    let run = ci("ci-find").args(["--root", DEMO, "--session", "a7c3e9d1"]).run();
    let original = run.stdout.clone();
    let mut rec: Value = serde_json::from_str(original.trim()).unwrap();
    rec["workspace"] = json!("event");
    rec["recipe_step"] = json!({"event": "tool:pre", "data": {}});
    let tricky = format!("{rec}\n");
    for args in [&["ci-cat", "--fields", "event,timestamp"][..], &["ci-agg", "--by", "event"][..]] {
        let want = ci(args[0]).args(&args[1..]).stdin(original.clone()).run();
        let got = ci(args[0]).args(&args[1..]).stdin(tricky.clone()).run();
        assert_eq!((got.code, got.stderr.as_str()), (0, ""), "{args:?}: {got:?}");
        assert_eq!(got.stdout, want.stdout, "{args:?}");
        assert!(!got.stdout.is_empty());
    }
    // Behind an event record in the same stream, in its place.
    let first_event = ci("ci-cat").args(["--head", "1"]).stdin(original.clone()).run().stdout;
    let both = ci("ci-cat").args(["--fields", "event"]).stdin(format!("{first_event}{tricky}")).run();
    let alone = ci("ci-cat").args(["--fields", "event"]).stdin(tricky.clone()).run();
    assert_eq!(both.stdout.lines().count(), alone.stdout.lines().count() + 1);
    assert!(both.stdout.ends_with(&alone.stdout));
}

/// A file in no writer's layout, holding no event of any known writer, is not
/// a session: reported once as no capture (the rule of every tool), nothing
/// printed for it, exit 2; an empty one is an empty capture: nothing, exit 1.
#[test]
fn sessions_of_a_file_with_no_known_events() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("notes.jsonl");
    std::fs::write(&file, "{\"a\":1}\n").unwrap();
    let path = file.to_str().unwrap();
    let run = ci("ci-agg").args(["--sessions", path]).run();
    assert_eq!(run.stdout, "");
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        format!(
            "{path}:1: not an event record (needs a string \"event\" and an object \"data\")\n\
             ci-agg: {path}: not a capture: no line of it is an event of a writer the tools read\n\
             ci-agg: 1 bad line skipped (--strict makes bad lines an error)\n"
        )
    );
    // An empty file likewise; a file with events is a session of its own.
    std::fs::write(&file, "").unwrap();
    let run = ci("ci-agg").args(["--sessions", path]).run();
    assert_eq!((run.code, run.stdout.as_str(), run.stderr.as_str()), (1, "", ""));
    std::fs::write(&file, "{\"event\":\"prompt:submit\",\"data\":{},\"timestamp\":\"\",\"workspace\":\"w\"}\n")
        .unwrap();
    let run = ci("ci-agg").args(["--sessions", path]).run();
    assert_eq!((run.code, run.json()[0]["session"].clone()), (0, json!("notes")));
}
