//! A small deterministic generator of Claude Code transcript trees
//! (`<root>/projects/<project-folder>/<session-id>.jsonl`, formats.md §5), for
//! the token and session tests. Test-only: it lives in the integration-test
//! crate and is never part of the shipped binaries.
//!
//! [`generate`] (`write.rs`) writes `sessions` sessions spread over several UTC days and
//! returns what a correct reader must find ([`Expected`]), computed here from
//! what was written, never read back from a tool. The files hold every line
//! shape the real transcripts have and a reader must tell apart:
//!
//! - user prompts with string content and with block content (text, image);
//!   `isMeta` user lines and compact summaries (`isCompactSummary`), which are
//!   not prompts; `tool_result` blocks in user lines (some `is_error: true`),
//!   the `Task` ones with a `toolUseResult.usage` object (a user line holding
//!   the bytes `"usage":{`, which is not a response);
//! - assistant messages written one line per content block (thinking, text,
//!   tool_use), every line repeating `message.id`, `requestId` and the usage,
//!   the copies differing only in `output_tokens`: the largest counts, and it
//!   is not always on the last line; sometimes a line is written twice;
//! - `<synthetic>` assistant lines (no `requestId`, zero usage: not model output);
//! - `system` lines (`turn_duration`, `api_error`, `compact_boundary`),
//!   `summary` and `file-history-snapshot` lines (no `sessionId`, no top-level
//!   `timestamp`);
//! - subagent transcripts at `<folder>/<session-id>/subagents/agent-<id>.jsonl`
//!   (every line carries the parent's `sessionId`, `isSidechain: true` and
//!   `agentId`), one per `Task` tool call, written between the call and its
//!   result;
//! - resumed sessions (session 1, 5, 9, … continues the one before it): a new
//!   file whose first lines are the earlier session's good lines again (same
//!   `uuid`, `message.id`, `requestId`, `timestamp`, usage; only `sessionId` is
//!   the new one), then new turns. The copies are not new usage;
//! - damaged lines mid-file (a record cut mid-JSON, two records glued on one
//!   line, text that is not JSON, invalid UTF-8), always followed by a good
//!   line, and torn last lines (a record cut mid-JSON, no final newline).
//!
//! Timestamps are RFC 3339 UTC with milliseconds and `Z`. Models are never
//! `speed: "fast"`, every real message has a `requestId`, and no message's
//! copies straddle a UTC midnight, so a message's day and model do not depend
//! on which copy a reader keeps, and the max of each field is ccusage's copy
//! with the largest total. A resumed session's file name sorts
//! after its original's, so a reader that keeps the first copy in path order
//! (ccusage) gives the copies to the original session, as [`Expected`] does.
//!
//! ccusage differs from [`Expected`] in one visible place only: its session
//! report dedupes a copy without `requestId` (the `<synthetic>` lines) only
//! between lines with the same `sessionId`, so a resumed file's copied
//! `<synthetic>` lines (zero usage) move that session's `firstActivity` back
//! into the copied history; the token sums are the same. ccusage's first/last
//! activity are over usage lines; `Counts` timestamps are over all lines.
//!
//! Checked against ccusage's own counting (a recount of its rule, and the
//! ccusage 20.0.24 binary) when the generator was written; see
//! `fixtures/README.md`, "Claude Code transcripts".

#![allow(dead_code)]

mod write;

pub use write::generate;

use std::collections::BTreeMap;
use std::path::PathBuf;

/// The seeded picker of the fault generator.
pub use crate::faultgen::Rng;

/// The four token counts of Claude's `usage`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Tokens {
    /// `input_tokens`.
    pub input: u64,
    /// `output_tokens`.
    pub output: u64,
    /// `cache_creation_input_tokens` (our `cache_write_tokens`; in these files
    /// always equal to `cache_creation.ephemeral_5m + ephemeral_1h` when that
    /// object is present).
    pub cache_creation: u64,
    /// `cache_read_input_tokens` (our `cache_read_tokens`).
    pub cache_read: u64,
}

