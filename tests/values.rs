//! One parser per kind of value, shared by every tool (issue 15, item B):
//! each value is accepted, or refused with the same message, by every tool
//! that takes the flag.

use crate::util::{ci, Run, DEMO};

/// The stderr of a refused value: clap's one shape, exit 2.
fn refused(flag: &str, value: &str, reason: &str) -> String {
    format!("error: invalid value '{value}' for '{flag}': {reason}\n\nFor more information, try '--help'.\n")
}

fn assert_refused(run: &Run, want: &str, what: &str) {
    assert_eq!((run.code, run.stdout.as_str(), run.stderr.as_str()), (2, "", want), "{what}");
}

const SIZE_REASON: &str = "expected a whole number of bytes with an optional k, M or G suffix (1024-based: 1k = 1024)";
const FLOOR_REASON: &str = "below the smallest budget, 1024 bytes (1k): a record's envelope and protected fields are never cut (use --full for no budget)";

/// The event-printing tools, with arguments that print every demo event.
const PRINTERS: &[(&str, &[&str])] = &[("ci-cat", &[]), ("ci-filter", &["--not-event", "no-such-event"])];

#[test]
fn max_bytes_takes_the_same_sizes_in_every_tool_and_in_ci_max_bytes() {
    for (tool, args) in PRINTERS {
        let plain = ci(tool).args(*args).args(["--max-bytes", "1024", DEMO]).run();
        assert!(!plain.stdout.is_empty(), "{tool}");
        for v in ["1k", "1K", " 1k"] {
            let run = ci(tool).args(*args).args(["--max-bytes", v, DEMO]).run();
            assert_eq!(
                (run.stdout.as_str(), run.code),
                (plain.stdout.as_str(), plain.code),
                "{tool} --max-bytes {v:?}"
            );
            let env = ci(tool).args(*args).arg(DEMO).env("CI_MAX_BYTES", v).run();
            assert_eq!(
                (env.stdout.as_str(), env.code),
                (plain.stdout.as_str(), plain.code),
                "{tool} CI_MAX_BYTES={v:?}"
            );
        }
        let big = ci(tool).args(*args).args(["--max-bytes", "4k", DEMO]).run();
        let default = ci(tool).args(*args).arg(DEMO).run();
        assert_eq!(big.stdout, default.stdout, "{tool}: 4k is the default 4096");
    }
}

#[test]
fn max_bytes_below_the_floor_or_malformed_is_refused_alike() {
    for (tool, args) in PRINTERS {
        for (v, reason) in [
            ("100", FLOOR_REASON),
            ("1023", FLOOR_REASON),
            ("0", FLOOR_REASON),
            ("1x", SIZE_REASON),
            ("1.5k", SIZE_REASON),
        ] {
            let want = refused("--max-bytes <N>", v, reason);
            assert_refused(&ci(tool).args(*args).args(["--max-bytes", v, DEMO]).run(), &want, &format!("{tool} {v}"));
            let env = ci(tool).args(*args).arg(DEMO).env("CI_MAX_BYTES", v).run();
            assert_refused(&env, &want, &format!("{tool} CI_MAX_BYTES={v}"));
        }
    }
}

/// The smallest budget holds for every record of every fixture root.
#[test]
fn the_smallest_budget_holds_on_every_fixture() {
    let roots =
        [DEMO, "fixtures/sessiondata", "fixtures/sessiondata-timed", "fixtures/claude-transcripts", "fixtures/codex"];
    for root in roots {
        let run = ci("ci-cat").args(["--max-bytes", "1k", root]).run();
        assert!(!run.stdout.is_empty(), "{root}: {run:?}");
        for line in run.stdout.lines() {
            assert!(line.len() <= 1024, "{root}: {} bytes: {line}", line.len());
            serde_json::from_str::<serde_json::Value>(line).expect("valid JSON");
        }
    }
}

#[test]
fn min_bytes_takes_the_same_sizes() {
    let find = |v: &str| ci("ci-find").args(["--root", DEMO, "--min-bytes", v]).run();
    let plain = find("1024");
    assert_eq!(plain.code, 0, "{plain:?}");
    for v in ["1k", "1K"] {
        let run = find(v);
        assert_eq!((run.stdout.as_str(), run.code), (plain.stdout.as_str(), 0), "--min-bytes {v}");
    }
    assert_refused(&find("1x"), &refused("--min-bytes <SIZE>", "1x", SIZE_REASON), "--min-bytes 1x");
}

/// `ci-find` and `ci-filter` over the demo root with a time bound.
fn bounded(tool: &str, flag: &str, v: &str) -> Run {
    match tool {
        "ci-find" => ci(tool).args(["--root", DEMO, flag, v]).run(),
        _ => ci(tool).args([flag, v, DEMO]).run(),
    }
}

