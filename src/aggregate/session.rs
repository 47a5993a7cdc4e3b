//! `--sessions`: one record per session.
//!
//! State is kept per session while its events are read ([`SessionState`]) and
//! reduced to a small mergeable [`Summary`] when the capture ends, so memory
//! holds one open session per thread plus one summary per session.
//!
//! Fields of the output record:
//!
//! | field | meaning |
//! |---|---|
//! | `session`, `project` | the session id and project folder |
//! | `workspace` | session metadata, else the first event's `workspace` |
//! | `parent` | metadata `parent_id`, else the `session:fork` line's `data.parent`, else a non-null `data.parent_id` |
//! | `agent` | metadata `agent_name`, else the fork line's `data.metadata.agent_name` |
//! | `status` | metadata `status` (`running` flips to `completed` after the first turn) |
//! | `outcome` | `data.status` of the last `orchestrator:complete` (success/error/cancelled/incomplete) |
//! | `started`, `last_event` | earliest and latest event timestamp (parsed, not line order; copies of another session's history, `copy:…`, left out), RFC 3339 UTC |
//! | `duration_ms` | `last_event − started` |
//! | `events` | events by type |
//! | `tool_calls`, `tool_errors` | distinct `tool_call_id`s by tool; failed calls (see [`super::calls`]) |
//! | `turns` | `prompt:submit` events |
//! | `messages` | prompts + responses: `prompt:submit` + `prompt:complete` |
//! | `avg_response_ms` | mean over turns of `prompt:submit` → end of that turn: its `orchestrator:complete`, else its last `prompt:complete` |
//! | `tokens` | `{input, output, cache_read, cache_write}` summed over `llm:response` `data.usage`, both key generations |
//! | `cost_usd` | sum of `data.usage.cost_usd` over `llm:response` (decimal strings summed exactly); null when none had one |
//! | `models` | distinct `data.model` of `llm:response` and `session:start` (Claude hooks: SessionStart `model`) |
//! | `compactions` | `context:compaction` events |
//! | `files_read`, `files_edited` | sorted distinct files of tool events (pre, post or error) whose tool reads or edits the file its input names, by the writer's tools ([`crate::format::file_tools`]; by default the path `data.tool_input.file_path`, read = Read, NotebookRead, Glob, Grep, LS, read_file, glob, grep; edited = Edit, MultiEdit, Write, NotebookEdit, edit_file, write_file); a call copied from another session (a resume's history) lists its file in the session owning the call ([`settle`]) |
//! | `subagents` | `delegate:agent_spawned` events (Claude hooks: SubagentStart) |
//! | `children` | `data.sub_session_id` of `delegate:agent_spawned`/`_completed`, plus every session of the same run whose `parent` is this one |
//!
//! Time fields are null when the events carry no usable timestamp.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::record::Event;
use crate::session::SessionRecord;
use crate::time::{self, Timestamp};

use super::calls::{self, millis, Call, Calls, Outcome};
use super::copied::Copied;
use super::cost::{Costing, Tally};
use super::field::{Numeric, Val};
use super::groups::Row;
use super::json_num;
use super::responses::Responses;
use super::stat::Sum;
use crate::format::{CallKey, FileUse, Usage};

mod settle;
pub use self::settle::settle;

/// A turn boundary, by position in the capture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Mark {
    /// A prompt, with its identity when it may be a copy ([`Copied`]).
    Submit(Option<u64>),
    PromptComplete,
    OrchestratorComplete,
    /// A response, for writers whose turn ends at its first reply.
    Response,
}

/// The identity of a session: its id and project folder (the same id under
/// two projects is two sessions).
pub type SessionKey = (String, Option<String>);

/// A session being read.
#[derive(Debug, Default)]
pub struct SessionState {
    summary: Summary,
    fork_parent: Option<String>,
    data_parent: Option<String>,
    fork_agent: Option<String>,
    first_workspace: Option<String>,
    calls: Calls,
    marks: Vec<(u64, Mark, Option<Timestamp>)>,
    outcome_line: Option<u64>,
    /// The session's writer copies history into other sessions (its calls
    /// are settled across the run, [`settle`]).
    copies_history: bool,
    /// An event of the session's companion file was read (in the window).
    companion_read: bool,
}

