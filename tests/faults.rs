//! Fault corpus (issue #8): on generated damaged trees (`faultgen`) and on the
//! committed fixtures, every good event comes out exactly once, every damaged
//! line is reported once as `path:line: reason`, the summary line is exact,
//! `--strict` exits 2, all four reading tools agree, and thread counts do not
//! change the answer.

use std::collections::BTreeMap;

use crate::faultgen::{self, Tree};
use crate::util::*;

const SEEDS: [u64; 3] = [1, 2, 3];
const SESSIONS: usize = 12;

fn trees() -> Vec<Tree> {
    SEEDS.iter().map(|&s| faultgen::generate(s, SESSIONS)).collect()
}

/// (session, line, event) of every record on stdout, sorted.
fn provenance(run: &Run) -> Vec<(String, u64, String)> {
    let mut all: Vec<_> = run
        .json()
        .iter()
        .map(|r| {
            let ci = &r["ci"];
            (
                ci["session"].as_str().expect("ci.session").to_owned(),
                ci["line"].as_u64().expect("ci.line"),
                r["event"].as_str().expect("event").to_owned(),
            )
        })
        .collect();
    all.sort();
    all
}

/// stderr as (sorted report lines, last line).
fn reports(run: &Run) -> (Vec<String>, String) {
    let mut lines: Vec<String> = run.stderr.lines().map(str::to_owned).collect();
    let last = lines.pop().unwrap_or_default();
    lines.sort();
    (lines, last)
}

/// Every damaged line reported once with its exact reason, then the exact summary.
fn assert_reports(run: &Run, t: &Tree, prog: &str, strict: bool) {
    assert_reports_of(run, &t.reports(), &t.summary(prog, strict));
}

/// stderr holds exactly `want` (in any order), then `summary`.
fn assert_reports_of(run: &Run, want: &[String], summary: &str) {
    let (lines, last) = reports(run);
    assert_eq!(lines, want);
    assert_eq!(last, summary);
}

/// `{key: count}` of ci-agg's group records.
fn counts(run: &Run, key: &str) -> BTreeMap<String, u64> {
    run.json().iter().map(|r| (r[key].as_str().unwrap().to_owned(), r["count"].as_u64().unwrap())).collect()
}

/// A line of a capture file as serde_json sees it: `Some(event)` for a good event.
fn oracle(line: &[u8]) -> Option<String> {
    let v: serde_json::Value = serde_json::from_slice(line).ok()?;
    let o = v.as_object()?;
    o.get("data")?.as_object()?;
    o.get("event")?.as_str().map(str::to_owned)
}

#[test]
fn generator_covers_every_fault_and_agrees_with_serde_json() {
    for t in trees() {
        let (damages, tails, gens, odd) = faultgen::coverage(&t);
        assert_eq!(damages.len(), faultgen::DAMAGES.len());
        assert_eq!(tails.len(), faultgen::TAILS.len());
        assert_eq!(gens.len(), faultgen::GENS.len());
        assert_eq!(odd.len(), 5);
        // An independent reading of the bytes on disk gives the generator's facts.
        for s in &t.sessions {
            let bytes = std::fs::read(&s.path).unwrap();
            let mut segments: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
            let tail = segments.pop().filter(|l| !l.is_empty());
            let mut good = vec![];
            let mut bad = vec![];
            for (i, l) in segments.iter().enumerate() {
                match oracle(l) {
                    Some(e) => good.push((i as u64 + 1, e)),
                    None => bad.push(i as u64 + 1),
                }
            }
            let held = match tail {
                Some(l) => match oracle(l) {
                    Some(e) => {
                        good.push((segments.len() as u64 + 1, e));
                        false
                    }
                    None => true,
                },
                None => false,
            };
            assert_eq!(good, s.good, "{}", s.display());
            assert_eq!(bad, s.bad.iter().map(|b| b.0).collect::<Vec<_>>(), "{}", s.display());
            assert_eq!(held, s.held_tail(), "{}", s.display());
        }
        assert!(t.bad_lines() >= faultgen::DAMAGES.len() as u64);
        assert_eq!(t.held_tails(), 6);
    }
}

