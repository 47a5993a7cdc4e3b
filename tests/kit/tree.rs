//! Capture trees for tests: one builder for the on-disk layout of every
//! writer the tools read (Amplifier `context-intelligence` captures, Claude
//! Code hook sessions in `_sessiondata`, Claude Code transcripts, Codex
//! rollouts, committed hook-log arrays), with the damage a test needs
//! (missing or invalid metadata, a bad line, a torn tail, a FIFO in place of
//! a file).
//!
//! The builder writes exactly the bytes a test gives it (plus the documented
//! defaults below), so a test's expected output is computed from what it
//! wrote. Self-contained (no `crate::` paths): the harness-less
//! `tests/allocs.rs` includes it with `#[path]`.

#![allow(dead_code)]

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// A capture root: a fresh temporary directory (removed when the `Tree` is
/// dropped) or an existing directory (`Tree::at`, left in place).
pub struct Tree {
    root: PathBuf,
    _temp: Option<tempfile::TempDir>,
}

impl Default for Tree {
    fn default() -> Tree {
        Tree::new()
    }
}

impl Tree {
    /// A new, empty root in a temporary directory.
    pub fn new() -> Tree {
        let temp = tempfile::tempdir().expect("temporary directory");
        Tree { root: temp.path().to_owned(), _temp: Some(temp) }
    }

    /// A tree rooted at `root` (created if missing), which the caller owns.
    pub fn at(root: impl AsRef<Path>) -> Tree {
        let root = root.as_ref().to_owned();
        std::fs::create_dir_all(&root).expect("tree root");
        Tree { root, _temp: None }
    }

    /// The root directory.
    pub fn path(&self) -> &Path {
        &self.root
    }

    /// `root/REL`, nothing written.
    pub fn join(&self, rel: impl AsRef<Path>) -> PathBuf {
        self.root.join(rel)
    }

    /// Writes `bytes` to `root/REL` (its parents made); the path.
    pub fn file(&self, rel: impl AsRef<Path>, bytes: impl AsRef<[u8]>) -> PathBuf {
        let path = self.root.join(rel);
        write(&path, bytes);
        path
    }

    /// Makes the directory `root/REL` (and its parents); the path.
    pub fn dir(&self, rel: impl AsRef<Path>) -> PathBuf {
        let path = self.root.join(rel);
        std::fs::create_dir_all(&path).expect("mkdir");
        path
    }

