//! OpenCode's database: the hand-made data dir (fixtures/opencode/handmade,
//! the shared sample with its expected totals) against SOURCE.md and
//! ccusage 20.0.24's answers, cut rows read back whole, and a database being
//! written, locked or in a read-only folder; the legacy `storage/` tree
//! (a file per record) beside it.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::util::{ci, root};

/// The shared sample data dir (`opencode.db` + a legacy `storage/`).
const HANDMADE: &str = "fixtures/opencode/handmade";
/// The conformance tree: the sample plus a long part (cut at 1 KiB).
const PLANTED: &str = "fixtures/opencode/planted/opencode.db";
/// The script the sample database is built from.
const SQL: &str = "fixtures/opencode/handmade/opencode-v1.16-minimal.sql";

/// (input, output, cache read, cache write) of a row.
fn counts(r: &Value) -> (u64, u64, u64, u64) {
    let n = |k: &str| r[k].as_u64().unwrap_or_else(|| panic!("no {k}: {r}"));
    (n("input_tokens"), n("output_tokens"), n("cache_read_tokens"), n("cache_write_tokens"))
}

/// ccusage 20.0.24's session rows on the sample, by session id.
fn ccusage_session(id: &str) -> (u64, u64, u64, u64) {
    let text = std::fs::read_to_string(root().join(HANDMADE).join("ccusage-session.json")).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    let r = v["sessions"].as_array().unwrap().iter().find(|s| s["sessionId"] == id).unwrap().clone();
    let n = |k: &str| r[k].as_u64().unwrap();
    (n("inputTokens"), n("outputTokens"), n("cacheReadTokens"), n("cacheCreationTokens"))
}

/// SOURCE.md: the parent's two steps sum to input 2,400, output 650 +
/// reasoning 120, cache 30,000 / 1,500, cost 0.0309 (the message's `tokens`
/// hold the last step only); the child 300 / 90 / 2,000 / 0, 0.0021; the
/// legacy tree's session 1,800 / 300 (its `output` taken as written, the
/// reasoning in it) / 6,400 / 0, 0.0042.
#[test]
fn the_sample_counts_the_expected_totals_of_source_md() {
    let run = ci("ci-agg").args(["--tokens", "--by", "session", HANDMADE]).run();
    assert_eq!((run.stderr.as_str(), run.code), ("", 0));
    assert_eq!(
        run.stdout,
        concat!(
            r#"{"session":"ses_parent0001","model":"claude-sonnet-4-5","responses":2,"input_tokens":2400,"output_tokens":770,"cache_read_tokens":30000,"cache_write_tokens":1500,"cost_usd":0.0309,"cost_source":"writer","unpriced_models":[]}"#,
            "\n",
            r#"{"session":"ses_child00001","model":"claude-haiku-4-5","responses":1,"input_tokens":300,"output_tokens":90,"cache_read_tokens":2000,"cache_write_tokens":0,"cost_usd":0.0021,"cost_source":"writer","unpriced_models":[]}"#,
            "\n",
            r#"{"session":"ses_legacy0001","model":"gpt-5","responses":1,"input_tokens":1800,"output_tokens":300,"cache_read_tokens":6400,"cache_write_tokens":0,"cost_usd":0.0042,"cost_source":"writer","unpriced_models":[]}"#,
            "\n"
        )
    );
}

/// ccusage 20.0.24 reads each message's `tokens`: right for the one-step
/// child and the legacy tree's one-step message, the last step only for the parent (README's OpenCode table).
#[test]
fn ccusage_agrees_on_a_one_step_message_and_undercounts_a_two_step_one() {
    let rows = ci("ci-agg").args(["--tokens", "--by", "session", HANDMADE]).run().json();
    let ours = |id: &str| counts(rows.iter().find(|r| r["session"] == id).unwrap());
    assert_eq!(ours("ses_child00001"), ccusage_session("ses_child00001"));
    assert_eq!(ours("ses_legacy0001"), ccusage_session("ses_legacy0001"));
    assert_eq!(ours("ses_legacy0001"), (1800, 300, 6400, 0));
    assert_eq!(ccusage_session("ses_parent0001"), (400, 450, 16000, 400));
    // Ours: both steps, reasoning billed as output.
    assert_eq!(ours("ses_parent0001"), (2000 + 400, 200 + 100 + 450 + 20, 14000 + 16000, 1100 + 400));
}