impl SessionState {
    /// A session described by its record (when known).
    pub fn new(session: &str, record: Option<&SessionRecord>) -> SessionState {
        let mut s = SessionState::default();
        s.summary.session = session.to_owned();
        if let Some(r) = record {
            s.summary.project = r.project.clone();
            s.summary.workspace = r.workspace.clone();
            s.summary.parent = r.parent.clone();
            s.summary.agent = r.agent.clone();
            s.summary.status = r.status.clone();
            s.summary.subagents = r.format.layout.subagents(r);
            s.summary.tokens_unknown = !r.format.profile.carries_usage;
        }
        s
    }

    /// Reads one event of the session.
    pub fn event(&mut self, ev: &Event<'_>, costing: &mut Costing) {
        let name = ev.name();
        let sum = &mut self.summary;
        *sum.events.entry(name.to_string()).or_insert(0) += 1;
        let ts = ev.timestamp();
        // A copy of another session's history is not this one's activity.
        if let Some(t) = ts.filter(|_| !name.starts_with(crate::format::COPY_PREFIX)) {
            sum.started = Some(sum.started.map_or(t, |s: Timestamp| s.min(t)));
            sum.last_event = Some(sum.last_event.map_or(t, |s: Timestamp| s.max(t)));
        }
        let copy = if ev.copies_history() { sum.copied.event(&name, ev.copy_key().as_deref(), ts) } else { None };
        if self.first_workspace.is_none() {
            self.first_workspace = ev.line_workspace().map(|w| w.into_owned());
        }
        // The parent id is the same on every line of a session: read it from
        // the first line only, never scanning a huge payload for it again.
        if self.data_parent.is_none() && sum.events.values().sum::<u64>() == 1 {
            self.data_parent = ev.parent_id().filter(|p| !p.is_empty()).map(Cow::into_owned);
        }
        // Turn marks are ordered by the line in the capture (the provenance
        // line for piped records), never by arrival.
        let line = ev.provenance().and_then(|p| p.get("line")).and_then(|l| l.as_f64()).map_or(ev.line, |l| l as u64);
        match name.as_ref() {
            "session:fork" => {
                self.fork_parent = self.fork_parent.take().or_else(|| ev.fork_parent().map(Cow::into_owned));
                self.fork_agent = self.fork_agent.take().or_else(|| ev.fork_agent().map(Cow::into_owned));
            }
            n if calls::is_tool_event(n) => {
                self.copies_history |= ev.copies_history();
                match (ev.copies_history(), ev.call_key()) {
                    // Its calls may be copies: their files count where they do.
                    (true, CallKey::Id(id)) => {
                        if let Some((edited, path)) = file_touched(ev) {
                            sum.files_held.push((id.into_owned(), edited, path));
                        }
                    }
                    _ => {
                        if let Some((edited, path)) = file_touched(ev) {
                            if edited { &mut sum.files_edited } else { &mut sum.files_read }.insert(path);
                        }
                    }
                }
                let session = sum.session.clone();
                self.calls.add(ev, n, &session, || None);
            }
            "prompt:submit" => self.marks.push((line, Mark::Submit(copy), ts)),
            // A response written more than once (one line per content block,
            // copied history): held by its identity, counted once ([`settle`]).
            "llm:response" | "llm:content" if ev.copies_history() => {
                if let Some(m) = ev.model().and_then(|m| m.as_str()) {
                    if !sum.models.contains(m.as_ref()) {
                        sum.models.insert(m.into_owned());
                    }
                }
                if name == "llm:response" && ev.reply_ends_turn() {
                    sum.reply_ends_turn = true;
                    self.marks.push((line, Mark::Response, ts));
                }
                match ev.message_key() {
                    Some(key) => sum.responses.add_copy(ev, costing, key),
                    None => add_tokens(ev, costing, sum),
                }
            }
            "prompt:complete" => self.marks.push((line, Mark::PromptComplete, ts)),
            "orchestrator:complete" => {
                self.marks.push((line, Mark::OrchestratorComplete, ts));
                if self.outcome_line.is_none_or(|l| line >= l) {
                    self.outcome_line = Some(line);
                    sum.outcome = ev.status().and_then(|s| s.as_str()).map(Cow::into_owned);
                }
            }
            // Claude hooks: the SessionStart line names the model.
            "session:start" => {
                if let Some(m) = ev.model().and_then(|m| m.as_str()) {
                    sum.models.insert(m.into_owned());
                }
            }
            // Models from responses only: a request names the same model, and
            // its payload (the whole conversation) is not worth scanning.
            "llm:response" => {
                if let Some(m) = ev.model().and_then(|m| m.as_str()) {
                    sum.models.insert(m.into_owned());
                }
                add_tokens(ev, costing, sum);
            }
            "delegate:agent_spawned" | "delegate:agent_completed" => {
                if let Some(child) = ev.child().filter(|c| !c.is_empty()) {
                    sum.children.insert(child.into_owned());
                }
            }
            _ => {}
        }
    }

