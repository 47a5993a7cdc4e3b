//! The capture cache's directory and files (`ci-agg`): damaged, unusable,
//! read-only, turned-off and odd cache files, `--cache-info`, the size
//! bound, captures read in parts, progress, and what discovery keeps. The
//! answers-equal-`--no-cache` property is in `cache.rs`.

use std::path::{Path, PathBuf};

use crate::cache::{agg, lines, run};
use crate::kit::Tree;
use crate::util::{ci, Run};

/// A cache directory of its own for one test (`XDG_CACHE_HOME`).
pub(crate) fn own_cache() -> (tempfile::TempDir, PathBuf) {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join("ci-tools");
    (home, dir)
}

fn agg_in(home: &Path, args: &[&str], path: &Path) -> Run {
    ci("ci-agg").env("XDG_CACHE_HOME", home).args(args).arg(path).run()
}

/// A damaged cache file is reported once, not trusted, and rebuilt; the
/// files are private (0600 in a 0700 directory).
#[test]
fn a_damaged_cache_file_is_rebuilt() {
    use std::os::unix::fs::PermissionsExt;
    let tree = Tree::new();
    tree.amplifier("p", "s").raw(lines(0, &[0, 1, 2])).write();
    let (home, dir) = own_cache();
    let q = ["--by", "event"];
    let cold = agg(&q, &[tree.path()], false);
    assert_eq!(agg_in(home.path(), &q, tree.path()).stdout, cold.stdout);
    let files: Vec<PathBuf> = own_files(&dir).iter().map(|n| dir.join(n)).collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let file = &files[0];
    assert_eq!(std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777, 0o700);
    assert_eq!(std::fs::metadata(file).unwrap().permissions().mode() & 0o777, 0o600);
    // One byte of its body changed.
    let mut bytes = std::fs::read(file).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x55;
    std::fs::write(file, &bytes).unwrap();
    let run = agg_in(home.path(), &q, tree.path());
    assert_eq!(run.stdout, cold.stdout);
    assert_eq!(
        run.stderr,
        format!("ci-agg: warning: cache: {}: its checksum does not match; rebuilding it\n", file.display())
    );
    assert_eq!(run.code, 0);
    // Rebuilt: the next run says nothing.
    let run = agg_in(home.path(), &q, tree.path());
    assert_eq!((run.stdout, run.stderr, run.code), (cold.stdout, String::new(), 0));
}

/// A run that changes a few captures' entries writes them to the question's
/// delta file only, leaving its file as it was; once the delta would
/// outgrow a quarter of the file, the file is written again with it and the
/// delta is removed. Every answer is the one `--no-cache` prints.
#[test]
fn a_few_changed_captures_are_written_to_the_delta_only() {
    let tree = Tree::new();
    let caps: Vec<_> =
        (0..12).map(|i| tree.amplifier("p", format!("s{i}")).raw(lines(i * 10, &[0, 1, 2, 3])).write()).collect();
    let (home, dir) = own_cache();
    let q = ["--tokens", "--by", "day"];
    let names = || own_files(&dir);
    let same = |what: &str| {
        let run = agg_in(home.path(), &q, tree.path());
        let cold = agg(&q, &[tree.path()], false);
        assert_eq!((&run.stdout, &run.stderr, run.code), (&cold.stdout, &cold.stderr, cold.code), "{what}");
    };
    same("first run");
    let files = names();
    assert_eq!(files.len(), 1, "{files:?}");
    let base = dir.join(&files[0]);
    let before = std::fs::read(&base).unwrap();
    let append = |i: usize, from: u64| {
        use std::io::Write;
        let mut f = std::fs::File::options().append(true).open(&caps[i].events).unwrap();
        f.write_all(lines(from, &[0, 3]).as_bytes()).unwrap();
    };
    append(0, 500);
    same("one capture grown");
    assert_eq!(std::fs::read(&base).unwrap(), before, "the question's file is left as it was");
    assert_eq!(names(), [files[0].clone(), format!("{}.delta", files[0])]);
    // `--cache-info` shows the delta as its base's.
    let info = ci("ci-find").env("XDG_CACHE_HOME", home.path()).arg("--cache-info").run().json();
    let delta = info.iter().find(|r| r["delta_of"].is_string()).unwrap();
    assert_eq!((delta["delta_of"].as_str(), delta["entries"].as_u64()), (Some(files[0].as_str()), Some(1)));
    assert_eq!(delta["question"], info.iter().find(|r| r["file"] == files[0].as_str()).unwrap()["question"]);
    same("warm, with the delta");
    for i in 1..8 {
        append(i, 600 + 10 * i as u64);
    }
    same("eight captures grown");
    assert_eq!(names(), files, "the delta is folded into the file");
    assert_ne!(std::fs::read(&base).unwrap(), before);
    same("warm again");
}

