//! The man page of a tool: clap_mangen's, with a SYNOPSIS that shows each
//! option's argument (`[--by KEY[,KEY…]]`; clap_mangen 0.3 writes `[--by]`).

use clap::{Arg, ArgAction, Command};

/// The man page for a command, as committed under `man/`.
pub(super) fn page(mut cmd: Command) -> Vec<u8> {
    cmd.build();
    let synopsis = synopsis(&cmd);
    let mut buf = vec![];
    // Rendering into a Vec cannot fail.
    let _ = clap_mangen::Man::new(cmd).render(&mut buf);
    let text = String::from_utf8_lossy(&buf);
    // The section is one text line after its heading.
    let heading = ".SH SYNOPSIS\n";
    match text.find(heading).map(|i| i + heading.len()) {
        Some(start) => {
            let end = text[start..].find('\n').map_or(text.len(), |n| start + n);
            format!("{}{synopsis}{}", &text[..start], &text[end..]).into_bytes()
        }
        None => buf,
    }
}

/// `text` escaped for a roff text line (as the roff crate does).
fn roff(text: &str) -> String {
    text.replace('\\', r"\\").replace('-', r"\-")
}

fn bold(text: &str) -> String {
    format!(r"\fB{}\fR", roff(text))
}

fn italic(text: &str) -> String {
    format!(r"\fI{}\fR", roff(text))
}

/// The value an option takes, as its help shows it (`KEY[,KEY…]`), or
/// nothing for a flag.
fn value(arg: &Arg) -> String {
    let takes = arg.get_num_args().is_some_and(|n| n.takes_values())
        && !matches!(
            arg.get_action(),
            ArgAction::SetTrue | ArgAction::SetFalse | ArgAction::Count | ArgAction::Help | ArgAction::Version
        );
    if !takes {
        return String::new();
    }
    let name = match arg.get_value_names() {
        Some(names) => names.iter().map(|n| n.as_str()).collect::<Vec<_>>().join(" "),
        None => arg.get_id().as_str().to_uppercase(),
    };
    // `\ `: a space the line is never broken at.
    let optional = arg.get_num_args().is_some_and(|n| n.min_values() == 0);
    if optional {
        format!(r"\ [{}]", italic(&name))
    } else {
        format!(r"\ {}", italic(&name))
    }
}

/// One line: the tool's name, every visible option with its argument, then
/// the positional arguments (`...` when repeatable).
fn synopsis(cmd: &Command) -> String {
    let name = cmd.get_bin_name().unwrap_or_else(|| cmd.get_name());
    let mut line = bold(name);
    let mut opts: Vec<&Arg> = cmd.get_arguments().filter(|a| !a.is_hide_set() && !a.is_positional()).collect();
    opts.sort_by_key(|a| a.get_display_order());
    for a in opts {
        let flag = match (a.get_short(), a.get_long()) {
            (Some(s), Some(l)) => format!("{}|{}", bold(&format!("-{s}")), bold(&format!("--{l}"))),
            (Some(s), None) => bold(&format!("-{s}")),
            (None, Some(l)) => bold(&format!("--{l}")),
            (None, None) => continue,
        };
        let (open, close) = if a.is_required_set() { ("<", ">") } else { ("[", "]") };
        line.push_str(&format!(" {open}{flag}{}{close}", value(a)));
    }
    for a in cmd.get_positionals().filter(|a| !a.is_hide_set()) {
        let names = a.get_value_names().map_or_else(
            || a.get_id().as_str().to_uppercase(),
            |n| n.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(" "),
        );
        let (open, close) = if a.is_required_set() { ("<", ">") } else { ("[", "]") };
        let more = if matches!(a.get_action(), ArgAction::Append) { "..." } else { "" };
        line.push_str(&format!(" {open}{}{close}{more}", italic(&names)));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn synopsis_shows_option_arguments() {
        let cmd = Command::new("t")
            .arg(Arg::new("by").long("by").value_name("KEY[,KEY…]"))
            .arg(Arg::new("threads").short('j').long("threads").value_name("N"))
            .arg(Arg::new("strict").long("strict").action(ArgAction::SetTrue))
            .arg(Arg::new("hidden").long("hidden").hide(true))
            .arg(Arg::new("paths").value_name("PATH").action(ArgAction::Append));
        let mut cmd = cmd;
        cmd.build();
        assert_eq!(
            synopsis(&cmd),
            r"\fBt\fR [\fB\-\-by\fR\ \fIKEY[,KEY…]\fR] [\fB\-j\fR|\fB\-\-threads\fR\ \fIN\fR] [\fB\-\-strict\fR] [\fB\-h\fR|\fB\-\-help\fR] [\fIPATH\fR]..."
        );
    }
}
