//! What a registered [`Format`] is: its identity (a handle compared by
//! address, read and written by name), its help sections, its constants
//! ([`Profile`]), and what the tools make of the whole registry
//! ([`super::FORMATS`]): the event vocabulary, the help sections of each
//! tool, the note of a home with no capture root.

use super::{Dialect, Layout, FORMATS};

/// Everything the toolkit knows of one format. A format is named by its
/// handle `&'static Format`: compared by address, printed and read back as
/// its [`Format::name`] (the `format` key of session records).
pub struct Format {
    /// The name session records carry (`"amplifier"`, `"claude-hooks"`).
    pub name: &'static str,
    /// The program that writes it, as people call it (`Claude Code`,
    /// `Codex`): `--by writer` and the writer column of tables.
    pub product: &'static str,
    /// The environment variable that names its default root, if any (the
    /// tests pin every one).
    pub root_env: &'static [&'static str],
    /// The places its default roots are looked for when its env var is not
    /// set (what a home with no capture root is told).
    pub places: &'static [&'static str],
    /// Its sections of the tools' `--help` (and man pages).
    pub help: Help,
    /// The event names it gives for the lines it knows (what shell
    /// completions offer for `--event`; it may give others).
    pub vocabulary: fn() -> Vec<&'static str>,
    /// Where its sessions and files are.
    pub layout: &'static dyn Layout,
    /// What its lines mean.
    pub dialect: &'static dyn Dialect,
    /// Its constants.
    pub profile: Profile,
}

impl Format {
    /// The registered format named `name`.
    pub fn named(name: &str) -> Option<&'static Format> {
        FORMATS.iter().copied().find(|f| f.name == name)
    }
}

impl PartialEq for Format {
    fn eq(&self, other: &Format) -> bool {
        std::ptr::eq(self, other)
    }
}

impl Eq for Format {}

impl std::hash::Hash for Format {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.name.hash(state);
    }
}

impl std::fmt::Debug for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

impl serde::Serialize for Format {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.name)
    }
}

impl<'de> serde::Deserialize<'de> for &'static Format {
    /// By name, as an enum's unit variant (what the `format` key was
    /// before the registry: the same errors); an unknown name is an error
    /// listing the registered ones.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        d.deserialize_enum("Format", &FORMAT_NAMES, ByName)
    }
}

/// The names of [`FORMATS`], in order (what an unknown name is told).
static FORMAT_NAMES: std::sync::LazyLock<Vec<&'static str>> =
    std::sync::LazyLock::new(|| FORMATS.iter().map(|f| f.name).collect());

/// Reads a [`Format`] by its name (serde).
struct ByName;

impl<'de> serde::de::Visitor<'de> for ByName {
    type Value = &'static Format;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a format name")
    }

    fn visit_enum<A: serde::de::EnumAccess<'de>>(self, data: A) -> std::result::Result<Self::Value, A::Error> {
        let (format, variant) = data.variant_seed(ByName)?;
        serde::de::VariantAccess::unit_variant(variant)?;
        Ok(format)
    }

    fn visit_str<E: serde::de::Error>(self, name: &str) -> std::result::Result<Self::Value, E> {
        Format::named(name).ok_or_else(|| E::unknown_variant(name, &FORMAT_NAMES))
    }
}

impl<'de> serde::de::DeserializeSeed<'de> for ByName {
    type Value = &'static Format;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> std::result::Result<Self::Value, D::Error> {
        d.deserialize_identifier(self)
    }
}

/// A format's sections of the tools' `--help` (and man pages), one per
/// tool at most: what the tool's help says of this format only.
#[derive(Debug)]
pub struct Help {
    /// Of `ci-find`'s ROOTS: its default roots, one item of a list (lines
    /// after the first indented by four spaces, no final punctuation).
    pub roots: Option<&'static str>,
    /// Of `ci-find`: where its sessions are and what their records say.
    pub find: Option<Section>,
    /// Of `ci-cat`: how its lines become events.
    pub cat: Option<Section>,
    /// Of `ci-filter`: how its events are filtered.
    pub filter: Option<Section>,
    /// Of `ci-grep`: how its events are searched.
    pub grep: Option<Section>,
    /// Of `ci-agg`: how its events are counted.
    pub agg: Option<Section>,
    /// Of `ci-find --follow`: when one of its sessions appears, as an item
    /// of a list (`an X session when its … exists`, no final punctuation).
    pub appears: Option<&'static str>,
    /// A root and a session directory of it for the tools' EXAMPLES (the
    /// first format that has them gives them: [`with_example`]).
    pub example: Option<Example>,
}

