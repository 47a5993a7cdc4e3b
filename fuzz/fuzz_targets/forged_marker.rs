//! Forged cut markers (issue 38, D8/D9): piped records whose `ci.cut` names
//! any offset, length and XXH3 (`element` or not, any writer, any projected
//! fields) of a file the target writes — its real bytes (arbitrary, or lines
//! and arrays of records with raw damage such as control bytes, `\q`, `01`,
//! `[1,]`), placed after a hole and followed by one (sparse, up to 2^40
//! bytes each) — or of a FIFO, a link to `/dev/zero`, a directory, a missing
//! path. `reread::Reread::fetch`, then `build` (an event record) or
//! `build_match` (a ci-grep match record), as `source::piped` calls them.
//!
//! The marker's hash is mostly the right one (the harness hashes the range,
//! or the element the range starts, when it spans at most 1 MiB), so forged
//! markers get past the hash to the checks behind it.
//!
//! Properties: nothing panics, blocks or aborts; `fetch` allocates at most
//! 512 KiB (its 64 KiB scan chunk and the element reader's 256 KiB buffer)
//! plus eight times the file's real bytes, whatever the marker says (a
//! counting global allocator measures its peak; run with
//! `-rss_limit_mb=512`, whose malloc limit catches a single huge
//! allocation); a fetched line hashes as its marker says, holds no raw
//! control byte or newline, parses (serde_json) as an object, and for a line
//! marker is exactly the file's bytes there; a record made whole
//! (`build`/`build_match`) parses as an object. `CI_FUZZ_DUMP=1` prints each
//! marker's outcome (`outcome: …` on stderr), to see what a corpus reaches.
#![no_main]

use std::alloc::{GlobalAlloc, Layout, System};
use std::fs::File;
use std::io::Cursor;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::OnceLock;

use arbitrary::Arbitrary;
use ci_tools::elements::ElementReader;
use ci_tools::format::{LineKind, FORMATS};
use ci_tools::json::Index;
use ci_tools::lines::Framing;
use ci_tools::record::line_hash;
use ci_tools::reread::Reread;
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};