impl Tokens {
    pub fn add(&mut self, o: &Tokens) {
        self.input += o.input;
        self.output += o.output;
        self.cache_creation += o.cache_creation;
        self.cache_read += o.cache_read;
    }

    pub fn total(&self) -> u64 {
        self.input + self.output + self.cache_creation + self.cache_read
    }
}

/// What one transcript file (or the copied part of one) holds, counted over
/// its good lines only (damaged lines and torn tails never count).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counts {
    /// `type: "user"` lines that are prompts: not `isMeta`, not
    /// `isCompactSummary`, content a string or blocks without `tool_result`.
    /// In a subagent file, the task prompt that starts it.
    pub prompts: u64,
    /// Distinct `message.id`s of assistant lines, `<synthetic>` excluded.
    pub assistant_messages: u64,
    /// `<synthetic>` assistant lines.
    pub synthetic_messages: u64,
    /// Distinct `tool_use` ids by tool name (`Task` included).
    pub tool_calls: BTreeMap<String, u64>,
    /// `tool_result` blocks with `is_error: true`.
    pub tool_errors: u64,
    /// Earliest and latest top-level `timestamp` of any line (RFC 3339, ms,
    /// `Z`: these compare as strings).
    pub first_timestamp: Option<String>,
    pub last_timestamp: Option<String>,
    /// Token sums of the messages counted in `assistant_messages` (one
    /// message = the max of each field over its copies).
    pub tokens: Tokens,
}

impl Counts {
    pub fn tool_call_total(&self) -> u64 {
        self.tool_calls.values().sum()
    }

    fn seen(&mut self, ts: &str) {
        if self.first_timestamp.as_deref().is_none_or(|f| ts < f) {
            self.first_timestamp = Some(ts.to_owned());
        }
        if self.last_timestamp.as_deref().is_none_or(|l| ts > l) {
            self.last_timestamp = Some(ts.to_owned());
        }
    }
}

/// One subagent transcript.
#[derive(Debug, Clone)]
pub struct Subagent {
    /// The `agentId` (the file is `agent-<agent_id>.jsonl`).
    pub agent_id: String,
    pub path: PathBuf,
    /// The `Task` tool_use id in the parent that started it.
    pub task_id: String,
    pub counts: Counts,
}

/// One session: a main file and its subagent files.
#[derive(Debug, Clone)]
pub struct Session {
    pub id: String,
    /// The project folder (`-home-dev-webapp`).
    pub project: String,
    /// The working directory recorded as `cwd` (`/home/dev/webapp`).
    pub cwd: String,
    /// The main file, `<root>/projects/<project>/<id>.jsonl`.
    pub path: PathBuf,
    /// The session whose history this file starts with, if it is a resume.
    pub resumed_from: Option<String>,
    /// How many lines at the top of the file are that copied history.
    pub copied_lines: u64,
    /// What the copied lines hold (as the original counted them); all zero
    /// unless resumed. A per-file view of the session is `counts + copied`.
    pub copied: Counts,
    /// The session's own lines of the main file (the copied history excluded).
    pub counts: Counts,
    pub subagents: Vec<Subagent>,
    /// `counts.tokens` plus every subagent's tokens (= `Expected::by_session`).
    pub tokens: Tokens,
}

/// Everything the generator knows about the tree it wrote.
#[derive(Debug, Clone, Default)]
pub struct Expected {
    /// Per (UTC day `YYYY-MM-DD`, model): token sums over distinct
    /// (`message.id`, `requestId`), each the max of each field over its
    /// copies; `<synthetic>` excluded; subagent messages included; resumed
    /// copies counted once.
    pub by_day_model: BTreeMap<(String, String), Tokens>,
    /// Per session id: the same sums over the session's own messages and its
    /// subagents' (copied history belongs to the original session).
    pub by_session: BTreeMap<String, Tokens>,
    /// In generation order.
    pub sessions: Vec<Session>,
    /// Every damaged line, (path, 1-based physical line), sorted. Each is
    /// followed by a newline and a good line.
    pub damaged: Vec<(PathBuf, u64)>,
    /// Files ending in a torn line (cut mid-JSON, no final newline), sorted.
    pub torn_tails: Vec<PathBuf>,
    /// Every file written, sorted.
    pub files: Vec<PathBuf>,
}

