//! The committed man pages are generated from the clap definitions; this fails
//! when one is stale. Regenerate with:
//! `for t in find cat filter agg grep; do cargo run -q --bin ci-$t -- --generate man > man/ci-$t.1; done`

use clap::CommandFactory;

use ci_tools::cli::{completions, man_page, Generate};

fn tools() -> Vec<(&'static str, clap::Command)> {
    vec![
        ("ci-find", ci_tools::cmd::find::Args::command()),
        ("ci-cat", ci_tools::cmd::cat::Args::command()),
        ("ci-filter", ci_tools::cmd::filter::Args::command()),
        ("ci-agg", ci_tools::cmd::agg::Args::command()),
        ("ci-grep", ci_tools::cmd::grep::Args::command()),
    ]
}

#[test]
fn man_pages_are_current() {
    for (name, cmd) in tools() {
        let path = crate::util::root().join("man").join(format!("{name}.1"));
        let committed = std::fs::read(&path).unwrap_or_default();
        let generated = man_page(cmd);
        assert!(
            committed == generated,
            "{} is stale: run `cargo run -q --bin {name} -- --generate man > man/{name}.1`",
            path.display()
        );
    }
}

#[test]
fn man_pages_and_help_carry_examples() {
    for (name, cmd) in tools() {
        let page = String::from_utf8(man_page(cmd.clone())).unwrap();
        assert!(page.contains("EXAMPLES"), "{name} man page has no EXAMPLES");
        let help = crate::util::ci(name).arg("--help").run();
        assert_eq!(help.code, 0);
        assert!(help.stdout.contains("EXAMPLES:"), "{name} --help has no EXAMPLES");
    }
}

#[test]
fn completions_for_three_shells() {
    for (name, cmd) in tools() {
        for kind in [Generate::CompleteBash, Generate::CompleteZsh, Generate::CompleteFish] {
            let text = String::from_utf8(completions(cmd.clone(), kind)).unwrap();
            assert!(text.contains(name) && text.contains("threads"), "{name} {kind:?}");
        }
    }
}

#[test]
fn version_flag() {
    for (name, _) in tools() {
        let run = crate::util::ci(name).arg("--version").run();
        assert_eq!(run.stdout, format!("{name} {}\n", env!("CARGO_PKG_VERSION")));
    }
}

/// Every registered format's help sections are in the `--help` of the tool
/// each is for (and so in its man page), in registry order.
#[test]
fn help_carries_every_formats_sections() {
    type Of = fn(&ci_tools::format::Help) -> Option<&ci_tools::format::Section>;
    let tools: [(&str, Of); 4] = [
        ("ci-find", |h| h.find.as_ref()),
        ("ci-cat", |h| h.cat.as_ref()),
        ("ci-filter", |h| h.filter.as_ref()),
        ("ci-grep", |h| h.grep.as_ref()),
    ];
    let mut seen = 0;
    for (name, of) in tools {
        let help = crate::util::ci(name).arg("--help").run().stdout;
        let mut from = 0;
        for s in ci_tools::format::FORMATS.iter().filter_map(|f| of(&f.help)) {
            let text = format!("\n\n{}:\n{}\n\n", s.title, s.body);
            let at =
                help[from..].find(&text).unwrap_or_else(|| panic!("{name} --help lacks, or misorders, {}", s.title));
            from += at + text.len() - 2;
            seen += 1;
        }
    }
    assert!(seen >= 4, "the registry gives help sections");
    let find = crate::util::ci("ci-find").arg("--help").run().stdout;
    for f in ci_tools::format::FORMATS {
        if let Some(roots) = f.help.roots {
            assert!(find.contains(&format!("\n  - {roots}")), "ci-find --help lacks the default roots of {}", f.name);
        }
    }
}