/// A cache directory that cannot be used (it cannot be created, or it is
/// a symlink) gives one warning, and the answer without the cache.
#[test]
fn an_unusable_cache_directory_is_a_warning() {
    let tree = Tree::new();
    tree.amplifier("p", "s").raw(lines(0, &[0, 1])).write();
    let q = ["--by", "event"];
    let cold = agg(&q, &[tree.path()], false);
    // XDG_CACHE_HOME under a regular file: nothing can be created there.
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join("file");
    std::fs::write(&file, "").unwrap();
    let run = agg_in(&file.join("x"), &q, tree.path());
    assert_eq!((&run.stdout, run.code), (&cold.stdout, 0));
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(
        run.stderr.starts_with("ci-agg: warning: ") && run.stderr.ends_with("; running without the cache\n"),
        "{}",
        run.stderr
    );
    // A symlinked cache directory is refused the same way.
    let real = home.path().join("real");
    std::fs::create_dir(&real).unwrap();
    std::os::unix::fs::symlink(&real, home.path().join("ci-tools")).unwrap();
    let run = agg_in(home.path(), &q, tree.path());
    assert_eq!((&run.stdout, run.code), (&cold.stdout, 0));
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(std::fs::read_dir(&real).unwrap().next().is_none(), "nothing written through the symlink");
}

/// A read-only cache directory: answers as without it, one warning that it
/// could not be written (as a user who cannot write it; skipped as root
/// without `setpriv`).
#[test]
fn a_read_only_cache_directory_is_a_warning() {
    use std::os::unix::fs::PermissionsExt;
    if crate::util::unprivileged("ci-agg").is_none() {
        return crate::kit::skip("setpriv", crate::util::NO_UNPRIVILEGED);
    }
    let tree = Tree::new();
    tree.amplifier("p", "s").raw(lines(0, &[0, 1])).write();
    let mode = |p: &Path, m: u32| std::fs::set_permissions(p, std::fs::Permissions::from_mode(m)).unwrap();
    mode(tree.path(), 0o755);
    for d in walk_dirs(tree.path()) {
        mode(&d, 0o755);
    }
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join("ci-tools");
    std::fs::create_dir(&dir).unwrap();
    mode(home.path(), 0o755);
    let q = ["--by", "event"];
    let cold = agg(&q, &[tree.path()], false);
    let run = |dir_mode: u32| {
        mode(&dir, dir_mode);
        // The directory must be the user's own: give it to nobody when
        // running as root (the tool runs as nobody then).
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } == 0 {
            std::os::unix::fs::chown(&dir, Some(65534), Some(65534)).unwrap();
        }
        let out = crate::util::unprivileged("ci-agg")
            .unwrap()
            .env("XDG_CACHE_HOME", home.path())
            .env_remove("CI_CACHE")
            .args(q)
            .arg(tree.path())
            .output()
            .unwrap();
        (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (stdout, stderr) = run(0o500);
    assert_eq!(stdout, cold.stdout);
    assert!(
        stderr.starts_with("ci-agg: warning: cache: could not write it: ")
            && stderr.ends_with("; the next run reads the captures again\n")
            && stderr.lines().count() == 1,
        "{stderr}"
    );
    // Writable again: built, and used.
    assert_eq!(run(0o700), (cold.stdout.clone(), String::new()));
    assert_eq!(own_files(&dir).len(), 1);
}

fn walk_dirs(root: &Path) -> Vec<PathBuf> {
    let mut out = vec![];
    for e in std::fs::read_dir(root).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.push(p.clone());
            out.extend(walk_dirs(&p));
        }
    }
    out
}

