//! The two kinds of record in a ci-* stream, and the event view every tool uses.
//!
//! - An **event record** is one line of a capture: an object with a string
//!   `event` and an object `data` (plus `workspace`, `timestamp`). When a tool
//!   reads it from a capture it adds one provenance key,
//!   `"ci":{"session":ID,"path":FILE,"line":N}`, so every later stage can go back
//!   to the exact physical line (`sed -n Np FILE`).
//! - A **session record** (printed by `ci-find`) describes one capture: an
//!   object with `session` and `path` keys and no `event` key. Tools that need
//!   events expand it into the capture's events.
//!
//! [`Event`] is the normalised view every tool reads: its envelope and its
//! semantic fields come from the event's writer ([`crate::format`]), so no
//! tool reads a writer's own key names.

use std::borrow::Cow;

pub use crate::format::LineKind;
use crate::format::{CallKey, Format, ReadState, Usage};
use crate::json::{Raw, Record};
use crate::lines::Site;
use crate::session::Capture;
use crate::time::{self, Timestamp};

/// The name of the provenance key added to event records.
pub const PROVENANCE_KEY: &str = "ci";

/// The envelope of an event record: its top-level keys besides `data` and
/// [`PROVENANCE_KEY`] (which is ours). They are never cut by the byte budget,
/// and a cut record made whole again keeps its own.
pub const ENVELOPE: [&str; 3] = ["event", "workspace", "timestamp"];

/// Every top-level key an event record can be read at: the [`ENVELOPE`],
/// `data` and [`PROVENANCE_KEY`].
pub const RECORD_KEYS: [&str; 5] = [ENVELOPE[0], ENVELOPE[1], ENVELOPE[2], "data", PROVENANCE_KEY];

/// The key of a derived event record that names the tool of a call's end
/// whose `data` does not ([`Event::paired_tool`]).
pub const TOOL_KEY: &str = "tool";

/// An event as a tool sees it: the validated line plus where it came from,
/// read through its writer.
#[derive(Clone)]
pub struct Event<'a> {
    /// The validated line.
    pub rec: Record<'a>,
    /// The capture it was read from; `None` for an event record read from a
    /// stream (stdin), which carries its own provenance.
    pub capture: Option<&'a Capture>,
    /// Physical line number in the capture (or in the stream).
    pub line: u64,
    /// The file name shown in reports (`-` for stdin).
    pub source: &'a str,
    /// Which of the line's events this is, for a writer whose lines can
    /// yield several (`None` otherwise).
    pub part: Option<u32>,
    /// The writer whose semantics apply.
    format: &'static Format,
    /// Whether the event record is derived from the line (not the line itself).
    derived: bool,
    /// A derived event's name and `data`, read once when the event is made
    /// (a block event's `data` sits behind the blocks before it).
    derived_name: Cow<'a, str>,
    derived_data: Option<Raw<'a>>,
    /// Every token and cost figure, read once when first asked for (a
    /// `--tokens` group asks for each of the five).
    tokens: std::cell::OnceCell<[Option<Raw<'a>>; 5]>,
    /// The line's hash, computed once when first asked for (ci-grep writes
    /// it with every match of the event, and a line can be 80 KB).
    hash: std::cell::OnceCell<u64>,
    /// The parsed timestamp, once (a windowed ci-agg run asks for it to
    /// window the event, to note the capture's span and for a time key).
    time: std::cell::OnceCell<Option<Timestamp>>,
    /// What the writer kept of the capture's lines before this one (`None`
    /// for a record read from a stream).
    state: Option<&'a ReadState>,
    /// Where its line is on disk and the line's hash, so a record printed
    /// cut can be read again ([`crate::reread`]): for a line read from a
    /// file, the site (the hash is computed from the line when needed); for
    /// a piped record that was cut and read again, both as it carried them.
    origin: Option<(Site, Option<u64>)>,
}

/// The hash a cut record carries of its line, checked when the line is read
/// again (XXH3, 64 bits: a defined algorithm, so any build computes the same).
pub fn line_hash(line: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(line)
}

