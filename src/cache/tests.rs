use std::ffi::OsString;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;

use proptest::prelude::*;

use super::file::{check, HEADER, VERSION};
use super::*;

fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
    move |k| vars.iter().find(|(n, _)| *n == k).map(|(_, v)| OsString::from(v))
}

/// The body of the cache file `name`, as [`CacheDir::map`] finds it.
fn read(dir: &CacheDir, name: &str, kind: Kind) -> Result<Option<Vec<u8>>, file::ReadError> {
    Ok(dir.map(name, kind)?.map(|m| m.body().to_vec()))
}

fn mode(p: &Path) -> u32 {
    std::fs::symlink_metadata(p).unwrap().mode() & 0o777
}

fn chmod(p: &Path, m: u32) {
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(m)).unwrap();
}

#[test]
fn location_is_xdg_cache_home_then_home() {
    let at = |vars: &[(&str, &str)]| dir::location(env(vars));
    assert_eq!(at(&[("XDG_CACHE_HOME", "/x"), ("HOME", "/h")]), Some("/x/ci-tools".into()));
    // A relative XDG_CACHE_HOME is ignored, as the XDG rule says.
    assert_eq!(at(&[("XDG_CACHE_HOME", "rel"), ("HOME", "/h")]), Some("/h/.cache/ci-tools".into()));
    assert_eq!(at(&[("HOME", "/h")]), Some("/h/.cache/ci-tools".into()));
    assert_eq!(at(&[("HOME", "")]), None);
    assert_eq!(at(&[]), None);
}

#[test]
fn a_missing_directory_is_created_private() {
    let t = tempfile::tempdir().unwrap();
    let p = t.path().join("a/b/ci-tools");
    let dir = CacheDir::open(&p).unwrap();
    assert_eq!(dir.path(), p);
    assert_eq!(mode(&p), 0o700);
    // Opened again as it is.
    assert_eq!(CacheDir::open(&p).unwrap(), dir);
}

#[test]
fn unsafe_directories_are_refused() {
    let t = tempfile::tempdir().unwrap();
    let good = t.path().join("good");
    CacheDir::open(&good).unwrap();

    let link = t.path().join("link");
    std::os::unix::fs::symlink(&good, &link).unwrap();
    assert_eq!(CacheDir::open(&link), Err(Refusal::Symlink(link.clone())));

    let file = t.path().join("file");
    std::fs::write(&file, "").unwrap();
    assert_eq!(CacheDir::open(&file), Err(Refusal::NotADirectory(file.clone())));

    for m in [0o770, 0o707, 0o777] {
        let d = t.path().join(format!("mode{m:o}"));
        std::fs::create_dir(&d).unwrap();
        chmod(&d, m);
        let refused = CacheDir::open(&d).unwrap_err();
        assert_eq!(refused, Refusal::Writable(d.clone(), m));
        assert_eq!(
            refused.to_string(),
            format!(
                "cache directory {} is writable by others (mode {m:o}); running without the cache (chmod 700 it to use it)",
                d.display()
            )
        );
    }

    // Owned by another user: as root, a directory given to nobody; as any
    // other user, `/` (root's).
    let other = if rustix::process::geteuid().is_root() {
        let d = t.path().join("nobody");
        std::fs::create_dir(&d).unwrap();
        chmod(&d, 0o700);
        std::os::unix::fs::chown(&d, Some(65534), Some(65534)).unwrap();
        d
    } else {
        Path::new("/").to_path_buf()
    };
    assert_eq!(CacheDir::open(&other), Err(Refusal::Owner(other.clone())));
}

