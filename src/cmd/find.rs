//! `ci-find`: discover captures and filter them by session metadata.

use std::collections::HashSet;
use std::path::PathBuf;

use clap::{Parser, ValueEnum};

use crate::cache::counts::EventCounts;
use crate::cli::values;
use crate::cli::{Common, SessionArg, Tabular, TimeWindow, Tool};
use crate::diag::Diag;
use crate::discover;
use crate::discover::Detail;
use crate::error::{Error, Outcome, Result};
use crate::output::table::{Columns, Fit, TableStyle};
use crate::output::{sessions, tree, Output};
use crate::session::{self, SessionRecord};
use crate::session_id::SessionIds;
use crate::time::{self, Timestamp};
use crate::watch::Watch;

mod bare;

const EXAMPLES: &str = "\
EXAMPLES:
  ci-find                                   all captures under the default root, newest first
  ci-find --root $EXAMPLE_ROOT --workspace my-api
  ci-find --status running --since 2h       sessions active in the last two hours
  ci-find --parent 63cc3feb --children      children of a session (8-char prefix)
  ci-find --session 63cc3feb | ci-cat --head 5
  ci-find -0 --paths | xargs -0 -n 200 -P 2 ci-agg --partial --by event | ci-agg --merge
  ci-find --tree
  ci-find --root ROOT --model claude-sonnet-4-5 --min-events 10 --active
  ci-find --root A --root B --tag source:startup | ci-agg --by tool
  ci-find --root myproject/logs | ci-agg --tools   a project's committed hook logs
  ci-find --format table --columns session,agent,status,started_at
  ci-find --limit 5 --fields session,workspace,started_at,path   a bounded listing

ROOTS:
  --root (repeatable) wins; else the default roots of every format, in this order:
ROOT LIST
  The format is detected per root: each format's section below says how.

OUTPUT:
  One session record per line (JSON): session, project, workspace, parent, agent,
  status, started_at, last_event_at, ended_at, working_dir, recipe, recipe_step,
  parallel_group_id, format, path, bytes, mtime, metadata, model, files, transcript,
  events, tags (each format's section below says which it leaves null). Every
  key is always present (null when unknown). A session record has `session` and
  `path` and no `event` key; every ci-* tool expands it into the capture's events.
  On a terminal (without --paths, -0, --tree, --follow) the default is a table;
  --format json|table|markdown|tsv|csv|chart always wins. Tables print the
  records as columns for people and spreadsheets (the renderer of ci-agg --format, see
  TABLES in ci-agg --help: widths, numbers, the header of an empty listing): by
  default session, workspace, status, started_at, bytes; --columns A,B,…
  chooses and orders any of the keys above (an unknown name is an error naming
  the nearest). --format chart draws each session's bytes as a bar (see
  CHARTS in ci-agg --help). Not with --paths, -0, --tree or --follow.

BOUNDED OUTPUT (for agents and scripts):
  --limit N prints the first N sessions of the sorted listing (after every
  filter, --sort and -r) and says `N of M sessions shown (--limit N)` on stderr
  when it left some out. --fields K,… prints NDJSON records with only these
  keys, in the record's order (the keys of OUTPUT; an unknown one is an error
  naming the nearest); records that keep session, format and path still pipe
  into ci-cat, ci-grep or ci-agg. (ci-agg --top N picks groups, not sessions.)

HOSTILE PATHS:
  Discovery walks a fixed depth, so symbolic-link loops cannot make it hang. An
  events.jsonl that is a dangling or looping link, a FIFO, socket, device or
  directory is reported (`path: reason, skipped`) and never opened; so is a
  session directory whose path is not valid UTF-8 (records carry paths as JSON
  strings). The other sessions are still listed; the exit status is then 2.

FOLLOW (-f, --follow):
  After the listing, keep watching the roots and print one session record (or
  path) per session that appears, flushed as it appears, until SIGINT, SIGTERM
  or SIGHUP (exit 0) or until the reader goes away (exit 0, noticed within a
  second even when nothing new appears). The roots are listed every second
  (polling); only new session directories are read. A session appears when its
  capture exists: SESSIONS APPEAR. The filters judge each session once, when it
  first appears (--status running, --since 2h as at start); --sort orders each
  batch. --session matches an exact id or an id starting with it (at least 8
  characters), with no ambiguity check; --parent must exist at start. Not with
  --tree. With ci-cat -f (or ci-grep -f, ci-filter -f), which follow each
  session as its record arrives, this tails every session, new ones included:
    ci-find --follow --root ROOT | ci-cat -f

