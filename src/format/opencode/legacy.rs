//! OpenCode's legacy `storage/` tree (builds before v1.2.0, formats-next.md
//! §3.1): beside `opencode.db`, a JSON document per session, message and
//! part, each file one record ([`crate::lines::documents`]):
//!
//! - `storage/session/<projectID>/<sessionID>.json`: the session;
//! - `storage/message/<sessionID>/<messageID>.json`: its messages;
//! - `storage/part/<messageID>/<partID>.json`: each message's parts.
//!
//! A document's record has the shape of a database row's ([`super::store`]:
//! `type` session, message or part, the same keys, `data` = the document),
//! so the same dialect reads both. What a record adds to its document is
//! read from the files it names: a message's `steps` (its `step-finish`
//! parts), a part's `model` (its message's `modelID`) and time.

use std::path::{Path, PathBuf};

use crate::json::{Kind, Raw};
use crate::lines::documents::{self, Document};

/// A file of the legacy tree: one record.
pub static DOCUMENT: Document = Document { writer: "opencode", name: "storage", record };

/// The kinds of documents that are records.
pub static DOCUMENTS: [&Document; 1] = [&DOCUMENT];

/// The `storage` folder of a data directory.
pub fn storage(root: &Path) -> PathBuf {
    root.join("storage")
}

/// The session files of a data directory's legacy tree, by project then
/// name (`storage/session/*/*.json`).
pub fn session_files(root: &Path) -> Vec<PathBuf> {
    let projects = crate::files::sorted_dirs(&storage(root).join("session"));
    projects.iter().flat_map(|p| json_files(p)).collect()
}

/// The `*.json` files of `dir`, by name (none when it cannot be read).
fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut v = crate::files::read_dir_sorted(dir).unwrap_or_default();
    v.retain(|p| p.extension().is_some_and(|e| e == "json") && p.is_file());
    v
}

/// The `storage` folder a file of the tree is in: three levels up
/// (`storage/<kind>/<folder>/<file>`), when that is one.
fn storage_of(file: &Path) -> Option<&Path> {
    let dir = file.parent()?.parent()?.parent()?;
    (dir.file_name()? == "storage").then_some(dir)
}

/// A file of the tree, by kind (`session`, `message`, `part`), when it is
/// one (a file named as a PATH may be any).
pub fn kind_of(file: &Path) -> Option<&'static str> {
    storage_of(file)?;
    let kind = file.parent()?.parent()?.file_name()?.to_str()?;
    ["session", "message", "part"].into_iter().find(|k| *k == kind)
}

/// The files of the session whose file is `session` (its `id` is `id`),
/// in reading order: it, then each message (by `time.created`, then id, as
/// the database's rows) followed by its parts (by id: OpenCode's ids sort
/// by time).
pub fn files(session: &Path, id: &str) -> Vec<PathBuf> {
    let mut out = vec![session.to_path_buf()];
    let Some(storage) = storage_of(session) else { return out };
    let mut messages = json_files(&storage.join("message").join(id));
    let created = |f: &PathBuf| read_doc(f).and_then(|d| Raw(&d).get("time")?.get("created")?.as_f64());
    let mut keyed: Vec<(f64, PathBuf)> = messages.drain(..).map(|f| (created(&f).unwrap_or(f64::MAX), f)).collect();
    keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
    for (_, msg) in keyed {
        let parts = msg.file_stem().map(|m| json_files(&storage.join("part").join(m))).unwrap_or_default();
        out.push(msg);
        out.extend(parts);
    }
    out
}

/// The document at `path`, compacted (`None` when it cannot be read or is
/// over the record limit).
pub fn read_doc(path: &Path) -> Option<Vec<u8>> {
    let raw = std::fs::read(path).ok().filter(|r| r.len() <= crate::lines::max_line())?;
    let mut out = Vec::new();
    documents::compact(&raw, &mut out);
    crate::json::validate(&out).is_ok().then_some(out)
}

