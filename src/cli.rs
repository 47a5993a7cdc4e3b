//! Command-line plumbing shared by all five binaries: common flags, the
//! `--generate` hook for man pages and shell completions, and `main`.

pub mod groups;
mod man;
pub mod values;

pub use self::groups::{EventSelect, Layout, Tabular, TimeWindow, Zone};

use std::io::Write;
use std::process::ExitCode;

use clap::{Args, Parser, ValueEnum};

use crate::diag::Diag;
use crate::error::{exit_code, Error, Outcome, Result};
use crate::output::{EventPrinter, DEFAULT_MAX_BYTES, MAX_BYTES_ENV};
use crate::signal::GRACE;

/// What `--generate` writes to stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Generate {
    /// A roff man page.
    Man,
    /// bash completions.
    CompleteBash,
    /// zsh completions.
    CompleteZsh,
    /// fish completions.
    CompleteFish,
}

/// Flags every tool has.
#[derive(Debug, Clone, Args)]
pub struct Common {
    /// Worker threads [default: all cores; at most 256].
    #[arg(short = 'j', long, value_name = "N", global = true)]
    pub threads: Option<usize>,
    /// Treat any bad input line as an error (exit code 2).
    #[arg(long, global = true)]
    pub strict: bool,
    /// Print a man page or shell completions and exit.
    #[arg(long, value_name = "KIND")]
    pub generate: Option<Generate>,
}

/// The most worker threads a tool starts (`-j` above it is capped, with a
/// warning: each thread holds buffers, and thousands only cost start-up time).
pub const MAX_THREADS: usize = 256;

impl Common {
    /// The worker count to use: `-j` (at least 1, at most [`MAX_THREADS`]), else all cores.
    pub fn threads(&self, diag: &crate::diag::Diag) -> usize {
        match self.threads {
            Some(n) if n > MAX_THREADS => {
                diag.warn(&format_args!("-j {n} is more than {MAX_THREADS}: using {MAX_THREADS}"));
                MAX_THREADS
            }
            Some(n) => n.max(1),
            None => crate::source::default_threads().clamp(1, MAX_THREADS),
        }
    }
}

/// `--session`, declared once for every tool; the rule is
/// [`crate::session_id`]'s.
#[derive(Debug, Clone, Args)]
pub struct SessionArg {
    /// Only this session: its exact id, or a prefix of at least 8 characters
    /// that starts one id only (a prefix starting several is an error that
    /// lists them; a shorter one, or a part from inside an id, is refused).
    /// Repeatable (OR).
    #[arg(long = "session", value_name = "ID")]
    pub session: Vec<String>,
}

impl SessionArg {
    /// The values, parsed (a usage error names a bad one).
    pub fn ids(&self) -> Result<crate::session_id::SessionIds> {
        crate::session_id::SessionIds::parse("--session", &self.session)
    }
}

/// Flags of tools that print event records.
#[derive(Debug, Clone, Args)]
pub struct EventOutput {
    /// Byte budget per printed event record: long strings in `data` are cut
    /// (with a `…[+N bytes]` marker) and long arrays elided until it fits.
    /// A size: 4096, 4k, 1M (k, M, G are powers of 1024); at least 1k. The
    /// envelope and protected fields are never cut, so a record whose floor
    /// is larger than N is printed at that floor. A record printed cut says
    /// so (`ci.cut`: its line's offset and hash), and a ci-* tool reading it
    /// reads the line again whole.
    #[arg(long, value_name = "N", env = MAX_BYTES_ENV, hide_env_values = true, default_value_t = DEFAULT_MAX_BYTES, value_parser = values::max_bytes)]
    pub max_bytes: usize,
    /// Print records whole, without the byte budget.
    #[arg(long)]
    pub full: bool,
    #[command(flatten)]
    pub provenance: Provenance,
}

impl EventOutput {
    /// The event printer these flags describe.
    pub fn printer(&self) -> EventPrinter {
        EventPrinter {
            max_bytes: (!self.full).then_some(self.max_bytes),
            raw: false,
            fields: None,
            no_provenance: self.provenance.no_provenance,
        }
    }
}

/// `--no-provenance`, of the tools that print event records or matches.
#[derive(Debug, Clone, Args)]
pub struct Provenance {
    /// Leave out the provenance key `ci` ({"session","path","line"}). The
    /// output then no longer says where each record came from, so a ci-*
    /// tool reading it cannot go back to the line or its session (ci-cat
    /// --head/--tail per session, ci-agg's session metadata, ci-grep -l):
    /// use it at the end of a pipeline, for people or other programs.
    #[arg(long)]
    pub no_provenance: bool,
}