/// `--no-cache` and `CI_CACHE=0` neither read nor write the cache.
#[test]
fn the_cache_can_be_turned_off() {
    let tree = Tree::new();
    tree.amplifier("p", "s").raw(lines(0, &[0, 1])).write();
    let q = ["--by", "event"];
    let (home, dir) = own_cache();
    ci("ci-agg").env("XDG_CACHE_HOME", home.path()).arg("--no-cache").args(q).arg(tree.path()).run();
    for off in ["0", "false", "off", "no"] {
        ci("ci-agg").env("XDG_CACHE_HOME", home.path()).env("CI_CACHE", off).args(q).arg(tree.path()).run();
    }
    assert!(!dir.exists(), "no cache directory made");
    agg_in(home.path(), &q, tree.path());
    assert_eq!(own_files(&dir).len(), 1);
}

/// `ci-find --cache-info`: where the cache is and what it holds; nothing
/// is made by asking.
#[test]
fn cache_info_says_where_and_what() {
    let tree = Tree::new();
    for s in 0..3 {
        tree.amplifier("p", format!("s{s}")).raw(lines(s, &[0, 1])).write();
    }
    let (home, dir) = own_cache();
    let info = |env_max: Option<&str>| {
        let mut c = ci("ci-find").env("XDG_CACHE_HOME", home.path()).arg("--cache-info");
        if let Some(m) = env_max {
            c = c.env("CI_CACHE_MAX_BYTES", m);
        }
        let run = c.run();
        assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{run:?}");
        run.json()
    };
    let before = info(None);
    assert_eq!(
        before,
        vec![
            serde_json::json!({"cache": dir.to_str().unwrap(), "state": "none yet", "files": 0, "bytes": 0, "max_bytes": 4u64 << 20, "bound": "5% of the captures' bytes, at least 4194304 bytes, at most 1073741824 bytes"})
        ]
    );
    assert!(!dir.exists());
    agg_in(home.path(), &["--by", "event"], tree.path());
    let after = info(Some("2M"));
    // The question's file, and discovery's kept peeks (metadata.json).
    assert_eq!(after.len(), 3, "{after:?}");
    // In order of last use: which is first depends on the clock.
    let size = |row: &serde_json::Value| std::fs::metadata(dir.join(row["file"].as_str().unwrap())).unwrap().len();
    let (row, peeks) = if after[1]["question"]["tool"] == "discovery" { (2, 1) } else { (1, 2) };
    assert_eq!(after[peeks]["question"]["tool"], "discovery");
    let bytes = size(&after[row]);
    assert_eq!(after[0]["state"], "used");
    assert_eq!(
        (after[0]["files"].as_u64(), after[0]["bytes"].as_u64(), after[0]["max_bytes"].as_u64()),
        (Some(2), Some(bytes + size(&after[peeks])), Some(2 << 20))
    );
    assert_eq!(after[row]["entries"], 3);
    assert_eq!(after[row]["bytes"].as_u64(), Some(bytes));
    assert_eq!(after[row]["question"]["tool"], "ci-agg");
    assert_eq!(after[row]["question"]["query"]["by"], serde_json::json!(["event"]));
    // The captures' bytes it covers: its three events files.
    let events: u64 =
        walk_dirs(tree.path()).iter().filter_map(|d| d.join("events.jsonl").metadata().ok()).map(|m| m.len()).sum();
    assert_eq!(after[row]["captures_bytes"].as_u64(), Some(events));
    assert_eq!(after[0]["captures_bytes"].as_u64(), Some(events));
    assert_eq!(after[0]["bound"], "2097152 bytes");
    assert_eq!(after[0]["bytes_per_capture"].as_u64(), Some(after[0]["bytes"].as_u64().unwrap() / 3));
    assert_eq!(after[0]["kinds"]["ci-agg"], serde_json::json!({"files": 1, "bytes": bytes}));
    assert_eq!(after[0]["kinds"]["discovery"], serde_json::json!({"files": 1, "bytes": size(&after[peeks])}));
}

