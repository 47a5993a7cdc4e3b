//! One interface across the five tools (issue 15, item 10): `--generate` in
//! `--help`, completions that complete values, a man SYNOPSIS with option
//! arguments, and argument groups declared once.

use clap::CommandFactory;

use crate::util::ci;

const TOOLS: [&str; 5] = ["ci-find", "ci-cat", "ci-filter", "ci-agg", "ci-grep"];

fn commands() -> Vec<clap::Command> {
    vec![
        ci_tools::cmd::find::Args::command(),
        ci_tools::cmd::cat::Args::command(),
        ci_tools::cmd::filter::Args::command(),
        ci_tools::cmd::agg::Args::command(),
        ci_tools::cmd::grep::Args::command(),
    ]
}

fn generated(tool: &str, kind: &str) -> String {
    let run = ci(tool).args(["--generate", kind]).run();
    assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{tool} --generate {kind}");
    run.stdout
}

/// The bash completion case of `flag` in the script's first (top-level) block.
fn bash_case(script: &str, flag: &str) -> String {
    let start = script.find(&format!("                {flag})\n")).unwrap_or_else(|| panic!("no case for {flag}"));
    let rest = &script[start..];
    rest[..rest.find(";;").expect("case end")].to_owned()
}

/// The words `compgen -W` offers in a bash case.
fn offered(case: &str) -> Vec<String> {
    let words = case.split("compgen -W \"").nth(1).unwrap_or_else(|| panic!("no word list: {case}"));
    words[..words.find('"').expect("end of words")].split_whitespace().map(str::to_owned).collect()
}

#[test]
fn help_lists_generate() {
    for tool in TOOLS {
        let run = ci(tool).arg("--help").run();
        assert_eq!(run.code, 0);
        assert!(
            run.stdout.contains("      --generate <KIND>\n          Print a man page or shell completions and exit"),
            "{tool}"
        );
        assert!(run.stdout.contains("- complete-bash: bash completions"), "{tool}");
        let short = ci(tool).arg("-h").run();
        assert!(short.stdout.contains("--generate <KIND>"), "{tool} -h");
    }
}

#[test]
fn bash_completes_group_keys_not_file_names() {
    let script = generated("ci-agg", "complete-bash");
    let by = bash_case(&script, "--by");
    assert!(!by.contains("compgen -f"), "{by}");
    let names: Vec<String> = ci_tools::aggregate::field::NAMES.iter().map(|s| (*s).to_owned()).collect();
    assert_eq!(offered(&by), names);
    // Metrics read the same fields.
    assert_eq!(offered(&bash_case(&script, "--sum")), names);
    assert_eq!(offered(&bash_case(&script, "--sort")), ["auto", "count", "key"]);
    assert_eq!(offered(&bash_case(&script, "--format")), ["json", "table", "tsv", "csv", "markdown", "chart"]);
    assert_eq!(offered(&bash_case(&script, "--cost")), ["auto", "computed"]);
    assert!(!bash_case(&script, "--columns").contains("compgen -f"));
    assert_eq!(offered(&bash_case(&script, "--tz")), ["UTC", "local"]);
    let find = generated("ci-find", "complete-bash");
    let columns = offered(&bash_case(&find, "--columns"));
    assert_eq!(columns[..3], ["session", "project", "workspace"]);
    assert!(columns.contains(&"started_at".to_owned()) && columns.contains(&"tags".to_owned()), "{columns:?}");
    assert_eq!(offered(&bash_case(&find, "--format")), ["json", "table", "tsv", "csv", "markdown", "chart"]);
    // Times: what was typed, never a file name.
    for flag in ["--since", "--until"] {
        let case = bash_case(&find, flag);
        assert!(case.contains("COMPREPLY=(\"${cur}\")") && !case.contains("compgen"), "{case}");
    }
}