/// A tool: its arguments know their common flags.
pub trait Tool: Parser {
    /// The common flags.
    fn common(&self) -> &Common;

    /// Whether the run follows its inputs (`--follow`): a signal then ends
    /// it with status 0 ([`crate::signal::status`]).
    fn follows(&self) -> bool {
        false
    }
}

/// The man page for a command, as committed under `man/` (`man::page`).
pub fn man_page(cmd: clap::Command) -> Vec<u8> {
    man::page(cmd)
}

/// Completions for a command.
pub fn completions(mut cmd: clap::Command, kind: Generate) -> Vec<u8> {
    use clap_complete::Shell;
    let shell = match kind {
        Generate::CompleteBash => Shell::Bash,
        Generate::CompleteZsh => Shell::Zsh,
        Generate::CompleteFish => Shell::Fish,
        Generate::Man => return man_page(cmd),
    };
    let name = cmd.get_name().to_owned();
    let mut buf = vec![];
    clap_complete::generate(shell, &mut cmd, name, &mut buf);
    buf
}

/// The body of every binary: parse, handle `--generate`, run, map to an exit code.
///
/// `commands` lists every tool's command line, in pipeline order
/// (`cmd::commands`), for the hint naming the tool that has a flag this one
/// lacks; it is passed in so that this layer does not import the tools.
pub fn main<T: Tool>(run: fn(T, &Diag) -> Result<Outcome>, commands: fn() -> Vec<clap::Command>) -> ExitCode {
    let cmd = T::command();
    let prog: &'static str = Box::leak(cmd.get_name().to_owned().into_boxed_str());
    let args = match T::try_parse() {
        Ok(args) => args,
        // --help, --version (exit 0) and usage errors (exit 2), printed by
        // clap; output that cannot be written (a full disk) is an error.
        Err(e) => {
            let e = other_tool_hint(e, &mut T::command(), commands);
            let code = e.exit_code();
            let printed = e.print().and_then(|()| std::io::stdout().flush());
            return match printed {
                Err(err) if code == 0 => output_failed(prog, &err),
                _ => ExitCode::from(u8::try_from(code).unwrap_or(2)),
            };
        }
    };
    if let Some(kind) = args.common().generate {
        let bytes = completions(cmd, kind);
        let mut out = std::io::stdout();
        return match out.write_all(&bytes).and_then(|()| out.flush()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(err) => output_failed(prog, &err),
        };
    }
    let following = args.follows();
    install_signal_handler(following);
    let diag = Diag::new(prog, args.common().strict);
    let result = run(args, &diag);
    if !matches!(result, Err(Error::BrokenPipe)) {
        diag.summary();
    }
    if crate::signal::stop_requested() && matches!(result, Ok(_) | Err(Error::Stopped)) {
        // Interrupted: 130 (0 when following); see src/signal.rs. The write
        // guard is kept until the process ends, so the safety net cannot
        // exit meanwhile with another status.
        std::mem::forget(crate::signal::write_guard());
        return ExitCode::from(crate::signal::status(following, diag.failed()));
    }
    exit_code(prog, result, diag.failed())
}

/// Installs the SIGINT/SIGTERM/SIGHUP handler ([`crate::signal`]): it asks
/// the run to stop, which then returns its outcome to [`main`]. A second
/// call, or a failure to install, leaves the handlers as they are (the
/// defaults kill the process, which may cut the record being written).
///
/// The safety net, the one exit outside `main`'s return: a run blocked
/// where the stop is not checked (a long directory walk, a write to a
/// reader that does not read) cannot return, so [`GRACE`] after the signal
/// the handler ends the process itself, with the status `main` would have
/// returned for a clean run, once no write to stdout is in progress.
fn install_signal_handler(following: bool) {
    let _ = ctrlc::set_handler(move || {
        crate::signal::request_stop();
        std::thread::sleep(GRACE);
        // Never in the middle of a write: wait for the one in progress.
        let _writing = crate::signal::write_guard();
        std::process::exit(i32::from(crate::signal::status(following, false)));
    });
}