/// Past `CI_CACHE_MAX_BYTES`, the least recently used cache files go (never
/// the one just written).
#[test]
fn the_cache_keeps_within_its_size_bound() {
    let tree = Tree::new();
    tree.amplifier("p", "s").raw(lines(0, &[0, 1, 2])).write();
    let (home, dir) = own_cache();
    let run = |q: &[&str], max: &str| {
        let r = ci("ci-agg")
            .env("XDG_CACHE_HOME", home.path())
            .env("CI_CACHE_MAX_BYTES", max)
            .args(q)
            .arg(tree.path())
            .run();
        assert_eq!((r.code, r.stderr.as_str()), (0, ""), "{r:?}");
    };
    let names = || own_files(&dir);
    run(&["--by", "event"], "1G");
    let first = names();
    run(&["--by", "workspace"], "1G");
    assert_eq!(names().len(), 2);
    // A bound of one byte keeps only the file just written.
    run(&["--tokens"], "1");
    let last = names();
    assert_eq!(last.len(), 1);
    assert!(!first.contains(&last[0]));
    let r = ci("ci-agg")
        .env("XDG_CACHE_HOME", home.path())
        .env("CI_CACHE_MAX_BYTES", "lots")
        .args(["--by", "event,workspace"])
        .arg(tree.path())
        .run();
    assert_eq!(
        r.stderr,
        "ci-agg: warning: CI_CACHE_MAX_BYTES=\"lots\": expected a whole number of bytes with an optional k, M or G suffix (1024-based: 1k = 1024), or a percentage such as 5%; using 5% of the captures' bytes, at least 4194304 bytes, at most 1073741824 bytes\n"
    );
}

/// `tool` with `args` on `path`, read in parts of 4 KiB by two threads
/// (`CI_CHUNK_BYTES`), with the cache in `home` or `--no-cache`: its
/// stdout, stderr and exit status.
pub(crate) fn in_parts(tool: &str, home: &Path, args: &[&str], path: &Path, cache: bool) -> (String, String, i32) {
    let mut c = ci(tool).env("XDG_CACHE_HOME", home).env("CI_CHUNK_BYTES", "4096").arg("-j2").args(args);
    if !cache {
        c = c.arg("--no-cache");
    }
    let r = c.arg(path).run();
    (r.stdout, r.stderr, r.code)
}

/// A capture read in parts by several threads (`CI_CHUNK_BYTES`): its
/// parts' states are kept as one, answered from the cache without a part
/// being read, and read again whole in parts once it changed.
#[test]
fn a_capture_read_in_parts_is_kept_whole() {
    let tree = Tree::new();
    // No line damaged inside its data (ci-agg reports it: not kept).
    let kinds: Vec<u8> = (0..400u32).map(|i| [0, 1, 2, 3, 4, 6][(i * 7 % 11) as usize % 6]).collect();
    let cap = tree.amplifier("p", "big").raw(lines(0, &kinds)).write();
    assert!(std::fs::metadata(&cap.events).unwrap().len() > 8 * 4096);
    let (home, dir) = own_cache();
    let run = |q: &[&str], cache: bool| in_parts("ci-agg", home.path(), q, &cap.events, cache);
    for q in [&["--by", "event"][..], &["--tokens", "--by", "day"][..]] {
        let cold = run(q, false);
        assert_eq!(cold.2, 0, "{cold:?}");
        assert_eq!(run(q, true), cold, "{q:?}: building");
        assert_eq!(run(q, true), cold, "{q:?}: answered");
    }
    let entries = |q: &str| {
        let info = ci("ci-find").env("XDG_CACHE_HOME", home.path()).arg("--cache-info").run().json();
        info.iter()
            .filter(|r| r["question"]["query"]["preset"] == q)
            .map(|r| r["entries"].as_u64().unwrap())
            .sum::<u64>()
    };
    assert_eq!((entries("group"), entries("tokens")), (1, 1));
    // Grown, torn, and rewritten in place: read again in parts each time.
    use std::io::Write;
    let mut f = std::fs::File::options().append(true).open(&cap.events).unwrap();
    f.write_all(lines(900, &kinds[..50]).as_bytes()).unwrap();
    for q in [&["--by", "event"][..], &["--tokens", "--by", "day"][..]] {
        let cold = run(q, false);
        assert_eq!(run(q, true), cold, "{q:?}: grown");
        assert_eq!(run(q, true), cold, "{q:?}: grown, answered");
    }
    f.write_all(b"{\"event\":\"torn").unwrap();
    let cold = run(&["--by", "event"], false);
    assert!(cold.1.contains("1 unfinished last line held back"), "{cold:?}");
    assert_eq!(run(&["--by", "event"], true), cold, "torn");
    assert_eq!(run(&["--by", "event"], true), cold, "torn, again");
    assert!(dir.exists());
}