/// The global allocator, counting the bytes live and their peak.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(n: usize) {
    let now = LIVE.fetch_add(n, Relaxed) + n;
    PEAK.fetch_max(now, Relaxed);
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = System.alloc(l);
        if !p.is_null() {
            grew(l.size());
        }
        p
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(l);
        if !p.is_null() {
            grew(l.size());
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        System.dealloc(p, l);
        LIVE.fetch_sub(l.size(), Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = System.realloc(p, l, new);
        if !q.is_null() {
            if new >= l.size() {
                grew(new - l.size());
            } else {
                LIVE.fetch_sub(l.size() - new, Relaxed);
            }
        }
        q
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// A value in a generated record.
#[derive(Arbitrary, Debug)]
enum Val {
    Str(String),
    Int(i64),
    Float(f64),
    Bool(bool),
    /// Inserted as written: a record line that is not valid JSON.
    Raw(Damage),
    Obj(Vec<(String, Val)>),
    Arr(Vec<Val>),
}

/// Raw text that makes a line invalid (D9's cases), or arbitrary.
#[derive(Arbitrary, Debug)]
enum Damage {
    Control(u8),
    Escape,
    LeadingZero,
    TrailingComma,
    Text(Vec<u8>),
}

impl Val {
    fn write(&self, out: &mut Vec<u8>, pretty: bool) {
        match self {
            Val::Str(s) => out.extend_from_slice(&serde_json::to_vec(s).unwrap()),
            Val::Int(n) => out.extend_from_slice(n.to_string().as_bytes()),
            Val::Float(f) => out.extend_from_slice(&serde_json::to_vec(f).unwrap()),
            Val::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
            Val::Raw(d) => match d {
                Damage::Control(c) => out.extend_from_slice(&[b'"', b'a', *c % 0x20, 0x1b, b'[', b'2', b'J', b'"']),
                Damage::Escape => out.extend_from_slice(br#""\q""#),
                Damage::LeadingZero => out.extend_from_slice(b"01"),
                Damage::TrailingComma => out.extend_from_slice(b"[1,]"),
                Damage::Text(t) => out.extend_from_slice(t),
            },
            Val::Obj(members) => {
                out.push(b'{');
                for (i, (k, v)) in members.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    if pretty {
                        out.extend_from_slice(b"\n  ");
                    }
                    out.extend_from_slice(&serde_json::to_vec(k).unwrap());
                    out.extend_from_slice(if pretty { b": " } else { b":" });
                    v.write(out, pretty);
                }
                out.push(b'}');
            }
            Val::Arr(items) => {
                out.push(b'[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.extend_from_slice(if pretty { b", " } else { b"," });
                    }
                    v.write(out, pretty);
                }
                out.push(b']');
            }
        }
    }
}

/// The file's real bytes.
#[derive(Arbitrary, Debug)]
enum Content {
    Bytes(Vec<u8>),
    /// Event records: one a line, or the elements of an array (pretty:
    /// spread over lines, as a hook log writes them).
    Records {
        records: Vec<(String, Val)>,
        array: bool,
        pretty: bool,
    },
}

impl Content {
    fn bytes(&self) -> Vec<u8> {
        match self {
            Content::Bytes(b) => b.clone(),
            Content::Records { records, array, pretty } => {
                let mut out = Vec::new();
                if *array {
                    out.push(b'[');
                }
                for (i, (event, data)) in records.iter().enumerate() {
                    if i > 0 {
                        out.extend_from_slice(if *array { b",\n" } else { b"\n" });
                    }
                    out.extend_from_slice(b"{\"event\":");
                    out.extend_from_slice(&serde_json::to_vec(event).unwrap());
                    out.extend_from_slice(if *pretty { b",\n \"data\": " } else { b",\"data\":" });
                    data.write(&mut out, *pretty);
                    out.push(b'}');
                }
                if *array {
                    out.push(b']');
                }
                out.push(b'\n');
                out
            }
        }
    }
}

/// A position or a length.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum Spot {
    /// Within the real bytes.
    Data(u16),
    /// The start of the n-th line (offset) or its length (bytes); for
    /// bytes with `element`, the real bytes up to their end.
    Line(u8),
    /// After the n-th `{` (offset, minus one); for bytes, to the end.
    Brace(u8),
    Abs(u64),
    /// 2^k, or 2^k - 1.
    Pow(u8, bool),
    /// Counted back from the file's end.
    End(u16),
}

/// What the marker's path names.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum Target {
    File,
    LinkToFile,
    Fifo,
    LinkToZero,
    Dir,
    Missing,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Hash {
    Right,
    Any(u64),
}

#[derive(Arbitrary, Debug)]
struct Forged {
    target: Target,
    offset: Spot,
    bytes: Spot,
    element: bool,
    hash: Hash,
    /// An index into the writers, or (past them) an unknown name.
    writer: Option<u8>,
    /// Indices into [`FIELDS`].
    fields: Option<Vec<u8>>,
    part: Option<u8>,
    /// A ci-grep match record (else an event record).
    matched: bool,
    /// A match record's `tool` (a call's end that does not name its tool).
    tool: bool,
    data: Option<String>,
}

#[derive(Arbitrary, Debug)]
struct Input {
    content: Content,
    /// The real bytes start after a hole of 2^k bytes (k ≤ 40).
    hole_before: Option<u8>,
    /// A hole of 2^k bytes (k ≤ 40) follows them.
    hole_after: Option<u8>,
    markers: Vec<Forged>,
}

const FIELDS: [&str; 8] = ["data", "data.k", "event", "timestamp", "workspace", "data.tool_input.command", "ci", ".."];

/// The paths a marker may name (made once): the file, a link to it, a
/// FIFO, a link to `/dev/zero`, a directory and a missing path.
struct Place {
    file: PathBuf,
    link: PathBuf,
    fifo: PathBuf,
    zero: PathBuf,
    dir: PathBuf,
    missing: PathBuf,
}