/// An unknown `--flag` that another ci-* tool has: clap's own tip (a
/// similar flag of this tool, or "use `-- --flag`") would mislead, so the
/// tip names the tool that has it and the pipeline that uses it, e.g.
/// `ci-cat has no --root: it reads PATHs or stdin; discover sessions with
/// ci-find --root R | ci-cat`.
fn other_tool_hint(mut e: clap::Error, cmd: &mut clap::Command, commands: fn() -> Vec<clap::Command>) -> clap::Error {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if e.kind() != ErrorKind::UnknownArgument {
        return e;
    }
    let prog = cmd.get_name().to_owned();
    let prog = prog.as_str();
    let Some(ContextValue::String(arg)) = e.get(ContextKind::InvalidArg) else { return e };
    let Some(long) = arg.strip_prefix("--").map(|a| a.split('=').next().unwrap_or(a).to_owned()) else { return e };
    let commands = commands();
    let owners: Vec<&clap::Command> = commands
        .iter()
        .filter(|c| c.get_name() != prog && c.get_arguments().any(|a| a.get_long() == Some(long.as_str())))
        .collect();
    let Some(first) = owners.first() else { return e };
    let owner = first.get_name();
    let spec = first.get_arguments().find(|a| a.get_long() == Some(long.as_str()));
    let value = match spec.filter(|a| a.get_action().takes_values()) {
        Some(a) => {
            let name = a.get_value_names().and_then(|n| n.first()).map_or("V".into(), |n| n.to_string());
            format!(" {}", flag_value(&long).unwrap_or(name))
        }
        None => String::new(),
    };
    let flag = format!("--{long}{value}");
    let tip = if let Some(own) = own_flag(prog, &long) {
        format!("{prog} has no --{long}; {own}")
    } else if long == "root" && prog != "ci-find" {
        format!("{prog} has no --root: it reads PATHs (a root is one) or stdin; discover sessions with ci-find {flag} | {prog}")
    } else {
        let names: Vec<&str> = owners.iter().map(|c| c.get_name()).collect();
        let have = if names.len() == 1 { "has" } else { "have" };
        let pipeline = match (prog, owner) {
            ("ci-find", _) => format!("ci-find | {owner} {flag}"),
            (_, "ci-find") => format!("ci-find {flag} | {prog}"),
            (_, "ci-agg") => format!("{prog} … | ci-agg {flag}"),
            _ => format!("{owner} {flag} … | {prog}"),
        };
        format!("{prog} has no --{long}; {} {have} it: {pipeline}", names.join(" and "))
    };
    e.remove(ContextKind::SuggestedArg);
    e.insert(ContextKind::Suggested, ContextValue::StyledStrs(vec![tip.into()]));
    // clap's usage line would show the similar flag it suggested.
    e.insert(ContextKind::Usage, ContextValue::StyledStr(cmd.render_usage()));
    e
}

/// A tool's own flag for what another tool's `--flag` of that name does
/// elsewhere: `ci-agg --top N` picks groups, ci-find's sessions are bounded
/// by `--limit N` (piping the listing into ci-agg would read every event to
/// print one count).
fn own_flag(prog: &str, long: &str) -> Option<String> {
    match (prog, long) {
        ("ci-find", "top" | "head") => {
            let n = flag_value(long).unwrap_or_else(|| "N".into());
            Some(format!("the first {n} sessions: ci-find --limit {n}"))
        }
        _ => None,
    }
}

/// The value typed after an unknown `--flag` (`--flag=V` or `--flag V`).
fn flag_value(long: &str) -> Option<String> {
    let args: Vec<String> = std::env::args_os().map(|a| a.to_string_lossy().into_owned()).collect();
    let flag = format!("--{long}");
    for (i, a) in args.iter().enumerate() {
        if let Some(v) = a.strip_prefix(&flag).and_then(|rest| rest.strip_prefix('=')) {
            return Some(v.to_owned());
        }
        if *a == flag {
            if let Some(v) = args.get(i + 1).filter(|v| !v.starts_with('-')) {
                return Some(v.clone());
            }
        }
    }
    None
}

/// Help, version or generated text that could not be written: reported,
/// exit 2 (a closed pipe is a quiet 0, as for every output).
fn output_failed(prog: &str, err: &std::io::Error) -> ExitCode {
    if err.kind() == std::io::ErrorKind::BrokenPipe {
        return ExitCode::SUCCESS;
    }
    crate::diag::eprint(format_args!("{prog}: stdout: {err}"));
    ExitCode::from(2)
}

/// Parses `--lines N` or `--lines A-B` (1-based, inclusive, as `sed -n`).
pub fn parse_line_range(s: &str) -> std::result::Result<(u64, u64), String> {
    let num = |t: &str| t.trim().parse::<u64>().ok().filter(|&n| n >= 1);
    let bad = || format!("invalid line range {s:?}: use N or A-B (1-based)");
    match s.split_once('-') {
        None => num(s).map(|n| (n, n)).ok_or_else(bad),
        Some((a, b)) => match (num(a), num(b)) {
            (Some(a), Some(b)) if a <= b => Ok((a, b)),
            _ => Err(bad()),
        },
    }
}