#[test]
fn cat_emits_every_good_event_once_and_reports_every_bad_line() {
    for t in trees() {
        let run = ci("ci-cat").arg(t.root()).run();
        assert_eq!(provenance(&run), t.good());
        assert_reports(&run, &t, "ci-cat", false);
        assert_eq!(run.code, 0);
        // Provenance names the capture file each event came from.
        let paths: BTreeMap<String, String> = t.sessions.iter().map(|s| (s.id.clone(), s.display())).collect();
        for r in run.json() {
            assert_eq!(r["ci"]["path"].as_str(), paths.get(r["ci"]["session"].as_str().unwrap()).map(String::as_str));
        }
        let strict = ci("ci-cat").arg("--strict").arg(t.root()).run();
        assert_eq!(strict.stdout, run.stdout);
        assert_reports(&strict, &t, "ci-cat", true);
        assert_eq!(strict.code, 2);
        // Session records from ci-find expand to the same events and reports.
        let found = ci("ci-find").arg("--root").arg(t.root()).run();
        assert_eq!(found.stdout.lines().count(), SESSIONS, "{}", found.stderr);
        let piped = ci("ci-cat").stdin(found.stdout).run();
        assert_eq!(piped.stdout, run.stdout);
        assert_eq!(reports(&piped), reports(&run));
    }
}

#[test]
fn threads_do_not_change_output_or_reports() {
    let t = faultgen::generate(7, SESSIONS);
    let root = t.root().to_string_lossy().into_owned();
    let jobs: [&[&str]; 4] = [
        &["ci-cat"],
        &["ci-filter", "--event", "*"],
        &["ci-grep", "-c", "-F", "e"],
        &["ci-agg", "--by", "event,session"],
    ];
    for job in jobs {
        let runs: Vec<Run> =
            ["1", "2", "3"].iter().map(|j| ci(job[0]).args(&job[1..]).args(["-j", j, &root]).run()).collect();
        for r in &runs[1..] {
            assert_eq!(r.stdout, runs[0].stdout, "{job:?}");
            assert_eq!(reports(r), reports(&runs[0]), "{job:?}");
            assert_eq!(r.code, runs[0].code, "{job:?}");
        }
    }
}

#[test]
fn filter_reports_the_same_bad_lines() {
    for t in trees() {
        let cat = ci("ci-cat").arg(t.root()).run();
        // No predicate: every good event passes.
        let run = ci("ci-filter").arg(t.root()).run();
        assert_eq!(run.stdout, cat.stdout);
        assert_reports(&run, &t, "ci-filter", false);
        assert_eq!(run.code, 0);
        // A predicate every event passes: lines are skimmed, then confirmed.
        let run = ci("ci-filter").args(["--event", "*"]).arg(t.root()).run();
        assert_eq!(run.stdout, cat.stdout);
        assert_reports(&run, &t, "ci-filter", false);
        // A narrow predicate with --strict still validates every line.
        let run = ci("ci-filter").args(["--strict", "--event", "tool:pre"]).arg(t.root()).run();
        let want: Vec<_> = t.good().into_iter().filter(|g| g.2 == "tool:pre").collect();
        assert_eq!(provenance(&run), want);
        assert_reports(&run, &t, "ci-filter", true);
        assert_eq!(run.code, 2);
    }
}

#[test]
fn grep_reports_the_same_bad_lines() {
    for t in trees() {
        // A pattern with no required literal: no line is skipped unparsed.
        let run = ci("ci-grep").args(["-c", "."]).arg(t.root()).run();
        assert_reports(&run, &t, "ci-grep", false);
        assert_eq!(run.code, 0);
        // With a literal pre-check, --strict still parses every line.
        let run = ci("ci-grep").args(["--strict", "-c", "-F", "café"]).arg(t.root()).run();
        assert_reports(&run, &t, "ci-grep", true);
        assert_eq!(run.code, 2);
    }
}