    /// Whether no event of the session was read, nor of its companion file
    /// (a windowed run lists a hooks session whose transcript copy has a
    /// response in the window, as `ci-find --since` lists it).
    pub fn is_empty(&self) -> bool {
        self.summary.events.is_empty() && !self.companion_read
    }

    /// Reads one event of the session's companion file (a hooks session's
    /// transcript copy): its time and its responses' models and tokens.
    pub fn companion(&mut self, ev: &Event<'_>, costing: &mut Costing) {
        self.companion_read = true;
        let sum = &mut self.summary;
        if let Some(t) = ev.timestamp() {
            sum.started = Some(sum.started.map_or(t, |s: Timestamp| s.min(t)));
            sum.last_event = Some(sum.last_event.map_or(t, |s: Timestamp| s.max(t)));
        }
        let name = ev.name();
        if name != "llm:response" && name != "llm:content" {
            return;
        }
        if let Some(m) = ev.model().and_then(|m| m.as_str()) {
            if !sum.models.contains(m.as_ref()) {
                sum.models.insert(m.into_owned());
            }
        }
        if ev.tokens().iter().any(Option::is_some) {
            sum.tokens_unknown = false;
        }
        if let Some(key) = ev.message_key() {
            sum.responses.add_copy(ev, costing, key);
        }
    }

    /// Combines what another thread read of the same session (piped records).
    pub fn merge(&mut self, o: SessionState) {
        self.summary.merge(o.summary);
        self.fork_parent = self.fork_parent.take().or(o.fork_parent);
        self.data_parent = self.data_parent.take().or(o.data_parent);
        self.fork_agent = self.fork_agent.take().or(o.fork_agent);
        self.first_workspace = self.first_workspace.take().or(o.first_workspace);
        self.calls.merge(o.calls);
        self.copies_history |= o.copies_history;
        self.companion_read |= o.companion_read;
        self.marks.extend(o.marks);
        if o.outcome_line.is_some_and(|l| self.outcome_line.is_none_or(|m| l >= m)) {
            self.outcome_line = o.outcome_line;
        }
    }

