//! Where a transcript's sessions are and what discovery reads of them: the
//! `projects` folder of a root, which files are transcripts, a session's
//! record and its subagent files, and the peek at a file's head and tail
//! (kept in the run's peeks, [`Cx::kept`]).

use bstr::ByteSlice;
use std::borrow::Cow;
use std::fs;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use super::message::line_type;
use super::{Cx, Detail, LineKind};
use crate::diag::Diag;
use crate::files::{read_dir_sorted, NOT_UTF8};
use crate::json::{Index, Kind};
use crate::session::SessionRecord;
use crate::time::{self, Timestamp};

/// The `projects` folder of a root, when it has one.
pub(super) fn projects_dir(root: &Path) -> Option<PathBuf> {
    let p = root.join("projects");
    if p.is_dir() {
        return Some(p);
    }
    (crate::files::name_above(root, 0).is_some_and(|n| n == "projects") && root.is_dir()).then(|| root.to_path_buf())
}

/// `<something>.jsonl` (what it is, a regular file or a FIFO, device or
/// dangling link to report, is checked when it is read: [`session_of`]).
pub(super) fn is_transcript_name(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "jsonl")
}

/// Whether `file` reads as a transcript: among its first lines (up to 20,
/// starting within 1 MiB) one is a transcript line and none is another writer's or an
/// event record (a real transcript may start with `summary` lines, which
/// carry only `type`, `summary` and `leafUuid`).
pub(super) fn first_line_is_transcript(file: &Path) -> bool {
    let mut found = false;
    super::super::head_records(file, 20, 1 << 20, |rec| match rec.map(LineKind::of) {
        Some(LineKind::Format(f)) if f == &super::FORMAT => {
            found = true;
            false
        }
        Some(LineKind::Unknown) => rec.is_some_and(|r| r.get("type").is_some_and(|t| t.kind() == Kind::String)),
        _ => false,
    });
    found
}

/// The most of a transcript's head and tail discovery reads.
const PEEK: u64 = 1024 * 1024;

/// The session record of a transcript file: id = the file stem, project = its
/// folder, `working_dir` = the first `cwd`, `started_at`/`last_event_at` =
/// the first and last timestamps (read from the file's first and last lines,
/// [`peek`]), `model` = the first assistant model, `files` = its subagent
/// transcripts' names, looked for only when `subagents` (see
/// [`transcripts_in`]). [`Detail::Reading`] leaves out what [`peek`] reads;
/// what it reads is kept in the run's peeks ([`Cx::kept`]).
pub(super) fn session_of(
    file: &Path,
    detail: Detail,
    cx: &Cx<'_>,
    diag: Option<&Diag>,
    subagents: bool,
) -> Option<SessionRecord> {
    let (meta, path, session) = super::super::file_session(file, diag)?;
    let project = crate::files::name_above(file, 1);
    let mut rec = SessionRecord {
        project: project.clone(),
        workspace: project,
        bytes: meta.len(),
        seen: crate::session::Seen::of(&meta),
        mtime: meta.modified().ok().and_then(|t| Timestamp::try_from(t).ok()).map(time::format_timestamp),
        ..SessionRecord::new(session.clone(), &super::FORMAT, path.to_owned())
    };
    if detail == Detail::Full {
        let read = || peek(file, meta.len());
        let head = cx.kept(file, &meta, "claude-transcript", read, Peek::encode, Peek::decode);
        rec.working_dir = head.cwd;
        rec.started_at = head.first.map(time::format_timestamp);
        rec.last_event_at = head.last.map(time::format_timestamp);
        rec.model = head.model;
    }
    let sub = file.with_file_name(&session).join("subagents");
    // Subagent transcripts: regular files only (a FIFO, device or dangling
    // link is reported, never opened), with UTF-8 names.
    let mut names: Vec<String> = vec![];
    let listed = if subagents { read_dir_sorted(&sub).unwrap_or_default() } else { vec![] };
    for p in listed.into_iter().filter(|p| is_transcript_name(p)) {
        let Some(m) = crate::files::usable_or_reported(&p, diag) else { continue };
        match p.file_name().and_then(|n| n.to_str()) {
            Some(name) => {
                rec.bytes += m.len();
                names.push(name.to_owned());
            }
            None => {
                if let Some(d) = diag {
                    d.error(&format_args!("{}: {NOT_UTF8}, skipped", p.display()));
                }
            }
        }
    }
    rec.files = Some(names);
    Some(rec)
}

