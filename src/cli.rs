//! Command-line plumbing shared by all five binaries: common flags, the
//! `--generate` hook for man pages and shell completions, and `main`.

pub mod groups;
mod man;
pub mod values;

pub use self::groups::{Format, Tabular, TimeWindow, Zone};

use std::io::Write;
use std::process::ExitCode;

use clap::{Args, Parser, ValueEnum};

use crate::diag::Diag;
use crate::error::{exit_code, Found, Result};
use crate::output::{EventFormat, DEFAULT_MAX_BYTES, MAX_BYTES_ENV};

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
    pub fn format(&self) -> EventFormat {
        EventFormat {
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
}

/// The man page for a command, as committed under `man/` ([`man::page`]).
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
pub fn main<T: Tool>(run: fn(T, &Diag) -> Result<Found>) -> ExitCode {
    let cmd = T::command();
    let prog: &'static str = Box::leak(cmd.get_name().to_owned().into_boxed_str());
    let args = match T::try_parse() {
        Ok(args) => args,
        // --help, --version (exit 0) and usage errors (exit 2), printed by
        // clap; output that cannot be written (a full disk) is an error.
        Err(e) => {
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
    crate::signal::install();
    let diag = Diag::new(prog, args.common().strict);
    let result = run(args, &diag);
    if !matches!(result, Err(crate::error::Error::BrokenPipe)) {
        diag.summary();
    }
    if crate::signal::stop_requested() && result.is_ok() {
        // Interrupted: 130 (0 when following); see src/signal.rs.
        return ExitCode::from(crate::signal::status(diag.failed()));
    }
    exit_code(prog, result, diag.failed())
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
