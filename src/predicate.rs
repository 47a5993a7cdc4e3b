//! Parsed record predicates shared by the tools that select records: event
//! name globs, session ids, the `--where` field-predicate language ([`expr`]),
//! and [`Selection`], the conjunction `ci-filter` (and later `ci-agg`/`ci-grep`)
//! evaluates on events and on session records.
//!
//! Everything is parsed once, when a flag is read, into typed values; nothing
//! downstream re-reads a flag string. Evaluation works on the raw line
//! ([`crate::json::Record`], [`crate::json::Raw`]) and never builds a DOM: envelope predicates (`--event`,
//! `--workspace`, `--session`, time bounds) touch only the top-level keys, and
//! only predicates that name a path inside `data` look inside it.
//!
//! Session-level predicates (workspace, session, status, agent, time overlap)
//! can be decided on a `ci-find` session record; event-level ones need the
//! events. See [`Selection`].

use std::borrow::Cow;

use crate::record::Event;
use crate::session::{Capture, SessionRecord};
use crate::session_id::SessionId;
use crate::time::Timestamp;

pub mod expr;
pub mod nearest;
pub mod never;

pub use expr::{CmpOp, Literal, Where, WhereError};

// ---------------------------------------------------------------------------
// Globs

/// A name pattern for event and tool names: exact, or a glob in which `*`
/// matches any run of characters (`:` included, also none) and `?` exactly
/// one. There are no other metacharacters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Glob {
    text: String,
    shape: Shape,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Shape {
    Exact,
    /// `tool:*`
    Prefix(String),
    /// `*:error`
    Suffix(String),
    /// Anything else with `*` or `?`.
    General(Vec<char>),
}

