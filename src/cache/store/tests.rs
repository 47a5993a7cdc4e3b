use super::*;

fn entry(n: u64, last: Option<(u64, u64)>) -> Entry {
    Entry {
        identity: Identity { dev: 1, ino: n, indexed: 100 + n, len: 120 + n, mtime_ns: -5, head: 7, last_line: last },
        lines: n,
        untimed: 2,
        used: 1_000,
        context: 40 + n,
        payload: format!("payload {n}\n").into_bytes(),
    }
}

fn owned(e: EntryRef<'_>) -> Entry {
    Entry {
        identity: e.identity,
        lines: e.lines,
        untimed: e.untimed,
        used: e.used,
        context: e.context,
        payload: e.payload.to_vec(),
    }
}

#[test]
fn a_body_reads_back_as_written() {
    let mut m = HashMap::new();
    m.insert(PathBuf::from("/a/events.jsonl"), entry(1, Some((40, 9))));
    m.insert(PathBuf::from("/b/\u{e9}v\u{e9}nements.jsonl"), entry(2, None));
    let body = encode("q", &m);
    assert_eq!(decode(&body), Some(("q".to_owned(), m.clone())));
    // Any cut is refused, never read as fewer entries.
    for cut in 0..body.len() {
        assert_eq!(decode(&body[..cut]), None, "cut at {cut}");
    }
    let mut longer = body.clone();
    longer.push(0);
    assert_eq!(decode(&longer), None);
    assert_eq!(decode(&encode("", &HashMap::new())), Some((String::new(), HashMap::new())));
}

#[test]
fn impossible_identities_are_refused() {
    let mut m = HashMap::new();
    // The last line starts past what was indexed.
    m.insert(PathBuf::from("/a"), entry(1, Some((500, 9))));
    assert_eq!(decode(&encode("q", &m)), None);
}

#[test]
fn saving_applies_updates_over_the_file_as_it_is_now() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = CacheDir::open(&tmp.path().join("c")).unwrap();
    let (a, err) = Store::open(dir.clone(), "q.bin", Kind::Answers, "Q");
    assert!(err.is_none() && a.is_empty());
    // Another run saves first; this one's changes go over its file.
    let (b, _) = Store::open(dir.clone(), "q.bin", Kind::Answers, "Q");
    b.save(vec![Update::Put("/x".into(), entry(1, None)), Update::Put("/y".into(), entry(2, None))], 1_000, u64::MAX)
        .unwrap();
    a.save(vec![Update::Put("/z".into(), entry(3, None)), Update::Drop("/y".into())], 1_000, u64::MAX).unwrap();
    let (now, err) = Store::open(dir.clone(), "q.bin", Kind::Answers, "Q");
    assert!(err.is_none());
    assert_eq!(now.len(), 2);
    assert_eq!(now.get(Path::new("/x")).map(owned), Some(entry(1, None)));
    assert_eq!(now.get(Path::new("/z")).map(owned), Some(entry(3, None)));
    // Entries unused for STALE_DAYS go at the next write.
    let later = 1_000 + STALE_DAYS * 86_400 + 1;
    now.save(vec![Update::Put("/w".into(), Entry { used: later, ..entry(4, None) })], later, u64::MAX).unwrap();
    let (now, _) = Store::open(dir, "q.bin", Kind::Answers, "Q");
    assert_eq!(now.len(), 1);
    assert!(now.get(Path::new("/w")).is_some());
}

#[test]
fn a_damaged_file_is_reported_and_not_trusted() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = CacheDir::open(&tmp.path().join("c")).unwrap();
    // A whole file of the right kind whose body is no store.
    dir.write("q.bin", Kind::Answers, b"\xff\xff\xff\xffnot entries").unwrap();
    let (s, err) = Store::open(dir.clone(), "q.bin", Kind::Answers, "Q");
    assert!(s.is_empty());
    let msg = err.unwrap().to_string();
    assert!(msg.ends_with("q.bin: its contents are not laid out as this version writes them; rebuilding it"), "{msg}");
    // So is one of another question.
    s.save(vec![Update::Put("/x".into(), entry(1, None))], 1_000, u64::MAX).unwrap();
    let (other, err) = Store::open(dir.clone(), "q.bin", Kind::Answers, "R");
    assert!(other.is_empty() && err.is_some());
    // Saving replaces it.
    s.save(vec![Update::Put("/x".into(), entry(1, None))], 1_000, u64::MAX).unwrap();
    let (s, err) = Store::open(dir, "q.bin", Kind::Answers, "Q");
    assert!(err.is_none());
    assert_eq!(s.len(), 1);
}

