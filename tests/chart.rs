//! `--format chart` (issue 32): one number per record as horizontal bars,
//! labels and values aligned, fitting the width; colour on a terminal only.

use crate::tables::{on_terminal, readme_block};
use crate::util::{ci, Run};

const CLEAN: &str = "fixtures/demo-clean";

fn chart(width: usize, args: &[&str]) -> Run {
    ci("ci-agg").env("CI_COLUMNS", width.to_string()).args(["--format", "chart"]).args(args).run()
}

#[test]
fn a_chart_draws_the_cost_of_each_day_and_model() {
    let run = chart(60, &["--tokens", "--by", "day", CLEAN]);
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    assert_eq!(
        run.stdout,
        "\
day (UTC)   model                                   cost_usd
2026-03-01  gpt-5-mini  ▍                              $0.00
2026-03-02  sonnet-4.5  ██████████████████████████     $0.05
2026-03-02  haiku-4.5   ███                            $0.01
2026-03-03  gpt-5.1     █████▎                         $0.01
"
    );
}

#[test]
fn a_chart_fits_the_width_and_draws_the_last_named_column() {
    for width in [40, 80, 120, 200] {
        for args in [&["--by", "event", "fixtures/demo"][..], &["--sessions", CLEAN], &["--tools", CLEAN]] {
            let run = chart(width, args);
            assert_eq!(run.code, 0, "{args:?}: {run:?}");
            let widest = run.stdout.lines().map(unicode_width::UnicodeWidthStr::width).max().unwrap_or(0);
            assert!(widest <= width, "{args:?} at {width}:\n{}", run.stdout);
        }
    }
    // Labels are cut with … to leave the bars room.
    let run = chart(40, &["--sessions", CLEAN]);
    assert!(
        run.stdout.lines().nth(5).is_some_and(|l| l.starts_with("a7c3e9d1-4b2f-4e8…  ██████████     $0.05")),
        "{}",
        run.stdout
    );
    // --columns: the labels, then the number.
    let run = chart(50, &["--by", "day", "--columns", "day,count", CLEAN]);
    assert_eq!(
        run.stdout,
        "\
day (UTC)                                    count
2026-03-01  █████▍                               7
2026-03-02  ███████████████████████████████     40
2026-03-03  ███████▊                            10
2026-03-06  ██████▎                              8
"
    );
}

#[test]
fn a_chart_refuses_text_to_draw_and_has_a_header_when_empty() {
    let run = chart(60, &["--by", "event", "--columns", "count,event", CLEAN]);
    assert_eq!(
        (run.code, run.stdout.as_str(), run.stderr.as_str()),
        (
            2,
            "",
            "ci-agg: --columns: \"event\" is no number: a chart draws the last column as bars (--columns day,cost_usd)\n"
        )
    );
    let run = chart(60, &["--tokens", "--by", "day", "--since", "2030-01-01", CLEAN]);
    assert_eq!((run.code, run.stdout.as_str()), (1, "day (UTC)  model                                    cost_usd\n"));
}

#[test]
fn bars_are_coloured_on_a_terminal_only() {
    let (screen, code) = on_terminal("ci-agg", &["--by", "day", "--format", "chart", CLEAN], 60);
    assert_eq!(code, 0);
    assert!(screen.contains("\x1b[36m████"), "{screen:?}");
    let piped = chart(60, &["--by", "day", CLEAN]);
    assert!(!piped.stdout.contains('\x1b'), "{}", piped.stdout);
    assert_eq!(screen.replace("\x1b[36m", "").replace("\x1b[0m", ""), piped.stdout);
}

/// The README's chart is the one the tool draws.
#[test]
fn the_readme_shows_the_chart() {
    let (args, shown) = readme_block("A chart, on a 60-column terminal (the bars are coloured there):");
    let run = ci("ci-agg").env("CI_COLUMNS", "60").args(&args).run();
    assert_eq!((run.stdout, run.code), (shown, 0));
}
