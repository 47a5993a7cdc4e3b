//! Errors as values, and the one place that maps an outcome to an exit code.
//!
//! Exit codes follow grep: 0 when something was found or printed, 1 when
//! nothing was, 2 on an error (an error wins over a match, as in ripgrep).
//! A closed stdout (`| head`) is not an error: the tool stops quietly with 0.

use std::fmt;
use std::io;
use std::path::PathBuf;
use std::process::ExitCode;

/// An error that stops a tool.
#[derive(Debug)]
pub enum Error {
    /// Bad arguments or a bad expression; the message says which.
    Usage(String),
    /// An I/O error on a named file.
    Io(PathBuf, io::Error),
    /// An I/O error on stdin or stdout.
    Stream(io::Error),
    /// Stdout was closed by the reader: stop quietly.
    BrokenPipe,
    /// A signal stopped the run at a record boundary, everything produced
    /// before written: [`crate::cli::main`] ends it with the status of
    /// [`crate::signal::status`] (130, or 0 when following).
    Stopped,
    /// The output reached its bound ([`crate::output::Output::limit_lines`]):
    /// what fits is written, the run stops; the tool says so and ends with
    /// its usual status.
    Enough,
    /// Anything else worth a message (a missing root, an ambiguous id).
    Msg(String),
}

impl Error {
    /// Wraps an I/O error on stdout/stdin, keeping a closed pipe recognisable.
    pub fn stream(e: io::Error) -> Error {
        if e.kind() == io::ErrorKind::BrokenPipe {
            Error::BrokenPipe
        } else {
            Error::Stream(e)
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Usage(m) | Error::Msg(m) => f.write_str(m),
            Error::Io(p, e) => write!(f, "{}: {}", p.display(), e),
            Error::Stream(e) => write!(f, "{e}"),
            Error::BrokenPipe => f.write_str("broken pipe"),
            Error::Stopped => f.write_str("stopped by a signal"),
            Error::Enough => f.write_str("output bound reached"),
        }
    }
}

impl std::error::Error for Error {}

impl From<io::Error> for Error {
    fn from(e: io::Error) -> Error {
        Error::stream(e)
    }
}

/// Result type of the library.
pub(crate) type Result<T> = std::result::Result<T, Error>;

/// How a run ended when it did not fail: the exit status 0 or 1, as grep's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Something was printed (a match, a record, a count; exit 0).
    Printed,
    /// Nothing was (exit 1).
    Nothing,
}

impl Outcome {
    /// [`Outcome::Printed`] when `printed`, else [`Outcome::Nothing`].
    pub fn printed_if(printed: bool) -> Outcome {
        if printed {
            Outcome::Printed
        } else {
            Outcome::Nothing
        }
    }
}

/// Maps the outcome of a run to the process exit code, printing the error.
/// `failed` is true when diagnostics already decided the run failed (bad
/// lines under `--strict`, unreadable files).
pub(crate) fn exit_code(prog: &str, result: Result<Outcome>, failed: bool) -> ExitCode {
    match result {
        Err(Error::BrokenPipe) => ExitCode::SUCCESS,
        Err(e) => {
            crate::diag::eprint(format_args!("{prog}: {e}"));
            ExitCode::from(2)
        }
        Ok(_) if failed => ExitCode::from(2),
        Ok(Outcome::Printed) => ExitCode::SUCCESS,
        Ok(Outcome::Nothing) => ExitCode::from(1),
    }
}
