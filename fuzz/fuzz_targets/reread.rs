//! Cut records made whole again: `output::EventPrinter::write` with a budget,
//! then `reread::Reread` on the printed record.
//!
//! Input layout: two bytes of budget (`u16`, little endian), then the line.
//! Lines that `Index::parse` rejects, that are not event records, or that hold
//! a `\n` are skipped. The line is written to a file and read as a capture's
//! line 1 (an Amplifier capture).
//!
//! Properties: nothing panics; a record printed with anything cut carries the
//! marker, and `fetch` + `build` give back exactly the record `--full`
//! prints; a record printed whole has no marker; after the file changes, the
//! record is refused (never rebuilt from other bytes).
#![no_main]

use std::path::PathBuf;

use ci_tools::format::ReadState;
use ci_tools::json::Index;
use ci_tools::lines::Site;
use ci_tools::output::EventPrinter;
use ci_tools::record::{Event, LineKind};
use ci_tools::reread::Reread;
use ci_tools::session::Capture;
use libfuzzer_sys::fuzz_target;

#[path = "common/budgeted.rs"]
mod budgeted;

fuzz_target!(|bytes: &[u8]| {
    let Some((budget, line)) = budgeted::split(bytes) else { return };
    let mut idx = Index::new();
    let Ok(rec) = idx.parse(line) else { return };
    if LineKind::of(&rec) != LineKind::Event {
        return;
    }
    let dir = std::env::temp_dir().join(format!("ci-fuzz-reread-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path: PathBuf = dir.join("events.jsonl");
    std::fs::write(&path, [line, b"\n"].concat()).expect("write");
    let display = path.to_string_lossy().into_owned();
    let cap = Capture {
        session: "s".into(),
        path: path.clone(),
        display: display.clone(),
        workspace: None,
        format: &ci_tools::format::amplifier::FORMAT,
        record: None,
        files: vec![path.clone()],
    };
    let state = ReadState::default();
    let site = Site { offset: 0, len: line.len() as u64, framing: ci_tools::lines::Framing::Line };
    let ev = Event::read(rec, &cap, 1, &display, None, &state, site);
    let mut full = Vec::new();
    EventPrinter::default().write(&ev, &mut full);
    let mut cut = Vec::new();
    EventPrinter { max_bytes: Some(budget), ..Default::default() }.write(&ev, &mut cut);
    let printed = cut.strip_suffix(b"\n").expect("one line");
    let mut pidx = Index::new();
    let piped = pidx.parse(printed).expect("printed records parse");
    let mut reread = Reread::default();
    match reread.fetch(&piped) {
        Ok(None) => assert_eq!(cut, full, "a record printed whole has no marker"),
        Ok(Some(_)) => {
            reread.build(&piped).expect("a cut record of a file that is there is rebuilt");
            assert_eq!([reread.full(), b"\n"].concat(), full, "made whole = --full");
            // The file changes: refused.
            std::fs::write(
                &path,
                [line, b" \n"].concat().iter().map(|b| if *b == b'"' { b'\'' } else { *b }).collect::<Vec<u8>>(),
            )
            .expect("write");
            assert!(Reread::default().fetch(&piped).is_err(), "a changed line is refused");
        }
        Err(e) => panic!("a cut record of a file that is there: {e}"),
    }
});