impl Glob {
    /// Parses a pattern; an empty pattern is refused.
    pub fn new(text: &str) -> Result<Glob, String> {
        if text.is_empty() {
            return Err("an empty name pattern matches nothing".into());
        }
        let stars = text.matches('*').count();
        let shape = if !text.contains(['*', '?']) {
            Shape::Exact
        } else if stars == 1 && !text.contains('?') && text.ends_with('*') {
            Shape::Prefix(text[..text.len() - 1].to_owned())
        } else if stars == 1 && !text.contains('?') && text.starts_with('*') {
            Shape::Suffix(text[1..].to_owned())
        } else {
            Shape::General(text.chars().collect())
        };
        Ok(Glob { text: text.to_owned(), shape })
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether the pattern has no wildcard.
    pub fn is_exact(&self) -> bool {
        self.shape == Shape::Exact
    }

    /// Whether `name` matches.
    pub fn matches(&self, name: &str) -> bool {
        match &self.shape {
            Shape::Exact => name == self.text,
            Shape::Prefix(p) => name.starts_with(p.as_str()),
            Shape::Suffix(s) => name.ends_with(s.as_str()),
            Shape::General(p) => glob_match(p, name),
        }
    }
}

/// Iterative wildcard matching with one backtrack point (linear for `*` runs).
fn glob_match(p: &[char], name: &str) -> bool {
    let s: Vec<char> = name.chars().collect();
    let (mut pi, mut si) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while si < s.len() {
        match p.get(pi) {
            Some('*') => {
                star = Some((pi, si));
                pi += 1;
            }
            Some(&c) if c == '?' || c == s[si] => {
                pi += 1;
                si += 1;
            }
            _ => match star {
                Some((sp, ss)) => {
                    pi = sp + 1;
                    si = ss + 1;
                    star = Some((sp, ss + 1));
                }
                None => return false,
            },
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

/// Event names that no writer emits (formats.md §1): selecting them always
/// finds nothing, so tools warn when one is named exactly.
pub const PHANTOM_EVENTS: &[&str] = &[
    "orchestrator:start",
    "orchestrator:error",
    "delegate:start",
    "delegate:complete",
    "recipe:step_start",
    "recipe:step_complete",
    "provider:response",
    "content_block:delta",
];

// ---------------------------------------------------------------------------
// Selection: the conjunction of every predicate flag

/// Why a record did or did not pass a [`Selection`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Every predicate holds.
    Match,
    /// Some predicate fails.
    NoMatch,
    /// A time bound was given and the record has no usable timestamp (`""`,
    /// missing or unparseable): it does not match, and tools count it.
    Untimed,
}

/// Every selection predicate, resolved. Empty lists and `None` bounds select
/// everything. Lists are OR within one flag; flags are AND.
///
/// Session-level predicates (`workspaces`, `sessions`, `statuses`, `agents`,
/// time bounds) can be decided on a session record; event-level ones
/// (`events`, `not_events`, `tools`, `errors`, `wheres`) need its events.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// `--event`: the event name matches one of these.
    pub events: Vec<Glob>,
    /// `--not-event`: the event name matches none of these.
    pub not_events: Vec<Glob>,
    /// `--workspace`: the event's (filled-in) workspace, or its session's
    /// project folder, is one of these.
    pub workspaces: Vec<String>,
    /// `--session`: the session id is one of these (exact or prefix).
    pub sessions: Vec<SessionId>,
    /// `--status`: the session's metadata status is one of these.
    pub statuses: Vec<String>,
    /// `--agent`: the session's agent is one of these.
    pub agents: Vec<String>,
    /// `--since`: inclusive lower bound on the timestamp.
    pub since: Option<Timestamp>,
    /// `--until`: exclusive upper bound on the timestamp.
    pub until: Option<Timestamp>,
    /// `--tool`: `data.tool_name` matches one of these.
    pub tools: Vec<Glob>,
    /// `--errors`: the event reports an error.
    pub errors: bool,
    /// `--where`: every expression holds.
    pub wheres: Vec<Where>,
}

impl Selection {
    /// Whether any predicate needs the events of a session.
    pub fn has_event_predicates(&self) -> bool {
        !self.events.is_empty()
            || !self.not_events.is_empty()
            || !self.tools.is_empty()
            || self.errors
            || !self.wheres.is_empty()
    }

    /// Whether any session-level predicate is given.
    pub fn has_session_predicates(&self) -> bool {
        !self.workspaces.is_empty()
            || !self.sessions.is_empty()
            || !self.statuses.is_empty()
            || !self.agents.is_empty()
            || self.has_time_bound()
    }

    /// Whether a time bound is set.
    pub fn has_time_bound(&self) -> bool {
        self.since.is_some() || self.until.is_some()
    }

    /// Whether `--status`/`--agent` are given (they need session metadata).
    pub fn needs_session_metadata(&self) -> bool {
        !self.statuses.is_empty() || !self.agents.is_empty()
    }

    /// Whether any event of capture `cap` can match, judged from what every
    /// one of its events shares (session id, status, agent). Used to skip a
    /// capture before reading it.
    pub fn capture_may_match(&self, cap: &Capture) -> bool {
        (self.sessions.is_empty() || self.sessions.iter().any(|s| s.matches(&cap.session)))
            && self.metadata_matches(cap.record.as_ref())
    }

    fn metadata_matches(&self, rec: Option<&SessionRecord>) -> bool {
        if !self.needs_session_metadata() {
            return true;
        }
        let Some(r) = rec else { return false };
        one_of(&self.statuses, r.status.as_deref()) && one_of(&self.agents, r.agent.as_deref())
    }

    /// Evaluates every predicate on an event. Cheap envelope tests run first;
    /// `data` is looked into only by `--tool`, `--errors` and `--where` tests
    /// on `data` paths, and only when the envelope tests passed.
    pub fn matches_event(&self, ev: &Event<'_>) -> Verdict {
        let name = ev.name();
        if !self.events.is_empty() && !self.events.iter().any(|g| g.matches(&name)) {
            return Verdict::NoMatch;
        }
        if self.not_events.iter().any(|g| g.matches(&name)) {
            return Verdict::NoMatch;
        }
        if !self.sessions.is_empty() {
            let id = ev.session();
            if !id.is_some_and(|id| self.sessions.iter().any(|s| s.matches(&id))) {
                return Verdict::NoMatch;
            }
        }
        if !self.workspaces.is_empty() && !self.event_in_workspace(ev) {
            return Verdict::NoMatch;
        }
        if !self.metadata_matches(ev.capture.and_then(|c| c.record.as_ref())) {
            return Verdict::NoMatch;
        }
        if self.has_time_bound() {
            match ev.timestamp() {
                None if ev.untimed_by_design() => return Verdict::NoMatch,
                None => return Verdict::Untimed,
                Some(t) if !self.in_bounds(t) => return Verdict::NoMatch,
                Some(_) => {}
            }
        }
        if !self.tools.is_empty() {
            let tool = ev.tool_name().and_then(|t| t.as_str());
            if !tool.is_some_and(|t| self.tools.iter().any(|g| g.matches(&t))) {
                return Verdict::NoMatch;
            }
        }
        if self.errors && !is_error(&name, ev) {
            return Verdict::NoMatch;
        }
        if !self.wheres.iter().all(|w| w.matches_event(ev)) {
            return Verdict::NoMatch;
        }
        Verdict::Match
    }

    /// Whether an event of this name can match: the name-level predicates
    /// (`--event`, `--not-event`, and `--errors`' names) alone, a necessary
    /// condition of [`Selection::matches_event`] (what ci-filter's line
    /// index picks lines by).
    pub fn name_may_match(&self, name: &str) -> bool {
        (self.events.is_empty() || self.events.iter().any(|g| g.matches(name)))
            && !self.not_events.iter().any(|g| g.matches(name))
            && (!self.errors || ERROR_EVENTS.contains(&name))
    }

    /// Whether some name-level predicate narrows the events
    /// ([`Selection::name_may_match`] is not always true).
    pub fn names_narrow(&self) -> bool {
        !self.events.is_empty() || !self.not_events.is_empty() || self.errors
    }

    /// Evaluates the session-level predicates on a session record; time bounds
    /// select sessions whose activity `[start, last]` overlaps `[since, until)`.
    pub fn matches_session(&self, r: &SessionRecord) -> Verdict {
        let ok = (self.workspaces.is_empty() || self.workspaces.iter().any(|w| r.in_workspace(w)))
            && (self.sessions.is_empty() || self.sessions.iter().any(|s| s.matches(&r.session)))
            && self.metadata_matches(Some(r));
        if !ok {
            return Verdict::NoMatch;
        }
        if self.has_time_bound() {
            if r.active_range().is_none() {
                return Verdict::Untimed;
            }
            if !r.overlaps(self.since, self.until) {
                return Verdict::NoMatch;
            }
        }
        Verdict::Match
    }

    fn in_bounds(&self, t: Timestamp) -> bool {
        self.since.is_none_or(|s| t >= s) && self.until.is_none_or(|u| t < u)
    }

    /// The line's (filled-in) workspace, else its session's project folder,
    /// is one of `--workspace` (the folder rule makes an event agree with the
    /// session record it came from, as `ci-find --workspace` decides).
    fn event_in_workspace(&self, ev: &Event<'_>) -> bool {
        if let Some(w) = ev.workspace() {
            if self.workspaces.iter().any(|x| *x == w) {
                return true;
            }
        }
        project_of(ev).is_some_and(|p| self.workspaces.iter().any(|x| *x == p))
    }
}

fn one_of(list: &[String], v: Option<&str>) -> bool {
    list.is_empty() || v.is_some_and(|v| list.iter().any(|x| x == v))
}

/// The project folder of an event's session: from its capture, else from the
/// provenance path, as its writer lays captures out ([`crate::discover::project_of_path`]).
fn project_of<'a>(ev: &Event<'a>) -> Option<Cow<'a, str>> {
    if let Some(c) = ev.capture {
        return c.record.as_ref().and_then(|r| r.project.as_deref()).map(Cow::Borrowed);
    }
    let path = ev.provenance()?.get("path")?.as_str()?;
    crate::discover::project_of_path(&path).map(Cow::Owned)
}

