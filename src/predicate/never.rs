//! `--where` tests that never held in a whole run, named once each on
//! stderr when the reason is likely a mistake: a path no record has (a typo:
//! `x > "5"`, `data.usage.output_token`), with the nearest key the records
//! do have; or a path whose values are never of the type the test compares
//! with (`data.n > "5"` on numbers: no coercion).
//!
//! Only tests that say what a matching record has are watched: those under
//! an even number of `not`s (`!=` and `!~` hold for a missing field, so they
//! do not). Each worker thread tallies what it saw ([`Seen`]); the run merges
//! the tallies before warning, so every test is named at most once. A test
//! stops being watched once it held, or once a record had its path with a
//! value of the compared type (it can then only be a choice of value).

use crate::diag::Diag;
use crate::json::{Kind, Path};
use crate::record::Event;

use super::expr::{event_field, CmpOp, Literal, Where};
use super::nearest::{Reach, Target};

/// The watched tests of a run's `--where` expressions.
pub struct Tests<'w> {
    tests: Vec<Test<'w>>,
}

struct Test<'w> {
    /// Which `--where` it is part of.
    expr: usize,
    test: &'w Where,
    path: &'w Path,
    /// What the nearest path the records have takes.
    target: Target,
}

/// What one worker saw of each watched test.
#[derive(Debug, Default)]
pub struct Seen {
    events: u64,
    unsettled: usize,
    tests: Vec<TestSeen>,
}

#[derive(Debug, Default, Clone)]
struct TestSeen {
    /// Held once, or met a value of the compared type: no warning.
    settled: bool,
    /// Some record has the path.
    found: bool,
    /// The JSON types of the values found ([`kind_bit`]).
    kinds: u8,
    /// How near the records that lack the path come to it.
    reach: Reach,
}

impl<'w> Tests<'w> {
    /// The tests of `wheres` to watch.
    pub fn new(wheres: &'w [Where]) -> Tests<'w> {
        let mut tests = vec![];
        for (expr, w) in wheres.iter().enumerate() {
            let mut found = vec![];
            w.positive_tests(&mut found);
            for test in found {
                let (Where::Exists(path) | Where::Cmp(path, ..) | Where::Match(path, _)) = test else { continue };
                tests.push(Test { expr, test, path, target: Target::new(path) });
            }
        }
        Tests { tests }
    }

    /// A worker's empty tally.
    pub fn seen(&self) -> Seen {
        Seen { events: 0, unsettled: self.tests.len(), tests: vec![TestSeen::default(); self.tests.len()] }
    }

    /// Tallies one event (every event read, whatever the other predicates say).
    pub fn observe(&self, seen: &mut Seen, ev: &Event<'_>) {
        seen.events += 1;
        if seen.unsettled == 0 {
            return;
        }
        for (t, s) in self.tests.iter().zip(seen.tests.iter_mut()) {
            if s.settled {
                continue;
            }
            let v = event_field(ev, t.path);
            let kind = v.kind();
            if t.test.eval(&|_| v.clone()) || kind.is_some_and(|k| compares_with(t.test, k)) {
                s.settled = true;
                seen.unsettled -= 1;
                continue;
            }
            match kind {
                Some(k) => {
                    s.found = true;
                    s.kinds |= kind_bit(k);
                }
                None => t.target.reach(ev, &mut s.reach),
            }
        }
    }

    /// Warns once per test that no worker saw settle, after a run that read
    /// events; `texts` are the `--where` expressions as given.
    pub fn warn(&self, parts: Vec<Seen>, texts: &[String], diag: &Diag) {
        if parts.iter().all(|p| p.events == 0) {
            return;
        }
        for (i, t) in self.tests.iter().enumerate() {
            let mut all = TestSeen::default();
            for s in parts.iter().filter_map(|p| p.tests.get(i)) {
                all.merge(s);
            }
            if all.settled {
                continue;
            }
            let expr = texts.get(t.expr).map_or("", String::as_str);
            let why = if all.found { t.mismatch(all.kinds) } else { t.missing(&all) };
            diag.warn(&format_args!("--where '{expr}': {why}"));
        }
    }
}

impl Test<'_> {
    /// "no record has P", with the nearest path the records have
    /// ([`Target::hint`]).
    fn missing(&self, all: &TestSeen) -> String {
        let hint = self.target.hint(&all.reach).map(|near| format!("; did you mean {near:?}?"));
        format!("no record has {}{}", self.path, hint.unwrap_or_default())
    }

    /// "P is a number in every record that has it, never a string: …".
    fn mismatch(&self, kinds: u8) -> String {
        let (want, rule) = match self.test {
            Where::Match(..) => ("a string", "'~' matches strings only".to_owned()),
            Where::Cmp(_, op, lit) => {
                let want = match lit {
                    Literal::Num(_) => "a number",
                    Literal::Str(_) => "a string",
                    Literal::Bool(_) => "a boolean",
                    Literal::Null => "null",
                };
                let rule = match op {
                    CmpOp::Eq | CmpOp::Ne => format!("'{}' compares without coercion (\"5\" is not 5)", op.as_str()),
                    _ => format!("'{}' compares numbers with numbers and strings with strings", op.as_str()),
                };
                (want, rule)
            }
            Where::And(_) | Where::Or(_) | Where::Not(_) | Where::Exists(_) => ("", String::new()),
        };
        let names: Vec<&str> = KINDS.iter().filter(|(k, _)| kinds & kind_bit(*k) != 0).map(|(_, n)| *n).collect();
        format!("{} is {} in every record that has it, never {want}: {rule}", self.path, names.join(" or "))
    }
}

impl TestSeen {
    fn merge(&mut self, o: &TestSeen) {
        self.settled |= o.settled;
        self.found |= o.found;
        self.kinds |= o.kinds;
        self.reach.merge(&o.reach);
    }
}

/// Whether a value of type `k` can make `test` hold for some literal of
/// the test's type: the test is then a choice of value, not a mistake.
fn compares_with(test: &Where, k: Kind) -> bool {
    match test {
        Where::Cmp(_, _, Literal::Num(_)) => k == Kind::Number,
        Where::Cmp(_, _, Literal::Str(_)) | Where::Match(..) => k == Kind::String,
        Where::Cmp(_, _, Literal::Bool(_)) => k == Kind::Bool,
        _ => true,
    }
}

/// Type names, in the order a mismatch lists them.
const KINDS: [(Kind, &str); 6] = [
    (Kind::Number, "a number"),
    (Kind::String, "a string"),
    (Kind::Bool, "a boolean"),
    (Kind::Null, "null"),
    (Kind::Object, "an object"),
    (Kind::Array, "an array"),
];

fn kind_bit(k: Kind) -> u8 {
    1 << KINDS.iter().position(|(x, _)| *x == k).unwrap_or(0)
}