    /// Ends the session: pairs calls and turns.
    pub fn finish(mut self) -> Summary {
        let mut s = self.summary;
        s.parent = s.parent.or(self.fork_parent).or(self.data_parent);
        s.agent = s.agent.or(self.fork_agent);
        s.workspace = s.workspace.or(self.first_workspace);
        let finished: Vec<(Option<String>, Call)> = self.calls.drain_with_ids();
        for (id, call) in finished {
            // A writer that copies history between sessions (resumed Claude
            // Code sessions copy tool_use ids too): its calls are settled
            // across the run, each counted in the session of its first line.
            if let (true, Some(id)) = (self.copies_history, id) {
                s.calls_held.push((id, call));
                continue;
            }
            let tool = call.tool.clone().unwrap_or_else(|| "null".into());
            *s.tool_calls.entry(tool).or_insert(0) += 1;
            if call.outcome() == Outcome::Error {
                s.tool_errors += 1;
            }
        }
        if s.reply_ends_turn {
            // A session of several files (subagents): line numbers are per
            // file, so turns are ordered by time.
            self.marks.sort_by_key(|m| (m.2, m.0, m.1));
        } else {
            self.marks.sort_by_key(|m| (m.0, m.1));
        }
        let mut open: Option<(Option<Timestamp>, Option<u64>)> = None;
        let mut reply: Option<Timestamp> = None;
        for (_, mark, ts) in self.marks {
            match mark {
                Mark::Submit(copy) => {
                    if let Some(start) = open.take() {
                        close(start, reply, &mut s);
                    }
                    open = Some((ts, copy));
                    reply = None;
                }
                Mark::PromptComplete => {
                    if open.is_some() {
                        reply = ts.or(reply);
                    }
                }
                Mark::OrchestratorComplete => {
                    if let Some(start) = open.take() {
                        close(start, ts, &mut s);
                    }
                }
                Mark::Response => {
                    if let Some(start) = open.take() {
                        close(start, ts, &mut s);
                    }
                }
            }
        }
        if let Some(start) = open {
            close(start, reply, &mut s);
        }
        s.files_held.sort_unstable();
        s.files_held.dedup();
        s.files_held.shrink_to_fit();
        s.calls_held.shrink_to_fit();
        s.responses.shrink();
        s.copied.shrink();
        s
    }
}

/// Adds a response's token and cost figures to the session's sums.
fn add_tokens(ev: &Event<'_>, costing: &mut Costing, sum: &mut Summary) {
    for (i, raw) in ev.tokens()[..Usage::Cost as usize].iter().enumerate() {
        let Some(raw) = raw else { continue };
        if let Numeric::Num(n) = Val::Raw(*raw).numeric() {
            sum.tokens[i].add(n);
        }
    }
    let cost = costing.cost(ev);
    sum.cost.note(&cost);
    if let Some(c) = cost.usd {
        sum.cost_usd.get_or_insert_with(Sum::default).add(c);
    }
}

/// The file a tool event reads or edits (`true`: edits), by its writer's
/// file tools ([`crate::format::Dialect::file_use`]).
fn file_touched(ev: &Event<'_>) -> Option<(bool, String)> {
    let (used, path) = ev.file_use()?;
    Some((used == FileUse::Edit, path.into_owned()))
}

/// Counts one turn's response time when both ends have a timestamp.
/// A turn whose prompt may be a copy is held until [`settle`] ([`Copied`]).
fn close((start, copy): (Option<Timestamp>, Option<u64>), end: Option<Timestamp>, s: &mut Summary) {
    if let (Some(a), Some(b)) = (start, end) {
        if let Some(k) = copy {
            s.copied.turn(k, a, b);
            return;
        }
        s.response_ms.add(millis(a, b));
        s.responses_timed += 1;
    }
}

