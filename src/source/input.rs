//! The inputs named on the command line ([`Input`]), what a path expands
//! into ([`captures_at`]), and the producer that reads them in order and
//! deals their units to the workers.

use std::path::{Path, PathBuf};

use std::sync::Arc;

use super::chunk::{self, PartUnit};
use super::deal::{Dealer, Unit};
use super::stdin::{produce_stdin, stdin_has_data};
use super::RunOpts;
use crate::diag::Diag;
use crate::discover;
use crate::discover::Detail;
use crate::format;
use crate::session::{self, Capture};

/// One input named on the command line.
#[derive(Debug, Clone)]
pub enum Input {
    /// A file or directory.
    Path(PathBuf),
    /// Standard input.
    Stdin,
    /// Captures already found (the PATHs of a run narrowed to the sessions
    /// of `--session`, [`crate::session_id::SessionIds::narrow_inputs`]).
    Captures(Vec<Capture>),
}

/// Turns command-line arguments into inputs: `-` is stdin; no argument means
/// stdin when [`stdin_has_data`], else the default capture roots.
pub(crate) fn inputs_from_args(args: &[PathBuf], diag: &Diag) -> Vec<Input> {
    if args.is_empty() {
        if !stdin_has_data() {
            return discover::resolve_roots(&[], diag).into_iter().map(Input::Path).collect();
        }
        return vec![Input::Stdin];
    }
    args.iter().map(|a| if a.as_os_str() == "-" { Input::Stdin } else { Input::Path(a.clone()) }).collect()
}

/// Reads the inputs in order and deals their units to the workers; with
/// `chunk`, a large capture as parts ([`chunk`]).
pub(super) fn produce(
    inputs: &[Input],
    opts: &RunOpts,
    mut dealer: Dealer,
    diag: &Diag,
    batch: usize,
    chunk: Option<chunk::Chunking>,
) {
    let detail = opts.detail;
    for (i, input) in inputs.iter().enumerate() {
        // Once the last root's captures are counted, the totals are final.
        let count_all = |caps: &mut dyn Iterator<Item = &Capture>| {
            caps.for_each(counted);
            if i + 1 == inputs.len() {
                crate::progress::all_dealt();
            }
        };
        let go_on = match input {
            Input::Stdin => produce_stdin(&mut dealer, diag, batch, opts.deal_on_idle, opts.follow),
            Input::Path(p) => {
                let caps = captures_at(p, detail, diag);
                count_all(&mut caps.iter());
                caps.into_iter().all(|c| push(&mut dealer, c, chunk, opts) && !diag.is_stopped())
            }
            Input::Captures(caps) => {
                count_all(&mut caps.iter());
                caps.iter().all(|c| push(&mut dealer, c.clone(), chunk, opts) && !diag.is_stopped())
            }
        };
        if !go_on || !dealer.flush() {
            return;
        }
    }
    crate::progress::all_dealt();
}

/// Counts a capture for the progress line, when it is known (before it is
/// dealt: a root's captures are all known at once).
fn counted(cap: &Capture) {
    crate::progress::dealt(1, cap.record.as_ref().map_or(0, |r| r.bytes));
}

/// Deals a capture: whole, or with `chunk` when it is large, as its parts
/// ([`chunk::split`]), unless [`RunOpts::whole`] says no; false when the
/// workers are gone.
fn push(dealer: &mut Dealer, mut cap: Capture, chunk: Option<chunk::Chunking>, opts: &RunOpts) -> bool {
    let chunk = chunk.filter(|_| !opts.whole.as_ref().is_some_and(|w| (w.0)(&cap)));
    if chunk.is_some() {
        // One stat, for the split and for the cache (a piped record has none).
        cap.see();
    }
    match chunk.and_then(|chunking| chunk::split(&cap, chunking)) {
        Some(split) => (0..split.parts()).all(|k| dealer.push(Unit::Part(PartUnit::new(Arc::clone(&split), k)))),
        None => dealer.push(Unit::Capture(Box::new(cap))),
    }
}

/// Expands a path argument into captures (reported and skipped when unusable).
pub(crate) fn captures_at(path: &Path, detail: Detail, diag: &Diag) -> Vec<Capture> {
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) => {
            diag.error(&format_args!("{}: {e}", path.display()));
            return vec![];
        }
    };
    if meta.is_file() {
        return discover::file_captures(path, diag);
    }
    // A FIFO (`<(…)`), socket or device is never opened: it could block or
    // never end (stdin is read as `-`).
    if !meta.is_dir() {
        diag.error(&format_args!("{}: not a regular file or directory, skipped", path.display()));
        return vec![];
    }
    match discover::sessions_at(path, detail, diag) {
        Ok(mut found) => {
            session::sort_newest_first(&mut found);
            found.into_iter().map(format::capture).collect()
        }
        Err(e) => {
            diag.error(&e);
            vec![]
        }
    }
}