/// The record of the document `doc` (compacted) at `path` (module docs):
/// a part has `messageID`, a message `role`, a session `id`; anything else
/// is refused.
fn record(path: &Path, doc: &[u8], out: &mut Vec<u8>) -> Result<(), String> {
    crate::json::validate(doc).map_err(|e| e.to_string())?;
    let d = Raw(doc);
    let has = |k: &str| d.get(k).is_some();
    if has("messageID") {
        part(path, d, out);
    } else if has("role") {
        message(path, d, out);
    } else if has("id") {
        session(d, out);
    } else {
        return Err("not an OpenCode storage document".into());
    }
    Ok(())
}

/// Writes `"key":` and the value (`null` when there is none).
fn member(out: &mut Vec<u8>, key: &str, v: Option<Raw<'_>>) {
    out.extend_from_slice(b",\"");
    out.extend_from_slice(key.as_bytes());
    out.extend_from_slice(b"\":");
    out.extend_from_slice(v.map_or(&b"null"[..], |v| v.bytes()));
}

/// Writes `"timestamp":` the time `ms` (milliseconds since the epoch) as
/// the database's records spell it, else `null`.
fn timestamp(out: &mut Vec<u8>, ms: Option<Raw<'_>>) {
    let ts = ms.and_then(|m| m.as_f64()).filter(|m| m.fract() == 0.0).map(|m| m as i64);
    let ts = ts.and_then(|ms| Some((jiff::Timestamp::from_millisecond(ms).ok()?, ms.rem_euclid(1000))));
    match ts {
        Some((t, frac)) => {
            let text = format!("{}.{frac:03}Z", t.strftime("%Y-%m-%dT%H:%M:%S"));
            member(out, "timestamp", Some(Raw(format!("\"{text}\"").as_bytes())));
        }
        None => member(out, "timestamp", None),
    }
}

/// Ends a record: its `data`, the document.
fn data(out: &mut Vec<u8>, d: Raw<'_>) {
    member(out, "data", Some(d));
    out.push(b'}');
}

/// The session document `d`.
fn session(d: Raw<'_>, out: &mut Vec<u8>) {
    out.extend_from_slice(b"{\"type\":\"session\"");
    for (key, from) in [("id", "id"), ("project_id", "projectID"), ("parent_id", "parentID")] {
        member(out, key, d.get(from));
    }
    for key in ["directory", "title", "version"] {
        member(out, key, d.get(key));
    }
    timestamp(out, d.get("time").and_then(|t| t.get("created")));
    data(out, d);
}

/// The message document `d` at `path`: an assistant message without
/// `step-finish` parts carries its own `tokens` as `usage`.
fn message(path: &Path, d: Raw<'_>, out: &mut Vec<u8>) {
    let steps = step_parts(path, d);
    out.extend_from_slice(b"{\"type\":\"message\"");
    member(out, "id", d.get("id"));
    member(out, "session_id", d.get("sessionID"));
    timestamp(out, d.get("time").and_then(|t| t.get("created")));
    member(out, "steps", Some(Raw(steps.to_string().as_bytes())));
    let assistant = d.get("role").and_then(|r| r.as_str()).is_some_and(|r| r == "assistant");
    let tokens = d.get("tokens").is_some_and(|t| t.kind() == Kind::Object);
    usage(out, (assistant && tokens && steps == 0).then_some(d));
    data(out, d);
}

/// The part document `d` at `path`: a `step-finish` part carries its
/// `tokens` and `cost` as `usage`, and every part its message's model.
/// Its time: its `time.start`, else its tool call's `state.time.start`,
/// else its message's `time.created`.
fn part(path: &Path, d: Raw<'_>, out: &mut Vec<u8>) {
    let msg = message_of(path, d);
    let msg = msg.as_deref().map(Raw);
    out.extend_from_slice(b"{\"type\":\"part\"");
    member(out, "id", d.get("id"));
    member(out, "message_id", d.get("messageID"));
    member(out, "session_id", d.get("sessionID"));
    let own = d.get("time").and_then(|t| t.get("start"));
    let call = || d.get("state")?.get("time")?.get("start");
    timestamp(out, own.or_else(call).or_else(|| msg?.get("time")?.get("created")));
    member(out, "model", msg.and_then(|m| m.get("modelID")));
    let step = d.get("type").and_then(|t| t.as_str()).is_some_and(|t| t == "step-finish");
    usage(out, step.then_some(d));
    data(out, d);
}

