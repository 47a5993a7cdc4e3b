use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;
use std::time::{Duration, SystemTime};

use proptest::prelude::*;

use super::*;

/// The identity of the file at `path` indexed up to its last newline.
fn index(path: &Path) -> Identity {
    let bytes = std::fs::read(path).unwrap();
    let indexed = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let last = bytes[..indexed.saturating_sub(1)].iter().rposition(|&b| b == b'\n').map(|i| i as u64 + 1);
    let last = if indexed == 0 { None } else { Some(last.unwrap_or(0)) };
    Identity::of(&File::open(path).unwrap(), indexed as u64, last).unwrap()
}

fn check(path: &Path, id: &Identity) -> Fresh {
    id.check(&File::open(path).unwrap()).unwrap()
}

fn append(path: &Path, bytes: &[u8]) {
    OpenOptions::new().append(true).open(path).unwrap().write_all(bytes).unwrap();
}

/// Sets the modification time `secs` seconds after a fixed instant (tests
/// do not depend on the file system's timestamp resolution).
fn set_mtime(path: &Path, secs: u64) {
    let t = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000 + secs);
    OpenOptions::new().write(true).open(path).unwrap().set_modified(t).unwrap();
}

#[test]
fn each_change_gets_its_verdict() {
    let t = tempfile::tempdir().unwrap();
    let p = t.path().join("events.jsonl");
    std::fs::write(&p, "a\nbb\n").unwrap();
    let id = index(&p);
    assert_eq!((id.indexed, id.last_line.map(|l| l.0)), (5, Some(2)));
    assert_eq!(check(&p, &id), Fresh::Current);

    append(&p, b"ccc\n");
    assert_eq!(check(&p, &id), Fresh::Grew { from: 5 });
    let id = index(&p);
    assert_eq!(check(&p, &id), Fresh::Current);

    // A torn tail is not indexed: it is read again, from the end of the last line.
    append(&p, b"dd");
    let id = index(&p);
    assert_eq!(id.indexed, 9);
    assert_eq!(check(&p, &id), Fresh::Grew { from: 9 });
    append(&p, b"\n");
    assert_eq!(check(&p, &id), Fresh::Grew { from: 9 });

    let id = index(&p);
    std::fs::OpenOptions::new().write(true).open(&p).unwrap().set_len(4).unwrap();
    assert_eq!(check(&p, &id), Fresh::Rebuild(Why::Shrank));

    std::fs::write(&p, "a\nbb\n").unwrap();
    set_mtime(&p, 1);
    let id = index(&p);
    std::fs::write(&p, "x\nbb\n").unwrap();
    assert_eq!(check(&p, &id), Fresh::Rebuild(Why::Rewritten), "the first bytes");
    std::fs::write(&p, "a\nbx\nmore\n").unwrap();
    assert_eq!(check(&p, &id), Fresh::Rebuild(Why::Rewritten), "the last indexed line");
    std::fs::write(&p, "a\nbb\n").unwrap();
    set_mtime(&p, 1);
    assert_eq!(check(&p, &id), Fresh::Current);
    set_mtime(&p, 2);
    assert_eq!(check(&p, &id), Fresh::Rebuild(Why::Touched));

    // Rotated: the same bytes under the same name, another inode.
    let id = index(&p);
    std::fs::rename(&p, t.path().join("events.jsonl.1")).unwrap();
    std::fs::write(&p, "a\nbb\n").unwrap();
    assert_eq!(check(&p, &id), Fresh::Rebuild(Why::Replaced));

    // An empty file, then its first line.
    std::fs::write(&p, "").unwrap();
    let id = index(&p);
    assert_eq!((id.indexed, id.last_line), (0, None));
    append(&p, b"{}\n");
    assert_eq!(check(&p, &id), Fresh::Grew { from: 0 });
}

#[derive(Debug, Clone)]
enum Op {
    /// What a logger does: bytes at the end, at least one (some without
    /// their newline yet; a write of nothing that moves the time is a touch).
    Append(Vec<u8>),
    /// Cut to a fraction of the length.
    Truncate(u8),
    /// Bytes changed in place at a fraction of the length, the size kept
    /// (the modification time moves, as any write moves it).
    Rewrite(u8, u8),
    /// Renamed away, the same bytes written anew under the name.
    Rotate,
}

fn op() -> impl Strategy<Value = Op> {
    let bytes = proptest::collection::vec(prop_oneof![Just(b'a'), Just(b'b'), Just(b'\n')], 1..12);
    prop_oneof![
        4 => bytes.prop_map(Op::Append),
        1 => any::<u8>().prop_map(Op::Truncate),
        1 => (any::<u8>(), 1u8..=255).prop_map(|(at, x)| Op::Rewrite(at, x)),
        1 => Just(Op::Rotate),
    ]
}

proptest! {
    /// Checked after every change, the verdict is always safe: `Current` and
    /// `Grew` only when the indexed bytes are still the file's first bytes;
    /// an append never makes an index be built again.
    #[test]
    fn verdicts_are_safe_and_appends_are_incremental(ops in proptest::collection::vec(op(), 1..25)) {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("events.jsonl");
        std::fs::write(&p, "").unwrap();
        set_mtime(&p, 0);
        let mut id = index(&p);
        let mut indexed = Vec::new();
        for (tick, op) in ops.iter().enumerate() {
            let tick = tick as u64 + 1;
            match op {
                Op::Append(b) => append(&p, b),
                Op::Truncate(f) => {
                    let len = std::fs::metadata(&p).unwrap().len();
                    OpenOptions::new().write(true).open(&p).unwrap().set_len(len * u64::from(*f) / 256).unwrap();
                }
                Op::Rewrite(at, x) => {
                    let mut bytes = std::fs::read(&p).unwrap();
                    if !bytes.is_empty() {
                        let i = bytes.len() * usize::from(*at) / 256;
                        bytes[i] ^= x;
                        std::fs::write(&p, &bytes).unwrap();
                    }
                }
                Op::Rotate => {
                    let bytes = std::fs::read(&p).unwrap();
                    std::fs::rename(&p, t.path().join("old")).unwrap();
                    std::fs::write(&p, &bytes).unwrap();
                }
            }
            set_mtime(&p, tick);
            let now = std::fs::read(&p).unwrap();
            match check(&p, &id) {
                Fresh::Current => prop_assert_eq!(&now, &indexed),
                Fresh::Grew { from } => {
                    prop_assert_eq!(from, id.indexed);
                    prop_assert!(now.starts_with(&indexed), "{:?} grew from {:?}", now, indexed);
                }
                Fresh::Rebuild(why) => {
                    prop_assert!(!matches!(op, Op::Append(_)), "an append gave {:?}", why);
                }
            }
            id = index(&p);
            indexed = now[..id.indexed as usize].to_vec();
        }
    }
}
