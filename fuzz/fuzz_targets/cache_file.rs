//! `cache::file::check` over arbitrary bytes, as a cache file read from disk
//! (the cache directory is the user's, but a file in it may be torn by a
//! crash, damaged, or written by another version), and `CacheDir::map`, the
//! way every cache file is opened, on those bytes as a file and on what may
//! stand in a file's place (issue 38, D7): a symbolic link to the file, a
//! FIFO, a link to `/dev/zero`, a directory.
//!
//! Property: nothing panics or blocks; a file accepted as one kind is refused
//! as the other; an accepted body is the file less its header, its checked
//! part is within it, and `CacheDir::write_parts` of that body (checked
//! part, then the rest) gives back exactly these bytes. `map` of the bytes
//! as a regular file answers what `check` answers (the same body and
//! checked length, or the same damage); `map` of anything that is not a
//! regular file, a link to one included, is `NotRegular`, never read.
#![no_main]

use std::sync::OnceLock;

use ci_tools::cache::{file, CacheDir, Damage, Kind, ReadError};
use libfuzzer_sys::fuzz_target;

/// The private cache directory, with the special files in it (made once):
/// `link` (to `f`, the fuzzed bytes), `fifo`, `zero` (to `/dev/zero`), `dir`.
fn cache_dir() -> &'static CacheDir {
    static DIR: OnceLock<CacheDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let path = std::env::temp_dir().join(format!("ci-fuzz-cache-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        let dir = CacheDir::open(&path).expect("a private temporary cache directory");
        std::fs::write(dir.file("f"), b"").expect("write");
        std::os::unix::fs::symlink(dir.file("f"), dir.file("link")).expect("link");
        std::os::unix::fs::symlink("/dev/zero", dir.file("zero")).expect("link to /dev/zero");
        std::fs::create_dir(dir.file("dir")).expect("dir");
        let made = std::process::Command::new("mkfifo").arg(dir.file("fifo")).status().expect("mkfifo");
        assert!(made.success(), "mkfifo");
        dir
    })
}

fuzz_target!(|data: &[u8]| {
    let dir = cache_dir();
    std::fs::write(dir.file("f"), data).expect("write");
    for (kind, other) in [(Kind::Lines, Kind::Answers), (Kind::Answers, Kind::Lines)] {
        let checked = file::check(kind, data);
        match (dir.map("f", kind), &checked) {
            (Ok(Some(m)), Ok((body, n))) => assert_eq!((m.body(), m.checked()), (*body, *n)),
            (Err(ReadError::Damaged(_, d)), Err(e)) => assert_eq!(&d, e),
            (mapped, _) => panic!("map answers {mapped:?}, check {checked:?}"),
        }
        for special in ["link", "fifo", "zero", "dir"] {
            match dir.map(special, kind) {
                Err(ReadError::Damaged(_, Damage::NotRegular)) => {}
                other => panic!("{special}: {other:?}"),
            }
        }
        let Ok((body, checked)) = checked else { continue };
        assert_eq!(body.len() + file::HEADER, data.len());
        assert!(checked <= body.len());
        assert!(file::check(other, data).is_err());
        dir.write_parts("x", kind, &body[..checked], &[&body[checked..]]).expect("write");
        assert_eq!(std::fs::read(dir.file("x")).expect("read back"), data);
    }
});
