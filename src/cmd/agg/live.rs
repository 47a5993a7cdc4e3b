//! `ci-agg --follow`: the answer kept up to date while the captures grow.
//!
//! Each update is a whole run over the inputs, as a one-shot `ci-agg` makes
//! it (with the capture cache, captures that did not change are not read
//! again): the answer of every preset is built in one pass and then
//! combined (a Claude response counted once over its repeated lines, tool
//! calls paired, sessions with their children and companion files, the
//! views' folds), so a run at each update keeps every answer exactly the
//! one-shot one, and sessions and files that appear under the roots (a
//! subagent's transcript) are read as discovery finds them. An update starts
//! at most every `--interval` after the one before began; its answer is
//! printed only when it differs from the one printed last.

use std::time::{Duration, Instant};

use crate::cmd::agg::{aggregate, report, warn_not_numbers, Args};
use crate::diag::Diag;
use crate::error::{Error, Outcome, Result};
use crate::output::table::TableStyle;
use crate::output::Output;
use crate::signal::stop_requested;
use crate::source::follow::{nap, stdout_closed, POLL};

/// What one ci-agg run answers, and how.
pub(super) struct Run<'a> {
    /// The query.
    pub q: &'a crate::aggregate::query::Query,
    /// The command line.
    pub args: &'a Args,
    /// How the answer is printed (`None`: NDJSON).
    pub format: Option<TableStyle>,
    /// Whether the run added a writer key to the query.
    pub adds_writer: bool,
    /// The time window of the events counted (fixed at start).
    pub window: crate::time::Interval,
    /// The capture cache, if on.
    pub cache: Option<&'a crate::aggregate::cached::Cache>,
}

/// Clears a terminal and puts the cursor at its top left.
const CLEAR: &[u8] = b"\x1b[H\x1b[2J";

/// Follows the inputs of `run` until a signal or a closed reader, printing
/// each new answer; on a signal, the last answer once more, as the final
/// snapshot. `terminal`: stdout is a terminal (a table is redrawn in place).
pub(super) fn follow(run: &Run<'_>, terminal: bool, diag: &Diag) -> Result<Outcome> {
    if run.args.paths.iter().any(|p| p.as_os_str() == "-")
        || (run.args.paths.is_empty() && crate::source::stdin_has_data())
    {
        return Err(Error::Usage(
            "--follow reads its PATHs (or the default roots) again at each update, and stdin cannot be read \
             again: name the captures or roots (ci-agg -f --tokens ROOT)"
                .into(),
        ));
    }
    let mut printer = Snapshots { format: run.format, terminal, printed: None, count: 0 };
    let mut found = false;
    let mut last_read: Option<Diag> = None;
    loop {
        let began = Instant::now();
        let read = diag.again();
        let answer = match aggregate(run.q, run.args, run.window, run.cache, &read) {
            Err(Error::Stopped) => break,
            other => other?,
        };
        if stop_requested() {
            // Read in part: the last whole answer stays the last.
            break;
        }
        let (answer, watches) = answer;
        let not_numbers = warn_not_numbers(&answer, run.q, &read);
        let (bytes, any) =
            report(run.q, answer, (&watches, &not_numbers), run.args, run.format, run.adds_writer, &read)?;
        found = any;
        last_read = Some(read);
        printer.update(bytes, false)?;
        if !wait(began, run.args.interval) {
            // The reader went away.
            break;
        }
    }
    if let Some(read) = &last_read {
        diag.absorb(read);
    }
    if stop_requested() {
        printer.finish()?;
    }
    // A closed reader ends the run as a signal does: 0 once an answer was
    // printed.
    Ok(Outcome::printed_if(found || printer.count > 0))
}

/// Sleeps until `interval` after `began`, waking early on a stop; false when
/// stdout's reader went away.
fn wait(began: Instant, interval: Duration) -> bool {
    while began.elapsed() < interval && !stop_requested() {
        if stdout_closed() {
            return false;
        }
        if interval - began.elapsed() < POLL {
            std::thread::sleep(interval.saturating_sub(began.elapsed()));
        } else {
            nap();
        }
    }
    !stdout_closed()
}

/// The answers printed so far.
struct Snapshots {
    format: Option<TableStyle>,
    terminal: bool,
    /// The last answer printed.
    printed: Option<Vec<u8>>,
    /// How many were printed.
    count: u64,
}

impl Snapshots {
    /// Prints `bytes` unless they are the answer printed last (always when
    /// `last`, the final snapshot).
    fn update(&mut self, bytes: Vec<u8>, last: bool) -> Result<()> {
        if !last && self.printed.as_ref() == Some(&bytes) {
            return Ok(());
        }
        self.count += 1;
        let mut out = Output::stdout();
        match self.format {
            // One record before each snapshot: its number, and whether it is
            // the last (printed on a signal).
            None => out.write(format!("{{\"snapshot\":{},\"final\":{last}}}\n", self.count).as_bytes())?,
            Some(_) if self.terminal => out.write(CLEAR)?,
            // Tables, CSV, …: a blank line between two snapshots.
            Some(_) if self.count > 1 => out.write(b"\n")?,
            Some(_) => {}
        }
        out.write(&bytes)?;
        out.flush()?;
        self.printed = Some(bytes);
        Ok(())
    }

    /// Prints the last answer again as the final snapshot (nothing when no
    /// answer was made).
    fn finish(&mut self) -> Result<()> {
        match self.printed.take() {
            Some(bytes) => self.update(bytes, true),
            None => Ok(()),
        }
    }
}