/// Sessions with their parent, model, agent and working directory: the
/// database's, then the legacy tree's (its agent from the older `mode`).
#[test]
fn sessions_are_found_with_parent_model_and_agent() {
    let run = ci("ci-find").args(["--root", HANDMADE]).run();
    assert_eq!((run.stderr.as_str(), run.code), ("", 0));
    let rows = run.json();
    let got: Vec<_> = rows
        .iter()
        .map(|r| (r["session"].clone(), r["parent"].clone(), r["agent"].clone(), r["model"].clone()))
        .collect();
    assert_eq!(
        got,
        [
            (
                Value::from("ses_child00001"),
                Value::from("ses_parent0001"),
                Value::from("explore"),
                Value::from("claude-haiku-4-5")
            ),
            (Value::from("ses_parent0001"), Value::Null, Value::from("build"), Value::from("claude-sonnet-4-5")),
            (Value::from("ses_legacy0001"), Value::Null, Value::from("build"), Value::from("gpt-5")),
        ]
    );
}

/// Tool parts: `bash` completed with exit 1 fails, `edit` is a `tool:error`.
#[test]
fn tool_parts_are_calls_with_their_failures() {
    let run = ci("ci-agg").args(["--tools", HANDMADE]).run();
    assert_eq!(
        run.stdout,
        concat!(
            r#"{"tool":"bash","calls":1,"ok":0,"errors":1,"unfinished":0,"success_rate":0,"p50_ms":0,"p95_ms":0,"max_ms":0}"#,
            "\n",
            r#"{"tool":"edit","calls":1,"ok":0,"errors":1,"unfinished":0,"success_rate":0,"p50_ms":0,"p95_ms":0,"max_ms":0}"#,
            "\n"
        )
    );
    let errors = ci("ci-filter").args(["--errors", HANDMADE]).run().json();
    let names: Vec<_> = errors.iter().map(|e| (e["event"].clone(), e["data"]["data"]["tool"].clone())).collect();
    assert_eq!(
        names,
        [(Value::from("tool:post"), Value::from("bash")), (Value::from("tool:error"), Value::from("edit"))]
    );
}

/// A copy of the planted database in a temporary folder.
fn planted_copy() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("opencode.db");
    std::fs::copy(root().join(PLANTED), &path).unwrap();
    (dir, path)
}

