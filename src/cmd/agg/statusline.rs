//! `ci-agg --statusline`: one line for an agent's status-line command
//! (Claude Code's `statusLine`).
//!
//! The agent runs the command with a JSON object on stdin, read by the
//! format that knows it ([`crate::format::Profile::status_line`]: the
//! session, its transcript, the model's name), and shows its first line of
//! output. The line names the model and three costs, each computed from
//! the transcripts as `--tokens` computes them: this session's, today's
//! (every session, days in `--tz`) and the active 5-hour block's
//! ([`crate::aggregate::blocks`]) with its time left. What is read: the
//! PATHs given, else the default roots of the formats billed in 5-hour
//! blocks ([`crate::format::billing_roots`]), and the session's own
//! transcript; through the capture cache, so a warm run reads only what
//! changed. The run always exits 0: what it cannot know is printed as `-`,
//! and why on stderr.

use std::io::Read;

use super::views::{note_untimed, INSTANT};
use super::{aggregate, open_cache, Args};
use crate::aggregate::blocks::Entry;
use crate::aggregate::blocks::{self, format_minutes};
use crate::aggregate::query::Query;
use crate::diag::Diag;
use crate::error::{Outcome, Result};
use crate::format::StatusInput;
use crate::output::Output;
use crate::time::{self, Bucket, Interval, TimeZone, Timestamp};

/// The most of stdin read (a status-line input is a few hundred bytes).
const STDIN_MAX: u64 = 1 << 20;

/// Reads stdin as the input of an agent's status-line command
/// ([`crate::format::status_input`]); what is missing or unreadable is
/// noted, and the line is then about no session.
fn read_input(diag: &Diag) -> StatusInput {
    let mut text = Vec::new();
    if let Err(e) = std::io::stdin().lock().take(STDIN_MAX).read_to_end(&mut text) {
        diag.note(&format_args!("--statusline: stdin: {e}"));
        return StatusInput::default();
    }
    crate::format::status_input(&text).unwrap_or_else(|e| {
        diag.note(&format_args!("--statusline: {e}"));
        StatusInput::default()
    })
}

/// Runs `ci-agg --statusline`.
pub(super) fn run(mut args: Args, diag: &Diag) -> Result<Outcome> {
    let input = read_input(diag);
    if args.paths.is_empty() {
        args.paths = crate::format::billing_roots(diag);
    }
    if let Some(t) = &input.transcript {
        let t = crate::files::expand_tilde(t);
        if t.is_file() && !args.paths.contains(&t) {
            args.paths.push(t);
        }
    }
    let tz = args.time.zone.tz.clone();
    let mut entries = if args.paths.is_empty() { vec![] } else { entries(&args, tz.clone(), diag) };
    let line = line(&input, &mut entries, time::now(), &tz);
    let mut out = Output::stdout();
    out.write(format!("{line}\n").as_bytes())?;
    out.flush()?;
    Ok(Outcome::Printed)
}

/// The responses read, with their time and session; what went wrong is
/// reported on stderr (through its own [`Diag`], so the run still exits 0).
fn entries(args: &Args, tz: TimeZone, diag: &Diag) -> Vec<Entry> {
    let inner = Diag::new(diag.prog(), false);
    let mut flags = args.flags();
    flags.by = vec![INSTANT.to_owned(), "session".to_owned()];
    let q = match Query::new(flags, tz) {
        Ok(q) => q,
        Err(e) => {
            diag.note(&format_args!("--statusline: {e}"));
            return vec![];
        }
    };
    let cache = open_cache(&q, args, Interval::default(), &inner);
    let answer = match aggregate(&q, args, Interval::default(), cache.as_ref(), &inner) {
        Ok((answer, _)) => answer,
        Err(e) => {
            diag.note(&format_args!("--statusline: {e}"));
            return vec![];
        }
    };
    let (entries, untimed) = blocks::entries(answer, &q);
    note_untimed(untimed, &inner);
    inner.summary();
    entries
}

/// `Sonnet 4.5 | session $0.23 | today $1.20 | block $0.45 (2h 45m left)`.
fn line(input: &StatusInput, entries: &mut [Entry], now: Timestamp, tz: &TimeZone) -> String {
    // A fold from 0: the sum of no f64 is -0 ("$-0.00").
    let cost =
        |keep: &dyn Fn(&Entry) -> bool| entries.iter().filter(|e| keep(e)).map(Entry::usd).fold(0.0, |a, b| a + b);
    let today = time::bucket(now, Bucket::Day, tz);
    let session = match &input.session {
        Some(id) => dollars(cost(&|e| e.session.as_ref() == Some(id))),
        None => "-".to_owned(),
    };
    let today = dollars(cost(&|e| time::bucket(e.at, Bucket::Day, tz) == today));
    let blocks = blocks::blocks(entries);
    let block = match blocks.iter().find(|b| b.is_active(now)) {
        Some(b) => format!("block {} ({} left)", dollars(b.cost()), format_minutes(b.minutes_left(now))),
        None => "no active block".to_owned(),
    };
    let model = input.model.as_deref().unwrap_or("-");
    format!("{model} | session {session} | today {today} | {block}")
}

/// `$1.20`.
fn dollars(usd: f64) -> String {
    format!("${usd:.2}")
}