/// A capture read in parts that grew is read from where its kept state
/// ends: only the parts from there on read, the lines numbered on. Seen
/// through the one change the cache cannot see (bytes changed in place in
/// the middle of the file, same size, first 4 KiB and last line kept): its
/// old answer stays, the appended lines (and a bad one, at its line number)
/// are read.
#[test]
fn a_capture_read_in_parts_that_grew_is_read_from_its_kept_end() {
    let tree = Tree::new();
    let kinds: Vec<u8> = (0..400u32).map(|i| (i % 3) as u8 + 1).collect();
    let cap = tree.amplifier("p", "big").raw(lines(0, &kinds)).write();
    let (home, _dir) = own_cache();
    let run = |cache: bool| in_parts("ci-agg", home.path(), &["--by", "event"], &cap.events, cache);
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    let set_old = || std::fs::File::options().append(true).open(&cap.events).unwrap().set_modified(old).unwrap();
    set_old();
    let first = run(true);
    assert_eq!(first, run(false));
    // tool:pre -> tool:pro in place, in the middle.
    let mut text = std::fs::read(&cap.events).unwrap();
    let at = 20_000 + memchr::memmem::find(&text[20_000..], b"tool:pre").unwrap();
    text[at..at + 8].copy_from_slice(b"tool:pro");
    std::fs::write(&cap.events, &text).unwrap();
    set_old();
    use std::io::Write;
    let mut f = std::fs::File::options().append(true).open(&cap.events).unwrap();
    f.write_all(lines(900, &[3, 3]).as_bytes()).unwrap();
    f.write_all(b"not json\n").unwrap();
    f.write_all(lines(902, &[3]).as_bytes()).unwrap();
    let (stdout, stderr, code) = run(true);
    let cold = run(false);
    assert_eq!((stderr.as_str(), code), (cold.1.as_str(), cold.2));
    assert!(stderr.contains("events.jsonl:403: invalid JSON"), "{stderr}");
    // The kept answer (the in-place change unseen), plus the three
    // session:start lines read after its end.
    let counts = |out: &str| -> std::collections::BTreeMap<String, u64> {
        out.lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .map(|v| (v["event"].as_str().unwrap().to_owned(), v["count"].as_u64().unwrap()))
            .collect()
    };
    let mut want = counts(&first.0);
    *want.get_mut("session:start").unwrap() += 3;
    assert_eq!(counts(&stdout), want);
    assert_eq!(counts(&cold.0).get("tool:pro"), Some(&1), "--no-cache sees the change");
}

/// On a terminal, a long ci-agg run shows how far it is on one line of
/// stderr that it rewrites, and clears it before the records; on a pipe
/// (every other test) nothing.
#[test]
fn a_long_run_shows_progress_on_a_terminal() {
    if !crate::kit::skip::runs("script", &["-qec", "true", "/dev/null"]) {
        return crate::kit::skip("script", "no `script` (util-linux) to give the run a terminal");
    }
    let tree = Tree::new();
    let kinds: Vec<u8> = (0..2000u32).map(|i| (i % 4) as u8).collect();
    for s in 0..8 {
        tree.amplifier("p", format!("s{s}")).raw(lines(s * 10_000, &kinds)).write();
    }
    let agg = assert_cmd::cargo::cargo_bin("ci-agg");
    // NDJSON as on a pipe (a terminal's default is a table).
    let cmd = format!("'{}' --no-cache --by event -j1 --format json '{}'", agg.display(), tree.path().display());
    let out = crate::util::pinned(std::process::Command::new("script"))
        .args(["-qec", &cmd, "/dev/null"])
        .env("CI_PROGRESS_AFTER_MS", "0")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("\r\x1b[Kci-agg: ") && text.contains(" of 8 captures, "), "{text:?}");
    // Cleared, then the records (the terminal writes \r\n).
    let after = &text[text.rfind("\x1b[K").unwrap() + 3..];
    let cold = agg_records(tree.path());
    assert_eq!(after.replace("\r\n", "\n"), cold, "{text:?}");
}

