//! ci-grep's record narrowing (`--event`, `--workspace`, `--session`),
//! applied before any string is decoded.
//!
//! Kept minimal and local to ci-grep: exact event names or `*`/`?` globs,
//! workspace equality, session ids exact or by a prefix of at least 8
//! characters. Each flag is repeatable (OR); different flags combine with AND.

use crate::record::{Capture, Event};

/// Shortest session-id prefix accepted, as Amplifier and `ci-find` use.
pub const MIN_PREFIX: usize = 8;

/// Which records a search looks at.
#[derive(Debug, Clone, Default)]
pub struct Narrow {
    /// Event names or globs (`tool:*`).
    pub events: Vec<String>,
    /// Workspaces (exact).
    pub workspaces: Vec<String>,
    /// Session ids or prefixes.
    pub sessions: Vec<String>,
}

impl Narrow {
    /// Whether a capture may hold wanted records, decided before it is read:
    /// its session id must match `--session`, and a session whose metadata
    /// names a workspace must name one of `--workspace` (the writer puts the
    /// same workspace in the metadata and in every line).
    pub fn capture(&self, cap: &Capture) -> bool {
        if !self.sessions.is_empty() && !self.session_ok(&cap.session) {
            return false;
        }
        if !self.workspaces.is_empty() {
            if let Some(w) = cap.record.as_ref().and_then(|r| r.workspace.as_deref()) {
                return self.workspaces.iter().any(|x| x == w);
            }
        }
        true
    }

    /// Whether an event is wanted (its workspace is the line's own, else the
    /// capture's, as `ci-cat` prints it).
    pub fn event(&self, ev: &Event<'_>) -> bool {
        if !self.events.is_empty() {
            let name = ev.name();
            if !self.events.iter().any(|g| glob(g, &name)) {
                return false;
            }
        }
        if !self.workspaces.is_empty() {
            let w = ev.workspace();
            if !self.workspaces.iter().any(|x| Some(x.as_str()) == w.as_deref()) {
                return false;
            }
        }
        if !self.sessions.is_empty() && ev.capture.is_none() {
            return ev.session().is_some_and(|s| self.session_ok(&s));
        }
        true
    }

    fn session_ok(&self, id: &str) -> bool {
        self.sessions.iter().any(|s| id == s || (s.chars().count() >= MIN_PREFIX && id.starts_with(s.as_str())))
    }
}

/// Matches `text` against a glob where `*` is any run of characters and `?`
/// one character; everything else is literal.
pub fn glob(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || (p[pi] != '*' && p[pi] == t[ti])) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::glob;

    #[test]
    fn globs() {
        assert!(glob("tool:*", "tool:pre"));
        assert!(glob("tool:pre", "tool:pre"));
        assert!(!glob("tool:pre", "tool:post"));
        assert!(glob("*:error", "provider:error"));
        assert!(glob("t??l:*", "tool:x"));
        assert!(glob("*", ""));
        assert!(!glob("tool:*", "tools"));
        assert!(glob("a*b*c", "aXbYbZc"));
    }
}
