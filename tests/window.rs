//! One time window for every tool (issue 31, items 2, 3, 6 and 7):
//! `--since/--until` select events in ci-cat, ci-filter, ci-agg and ci-grep,
//! select sessions in ci-find, and travel with ci-find's and ci-filter's
//! session records, so that
//! `ci-agg Q --since W` = `ci-find --since W | ci-agg Q` = `ci-filter --since W ROOT | ci-agg Q`,
//! byte for byte.

use proptest::prelude::*;

use crate::kit::tree::Tree;
use crate::util::{ci, Run};

/// Every writer's fixture root, and the questions whose three forms agree
/// there: all of them, but for a hooks session's transcript copy
/// (`fixtures/sessiondata-transcript`, `--tokens` and `--sessions`): hook
/// lines have no time, so `ci-filter --since` passes none of them, and
/// ci-agg, which reads the copy of a piped session that ended
/// (`prompt:complete`), reads none (README, hooks sessions: give the window
/// to ci-agg or ci-find).
const ROOTS: &[(&str, &[&str])] = &[
    ("fixtures/demo-clean", &["--tokens --by day", "--by event", "--sessions", "--tools", "--by day --sum cost_usd"]),
    ("fixtures/claude-transcripts", &["--tokens --by day", "--by event", "--sessions", "--tools"]),
    ("fixtures/claude-progress", &["--tokens --by day", "--by event", "--sessions", "--tools"]),
    ("fixtures/codex", &["--tokens --by day", "--by event", "--sessions", "--tools"]),
    ("fixtures/codex-fork", &["--tokens --by day", "--sessions"]),
    ("fixtures/hook-logs", &["--by event", "--tools", "--sessions", "--tokens --by day"]),
    ("fixtures/sessiondata", &["--by event", "--sessions", "--tokens --by day"]),
    ("fixtures/sessiondata-timed", &["--by event", "--tools", "--sessions"]),
    ("fixtures/sessiondata-transcript", &["--by event", "--tools"]),
];

/// Windows over the fixtures' years, with CI_NOW in 2026-03 (the period
/// words) and in 2026-06 (the Codex fixtures' month).
const WINDOWS: &[(&str, &[&str])] = &[
    ("2026-03-10T12:00:00Z", &["--since", "2025-09-03", "--until", "2025-09-08"]),
    ("2026-03-10T12:00:00Z", &["--since", "2026-01-01", "--until", "2026-03-01"]),
    ("2026-03-10T12:00:00Z", &["--since", "2026-03-02"]),
    ("2026-03-10T12:00:00Z", &["--until", "2026-01-10T12:00:00Z"]),
    ("2026-03-10T12:00:00Z", &["--since", "this-month"]),
    ("2026-03-10T12:00:00Z", &["--since", "last-month", "--until", "this-month"]),
    ("2026-03-10T12:00:00Z", &["--since", "7d"]),
    ("2026-03-03T12:00:00Z", &["--since", "yesterday", "--until", "today"]),
    ("2026-03-03T12:00:00Z", &["--since", "last-week", "--until", "this-week"]),
    ("2026-06-05T12:00:00Z", &["--since", "today"]),
    ("2026-06-05T12:00:00Z", &["--since", "this-week"]),
];

fn words(q: &str) -> Vec<&str> {
    q.split(' ').collect()
}

/// The three forms of question `q` in window `w` at `now` over `root`.
fn three_forms(root: &str, q: &[&str], w: &[&str], now: &str) -> [Run; 3] {
    let direct = ci("ci-agg").env("CI_NOW", now).args(q).args(w).arg(root).run();
    let found = ci("ci-find").env("CI_NOW", now).args(["--root", root]).args(w).run();
    let by_find = ci("ci-agg").env("CI_NOW", now).args(q).stdin(found.stdout).run();
    let filtered = ci("ci-filter").env("CI_NOW", now).args(w).arg(root).run();
    let by_filter = ci("ci-agg").env("CI_NOW", now).args(q).stdin(filtered.stdout).run();
    [direct, by_find, by_filter]
}

#[test]
fn a_window_gives_one_answer_through_every_pipeline() {
    let mut narrowed = 0;
    for (root, questions) in ROOTS {
        for q in *questions {
            let q = words(q);
            let whole = ci("ci-agg").args(&q).arg(root).run();
            for (now, w) in WINDOWS {
                let [direct, by_find, by_filter] = three_forms(root, &q, w, now);
                assert_eq!(direct.stdout, by_find.stdout, "{root} {q:?} {w:?}: ci-find | ci-agg");
                assert_eq!(direct.stdout, by_filter.stdout, "{root} {q:?} {w:?}: ci-filter | ci-agg");
                assert_eq!(direct.code, by_find.code, "{root} {q:?} {w:?}");
                assert_ne!(direct.code, 2, "{root} {q:?} {w:?}: {}", direct.stderr);
                if !direct.stdout.is_empty() && direct.stdout != whole.stdout {
                    narrowed += 1;
                }
            }
        }
    }
    // The windows do narrow the answers (the test could not pass vacuously).
    assert!(narrowed >= 20, "{narrowed} answers were narrowed by a window");
}

