//! The Claude Code transcript normaliser (`format::claude_transcript`): a
//! capture's lines turned into event records, as `ci-cat` prints them.
//!
//! Input ([`normalise::capture_bytes`]): the file's bytes, or lines of JSON objects
//! built from the transcript's own keys and strings ([`VOCABULARY`]). Each line is read as the
//! engine reads a capture (line reader, `Index::parse`, `accept`, `observe`,
//! `parts`, `Event::read`) and each event printed with `--full` and with
//! budgets of 4096 and 1024 bytes.
//!
//! Properties: nothing panics; a line's parts are in order, once each; every
//! printed record is one line of JSON with a non-empty `event`, an object
//! `data` and its line in `ci`; a record within 4096 bytes prints as with
//! `--full`; under a 1024-byte budget `event`, `timestamp`, `workspace` and
//! `ci` are kept; the printed record, read back as a piped record (what the
//! next tool in a pipe sees), is an event record of the same writer that
//! gives the same answers as the capture's event (name, timestamp,
//! workspace, session, `data`, tool name, call key, failure, duration,
//! model, status, tokens, 1-hour cache writes, message key, file path); a
//! second read from a fresh state prints the same bytes.
#![no_main]

use ci_tools::format::claude_transcript::VOCABULARY;
use libfuzzer_sys::fuzz_target;

#[path = "common/normalise.rs"]
mod normalise;

fuzz_target!(|data: &[u8]| normalise::run(&ci_tools::format::claude_transcript::FORMAT, data, VOCABULARY));
