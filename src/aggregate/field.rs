//! What a group key or a metric reads from an event: named fields, time
//! buckets and dotted paths, and the owned key values groups are told apart by.
//!
//! | name | value |
//! |---|---|
//! | `event` | the event name |
//! | `workspace` (also `project`) | the line's `workspace`, else the session's (metadata, else project slug) |
//! | `session` | the session id (capture directory, else provenance, else `data.session_id`) |
//! | `tool` | `data.tool_name`; for a call's end that names none (a Claude `tool_result`, a Codex output), its call's tool ([`Event::paired_tool`]) |
//! | `model` | `data.model` |
//! | `agent` | the session's agent: metadata `agent_name`, else the child's `session:fork` line (`data.metadata.agent_name`); for piped event records, looked up through the provenance path |
//! | `status` | `data.status` (e.g. `orchestrator:complete`: success/error/cancelled/incomplete) |
//! | `writer` | the product that wrote the session ([`Format::product`](crate::format::Format::product) of its record's format: `Claude Code`, `Codex`, `Amplifier`); for piped event records, looked up through the provenance path |
//! | `hour` `day` (also `date`) `week` `month` | the bucket of `timestamp` in the `--tz` zone (`2026-03-01T08`, `2026-03-01`, `2026-W09` (ISO week), `2026-03`) |
//! | `input_tokens` `output_tokens` `cache_read_tokens` `cache_write_tokens` | `data.usage.<name>`, else the older key (`input`, `output`, `cache_read`, `cache_write`) |
//! | `cost_usd` | the response's cost: `data.usage.cost_usd` (a decimal string or a number) when written, else computed from its tokens and the price table ([`super::cost`]) |
//! | anything else | a dotted path into the record (`data.provider`, `data.usage.output_tokens`, `data.raw.messages.0.role`) |
//!
//! A record without the field gives [`KeyVal::Null`]: it is grouped under
//! `null`, never dropped.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::HashMap;
use std::path::Path as FsPath;

use crate::json::{Kind, Path, Raw};
use crate::record::Event;
use crate::time::{self, Bucket, TimeZone};

use super::decimal::Decimal;

pub use crate::format::Usage;

/// Something read from each event: a group key or a metric's input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Field {
    /// The event name.
    Event,
    /// The (filled-in) workspace.
    Workspace,
    /// The session id.
    Session,
    /// `data.tool_name`, else the tool of the call a tool event ends.
    Tool,
    /// `data.model`.
    Model,
    /// The session's agent name.
    Agent,
    /// `data.status`.
    Status,
    /// The product that wrote the session ([`Format::product`](crate::format::Format::product)).
    Writer,
    /// A time bucket of `timestamp`.
    Time(Bucket),
    /// A usage field of `data.usage`, both key generations.
    Usage(Usage),
    /// A dotted path into the record.
    Path(Path),
}

/// How a query names weeks from a day (`--week-start`) in its wire form:
/// `week:sunday` (printed as `week`).
pub const WEEK_FROM: &str = "week:";

/// Other names of named fields: the names people guess first. `project` is
/// the workspace (an event's project: the session's project folder name,
/// unless its line or metadata names another working directory); `date`
/// is `day`. A record names the field by its own name.
pub const ALIASES: [(&str, &str); 2] = [("project", "workspace"), ("date", "day")];

/// The named fields ([`Field::parse`] reads any other name as a dotted path),
/// then their [`ALIASES`].
pub const NAMES: [&str; 19] = [
    "event",
    "workspace",
    "session",
    "tool",
    "model",
    "agent",
    "status",
    "writer",
    "hour",
    "day",
    "week",
    "month",
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "cost_usd",
    "project",
    "date",
];