impl Help {
    /// No section in any tool's help.
    pub const NONE: Help =
        Help { roots: None, find: None, cat: None, filter: None, grep: None, agg: None, appears: None, example: None };
}

/// Paths of a format the tools' EXAMPLES show.
#[derive(Debug)]
pub struct Example {
    /// A capture root (`$EXAMPLE_ROOT` in an EXAMPLES text).
    pub root: &'static str,
    /// One session directory under it (`$EXAMPLE_SESSION`).
    pub session: &'static str,
}

/// One section of a `--help` text.
#[derive(Debug)]
pub struct Section {
    /// The heading, upper case, without the colon.
    pub title: &'static str,
    /// The text under it, each line indented by two spaces.
    pub body: &'static str,
}

/// What a run whose default roots are all missing is told: every
/// format's default places, and the env vars that name roots (first those
/// of the formats with default places, in registry order, then the others).
pub fn no_default_root() -> String {
    let places: Vec<&str> = FORMATS.iter().flat_map(|f| f.places.iter().copied()).collect();
    let (placed, unplaced): (Vec<&Format>, Vec<&Format>) = FORMATS.iter().partition(|f| !f.places.is_empty());
    let vars: Vec<&str> = placed.into_iter().chain(unplaced).flat_map(|f| f.root_env.iter().copied()).collect();
    let vars = match vars.split_last() {
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    };
    format!("found no capture root: none of {} exists (name a PATH or --root, or set {vars})", places.join(", "))
}

/// The default roots of every format ([`Help::roots`]), in registry order,
/// as the lines of a list in `ci-find --help`.
pub fn roots_list() -> String {
    let items: Vec<&str> = FORMATS.iter().filter_map(|f| f.help.roots).collect();
    let mut out = String::new();
    for (i, item) in items.iter().enumerate() {
        let end = if i + 1 == items.len() { '.' } else { ';' };
        out.push_str(&format!("  - {item}{end}\n"));
    }
    out
}

/// A tool's help `text` with every format's section for that tool (`of`),
/// in registry order, put before the section headed `before` (at the end
/// when there is none).
pub fn with_sections(text: &str, of: fn(&Help) -> Option<&Section>, before: &str) -> String {
    let at = text.find(&format!("\n\n{before}:\n")).unwrap_or(text.len());
    let mut out = text[..at].to_owned();
    for s in FORMATS.iter().filter_map(|f| of(&f.help)) {
        out.push_str(&format!("\n\n{}:\n{}", s.title, s.body));
    }
    out + &text[at..]
}

/// A tool's EXAMPLES `text` with `$EXAMPLE_ROOT` and `$EXAMPLE_SESSION`
/// replaced by the first format's [`Help::example`] that has one.
pub fn with_example(text: &str) -> String {
    let Some(e) = FORMATS.iter().find_map(|f| f.help.example.as_ref()) else { return text.to_owned() };
    text.replace("$EXAMPLE_SESSION", e.session).replace("$EXAMPLE_ROOT", e.root)
}

/// A help `text` with `$BILLED` replaced by the programs billed in 5-hour
/// windows ([`Profile::billing_blocks`]) and `$STATUS_LINE` by those whose
/// status-line input is read ([`Profile::status_line`]).
pub fn with_products(text: &str) -> String {
    text.replace("$BILLED", &products(|f| f.profile.billing_blocks))
        .replace("$STATUS_LINE", &products(|f| f.profile.status_line.is_some()))
}