EXIT STATUS:
  One rule in every ci-* tool (README: Paths, session ids, exit status).
  0 sessions printed; 1 none found or none matched (stderr says `looked in <root>,
  found 0` when a root has no capture at all, `no session id starts with \"…\"`
  for a --session or --parent that matches none); 2 an error, which wins (a
  missing root, a refused or ambiguous --session); 130 interrupted by SIGINT,
  SIGTERM or SIGHUP (whole records only; with --follow a signal is the normal
  end: 0).";

/// `--active`'s help: the live status of every format, each once
/// ([`crate::format::Profile::live_status`]).
fn active_help() -> String {
    let mut statuses: Vec<&str> = Vec::new();
    for f in crate::format::FORMATS {
        if !statuses.contains(&f.profile.live_status) {
            statuses.push(f.profile.live_status);
        }
    }
    let statuses: Vec<String> = statuses.iter().map(|s| format!("`{s}`")).collect();
    format!("Only live sessions: status is its format's live one ({})", statuses.join(", "))
}

/// Sort orders of `--sort`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SortKey {
    /// Start time, newest first (ties by id).
    Start,
    /// Last activity (last_event_at, ended_at or mtime), newest first.
    Last,
    /// Session id.
    Id,
    /// Size of events.jsonl, largest first.
    Size,
    /// Path of events.jsonl.
    Path,
}

/// The columns of `--format table|markdown|tsv|csv` unless `--columns` says: which
/// session, where, in what state, since when, how big.
pub const TABLE_COLUMNS: [&str; 5] = ["session", "workspace", "status", "started_at", "bytes"];