/// Writes `"usage":` the toolkit's usage of a document with `tokens` and
/// `cost` (else `null`). The legacy tree was written by builds before AI
/// SDK v6, whose `output` is the provider's output count, reasoning
/// included: it is `output_tokens` as it is (`reasoning_tokens` apart).
fn usage(out: &mut Vec<u8>, d: Option<Raw<'_>>) {
    let Some(d) = d else { return member(out, "usage", None) };
    let tokens = d.get("tokens");
    let count = |key: &str| tokens.and_then(|t| t.get(key)).map_or(0, crate::format::whole_count);
    let cache = |key: &str| tokens.and_then(|t| t.get("cache")?.get(key)).map_or(0, crate::format::whole_count);
    let cost = d.get("cost").filter(|c| c.kind() == Kind::Number);
    let text = format!(
        "{{\"input_tokens\":{},\"output_tokens\":{},\"cache_read_tokens\":{},\"cache_write_tokens\":{},\"reasoning_tokens\":{},\"cost_usd\":{}}}",
        count("input"),
        count("output"),
        cache("read"),
        cache("write"),
        count("reasoning"),
        cost.map_or("null".into(), |c| String::from_utf8_lossy(c.bytes()).into_owned()),
    );
    member(out, "usage", Some(Raw(text.as_bytes())));
}

/// The number of `step-finish` parts of the message document `d` at `path`
/// (in `storage/part/<its id>/`).
fn step_parts(path: &Path, d: Raw<'_>) -> usize {
    let (Some(storage), Some(id)) = (storage_of(path), d.get("id").and_then(|i| i.as_str())) else { return 0 };
    if crate::session::unsafe_name(&id) {
        return 0;
    }
    let parts = json_files(&storage.join("part").join(id.as_ref()));
    let step = |doc: &Vec<u8>| Raw(doc).get("type").and_then(|t| t.as_str()).is_some_and(|t| t == "step-finish");
    parts.iter().filter_map(|p| read_doc(p)).filter(step).count()
}

/// The message document of the part document `d` at `path`.
fn message_of(path: &Path, d: Raw<'_>) -> Option<Vec<u8>> {
    let storage = storage_of(path)?;
    let (session, msg) = (d.get("sessionID")?.as_str()?, d.get("messageID")?.as_str()?);
    if crate::session::unsafe_name(&session) || crate::session::unsafe_name(&msg) {
        return None;
    }
    read_doc(&storage.join("message").join(session.as_ref()).join(format!("{msg}.json")))
}

/// What discovery reads of the session file `file` (as of a database's
/// session row, [`super::store::SessionRow`]): the session document, its
/// messages up to the first assistant message's `modelID` and the first
/// `agent` (else `mode`, its older name), and the size of its messages' and parts' files.
pub fn session_row(file: &Path) -> Option<super::store::SessionRow> {
    let doc = read_doc(file)?;
    let d = Raw(&doc);
    let text = |v: Option<Raw<'_>>| v.and_then(|v| v.as_str()).map(|s| s.into_owned()).filter(|s| !s.is_empty());
    let ms = |key: &str| d.get("time")?.get(key)?.as_f64().filter(|m| m.fract() == 0.0).map(|m| m as i64);
    let id = text(d.get("id"))?;
    let files = files(file, &id);
    let mut row = super::store::SessionRow {
        parent: text(d.get("parentID")),
        directory: text(d.get("directory")),
        version: text(d.get("version")),
        created_ms: ms("created"),
        updated_ms: ms("updated"),
        bytes: files[1..].iter().filter_map(|f| std::fs::metadata(f).ok()).map(|m| m.len()).sum(),
        ..Default::default()
    };
    for msg in files.iter().filter(|f| kind_of(f) == Some("message")) {
        if row.model.is_some() && row.agent.is_some() {
            break;
        }
        let Some(m) = read_doc(msg) else { continue };
        let m = Raw(&m);
        if row.model.is_none() && m.get("role").and_then(|r| r.as_str()).is_some_and(|r| r == "assistant") {
            row.model = text(m.get("modelID"));
        }
        // Older builds named the agent `mode`.
        row.agent = row.agent.take().or_else(|| text(m.get("agent")).or_else(|| text(m.get("mode"))));
    }
    row.id = id;
    Some(row)
}