/// The programs ([`Format::product`]) of the formats `keep` keeps, in
/// registry order, each once: `A`, `A or B`, `A, B or C`.
pub fn products(keep: fn(&Format) -> bool) -> String {
    let mut names: Vec<&str> = Vec::new();
    for f in FORMATS.iter().filter(|f| keep(f)) {
        if !names.contains(&f.product) {
            names.push(f.product);
        }
    }
    match names.split_last() {
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// The names of the formats `keep` keeps, in registry order, comma-separated.
pub fn names(keep: fn(&Format) -> bool) -> String {
    FORMATS.iter().filter(|f| keep(f)).map(|f| f.name).collect::<Vec<_>>().join(", ")
}

/// When a session appears under `ci-find --follow`: every format's
/// [`Help::appears`], in registry order, comma-separated.
pub fn appearances() -> String {
    FORMATS.iter().filter_map(|f| f.help.appears).collect::<Vec<_>>().join(", ")
}

/// What an agent gives its status-line command on stdin, as the status
/// line (`ci-agg --statusline`) reads it.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct StatusInput {
    /// The session the status line is about.
    pub session: Option<String>,
    /// The file of that session, read too when it exists.
    pub transcript: Option<String>,
    /// The model's name, as shown.
    pub model: Option<String>,
}

/// Reads the whole stdin of an agent's status-line command
/// ([`Profile::status_line`]); the error says why it is no such input.
pub type StatusLine = fn(&[u8]) -> Result<StatusInput, String>;

/// Reads `text`, a status-line command's stdin, by the first format that
/// reads one ([`Profile::status_line`]).
pub fn status_input(text: &[u8]) -> Result<StatusInput, String> {
    match FORMATS.iter().find_map(|f| f.profile.status_line) {
        Some(read) => read(text),
        None => Err("no format reads a status line's input".to_owned()),
    }
}

/// The default roots of the formats billed in 5-hour windows
/// ([`Profile::billing_blocks`]): what `ci-agg --blocks` and `--statusline`
/// read with no PATH. When there is none, `diag` is told where they were
/// looked for.
pub fn billing_roots(diag: &crate::diag::Diag) -> Vec<std::path::PathBuf> {
    let billed: Vec<&Format> = FORMATS.iter().copied().filter(|f| f.profile.billing_blocks).collect();
    let roots: Vec<std::path::PathBuf> = billed.iter().flat_map(|f| f.layout.default_roots(diag)).collect();
    if roots.is_empty() {
        let names: Vec<&str> = billed.iter().map(|f| f.product).collect();
        let places: Vec<&str> = billed.iter().flat_map(|f| f.places.iter().copied()).collect();
        let vars: Vec<&str> = billed.iter().flat_map(|f| f.root_env.iter().copied()).collect();
        diag.note(&format_args!(
            "found no {} root: none of {} exists (name a PATH, or set {})",
            names.join(" or "),
            places.join(", "),
            vars.join(" or ")
        ));
    }
    roots
}

/// The event names of every format ([`Format::vocabulary`]), sorted, once each.
pub fn event_names() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = FORMATS.iter().flat_map(|f| (f.vocabulary)()).collect();
    names.sort_unstable();
    names.dedup();
    names
}