/// Every event name the fixtures' writers give is offered for `--event`.
#[test]
fn event_names_of_every_writer_are_completed() {
    for tool in ["ci-filter", "ci-grep"] {
        let script = generated(tool, "complete-bash");
        let names = offered(&bash_case(&script, "--event"));
        for want in ["tool:pre", "llm:response", "session:fork", "delegate:agent_spawned", "hook:AcceptedRedirection"] {
            assert!(names.iter().any(|n| n == want), "{tool}: {want} not in {names:?}");
        }
        if tool == "ci-filter" {
            assert_eq!(offered(&bash_case(&script, "--not-event")), names);
        }
    }
    let known = ci_tools::format::event_names();
    for root in [
        "fixtures/demo-clean",
        "fixtures/sessiondata",
        "fixtures/claude-transcripts",
        "fixtures/codex",
        "fixtures/hook-logs/ranaroussi__quantstats",
    ] {
        let run = ci("ci-agg").args(["--by", "event", root]).run();
        assert_eq!(run.code, 0, "{root}: {run:?}");
        for r in run.json() {
            let name = r["event"].as_str().unwrap_or_default().to_owned();
            assert!(known.contains(&name.as_str()), "{root}: {name} is not among the completed event names");
        }
    }
    // Any name or glob is still taken.
    let run = ci("ci-filter").args(["--event", "tool:*", "--event", "custom:thing", "fixtures/demo-clean"]).run();
    assert_eq!(run.code, 0, "{run:?}");
}

#[test]
fn any_group_key_and_sort_column_is_still_taken() {
    let run = ci("ci-agg").args(["--by", "data.tool_name", "--sort", "data.tool_name", "fixtures/demo-clean"]).run();
    assert_eq!((run.code, run.json()[0]["data.tool_name"].as_str()), (0, Some("bash")), "{run:?}");
}

#[test]
fn zsh_and_fish_complete_values_too() {
    let zsh = generated("ci-agg", "complete-zsh");
    assert!(zsh.contains(":KEY[,KEY…]:(event workspace session tool model"), "{zsh}");
    let fish = generated("ci-filter", "complete-fish");
    // One candidate per line, after the --event line.
    let at = fish.find("-l event ").expect("fish --event");
    let block = &fish[at..at + fish[at..].find("\ncomplete ").expect("next flag")];
    assert!(block.contains("\ntool:pre\\t") && block.contains("\nllm:response\\t"), "{block}");
}

/// clap_mangen 0.3 wrote `[--by]`; the synopsis now names each option's argument.
#[test]
fn man_synopsis_shows_option_arguments() {
    let synopsis = |tool: &str| -> String {
        let page = generated(tool, "man");
        let at = page.find(".SH SYNOPSIS\n").expect("SYNOPSIS") + ".SH SYNOPSIS\n".len();
        page[at..].lines().next().unwrap().to_owned()
    };
    let agg = synopsis("ci-agg");
    for want in [
        r"[\fB\-\-by\fR\ \fIKEY[,KEY…]\fR]",
        r"[\fB\-\-tz\fR\ \fITZ\fR]",
        r"[\fB\-\-sort\fR\ \fIORDER\fR]",
        r"[\fB\-j\fR|\fB\-\-threads\fR\ \fIN\fR]",
        r"[\fB\-\-sessions\fR]",
        r"[\fB\-\-generate\fR\ \fIKIND\fR]",
        r"[\fIPATH\fR]...",
    ] {
        assert!(agg.contains(want), "{want} not in {agg}");
    }
    let cat = synopsis("ci-cat");
    assert!(cat.contains(r"[\fB\-\-lines\fR\ \fIN|A\-B\fR]"), "{cat}");
    // Every option that takes a value shows it.
    for (tool, cmd) in TOOLS.iter().zip(commands()) {
        let line = synopsis(tool);
        for arg in cmd.get_arguments().filter(|a| !a.is_positional() && !a.is_hide_set()) {
            let takes = arg.get_action().takes_values();
            if let (Some(long), Some(names), true) = (arg.get_long(), arg.get_value_names(), takes) {
                let want = format!(r"\-\-{}\fR\ \fI{}", long.replace('-', r"\-"), names[0].replace('-', r"\-"));
                assert!(line.contains(&want), "{tool}: {want} not in {line}");
            }
        }
    }
}