    /// An Amplifier capture `root/PROJECT/sessions/ID/context-intelligence/`,
    /// to be written with [`Amplifier::write`]. By default its metadata is
    /// `{"session_id":"ID","workspace":"w"}` and it has an empty
    /// `events.jsonl`.
    pub fn amplifier(&self, project: &str, id: impl AsRef<OsStr>) -> Amplifier {
        let id = id.as_ref();
        let dir = self.root.join(project).join("sessions").join(id).join("context-intelligence");
        let metadata = Metadata::Text(format!(r#"{{"session_id":"{}","workspace":"w"}}"#, id.to_string_lossy()));
        Amplifier { dir, metadata, events: Some(Vec::new()) }
    }

    /// A Claude Code hook session `root/ID/` (the root is a `_sessiondata`
    /// folder): `_claude_HOOK.jsonl` per hook, each line as given.
    pub fn hook_session(&self, id: &str) -> HookSession {
        HookSession { dir: self.dir(id) }
    }

    /// A Claude Code transcript `root/projects/PROJECT/SID.jsonl` holding
    /// `text`; its path.
    pub fn transcript(&self, project: &str, sid: &str, text: impl AsRef<[u8]>) -> PathBuf {
        let path = transcript_path(&self.root, project, sid);
        write(&path, text);
        path
    }

    /// A subagent transcript `root/projects/PROJECT/SID/subagents/agent-AGENT.jsonl`
    /// holding `text`; its path.
    pub fn subagent(&self, project: &str, sid: &str, agent: &str, text: impl AsRef<[u8]>) -> PathBuf {
        let path = subagent_path(&self.root, project, sid, agent);
        write(&path, text);
        path
    }

    /// A Codex rollout `root/FOLDER/NAME` (FOLDER `sessions/YYYY/MM/DD` or
    /// `archived_sessions`) holding `text`; its path.
    pub fn rollout(&self, folder: impl AsRef<Path>, name: impl AsRef<Path>, text: impl AsRef<[u8]>) -> PathBuf {
        self.file(folder.as_ref().join(name), text)
    }

    /// A committed hook-log array file `root/NAME` (the root is the `logs`
    /// folder: `pre_tool_use.json`, `chat.json`) holding `text`; its path.
    pub fn hook_log(&self, name: &str, text: impl AsRef<[u8]>) -> PathBuf {
        self.file(name, text)
    }
}

/// `ROOT/projects/PROJECT/SID.jsonl`: where Claude Code keeps a transcript.
pub fn transcript_path(root: &Path, project: &str, sid: &str) -> PathBuf {
    root.join("projects").join(project).join(format!("{sid}.jsonl"))
}

/// `ROOT/projects/PROJECT/SID/subagents/agent-AGENT.jsonl`: a subagent's transcript.
pub fn subagent_path(root: &Path, project: &str, sid: &str, agent: &str) -> PathBuf {
    root.join("projects").join(project).join(sid).join("subagents").join(format!("agent-{agent}.jsonl"))
}

/// What an Amplifier capture's `metadata.json` is.
enum Metadata {
    Text(String),
    Missing,
    Fifo,
}

/// An Amplifier capture being built; nothing is on disk before [`write`](Amplifier::write).
#[must_use = "nothing is written before .write()"]
pub struct Amplifier {
    dir: PathBuf,
    metadata: Metadata,
    events: Option<Vec<u8>>,
}

/// A written Amplifier capture.
pub struct Capture {
    /// Its `context-intelligence` directory.
    pub dir: PathBuf,
    /// Its `events.jsonl` (written unless [`Amplifier::no_events`]).
    pub events: PathBuf,
}

impl Amplifier {
    /// Where its `events.jsonl` will be.
    pub fn events_path(&self) -> PathBuf {
        self.dir.join("events.jsonl")
    }

    /// `metadata.json` holds exactly `text`.
    pub fn metadata(mut self, text: impl Into<String>) -> Amplifier {
        self.metadata = Metadata::Text(text.into());
        self
    }

    /// No `metadata.json` (reported as missing).
    pub fn no_metadata(mut self) -> Amplifier {
        self.metadata = Metadata::Missing;
        self
    }

    /// A `metadata.json` that is not JSON (cut inside a string).
    pub fn invalid_metadata(self) -> Amplifier {
        self.metadata("{\"session_id\":\"")
    }

    /// A FIFO named `metadata.json` (opening it to read would block).
    pub fn fifo_metadata(mut self) -> Amplifier {
        self.metadata = Metadata::Fifo;
        self
    }

    /// No `events.jsonl` (metadata only: not a capture yet).
    pub fn no_events(mut self) -> Amplifier {
        self.events = None;
        self
    }

    /// Appends `bytes` as they are to `events.jsonl`.
    pub fn raw(mut self, bytes: impl AsRef<[u8]>) -> Amplifier {
        self.events.get_or_insert_with(Vec::new).extend_from_slice(bytes.as_ref());
        self
    }

    /// Appends one line (a newline added).
    pub fn line(self, line: impl AsRef<[u8]>) -> Amplifier {
        self.raw(line).raw("\n")
    }

    /// Appends each line (a newline added after each).
    pub fn lines<I, S>(self, lines: I) -> Amplifier
    where
        I: IntoIterator<Item = S>,
        S: AsRef<[u8]>,
    {
        lines.into_iter().fold(self, |a, l| a.line(l))
    }

    /// Appends a line that is not JSON (reported as `invalid JSON at byte 0`).
    pub fn bad_line(self) -> Amplifier {
        self.line("not json")
    }

    /// Ends `events.jsonl` with `partial`, no newline: a torn tail that is held.
    pub fn torn_tail(self, partial: impl AsRef<[u8]>) -> Amplifier {
        self.raw(partial)
    }

    /// Writes the capture.
    pub fn write(self) -> Capture {
        std::fs::create_dir_all(&self.dir).expect("capture directory");
        let meta = self.dir.join("metadata.json");
        match self.metadata {
            Metadata::Text(text) => write(&meta, text),
            Metadata::Missing => {}
            Metadata::Fifo => mkfifo(&meta),
        }
        let events = self.dir.join("events.jsonl");
        if let Some(bytes) = self.events {
            write(&events, bytes);
        }
        Capture { dir: self.dir, events }
    }
}

/// A Claude Code hook session directory.
pub struct HookSession {
    /// `root/ID`.
    pub dir: PathBuf,
}

impl HookSession {
    /// Writes `_claude_HOOK.jsonl` holding `text`; its path.
    pub fn hook(&self, hook: &str, text: impl AsRef<[u8]>) -> PathBuf {
        let path = self.dir.join(format!("_claude_{hook}.jsonl"));
        write(&path, text);
        path
    }
}

/// Writes `bytes` to `path`, its parent directories made.
pub fn write(path: &Path, bytes: impl AsRef<[u8]>) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("mkdir");
    }
    std::fs::write(path, bytes).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
}

/// Makes a FIFO at `path` (with mkfifo(1)).
pub fn mkfifo(path: &Path) {
    let made = std::process::Command::new("mkfifo").arg(path).status().expect("mkfifo runs");
    assert!(made.success(), "mkfifo {}", path.display());
}