#[test]
fn a_directory_that_cannot_be_created_is_refused() {
    let t = tempfile::tempdir().unwrap();
    let file = t.path().join("file");
    std::fs::write(&file, "").unwrap();
    let under = file.join("ci-tools");
    match CacheDir::open(&under) {
        Err(refused @ Refusal::Create(..)) => assert_eq!(
            refused.to_string(),
            format!(
                "cannot create the cache directory {}: File exists (os error 17); running without the cache",
                under.display()
            )
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn files_round_trip_are_private_and_leave_no_temporary_file() {
    let t = tempfile::tempdir().unwrap();
    let dir = CacheDir::open(&t.path().join("c")).unwrap();
    assert_eq!(read(&dir, "x", Kind::Lines).unwrap(), None);
    dir.write("x", Kind::Lines, b"first").unwrap();
    assert_eq!(read(&dir, "x", Kind::Lines).unwrap().as_deref(), Some(&b"first"[..]));
    dir.write("x", Kind::Lines, b"").unwrap();
    assert_eq!(read(&dir, "x", Kind::Lines).unwrap().as_deref(), Some(&b""[..]));
    assert_eq!(mode(&dir.file("x")), 0o600);
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names, ["x"]);
}

#[test]
fn invalid_names_are_refused() {
    let t = tempfile::tempdir().unwrap();
    let dir = CacheDir::open(&t.path().join("c")).unwrap();
    for name in ["", ".hidden", "a/b", "../x", "a\0b"] {
        let e = dir.write(name, Kind::Lines, b"x").unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput, "{name:?}");
    }
}

#[test]
fn damaged_files_are_refused_with_their_reason() {
    let t = tempfile::tempdir().unwrap();
    let dir = CacheDir::open(&t.path().join("c")).unwrap();
    let path = dir.file("x");
    let written = |body: &[u8]| {
        dir.write("x", Kind::Answers, body).unwrap();
        std::fs::read(&path).unwrap()
    };
    let damage = |bytes: &[u8], kind| {
        std::fs::write(&path, bytes).unwrap();
        match read(&dir, "x", kind) {
            Err(file::ReadError::Damaged(p, d)) => {
                assert_eq!(p, path);
                d
            }
            other => panic!("{other:?}"),
        }
    };
    let good = written(b"0123456789");
    assert_eq!(damage(&good[..10], Kind::Answers), Damage::Short(10));
    assert_eq!(damage(b"", Kind::Answers), Damage::Short(0));
    assert_eq!(damage(b"{\"event\":\"x\"}", Kind::Answers), Damage::Foreign);
    assert_eq!(damage(&good[..good.len() - 1], Kind::Answers), Damage::Length { expected: 10, found: 9 });
    let mut longer = good.clone();
    longer.push(b'!');
    assert_eq!(damage(&longer, Kind::Answers), Damage::Length { expected: 10, found: 11 });
    let mut flipped = good.clone();
    flipped[HEADER + 3] ^= 1;
    assert_eq!(damage(&flipped, Kind::Answers), Damage::Checksum);
    assert_eq!(damage(&good, Kind::Lines), Damage::OtherKind);
    let mut other_version = good.clone();
    other_version[12..16].copy_from_slice(&(VERSION + 1).to_le_bytes());
    assert_eq!(damage(&other_version, Kind::Answers), Damage::OtherVersion(VERSION + 1));
    let mut foreign = good;
    foreign[0] = b'X';
    let d = damage(&foreign, Kind::Answers);
    assert_eq!(d, Damage::Foreign);
    let report = file::ReadError::Damaged(path.clone(), d).to_string();
    assert_eq!(report, format!("{}: not a ci-tools cache file; rebuilding it", path.display()));
}

/// A file written in parts is checked over its first part only (a store's
/// head; its entries carry their own checksums): a change there is refused,
/// one after it is not this layer's to see, and any cut is refused.
#[test]
fn a_file_in_parts_is_checked_over_its_first_part() {
    let t = tempfile::tempdir().unwrap();
    let dir = CacheDir::open(&t.path().join("c")).unwrap();
    dir.write_parts("x", Kind::Answers, b"head", &[b"one", b"", b"two"]).unwrap();
    let bytes = std::fs::read(dir.file("x")).unwrap();
    assert_eq!(check(Kind::Answers, &bytes), Ok((&b"headonetwo"[..], 4)));
    let mapped = dir.map("x", Kind::Answers).unwrap().unwrap();
    assert_eq!((mapped.body(), mapped.checked()), (&b"headonetwo"[..], 4));
    for i in 0..bytes.len() {
        let mut changed = bytes.clone();
        changed[i] ^= 0x20;
        assert_eq!(check(Kind::Answers, &changed).is_err(), i < HEADER + 4, "byte {i}");
        assert!(check(Kind::Answers, &bytes[..i]).is_err(), "cut at {i}");
    }
    // A checked length past the body is damage, not a panic.
    let mut long = bytes.clone();
    long[24..32].copy_from_slice(&11u64.to_le_bytes());
    assert_eq!(check(Kind::Answers, &long), Err(Damage::Corrupt));
}

/// Two runs writing the same file at once (two cron jobs): every read sees a
/// whole file one of them wrote, never a mix; no temporary file stays.
#[test]
fn concurrent_writers_never_leave_a_torn_file() {
    let t = tempfile::tempdir().unwrap();
    let dir = CacheDir::open(&t.path().join("c")).unwrap();
    let body = |w: usize, i: usize| vec![b'a' + w as u8; 1 + (w * 7919 + i * 104_729) % 200_000];
    std::thread::scope(|s| {
        for w in 0..3 {
            let dir = &dir;
            s.spawn(move || {
                for i in 0..40 {
                    dir.write("shared", Kind::Lines, &body(w, i)).unwrap();
                }
            });
        }
        let dir = &dir;
        s.spawn(move || {
            for _ in 0..200 {
                if let Some(b) = read(dir, "shared", Kind::Lines).unwrap() {
                    let w = usize::from(b[0] - b'a');
                    assert!(w < 3 && b.iter().all(|&c| c == b[0]));
                    assert!((0..40).any(|i| body(w, i).len() == b.len()));
                }
            }
        });
    });
    assert!(read(&dir, "shared", Kind::Lines).unwrap().is_some());
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names, ["shared"]);
}

proptest! {
    /// Any bytes: `check` never panics, and accepts only a whole file.
    #[test]
    fn check_accepts_only_whole_files(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        if let Ok((body, checked)) = check(Kind::Lines, &bytes) {
            prop_assert_eq!(body.len() + HEADER, bytes.len());
            prop_assert!(checked <= body.len());
        }
    }

    /// A written file with any one byte changed, or cut anywhere, is refused.
    #[test]
    fn any_changed_byte_or_cut_is_refused(
        body in proptest::collection::vec(any::<u8>(), 0..300),
        at in any::<prop::sample::Index>(),
        flip in 1u8..=255,
    ) {
        let t = tempfile::tempdir().unwrap();
        let dir = CacheDir::open(&t.path().join("c")).unwrap();
        dir.write("x", Kind::Lines, &body).unwrap();
        let bytes = std::fs::read(dir.file("x")).unwrap();
        prop_assert_eq!(check(Kind::Lines, &bytes), Ok((&body[..], body.len())));
        let i = at.index(bytes.len());
        let mut changed = bytes.clone();
        changed[i] ^= flip;
        prop_assert!(check(Kind::Lines, &changed).is_err());
        prop_assert!(check(Kind::Lines, &bytes[..i]).is_err());
    }
}