/// The bytes of the file `name` of `dir`.
fn file_bytes(dir: &CacheDir, name: &str) -> Vec<u8> {
    std::fs::read(dir.file(name)).unwrap()
}

#[test]
fn every_entry_is_found_through_the_index() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = CacheDir::open(&tmp.path().join("c")).unwrap();
    let (s, _) = Store::open(dir.clone(), "q.bin", Kind::Answers, "Q");
    let puts = (0..2_000).map(|n| Update::Put(format!("/t/{n}/events.jsonl").into(), entry(n, None))).collect();
    s.save(puts, 1_000, u64::MAX).unwrap();
    let (s, err) = Store::open(dir, "q.bin", Kind::Answers, "Q");
    assert!(err.is_none());
    assert_eq!(s.len(), 2_000);
    for n in 0..2_000 {
        assert_eq!(s.get(Path::new(&format!("/t/{n}/events.jsonl"))).map(owned), Some(entry(n, None)), "{n}");
    }
    for absent in ["/t/2000/events.jsonl", "/t/0", "", "/t/1/events.jsonl/"] {
        assert_eq!(s.get(Path::new(absent)), None, "{absent}");
    }
    assert!(s.damage().is_none());
}

/// The path of entry `n`.
fn path(n: u64) -> PathBuf {
    PathBuf::from(format!("/t/{n}"))
}

/// A cache directory under `tmp` whose store `q.bin` holds `entry(n)` for
/// `path(n)`, n < 40, written whole.
fn forty(tmp: &Path) -> CacheDir {
    let dir = CacheDir::open(&tmp.join("c")).unwrap();
    let (s, _) = Store::open(dir.clone(), "q.bin", Kind::Answers, "Q");
    s.save((0..40).map(|n| Update::Put(path(n), entry(n, None))).collect(), 1_000, u64::MAX).unwrap();
    dir
}

/// A few changes go to the delta: the base stays byte for byte as it was;
/// lookups see the delta first. Once the delta outgrows a quarter of the
/// base, the base is written whole with it, and the delta goes.
#[test]
fn changes_go_to_the_delta_until_it_outgrows_a_quarter_of_the_base() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = forty(tmp.path());
    let base = file_bytes(&dir, "q.bin");
    assert!(!dir.file("q.bin.delta").exists());
    let newer = |n: u64| Entry { lines: 1_000 + n, ..entry(n, None) };
    let (s, _) = Store::open(dir.clone(), "q.bin", Kind::Answers, "Q");
    s.save(vec![Update::Put(path(3), newer(3)), Update::Put(path(99), entry(99, None))], 1_000, u64::MAX).unwrap();
    assert_eq!(file_bytes(&dir, "q.bin"), base);
    let (s, err) = Store::open(dir.clone(), "q.bin", Kind::Answers, "Q");
    assert!(err.is_none());
    assert_eq!(s.len(), 41);
    assert_eq!(s.get(&path(3)).map(owned), Some(newer(3)));
    assert_eq!(s.get(&path(99)).map(owned), Some(entry(99, None)));
    assert_eq!(s.get(&path(4)).map(owned), Some(entry(4, None)));
    // The delta keeps what it held: another small change adds to it.
    s.save(vec![Update::Put(path(5), newer(5))], 1_000, u64::MAX).unwrap();
    assert_eq!(file_bytes(&dir, "q.bin"), base);
    let (s, _) = Store::open(dir.clone(), "q.bin", Kind::Answers, "Q");
    assert_eq!((s.get(&path(3)).map(owned), s.get(&path(5)).map(owned)), (Some(newer(3)), Some(newer(5))));
    // Twenty changed: more than a quarter of the base; written whole.
    s.save((10..30).map(|n| Update::Put(path(n), newer(n))).collect(), 1_000, u64::MAX).unwrap();
    assert!(!dir.file("q.bin.delta").exists());
    let (s, _) = Store::open(dir.clone(), "q.bin", Kind::Answers, "Q");
    assert_eq!(s.len(), 41);
    for n in (0..40).chain([99]) {
        let want = if n == 3 || n == 5 || (10..30).contains(&n) { newer(n) } else { entry(n, None) };
        assert_eq!(s.get(&path(n)).map(owned), Some(want), "{n}");
    }
    // The same entries make the same file, however they got there.
    let mut all = HashMap::new();
    for n in (0..40).chain([99]) {
        all.insert(path(n), owned(s.get(&path(n)).unwrap()));
    }
    let body = file_bytes(&dir, "q.bin");
    assert_eq!(&body[crate::cache::file::HEADER..], &encode("Q", &all)[..]);
}