/// Discover captures (sessions) and filter them by metadata.
#[derive(Debug, Parser)]
#[command(
    name = "ci-find",
    version,
    after_long_help = crate::format::with_sections(
        &crate::format::with_example(EXAMPLES)
            .replacen("ROOT LIST\n", &crate::format::roots_list(), 1)
            .replacen("SESSIONS APPEAR", &crate::format::appearances(), 1),
        |h| h.find.as_ref(),
        "OUTPUT"
    ),
    after_help = "Run with --help for examples.",
    mut_arg("since", |a| a.help("Only sessions active at or after this time (RFC 3339, YYYY-MM-DD, an age like 30m, 2h, 7d or -7d, or today, yesterday, this-week, last-week, this-month, last-month). Activity is metadata started_at..last_event_at (else ended_at); a session with no time in its metadata never matches. The records carry the window (\"window\"), so a tool reading their events reads those in it")),
    mut_arg("until", |a| a.help("Only sessions started before this time (exclusive: a date or a word means its start)")),
    mut_arg("tz", |a| a.help("Time zone for dates in --since/--until (IANA name, UTC, ±HH:MM or local)")),
    mut_arg("columns", |a| a.value_parser(values::known(&session::FIELDS))),
    mut_arg("active", |a| a.help(active_help()))
)]
pub struct Args {
    /// Capture root to search (repeatable).
    #[arg(long, value_name = "DIR")]
    pub root: Vec<PathBuf>,
    /// Only sessions of this workspace: the project folder ROOT/W or the
    /// metadata `workspace` field (repeatable, OR). A bare name no session
    /// has (`myapp`) is taken as the working directories it ends (…/myapp),
    /// said on stderr; a near one is suggested.
    #[arg(long, value_name = "W", allow_hyphen_values = true)]
    pub workspace: Vec<String>,
    /// Only sessions of this project: a slug (`-home-u-my-api`) or a working
    /// directory (`/home/u/my-api`), compared as slugs; a bare name as for
    /// --workspace.
    #[arg(long, value_name = "SLUG|DIR", allow_hyphen_values = true)]
    pub project: Vec<String>,
    #[command(flatten)]
    pub session: SessionArg,
    /// Only sessions whose metadata status is this (repeatable, OR).
    #[arg(long, value_name = "STATUS")]
    pub status: Vec<String>,
    #[command(flatten)]
    pub time: TimeWindow,
    /// Only sessions of this agent (metadata agent_name, else the fork line's
    /// data.metadata.agent_name).
    #[arg(long, value_name = "NAME")]
    pub agent: Vec<String>,
    /// Only children of this session (its exact id, or a prefix of at least
    /// 8 characters that starts one id only, as for --session).
    #[arg(long, value_name = "ID")]
    pub parent: Option<String>,
    /// Only root sessions (no parent).
    #[arg(long, conflicts_with = "children")]
    pub roots: bool,
    /// Only child sessions.
    #[arg(long)]
    pub children: bool,
    /// Only sessions of this recipe (metadata recipe_name).
    #[arg(long, value_name = "NAME")]
    pub recipe: Vec<String>,
    /// Only captures whose events.jsonl has at least this size (a size: 4096,
    /// 4k, 1M; k, M, G are powers of 1024).
    #[arg(long, value_name = "SIZE", value_parser = values::size)]
    pub min_bytes: Option<u64>,
    /// Only sessions of this model: the record's `model`, or, for a format
    /// whose record names none until its events are read, any response's
    /// model (the capture is read only when this flag is given; the
    /// record's `model` is then the first one). Repeatable (OR).
    #[arg(long, value_name = "MODEL")]
    pub model: Vec<String>,
    /// Only sessions with at least N events, as each format counts them
    /// (the record's `events`, else its capture's lines, elements or rows,
    /// counted only when this flag or --max-events is given).
    #[arg(long, value_name = "N")]
    pub min_events: Option<u64>,
    /// Only sessions with at most N events (counted as for --min-events).
    #[arg(long, value_name = "N")]
    pub max_events: Option<u64>,
    /// Only live sessions (the help lists each format's live status).
    #[arg(long)]
    pub active: bool,
    /// Only sessions carrying this derived tag (source:S, permission:P,
    /// agent:T, of the formats whose records carry tags: see their sections).
    /// Repeatable: every tag given must be present (AND).
    #[arg(long, value_name = "TAG")]
    pub tag: Vec<String>,
    /// Sort order.
    #[arg(long, value_enum, default_value_t = SortKey::Start)]
    pub sort: SortKey,
    /// Reverse the order.
    #[arg(short = 'r', long)]
    pub reverse: bool,
    /// Print only the first N sessions of the sorted listing (stderr says
    /// how many were left out).
    #[arg(long, value_name = "N", conflicts_with = "follow")]
    pub limit: Option<usize>,
    /// Print NDJSON records with only these keys of the session record
    /// (comma-separated), in the record's order.
    #[arg(long, value_name = "KEY[,KEY…]", value_delimiter = ',', hide_possible_values = true,
          value_parser = values::known(&session::FIELDS),
          conflicts_with_all = ["paths", "null", "tree", "columns", "format"])]
    pub fields: Vec<String>,
    /// Print only the path of each events.jsonl, one per line.
    #[arg(long, conflicts_with_all = ["format", "columns"])]
    pub paths: bool,
    /// Print paths terminated by NUL (for xargs -0); implies --paths.
    #[arg(short = '0', long = "null", conflicts_with_all = ["format", "columns"])]
    pub null: bool,
    /// Neither use nor update the capture cache: count events afresh for
    /// --min-events/--max-events, read the heads and tails discovery peeks
    /// at in session files again (also CI_CACHE=0).
    #[arg(long)]
    pub no_cache: bool,
    /// Print where the capture cache is and what it holds (one NDJSON record
    /// for the directory: its bytes, bound, the captures' bytes it covers,
    /// bytes per capture and bytes by kind; then one per cache file: its
    /// question, entries, bytes, captures' bytes, last use), and nothing else.
    #[arg(long, exclusive = true)]
    pub cache_info: bool,
    /// Print the parent/child structure as an indented text tree.
    #[arg(long, conflicts_with_all = ["paths", "null", "format", "columns"])]
    pub tree: bool,
    /// After the listing, keep watching the roots and print each new session
    /// as it appears (polled every second).
    #[arg(short = 'f', long, conflicts_with_all = ["tree", "columns"])]
    pub follow: bool,
    #[command(flatten)]
    pub output: Tabular,
    #[command(flatten)]
    pub common: Common,
}

impl Tool for Args {
    fn common(&self) -> &Common {
        &self.common
    }

    fn follows(&self) -> bool {
        self.follow
    }
}