fn place() -> &'static Place {
    static PLACE: OnceLock<Place> = OnceLock::new();
    PLACE.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("ci-fuzz-forged-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("dir")).expect("temp dir");
        let p = Place {
            file: dir.join("f.jsonl"),
            link: dir.join("link.jsonl"),
            fifo: dir.join("fifo.jsonl"),
            zero: dir.join("zero.jsonl"),
            dir: dir.join("dir"),
            missing: dir.join("missing.jsonl"),
        };
        std::fs::write(&p.file, b"").expect("file");
        std::os::unix::fs::symlink(&p.file, &p.link).expect("link");
        std::os::unix::fs::symlink("/dev/zero", &p.zero).expect("link to /dev/zero");
        let made = std::process::Command::new("mkfifo").arg(&p.fifo).status().expect("mkfifo");
        assert!(made.success(), "mkfifo");
        p
    })
}

/// The logical bytes of `file` in `[at, at + len)` (holes read as zeros),
/// when they are at most 1 MiB and within the file.
fn logical(file: &File, at: u64, len: u64, size: u64) -> Option<Vec<u8>> {
    if len > 1 << 20 || at.checked_add(len)? > size {
        return None;
    }
    let mut buf = vec![0; len as usize];
    file.read_exact_at(&mut buf, at).ok()?;
    Some(buf)
}

/// The hash a `--full` run would have written for the range: the bytes'
/// own, or (element) the compacted element that starts the range.
fn right_hash(file: &File, at: u64, len: u64, size: u64, element: bool) -> Option<u64> {
    let bytes = logical(file, at, len, size)?;
    if !element {
        return Some(line_hash(&bytes));
    }
    let mut rdr = ElementReader::new(Cursor::new(bytes));
    rdr.seek_element(0, 1, 1, len).ok()?;
    match rdr.next_element() {
        Ok(Some(el)) => Some(line_hash(el.bytes)),
        _ => None,
    }
}

fn starts(real: &[u8], of: u8) -> Vec<usize> {
    std::iter::once(0).chain(real.iter().enumerate().filter(|(_, b)| **b == of).map(|(i, _)| i + 1)).collect()
}

fn pick(v: &[usize], n: u8) -> usize {
    v[usize::from(n) % v.len()]
}