/// A finished session in mergeable form: the `--partial` state of
/// `--sessions`, and what its output record is made from. Merging two
/// summaries of one session adds counts and sums and unites sets; it is exact
/// when a session is not split across shards (xargs/parallel over capture
/// paths never split one).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Session id.
    pub session: String,
    /// Project folder.
    #[serde(default)]
    pub project: Option<String>,
    /// Workspace.
    #[serde(default)]
    pub workspace: Option<String>,
    /// Parent session.
    #[serde(default)]
    pub parent: Option<String>,
    /// Agent name.
    #[serde(default)]
    pub agent: Option<String>,
    /// Metadata status.
    #[serde(default)]
    pub status: Option<String>,
    /// Status of the last `orchestrator:complete`.
    #[serde(default)]
    pub outcome: Option<String>,
    /// Earliest event time.
    #[serde(default, with = "ts_opt")]
    pub started: Option<Timestamp>,
    /// Latest event time.
    #[serde(default, with = "ts_opt")]
    pub last_event: Option<Timestamp>,
    /// Events by type.
    #[serde(default)]
    pub events: BTreeMap<String, u64>,
    /// Distinct calls by tool.
    #[serde(default)]
    pub tool_calls: BTreeMap<String, u64>,
    /// Failed calls.
    #[serde(default)]
    pub tool_errors: u64,
    /// Sum of timed turn durations (ms).
    #[serde(default)]
    pub response_ms: Sum,
    /// Timed turns.
    #[serde(default)]
    pub responses_timed: u64,
    /// input, output, cache_read, cache_write.
    #[serde(default)]
    pub tokens: [Sum; 4],
    /// Cost, when any response had one.
    #[serde(default)]
    pub cost_usd: Option<Sum>,
    /// Where the costs came from, and the models without a price.
    #[serde(default, skip_serializing_if = "Tally::is_empty")]
    pub cost: Tally,
    /// Models used.
    #[serde(default)]
    pub models: BTreeSet<String>,
    /// Child sessions named by delegate events.
    #[serde(default)]
    pub children: BTreeSet<String>,
    /// Files read (`tool_input.file_path` of read tools).
    #[serde(default)]
    pub files_read: BTreeSet<String>,
    /// Files edited (`tool_input.file_path` of edit tools).
    #[serde(default)]
    pub files_edited: BTreeSet<String>,
    /// Subagent transcripts of the session (beside `delegate:agent_spawned` events).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub subagents: u64,
    /// Whether the session's tokens are unknown (a writer whose events carry
    /// no usage, and no companion file read): printed as null, not 0.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub tokens_unknown: bool,
    /// Whether a turn ends at its first reply (then messages are prompts + responses).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reply_ends_turn: bool,
    /// Calls by id (sorted, distinct) of a writer that copies history
    /// between sessions, held until [`settle`] counts each in one session
    /// (never on the wire). A list, not a tree: a tree's first node is 2 KB,
    /// and 28,000 finished sessions hold a few calls each.
    #[serde(skip)]
    pub calls_held: Vec<(String, Call)>,
    /// Files of held calls by call id (`true`: edited), the owner's when
    /// [`settle`] has counted each call in one session (never on the wire;
    /// sorted and distinct once the session is finished).
    #[serde(skip)]
    pub files_held: Vec<(String, bool, String)>,
    /// Responses written more than once, held by identity until [`settle`]
    /// counts each once in `tokens` (never on the wire: settled first).
    #[serde(skip)]
    pub responses: Responses,
    /// Events that may be copies of another session's, held until
    /// [`settle`] takes out the copies (never on the wire: settled first).
    #[serde(skip)]
    pub copied: Copied,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Summary {
    /// The identity.
    pub fn key(&self) -> SessionKey {
        (self.session.clone(), self.project.clone())
    }

    /// A summary with the identity only (the first piece of a split).
    fn identity(&self) -> Summary {
        Summary {
            session: self.session.clone(),
            project: self.project.clone(),
            workspace: self.workspace.clone(),
            parent: self.parent.clone(),
            agent: self.agent.clone(),
            status: self.status.clone(),
            outcome: self.outcome.clone(),
            ..Summary::default()
        }
    }

    /// Combines another summary of the same session.
    pub fn merge(&mut self, o: Summary) {
        for (mine, theirs) in [
            (&mut self.workspace, o.workspace),
            (&mut self.parent, o.parent),
            (&mut self.agent, o.agent),
            (&mut self.status, o.status),
            (&mut self.outcome, o.outcome),
        ] {
            if mine.is_none() {
                *mine = theirs;
            }
        }
        self.started = min_opt(self.started, o.started, true);
        self.last_event = min_opt(self.last_event, o.last_event, false);
        for (k, n) in o.events {
            let e = self.events.entry(k).or_insert(0);
            *e = e.saturating_add(n);
        }
        for (k, n) in o.tool_calls {
            let e = self.tool_calls.entry(k).or_insert(0);
            *e = e.saturating_add(n);
        }
        self.tool_errors = self.tool_errors.saturating_add(o.tool_errors);
        self.response_ms.merge(&o.response_ms);
        self.responses_timed = self.responses_timed.saturating_add(o.responses_timed);
        for (a, b) in self.tokens.iter_mut().zip(&o.tokens) {
            a.merge(b);
        }
        match (&mut self.cost_usd, o.cost_usd) {
            (Some(a), Some(b)) => a.merge(&b),
            (None, b) => self.cost_usd = b,
            _ => {}
        }
        self.cost.merge(o.cost);
        self.models.extend(o.models);
        self.children.extend(o.children);
        self.files_read.extend(o.files_read);
        self.files_edited.extend(o.files_edited);
        self.subagents = self.subagents.max(o.subagents);
        self.tokens_unknown &= o.tokens_unknown;
        self.reply_ends_turn |= o.reply_ends_turn;
        self.responses.merge(o.responses);
        self.copied.merge(o.copied);
        if !o.files_held.is_empty() {
            self.files_held.extend(o.files_held);
            self.files_held.sort_unstable();
            self.files_held.dedup();
        }
        if !o.calls_held.is_empty() {
            self.calls_held.extend(o.calls_held);
            // Stable: this summary's call before the other's, merged in that order.
            self.calls_held.sort_by(|a, b| a.0.cmp(&b.0));
            let mut distinct: Vec<(String, Call)> = Vec::with_capacity(self.calls_held.len());
            for (id, c) in self.calls_held.drain(..) {
                match distinct.last_mut() {
                    Some((last, mine)) if *last == id => mine.merge(c),
                    _ => distinct.push((id, c)),
                }
            }
            self.calls_held = distinct;
        }
    }

    /// Splits into pieces whose JSON stays under about `limit` bytes (for
    /// atomic pipe writes); merging the pieces gives this summary back.
    pub fn split(self, limit: usize) -> Vec<Summary> {
        let size = serde_json::to_vec(&self).map_or(0, |v| v.len());
        if size <= limit {
            return vec![self];
        }
        let mut core = Summary {
            events: BTreeMap::new(),
            tool_calls: BTreeMap::new(),
            models: BTreeSet::new(),
            children: BTreeSet::new(),
            ..self.clone()
        };
        let mut pieces = vec![];
        let base = serde_json::to_vec(&self.identity()).map_or(0, |v| v.len());
        let mut used = serde_json::to_vec(&core).map_or(0, |v| v.len());
        let next = |used: &mut usize, cost: usize, core: &mut Summary, pieces: &mut Vec<Summary>| {
            if *used + cost > limit {
                pieces.push(std::mem::replace(core, self.identity()));
                *used = base;
            }
            *used += cost;
        };
        for (k, n) in &self.events {
            next(&mut used, k.len() + 24, &mut core, &mut pieces);
            core.events.insert(k.clone(), *n);
        }
        for (k, n) in &self.tool_calls {
            next(&mut used, k.len() + 24, &mut core, &mut pieces);
            core.tool_calls.insert(k.clone(), *n);
        }
        for m in &self.models {
            next(&mut used, m.len() + 8, &mut core, &mut pieces);
            core.models.insert(m.clone());
        }
        for c in &self.children {
            next(&mut used, c.len() + 8, &mut core, &mut pieces);
            core.children.insert(c.clone());
        }
        pieces.push(core);
        pieces
    }

    /// The output record. `children` are added to the delegate-named ones.
    pub fn row(&self, more_children: &BTreeSet<String>) -> Row {
        let ts = |t: Option<Timestamp>| t.map_or(Value::Null, |t| Value::String(time::format_timestamp(t)));
        let s = |v: &Option<String>| v.clone().map_or(Value::Null, Value::String);
        let n = |name: &str| self.events.get(name).copied().unwrap_or(0);
        let mut rec = Map::new();
        rec.insert("session".into(), Value::String(self.session.clone()));
        rec.insert("project".into(), s(&self.project));
        rec.insert("workspace".into(), s(&self.workspace));
        rec.insert("parent".into(), s(&self.parent));
        rec.insert("agent".into(), s(&self.agent));
        rec.insert("status".into(), s(&self.status));
        rec.insert("outcome".into(), s(&self.outcome));
        rec.insert("started".into(), ts(self.started));
        rec.insert("last_event".into(), ts(self.last_event));
        let duration = match (self.started, self.last_event) {
            (Some(a), Some(b)) => json_num(millis(a, b)),
            _ => Value::Null,
        };
        rec.insert("duration_ms".into(), duration);
        rec.insert("events".into(), self.events.iter().map(|(k, v)| (k.clone(), Value::from(*v))).collect());
        rec.insert("tool_calls".into(), self.tool_calls.iter().map(|(k, v)| (k.clone(), Value::from(*v))).collect());
        rec.insert("tool_errors".into(), self.tool_errors.into());
        rec.insert("turns".into(), n("prompt:submit").into());
        let replies = if self.reply_ends_turn { n("llm:response") } else { n("prompt:complete") };
        rec.insert("messages".into(), n("prompt:submit").saturating_add(replies).into());
        rec.insert("avg_response_ms".into(), self.response_ms.mean(self.responses_timed).map_or(Value::Null, json_num));
        let tokens: Map<String, Value> = ["input", "output", "cache_read", "cache_write"]
            .iter()
            .zip(&self.tokens)
            .map(|(k, v)| ((*k).to_owned(), json_num(v.value())))
            .collect();
        rec.insert("tokens".into(), if self.tokens_unknown { Value::Null } else { Value::Object(tokens) });
        rec.insert("cost_usd".into(), self.cost_usd.as_ref().map_or(Value::Null, |c| json_num(c.value())));
        self.cost.write(&mut rec);
        rec.insert("models".into(), self.models.iter().cloned().map(Value::String).collect());
        rec.insert("compactions".into(), n("context:compaction").into());
        let children: BTreeSet<&String> = self.children.iter().chain(more_children).collect();
        rec.insert("children".into(), children.into_iter().cloned().map(Value::String).collect());
        rec.insert("subagents".into(), n("delegate:agent_spawned").saturating_add(self.subagents).into());
        rec.insert("files_read".into(), self.files_read.iter().cloned().map(Value::String).collect());
        rec.insert("files_edited".into(), self.files_edited.iter().cloned().map(Value::String).collect());
        Row { count: 0, key: vec![], record: rec }
    }
}