/// Filters resolved from the arguments.
#[derive(Default)]
struct Filters {
    workspaces: Vec<String>,
    projects: Vec<Project>,
    /// The working directories bare `--workspace`/`--project` names no
    /// session has are taken as ([`bare`]).
    workspace_dirs: Vec<String>,
    project_dirs: Vec<String>,
    statuses: Vec<String>,
    agents: Vec<String>,
    recipes: Vec<String>,
    since: Option<Timestamp>,
    until: Option<Timestamp>,
    /// `--parent`: the ids it selects.
    parent: Option<HashSet<String>>,
    roots: bool,
    children: bool,
    min_bytes: Option<u64>,
    models: Vec<String>,
    min_events: Option<u64>,
    max_events: Option<u64>,
    /// The counts `--min-events`/`--max-events` read, kept in the capture cache.
    counts: Option<EventCounts>,
    active: bool,
    tags: Vec<String>,
}

impl Filters {
    /// These filters with what depends on the sessions found (`all`): the
    /// `--project` values, the working directories bare `--workspace` and
    /// `--project` names are taken as, the `--parent` ids, and the event
    /// counts' cache when `--min-events`/`--max-events` read it.
    fn for_sessions(
        mut self,
        projects: Vec<Project>,
        parent: Option<HashSet<String>>,
        no_cache: bool,
        all: &[SessionRecord],
        diag: &Diag,
    ) -> Filters {
        self.workspace_dirs = bare::taken_as("--workspace", &self.workspaces, all, SessionRecord::in_workspace, diag);
        let names: Vec<String> = projects.iter().map(|p| p.name.clone()).collect();
        self.project_dirs =
            bare::taken_as("--project", &names, all, |r, v| projects.iter().any(|p| p.name == v && p.holds(r)), diag);
        self.projects = projects;
        self.parent = parent;
        self.counts = (self.min_events.is_some() || self.max_events.is_some())
            .then(|| if no_cache { None } else { EventCounts::open(diag) })
            .flatten();
        self
    }

    /// Whether `r` passes; the checks that read a capture (`--model` for
    /// a writer whose record names no model, `--min-events`/`--max-events`)
    /// come last, and what they read is kept in the record (`model`).
    fn matches(&self, r: &mut SessionRecord) -> bool {
        let any = |list: &[String], v: Option<&str>| list.is_empty() || v.is_some_and(|v| list.iter().any(|x| x == v));
        let in_dirs = |dirs: &[String]| r.working_dir.as_ref().is_some_and(|d| dirs.contains(d));
        (self.workspaces.is_empty()
            || self.workspaces.iter().any(|w| r.in_workspace(w))
            || in_dirs(&self.workspace_dirs))
            && (self.projects.is_empty() || self.projects.iter().any(|p| p.holds(r)) || in_dirs(&self.project_dirs))
            && any(&self.statuses, r.status.as_deref())
            && any(&self.agents, r.agent.as_deref())
            && any(&self.recipes, r.recipe.as_deref())
            && self.parent.as_ref().is_none_or(|p| r.parent.as_ref().is_some_and(|id| p.contains(id)))
            && (!self.roots || !r.is_child())
            && (!self.children || r.is_child())
            && self.min_bytes.is_none_or(|m| r.bytes >= m)
            && (!self.active || r.status.as_deref() == Some(live_status(r)))
            && self.tags.iter().all(|t| r.tags.iter().flatten().any(|x| x == t))
            && self.in_time(r)
            && self.model_ok(r)
            && self.event_count_ok(r)
            && self.carry_window(r)
    }

    /// A selected record carries the window it was selected by, so that a
    /// tool reading its events reads those in the window only
    /// (`ci-find --since 7d | ci-agg` is `ci-agg --since 7d`). Always true.
    fn carry_window(&self, r: &mut SessionRecord) -> bool {
        let window = crate::time::Interval::new(self.since, self.until);
        if !window.is_open() {
            r.window = Some(window);
        }
        true
    }

    /// `--model`: any model the session names ([`crate::format::Layout::models`]).
    fn model_ok(&self, r: &mut SessionRecord) -> bool {
        if self.models.is_empty() {
            return true;
        }
        let named = match r.format.layout.models(r) {
            Some(read) => {
                r.model = read.first().cloned();
                read
            }
            None => r.model.iter().cloned().collect(),
        };
        named.iter().any(|m| self.models.contains(m))
    }