/// The names of the cache files in `dir` but discovery's kept peeks (a
/// `peek-` file, which ci-agg and ci-find write beside their own), sorted.
fn own_files(dir: &Path) -> Vec<String> {
    let mut n: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| !n.starts_with("peek-"))
        .collect();
    n.sort();
    n
}

fn agg_records(root: &Path) -> String {
    agg(&["--by", "event", "-j1"], &[root], false).stdout
}

/// A capture's answer depends on its session record too: with its events
/// unchanged, an edited `metadata.json` (another workspace, agent, status)
/// is read again.
#[test]
fn an_edited_session_record_is_read_again() {
    let tree = Tree::new();
    let cap = tree.amplifier("p", "s1").raw(lines(0, &[0, 1, 2, 3])).write();
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    std::fs::File::options().append(true).open(&cap.events).unwrap().set_modified(old).unwrap();
    let qs: [&[&str]; 3] = [&["--by", "workspace,event"], &["--sessions"], &["--by", "agent"]];
    let root = [tree.path()];
    for q in qs {
        let cold = agg(q, &root, false);
        assert_eq!(agg(q, &root, true).stdout, cold.stdout, "{q:?}");
    }
    std::fs::write(
        cap.dir.join("metadata.json"),
        r#"{"session_id":"s1","workspace":"elsewhere","status":"completed","agent":"explorer"}"#,
    )
    .unwrap();
    for q in qs {
        let cold = agg(q, &root, false);
        if q[0] != "--by" || q[1] != "agent" {
            assert!(cold.stdout.contains("elsewhere"), "{q:?}: {}", cold.stdout);
        }
        let warm = agg(q, &root, true);
        assert_eq!((warm.stdout, warm.stderr, warm.code), (cold.stdout, cold.stderr, cold.code), "{q:?}");
    }
}

/// `ci-find --min-events`/`--max-events` keep each capture's count: a
/// capture as it was is not read again (seen through a change in place the
/// cache cannot see), one that changed is counted again, and `--no-cache`
/// always counts.
#[test]
fn ci_find_keeps_event_counts() {
    let tree = Tree::new();
    let a = tree.amplifier("p", "a").raw(lines(0, &[1, 1, 1])).write();
    tree.amplifier("p", "b").raw(lines(10, &[1])).write();
    let (home, dir) = own_cache();
    let find = |args: &[&str]| {
        let r = ci("ci-find")
            .env("XDG_CACHE_HOME", home.path())
            .arg("--root")
            .arg(tree.path())
            .arg("--paths")
            .args(args)
            .run();
        assert_eq!(r.stderr, "", "{r:?}");
        r.stdout.lines().filter_map(|l| l.split('/').rev().nth(2).map(str::to_owned)).collect::<Vec<_>>()
    };
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    std::fs::File::options().append(true).open(&a.events).unwrap().set_modified(old).unwrap();
    assert_eq!(find(&["--min-events", "2"]), ["a"]);
    assert_eq!(own_files(&dir).len(), 1);
    assert_eq!(find(&["--min-events", "2"]), ["a"]);
    // Two of a's lines blanked in place: same size and time.
    let text = std::fs::read_to_string(&a.events).unwrap();
    let mut blanked: Vec<String> = text.lines().map(str::to_owned).collect();
    for l in &mut blanked[1..] {
        *l = " ".repeat(l.len());
    }
    std::fs::write(&a.events, blanked.join("\n") + "\n").unwrap();
    std::fs::File::options().append(true).open(&a.events).unwrap().set_modified(old).unwrap();
    assert_eq!(find(&["--min-events", "2"]), ["a"], "kept count");
    assert_eq!(find(&["--min-events", "2", "--no-cache"]), Vec::<String>::new(), "counted");
    // Changed (another time): counted again.
    std::fs::File::options().append(true).open(&a.events).unwrap().set_modified(std::time::SystemTime::now()).unwrap();
    assert_eq!(find(&["--min-events", "2"]), Vec::<String>::new());
    assert_eq!(find(&["--max-events", "1"]).len(), 2);
}

