//! The one rule for naming a session on the command line: `--session ID` in
//! every tool and `ci-find --parent ID`.
//!
//! - An exact id always matches (every capture of it, when it is in several).
//! - A prefix of at least [`MIN_PREFIX`] characters matches the ids it
//!   starts; when it starts several different ids (and is none of them), it
//!   is ambiguous: an error listing them (exit 2), as git does.
//! - A shorter value that is no id, or a value found only inside ids (not at
//!   their start, e.g. `bb5a-4483`), is refused with the rule (exit 2).
//! - A value that matches nothing is noted, `no session id starts with "…"`,
//!   and selects nothing (exit 1 when nothing is printed).
//!
//! The rule needs every session id of the run. When they are known before
//! anything is read (ci-find, and the other tools given only PATHs:
//! [`SessionIds::narrow_inputs`]), it is applied first, so an error prints
//! nothing else. On a stream (stdin) sessions are known only as they
//! arrive: each value selects the ids it matches as they come, every id met
//! is noted ([`crate::source::Narrow`]), and the rule is checked at the end
//! of the run ([`SessionIds::check_stream`]), an error then following the
//! output. Both live in the engine ([`crate::source`]), which this rule does
//! not need.

use crate::diag::Diag;
use crate::error::{Error, Result};
use crate::session::{unsafe_id_message, unsafe_name};

/// The shortest prefix that may stand for an id (Amplifier's rule).
pub(crate) const MIN_PREFIX: usize = 8;

/// Candidates listed in a refusal, at most.
const LISTED: usize = 10;

/// One `--session` value: an id or a prefix of one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionId(String);

/// What one value makes of a run's sessions.
#[derive(Debug, PartialEq, Eq)]
enum Judgement {
    /// It selects these ids (one, or an exact id only).
    Selects(Vec<String>),
    /// It matches nothing (noted, not an error).
    Nothing,
    /// It breaks the rule; the message says how.
    Refused(String),
}

impl SessionId {
    /// Parses a value; an empty one is refused, and so is one that no
    /// session directory can be named (`/`, `\`, NUL, `.`, `..`; see
    /// [`crate::session::unsafe_name`]).
    pub fn new(id: &str) -> std::result::Result<SessionId, String> {
        SessionId::of_flag("--session", id)
    }

    /// [`SessionId::new`] for a value of `flag` (named in the message).
    fn of_flag(flag: &str, id: &str) -> std::result::Result<SessionId, String> {
        if id.is_empty() {
            return Err(format!("{flag} needs a session id or a prefix of at least {MIN_PREFIX} characters"));
        }
        if unsafe_name(id) {
            return Err(format!("{flag}: {}", unsafe_id_message(id)));
        }
        Ok(SessionId(id.to_owned()))
    }

    /// The value as given.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether session `id` is selected: the exact id, or an id this
    /// value (of at least [`MIN_PREFIX`] characters) starts.
    pub fn matches(&self, id: &str) -> bool {
        id == self.0 || (self.0.chars().count() >= MIN_PREFIX && id.starts_with(self.0.as_str()))
    }

    /// The rule applied to this value over every session of a run, as
    /// (id, where it is) pairs.
    fn judge(&self, ids: &[(&str, &str)]) -> Judgement {
        let v = self.0.as_str();
        if ids.iter().any(|(id, _)| *id == v) {
            return Judgement::Selects(vec![v.to_owned()]);
        }
        let listed = |pick: &dyn Fn(&str) -> bool| -> Vec<String> {
            let mut names: Vec<String> =
                ids.iter().filter(|(id, _)| pick(id)).map(|(id, at)| format!("{id} ({at})")).collect();
            names.sort();
            names.dedup();
            names
        };
        let starting: Vec<String> = listed(&|id| id.starts_with(v));
        if v.chars().count() < MIN_PREFIX {
            let mut msg = format!("session {v:?}: no exact match, and a prefix needs at least {MIN_PREFIX} characters");
            if !starting.is_empty() {
                msg.push_str(&format!("; ids starting with it:\n  {}", shortlist(&starting)));
            }
            return Judgement::Refused(msg);
        }
        let distinct: std::collections::BTreeSet<&str> =
            ids.iter().map(|(id, _)| *id).filter(|id| id.starts_with(v)).collect();
        match distinct.len() {
            1 => Judgement::Selects(distinct.into_iter().map(str::to_owned).collect()),
            0 => {
                let inside = listed(&|id| id.contains(v));
                if inside.is_empty() {
                    return Judgement::Nothing;
                }
                Judgement::Refused(format!(
                    "session {v:?}: no session id starts with it; it is part of:\n  {}\n  (a session is named by its exact id or its first {MIN_PREFIX} or more characters)",
                    shortlist(&inside)
                ))
            }
            _ => Judgement::Refused(format!("session {v:?} is ambiguous; candidates:\n  {}", shortlist(&starting))),
        }
    }
}