    /// A session overlaps [since, until) when its last activity is at or after
    /// `since` and it started before `until`. Unknown times never match a bound.
    /// The event-count bounds, checked last (a capture whose record has no
    /// count is read to count).
    fn event_count_ok(&self, r: &SessionRecord) -> bool {
        if self.min_events.is_none() && self.max_events.is_none() {
            return true;
        }
        let n = match &self.counts {
            Some(c) => c.count(r),
            None => r.format.layout.event_count(r),
        };
        self.min_events.is_none_or(|m| n >= m) && self.max_events.is_none_or(|m| n <= m)
    }

    fn in_time(&self, r: &SessionRecord) -> bool {
        r.overlaps(self.since, self.until)
    }
}

/// What ci-find prints of the sessions it selected.
enum Listing {
    /// `--tree`.
    Tree,
    /// `--format table|markdown|tsv|csv|chart` (or a terminal's default).
    Table(TableStyle),
    /// `--columns` without a table format: NDJSON with those keys.
    Columns,
    /// Session records, paths or `--fields` (also what `--follow` prints).
    Records(Records),
}

/// The shape of each printed session when records are printed.
enum Records {
    /// `--paths` (`-0`: NUL-terminated).
    Paths { null: bool },
    /// `--fields`: these keys only.
    Fields(Vec<String>),
    /// Whole session records.
    Whole,
}

/// ci-find's flags, resolved once, before any root is read (so a bad
/// bound, format, key or id is the only message): what a run reads.
struct Config {
    roots: Vec<PathBuf>,
    ids: SessionIds,
    /// `--parent`, parsed.
    parent: Option<SessionIds>,
    /// `--project`, each value read as a folder name or a directory.
    projects: Vec<Project>,
    /// The filters that depend on the flags only (those that depend on the
    /// sessions found are filled in by [`Filters::for_sessions`]).
    filters: Filters,
    listing: Listing,
    sort: SortKey,
    reverse: bool,
    limit: Option<usize>,
    follow: bool,
    no_cache: bool,
    output: Tabular,
}

impl Config {
    /// Resolves `args`, in the order their errors are told.
    fn new(args: Args) -> Result<Config> {
        let (since, until) = args.time.bounds(time::now())?;
        // A table for a person at a terminal; records (or paths, a tree, a
        // live listing) otherwise.
        let terminal = std::io::IsTerminal::is_terminal(&std::io::stdout());
        let records = !(args.paths || args.null || args.tree || args.follow || !args.fields.is_empty());
        let format = args.output.table_format(terminal && records)?;
        if args.follow && format.is_some() {
            return Err(Error::Usage(
                "--follow prints NDJSON records (or paths) as sessions appear: not with --format table, markdown, tsv \
                 or csv"
                    .into(),
            ));
        }
        if let Some(bad) = args.fields.iter().find(|k| !session::FIELDS.contains(&k.as_str())) {
            let hint = crate::text::nearest(bad, &session::FIELDS).map(|n| format!("; did you mean \"{n}\"?"));
            return Err(Error::Usage(format!(
                "--fields: no key \"{bad}\" in session records{}",
                hint.unwrap_or_default()
            )));
        }
        let ids = args.session.ids()?;
        let parent =
            args.parent.as_ref().map(|p| SessionIds::parse("--parent", std::slice::from_ref(p))).transpose()?;
        let listing = if args.tree {
            Listing::Tree
        } else if let Some(format) = format {
            Listing::Table(format)
        } else if !args.output.columns.is_empty() {
            Listing::Columns
        } else if args.paths || args.null {
            Listing::Records(Records::Paths { null: args.null })
        } else if !args.fields.is_empty() {
            Listing::Records(Records::Fields(args.fields))
        } else {
            Listing::Records(Records::Whole)
        };
        let projects = args.project.iter().map(|p| Project::new(p)).collect();
        let filters = Filters {
            workspaces: args.workspace,
            projects: Vec::new(),
            workspace_dirs: Vec::new(),
            project_dirs: Vec::new(),
            statuses: args.status,
            agents: args.agent,
            recipes: args.recipe,
            since,
            until,
            parent: None,
            roots: args.roots,
            children: args.children,
            min_bytes: args.min_bytes,
            models: args.model,
            min_events: args.min_events,
            max_events: args.max_events,
            counts: None,
            active: args.active,
            tags: args.tag,
        };
        Ok(Config {
            roots: args.root,
            ids,
            parent,
            projects,
            filters,
            listing,
            sort: args.sort,
            reverse: args.reverse,
            limit: args.limit,
            follow: args.follow,
            no_cache: args.no_cache,
            output: args.output,
        })
    }
}

