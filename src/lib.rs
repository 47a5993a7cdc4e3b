//! ci-tools: small, fast Unix filters for AI-agent session captures.
//!
//! Five binaries (`ci-find`, `ci-cat`, `ci-filter`, `ci-agg`, `ci-grep`) share
//! this library. Their stream holds two kinds of record ([`record`]): session
//! records ([`session`]), printed by `ci-find`, and event records, one per
//! capture event with a provenance key. Each writer the toolkit reads is one
//! module of [`mod@format`], behind one interface; [`discover`] asks them all. Every tool that needs events expands session records into
//! their capture's events through [`source`], which reads captures in parallel
//! with a reusable line buffer ([`lines`]) and a validating scanner that indexes
//! a line without building a DOM of its payload ([`json`]). Tools that select
//! records share parsed predicates ([`predicate`]); jobs that decide on the
//! envelope skim the payload instead of validating it ([`json::Index::skim`]).
//!
//! # Layers
//!
//! The top-level modules form layers that point down: each uses only
//! modules of the layers listed before its own, never one of its own layer
//! nor one after it (`tests/layers.rs` reads every `crate::` and `super::`
//! path of `src/` and fails on any other edge; a new module is given its
//! layer there):
//!
//! 0. leaves, which need nothing of the crate: [`json`], [`time`],
//!    [`elements`], [`window`], [`signal`], [`progress`], [`text`] (text
//!    for people: the escaper, typo hints), [`units`] (sizes), [`codec`]
//!    (the binary pieces of cache files), [`decimal`];
//! 1. [`diag`], [`truncate`], [`pricing`];
//! 2. [`lines`] (the line reader, how a read ended, the longest record);
//! 3. [`files`], [`error`];
//! 4. [`mod@format`], the writers, handed the run's state in a
//!    [`format::Cx`] (kept peeks, a memo) instead of reaching for it, with
//!    the session model they build, [`session`] (the session record and
//!    the capture, which carry their [`format::Format`] handle: a module of
//!    the format layer, re-exported at the root);
//! 5. [`record`], the event view over the writers, [`cache`], which keeps
//!    what the writers peek at (behind [`format::PeekCache`]), and
//!    [`session_id`], the rule naming a session;
//! 6. [`discover`] (which makes the writers' [`format::Cx`]), [`pick`],
//!    [`search`];
//! 7. [`watch`], [`output`], [`predicate`];
//! 8. [`reread`] (cut records made whole, printed through [`output`]);
//! 9. [`source`], the engine;
//! 10. [`aggregate`], [`cli`] (whose `main` is handed the tools' command
//!     lines, [`cmd::commands`]);
//! 11. [`cmd`], the tools.
//!
//! ```
//! use ci_tools::json::{Index, Path};
//!
//! let line = br#"{"data":{"tool_name":"bash","usage":{"output_tokens":7}},"event":"tool:pre","timestamp":"","workspace":"w"}"#;
//! let mut idx = Index::new();
//! let rec = idx.parse(line).unwrap();
//! assert_eq!(rec.get_str("event").unwrap(), "tool:pre");
//! let tokens = rec.path(&Path::parse("data.usage.output_tokens").unwrap()).unwrap();
//! assert_eq!(tokens.as_f64(), Some(7.0));
//! ```

#![deny(unsafe_op_in_unsafe_fn)]
// Only the modules something outside the library uses are public; in the
// others a `pub` item is a warning, so unused code is reported: the recipe
// that keeps it so is in docs/visibility.md.
#![warn(unreachable_pub)]

pub mod aggregate;
pub mod cache;
pub mod cli;
pub mod cmd;
mod codec;
pub mod decimal;
pub mod diag;
mod discover;
pub mod elements;
mod error;
mod files;
pub mod format;
pub mod json;
pub mod lines;
pub mod output;
mod pick;
pub mod predicate;
mod pricing;
pub mod progress;
pub mod record;
pub mod reread;
pub mod search;
/// The session model (records, captures, naming rules): part of the
/// format layer, since a record carries its [`format::Format`].
pub use format::session;
mod session_id;
mod signal;
mod source;
mod text;
pub mod time;
pub mod truncate;
pub mod units;
mod watch;
mod window;
