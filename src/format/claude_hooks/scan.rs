//! One pass over a session's hook payloads: the fields of its session
//! record (shared with the hook-log writer, whose arrays hold the same
//! payloads).

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use crate::format::LineKind;
use crate::json::{Index, Record};
use crate::lines::LineReader;
use crate::time::{self, Timestamp};

/// What a pass over a session's hook payloads collects (the fields of its
/// session record). Also used by the hook-log writer ([`super::hook_logs`]).
#[derive(Default)]
pub(crate) struct Scan {
    /// The first payload's `cwd`.
    pub(crate) cwd: Option<String>,
    /// The first SessionStart's `model`.
    pub(crate) model: Option<String>,
    started: bool,
    /// Whether a SessionEnd was seen.
    pub(crate) ended: bool,
    /// Earliest and latest `timestamp` that parses.
    pub(crate) first: Option<Timestamp>,
    pub(crate) last: Option<Timestamp>,
    /// Hook payloads seen.
    pub(crate) events: u64,
    /// `source:`, `permission:` and `agent:` tags.
    pub(crate) tags: BTreeSet<String>,
}

impl Scan {
    /// Counts the payloads of one file; `Err` when it cannot be opened.
    pub(super) fn file(&mut self, path: &Path) -> std::io::Result<()> {
        let f = fs::File::open(path)?;
        let mut lines = LineReader::new(f);
        let mut idx = Index::new();
        while let Ok(Some(line)) = lines.next_line() {
            let Ok(rec) = idx.parse(line.bytes) else { continue };
            self.payload(&rec);
        }
        Ok(())
    }

    /// Counts one record when it is a hook payload, and keeps its fields.
    pub(crate) fn payload(&mut self, rec: &Record<'_>) {
        if LineKind::of(rec) != LineKind::Format(&super::FORMAT) {
            return;
        }
        self.events += 1;
        let s = |k: &str| rec.get_str(k).map(Cow::into_owned);
        if self.cwd.is_none() {
            self.cwd = s("cwd");
        }
        // Every line names its mode: a tag is made only when it is new.
        if let Some(p) = rec.get_str("permission_mode") {
            if !self.tags.iter().any(|t| t.strip_prefix("permission:") == Some(p.as_ref())) {
                self.tags.insert(format!("permission:{p}"));
            }
        }
        if let Some(t) = rec.get_str("timestamp").as_deref().and_then(time::parse_timestamp) {
            self.first = Some(self.first.map_or(t, |f| f.min(t)));
            self.last = Some(self.last.map_or(t, |l| l.max(t)));
        }
        match rec.get_str("hook_event_name").as_deref() {
            Some("SessionStart") => {
                if !self.started {
                    self.started = true;
                    self.model = s("model");
                }
                if let Some(src) = s("source") {
                    self.tags.insert(format!("source:{src}"));
                }
            }
            Some("SessionEnd") => self.ended = true,
            Some("SubagentStart") => {
                if let Some(a) = s("agent_type") {
                    self.tags.insert(format!("agent:{a}"));
                }
            }
            _ => {}
        }
    }
}