/// Runs ci-find.
pub fn run(args: Args, diag: &Diag) -> Result<Outcome> {
    if args.cache_info {
        return cache_info();
    }
    list(Config::new(args)?, diag)
}

/// Lists the sessions `cfg` selects (then follows the roots with `--follow`).
fn list(mut cfg: Config, diag: &Diag) -> Result<Outcome> {
    let roots = discover::resolve_roots(&cfg.roots, diag);
    // What discovery reads of transcripts' bytes is kept (written when the run ends).
    let _peeks = crate::cache::peeks::for_run(cfg.no_cache, diag);
    let mut all = vec![];
    for root in &roots {
        match discover::sessions_at(root, Detail::Full, diag) {
            // The first root's records are taken as they are (no copy of 100,000 records).
            Ok(found) if all.is_empty() => all = found,
            Ok(found) => all.extend(found),
            Err(e) => diag.error(&e),
        }
    }
    let parent = match &cfg.parent {
        Some(p) => {
            let parents = p.select(all.iter().collect(), |r| (r.session.as_str(), r.path.as_str()), diag)?;
            Some(parents.into_iter().map(|r| r.session.clone()).collect())
        }
        None => None,
    };
    let mut filters = std::mem::take(&mut cfg.filters).for_sessions(
        std::mem::take(&mut cfg.projects),
        parent,
        cfg.no_cache,
        &all,
        diag,
    );
    let watch = cfg.follow.then(|| Watch::new(&roots, &all));
    let mut selected: Vec<SessionRecord> = if cfg.follow {
        // Following: the session may not exist yet, so no lookup error.
        all.into_iter().filter(|r| cfg.ids.matches(&r.session)).collect()
    } else {
        cfg.ids.select(all, |r| (r.session.as_str(), r.path.as_str()), diag)?
    };
    selected.retain_mut(|r| filters.matches(r));
    if let Some(counts) = filters.counts.take() {
        counts.save(diag);
    }
    cfg.order(&mut selected);
    if let Some(n) = cfg.limit.filter(|&n| n < selected.len()) {
        diag.note(&format_args!("{n} of {} sessions shown (--limit {n})", selected.len()));
        selected.truncate(n);
    }
    let mut out = Output::stdout();
    match &cfg.listing {
        Listing::Tree => {
            let mut buf = Vec::with_capacity(64 * 1024);
            tree::write_tree(&selected, &mut buf);
            out.write(&buf)?;
        }
        Listing::Table(format) => out.write(&write_table(&selected, *format, &cfg.output, diag)?)?,
        Listing::Columns => out.write(&cfg.output.ndjson(&sessions::as_records(&selected), None)?)?,
        Listing::Records(shape) => write_records(&selected, shape, &mut out)?,
    }
    out.flush()?;
    if let Some(watch) = watch {
        follow(watch, &filters, &cfg, diag, &mut out)?;
    }
    Ok(Outcome::printed_if(!selected.is_empty()))
}

impl Config {
    /// Sorts sessions by `--sort`, reversed with `-r`.
    fn order(&self, v: &mut [SessionRecord]) {
        sort(v, self.sort);
        if self.reverse {
            v.reverse();
        }
    }
}

/// Prints session records (or paths, or `--fields`) in `shape`.
fn write_records(list: &[SessionRecord], shape: &Records, out: &mut Output) -> Result<()> {
    let shape = match shape {
        Records::Paths { null } => sessions::Shape::Path { null: *null },
        Records::Fields(keys) => sessions::Shape::Fields(keys),
        Records::Whole => sessions::Shape::Whole,
    };
    sessions::write_records(list, shape, out)
}

/// Session records as a table (`--format table|markdown|tsv|csv`): its
/// header even with no records; a table fits the terminal.
fn write_table(list: &[SessionRecord], format: TableStyle, output: &Tabular, diag: &Diag) -> Result<Vec<u8>> {
    let records = sessions::as_records(list);
    // A chart draws each session's size.
    let default = if format == TableStyle::Chart { &["session", "bytes"][..] } else { &TABLE_COLUMNS[..] };
    let columns = output.columns(Columns::named(default))?;
    output.render(&records, None, format, &columns, Fit::default(), diag)
}