impl Field {
    /// Parses a name from the table in the module docs, else a dotted path.
    pub fn parse(s: &str) -> Result<Field, String> {
        let t = s.trim();
        let t = ALIASES.iter().find(|(alias, _)| *alias == t).map_or(t, |(_, name)| name);
        Ok(match t {
            "event" => Field::Event,
            "workspace" => Field::Workspace,
            "session" => Field::Session,
            "tool" => Field::Tool,
            "model" => Field::Model,
            "agent" => Field::Agent,
            "status" => Field::Status,
            "writer" => Field::Writer,
            "hour" | "day" | "week" | "month" => Field::Time(t.parse()?),
            _ if t.starts_with(WEEK_FROM) => Field::Time(Bucket::WeekFrom(
                time::parse_weekday(&t[WEEK_FROM.len()..])
                    .ok_or_else(|| format!("unknown day of the week in {t:?}"))?,
            )),
            _ => match Usage::ALL.iter().find(|u| u.name() == t) {
                Some(&u) => Field::Usage(u),
                None => Field::Path(Path::parse(t)?),
            },
        })
    }

    /// The name used for this field in output records.
    pub fn name(&self) -> &str {
        match self {
            Field::Event => "event",
            Field::Workspace => "workspace",
            Field::Session => "session",
            Field::Tool => "tool",
            Field::Model => "model",
            Field::Agent => "agent",
            Field::Status => "status",
            Field::Writer => "writer",
            Field::Time(b) => b.as_str(),
            Field::Usage(u) => u.name(),
            Field::Path(p) => p.as_str(),
        }
    }

    /// Whether this is a time bucket.
    pub fn is_time(&self) -> bool {
        matches!(self, Field::Time(_))
    }

    /// Reads the field from `ev`.
    pub fn value<'a>(&self, ev: &Event<'a>, cx: &mut Context) -> Val<'a> {
        let from = |v: Option<Raw<'a>>| v.map_or(Val::Missing, Val::Raw);
        match self {
            Field::Event => match ev.name_raw() {
                Some(r) => Val::Raw(r),
                None if ev.derived() => Val::Str(ev.name()),
                None => Val::Missing,
            },
            Field::Workspace => ev.workspace().map_or(Val::Missing, Val::Str),
            Field::Session => ev.session().map_or(Val::Missing, Val::Str),
            Field::Tool => from(ev.tool_name()),
            Field::Model => from(ev.model()),
            Field::Status => from(ev.status()),
            Field::Usage(Usage::Cost) => cx.costing.cost(ev).usd.map_or(Val::Missing, Val::Num),
            Field::Usage(u) => from(ev.usage(*u)),
            Field::Path(p) => from(ev.path(p)),
            Field::Agent => cx.agent(ev).map_or(Val::Missing, |a| Val::Str(Cow::Owned(a))),
            Field::Writer => cx.format(ev).map_or(Val::Missing, |f| Val::Str(Cow::Borrowed(f.product))),
            Field::Time(b) => match ev.timestamp() {
                Some(ts) => Val::Str(Cow::Owned(time::bucket(ts, *b, &cx.tz))),
                None => Val::Missing,
            },
        }
    }
}

/// A value read from an event, borrowed from the line where possible.
#[derive(Debug, Clone)]
pub enum Val<'a> {
    /// The field is not there.
    Missing,
    /// A decoded string (named fields that are not raw JSON).
    Str(Cow<'a, str>),
    /// A raw JSON value of the line.
    Raw(Raw<'a>),
    /// A number the toolkit computed (a response's cost).
    Num(Num),
}

/// A number read from a value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Num {
    /// Exactly representable (JSON numbers and numeric strings, almost always).
    Exact(Decimal),
    /// Out of the exact range; finite.
    Float(f64),
}

impl Num {
    /// As `f64`.
    pub fn to_f64(self) -> f64 {
        match self {
            Num::Exact(d) => d.to_f64(),
            Num::Float(f) => f,
        }
    }