/// What a format is, as constants: the answers the toolkit asks of every
/// format that depend on nothing but the format.
#[derive(Debug, Clone, Copy)]
pub struct Profile {
    /// The `status` that means the session is live.
    pub live_status: &'static str,
    /// The order a session's records are visited in ([`Order`]).
    pub order: Order,
    /// Whether the writer's own events carry token usage (else a session's
    /// tokens are unknown, null, unless a companion file gives them).
    pub carries_usage: bool,
    /// Whether each line's events depend on that line alone: nothing is
    /// observed ([`Dialect::observe`]), [`Dialect::parts`] ignores the state,
    /// and a session is plain JSONL files read line by line in file order
    /// (not [`Layout::lines_of`], [`Order::File`], no
    /// [`Layout::companion`]). A large capture file of such a writer may be
    /// read in parts by several threads ([`crate::source`]), and one that grew
    /// can be read from its old end on, with what was read before kept (the
    /// capture cache, [`crate::aggregate::cached`]). The default: no.
    pub lines_independent: bool,
    /// Why a line of this writer is not an event where another writer's was expected.
    pub foreign_line: &'static str,
    /// Whether the event record is derived from the line (name, workspace,
    /// `data` built from the writer's own keys) rather than the line itself.
    pub derived: bool,
    /// For derived records: the key that keeps the writer's own event name
    /// (`hook` for Claude hooks).
    pub original_key: Option<&'static str>,
    /// Whether the writer's lines can yield several events (provenance then
    /// carries the part index of each).
    pub multi_part: bool,
    /// Whether the writer's `input_tokens` includes the cache reads
    /// (Amplifier's gross count); pricing then bills `input − cache_read` at
    /// the input rate. The toolkit prints the figure as written.
    pub input_includes_cache_read: bool,
    /// Whether the writer copies earlier history (responses, tool calls)
    /// into another session's files (Claude Code's resumed sessions): a run
    /// then counts each once, in the session of its first line.
    pub copies_history: bool,
    /// Whether a turn's response time ends at its first `llm:response` (else
    /// at its `orchestrator:complete`, or its last `prompt:complete`), and
    /// its messages are prompts + responses (else prompts + completions).
    pub reply_ends_turn: bool,
    /// Bytes every line that carries token usage holds (unless it spells
    /// its keys with `\u` escapes): lines without them can be passed over by
    /// a tokens count ([`crate::source::Visitor::needs_events`]). `None`: no
    /// such shortcut.
    pub usage_bytes: Option<&'static [u8]>,
    /// Whether the writer's usage is billed in 5-hour windows (Claude
    /// Code's plans): `ci-agg --blocks` and `--statusline` with no PATH
    /// read the default roots of such formats ([`billing_roots`]).
    pub billing_blocks: bool,
    /// How its writer writes one response on several lines, when it does
    /// (what a usage metric summed over lines is told; else its
    /// [`Format::product`] is named).
    pub repeats: Option<&'static str>,
    /// Reads the input of its agent's status-line command, when it has one
    /// (`ci-agg --statusline`).
    pub status_line: Option<StatusLine>,
    /// The database tables whose rows are its records (a database store:
    /// [`crate::lines::rows`]); a cut row is read again through them.
    pub tables: &'static [&'static crate::lines::rows::Table],
    /// The kinds of documents that are records, one file each
    /// ([`crate::lines::documents`]); a cut one is read again through them.
    pub documents: &'static [&'static crate::lines::documents::Document],
}

impl Profile {
    /// Whether `ci-filter` keeps a line index of its capture files
    /// ([`crate::cache::line_index`]): each line one event of its own.
    pub const fn line_indexed(&self) -> bool {
        self.lines_independent && !self.multi_part
    }

    /// A profile with these required answers and the defaults for the rest.
    pub const fn new(live_status: &'static str, foreign_line: &'static str) -> Profile {
        Profile {
            live_status,
            order: Order::File,
            carries_usage: true,
            lines_independent: false,
            foreign_line,
            derived: false,
            original_key: None,
            multi_part: false,
            input_includes_cache_read: false,
            copies_history: false,
            reply_ends_turn: false,
            usage_bytes: None,
            billing_blocks: false,
            repeats: None,
            status_line: None,
            tables: &[],
            documents: &[],
        }
    }
}

/// The order a format's session records are visited in. Every order but
/// [`Order::File`] reads the session whole first (each file at most
/// [`crate::lines::max_line`] bytes; a longer one, or one that cannot be
/// read, is read in file order), and each record keeps its own site as its
/// provenance. Under `--follow`, always file order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// File by file, line by line, as written (streamed, never read whole).
    File,
    /// In time order when every record of the session has a timestamp
    /// (stable: ties keep the file order); else file order.
    Time,
    /// A mutation log: each record says what it does to the session's list
    /// of records ([`super::Dialect::mutation`]). A record whose id comes
    /// again later is superseded: visited once, as its last copy, at that
    /// copy's place; a rewind or a replaced list drops records, except those
    /// the writer still bills.
    LastCopy,
}