/// `--follow`: prints each session that appears under the roots, until a
/// signal (Ok) or until stdout's reader is gone (a closed pipe).
fn follow(mut watch: Watch, filters: &Filters, cfg: &Config, diag: &Diag, out: &mut Output) -> Result<()> {
    // Following prints records (a tree, a table or --columns are refused).
    let shape = match &cfg.listing {
        Listing::Records(shape) => shape,
        _ => &Records::Whole,
    };
    loop {
        // One interval, in steps that notice a signal or a closed reader.
        for _ in 0..10 {
            if crate::signal::stop_requested() {
                return Ok(());
            }
            if crate::source::follow::stdout_closed() {
                return Err(Error::BrokenPipe);
            }
            std::thread::sleep(crate::watch::INTERVAL / 10);
        }
        let mut fresh = watch.fresh(diag);
        fresh.retain_mut(|r| cfg.ids.matches(&r.session) && filters.matches(r));
        cfg.order(&mut fresh);
        write_records(&fresh, shape, out)?;
        out.flush()?;
    }
}

/// The status that means "live" for a record's writer.
fn live_status(r: &SessionRecord) -> &'static str {
    r.format.profile.live_status
}

/// A `--project` value: a project folder name, and, when the value is a
/// path, the working directory it names (absolute).
struct Project {
    name: String,
    dir: Option<String>,
}

impl Project {
    /// A value is a working directory when it is a path: absolute (`/…`,
    /// `C:\…`), `~`-relative, or relative with a `/` or `\` in it or made of
    /// `.` and `..` (`.`, `..`, `./x`, `src/app`); a relative one is
    /// resolved against the working directory as `pwd` shows it
    /// ([`crate::files::absolute`]). A folder name has none of these
    /// (folder names start with `-` and hold no `/`).
    fn new(value: &str) -> Project {
        let first = value.split(['/', '\\']).next().unwrap_or("");
        let is_path = !value.starts_with('-')
            && (value.starts_with('~') || value.contains(['/', '\\']) || first == "." || first == "..");
        let b = value.as_bytes();
        let windows = value.starts_with("\\\\") || b.len() > 2 && b[0].is_ascii_alphabetic() && b[1] == b':';
        let dir = is_path.then(|| {
            let mut dir = if windows {
                value.to_owned() // another system's path: taken as written
            } else {
                crate::files::absolute(&crate::files::expand_tilde(value)).to_string_lossy().into_owned()
            };
            // A trailing separator is not part of the name (`/` stays).
            dir.truncate(dir.trim_end_matches(['/', '\\']).len().max(1));
            dir
        });
        Project { name: value.to_owned(), dir }
    }

    /// Whether a record is of this project: its folder name, or (for a
    /// path) the folder its writer names that working directory after
    /// ([`crate::format::Layout::project_folder`]).
    fn holds(&self, r: &SessionRecord) -> bool {
        let Some(project) = r.project.as_deref() else { return false };
        project == self.name || self.dir.as_deref().is_some_and(|d| project == r.format.layout.project_folder(d))
    }
}

fn sort(v: &mut [SessionRecord], key: SortKey) {
    match key {
        SortKey::Start => session::sort_newest_first(v),
        SortKey::Last => v.sort_by_cached_key(|r| (std::cmp::Reverse(r.last()), r.session.clone())),
        SortKey::Id => v.sort_by(|a, b| a.session.cmp(&b.session).then_with(|| a.path.cmp(&b.path))),
        SortKey::Size => v.sort_by(|a, b| b.bytes.cmp(&a.bytes).then_with(|| a.session.cmp(&b.session))),
        SortKey::Path => v.sort_by(|a, b| a.path.cmp(&b.path)),
    }
}

/// `--cache-info`: the cache directory, then each file of it.
fn cache_info() -> Result<Outcome> {
    let records = crate::cache::usage::describe(|k| std::env::var_os(k));
    let mut out = crate::output::Output::stdout();
    for r in &records {
        let mut line = serde_json::to_vec(r).map_err(|e| Error::Msg(format!("internal error: {e}")))?;
        line.push(b'\n');
        out.write(&line)?;
    }
    out.flush()?;
    Ok(Outcome::Printed)
}