/// Candidate lines for a message, at most [`LISTED`] of them.
fn shortlist(names: &[String]) -> String {
    let mut shown = names.iter().take(LISTED).cloned().collect::<Vec<_>>().join("\n  ");
    if names.len() > LISTED {
        shown.push_str(&format!("\n  … and {} more", names.len() - LISTED));
    }
    shown
}

/// The `--session` values of a run (any may match: OR). Empty selects
/// every session.
#[derive(Debug, Clone, Default)]
pub struct SessionIds(Vec<SessionId>);

impl SessionIds {
    /// Parses the values of `flag` (`--session`, `--parent`; a usage
    /// error names a bad one).
    pub fn parse(flag: &str, values: &[String]) -> Result<SessionIds> {
        let ids = values.iter().map(|v| SessionId::of_flag(flag, v)).collect::<std::result::Result<_, _>>();
        ids.map(SessionIds).map_err(Error::Usage)
    }

    /// Whether no value was given.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The values.
    pub fn values(&self) -> &[SessionId] {
        &self.0
    }

    /// Whether session `id` is selected (always, when no value is given).
    pub fn matches(&self, id: &str) -> bool {
        self.0.is_empty() || self.0.iter().any(|s| s.matches(id))
    }

    /// Applies the rule to every value over every session of the run, as
    /// (id, where it is) pairs, and returns the ids selected: the first value
    /// refused is the error; each value that matches nothing is noted on
    /// stderr. `streamed`: the run passed on every id a value
    /// [`SessionId::matches`] as it came, so a value that is one id exactly
    /// and starts others too is ambiguous there.
    pub(crate) fn check(
        &self,
        ids: &[(&str, &str)],
        streamed: bool,
        diag: &Diag,
    ) -> Result<std::collections::HashSet<String>> {
        let mut selected = std::collections::HashSet::new();
        for value in &self.0 {
            match value.judge(ids) {
                Judgement::Selects(chosen) => {
                    let passed: std::collections::BTreeSet<&str> =
                        ids.iter().map(|(id, _)| *id).filter(|id| value.matches(id)).collect();
                    if streamed && passed.len() > chosen.len() {
                        let names: Vec<String> = passed.iter().map(|id| id.to_string()).collect();
                        return Err(Error::Usage(format!(
                            "session {:?} is ambiguous; candidates:\n  {}",
                            value.as_str(),
                            shortlist(&names)
                        )));
                    }
                    selected.extend(chosen);
                }
                Judgement::Nothing => diag.note(&format_args!("no session id starts with {:?}", value.as_str())),
                Judgement::Refused(msg) => return Err(Error::Usage(msg)),
            }
        }
        Ok(selected)
    }

    /// The items of a run whose sessions are all known, `key` giving each
    /// one's (id, where it is): the rule applied over all of them (an
    /// error, or a note for a value that matches nothing), then the items
    /// of the sessions selected.
    pub fn select<T>(&self, mut items: Vec<T>, key: impl Fn(&T) -> (&str, &str), diag: &Diag) -> Result<Vec<T>> {
        if self.is_empty() {
            return Ok(items);
        }
        let ids: Vec<(&str, &str)> = items.iter().map(&key).collect();
        let selected = self.check(&ids, false, diag)?;
        items.retain(|i| selected.contains(key(i).0));
        Ok(items)
    }
}

#[cfg(test)]
mod tests;