/// A removal of an entry the base holds, or an entry unused for
/// STALE_DAYS in it, writes the base whole; a note of use of a base entry
/// goes to the delta.
#[test]
fn removals_and_stale_entries_write_the_base_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = forty(tmp.path());
    let (s, _) = Store::open(dir.clone(), "q.bin", Kind::Answers, "Q");
    s.save(vec![Update::Touch(path(7))], 5_000, u64::MAX).unwrap();
    assert!(dir.file("q.bin.delta").exists());
    let (s, _) = Store::open(dir.clone(), "q.bin", Kind::Answers, "Q");
    assert_eq!(s.get(&path(7)).map(|e| e.used), Some(5_000));
    s.save(vec![Update::Drop(path(8))], 5_000, u64::MAX).unwrap();
    assert!(!dir.file("q.bin.delta").exists());
    let (s, _) = Store::open(dir.clone(), "q.bin", Kind::Answers, "Q");
    assert_eq!((s.len(), s.get(&path(8)), s.get(&path(7)).map(|e| e.used)), (39, None, Some(5_000)));
    // Thirty days after the others' last use, only the entry used since stays.
    let later = 5_000 + STALE_DAYS * 86_400;
    s.save(vec![Update::Touch(path(7))], later, u64::MAX).unwrap();
    let (s, _) = Store::open(dir.clone(), "q.bin", Kind::Answers, "Q");
    assert_eq!((s.len(), s.get(&path(7)).map(|e| e.used)), (1, Some(later)));
    assert!(!dir.file("q.bin.delta").exists());
}

/// An entry whose bytes were changed on disk is not trusted: it is absent,
/// the others are still found, the damage is reported (naming the file), and
/// the next save writes the file again without it.
#[test]
fn a_damaged_entry_is_absent_reported_and_dropped() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = CacheDir::open(&tmp.path().join("c")).unwrap();
    let (s, _) = Store::open(dir.clone(), "q.bin", Kind::Answers, "Q");
    s.save(vec![Update::Put("/a".into(), entry(1, None)), Update::Put("/b".into(), entry(2, None))], 1_000, u64::MAX)
        .unwrap();
    let mut bytes = file_bytes(&dir, "q.bin");
    let at = bytes.windows(9).position(|w| w == b"payload 1").unwrap();
    bytes[at] ^= 0x20;
    std::fs::write(dir.file("q.bin"), &bytes).unwrap();
    let (s, err) = Store::open(dir.clone(), "q.bin", Kind::Answers, "Q");
    assert!(err.is_none(), "only the head is checked on opening");
    assert!(s.damage().is_none());
    assert_eq!(s.get(Path::new("/a")), None);
    assert_eq!(s.get(Path::new("/b")).map(owned), Some(entry(2, None)));
    let report = s.damage().unwrap().to_string();
    assert_eq!(report, format!("{}: its checksum does not match; rebuilding it", dir.file("q.bin").display()));
    s.save(vec![], 1_000, u64::MAX).unwrap();
    let (s, err) = Store::open(dir, "q.bin", Kind::Answers, "Q");
    assert!(err.is_none());
    assert_eq!((s.len(), s.get(Path::new("/a"))), (1, None));
    assert!(s.damage().is_none());
}

/// A damaged head (the index) refuses the whole file when it is opened.
#[test]
fn a_damaged_index_refuses_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = CacheDir::open(&tmp.path().join("c")).unwrap();
    let (s, _) = Store::open(dir.clone(), "q.bin", Kind::Answers, "Q");
    s.save(vec![Update::Put("/a".into(), entry(1, None))], 1_000, u64::MAX).unwrap();
    let mut bytes = file_bytes(&dir, "q.bin");
    // The first index record's offset.
    let record = crate::cache::file::HEADER + 4 + 1 + 8 + 4;
    bytes[record + 8] ^= 1;
    std::fs::write(dir.file("q.bin"), &bytes).unwrap();
    let (s, err) = Store::open(dir, "q.bin", Kind::Answers, "Q");
    assert!(s.is_empty());
    assert!(err.unwrap().to_string().ends_with("q.bin: its checksum does not match; rebuilding it"));
}