#[test]
fn agg_counts_good_events_and_what_it_skipped() {
    for t in trees() {
        let root = t.root().to_string_lossy().into_owned();
        let run = ci("ci-agg").args(["--by", "event", &root]).run();
        let got = counts(&run, "event");
        assert_eq!(got, t.by_event());
        assert_reports(&run, &t, "ci-agg", false);
        assert_eq!(run.code, 0);
        let strict = ci("ci-agg").args(["--strict", "--by", "event", &root]).run();
        assert_eq!(strict.stdout, run.stdout);
        assert_reports(&strict, &t, "ci-agg", true);
        assert_eq!(strict.code, 2);
        // Per session: the good events of each capture (none for empty ones).
        let run = ci("ci-agg").args(["--by", "session", &root]).run();
        let got = counts(&run, "session");
        let want: BTreeMap<String, u64> =
            t.sessions.iter().filter(|s| !s.good.is_empty()).map(|s| (s.id.clone(), s.good.len() as u64)).collect();
        assert_eq!(got, want);
        // --sessions: each capture's events by type are its good lines.
        let run = ci("ci-agg").args(["--sessions", &root]).run();
        let got: BTreeMap<String, u64> = run
            .json()
            .iter()
            .map(|r| {
                let n = r["events"].as_object().unwrap().values().map(|v| v.as_u64().unwrap()).sum();
                (r["session"].as_str().unwrap().to_owned(), n)
            })
            .collect();
        let want: BTreeMap<String, u64> = t.sessions.iter().map(|s| (s.id.clone(), s.good.len() as u64)).collect();
        assert_eq!(got, want);
        assert_reports(&run, &t, "ci-agg", false);
        // Fan-out: the partial stream carries the counts, the merge sums them.
        let partial = ci("ci-agg").args(["--partial", "--by", "event", &root]).run();
        assert_reports(&partial, &t, "ci-agg", false);
        let skipped =
            format!(r#"{{"kind":"skipped","bad_lines":{},"unfinished_lines":{}}}"#, t.bad_lines(), t.held_tails());
        assert_eq!(partial.stdout.lines().nth(1), Some(skipped.as_str()));
        let twice = format!("{}{}", partial.stdout, partial.stdout);
        let merged = ci("ci-agg").arg("--merge").stdin(twice.clone()).run();
        let doubled: BTreeMap<String, u64> = t.by_event().into_iter().map(|(k, v)| (k, 2 * v)).collect();
        let got = counts(&merged, "event");
        assert_eq!(got, doubled);
        let summary = faultgen::summary_line("ci-agg", 2 * t.bad_lines(), 2 * t.held_tails(), false);
        assert_eq!((merged.stderr.trim_end(), merged.code), (summary.as_str(), 0));
        let strict = ci("ci-agg").args(["--merge", "--strict"]).stdin(twice).run();
        assert_eq!(strict.stdout, merged.stdout);
        assert_eq!(strict.code, 2);
    }
}

// ------------------------------------------------------------ committed fixtures

const S5_FILE: &str =
    "fixtures/demo/-home-bob-myapp/sessions/d4a7b1e3-9c2f-4d85-a0b6-3e1f7c9d2b84/context-intelligence/events.jsonl";
const DAMAGED: &str = "fixtures/lines/damaged.jsonl";

fn fixture_lines(path: &str) -> Vec<Vec<u8>> {
    std::fs::read(root().join(path)).unwrap().split(|&b| b == b'\n').map(<[u8]>::to_vec).collect()
}

/// Where a torn record with another glued on fails (fixtures/README.md names
/// where each was cut): the cut string runs on into the glued record and
/// closes at its first `"`; a `,` or `}` is due on the byte after.
fn glued_at(line: &[u8], cut_after: &str) -> usize {
    let at = line.windows(cut_after.len()).position(|w| w == cut_after.as_bytes()).unwrap();
    at + cut_after.len() + 2
}

/// The fixtures' damage, from fixtures/README.md; offsets computed from the bytes.
fn fixture_reports() -> (Vec<String>, Vec<String>) {
    let s5 = fixture_lines(S5_FILE);
    let demo = vec![
        format!("{S5_FILE}:4: invalid JSON at byte {}: expected ',' or '}}'", glued_at(&s5[3], "\"provider\":\"anthr")),
        format!("{S5_FILE}:6: blank line"),
        format!("{S5_FILE}:8: not a JSON object"),
        format!("{S5_FILE}:10: invalid UTF-8 at byte 257"),
    ];
    let d = fixture_lines(DAMAGED);
    let lines = vec![
        format!("{DAMAGED}:2: blank line"),
        format!("{DAMAGED}:3: torn record: line ends inside a JSON value"),
        format!("{DAMAGED}:4: invalid JSON at byte {}: expected ',' or '}}'", glued_at(&d[3], "\"pattern\":\"")),
        format!("{DAMAGED}:5: not a JSON object"),
        format!("{DAMAGED}:7: invalid UTF-8 at byte 182"),
    ];
    (demo, lines)
}

#[test]
fn fixtures_every_good_event_once_every_bad_line_reported() {
    let (demo_reports, lines_reports) = fixture_reports();
    // fixtures/README.md: 4 reportable bad lines and 1 held tail in session 5.
    assert_eq!(fixture_lines(S5_FILE)[11].first(), Some(&b'{'));
    for j in ["1", "2"] {
        for (prog, args) in [
            ("ci-cat", &[][..]),
            ("ci-filter", &["--event", "*"][..]),
            ("ci-grep", &["-c", "."][..]),
            ("ci-agg", &["--by", "event"][..]),
        ] {
            for strict in [false, true] {
                let mut run = ci(prog).args(args).args(["-j", j]);
                if strict {
                    run = run.arg("--strict");
                }
                let run = run.arg(S5_FILE).arg(DAMAGED).run();
                let (lines, last) = reports(&run);
                let mut want = [demo_reports.clone(), lines_reports.clone()].concat();
                want.sort();
                assert_eq!(lines, want, "{prog} -j{j} strict={strict}");
                assert_eq!(last, faultgen::summary_line(prog, 9, 2, strict), "{prog} -j{j} strict={strict}");
                assert_eq!(run.code, if strict { 2 } else { 0 }, "{prog} -j{j} strict={strict}");
                if prog == "ci-cat" {
                    let good: Vec<(String, u64)> =
                        provenance(&run).into_iter().map(|(s, l, _)| (s.chars().take(8).collect(), l)).collect();
                    let mut want: Vec<(String, u64)> =
                        [1, 2, 3, 5, 7, 9, 11].map(|l| ("d4a7b1e3".to_owned(), l)).to_vec();
                    want.extend([1, 6, 8].map(|l| ("damaged".to_owned(), l)));
                    want.sort();
                    assert_eq!(good, want);
                }
            }
        }
    }
}

#[test]
fn demo_root_counts_all_77_events_and_the_skipped_lines() {
    let (demo_reports, _) = fixture_reports();
    let run = ci("ci-agg").args(["--by", "event", DEMO]).run();
    let total: u64 = run.json().iter().map(|r| r["count"].as_u64().unwrap()).sum();
    assert_eq!(total, 77);
    let reported: Vec<&str> = run.stderr.lines().filter(|l| l.starts_with(S5_FILE)).collect();
    assert_eq!(reported, demo_reports);
    assert!(run.stderr.ends_with(&format!("{}\n", faultgen::summary_line("ci-agg", 4, 1, false))), "{}", run.stderr);
    let partial = ci("ci-agg").args(["--partial", "--by", "event", DEMO]).run();
    assert_eq!(partial.stdout.lines().nth(1), Some(r#"{"kind":"skipped","bad_lines":4,"unfinished_lines":1}"#));
    let merged = ci("ci-agg").arg("--merge").stdin(partial.stdout).run();
    assert_eq!(merged.stdout, run.stdout);
    assert_eq!(merged.stderr, format!("{}\n", faultgen::summary_line("ci-agg", 4, 1, false)));
}

/// Regression: a capture piped on stdin (`cat events.jsonl | ci-cat`, `ssh host
/// cat …`) used to report its unfinished last line as a bad line ("torn
/// record"), so `--strict` failed on a live session read through a pipe while
/// the same file named as an argument passed. Its last line without `\n` is
/// now held back and counted as for a file.
#[test]
fn a_piped_capture_is_read_like_the_file() {
    for t in trees() {
        // On stdin a session record is input, not damage: skip the captures holding one.
        let plain = t.sessions.iter().filter(|s| !s.damages.contains(&faultgen::Damage::SessionRecord));
        for s in plain {
            let bytes = std::fs::read(&s.path).unwrap();
            for strict in [false, true] {
                let mut cmd = ci("ci-cat").arg("-");
                if strict {
                    cmd = cmd.arg("--strict");
                }
                let run = cmd.stdin(bytes.clone()).run();
                let lines: Vec<u64> = run.json().iter().map(|r| r["ci"]["line"].as_u64().unwrap()).collect();
                assert_eq!(lines, s.good.iter().map(|g| g.0).collect::<Vec<_>>(), "{}", s.display());
                let mut want: Vec<String> = s.bad.iter().map(|(l, r)| format!("-:{l}: {r}")).collect();
                let torn = u64::from(s.held_tail());
                if !s.bad.is_empty() || torn > 0 {
                    want.push(faultgen::summary_line("ci-cat", s.bad.len() as u64, torn, strict));
                }
                assert_eq!(run.stderr.lines().collect::<Vec<_>>(), want, "{}", s.display());
                let code = match () {
                    _ if strict && !s.bad.is_empty() => 2,
                    _ if s.good.is_empty() => 1, // nothing printed
                    _ => 0,
                };
                assert_eq!(run.code, code, "{}", s.display());
            }
        }
    }
}

// ------------------------------------------------------------ Claude Code hook sessions

/// (session, file path, line, event) of every record on stdout, in output order.
fn hook_provenance(run: &Run) -> Vec<(String, String, u64, String)> {
    run.json()
        .iter()
        .map(|r| {
            let ci = &r["ci"];
            (
                ci["session"].as_str().expect("ci.session").to_owned(),
                ci["path"].as_str().expect("ci.path").to_owned(),
                ci["line"].as_u64().expect("ci.line"),
                r["event"].as_str().expect("event").to_owned(),
            )
        })
        .collect()
}

#[test]
fn hook_sessions_every_good_event_once_in_order_every_bad_line_reported() {
    for seed in SEEDS {
        let t = faultgen::generate_hooks(seed, 8);
        let run = ci("ci-cat").arg(t.root()).run();
        let out = hook_provenance(&run);
        let mut sorted = out.clone();
        sorted.sort();
        assert_eq!(sorted, t.good());
        assert_reports_of(&run, &t.reports(), &t.summary("ci-cat", false));
        assert_eq!(run.code, 0);
        // Order within a session: time order when every hook line has a
        // timestamp (damaged lines do not decide it), else lifecycle file order.
        for s in &t.sessions {
            let got: Vec<(String, u64)> = out.iter().filter(|o| o.0 == s.id).map(|o| (o.1.clone(), o.2)).collect();
            let mut want = s.good.clone();
            if s.timed {
                want.sort_by_key(|g| g.3);
            }
            let want: Vec<(String, u64)> = want.into_iter().map(|g| (g.0, g.1)).collect();
            assert_eq!(got, want, "session {} timed={}", s.id, s.timed);
        }
        let strict = ci("ci-cat").args(["--strict", "-j1"]).arg(t.root()).run();
        assert_eq!(strict.stdout, run.stdout);
        assert_reports_of(&strict, &t.reports(), &t.summary("ci-cat", true));
        assert_eq!(strict.code, 2);
        let agg = ci("ci-agg").args(["--by", "event"]).arg(t.root()).run();
        let mut want: BTreeMap<String, u64> = BTreeMap::new();
        for g in t.good() {
            *want.entry(g.3).or_default() += 1;
        }
        let got = counts(&agg, "event");
        assert_eq!(got, want);
        assert_reports_of(&agg, &t.reports(), &t.summary("ci-agg", false));
    }
}
