use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::*;

/// A peek store of one payload, counting what it is asked.
#[derive(Default)]
struct OnePeek {
    kept: Mutex<Option<Vec<u8>>>,
    gets: AtomicUsize,
    puts: AtomicUsize,
}

impl PeekCache for OnePeek {
    fn get(&self, _file: &Path, _meta: &Metadata, writer: &str, decode: &mut dyn FnMut(&[u8]) -> bool) -> bool {
        assert_eq!(writer, "w");
        self.gets.fetch_add(1, Ordering::Relaxed);
        self.kept.lock().unwrap().as_deref().is_some_and(decode)
    }

    fn put(&self, _file: &Path, _meta: &Metadata, _writer: &str, payload: Vec<u8>) {
        self.puts.fetch_add(1, Ordering::Relaxed);
        *self.kept.lock().unwrap() = Some(payload);
    }
}

#[test]
fn kept_peeks_are_read_once_and_a_payload_that_does_not_decode_is_read_again() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f");
    std::fs::write(&file, "x").unwrap();
    let meta = std::fs::metadata(&file).unwrap();
    let (store, memo) = (OnePeek::default(), Memo::new());
    let cx = Cx { peeks: Some(&store), memo: &memo, claimed: None };
    let reads = Cell::new(0);
    let peek = |cx: &Cx<'_>| {
        let read = || {
            reads.set(reads.get() + 1);
            7u8
        };
        cx.kept(&file, &meta, "w", read, |v| vec![*v], |b| (b.len() == 1).then(|| b[0]))
    };
    assert_eq!((peek(&cx), reads.get(), store.puts.load(Ordering::Relaxed)), (7, 1, 1));
    assert_eq!((peek(&cx), reads.get(), store.puts.load(Ordering::Relaxed)), (7, 1, 1));
    *store.kept.lock().unwrap() = Some(vec![]);
    assert_eq!((peek(&cx), reads.get(), store.puts.load(Ordering::Relaxed)), (7, 2, 2));
    assert_eq!(store.gets.load(Ordering::Relaxed), 3);
    // No store: the file is read every time.
    let off = Cx { peeks: None, memo: &memo, claimed: None };
    assert_eq!((peek(&off), peek(&off), reads.get()), (7, 7, 4));
}

#[test]
fn the_memo_builds_once_per_unchanged_file_and_type() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f");
    std::fs::write(&file, "x").unwrap();
    let memo = Memo::new();
    let builds = Cell::new(0);
    let build = |n: u64| {
        builds.set(builds.get() + 1);
        n
    };
    assert_eq!(*memo.get_or_build(&file, || build(1)), 1);
    assert_eq!(*memo.get_or_build(&file, || build(2)), 1);
    assert_eq!(builds.get(), 1);
    // Another type of value for the same file is kept beside it.
    assert_eq!(*memo.get_or_build(&file, || "s"), "s");
    assert_eq!(*memo.get_or_build(&file, || build(3)), 1);
    // A file whose size changed is built again; a missing one every time.
    std::fs::write(&file, "xy").unwrap();
    assert_eq!(*memo.get_or_build(&file, || build(4)), 4);
    let none = dir.path().join("none");
    assert_eq!((*memo.get_or_build(&none, || build(5)), *memo.get_or_build(&none, || build(6))), (5, 6));
    assert_eq!(builds.get(), 4);
}