/// A tool run in `home` on `root`, killed (and the test failed) if it does
/// not end within the deadline of [`crate::util::exits_within`].
fn run_within(home: &Path, tool: &str, args: &[&str], root: &Path) -> Run {
    let mut cmd = crate::util::ci_command(tool);
    cmd.env("XDG_CACHE_HOME", home).args(args).arg(root);
    cmd.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let code = crate::util::exits_within(&mut child, &format!("the end of {tool} {args:?}")).unwrap_or(-1);
    let out = child.wait_with_output().unwrap();
    Run {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code,
    }
}

/// Each kind of cache file replaced by a FIFO or by a symbolic link to
/// `/dev/zero` (which hung the tools, or read zeros until memory ran out):
/// `--cache-info` lists it, a run warns that it is not a regular file,
/// answers as without the cache and writes a regular file in its place,
/// and the next run says nothing.
#[test]
fn a_cache_file_that_is_a_fifo_or_a_link_is_replaced_not_read() {
    let tree = Tree::new();
    for s in 0..3 {
        tree.amplifier("p", format!("s{s}")).raw(lines(s * 10, &[0, 1, 2])).write();
    }
    let (home, dir) = own_cache();
    let runs: [(&str, &[&str]); 3] = [
        ("ci-agg", &["--by", "event"]),
        ("ci-filter", &["--event", "tool:pre"]),
        ("ci-find", &["--min-events", "2", "--root"]),
    ];
    let mut known = std::collections::BTreeSet::new();
    for (tool, args) in runs {
        let direct = run_within(home.path(), tool, &[&["--no-cache"][..], args].concat(), tree.path());
        run_within(home.path(), tool, args, tree.path());
        let names: std::collections::BTreeSet<String> = own_files(&dir).into_iter().collect();
        let new: Vec<&String> = names.difference(&known).collect();
        assert_eq!(new.len(), 1, "{tool}: {names:?}");
        let file = dir.join(new[0]);
        for fifo in [true, false] {
            std::fs::remove_file(&file).unwrap();
            if fifo {
                crate::kit::tree::mkfifo(&file);
            } else {
                std::os::unix::fs::symlink("/dev/zero", &file).unwrap();
            }
            let info = ci("ci-find").env("XDG_CACHE_HOME", home.path()).arg("--cache-info").run().json();
            let listed = info.iter().find(|r| r["file"] == new[0].as_str()).expect("listed");
            assert_eq!(listed["state"], "not a regular file: never read (replaced when next used)");
            let run = run_within(home.path(), tool, args, tree.path());
            assert_eq!((&run.stdout, run.code), (&direct.stdout, direct.code), "{tool} {fifo}");
            let warning = format!(
                "{tool}: warning: cache: {}: not a regular file (a FIFO, device or symbolic link); rebuilding it\n",
                file.display()
            );
            assert_eq!(run.stderr, warning, "{tool} {fifo}");
            assert!(std::fs::symlink_metadata(&file).unwrap().is_file(), "{tool} {fifo}: rewritten");
            let again = run_within(home.path(), tool, args, tree.path());
            assert_eq!((&again.stdout, again.stderr.as_str()), (&direct.stdout, ""), "{tool} {fifo}");
        }
        known = names;
    }
}

