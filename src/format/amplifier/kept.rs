//! What discovery reads of an Amplifier session besides its events file's
//! `stat`, kept across runs in the run's peeks ([`Cx::kept`]): the record's
//! fields from `metadata.json`, kept by that file's `stat`, and a child's
//! agent from its events file's first line, kept by the events file's. A
//! warm run then stats the two files and opens neither.

use std::fs::Metadata;
use std::path::Path;

use super::super::Cx;
use crate::codec::{put_opt_text, Reader};
use crate::session::SessionRecord;

/// The fields of a session record that `metadata.json` fills, in their kept order.
fn fields(rec: &mut SessionRecord) -> [&mut Option<String>; 10] {
    [
        &mut rec.workspace,
        &mut rec.parent,
        &mut rec.agent,
        &mut rec.status,
        &mut rec.started_at,
        &mut rec.last_event_at,
        &mut rec.ended_at,
        &mut rec.working_dir,
        &mut rec.recipe,
        &mut rec.parallel_group_id,
    ]
}

/// What `metadata.json` gave `rec` (a record it alone filled): its ten
/// texts and `recipe_step` as JSON text.
fn encode(rec: &SessionRecord) -> Vec<u8> {
    let mut rec = rec.clone();
    let mut out = Vec::with_capacity(128);
    for f in fields(&mut rec) {
        put_opt_text(&mut out, f.as_deref());
    }
    put_opt_text(&mut out, rec.recipe_step.as_ref().map(ToString::to_string).as_deref());
    out
}

/// [`encode`] read back into `rec` (false: not one; `rec` is then untouched).
fn decode(bytes: &[u8], rec: &mut SessionRecord) -> bool {
    let mut r = Reader(bytes);
    let mut texts: [Option<String>; 10] = Default::default();
    for t in &mut texts {
        let Some(v) = r.opt_text() else { return false };
        *t = v;
    }
    let step = match r.opt_text() {
        Some(None) => None,
        Some(Some(t)) => match crate::json::dom::parse(t.as_bytes()) {
            Some(v) => Some(v),
            None => return false,
        },
        None => return false,
    };
    if r.left() != 0 {
        return false;
    }
    for (f, t) in fields(rec).into_iter().zip(texts) {
        *f = t;
    }
    rec.recipe_step = step;
    true
}

/// Fills `rec` from the `metadata.json` at `path` with `read` (which answers
/// as [`super::sessions`]' reader does: `Ok(true)` read, `Ok(false)` no such
/// file, `Err` its reason), or from the run's peeks while the file's `stat`
/// is as it was. Only a file that read well is kept: a missing one costs a
/// `stat`, and a damaged one is read (and reported) every run.
pub(super) fn metadata(
    rec: &mut SessionRecord,
    path: &Path,
    cx: Option<&Cx<'_>>,
    read: impl FnOnce(&mut SessionRecord) -> Result<bool, String>,
) -> Result<bool, String> {
    let Some(peeks) = cx.and_then(|cx| cx.peeks) else { return read(rec) };
    let meta = match std::fs::metadata(path) {
        Ok(m) if m.is_file() => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        _ => return read(rec),
    };
    if peeks.get(path, &meta, WRITER_METADATA, &mut |payload| decode(payload, rec)) {
        return Ok(true);
    }
    let result = read(rec);
    if result == Ok(true) {
        peeks.put(path, &meta, WRITER_METADATA, encode(rec));
    }
    result
}

/// The agent a child's first line names ([`super::sessions`]' `fork_agent`,
/// `read`), kept by its events file's `stat` (`meta`).
pub(super) fn fork_agent(
    events: &Path,
    meta: &Metadata,
    cx: Option<&Cx<'_>>,
    read: impl FnOnce() -> Option<String>,
) -> Option<String> {
    let Some(cx) = cx else { return read() };
    let encode = |a: &Option<String>| {
        let mut out = vec![];
        put_opt_text(&mut out, a.as_deref());
        out
    };
    let decode = |b: &[u8]| {
        let mut r = Reader(b);
        r.opt_text().filter(|_| r.left() == 0)
    };
    cx.kept(events, meta, WRITER_FORK, read, encode, decode)
}

/// The kept peeks' tags of the two (one file is never both).
const WRITER_METADATA: &str = "amplifier metadata.json";
const WRITER_FORK: &str = "amplifier fork agent";

#[cfg(test)]
mod tests {
    use super::*;

    /// What `metadata.json` gave a record reads back as it was, numbers'
    /// spelling (`1.50`, `1e5`) and escapes included; other bytes are refused.
    #[test]
    fn kept_metadata_reads_back_as_read() {
        let mut rec = SessionRecord::new("s".into(), &super::super::FORMAT, "p".into());
        let text = br#"{"workspace":"w","agent_name":"a\u00e9","recipe_step":[1.50,{"k":1e5,"n":null}],"status":""}"#;
        rec.recipe_step = crate::json::dom::parse(text).and_then(|m| m.get("recipe_step").cloned());
        (rec.workspace, rec.agent, rec.status) = (Some("w".into()), Some("aé".into()), Some(String::new()));
        let bytes = encode(&rec);
        let mut back = SessionRecord::new("s".into(), &super::super::FORMAT, "p".into());
        assert!(decode(&bytes, &mut back));
        assert_eq!(back, rec);
        assert_eq!(serde_json::to_string(&back.recipe_step).unwrap(), r#"[1.50,{"k":1e5,"n":null}]"#);
        let mut untouched = SessionRecord::new("s".into(), &super::super::FORMAT, "p".into());
        for cut in [&bytes[..bytes.len() - 1], &[bytes.as_slice(), b"x"].concat()[..]] {
            assert!(!decode(cut, &mut untouched));
            assert_eq!(untouched.workspace, None);
        }
    }
}