#[test]
fn since_and_until_take_minus_ages_in_every_tool() {
    for tool in ["ci-find", "ci-filter"] {
        for flag in ["--since", "--until"] {
            for (plain, minus) in [("7d", "-7d"), ("30m", "-30m"), ("1d12h", "-1d12h")] {
                let a = bounded(tool, flag, plain);
                let b = bounded(tool, flag, minus);
                assert_eq!((a.stdout.as_str(), a.code), (b.stdout.as_str(), b.code), "{tool} {flag} {minus}");
                assert_ne!(b.code, 2, "{tool} {flag} {minus}: {}", b.stderr);
            }
            // Also as --flag=VALUE.
            let eq = ci(tool)
                .args([&format!("{flag}=-7d")])
                .args(if tool == "ci-find" { vec!["--root", DEMO] } else { vec![DEMO] })
                .run();
            assert_eq!(eq.stdout, bounded(tool, flag, "7d").stdout, "{tool} {flag}=-7d");
        }
        // ci-find's sessions and ci-filter's events since 7 days before CI_NOW.
        assert!(!bounded(tool, "--since", "-7d").stdout.is_empty(), "{tool}");
    }
}

#[test]
fn a_bad_time_is_refused_alike() {
    let reason = "unknown unit \"x\" (relative ages use s, m, h, d or w); expected an RFC 3339 timestamp \
        (2026-03-01T08:00:00Z, any fraction, Z or an offset like +02:00), a date-time in the --tz zone \
        (2026-03-01T08:00), a date (2026-03-01), a relative age (90s, 30m, 2h, 7d or -7d, 2w, 1h30m), \"now\", \
        or the start of a period: today, yesterday, this-week, last-week, this-month, last-month";
    for tool in ["ci-find", "ci-filter", "ci-cat", "ci-agg", "ci-grep"] {
        for flag in ["--since", "--until"] {
            for v in ["7x", "-7x"] {
                let want = refused(&format!("{flag} <TIME>"), v, reason);
                assert_refused(&bounded(tool, flag, v), &want, &format!("{tool} {flag} {v}"));
            }
        }
    }
    // An error found only once --tz is known has the same words.
    for tool in ["ci-find", "ci-filter", "ci-cat", "ci-agg", "ci-grep"] {
        let run = bounded(tool, "--until", "9999-12-31");
        assert_eq!(run.code, 2);
        let want = format!("{tool}: invalid value '9999-12-31' for '--until <TIME>': ");
        assert!(run.stderr.starts_with(&want), "{tool}: {}", run.stderr);
    }
}

/// The tools that take --tz, each with arguments where the zone matters.
fn zoned(tool: &str, tz: &str) -> Run {
    match tool {
        "ci-find" => ci(tool).args(["--root", DEMO, "--since", "2026-03-05T04:00", "--tz", tz]).run(),
        "ci-filter" => ci(tool).args(["--since", "2026-03-06T00:00", "--tz", tz, DEMO]).run(),
        _ => ci(tool).args(["--by", "hour", "--tz", tz, DEMO]).run(),
    }
}

#[test]
fn tz_takes_negative_offsets_in_every_tool() {
    for tool in ["ci-find", "ci-filter", "ci-agg"] {
        let west = zoned(tool, "-05:00");
        assert_eq!(west.code, 0, "{tool}: {west:?}");
        let utc = zoned(tool, "UTC");
        assert_eq!(zoned(tool, "+00:00").stdout, utc.stdout, "{tool}");
        if tool == "ci-agg" {
            assert!(west.stdout.contains("\"tz\":\"-05:00\""), "{}", west.stdout);
        }
        assert_ne!(west.stdout, utc.stdout, "{tool}: the zone is used");
    }
}

#[test]
fn a_bad_tz_is_refused_alike() {
    let reason = "failed to find time zone `Mars/Base` in time zone database; expected an IANA time zone name \
        (Europe/Berlin), UTC, an offset like +02:00 or -05:00, or local";
    for tool in ["ci-find", "ci-filter", "ci-agg"] {
        assert_refused(&zoned(tool, "Mars/Base"), &refused("--tz <TZ>", "Mars/Base", reason), tool);
        let run = zoned(tool, "-5");
        assert_eq!(run.code, 2, "{tool}");
        assert!(run.stderr.starts_with("error: invalid value '-5' for '--tz <TZ>': "), "{tool}: {}", run.stderr);
    }
}

/// A `--where` error names each column once (it read "… at column 1 at column 15").
#[test]
fn where_errors_name_the_column_once() {
    let run = ci("ci-filter").args(["--where", "(data.x exists", DEMO]).run();
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        "ci-filter: --where: expected ')' to close the '(' of column 1 at column 15\n  (data.x exists\n                ^\n"
    );
}