/// Runs saving at once (a few changes each, to the delta; every fifth
/// round many, folding the delta into the base) while another run reads:
/// every store a reader opens is whole, every entry it finds is one a
/// writer wrote, nothing is ever damaged, and no capture loses its entry (a
/// change may be lost to a concurrent save: it is read again next time).
#[test]
fn saves_at_once_never_leave_a_damaged_or_invented_entry() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = forty(tmp.path());
    let version = |n: u64, v: u64| Entry { lines: 1_000 * v + n, ..entry(n, None) };
    let valid = |n: u64, e: &Entry| match e.lines / 1_000 {
        0 => *e == entry(n, None),
        v => *e == version(n, v),
    };
    let check = |dir: &CacheDir| {
        let (s, err) = Store::open(dir.clone(), "q.bin", Kind::Answers, "Q");
        assert!(err.is_none(), "{err:?}");
        for n in 0..40 {
            let e = s.get(&path(n)).map(owned);
            assert!(e.as_ref().is_some_and(|e| valid(n, e)), "{n}: {e:?}");
        }
        assert!(s.damage().is_none());
    };
    std::thread::scope(|scope| {
        for w in 0..3u64 {
            let dir = &dir;
            scope.spawn(move || {
                for round in 1..=15u64 {
                    let (s, err) = Store::open(dir.clone(), "q.bin", Kind::Answers, "Q");
                    assert!(err.is_none(), "{err:?}");
                    let count = if round % 5 == 0 { 13 } else { 2 };
                    let changes = (0..count).map(|k| {
                        let n = w + 3 * ((round + k) % 13);
                        Update::Put(path(n), version(n, round))
                    });
                    s.save(changes.collect(), 1_000, u64::MAX).unwrap();
                }
            });
        }
        let (dir, check) = (&dir, &check);
        scope.spawn(move || {
            for _ in 0..60 {
                check(dir);
            }
        });
    });
    check(&dir);
}

/// A file refused on opening (here a damaged delta) is reported then, and
/// replaced by the run's save even when the run changes nothing, so the
/// next run does not report it again.
#[test]
fn a_refused_file_is_replaced_by_the_next_save() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = forty(tmp.path());
    dir.write("q.bin.delta", Kind::Answers, b"not a store").unwrap();
    let (s, err) = Store::open(dir.clone(), "q.bin", Kind::Answers, "Q");
    let msg = err.unwrap().to_string();
    assert!(
        msg.ends_with("q.bin.delta: its contents are not laid out as this version writes them; rebuilding it"),
        "{msg}"
    );
    assert_eq!(s.get(&path(3)).map(owned), Some(entry(3, None)), "the base is still used");
    s.save(vec![], 1_000, u64::MAX).unwrap();
    assert!(!dir.file("q.bin.delta").exists());
    let (s, err) = Store::open(dir, "q.bin", Kind::Answers, "Q");
    assert!(err.is_none(), "{err:?}");
    assert_eq!(s.len(), 40);
}

/// The names in `dir`, hidden ones (runs' temporary files) included, sorted.
fn names(dir: &CacheDir) -> Vec<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    names
}

/// A cache file of another question, `bytes` long, last used `age` ago.
fn other_file(dir: &CacheDir, name: &str, bytes: usize, age: std::time::Duration) {
    dir.write(name, Kind::Answers, &vec![0; bytes]).unwrap();
    let f = std::fs::File::options().append(true).open(dir.file(name)).unwrap();
    f.set_modified(std::time::SystemTime::now() - age).unwrap();
}

