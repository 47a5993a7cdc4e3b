use super::*;
use crate::aggregate::query::QuerySpec;
use crate::cache::{CacheDir, Kind};

/// Issue 38: a kept state its reader refuses (a min above its max, whole by
/// its checksum) is not an answer: the entry is reported as damaged when
/// the run saves, as a damaged cache file is, and the capture read again.
#[test]
fn a_kept_state_the_reader_refuses_is_a_damaged_entry() {
    let spec = QuerySpec {
        preset: "group".into(),
        by: vec!["event".into()],
        measures: vec![("data.v".into(), vec!["min".into(), "max".into()])],
        tz: "UTC".into(),
        cost: "auto".into(),
        pricing: String::new(),
    };
    let q = Query::from_spec(spec, crate::time::TimeZone::UTC).unwrap();
    let mut m = crate::aggregate::partial::Merger::new();
    let header = crate::aggregate::partial::encode(&q, Answer::new(&q), (0, 0)).remove(0);
    m.line(&header.to_bytes().unwrap()).unwrap();
    m.line(br#"{"kind":"group","key":["x"],"count":2,"stats":[{"n":2,"sum":4,"min":1,"max":3}]}"#).unwrap();
    let Some((_, Answer::Groups(mut g))) = m.finish() else { panic!("no state") };
    // An entry's payload: its span, then the state.
    let spanned = |state: Vec<u8>| {
        let mut out = Vec::new();
        Span::start().write(&mut out);
        out.extend(state);
        out
    };
    let good = spanned(bin::encode(&g).unwrap());
    for group in g.map.values_mut() {
        let s = &mut group.stats[0];
        (s.min, s.max) = (s.max, s.min);
    }
    let forged = spanned(bin::encode(&g).unwrap());

    let tmp = tempfile::tempdir().unwrap();
    let dir = CacheDir::open(&tmp.path().join("c")).unwrap();
    let entry = |payload: &[u8]| Entry {
        identity: Identity { dev: 1, ino: 2, indexed: 10, len: 10, mtime_ns: 0, head: 0, last_line: None },
        lines: 1,
        untimed: 0,
        used: 1_000,
        context: 0,
        payload: payload.to_vec(),
    };
    let (store, _) = Store::open(dir.clone(), "q.bin", Kind::Answers, "Q");
    let updates = vec![Update::Put("/good".into(), entry(&good)), Update::Put("/forged".into(), entry(&forged))];
    store.save(updates, 1_000, u64::MAX).unwrap();
    let (store, err) = Store::open(dir, "q.bin", Kind::Answers, "Q");
    assert!(err.is_none());
    let cache = Cache {
        store,
        split: Default::default(),
        resumable: true,
        cwd: PathBuf::new(),
        now: 1_000,
        databases: Default::default(),
        window: Default::default(),
    };
    let payload = |p: &str| cache.store.get(Path::new(p)).unwrap().payload.to_vec();
    assert!(cache.decode(&q, Path::new("/good"), &payload("/good")).is_some());
    assert!(cache.store.damage().is_none());
    assert!(cache.decode(&q, Path::new("/forged"), &payload("/forged")).is_none());
    let msg = cache.store.damage().map(|e| e.to_string()).unwrap_or_default();
    assert!(msg.contains("q.bin: its contents are not laid out as this version writes them"), "{msg}");
}
