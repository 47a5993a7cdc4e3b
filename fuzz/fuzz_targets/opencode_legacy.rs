//! OpenCode's legacy `storage/` tree (`format::opencode::legacy`, framing
//! `lines::documents`): files that are one JSON document each, made into
//! records (compacted, the database rows' shape) and read as events.
//!
//! Input: as for `transcript` ([`normalise::capture_bytes`]): each line is
//! one file of a session (every third a message, the others parts of the
//! last message), raw bytes or JSON objects built from OpenCode's own keys
//! and strings; an object gets its ids first (so parts find their message)
//! and every other file is written pretty-printed (spaces and newlines
//! between its tokens). Properties: nothing panics; every file gives one
//! line; reading it again gives the same bytes and the file's length; the
//! records read as a capture satisfy [`normalise::check`].
#![no_main]

use std::path::{Path, PathBuf};

use ci_tools::format::opencode::{legacy, FORMAT};
use ci_tools::lines::documents;
use libfuzzer_sys::fuzz_target;

#[path = "common/normalise.rs"]
#[allow(dead_code)] // its `run` reads one file's bytes, not a tree
mod normalise;

#[path = "common/opencode_words.rs"]
mod opencode_words;
use opencode_words::WORDS;

/// The session every file belongs to.
const SESSION: &str = "ses_f";

/// A fresh tree for this process.
fn tree() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ci-fuzz-opencode-legacy-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Writes `doc` at `path`: an object with `ids` put first, every other one
/// spread over lines.
fn write(path: &Path, doc: &[u8], ids: &str, pretty: bool) {
    std::fs::create_dir_all(path.parent().expect("a folder")).expect("the folder is made");
    let mut out = Vec::new();
    match doc.strip_prefix(b"{") {
        Some(rest) => {
            out.extend_from_slice(format!("{{{ids}").as_bytes());
            if !rest.starts_with(b"}") {
                out.push(b',');
            }
            out.extend_from_slice(rest);
        }
        None => out.extend_from_slice(doc),
    }
    if pretty {
        let mut spread = Vec::new();
        for b in out {
            spread.push(b);
            if matches!(b, b',' | b':' | b'{' | b'[') {
                spread.extend_from_slice(b"\n  ");
            }
        }
        out = spread;
    }
    std::fs::write(path, out).expect("the file is written");
}

fuzz_target!(|data: &[u8]| {
    let bytes = normalise::capture_bytes(data, WORDS);
    let root = tree();
    let storage = root.join("storage");
    let session = storage.join("session/global").join(format!("{SESSION}.json"));
    let head =
        format!(r#"{{"id":"{SESSION}","projectID":"global","directory":"/w","time":{{"created":1764000000000}}}}"#);
    write(&session, head.as_bytes(), "", false);
    let mut message = String::new();
    for (i, line) in bytes.split(|b| *b == b'\n').take(24).enumerate() {
        if i % 3 == 0 {
            message = format!("msg_f{i:03}");
            let ids = format!(r#""id":"{message}","sessionID":"{SESSION}""#);
            write(&storage.join("message").join(SESSION).join(format!("{message}.json")), line, &ids, i % 2 == 1);
        } else {
            let part = format!("prt_f{i:03}");
            let ids = format!(r#""id":"{part}","sessionID":"{SESSION}","messageID":"{message}""#);
            write(&storage.join("part").join(&message).join(format!("{part}.json")), line, &ids, i % 2 == 1);
        }
    }
    let mut capture = Vec::new();
    let (mut record, mut again) = (Vec::new(), Vec::new());
    for file in legacy::files(&session, SESSION) {
        let len = documents::read(&file, &legacy::DOCUMENT, &mut record).expect("a file is read");
        let again_len = documents::read(&file, &legacy::DOCUMENT, &mut again).expect("read again");
        assert_eq!((len, &record), (again_len, &again), "reading a file again gives the same bytes");
        assert_eq!(len, Some(std::fs::metadata(&file).expect("its size").len()));
        assert!(!record.contains(&b'\n'), "one line");
        capture.extend_from_slice(&record);
        capture.push(b'\n');
    }
    let printed = normalise::check(&FORMAT, &capture);
    assert_eq!(normalise::check(&FORMAT, &capture), printed, "reading is deterministic");
    let _ = std::fs::remove_dir_all(&root);
});
