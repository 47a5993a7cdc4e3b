//! [`Layout`]: where a format's sessions and files are (discovery and reading).

use super::*;

/// Where a format's sessions and files are: discovery and reading. See the
/// module docs; [`amplifier::Amplifier`] is the reference.
pub trait Layout: Sync {
    /// The roots searched when none is given (from the writer's environment
    /// variable, else its default place; none when it has no default).
    fn default_roots(&self, diag: &Diag) -> Vec<PathBuf>;

    /// A format whose sessions are files, one file one session, says how
    /// they are found ([`FileSessions`]) and gets [`Layout::discover`],
    /// [`Layout::file_capture`], [`Layout::record_of_file`] and
    /// [`Layout::fresh`] from it. `None` (the default): the format writes
    /// those four (without either, it finds nothing).
    fn file_sessions(&self) -> Option<&FileSessions> {
        None
    }

    /// Every session of this writer under `root`, in path order. An error
    /// only when the root itself cannot be listed (and this writer is the
    /// one that reports it: the first in [`FORMATS`]).
    /// `detail` says which fields reading the captures can do without.
    fn discover(&self, root: &Path, detail: Detail, _cx: &Cx<'_>, diag: &Diag) -> Result<Vec<SessionRecord>> {
        self.file_sessions().map_or_else(|| Ok(Vec::new()), |f| f.discover(root, detail, diag))
    }

    /// When `dir` (a path given as an argument) is one of this writer's
    /// session directories: its record (`Some(None)` when it is one but is
    /// unusable, reported). `None`: not this writer's.
    /// The default: none (a folder given as an argument is read as a root).
    fn session_in(&self, _dir: &Path, _diag: &Diag) -> Option<Option<SessionRecord>> {
        None
    }

    /// When `file` (named as an argument) sits in this writer's layout: its capture.
    fn file_capture(&self, file: &Path, _cx: &Cx<'_>, diag: &Diag) -> Option<Capture> {
        self.file_sessions()?.file_capture(file, diag)
    }

    /// When `file` (named as an argument) sits in this writer's layout: its
    /// captures (a writer whose files mix sessions has several per file).
    /// The default: [`Layout::file_capture`].
    fn file_captures(&self, file: &Path, cx: &Cx<'_>, diag: &Diag) -> Option<Vec<Capture>> {
        self.file_capture(file, cx, diag).map(|c| vec![c])
    }

    /// The record of session `session` that a file read from belongs to,
    /// without reports (to look a piped event record's session up by its
    /// provenance path and session id: a file of a writer that keeps several
    /// sessions in one file names the session's own record). A writer whose
    /// files belong to one session may answer that session's record whatever
    /// `session` says; callers check its id.
    fn record_of_file(&self, file: &Path, _session: &str, _cx: &Cx<'_>) -> Option<SessionRecord> {
        self.file_sessions()?.record_of_file(file)
    }

    /// Sessions under `root` not in `seen` (their directories), for
    /// `ci-find --follow`; a directory whose session is complete, or
    /// unusable and reported, is added to `seen`.
    fn fresh(&self, root: &Path, seen: &mut HashSet<PathBuf>, _cx: &Cx<'_>, diag: &Diag) -> Vec<SessionRecord> {
        self.file_sessions().map_or_else(Vec::new, |f| f.fresh(root, seen, diag))
    }

    /// The project folder a path of one of this writer's files names, when
    /// the path fits the layout (no file is read).
    fn project_of_path(&self, _path: &str) -> Option<String> {
        None
    }

    /// The directory a session lives in (what [`Layout::fresh`] keys by).
    fn session_dir(&self, rec: &SessionRecord) -> PathBuf;

    /// The events a session holds, for `--min-events`/`--max-events` (may
    /// read the capture).
    fn event_count(&self, rec: &SessionRecord) -> u64;

    /// The models a session names, read from its capture when its record
    /// cannot say (`None`: the record's `model` is all there is). Read only
    /// when asked (`ci-find --model`).
    fn models(&self, _rec: &SessionRecord) -> Option<Vec<String>> {
        None
    }

    /// The project folder the writer names a working directory after
    /// (Amplifier's slug rule by default).
    fn project_folder(&self, dir: &str) -> String {
        crate::session::slug_of(dir)
    }

    /// The files of a session, in reading order.
    fn files(&self, rec: &SessionRecord) -> Vec<PathBuf>;

    /// A file of another writer that holds what this session's own files
    /// lack (a hooks session's transcript copy: its time, model and token
    /// usage). Analytics read it beside the session's events ([`crate::source::Visitor::companion_event`]);
    /// the event stream does not.
    fn companion(&self, _rec: &SessionRecord) -> Option<(PathBuf, &'static Format)> {
        None
    }

    /// The lines of `file` (shown as `display`) for capture `cap`, when the
    /// writer's files are not read line by line (JSON arrays: one compact
    /// line per element of `cap`'s session, [`crate::elements`]); the
    /// writer reports what it finds wrong with the file. `None`: its
    /// physical lines.
    fn lines_of<'d>(
        &self,
        _cap: &Capture,
        _file: &Path,
        _display: &str,
        _cx: &Cx<'_>,
        _diag: &'d Diag,
    ) -> Option<Box<dyn crate::lines::LineSource + 'd>> {
        None
    }

    /// When `cap` is a session of a database (its one file), the writer's
    /// grouped statements that fingerprint each session's rows
    /// ([`crate::lines::rows::fingerprints`]: a session id, then figures
    /// that change on any insert, update or delete of its rows), so that the
    /// capture cache keeps its answer (`docs/cache.md`, "Databases").
    /// `None`: not a database session, or one the cache does not keep.
    fn row_fingerprints(&self, _cap: &Capture) -> Option<&'static [&'static str]> {
        None
    }

    /// Subagent sessions a session record knows of (beside delegation events).
    fn subagents(&self, _rec: &SessionRecord) -> u64 {
        0
    }

    /// Fills what the dialect needs to know of capture `cap` before its
    /// first line from the files beside it (the Cline family: the task's
    /// models by time, [`ReadState::models`]); the state is a new capture's.
    fn prime(&self, _cap: &Capture, _state: &mut ReadState) {}
}