impl<'a> Event<'a> {
    /// An event of a capture's line (`part` for writers whose lines can yield several).
    /// `state` is what the writer kept of the capture's earlier lines ([`Dialect::observe`](crate::format::Dialect::observe)).
    pub fn read(
        rec: Record<'a>,
        capture: &'a Capture,
        line: u64,
        source: &'a str,
        part: Option<u32>,
        state: &'a ReadState,
        site: Site,
    ) -> Event<'a> {
        let format = capture.format;
        let dialect = format.dialect;
        let derived = format.profile.derived;
        let (derived_name, derived_data) = if derived {
            let p = part.unwrap_or(0);
            (dialect.name(&rec, p, state), dialect.data(&rec, p, state))
        } else {
            (Cow::Borrowed(""), None)
        };
        Event {
            rec,
            capture: Some(capture),
            line,
            source,
            part,
            format,
            derived,
            derived_name,
            derived_data,
            tokens: Default::default(),
            hash: Default::default(),
            time: Default::default(),
            state: Some(state),
            origin: Some((site, None)),
        }
    }

    /// An event record read from a stream: its envelope is its own, its
    /// semantics those of the writer it came from ([`crate::format::of_record`]).
    pub fn piped(rec: Record<'a>, line: u64, source: &'a str) -> Event<'a> {
        let format = crate::format::of_record(&rec);
        Event {
            rec,
            capture: None,
            line,
            source,
            part: None,
            format,
            derived: false,
            derived_name: Cow::Borrowed(""),
            derived_data: None,
            tokens: Default::default(),
            hash: Default::default(),
            time: Default::default(),
            state: None,
            origin: None,
        }
    }

    /// A piped record made whole again from its line ([`crate::reread`]),
    /// which is at `site` and hashes to `hash`.
    pub fn reread(mut self, site: Site, hash: u64) -> Event<'a> {
        self.origin = Some((site, Some(hash)));
        self
    }

    /// The event with `name` for its name, when its record is derived: a
    /// derived name may depend on the lines before it (a response's later
    /// copy is `llm:content`), which a line read again alone lacks, so it is
    /// taken from the record that named it ([`crate::reread`]).
    pub fn named(mut self, name: String) -> Event<'a> {
        if self.derived {
            self.derived_name = Cow::Owned(name);
        }
        self
    }

    /// Where the event's line is in its capture's file (`None` for a record
    /// read from a stream).
    pub fn site(&self) -> Option<Site> {
        self.origin.map(|(site, _)| site).filter(|_| self.capture.is_some())
    }

    /// Where the event's line is and the line's hash, when known: what a
    /// record printed cut carries so that a later tool can read it again.
    pub fn cut_origin(&self) -> Option<(Site, u64)> {
        let (site, hash) = self.origin?;
        Some((site, hash.unwrap_or_else(|| *self.hash.get_or_init(|| line_hash(self.rec.line())))))
    }

    /// The format whose semantics apply.
    pub fn format(&self) -> &'static Format {
        self.format
    }

    /// Whether a tokens count reads this event: not when its writer names
    /// the bytes every usage line holds ([`Profile::usage_bytes`](crate::format::Profile::usage_bytes)) and its
    /// `data` has neither them nor a `\u` escape, nor a token count (a
    /// writer whose records carry a normalised `data`, such as Codex, names
    /// the counts there rather than the line's bytes). The rule a direct read
    /// applies to the line before parsing it
    /// ([`crate::source::Visitor::needs_events`]), so a piped record of such
    /// a line counts as the line did (issue 38, D6: an assistant line without
    /// usage, piped, used to add a response with no model).
    pub fn may_have_usage(&self) -> bool {
        let Some(bytes) = self.format.profile.usage_bytes else { return true };
        let in_line = self.data().is_some_and(|d| {
            memchr::memmem::find(d.bytes(), bytes).is_some() || memchr::memmem::find(d.bytes(), b"\\u").is_some()
        });
        in_line || self.tokens().iter().any(Option::is_some)
    }

    /// Whether the event record is derived from the line (a writer whose lines
    /// are not event records, such as Claude hooks), rather than the line itself.
    pub fn derived(&self) -> bool {
        self.derived
    }

    fn part_index(&self) -> u32 {
        self.part.unwrap_or(0)
    }

    /// The key that keeps the writer's own event name in a derived record
    /// (`hook`), with its value.
    pub fn original(&self) -> Option<(&'static str, Option<Raw<'a>>)> {
        if !self.derived {
            return None;
        }
        let key = self.format.profile.original_key?;
        Some((key, self.format.dialect.original(&self.rec, self.part_index())))
    }

    /// The `event` name.
    pub fn name(&self) -> Cow<'a, str> {
        if self.derived {
            return self.derived_name.clone();
        }
        self.rec.get_str("event").unwrap_or(Cow::Borrowed(""))
    }

    /// The raw `event` value, when it is a JSON string of the line (for a
    /// derived record: when the name is a static one).
    pub fn name_raw(&self) -> Option<Raw<'a>> {
        if self.derived {
            return self.format.dialect.name_raw(&self.rec, self.part_index());
        }
        self.rec.get("event")
    }

    /// The `data` payload.
    pub fn data(&self) -> Option<Raw<'a>> {
        if self.derived {
            return self.derived_data;
        }
        self.rec.get("data")
    }

    /// The value at a path of the event record (`data.tool_input.file_path`,
    /// `event`, `timestamp`, the original-name key), through the normalised
    /// view for derived records.
    pub fn path(&self, path: &crate::json::Path) -> Option<Raw<'a>> {
        let (first, rest) = path.segments().split_first()?;
        let mut v = self.top(first)?;
        for seg in rest {
            v = v.get(seg)?;
        }
        Some(v)
    }

    /// The value of a top-level key of the event record; for a derived
    /// record, of its normalised view (`event`, `timestamp`, `data`, the
    /// original-name key).
    pub fn top(&self, key: &str) -> Option<Raw<'a>> {
        if !self.derived {
            return self.rec.get(key);
        }
        match key {
            "event" => self.name_raw(),
            "timestamp" => self.timestamp_raw(),
            "data" => self.data(),
            TOOL_KEY => self.paired_tool(),
            k if self.original().is_some_and(|(key, _)| key == k) => self.original().and_then(|(_, v)| v),
            _ => None,
        }
    }

    /// The provenance object of an event record read from a stream (from
    /// another ci-* tool). A line read from a capture file has none of its
    /// own, whatever it holds: a `ci` key on disk is the writer's data, never
    /// taken for provenance (it is printed as `ci_original`, see
    /// [`crate::output`]).
    pub fn provenance(&self) -> Option<Raw<'a>> {
        if self.capture.is_some() {
            return None;
        }
        self.rec.get(PROVENANCE_KEY)
    }

    /// Whether a capture's line holds a `ci` key of its own (renamed on output).
    pub fn shadows_provenance(&self) -> bool {
        self.capture.is_some() && !self.derived && self.rec.get(PROVENANCE_KEY).is_some()
    }

    /// The workspace: the one the line names, else the capture's fallback
    /// (the session's metadata workspace, else its project slug).
    pub fn workspace(&self) -> Option<Cow<'a, str>> {
        let own = if self.derived { self.format.dialect.workspace(&self.rec) } else { self.rec.get_str("workspace") };
        own.or_else(|| self.capture.and_then(|c| c.workspace.as_deref()).map(Cow::Borrowed))
    }

    /// The workspace the line itself names (no fallback); for a derived
    /// record, the one it is printed with.
    pub fn line_workspace(&self) -> Option<Cow<'a, str>> {
        if self.derived {
            return self.workspace();
        }
        self.rec.get_str("workspace")
    }

    /// Whether the printed record needs a `workspace` added (the line has none).
    pub fn lacks_workspace(&self) -> bool {
        self.derived || self.rec.get("workspace").is_none()
    }

    /// The session id: the capture's, else the provenance key's, else the one
    /// the payload names.
    pub fn session(&self) -> Option<Cow<'a, str>> {
        if let Some(c) = self.capture {
            return Some(Cow::Borrowed(c.session.as_str()));
        }
        self.provenance()
            .and_then(|p| p.get("session"))
            .and_then(|s| s.as_str())
            .or_else(|| self.data().and_then(|d| self.format.dialect.session_id(d)))
    }

    /// The raw `timestamp` value.
    pub fn timestamp_raw(&self) -> Option<Raw<'a>> {
        if self.derived {
            return self.format.dialect.timestamp(&self.rec);
        }
        self.rec.get("timestamp")
    }

    /// The `timestamp` as written (a string); a derived record's time its
    /// writer wrote as a number is given in RFC 3339 (UTC) by its dialect
    /// ([`crate::format::Dialect::timestamp_text`]).
    pub fn timestamp_str(&self) -> Option<Cow<'a, str>> {
        let raw = self.timestamp_raw()?;
        if self.derived {
            return self.format.dialect.timestamp_text(raw);
        }
        raw.as_str()
    }

    /// Makes sure the whole line is valid JSON: a no-op for a validated line,
    /// a full check for one the engine only skimmed ([`crate::source::Visitor::lazy`]).
    /// A bad line is reported as `path:line: reason`, counted, and `false` is
    /// returned: the caller drops the event.
    /// A derived record's line is also asked of its writer again, now that
    /// its depth is known (`format::fits_as_data`).
    pub fn confirm(&self, diag: &crate::diag::Diag) -> bool {
        if self.rec.is_validated() {
            return true;
        }
        let mut idx = crate::json::Index::new();
        let reason = match idx.parse(self.rec.line()) {
            Ok(rec) if self.derived => match self.format.dialect.accept(&rec) {
                Ok(()) => return true,
                Err(reason) => reason.to_string(),
            },
            Ok(_) => return true,
            Err(e) => e.to_string(),
        };
        diag.bad_line(&self.source, self.line, &reason);
        false
    }

    /// The `timestamp`, parsed; `None` when missing, `""` or unparseable.
    pub fn timestamp(&self) -> Option<Timestamp> {
        *self.time.get_or_init(|| self.timestamp_str().as_deref().and_then(time::parse_timestamp))
    }

    /// Whether the event has no usable timestamp because its writer never
    /// stamps such lines ([`Dialect::untimed_by_design`](crate::format::Dialect::untimed_by_design)): it is in no time
    /// window and no time bucket, and is not reported as a record without a
    /// usable timestamp (which would be noise on every run). The same for a
    /// piped record of it (its writer and name travel with it).
    pub fn untimed_by_design(&self) -> bool {
        self.format.dialect.untimed_by_design(&self.name()) && self.timestamp().is_none()
    }

    // --- semantic fields, read by the event's writer ---

    /// The tool of a tool event: the one its `data` names, else the one
    /// paired with it by call id ([`Event::paired_tool`]).
    pub fn tool_name(&self) -> Option<Raw<'a>> {
        self.data().and_then(|d| self.format.dialect.tool_name(d)).or_else(|| self.paired_tool())
    }

    /// The tool of a call's end (`tool:post`, `tool:error`) whose `data`
    /// does not name it (a Claude `tool_result`, a Codex
    /// `function_call_output`): the one its call's start named earlier in
    /// the capture (same call id). A derived record prints it as its
    /// [`TOOL_KEY`], which a record read from a stream gives back, so
    /// `ci-cat | ci-filter --errors | ci-agg --by tool` names the tools as
    /// `ci-agg` on the capture does.
    pub fn paired_tool(&self) -> Option<Raw<'a>> {
        let Some(state) = self.state else {
            return self.format.profile.derived.then(|| self.rec.get(TOOL_KEY)).flatten();
        };
        if !self.derived || !matches!(self.name().as_ref(), "tool:post" | "tool:error") {
            return None;
        }
        let data = self.data()?;
        if self.format.dialect.tool_name(data).is_some() {
            return None;
        }
        match self.format.dialect.call_key(data) {
            CallKey::Id(id) => state.tool_of(&id),
            _ => None,
        }
    }

    /// Which call a tool event belongs to.
    pub fn call_key(&self) -> CallKey<'a> {
        self.data().map_or(CallKey::Alone, |d| self.format.dialect.call_key(d))
    }

    /// Whether a call's end says it failed (`tool:error` events always fail).
    pub fn failed(&self) -> bool {
        self.data().is_some_and(|d| self.format.dialect.failed(d))
    }

    /// A call duration the writer recorded.
    pub fn duration_ms(&self) -> Option<Raw<'a>> {
        self.format.dialect.duration_ms(self.data()?)
    }

    /// The model the event names.
    pub fn model(&self) -> Option<Raw<'a>> {
        if self.derived {
            return self.format.dialect.line_model(&self.rec, self.part_index(), self.derived_data);
        }
        self.format.dialect.model(self.data()?)
    }

    /// A status the event carries.
    pub fn status(&self) -> Option<Raw<'a>> {
        self.format.dialect.status(self.data()?)
    }

    /// A token or cost figure, in the toolkit's names.
    pub fn usage(&self, u: Usage) -> Option<Raw<'a>> {
        self.tokens()[u as usize]
    }

    /// The identity of a response its writer may write more than once
    /// ([`Dialect::message_key`](crate::format::Dialect::message_key)).
    pub fn message_key(&self) -> Option<String> {
        let mut key = String::new();
        self.message_key_into(&mut key).then_some(key)
    }

    /// [`Event::message_key`] into a reused buffer (no allocation per line);
    /// `false` when the event has none.
    pub fn message_key_into(&self, out: &mut String) -> bool {
        if self.derived {
            return self.format.dialect.line_message_key(&self.rec, self.part_index(), self.derived_data, out);
        }
        self.data().is_some_and(|d| self.format.dialect.message_key(d, out))
    }

    /// Whether the event's writer copies history into other sessions
    /// ([`Profile::copies_history`](crate::format::Profile::copies_history)).
    pub fn copies_history(&self) -> bool {
        self.format.profile.copies_history
    }

    /// What identifies the event's line or block among copied history
    /// ([`Dialect::copy_key`](crate::format::Dialect::copy_key)).
    pub fn copy_key(&self) -> Option<Cow<'a, str>> {
        self.data().and_then(|d| self.format.dialect.copy_key(d))
    }

    /// Whether a turn's response time ends at its first reply
    /// ([`Profile::reply_ends_turn`](crate::format::Profile::reply_ends_turn)).
    pub fn reply_ends_turn(&self) -> bool {
        self.format.profile.reply_ends_turn
    }

    /// Where the event's line is: its file and line (the provenance's for a
    /// record read from a stream).
    pub fn origin(&self) -> (Cow<'a, str>, u64) {
        let prov = self.provenance();
        let path = prov.and_then(|p| p.get("path")).and_then(|p| p.as_str()).unwrap_or(Cow::Borrowed(self.source));
        let line = prov.and_then(|p| p.get("line")).and_then(|l| l.as_f64()).map_or(self.line, |l| l as u64);
        (path, line)
    }

    /// Every token and cost figure, in [`Usage::ALL`] order.
    pub fn tokens(&self) -> [Option<Raw<'a>>; 5] {
        *self.tokens.get_or_init(|| {
            if self.derived {
                return self.format.dialect.line_tokens(&self.rec, self.part_index(), self.derived_data);
            }
            self.data().map_or([None; 5], |d| self.format.dialect.tokens(d))
        })
    }

    /// This event with its four token counts left out (its cost figure
    /// kept): a response whose counts are damaged counts no tokens.
    pub fn without_counts(&self) -> Event<'a> {
        let mut ev = self.clone();
        let cost = self.tokens()[Usage::Cost as usize];
        ev.tokens = std::cell::OnceCell::from([None, None, None, None, cost]);
        ev
    }

    /// Of the cache writes, those at the 1-hour lifetime ([`Dialect::cache_write_1h`](crate::format::Dialect::cache_write_1h)).
    pub fn cache_write_1h(&self) -> Option<Raw<'a>> {
        if self.derived {
            return self.format.dialect.line_cache_write_1h(&self.rec, self.part_index(), self.derived_data);
        }
        self.format.dialect.cache_write_1h(self.data()?)
    }

    /// Whether `input_tokens` includes the cache reads ([`Profile::input_includes_cache_read`](crate::format::Profile::input_includes_cache_read)).
    pub fn input_includes_cache_read(&self) -> bool {
        self.format.profile.input_includes_cache_read
    }

    /// The file a tool event reads or edits.
    pub fn file_path(&self) -> Option<Cow<'a, str>> {
        self.format.dialect.file_path(self.data()?)
    }

    /// What a tool event does to a file, and which file, by its writer
    /// ([`crate::format::Dialect::file_use`]).
    pub fn file_use(&self) -> Option<(crate::format::FileUse, Cow<'a, str>)> {
        let tool = self.tool_name()?.as_str()?;
        self.format.dialect.file_use(&tool, self.data()?)
    }

    /// The parent session the payload names.
    pub fn parent_id(&self) -> Option<Cow<'a, str>> {
        self.format.dialect.parent_id(self.data()?)
    }

    /// The parent a child's fork event names.
    pub fn fork_parent(&self) -> Option<Cow<'a, str>> {
        self.format.dialect.fork_parent(self.data()?)
    }

    /// The agent a child's fork event names.
    pub fn fork_agent(&self) -> Option<Cow<'a, str>> {
        self.format.dialect.fork_agent(self.data()?)
    }

    /// The child session a delegation event names.
    pub fn child(&self) -> Option<Cow<'a, str>> {
        self.format.dialect.child(self.data()?)
    }
}
