//! `cache::file::check` over arbitrary bytes, as a cache file read from disk
//! (the cache directory is the user's, but a file in it may be torn by a
//! crash, damaged, or written by another version).
//!
//! Property: nothing panics; a file accepted as one kind is refused as the
//! other; an accepted body is the file less its header, its checked part is
//! within it, and the same body written by `CacheDir::write_parts` (checked
//! part, then the rest) gives back exactly these bytes.
#![no_main]

use ci_tools::cache::{file, CacheDir, Kind};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for (kind, other) in
        [(Kind::Lines, Kind::Answers), (Kind::Answers, Kind::Lines)]
    {
        let Ok((body, checked)) = file::check(kind, data) else { continue };
        assert_eq!(body.len() + file::HEADER, data.len());
        assert!(checked <= body.len());
        assert!(file::check(other, data).is_err());
        let dir = std::env::temp_dir().join(format!("ci-fuzz-cache-{}", std::process::id()));
        let dir = CacheDir::open(&dir).expect("a private temporary cache directory");
        dir.write_parts("x", kind, &body[..checked], &[&body[checked..]]).expect("write");
        assert_eq!(std::fs::read(dir.file("x")).expect("read back"), data);
    }
});