/// Item 2: the README's headline pipeline used to count every event of the
/// sessions active in the window (every day of their history).
#[test]
fn ci_find_since_then_ci_agg_counts_the_window_only() {
    let root = "fixtures/claude-transcripts";
    let found = ci("ci-find").args(["--root", root, "--since", "2026-01-09", "--until", "2026-01-11"]).run();
    assert_eq!(found.code, 0);
    let records = found.json();
    assert!(!records.is_empty());
    for r in &records {
        assert_eq!(r["window"], serde_json::json!({"since": "2026-01-09T00:00:00Z", "until": "2026-01-11T00:00:00Z"}));
    }
    let run = ci("ci-agg").args(["--tokens", "--by", "day"]).stdin(found.stdout.clone()).run();
    let days: Vec<String> = run.json().iter().map(|r| r["day"].as_str().unwrap_or("null").to_owned()).collect();
    assert!(!days.is_empty());
    assert!(days.iter().all(|d| d == "2026-01-09" || d == "2026-01-10"), "{days:?}");
    // Without a window the records carry none, and are as they always were.
    let plain = ci("ci-find").args(["--root", root]).run();
    assert!(plain.json().iter().all(|r| r.get("window").is_none()));
}

/// ci-filter --since on session records narrows the window they carry
/// (and keeps them session records).
#[test]
fn ci_filter_narrows_the_window_of_session_records() {
    let root = "fixtures/claude-transcripts";
    let found = ci("ci-find").args(["--root", root, "--since", "2026-01-01"]).run();
    let run = ci("ci-filter").args(["--until", "2026-01-10"]).stdin(found.stdout).run();
    assert_eq!(run.code, 0, "{run:?}");
    for r in run.json() {
        assert!(r.get("event").is_none());
        assert_eq!(r["window"], serde_json::json!({"since": "2026-01-01T00:00:00Z", "until": "2026-01-10T00:00:00Z"}));
    }
}

/// Item 3: ci-agg, ci-cat and ci-grep take the window; `today` is the
/// run's day in its zone.
#[test]
fn every_event_tool_reads_the_window() {
    let root = "fixtures/claude-transcripts";
    let now = "2026-01-09T20:00:00Z";
    let today = ci("ci-agg").env("CI_NOW", now).args(["--tokens", "--since", "today", root]).run();
    let dated = ci("ci-agg").args(["--tokens", "--since", "2026-01-09", root]).run();
    assert_eq!(today.code, 0, "{today:?}");
    assert_eq!(today.stdout, dated.stdout);
    let all = ci("ci-agg").args(["--tokens", root]).run();
    assert_ne!(today.stdout, all.stdout);
    let cat = ci("ci-cat").args(["--since", "2026-01-09", "--until", "2026-01-10", root]).run();
    let filter = ci("ci-filter").args(["--since", "2026-01-09", "--until", "2026-01-10", root]).run();
    assert_eq!(cat.code, 0);
    assert!(!cat.stdout.is_empty());
    assert_eq!(cat.stdout, filter.stdout);
    for r in cat.json() {
        assert!(r["timestamp"].as_str().is_some_and(|t| t.starts_with("2026-01-09")), "{r}");
    }
    let grep = ci("ci-grep").args(["-c", "-F", "e", "--since", "2026-01-09", "--until", "2026-01-10", root]).run();
    let grep_all = ci("ci-grep").args(["-c", "-F", "e", root]).run();
    assert_eq!(grep.code, 0);
    assert_ne!(grep.stdout, grep_all.stdout);
}

/// Item 6: days are local by default (TZ, as ccusage and date), named in
/// each record; `--tz UTC` still gives UTC days.
#[test]
fn days_are_local_by_default() {
    let root = "fixtures/demo-clean";
    let local = ci("ci-agg").env("TZ", "America/Los_Angeles").args(["--by", "day", root]).run();
    let named = ci("ci-agg").args(["--by", "day", "--tz", "America/Los_Angeles", root]).run();
    let utc = ci("ci-agg").env("TZ", "America/Los_Angeles").args(["--by", "day", "--tz", "UTC", root]).run();
    assert_eq!(local.code, 0);
    assert_eq!(local.stdout, named.stdout);
    assert!(local.json().iter().all(|r| r["tz"] == "America/Los_Angeles"), "{}", local.stdout);
    assert_ne!(local.stdout, utc.stdout);
    assert!(utc.json().iter().all(|r| r["tz"] == "UTC"));
}

/// A session record's window keeps the capture cache out of its answer: a
/// warm cache of the whole capture does not leak into a windowed question.
#[test]
fn a_windowed_record_is_not_answered_from_the_cache() {
    let tree = Tree::new();
    tree.transcript("-w-p", "0e8f1c2a-1111-4222-8333-444455556666", transcript(&[(1, 10), (2, 20), (3, 30)]));
    let root = tree.path().to_str().unwrap();
    let warm = ci("ci-agg").args(["--tokens", "--by", "day", root]).run();
    assert_eq!(warm.json().len(), 3);
    let found = ci("ci-find").args(["--root", root, "--since", "2026-04-02"]).run();
    let run = ci("ci-agg").args(["--tokens", "--by", "day"]).stdin(found.stdout).run();
    let days: Vec<_> = run.json().iter().map(|r| r["day"].as_str().unwrap().to_owned()).collect();
    assert_eq!(days, ["2026-04-02", "2026-04-03"]);
}