fuzz_target!(|input: Input| {
    let p = place();
    let real = input.content.bytes();
    let base = input.hole_before.map_or(0, |k| 1u64 << (k % 41));
    let size = base + real.len() as u64 + input.hole_after.map_or(0, |k| 1u64 << (k % 41));
    {
        let f = File::create(&p.file).expect("create");
        f.write_all_at(&real, base).expect("write");
        f.set_len(size).expect("set_len");
    }
    let file = File::open(&p.file).expect("open");
    let lines = starts(&real, b'\n');
    let braces: Vec<usize> = real.iter().enumerate().filter(|(_, b)| **b == b'{').map(|(i, _)| i).collect();
    let budget = 512 * 1024 + 8 * real.len();
    let mut reread = Reread::default();
    for m in input.markers.iter().take(4) {
        let offset = match m.offset {
            Spot::Data(x) => base + u64::from(x) % (real.len() as u64 + 1),
            Spot::Line(n) => base + pick(&lines, n) as u64,
            Spot::Brace(_) if braces.is_empty() => base,
            Spot::Brace(n) => base + braces[usize::from(n) % braces.len()] as u64,
            Spot::Abs(x) => x,
            Spot::Pow(k, less) => (1u64 << (k % 64)) - u64::from(less),
            Spot::End(x) => size.saturating_sub(u64::from(x)),
        };
        let in_real = offset.checked_sub(base).filter(|o| *o <= real.len() as u64);
        let bytes = match (m.bytes, in_real) {
            (Spot::Data(x), Some(o)) => u64::from(x) % (real.len() as u64 - o + 1),
            (Spot::Line(_), Some(o)) if m.element => real.len() as u64 - o,
            (Spot::Line(_), Some(o)) => {
                let rest = &real[o as usize..];
                rest.iter().position(|b| *b == b'\n').unwrap_or(rest.len()) as u64
            }
            (Spot::Brace(_), Some(o)) => real.len() as u64 - o,
            (Spot::Data(x), None) => u64::from(x),
            (Spot::Line(x) | Spot::Brace(x), None) => u64::from(x),
            (Spot::Abs(x), _) => x,
            (Spot::Pow(k, less), _) => (1u64 << (k % 64)) - u64::from(less),
            (Spot::End(x), _) => size.saturating_sub(offset).saturating_sub(u64::from(x)),
        };
        let hash = match m.hash {
            Hash::Right => right_hash(&file, offset, bytes, size, m.element).unwrap_or(0),
            Hash::Any(h) => h,
        };
        let path = match m.target {
            Target::File => &p.file,
            Target::LinkToFile => &p.link,
            Target::Fifo => &p.fifo,
            Target::LinkToZero => &p.zero,
            Target::Dir => &p.dir,
            Target::Missing => &p.missing,
        };
        let mut cut = json!({"offset": offset, "bytes": bytes, "xxh3": format!("{hash:016x}")});
        if m.element {
            cut["element"] = json!(true);
        }
        if let Some(w) = m.writer {
            cut["writer"] = match FORMATS.get(usize::from(w)) {
                Some(w) => json!(w.name),
                None => json!(format!("w{w}")),
            };
        }
        if let Some(fields) = &m.fields {
            cut["fields"] = fields.iter().map(|i| json!(FIELDS[usize::from(*i) % FIELDS.len()])).collect();
        }
        let mut ci = json!({"path": path.to_str().expect("a UTF-8 temp path"), "line": 1});
        if let Some(part) = m.part {
            ci["part"] = json!(part);
        }
        ci["cut"] = cut;
        let data = m.data.as_ref().map_or_else(|| json!({}), |s| json!({ "k": s }));
        let text = if m.matched {
            let mut r = json!({"event": "e:x", "match": "m", "snippet": "s", "ci": ci});
            if m.tool {
                r["tool"] = json!("Bash");
            }
            r.to_string()
        } else {
            json!({"event": "e:x", "data": data, "ci": ci}).to_string()
        };
        let mut idx = Index::new();
        let rec = idx.parse(text.as_bytes()).expect("the forged record is valid JSON");
        assert_eq!(LineKind::of(&rec), if m.matched { LineKind::Match } else { LineKind::Event });

        let before = LIVE.load(Relaxed);
        PEAK.store(before, Relaxed);
        let fetched = reread.fetch(&rec);
        let grown = PEAK.load(Relaxed).saturating_sub(before);
        assert!(
            grown <= budget,
            "fetch allocated {grown} bytes for a file of {} real bytes (offset {offset}, bytes {bytes}): {fetched:?}",
            real.len()
        );
        if std::env::var_os("CI_FUZZ_DUMP").is_some() {
            let what = match &fetched {
                Ok(Some(_)) => "fetched".to_owned(),
                Ok(None) => "not cut".to_owned(),
                Err(e) => e.split(": ").skip(1).collect::<Vec<_>>().join(": "),
            };
            eprintln!("outcome: {} {}", if m.element { "element" } else { "line" }, what);
        }
        let Ok(Some((site, h))) = fetched else { continue };
        // Only a regular file's bytes are ever read.
        assert!(matches!(m.target, Target::File | Target::LinkToFile), "{:?} read", m.target);
        assert_eq!((site.offset, site.len, site.framing == Framing::Element, h), (offset, bytes, m.element, hash));
        let line = reread.line();
        assert_eq!(line_hash(line), hash, "the line hashes as its marker says");
        assert!(
            !line.iter().any(|b| *b < 0x20 && *b != b'\t' && *b != b'\r'),
            "a raw control byte or newline: {line:?}"
        );
        assert!(
            matches!(serde_json::from_slice::<Value>(line), Ok(Value::Object(_))),
            "a fetched line is a JSON object: {:?}",
            String::from_utf8_lossy(line)
        );
        if !m.element {
            let o = (offset - base) as usize;
            assert_eq!(line, &real[o..o + bytes as usize], "the line is the file's bytes");
        }
        let built = if m.matched { reread.build_match(&rec, site) } else { reread.build(&rec) };
        if std::env::var_os("CI_FUZZ_DUMP").is_some() {
            eprintln!("outcome: built {} {:?}", if m.matched { "match" } else { "event" }, built.as_ref().map(|_| ()));
        }
        if built.is_ok() {
            let full = reread.full();
            assert!(
                matches!(serde_json::from_slice::<Value>(full), Ok(Value::Object(_))),
                "a record made whole is a JSON object: {:?}",
                String::from_utf8_lossy(full)
            );
        }
    }
});