fn min_opt(a: Option<Timestamp>, b: Option<Timestamp>, min: bool) -> Option<Timestamp> {
    match (a, b) {
        (Some(x), Some(y)) => Some(if min { x.min(y) } else { x.max(y) }),
        (x, y) => x.or(y),
    }
}

/// Output records of finished sessions: newest first by `started` (sessions
/// without timestamps last), then by id and project; children completed from
/// the `parent` of the others.
pub fn rows(mut summaries: Vec<Summary>) -> Vec<Row> {
    settle(&mut summaries);
    let mut kids: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for s in &summaries {
        if let Some(p) = &s.parent {
            kids.entry(p.clone()).or_default().insert(s.session.clone());
        }
    }
    let mut sorted = summaries;
    sorted.sort_by(|a, b| {
        let by_start = match (a.started, b.started) {
            (Some(x), Some(y)) => y.cmp(&x),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        };
        by_start.then_with(|| a.session.cmp(&b.session)).then_with(|| a.project.cmp(&b.project))
    });
    let none = BTreeSet::new();
    // Each summary is dropped as soon as its record is made.
    sorted.into_iter().map(|s| s.row(kids.get(&s.session).unwrap_or(&none))).collect()
}

impl Serialize for Sum {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_wire().serialize(s)
    }
}

impl<'de> Deserialize<'de> for Sum {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Sum, D::Error> {
        let v = Value::deserialize(d)?;
        Sum::from_wire(&v).map_err(serde::de::Error::custom)
    }
}

mod ts_opt {
    use serde::{Deserialize, Deserializer, Serializer};

    use crate::time::{self, Timestamp};

    pub(super) fn serialize<S: Serializer>(t: &Option<Timestamp>, s: S) -> Result<S::Ok, S::Error> {
        match t {
            Some(t) => s.serialize_str(&time::format_timestamp(*t)),
            None => s.serialize_none(),
        }
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Timestamp>, D::Error> {
        let v: Option<String> = Option::deserialize(d)?;
        match v {
            None => Ok(None),
            Some(s) => time::parse_timestamp(&s)
                .map(Some)
                .ok_or_else(|| serde::de::Error::custom(format!("bad timestamp {s:?}"))),
        }
    }
}