/// `tool:error`, `provider:error`, `orchestrator:complete` with status
/// `error`, and a `tool:post` that says it failed (Amplifier: `result.success`
/// is `false`).
/// The names of the events `--errors` can select ([`is_error`]).
const ERROR_EVENTS: [&str; 4] = ["tool:error", "provider:error", "orchestrator:complete", "tool:post"];

fn is_error(name: &str, ev: &Event<'_>) -> bool {
    match name {
        "tool:error" | "provider:error" => true,
        "orchestrator:complete" => ev.status().and_then(|s| s.as_str()).is_some_and(|s| s == "error"),
        "tool:post" => ev.failed(),
        _ => false,
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        let g = |p: &str, n: &str| Glob::new(p).unwrap().matches(n);
        assert!(g("tool:pre", "tool:pre"));
        assert!(!g("tool:pre", "tool:post"));
        assert!(g("tool:*", "tool:pre") && g("tool:*", "tool:") && !g("tool:*", "tools:pre"));
        assert!(g("*:error", "provider:error") && !g("*:error", "provider:errors"));
        assert!(g("*", "") && g("*", "anything"));
        assert!(g("t?ol:*", "tool:post") && !g("t?ol:*", "tl:post"));
        assert!(g("*:*_*", "delegate:agent_spawned") && !g("*:*_*", "tool:pre"));
        assert!(g("a*b*c", "abc") && g("a*b*c", "aXbYbZc") && !g("a*b*c", "aXbYcZ"));
        assert!(g("*é*", "café") && g("caf?", "café"));
        assert!(Glob::new("").is_err());
    }
}
