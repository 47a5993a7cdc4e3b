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
