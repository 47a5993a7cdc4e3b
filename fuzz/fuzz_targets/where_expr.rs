//! The `--where` language of ci-filter: `predicate::Where::parse` and its
//! evaluation on arbitrary lines.
//!
//! Input: an expression and a line (arbitrary bytes; most of the time made a
//! JSON event record by wrapping a fuzzed `data` value, so paths resolve).
//!
//! Properties:
//! - parsing never panics, whatever the text; an error has a message and a
//!   column inside the expression (1 past its end at most), and its display
//!   names the column;
//! - parsing is deterministic (the same text gives the same verdict);
//! - evaluation on a record (`matches_record`) and on an event
//!   (`matches_event`, no capture) never panics;
//! - the connectives behave as logic: `not (E)` is the negation of `E`,
//!   `(E) and (E)` and `(E) or (E)` equal `E`, and wrapping `E` in
//!   parentheses changes nothing (whenever those texts parse: the nesting
//!   limit may refuse them).
//!
//! There is no printer for a parsed expression (errors quote the text as
//! given), so no parse → print → parse round trip.
#![no_main]

use arbitrary::Arbitrary;
use ci_tools::json::Index;
use ci_tools::predicate::Where;
use ci_tools::record::Event;
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
struct Input<'a> {
    expr: &'a str,
    /// Used as `data` of an event record when `wrap`, else as the whole line.
    line: &'a [u8],
    wrap: bool,
}

fuzz_target!(|input: Input<'_>| {
    let parsed = Where::parse(input.expr);
    let e = match parsed {
        Ok(e) => e,
        Err(err) => {
            assert!(!err.message.is_empty());
            let chars = input.expr.chars().count();
            assert!(err.column >= 1 && err.column <= chars + 1, "{err:?}");
            assert!(err.to_string().contains(&format!("at column {}", err.column)));
            assert!(Where::parse(input.expr).is_err(), "deterministic");
            return;
        }
    };
    let _ = e.needs_data();

    let mut line = Vec::new();
    if input.wrap {
        line.extend_from_slice(b"{\"event\":\"tool:post\",\"workspace\":\"w\",\"data\":");
        line.extend_from_slice(input.line);
        line.push(b'}');
    } else {
        line.extend_from_slice(input.line);
    }
    let mut idx = Index::new();
    let Ok(rec) = idx.parse(&line) else {
        return;
    };
    let on_record = e.matches_record(&rec);
    let ev = Event::piped(rec, 1, "-");
    let on_event = e.matches_event(&ev);

    let variants = [
        (format!("not ({})", input.expr), !on_event),
        (format!("({})", input.expr), on_event),
        (format!("({0}) and ({0})", input.expr), on_event),
        (format!("({0}) or ({0})", input.expr), on_event),
    ];
    for (text, want) in variants {
        if let Ok(v) = Where::parse(&text) {
            assert_eq!(v.matches_event(&ev), want, "{text:?}");
        }
    }
    let not = format!("not ({})", input.expr);
    if let Ok(v) = Where::parse(&not) {
        assert_eq!(v.matches_record(&ev.rec), !on_record, "{not:?}");
    }
});
