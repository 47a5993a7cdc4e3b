//! Everything that reaches stdout: the one writer ([`Output`]) and the
//! renderers of what the tools print, one module per shape:
//!
//! - [`event`]: event records as NDJSON (`ci-cat`, `ci-filter`), with
//!   provenance, the byte budget and the cut marker;
//! - [`table`]: records as an aligned table, Markdown, TSV, CSV or NDJSON
//!   (`ci-find`, `ci-agg`); [`human`]: what a table for people shows of a
//!   value, and the width it fits; [`chart`]: one number per record as bars;
//! - [`matches`]: `ci-grep`'s match and count records (NDJSON); [`text`]:
//!   their text lines, and the path lines, with colour;
//! - [`sessions`]: `ci-find`'s session records (NDJSON, `--fields`,
//!   paths); [`tree`]: `ci-find --tree`.
//!
//! Text for people has its control characters made visible by
//! [`crate::text::printable`] (reports, table cells, snippets).

use std::io::{self, IsTerminal, Write};
use std::sync::MutexGuard;

use crate::error::{Error, Result};

pub mod chart;
pub mod event;
pub mod human;
pub mod matches;
pub mod sessions;
pub mod table;
pub mod text;
pub mod tree;

pub use event::{
    json_str, write_cut, write_event_site, write_provenance, EventPrinter, DEFAULT_MAX_BYTES, MAX_BYTES_ENV,
    ORIGINAL_PROVENANCE,
};

/// The one owner of stdout: block-buffered into a pipe or file, flushed after
/// each batch on a terminal so output appears as it is produced.
pub struct Output {
    w: io::BufWriter<io::Stdout>,
    tty: bool,
    /// Whether anything was written (the exit status: 0 printed, 1 nothing).
    wrote: bool,
    /// Lines still allowed ([`Output::limit_lines`]); `None`: no bound.
    lines_left: Option<u64>,
}

impl Output {
    /// Wraps stdout.
    pub fn stdout() -> Output {
        let out = io::stdout();
        let tty = out.is_terminal();
        Output { w: io::BufWriter::with_capacity(256 * 1024, out), tty, wrote: false, lines_left: None }
    }

    /// Whether stdout is a terminal.
    pub fn is_terminal(&self) -> bool {
        self.tty
    }

    /// Whether anything was written so far.
    pub fn wrote(&self) -> bool {
        self.wrote
    }

    /// Lets at most `n` more lines through (`ci-grep --max-total`): a write
    /// that would pass the bound writes the lines up to it and fails with
    /// [`Error::Enough`], which stops the run; a write that meets it exactly
    /// succeeds (the next line, if any, is the one that does not fit).
    pub fn limit_lines(&mut self, n: u64) {
        self.lines_left = Some(n);
    }

    /// Writes bytes. Callers pass whole records (lines), so that what has
    /// reached stdout after any call ends on a record boundary; the write
    /// holds [`crate::signal::write_guard`], so a signal's safety-net exit
    /// never cuts it.
    #[inline]
    pub fn write(&mut self, bytes: &[u8]) -> Result<()> {
        self.locked().write(bytes)
    }

    /// Flushes.
    pub fn flush(&mut self) -> Result<()> {
        self.locked().flush()
    }

    /// Stdout under one write guard for several writes: a signal's
    /// safety-net exit comes before the first or after the last (the
    /// batches of `ci-agg --partial`, a state that is whole or not printed).
    #[inline]
    pub fn locked(&mut self) -> Locked<'_> {
        Locked { _writing: crate::signal::write_guard(), out: self }
    }
}

/// [`Output`] held for several writes ([`Output::locked`]).
pub struct Locked<'o> {
    _writing: MutexGuard<'static, ()>,
    out: &'o mut Output,
}

impl Locked<'_> {
    /// Writes bytes (see [`Output::write`]).
    #[inline]
    pub fn write(&mut self, bytes: &[u8]) -> Result<()> {
        let out = &mut *self.out;
        let (bytes, enough) = match out.lines_left {
            Some(left) => {
                let (len, lines) = lines_within(bytes, left);
                out.lines_left = Some(left - lines);
                (&bytes[..len], len < bytes.len())
            }
            None => (bytes, false),
        };
        out.wrote |= !bytes.is_empty();
        out.w.write_all(bytes).map_err(Error::stream)?;
        if enough {
            out.w.flush().map_err(Error::stream)?;
            return Err(Error::Enough);
        }
        if out.tty {
            out.w.flush().map_err(Error::stream)?;
        }
        Ok(())
    }

    /// Flushes: what was written leaves in one `write` when it fits the
    /// pipe's atomic size and nothing else was buffered.
    pub fn flush(&mut self) -> Result<()> {
        self.out.w.flush().map_err(Error::stream)
    }
}

/// The length of the first `n` lines of `bytes` (all of them when it has
/// fewer), and how many lines that is.
fn lines_within(bytes: &[u8], n: u64) -> (usize, u64) {
    if n == 0 {
        return (0, 0);
    }
    let mut lines = 0;
    for at in memchr::memchr_iter(b'\n', bytes) {
        lines += 1;
        if lines == n {
            return (at + 1, n);
        }
    }
    (bytes.len(), lines)
}

impl Drop for Output {
    /// The last flush holds the write guard too (the buffer's own flush on
    /// drop would not).
    fn drop(&mut self) {
        let _ = self.flush();
    }
}