/// `--since`, `--until` and `--tz` are one declaration (src/cli/groups.rs)
/// flattened into each tool: the same value name, parser rules and default.
#[test]
fn time_flags_are_declared_once() {
    let cmds = commands();
    let arg = |cmd: &clap::Command, id: &str| cmd.get_arguments().find(|a| a.get_id() == id).cloned();
    let shape = |a: clap::Arg| {
        (
            a.get_value_names().map(|v| v.iter().map(|s| s.to_string()).collect::<Vec<_>>()),
            a.is_allow_hyphen_values_set(),
            a.get_default_values().iter().map(|v| v.to_string_lossy().into_owned()).collect::<Vec<_>>(),
        )
    };
    for id in ["since", "until", "tz"] {
        let shapes: Vec<_> = cmds.iter().filter_map(|c| arg(c, id)).map(shape).collect();
        let expected = 5; // every tool (issue 31: a time window everywhere)
        assert_eq!(shapes.len(), expected, "{id}");
        assert!(shapes.windows(2).all(|w| w[0] == w[1]), "{id}: {shapes:?}");
    }
    for (tool, extra) in
        [("ci-find", vec!["--root", "fixtures/demo-clean"]), ("ci-filter", vec!["fixtures/demo-clean"])]
    {
        for (flag, value) in [("--since", "-7d"), ("--until", "7d"), ("--tz", "-05:00")] {
            let run = ci(tool).args(&extra).args([flag, value]).run();
            assert_ne!(run.code, 2, "{tool} {flag} {value}: {run:?}");
        }
    }
    let run = ci("ci-agg").args(["--by", "day", "--tz", "-05:00", "fixtures/demo-clean"]).run();
    assert_eq!((run.code, run.json()[0]["tz"].as_str()), (0, Some("-05:00")), "{run:?}");
}

/// ci-filter and ci-grep select events with one declaration of `--event`
/// and `--workspace` (same value name, parser, hyphen rule, help).
#[test]
fn event_selection_flags_are_declared_once() {
    let cmds = commands();
    let arg = |cmd: &clap::Command, id: &str| cmd.get_arguments().find(|a| a.get_id() == id).cloned();
    let shape = |a: clap::Arg| {
        (
            a.get_value_names().map(|v| v.iter().map(|s| s.to_string()).collect::<Vec<_>>()),
            a.is_allow_hyphen_values_set(),
            a.get_help().map(|h| h.to_string()),
            a.get_possible_values().len(),
        )
    };
    for id in ["event", "workspace"] {
        let shapes: Vec<_> = cmds
            .iter()
            .filter(|c| ["ci-filter", "ci-grep"].contains(&c.get_name()))
            .filter_map(|c| arg(c, id))
            .map(shape)
            .collect();
        assert_eq!(shapes.len(), 2, "{id}");
        assert!(shapes.windows(2).all(|w| w[0] == w[1]), "{id}: {shapes:?}");
    }
    // A workspace that starts with a hyphen (a project folder) is a value in both.
    let filter =
        ci("ci-filter").args(["--workspace", "-home-user-webapp", "--event", "tool:*", "fixtures/demo-clean"]).run();
    let grep = ci("ci-grep")
        .args(["-c", "--workspace", "-home-user-webapp", "--event", "tool:*", "npm", "fixtures/demo-clean"])
        .run();
    assert_eq!((filter.code, grep.code), (0, 0), "{filter:?} {grep:?}");
}

/// The record printers share `--format` and `--columns` (one declaration).
#[test]
fn table_flags_are_declared_once() {
    for id in ["format", "columns"] {
        let helps: Vec<String> = [ci_tools::cmd::find::Args::command(), ci_tools::cmd::agg::Args::command()]
            .iter()
            .map(|c| c.get_arguments().find(|a| a.get_id() == id).expect(id).get_help().unwrap().to_string())
            .collect();
        assert_eq!(helps[0], helps[1], "{id}");
    }
}