impl Expected {
    pub fn session(&self, id: &str) -> Option<&Session> {
        self.sessions.iter().find(|s| s.id == id)
    }

    /// Per UTC day: the sums over all models.
    pub fn by_day(&self) -> BTreeMap<String, Tokens> {
        let mut m: BTreeMap<String, Tokens> = BTreeMap::new();
        for ((day, _), t) in &self.by_day_model {
            m.entry(day.clone()).or_default().add(t);
        }
        m
    }

    pub fn total(&self) -> Tokens {
        let mut t = Tokens::default();
        for v in self.by_day_model.values() {
            t.add(v);
        }
        t
    }

    /// Responses (distinct message ids, `<synthetic>` excluded) in the whole
    /// tree, subagents included, copied history once.
    pub fn responses(&self) -> u64 {
        self.sessions
            .iter()
            .map(|s| s.counts.assistant_messages + s.subagents.iter().map(|a| a.counts.assistant_messages).sum::<u64>())
            .sum()
    }
}

/// Working directories; the folder is Claude Code's rule (every character
/// other than an ASCII letter or digit becomes `-`).
pub const CWDS: [&str; 4] = ["/home/dev/webapp", "/srv/build/data.pipeline", "/Users/ana/my_app", "/home/dev/cli tool"];

pub const MODELS: [&str; 4] =
    ["claude-sonnet-4-5-20250929", "claude-opus-4-1-20250805", "claude-sonnet-4-20250514", "claude-haiku-4-5-20251001"];

const SUBAGENT_MODEL: &str = "claude-haiku-4-5-20251001";

const VERSIONS: [&str; 3] = ["1.0.98", "2.0.14", "2.0.37"];

const BRANCHES: [&str; 3] = ["main", "", "feature/tokens"];

const TOOLS: [&str; 7] = ["Bash", "Read", "Edit", "Grep", "Glob", "Write", "TodoWrite"];

const SUB_TOOLS: [&str; 4] = ["Read", "Grep", "Glob", "Bash"];

const WORDS: [&str; 16] = [
    "fix",
    "the",
    "login",
    "bug",
    "café",
    "日本語",
    "tests",
    "🚀",
    "\"quoted\"",
    "back\\slash",
    "line\nbreak",
    "tab\there",
    "deploy",
    "parser",
    "données",
    "README",
];

const META_TEXT: &str = "Caveat: The messages below were generated by the user while running local commands. \
DO NOT respond to these messages or otherwise consider them in your response unless the user explicitly asks you to.";

const COMPACT_TEXT: &str = "This session is being continued from a previous conversation that ran out of context. \
The conversation is summarized below:\nAnalysis: the user asked to fix the parser; tests were added.";

const B62: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

const DAY_MS: i64 = 86_400_000;

/// The project folder Claude Code uses for a working directory.
pub fn project_folder(cwd: &str) -> String {
    cwd.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect()
}

fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ` for Unix milliseconds.
pub fn rfc3339_ms(ms: i64) -> String {
    let (y, m, d) = civil_from_days(ms.div_euclid(DAY_MS));
    let r = ms.rem_euclid(DAY_MS);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z", r / 3_600_000, r / 60_000 % 60, r / 1000 % 60, r % 1000)
}

/// The UTC day `YYYY-MM-DD` of Unix milliseconds.
pub fn utc_day(ms: i64) -> String {
    rfc3339_ms(ms)[..10].to_owned()
}
