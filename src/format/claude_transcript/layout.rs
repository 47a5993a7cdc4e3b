//! Where Claude Code transcripts are: discovery and reading ([`Layout`]).

use super::*;

impl Layout for ClaudeTranscript {
    /// `$CLAUDE_CONFIG_DIR` (comma-separated, each trimmed and `~`-expanded;
    /// a missing one is an error like any root), else `~/.config/claude` and
    /// `~/.claude` when they hold a `projects` folder.
    fn default_roots(&self, _diag: &Diag) -> Vec<PathBuf> {
        if let Ok(v) = std::env::var(ROOT_ENV) {
            let list: Vec<PathBuf> = v.split(',').map(str::trim).filter(|s| !s.is_empty()).map(expand_tilde).collect();
            if !list.is_empty() {
                return list;
            }
        }
        ["~/.config/claude", "~/.claude"]
            .into_iter()
            .map(expand_tilde)
            .filter(|r| r.join("projects").is_dir())
            .collect()
    }

    /// The sessions of every project folder of the root's `projects`; a
    /// project folder itself given as the root: its sessions.
    fn discover(
        &self,
        root: &Path,
        detail: Detail,
        cx: &Cx<'_>,
        diag: &Diag,
    ) -> crate::error::Result<Vec<SessionRecord>> {
        let Some(projects) = projects_dir(root) else {
            let files = transcripts_in(&read_dir_sorted(root).unwrap_or_default());
            let sessions = files.iter().filter(|(f, _)| first_line_is_transcript(f));
            return Ok(sessions.filter_map(|(f, sub)| session_of(f, detail, cx, Some(diag), *sub)).collect());
        };
        let mut files = vec![];
        for folder in read_dir_sorted(&projects).unwrap_or_default() {
            if !folder.is_dir() {
                continue;
            }
            files.extend(transcripts_in(&read_dir_sorted(&folder).unwrap_or_default()));
        }
        Ok(crate::files::in_parallel(&files, |(f, sub)| session_of(f, detail, cx, Some(diag), *sub), diag))
    }

    /// A project folder given as an argument is not one session: it is read
    /// as a root would be (see [`crate::discover::session_in`]); nothing here.
    fn session_in(&self, _dir: &Path, _diag: &Diag) -> Option<Option<SessionRecord>> {
        None
    }

    /// A `<session-id>.jsonl` whose lines are transcript lines, anywhere: that
    /// session (its subagents too, when they sit beside it).
    fn file_capture(&self, file: &Path, cx: &Cx<'_>, diag: &Diag) -> Option<Capture> {
        if !is_transcript_name(file) || !first_line_is_transcript(file) {
            return None;
        }
        let rec = session_of(file, Detail::Full, cx, Some(diag), true)?;
        Some(crate::format::capture(rec))
    }

    fn record_of_file(&self, file: &Path, _session: &str, cx: &Cx<'_>) -> Option<SessionRecord> {
        if !is_transcript_name(file) {
            return None;
        }
        // A subagent file: its session's main file.
        let main = match file.parent() {
            Some(sub) if sub.file_name().is_some_and(|n| n == "subagents") => {
                let dir = sub.parent()?;
                dir.parent()?.join(format!("{}.jsonl", dir.file_name()?.to_str()?))
            }
            _ => file.to_path_buf(),
        };
        // Any `.jsonl` could be named: only a transcript is one of ours.
        if !first_line_is_transcript(&main) {
            return None;
        }
        session_of(&main, Detail::Full, cx, None, true)
    }

    fn fresh(&self, root: &Path, seen: &mut HashSet<PathBuf>, cx: &Cx<'_>, diag: &Diag) -> Vec<SessionRecord> {
        let Some(projects) = projects_dir(root) else { return vec![] };
        let mut found = vec![];
        for folder in read_dir_sorted(&projects).unwrap_or_default() {
            for (file, sub) in transcripts_in(&read_dir_sorted(&folder).unwrap_or_default()) {
                if !seen.contains(&file) {
                    found.extend(session_of(&file, Detail::Full, cx, Some(diag), sub));
                    seen.insert(file);
                }
            }
        }
        found
    }

    /// `…/projects/<folder>/<id>.jsonl` and its `<id>/subagents/agent-*.jsonl`.
    fn project_of_path(&self, path: &str) -> Option<String> {
        let parts: Vec<&str> = path.split('/').collect();
        match parts.as_slice() {
            [.., "projects", folder, _, "subagents", file] | [.., "projects", folder, file]
                if file.ends_with(".jsonl") =>
            {
                Some((*folder).to_owned())
            }
            _ => None,
        }
    }

    /// The main file identifies a session.
    fn session_dir(&self, rec: &SessionRecord) -> PathBuf {
        PathBuf::from(&rec.path)
    }

    /// Claude Code's folder rule ([`project_folder`]).
    fn project_folder(&self, dir: &str) -> String {
        project_folder(dir)
    }

    /// Non-blank lines of the session's files.
    fn event_count(&self, rec: &SessionRecord) -> u64 {
        self.files(rec).iter().map(|f| crate::files::count_lines(f)).sum()
    }

    /// The main file, then each subagent transcript named in `files`.
    fn files(&self, rec: &SessionRecord) -> Vec<PathBuf> {
        let main = PathBuf::from(&rec.path);
        let mut files = vec![main.clone()];
        if let (Some(names), Some(stem)) = (&rec.files, main.file_stem()) {
            let sub = main.with_file_name(stem).join("subagents");
            files.extend(
                names.iter().filter(|n| !unsafe_name(n) && n.ends_with(".jsonl")).map(|n| sub.join(n.as_str())),
            );
        }
        files
    }

    /// The subagent transcripts beside the session (`files`).
    fn subagents(&self, rec: &SessionRecord) -> u64 {
        rec.files.as_ref().map_or(0, |f| f.len() as u64)
    }
}