/// A row printed cut names its table and rowid; the next tool reads it
/// again whole; a row changed since is reported, never computed on.
#[test]
fn a_cut_row_reads_back_whole_and_a_changed_row_is_reported() {
    let (_dir, db) = planted_copy();
    let db = db.to_str().unwrap();
    let cut = ci("ci-cat").args(["--max-bytes", "1k", db]).run();
    assert_eq!((cut.stderr.as_str(), cut.code), ("", 0));
    let marked: Vec<&str> = cut.stdout.lines().filter(|l| l.contains(r#""cut":{"#)).collect();
    assert_eq!(marked.len(), 1, "{}", cut.stdout);
    assert!(marked[0].contains(r#""cut":{"table":"part","rowid":12,"bytes":1686,"#), "{}", marked[0]);
    let full = ci("ci-cat").args(["--full", db]).run().stdout;
    assert_eq!(ci("ci-cat").arg("--full").stdin(cut.stdout.clone()).run().stdout, full);

    let conn = rusqlite::Connection::open(db).unwrap();
    conn.execute("UPDATE part SET data = replace(data, 'xxx', 'yyy') WHERE rowid = 12", []).unwrap();
    drop(conn);
    let back = ci("ci-cat").arg("--full").stdin(cut.stdout).run();
    assert_eq!(back.code, 2, "{back:?}");
    assert!(
        back.stderr.contains(&format!("{db}:6: the line changed since this record was printed cut")),
        "{}",
        back.stderr
    );
}

/// A tokens count leaves unread the rows that carry no usage, yet reports
/// each damaged or too long row as a whole read does; its totals are the
/// sums of the undamaged steps.
#[test]
fn a_tokens_count_reports_damaged_and_long_rows_as_a_whole_read_does() {
    let (_dir, db) = planted_copy();
    let conn = rusqlite::Connection::open(&db).unwrap();
    let before = ci("ci-agg").args(["--tokens", "--by", "session"]).arg(&db).run();
    assert_eq!((before.stderr.as_str(), before.code), ("", 0));
    // A text part that is not JSON, a message whose data is an array.
    let text = "SELECT rowid FROM part WHERE json_extract(data, '$.type') = 'text' LIMIT 1";
    let part: i64 = conn.query_row(text, [], |r| r.get(0)).unwrap();
    conn.execute("UPDATE part SET data = 'not json' WHERE rowid = ?1", [part]).unwrap();
    let user = "SELECT rowid FROM message WHERE json_extract(data, '$.role') = 'user' LIMIT 1";
    let message: i64 = conn.query_row(user, [], |r| r.get(0)).unwrap();
    conn.execute("UPDATE message SET data = '[1]' WHERE rowid = ?1", [message]).unwrap();
    drop(conn);
    // Every row (`--by session` without --tokens) against the tokens count's rows.
    let all = ci("ci-agg").args(["--by", "session"]).env("CI_MAX_LINE_BYTES", "1500").arg(&db).run();
    let tokens = ci("ci-agg").args(["--tokens", "--by", "session"]).env("CI_MAX_LINE_BYTES", "1500").arg(&db).run();
    assert_eq!(tokens.stderr, all.stderr);
    assert_eq!(tokens.stderr.lines().count(), 4, "{}", tokens.stderr);
    assert!(tokens.stderr.contains("longer than the limit of 1500 bytes"), "{}", tokens.stderr);
    let whole = ci("ci-agg").args(["--tokens", "--by", "session"]).arg(&db).run();
    assert_eq!(whole.stdout, before.stdout);
}

/// A ci-grep match names its row; ci-cat makes the event whole from it.
#[test]
fn a_grep_match_names_its_row_and_reads_back() {
    let (_dir, db) = planted_copy();
    let db = db.to_str().unwrap();
    let m = ci("ci-grep").args(["-F", "zebra orchid", db]).run();
    assert_eq!((m.stderr.as_str(), m.code), ("", 0));
    let rec = &m.json()[0];
    assert_eq!(rec["ci"]["line"], 5);
    assert_eq!(rec["ci"]["cut"]["table"], "part");
    let whole = ci("ci-cat").arg("--full").stdin(m.stdout.clone()).run();
    let direct = ci("ci-cat").args(["--full", db]).run().stdout;
    assert_eq!(whole.stdout, direct.lines().find(|l| l.contains("zebra orchid")).unwrap().to_owned() + "\n");
}

/// The file names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

/// A WAL database OpenCode closed (no `-wal`), in a folder made read-only:
/// read, and nothing is left beside it.
#[test]
fn a_wal_database_in_a_read_only_folder_is_read_leaving_nothing_beside_it() {
    use std::os::unix::fs::PermissionsExt;
    let (dir, db) = planted_copy();
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.pragma_update(None, "journal_mode", "wal").unwrap();
    drop(conn);
    assert_eq!(names(dir.path()), ["opencode.db"]);
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o555)).unwrap();
    let run = ci("ci-agg").args(["--tokens", "--by", "session"]).arg(&db).run();
    let left = names(dir.path());
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!((run.stderr.as_str(), run.code), ("", 0));
    assert_eq!(run.json().len(), 2);
    assert_eq!(left, ["opencode.db"]);
}

/// A database a writer holds locked (rollback journal) is reported with its path.
#[test]
fn a_locked_database_is_reported_with_its_path() {
    let (_dir, db) = planted_copy();
    let lock = "BEGIN EXCLUSIVE; DELETE FROM part WHERE rowid = 1;";
    crate::kit::live_db::while_locked(&db, lock, || ci("ci-agg").args(["--tokens"]).arg(&db).run());
}

/// A writer inserting one-step responses into a live WAL database (its own
/// connection, no busy timeout: SQLITE_BUSY would fail it) while ci-agg
/// reads: every answer counts a prefix of what was committed, the writer is
/// never blocked, and the last answer counts every response once.
#[test]
fn a_database_written_while_read_loses_and_doubles_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("opencode.db");
    let conn = crate::kit::live_db::wal_from_sql(&db, SQL);
    crate::kit::live_db::written_while_read(&db, conn, 2700, 200, |conn, i| {
        let data = r#"{"type":"step-finish","reason":"stop","cost":0,"tokens":{"input":1,"output":0,"reasoning":0,"cache":{"read":0,"write":0}}}"#;
        conn.execute(
            "INSERT INTO part VALUES (?1, 'msg_c0001', 'ses_child00001', 1781085640000, 1781085640000, ?2)",
            rusqlite::params![format!("prt_live{i:05}"), data],
        )
        .expect("the writer is never blocked");
    });
}

/// A copy of the sample data dir in a temporary folder.
fn handmade_copy() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let to = dir.path().join("opencode");
    crate::conformance::copy_tree(&root().join(HANDMADE), &to);
    (dir, to)
}