    /// Total order (exact when both sides are).
    pub fn total_cmp(self, other: Num) -> Ordering {
        match (self, other) {
            (Num::Exact(a), Num::Exact(b)) => a.cmp(&b),
            (a, b) => a.to_f64().total_cmp(&b.to_f64()),
        }
    }

    /// Parses number text (a JSON number or the content of a numeric string).
    pub fn parse(text: &str) -> Option<Num> {
        if let Some(d) = Decimal::parse(text) {
            return Some(Num::Exact(d));
        }
        let f: f64 = text.trim().parse().ok()?;
        // Rust also parses "inf"/"NaN"; only finite numbers count.
        f.is_finite().then_some(Num::Float(f))
    }
}

/// What a metric makes of a value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Numeric {
    /// Missing or `null`: not a value.
    Absent,
    /// A number, or a string holding one (`"0.0123"`).
    Num(Num),
    /// Something else (a word, an object, a boolean): counted and reported.
    NotANumber,
}

impl Val<'_> {
    /// The value as a number.
    pub fn numeric(&self) -> Numeric {
        let parsed = match self {
            Val::Missing => return Numeric::Absent,
            Val::Str(s) => Num::parse(s),
            Val::Num(n) => Some(*n),
            Val::Raw(r) => match r.kind() {
                Kind::Null => return Numeric::Absent,
                Kind::Number => std::str::from_utf8(r.bytes()).ok().and_then(Num::parse),
                Kind::String => r.as_str().and_then(|s| Num::parse(&s)),
                _ => None,
            },
        };
        parsed.map_or(Numeric::NotANumber, Numeric::Num)
    }

    /// The value as a group key.
    pub fn key(&self) -> KeyVal {
        match self {
            Val::Missing => KeyVal::Null,
            Val::Str(s) => KeyVal::Str(s.to_string()),
            Val::Num(Num::Exact(d)) => KeyVal::Num(d.to_string()),
            Val::Num(Num::Float(f)) => KeyVal::Num(f.to_string()),
            Val::Raw(r) => KeyVal::of_raw(*r),
        }
    }

    /// Whether the field was missing or `null`.
    pub fn is_null(&self) -> bool {
        match self {
            Val::Missing => true,
            Val::Str(_) | Val::Num(_) => false,
            Val::Raw(r) => r.is_null(),
        }
    }
}

/// An owned key value. Groups are told apart by it and sorted by it:
/// `null` < booleans < numbers (by value) < strings (by bytes) < arrays and
/// objects (by their compact JSON).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum KeyVal {
    /// Missing or `null`.
    Null,
    /// `true`/`false`.
    Bool(bool),
    /// A number, as canonical decimal text when exact (`1.0` and `1` are one key).
    Num(String),
    /// A string.
    Str(String),
    /// An array or object, as compact JSON.
    Json(String),
}

impl KeyVal {
    /// The key of a raw JSON value.
    pub fn of_raw(r: Raw<'_>) -> KeyVal {
        match r.kind() {
            Kind::Null => KeyVal::Null,
            Kind::Bool => KeyVal::Bool(r.as_bool().unwrap_or(false)),
            Kind::String => KeyVal::Str(r.as_str().map(Cow::into_owned).unwrap_or_default()),
            Kind::Number => {
                let text = String::from_utf8_lossy(r.bytes());
                KeyVal::Num(Decimal::parse(&text).map_or_else(|| text.to_string(), |d| d.to_string()))
            }
            Kind::Object | Kind::Array => KeyVal::Json(
                r.to_value().map_or_else(|| String::from_utf8_lossy(r.bytes()).into_owned(), |v| v.to_string()),
            ),
        }
    }