/// The transcripts among `listing` (one folder's entries, sorted as
/// [`read_dir_sorted`] sorts them), each with whether an entry named as its
/// stem sits beside it: `<id>/subagents/` is the only place its subagent
/// transcripts can be, so without one none is looked for (on a history of
/// 28,000 sessions, most without subagents, that is 28,000 directory opens
/// that fail, a quarter of a warm `ci-find`).
pub(super) fn transcripts_in(listing: &[PathBuf]) -> Vec<(PathBuf, bool)> {
    fn bytes(p: &Path) -> &[u8] {
        p.as_os_str().as_encoded_bytes()
    }
    let transcripts = listing.iter().filter(|f| is_transcript_name(f));
    transcripts
        .map(|f| {
            // The path less its `.jsonl` (is_transcript_name): `<id>`'s.
            let dir = &bytes(f)[..bytes(f).len() - ".jsonl".len()];
            (f.clone(), listing.binary_search_by(|p| bytes(p).cmp(dir)).is_ok())
        })
        .collect()
}

/// What discovery reads off a transcript's head and tail ([`peek`]).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Peek {
    /// The first `cwd`.
    pub cwd: Option<String>,
    /// The first assistant model (not `<synthetic>`).
    pub model: Option<String>,
    /// The earliest timestamp seen.
    pub first: Option<Timestamp>,
    /// The latest timestamp seen.
    pub last: Option<Timestamp>,
}

impl Peek {
    /// Its form in the kept peeks ([`Cx::kept`]): four optional texts.
    pub fn encode(&self) -> Vec<u8> {
        use crate::codec::put_opt_text;
        let mut out = Vec::new();
        put_opt_text(&mut out, self.cwd.as_deref());
        put_opt_text(&mut out, self.model.as_deref());
        for t in [self.first, self.last] {
            put_opt_text(&mut out, t.map(time::format_timestamp).as_deref());
        }
        out
    }

    /// [`Peek::encode`] read back (`None`: not one).
    pub fn decode(bytes: &[u8]) -> Option<Peek> {
        let mut r = crate::codec::Reader(bytes);
        let (cwd, model) = (r.opt_text()?, r.opt_text()?);
        let mut time = || match r.opt_text()? {
            None => Some(None),
            Some(t) => time::parse_timestamp(&t).map(Some),
        };
        let (first, last) = (time()?, time()?);
        (r.left() == 0).then_some(Peek { cwd, model, first, last })
    }
}

/// Reads a transcript's head and tail (also a hooks session's
/// `_transcript_final.jsonl` copy): the first `cwd` and model from the
/// first lines; the earliest and latest timestamps of the lines read at the
/// head and at the tail. A window
/// starts at 16 KiB and grows to 1 MiB while it holds no complete line
/// with what is looked for (lines can be long).
pub fn peek(file: &Path, len: u64) -> Peek {
    let mut p = Peek::default();
    let Ok(mut f) = fs::File::open(file) else { return p };
    let mut idx = Index::new();
    let mut buf = Vec::new();
    let mut window = 16 * 1024;
    loop {
        buf.clear();
        if f.seek(SeekFrom::Start(0)).is_err() || (&mut f).take(window).read_to_end(&mut buf).is_err() {
            return p;
        }
        let whole = buf.len() as u64 >= len;
        let complete = if whole { &buf[..] } else { &buf[..memchr::memrchr(b'\n', &buf).map_or(0, |i| i + 1)] };
        p = Peek::default();
        for line in complete.split_str("\n") {
            let Ok(rec) = idx.skim(line) else { continue };
            let t = rec.get_str("timestamp").as_deref().and_then(time::parse_timestamp);
            p.first = time::earliest(p.first, t);
            p.last = p.last.max(t);
            if p.cwd.is_none() {
                p.cwd = rec.get_str("cwd").map(Cow::into_owned);
            }
            if p.model.is_none() && line_type(&rec).as_deref() == Some("assistant") {
                p.model = rec
                    .get_in("message", "model")
                    .and_then(|m| m.as_str())
                    .filter(|m| m != "<synthetic>")
                    .map(Cow::into_owned);
            }
        }
        if whole {
            return p;
        }
        if (p.first.is_some() && p.cwd.is_some()) || window >= PEEK {
            break;
        }
        window *= 4;
    }
    // The tail, for the last timestamp.
    let (lo, hi) = super::super::tail_times(&mut f, len, 16 * 1024, PEEK);
    p.first = time::earliest(p.first, lo);
    p.last = p.last.max(hi);
    p
}