/// The legacy tree's part folder of the sample's message.
const LEGACY_PARTS: &str = "storage/part/msg_legacyA01";

/// A legacy part file that is not JSON is reported with its path (line 1,
/// the file's one record; the byte counted in the document with its
/// whitespace removed); the session's other files are read.
#[test]
fn a_legacy_part_file_that_is_not_json_is_reported_with_its_path_and_the_rest_kept() {
    let (_dir, data) = handmade_copy();
    std::fs::write(data.join(LEGACY_PARTS).join("prt_legacyA01b.json"), "{\"id\": \"prt_legacyA01b\", torn").unwrap();
    let run = ci("ci-agg").args(["--tokens", "--by", "session"]).arg(&data).run();
    let bad = data.join(LEGACY_PARTS).join("prt_legacyA01b.json");
    assert_eq!(
        run.stderr,
        format!(
            "{}:1: invalid JSON at byte 23: expected a key\nci-agg: 1 bad line skipped (--strict makes bad lines an error)\n",
            bad.display()
        )
    );
    assert_eq!(run.code, 0);
    let legacy = run.json().into_iter().find(|r| r["session"] == "ses_legacy0001").unwrap();
    assert_eq!(counts(&legacy), (1800, 300, 6400, 0));
}

/// A legacy document printed cut names its kind and the file's length; the
/// next tool reads the file again whole; a file changed since is reported.
#[test]
fn a_cut_legacy_document_reads_back_whole_and_a_changed_file_is_reported() {
    let (_dir, data) = handmade_copy();
    let long = data.join(LEGACY_PARTS).join("prt_legacyA00t.json");
    let text = "word ".repeat(300);
    let doc = format!(
        "{{\n  \"id\": \"prt_legacyA00t\",\n  \"sessionID\": \"ses_legacy0001\",\n  \"messageID\": \"msg_legacyA01\",\n  \"type\": \"text\",\n  \"text\": \"{text}\"\n}}\n"
    );
    std::fs::write(&long, &doc).unwrap();
    let cut = ci("ci-cat").args(["--max-bytes", "1k"]).arg(&data).run();
    assert_eq!((cut.stderr.as_str(), cut.code), ("", 0));
    let marked: Vec<&str> = cut.stdout.lines().filter(|l| l.contains(r#""cut":{"#)).collect();
    assert_eq!(marked.len(), 1, "{}", cut.stdout);
    let ours = marked[0];
    assert!(ours.contains("prt_legacyA00t"), "{ours}");
    let marker = format!(r#""line":1,"part":0,"cut":{{"document":"storage","bytes":{},"xxh3":"#, doc.len());
    assert!(ours.contains(&marker), "{ours}");
    assert!(ours.contains(r#""writer":"opencode"}}}"#), "{ours}");
    let full = ci("ci-cat").arg("--full").arg(&data).run().stdout;
    assert_eq!(ci("ci-cat").arg("--full").stdin(cut.stdout.clone()).run().stdout, full);

    // The same length, another record; another length.
    for changed in [doc.replace("word word", "word ward"), doc.clone() + "\n"] {
        std::fs::write(&long, changed).unwrap();
        let back = ci("ci-cat").arg("--full").stdin(ours.to_string() + "\n").run();
        assert_eq!(back.code, 2, "{back:?}");
        assert_eq!(
            back.stderr,
            format!("ci-cat: -:1: {}:1: the line changed since this record was printed cut\n", long.display())
        );
    }
}

/// A legacy file named as a PATH is its one record; a message without
/// `step-finish` parts is the response, its own `tokens` counted.
#[test]
fn a_legacy_file_is_its_record_and_a_message_without_steps_is_the_response() {
    let (_dir, data) = handmade_copy();
    let part = data.join(LEGACY_PARTS).join("prt_legacyA01a.json");
    let one = ci("ci-cat").arg(&part).run();
    assert_eq!((one.stderr.as_str(), one.code), ("", 0));
    let recs = one.json();
    assert_eq!(recs.len(), 1);
    assert_eq!((&recs[0]["event"], &recs[0]["ci"]["line"]), (&Value::from("llm:response"), &Value::from(1)));
    assert_eq!(recs[0]["ci"]["path"], part.to_str().unwrap());
    assert_eq!(recs[0]["data"]["model"], "gpt-5");

    std::fs::remove_file(&part).unwrap();
    let events = ci("ci-cat").arg(&data).run().json();
    let legacy: Vec<_> = events.iter().filter(|e| e["ci"]["session"] == "ses_legacy0001").collect();
    let names: Vec<_> = legacy.iter().map(|e| e["event"].as_str().unwrap()).collect();
    assert_eq!(names, ["session:start", "llm:response"]);
    assert_eq!(legacy[1]["data"]["steps"], 0);
    let rows = ci("ci-agg").args(["--tokens", "--by", "session"]).arg(&data).run().json();
    let row = rows.iter().find(|r| r["session"] == "ses_legacy0001").unwrap();
    assert_eq!((counts(row), row["cost_usd"].as_f64()), ((1800, 300, 6400, 0), Some(0.0042)));
}

/// A session in both the database and the legacy tree (OpenCode migrated
/// it) is the database's, read once.
#[test]
fn a_session_in_both_the_database_and_the_legacy_tree_is_read_once() {
    let (_dir, data) = handmade_copy();
    let before = ci("ci-agg").args(["--tokens", "--by", "session"]).arg(&data).run().stdout;
    let copy = |from: &str, to: &str, body: &str| {
        let path = data.join(to);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let text = std::fs::read_to_string(data.join(from)).unwrap();
        std::fs::write(path, text.replace("ses_legacy0001", "ses_child00001").replace("msg_legacyA01", body)).unwrap();
    };
    copy("storage/session/global/ses_legacy0001.json", "storage/session/global/ses_child00001.json", "msg_c0001");
    copy(
        "storage/message/ses_legacy0001/msg_legacyA01.json",
        "storage/message/ses_child00001/msg_c0001.json",
        "msg_c0001",
    );
    copy("storage/part/msg_legacyA01/prt_legacyA01a.json", "storage/part/msg_c0001/prt_c0001a.json", "msg_c0001");
    let found = ci("ci-find").args(["--root"]).arg(&data).run().json();
    let ids: Vec<_> = found.iter().map(|r| r["session"].as_str().unwrap()).collect();
    assert_eq!(ids, ["ses_child00001", "ses_parent0001", "ses_legacy0001"]);
    assert!(found[0]["path"].as_str().unwrap().ends_with("opencode.db"));
    assert_eq!(ci("ci-agg").args(["--tokens", "--by", "session"]).arg(&data).run().stdout, before);
}

/// A ci-grep match in a legacy file names that file (line 1) and its
/// document; ci-cat makes the event whole from it.
#[test]
fn a_grep_match_in_a_legacy_file_names_it_and_reads_back() {
    let planted = "fixtures/opencode/planted";
    let m = ci("ci-grep").args(["-F", "The build script compiles", planted]).run();
    assert_eq!((m.stderr.as_str(), m.code), ("", 0));
    let recs = m.json();
    assert_eq!(recs.len(), 1, "{}", m.stdout);
    let ci_ = &recs[0]["ci"];
    assert_eq!(ci_["path"], format!("{planted}/storage/part/msg_legacyA01/prt_legacyA00t.json"));
    assert_eq!(
        (&ci_["line"], &ci_["cut"]["document"], &ci_["cut"]["bytes"]),
        (&Value::from(1), &Value::from("storage"), &Value::from(1466))
    );
    let whole = ci("ci-cat").arg("--full").stdin(m.stdout.clone()).run();
    let direct = ci("ci-cat").args(["--full", planted]).run().stdout;
    assert_eq!(
        whole.stdout,
        direct.lines().find(|l| l.contains("The build script compiles")).unwrap().to_owned() + "\n"
    );
}