    /// The key as a JSON value for output.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value;
        match self {
            KeyVal::Null => Value::Null,
            KeyVal::Bool(b) => Value::Bool(*b),
            KeyVal::Str(s) => Value::String(s.clone()),
            KeyVal::Num(t) | KeyVal::Json(t) => {
                crate::json::dom::parse(t.as_bytes()).unwrap_or_else(|| Value::String(t.clone()))
            }
        }
    }

    /// The key of a JSON value (reading partial state back).
    pub fn from_json(v: &serde_json::Value) -> KeyVal {
        use serde_json::Value;
        match v {
            Value::Null => KeyVal::Null,
            Value::Bool(b) => KeyVal::Bool(*b),
            Value::String(s) => KeyVal::Str(s.clone()),
            Value::Number(n) => {
                let text = n.to_string();
                KeyVal::Num(Decimal::parse(&text).map_or(text, |d| d.to_string()))
            }
            other => KeyVal::Json(other.to_string()),
        }
    }

    fn rank(&self) -> u8 {
        match self {
            KeyVal::Null => 0,
            KeyVal::Bool(_) => 1,
            KeyVal::Num(_) => 2,
            KeyVal::Str(_) => 3,
            KeyVal::Json(_) => 4,
        }
    }
}

impl Ord for KeyVal {
    fn cmp(&self, other: &KeyVal) -> Ordering {
        match (self, other) {
            (KeyVal::Bool(a), KeyVal::Bool(b)) => a.cmp(b),
            (KeyVal::Num(a), KeyVal::Num(b)) => {
                let (x, y) = (Num::parse(a), Num::parse(b));
                match (x, y) {
                    (Some(x), Some(y)) => x.total_cmp(y).then_with(|| a.cmp(b)),
                    _ => a.cmp(b),
                }
            }
            (KeyVal::Str(a), KeyVal::Str(b)) | (KeyVal::Json(a), KeyVal::Json(b)) => a.cmp(b),
            _ => self.rank().cmp(&other.rank()),
        }
    }
}

impl PartialOrd for KeyVal {
    fn partial_cmp(&self, other: &KeyVal) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// What a piped event record's session record gives: its agent and its format.
type PipedSession = (Option<String>, &'static crate::format::Format);

/// Per-thread context for reading fields: the time zone, and where the agent
/// of the current session comes from.
#[derive(Debug)]
pub struct Context {
    /// Zone of the time buckets.
    pub tz: TimeZone,
    /// The agent of the capture being read (metadata, else its fork line).
    pub capture_agent: Option<String>,
    /// Piped records' sessions, by provenance path and session id.
    piped: HashMap<(String, String), Option<PipedSession>>,
    /// Prices responses (`cost_usd`).
    pub costing: super::cost::Costing,
}

impl Context {
    /// A context for reading the fields of `q`.
    pub fn new(q: &super::query::Query) -> Context {
        Context {
            tz: q.tz.clone(),
            capture_agent: None,
            piped: HashMap::new(),
            costing: super::cost::Costing::new(q.cost, q.prices),
        }
    }

    /// The agent of `ev`'s session.
    pub fn agent(&mut self, ev: &Event<'_>) -> Option<String> {
        if ev.capture.is_some() {
            return self.capture_agent.clone();
        }
        self.piped_session(ev)?.0.clone()
    }

    /// The format of `ev`'s session record.
    pub fn format(&mut self, ev: &Event<'_>) -> Option<&'static crate::format::Format> {
        match ev.capture {
            Some(c) => Some(c.format),
            None => self.piped_session(ev).map(|s| s.1),
        }
    }

    /// The agent and writer of a piped event record's session, looked up
    /// once per provenance path and session.
    fn piped_session(&mut self, ev: &Event<'_>) -> Option<&PipedSession> {
        let path = ev.provenance()?.get("path")?.as_str()?;
        let key = (path.into_owned(), ev.session().unwrap_or_default().into_owned());
        let found = self.piped.entry(key).or_insert_with_key(|(path, session)| {
            crate::discover::record_of_file(FsPath::new(path), session).map(|r| (r.agent, r.format))
        });
        found.as_ref()
    }
}

#[cfg(test)]
mod tests;