/// Issue 38, D10: a cache whose file system fills before `CI_CACHE_MAX_BYTES`
/// is reached makes room when a save finds it full: the least recently used
/// files of other questions are removed until the file's size is freed (its
/// own question's files stay, however old) and the file is written again,
/// once; a failed write leaves no temporary file. A save that returns `Ok`
/// is a run without the warning `cache: could not write it: No space left
/// on device` ([`Store::save_for_run`]). The full file system is injected
/// ([`crate::cache::file::FAIL_FULL`]: this thread's next writes fail with
/// `ENOSPC` after writing their bytes), since filling a real one would need
/// a mount.
#[test]
fn a_full_file_system_removes_the_least_recently_used_files_and_writes_again() {
    use crate::cache::file::FAIL_FULL;
    let hour = std::time::Duration::from_secs(3_600);
    let tmp = tempfile::tempdir().unwrap();
    let dir = forty(tmp.path());
    // The question's own file is the least recently used of all.
    std::fs::File::options()
        .append(true)
        .open(dir.file("q.bin"))
        .unwrap()
        .set_modified(std::time::SystemTime::now() - 3 * hour)
        .unwrap();
    other_file(&dir, "old.bin", 4_000, 2 * hour);
    other_file(&dir, "older.bin", 100, 2 * hour + hour / 2);
    other_file(&dir, "new.bin", 4_000, hour);
    let (s, _) = Store::open(dir.clone(), "q.bin", Kind::Answers, "Q");

    // Once full: the delta is written after "older" (too small to make
    // room) and "old" are removed.
    FAIL_FULL.set(1);
    s.save(vec![Update::Put(path(99), entry(99, None))], 1_000, u64::MAX).unwrap();
    assert_eq!(names(&dir), ["new.bin", "q.bin", "q.bin.delta"]);
    let (s, _) = Store::open(dir.clone(), "q.bin", Kind::Answers, "Q");
    assert_eq!((s.len(), s.get(&path(99)).map(owned)), (41, Some(entry(99, None))));

    // Full again after making room: the error, once retried, and no
    // temporary file left; the files as they were, less the one removed.
    FAIL_FULL.set(2);
    let e = s.save(vec![Update::Put(path(98), entry(98, None))], 1_000, u64::MAX).unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::StorageFull);
    assert_eq!(FAIL_FULL.get(), 0, "written twice");
    assert_eq!(names(&dir), ["q.bin", "q.bin.delta"]);
    let (s, _) = Store::open(dir.clone(), "q.bin", Kind::Answers, "Q");
    assert_eq!((s.len(), s.get(&path(98))), (41, None));

    // Nothing but the question's own files: not written again.
    FAIL_FULL.set(2);
    let e = s.save(vec![Update::Put(path(98), entry(98, None))], 1_000, u64::MAX).unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::StorageFull);
    assert_eq!(FAIL_FULL.replace(0), 1, "written once");
    assert_eq!(names(&dir), ["q.bin", "q.bin.delta"]);

    // A question's first file, written whole, makes room the same way
    // (here the other question's file is not the least recently used).
    other_file(&dir, "old.bin", 4_000, 4 * hour);
    let (r, _) = Store::open(dir.clone(), "r.bin", Kind::Answers, "R");
    FAIL_FULL.set(1);
    r.save(vec![Update::Put(path(1), entry(1, None))], 1_000, u64::MAX).unwrap();
    assert_eq!(names(&dir), ["q.bin", "q.bin.delta", "r.bin"]);
}

/// Each file's head says the captures' bytes its question covers (the
/// lengths of its entries' files), a delta's with its base's: what the
/// cache's size bound is a share of (issue 33).
#[test]
fn a_head_holds_the_captures_bytes_covered() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = forty(tmp.path());
    let covers = |name: &str| summary(&dir.map(name, Kind::Answers).unwrap().unwrap()).unwrap().covers;
    let len = |n: u64| entry(n, None).identity.len;
    let all: u64 = (0..40).map(len).sum();
    assert_eq!(covers("q.bin"), all);
    // A capture that grew by 1,000 bytes and a new one, in the delta.
    let grown = Entry { identity: Identity { len: len(3) + 1_000, ..entry(3, None).identity }, ..entry(3, None) };
    let (s, _) = Store::open(dir.clone(), "q.bin", Kind::Answers, "Q");
    s.save(vec![Update::Put(path(3), grown), Update::Put(path(99), entry(99, None))], 1_000, u64::MAX).unwrap();
    assert!(dir.file("q.bin.delta").exists());
    assert_eq!(covers("q.bin"), all);
    assert_eq!(covers("q.bin.delta"), all + 1_000 + len(99));
    // Written whole without a capture: the same sum, less it.
    let (s, _) = Store::open(dir.clone(), "q.bin", Kind::Answers, "Q");
    s.save(vec![Update::Drop(path(4))], 1_000, u64::MAX).unwrap();
    assert!(!dir.file("q.bin.delta").exists());
    assert_eq!(covers("q.bin"), all + 1_000 + len(99) - len(4));
}