/// A Claude Code transcript of one assistant response per (day of April
/// 2026, hour) given, `output_tokens` = the hour.
fn transcript(responses: &[(u32, u32)]) -> String {
    responses
        .iter()
        .enumerate()
        .map(|(i, (day, hour))| {
            format!(
                concat!(
                    r#"{{"type":"assistant","sessionId":"0e8f1c2a-1111-4222-8333-444455556666","uuid":"u{i}","#,
                    r#""timestamp":"2026-04-{day:02}T{h:02}:{m:02}:00Z","requestId":"r{i}","#,
                    r#""message":{{"id":"m{i}","model":"claude-sonnet-4-5","role":"assistant","#,
                    r#""content":[{{"type":"text","text":"t"}}],"usage":{{"input_tokens":10,"output_tokens":{hour}}}}}}}"#,
                    "\n"
                ),
                i = i,
                day = day,
                h = hour % 24,
                m = hour / 24 % 60,
                hour = hour
            )
        })
        .collect()
}

/// An Amplifier capture of one event per (day of April 2026, hour).
fn amplifier_events(events: &[(u32, u32)]) -> String {
    events
        .iter()
        .map(|(day, hour)| {
            format!(
                "{{\"event\":\"{}\",\"workspace\":\"w\",\"timestamp\":\"2026-04-{day:02}T{:02}:00:00Z\",\"data\":{{}}}}\n",
                ["tool:pre", "llm:response", "prompt:submit"][(*hour % 3) as usize],
                hour % 24
            )
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(8), ..ProptestConfig::default() })]

    /// Random Claude Code and Amplifier trees, random windows (instants,
    /// dates, ages and period words at a random now): the three forms agree
    /// byte for byte.
    #[test]
    fn random_windows_give_one_answer(
        claude in prop::collection::vec(prop::collection::vec((1u32..15, 0u32..48), 1..6), 1..4),
        amplifier in prop::collection::vec(prop::collection::vec((1u32..15, 0u32..24), 1..6), 1..3),
        since in prop::option::of(0usize..8),
        until in prop::option::of(0usize..8),
        now_day in 1u32..20,
    ) {
        let tree = Tree::new();
        for (i, responses) in claude.iter().enumerate() {
            tree.transcript("-w-p", &format!("0e8f1c2a-1111-4222-8333-44445555666{i}"), transcript(responses));
        }
        // With the times of their events in their metadata: ci-find lists
        // no session whose record has no time (README: time windows).
        for (i, events) in amplifier.iter().enumerate() {
            let at = |&(day, hour): &(u32, u32)| format!("2026-04-{day:02}T{:02}:00:00Z", hour % 24);
            let (first, last) = (events.iter().map(at).min().unwrap(), events.iter().map(at).max().unwrap());
            let meta = format!(r#"{{"session_id":"a{i}","started_at":"{first}","last_event_at":"{last}"}}"#);
            tree.amplifier("proj", format!("a{i}")).metadata(meta).raw(amplifier_events(events)).write();
        }
        let bounds = ["2026-04-03", "2026-04-07T05:00:00Z", "3d", "36h", "today", "yesterday", "this-week", "last-week"];
        let mut w: Vec<&str> = vec![];
        if let Some(s) = since { w.extend(["--since", bounds[s]]); }
        if let Some(u) = until { w.extend(["--until", bounds[u]]); }
        let now = format!("2026-04-{now_day:02}T13:00:00Z");
        let root = tree.path().to_str().unwrap();
        for q in ["--tokens --by day", "--by event,day", "--sessions"] {
            let q = words(q);
            let [direct, by_find, by_filter] = three_forms(root, &q, &w, &now);
            prop_assert_eq!(&direct.stdout, &by_find.stdout, "{:?} {:?}", q, w);
            prop_assert_eq!(&direct.stdout, &by_filter.stdout, "{:?} {:?}", q, w);
            prop_assert_ne!(direct.code, 2, "{}", direct.stderr);
        }
    }
}

/// Issue 38, D6 (third case): an assistant line without usage yields no
/// event for a direct `--tokens` read, and its piped record counts no more
/// (it used to add a `null`-model row of zero tokens).
#[test]
fn piped_lines_without_usage_count_as_the_direct_read() {
    for root in ["fixtures/claude-transcripts", "fixtures/codex"] {
        let direct = ci("ci-agg").args(["--tokens", "--by", "day", root]).run();
        let cat = ci("ci-cat").arg(root).run();
        let piped = ci("ci-agg").args(["--tokens", "--by", "day"]).stdin(cat.stdout).run();
        assert_eq!(piped.stdout, direct.stdout, "{root}");
        assert!(!direct.stdout.is_empty(), "{root}");
    }
}