/// A run killed while writing leaves its temporary file: `--cache-info`
/// lists and counts it (and one a run is writing now), the size bound
/// counts both, and the next run that writes the cache removes the one left
/// for more than 15 minutes, never the other.
#[test]
fn temporary_files_of_killed_runs_are_counted_and_removed() {
    let tree = Tree::new();
    tree.amplifier("p", "s").raw(lines(0, &[0, 1, 2])).write();
    let (home, dir) = own_cache();
    agg_in(home.path(), &["--by", "event"], tree.path());
    let (killed, writing) =
        (dir.join(".agg-00000000000000aa.bin.4000000.0.tmp"), dir.join(".agg-00000000000000bb.bin.4000001.0.tmp"));
    std::fs::write(&killed, vec![b'x'; 254_000]).unwrap();
    std::fs::write(&writing, vec![b'y'; 1000]).unwrap();
    let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    std::fs::File::options().append(true).open(&killed).unwrap().set_modified(hour_ago).unwrap();
    let info = || ci("ci-find").env("XDG_CACHE_HOME", home.path()).arg("--cache-info").run().json();
    let before = info();
    let kept = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().metadata().unwrap().len()).sum::<u64>();
    assert_eq!((before[0]["files"].as_u64(), before[0]["bytes"].as_u64()), (Some(4), Some(kept)), "{before:?}");
    let state = |rows: &[serde_json::Value], path: &Path| {
        let name = path.file_name().unwrap().to_str().unwrap();
        rows.iter().find(|r| r["file"] == name).map(|r| r["state"].as_str().unwrap_or_default().to_owned())
    };
    assert_eq!(
        state(&before, &killed).as_deref(),
        Some("a temporary file left by a run that was killed (removed when the cache is next written)")
    );
    assert_eq!(state(&before, &writing).as_deref(), Some("a temporary file of a run writing the cache"));
    let run = ci("ci-agg")
        .env("XDG_CACHE_HOME", home.path())
        .env("CI_CACHE_MAX_BYTES", "0")
        .args(["--by", "workspace"])
        .arg(tree.path())
        .run();
    assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{run:?}");
    assert!(!killed.exists(), "the killed run's file is removed");
    assert!(writing.exists(), "a run writing now keeps its file");
    let after = info();
    assert_eq!(state(&after, &killed), None);
    assert_eq!(after[0]["files"].as_u64(), Some(2), "{after:?}");
}

/// A warm run opens nothing but the cache for an unchanged capture: its
/// `metadata.json`, and a child's first line (its agent), come from what was
/// kept while their stats are as they were. Seen here through changes in
/// place that keep size and time (which a stat cannot see); another time
/// reads them again, and `--no-cache` always reads them.
#[test]
fn a_warm_run_keeps_what_discovery_read() {
    let tree = Tree::new();
    let fork = r#"{"data":{"metadata":{"agent_name":"aa"}},"event":"session:fork","timestamp":"2026-01-01T00:00:00Z","workspace":"w"}"#;
    let cap = tree.amplifier("p", "s1").raw(format!("{fork}\n{}", lines(1, &[0, 1]))).write();
    let meta = cap.dir.join("metadata.json");
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    let in_place = |path: &Path, text: String| {
        std::fs::write(path, text).unwrap();
        std::fs::File::options().append(true).open(path).unwrap().set_modified(old).unwrap();
    };
    in_place(&meta, r#"{"session_id":"s1","workspace":"ws-aa","parent_id":"s0"}"#.into());
    in_place(&cap.events, std::fs::read_to_string(&cap.events).unwrap());
    let root = [tree.path()];
    let find =
        |cache: bool| run("ci-find", &["--columns", "workspace,agent", "--format", "tsv", "--root"], &root, cache);
    for q in [&["--by", "workspace,agent"][..], &["--sessions"]] {
        let cold = agg(q, &root, false);
        assert!(cold.stdout.contains("ws-aa") && cold.stdout.contains("\"aa\""), "{q:?}: {}", cold.stdout);
        assert_eq!(agg(q, &root, true).stdout, cold.stdout, "{q:?}");
    }
    assert_eq!(find(true).stdout, "workspace\tagent\nws-aa\taa\n");
    // Same size, same time: what was kept answers.
    in_place(&meta, r#"{"session_id":"s1","workspace":"ws-bb","parent_id":"s0"}"#.into());
    in_place(&cap.events, std::fs::read_to_string(&cap.events).unwrap().replace("\"aa\"", "\"bb\""));
    let q = ["--by", "workspace,agent"];
    let before = agg(&q, &root, true).stdout;
    assert!(before.contains("\"ws-aa\",\"agent\":\"aa\"") && !before.contains("bb"), "{before}");
    assert_eq!(find(true).stdout, "workspace\tagent\nws-aa\taa\n");
    let read = agg(&q, &root, false).stdout;
    assert_eq!(read, before.replace("aa", "bb"));
    assert_eq!(find(false).stdout, "workspace\tagent\nws-bb\tbb\n");
    // Another time on each: read again.
    for f in [&meta, &cap.events] {
        std::fs::File::options().append(true).open(f).unwrap().set_modified(std::time::SystemTime::now()).unwrap();
    }
    assert_eq!(agg(&q, &root, true).stdout, read);
    assert_eq!(find(true).stdout, "workspace\tagent\nws-bb\tbb\n");
}
