//! Goose: the hand-made sessions folder (fixtures/goose/handmade, the
//! shared sample with its expected totals) against SOURCE.md and ccusage
//! 20.0.24's answers, every tool on it, damaged rows and lines, and a
//! database being written or locked.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::util::{ci, root};

/// The sample's sessions folder: `sessions.db` + a legacy JSONL session.
const SESSIONS: &str = "fixtures/goose/handmade/.local/share/goose/sessions";
/// The sample's database.
const DB: &str = "fixtures/goose/handmade/.local/share/goose/sessions/sessions.db";
/// The script the sample database is built from.
const SQL: &str = "fixtures/goose/handmade/sessions-v15-minimal.sql";

/// SOURCE.md: the database session's ledger rows sum to 24,500 / 490 and
/// cost 0.0412 (its `accumulated_*`, equal, are not added on top); the
/// legacy session's `accumulated_*` count once, 24,500 / 490, without a
/// model (no cost).
#[test]
fn the_sample_counts_the_expected_totals_of_source_md() {
    let run = ci("ci-agg").args(["--tokens", "--by", "session", SESSIONS]).run();
    assert_eq!((run.stderr.as_str(), run.code), ("", 0));
    assert_eq!(
        run.stdout,
        concat!(
            r#"{"session":"20260801_1","model":"claude-sonnet-4-5","responses":2,"input_tokens":24500,"output_tokens":490,"cache_read_tokens":0,"cache_write_tokens":0,"cost_usd":0.0412,"cost_source":"writer","unpriced_models":[]}"#,
            "\n",
            r#"{"session":"20250901_101500","model":null,"responses":1,"input_tokens":24500,"output_tokens":490,"cache_read_tokens":0,"cache_write_tokens":0,"cost_usd":null,"cost_source":"unpriced","unpriced_models":[]}"#,
            "\n"
        )
    );
}

/// ccusage 20.0.24 reads the database's `accumulated_*` (equal to the
/// ledger here) and no legacy file; its cost is priced from the tokens
/// (README's Goose table).
#[test]
fn ccusage_agrees_on_the_database_tokens_and_reads_no_legacy_file() {
    let text = std::fs::read_to_string(root().join("fixtures/goose/handmade/ccusage-daily.json")).unwrap();
    let theirs: Value = serde_json::from_str(&text).unwrap();
    let days = theirs["daily"].as_array().unwrap();
    assert_eq!(days.len(), 1);
    let ours = ci("ci-agg").args(["--tokens", "--by", "day", SESSIONS]).run().json();
    let day = ours.iter().find(|r| r["day"] == days[0]["date"]).unwrap();
    for (a, b) in [("input_tokens", "inputTokens"), ("output_tokens", "outputTokens")] {
        assert_eq!(day[a], days[0][b], "{a}");
    }
    assert_eq!((day["cache_read_tokens"].as_u64(), day["cache_write_tokens"].as_u64()), (Some(0), Some(0)));
    assert_eq!(ours.len(), 2, "ours has the legacy session's day too: {ours:?}");
}

/// `--tokens --by day`: each session on its own day.
#[test]
fn tokens_by_day() {
    let run = ci("ci-agg").args(["--tokens", "--by", "day", SESSIONS]).run();
    assert_eq!((run.stderr.as_str(), run.code), ("", 0));
    assert_eq!(
        run.stdout,
        concat!(
            r#"{"day":"2025-09-01","tz":"UTC","model":null,"responses":1,"input_tokens":24500,"output_tokens":490,"cache_read_tokens":0,"cache_write_tokens":0,"cost_usd":null,"cost_source":"unpriced","unpriced_models":[]}"#,
            "\n",
            r#"{"day":"2026-08-01","tz":"UTC","model":"claude-sonnet-4-5","responses":2,"input_tokens":24500,"output_tokens":490,"cache_read_tokens":0,"cache_write_tokens":0,"cost_usd":0.0412,"cost_source":"writer","unpriced_models":[]}"#,
            "\n"
        )
    );
}

/// ci-find: the database's session, then the legacy file's.
#[test]
fn sessions_are_found_in_the_database_and_the_legacy_file() {
    let run = ci("ci-find").args(["--root", SESSIONS]).run();
    assert_eq!((run.stderr.as_str(), run.code), ("", 0));
    let got: Vec<_> = run
        .json()
        .iter()
        .map(|r| {
            let keys = ["session", "working_dir", "project", "model", "started_at", "last_event_at", "tags", "path"];
            keys.map(|k| r[k].to_string()).join(" ")
        })
        .collect();
    assert_eq!(
        got,
        [
            format!(
                r#""20260801_1" "/home/dev/demo" "-home-dev-demo" "claude-sonnet-4-5" "2026-08-01T10:15:00Z" "2026-08-01T10:16:00Z" ["provider:anthropic"] "{DB}""#
            ),
            format!(
                r#""20250901_101500" "/home/dev/demo" "-home-dev-demo" null "2025-09-01T10:15:00Z" "2025-09-01T10:15:20Z" ["legacy"] "{SESSIONS}/20250901_101500.jsonl""#
            ),
        ]
    );
}

/// `--sessions`: events, the failed shell call, tokens of each session.
#[test]
fn each_session_has_its_events_and_failed_call() {
    let run = ci("ci-agg").args(["--sessions", SESSIONS]).run();
    assert_eq!((run.stderr.as_str(), run.code), ("", 0));
    let got: Vec<_> = run
        .json()
        .iter()
        .map(|r| (r["session"].to_string(), r["events"].to_string(), r["tool_errors"].clone(), r["tokens"].to_string()))
        .collect();
    let tokens = r#"{"input":24500,"output":490,"cache_read":0,"cache_write":0}"#.to_owned();
    assert_eq!(
        got,
        [
            (
                r#""20260801_1""#.to_owned(),
                r#"{"goose:message":1,"llm:response":2,"prompt:submit":1,"session:start":1,"tool:error":1,"tool:pre":1}"#
                    .to_owned(),
                Value::from(1),
                tokens.clone()
            ),
            (
                r#""20250901_101500""#.to_owned(),
                r#"{"goose:message":2,"llm:response":1,"prompt:submit":1,"session:start":1,"tool:error":1,"tool:pre":1}"#
                    .to_owned(),
                Value::from(1),
                tokens
            ),
        ]
    );
}

/// `--tools`: the shell call of each session failed (`toolResult.status`).
#[test]
fn tool_requests_and_responses_are_calls_with_their_failures() {
    let run = ci("ci-agg").args(["--tools", SESSIONS]).run();
    assert_eq!(
        run.stdout,
        concat!(
            r#"{"tool":"developer__shell","calls":2,"ok":0,"errors":2,"unfinished":0,"success_rate":0,"p50_ms":6000,"p95_ms":6000,"max_ms":6000}"#,
            "\n"
        )
    );
    let errors = ci("ci-filter").args(["--errors", SESSIONS]).run().json();
    let got: Vec<_> = errors.iter().map(|e| (e["event"].clone(), e["data"]["id"].clone())).collect();
    assert_eq!(
        got,
        [(Value::from("tool:error"), Value::from("toolu_01")), (Value::from("tool:error"), Value::from("toolu_01"))]
    );
}

/// ci-grep names the database row (table, rowid) and the legacy line;
/// ci-cat makes each match's event whole from it.
#[test]
fn a_grep_match_names_its_row_or_line_and_reads_back() {
    let m = ci("ci-grep").args(["-F", "Trimmed the fixture", SESSIONS]).run();
    assert_eq!((m.stderr.as_str(), m.code), ("", 0));
    let sites: Vec<_> =
        m.json().iter().map(|r| (r["ci"]["path"].clone(), r["ci"]["line"].clone(), r["ci"]["cut"].clone())).collect();
    assert_eq!(sites[0].0, DB);
    assert_eq!(sites[0].1, 6);
    assert_eq!((sites[0].2["table"].as_str(), sites[0].2["rowid"].as_u64()), (Some("messages"), Some(4)));
    assert_eq!(sites[1].0, format!("{SESSIONS}/20250901_101500.jsonl"));
    assert_eq!((sites[1].1.as_u64(), sites[1].2["offset"].as_u64()), (Some(5), Some(805)));
    let whole = ci("ci-cat").arg("--full").stdin(m.stdout.clone()).run();
    let direct = ci("ci-cat").args(["--full", SESSIONS]).run().stdout;
    let want: Vec<&str> = direct.lines().filter(|l| l.contains("Trimmed the fixture")).collect();
    assert_eq!(whole.stdout.lines().collect::<Vec<_>>(), want);
}

/// A copy of the sample folder in a temporary folder.
fn sample_copy() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    for name in ["sessions.db", "20250901_101500.jsonl"] {
        std::fs::copy(root().join(SESSIONS).join(name), dir.path().join(name)).unwrap();
    }
    let db = dir.path().join("sessions.db");
    (dir, db)
}

/// A damaged message row and a legacy line cut in half are reported at
/// their site; every other record is kept (the tokens are unchanged).
#[test]
fn a_damaged_row_and_a_cut_line_are_reported_at_their_site() {
    let (dir, db) = sample_copy();
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute("UPDATE messages SET content_json = '[{\"type\":\"text\",\"te' WHERE message_id = 'msg_4'", [])
        .unwrap();
    drop(conn);
    let legacy = dir.path().join("20250901_101500.jsonl");
    let text = std::fs::read_to_string(&legacy).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines[3] = &lines[3][..lines[3].len() / 2];
    std::fs::write(&legacy, lines.join("\n") + "\n").unwrap();
    let run = ci("ci-agg").args(["--tokens", "--by", "session"]).arg(dir.path()).run();
    let d = dir.path().display();
    assert_eq!(
        run.stderr,
        format!(
            "{d}/sessions.db:6: its content is not a JSON array (damaged or half-written row or line)\n\
             {d}/20250901_101500.jsonl:4: torn record: line ends inside a JSON value\n\
             ci-agg: 2 bad lines skipped (--strict makes bad lines an error)\n"
        )
    );
    let rows = run.json();
    let got: Vec<_> = rows.iter().map(|r| (r["input_tokens"].as_u64(), r["output_tokens"].as_u64())).collect();
    assert_eq!(got, [(Some(24500), Some(490)), (Some(24500), Some(490))]);
    let cat = ci("ci-cat").arg(dir.path()).run();
    assert!(cat.stderr.contains(&format!("{d}/sessions.db:6: ")), "{}", cat.stderr);
    assert!(cat.stderr.contains(&format!("{d}/20250901_101500.jsonl:4: ")), "{}", cat.stderr);
}

/// The file names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

/// A WAL database in a read-only folder is read, nothing left beside it;
/// a locked one is reported with its path.
#[test]
fn a_wal_database_in_a_read_only_folder_is_read_and_a_locked_one_reported() {
    use std::os::unix::fs::PermissionsExt;
    let (dir, db) = sample_copy();
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.pragma_update(None, "journal_mode", "wal").unwrap();
    drop(conn);
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o555)).unwrap();
    let run = ci("ci-agg").args(["--tokens"]).arg(&db).run();
    let left = names(dir.path());
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!((run.stderr.as_str(), run.code), ("", 0));
    assert_eq!(run.json()[0]["input_tokens"], 24500);
    assert_eq!(left, ["20250901_101500.jsonl", "sessions.db"]);

    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.pragma_update(None, "journal_mode", "delete").unwrap();
    drop(conn);
    let lock = "BEGIN EXCLUSIVE; DELETE FROM usage_ledger WHERE rowid = 1;";
    crate::kit::live_db::while_locked(&db, lock, || ci("ci-agg").args(["--tokens"]).arg(&db).run());
}

/// A writer inserting ledger rows into a live WAL database (no busy
/// timeout: SQLITE_BUSY would fail it) while ci-agg reads: every answer
/// counts a prefix, and the last one every row once.
#[test]
fn a_database_written_while_read_loses_and_doubles_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sessions.db");
    let conn = crate::kit::live_db::wal_from_sql(&db, SQL);
    crate::kit::live_db::written_while_read(&db, conn, 24500, 200, |conn, _| {
        let sql = "INSERT INTO usage_ledger (session_id, created_timestamp, model, input_tokens, output_tokens) \
                   VALUES ('20260801_1', 1785579330, 'claude-sonnet-4-5', 1, 0)";
        conn.execute(sql, []).expect("the writer is never blocked");
    });
}

/// A legacy session's totals are made for its first message from the
/// metadata line before it: a record of that part read back from its
/// marker reads the file up to it again (`reread`'s replay).
#[test]
fn a_legacy_sessions_totals_read_back_from_their_marker() {
    let file = format!("{SESSIONS}/20250901_101500.jsonl");
    let m = ci("ci-grep").args(["-F", "Run the tests", &file]).run();
    assert_eq!((m.stderr.as_str(), m.code), ("", 0));
    // Its first message has one content item: the totals are part 2.
    let marker = m.stdout.replace(r#""part":0"#, r#""part":2"#);
    let back = ci("ci-cat").arg("--full").stdin(marker).run();
    assert_eq!((back.stderr.as_str(), back.code), ("", 0));
    assert_eq!(
        back.json()[0]["data"].to_string(),
        r#"{"usage":{"input_tokens":24500,"output_tokens":490,"cache_read_tokens":0,"cache_write_tokens":0}}"#
    );
}

/// The legacy session's totals are an event of its first message (line 2)
/// numbered after its content items (part 2), and a cut copy of every
/// record of the folder is made whole again as the direct read prints it.
#[test]
fn a_legacy_sessions_totals_have_a_part_after_their_lines_items() {
    let cat = ci("ci-cat").arg(format!("{SESSIONS}/20250901_101500.jsonl")).run();
    assert_eq!((cat.stderr.as_str(), cat.code), ("", 0));
    let sites: Vec<_> = cat
        .json()
        .iter()
        .filter(|r| r["event"] == "llm:response")
        .map(|r| (r["ci"]["line"].as_u64(), r["ci"]["part"].as_u64()))
        .collect();
    assert_eq!(sites, [(Some(2), Some(2))]);
    for dir in [SESSIONS, OLD] {
        let cut = ci("ci-cat").args([dir, "--max-bytes", "1k"]).run();
        let whole = ci("ci-cat").arg("--full").stdin(cut.stdout).run();
        let direct = ci("ci-cat").args(["--full", dir]).run();
        assert_eq!((whole.stderr.as_str(), whole.code), ("", 0));
        assert_eq!(whole.stdout, direct.stdout, "{dir}");
    }
}

/// A database of schema v5 (fixtures/goose/v5.sql, before usage_ledger).
const OLD: &str = "fixtures/goose/v5";

/// v5.sql's totals, by hand: each session with `accumulated_*` counts them
/// once at its creation (3000 / 150 on 2025-10-10, 800 / 40 on 2025-10-12),
/// one without counts nothing; no model, so no cost.
#[test]
fn a_database_before_the_ledger_counts_its_session_totals() {
    let run = ci("ci-agg").args(["--tokens", "--by", "day", OLD]).run();
    assert_eq!((run.stderr.as_str(), run.code), ("", 0));
    assert_eq!(
        run.stdout,
        concat!(
            r#"{"day":"2025-10-10","tz":"UTC","model":null,"responses":1,"input_tokens":3000,"output_tokens":150,"cache_read_tokens":0,"cache_write_tokens":0,"cost_usd":null,"cost_source":"unpriced","unpriced_models":[]}"#,
            "\n",
            r#"{"day":"2025-10-12","tz":"UTC","model":null,"responses":1,"input_tokens":800,"output_tokens":40,"cache_read_tokens":0,"cache_write_tokens":0,"cost_usd":null,"cost_source":"unpriced","unpriced_models":[]}"#,
            "\n"
        )
    );
    let events = ci("ci-agg").args(["--by", "event", OLD]).run();
    assert_eq!(
        events.stdout,
        concat!(
            r#"{"event":"prompt:submit","count":3}"#,
            "\n",
            r#"{"event":"session:start","count":3}"#,
            "\n",
            r#"{"event":"goose:message","count":2}"#,
            "\n",
            r#"{"event":"llm:response","count":2}"#,
            "\n",
            r#"{"event":"tool:post","count":1}"#,
            "\n",
            r#"{"event":"tool:pre","count":1}"#,
            "\n"
        )
    );
}

/// A match in a database before the ledger names its row (`main.messages`,
/// the table of such a database's messages) and reads back.
#[test]
fn a_grep_match_in_a_database_before_the_ledger_reads_back() {
    let m = ci("ci-grep").args(["-F", "README.md only", OLD]).run();
    assert_eq!((m.stderr.as_str(), m.code), ("", 0));
    let hit = &m.json()[0];
    assert_eq!(hit["ci"]["line"].as_u64(), Some(5));
    assert_eq!(
        (hit["ci"]["cut"]["table"].as_str(), hit["ci"]["cut"]["rowid"].as_u64()),
        (Some("main.messages"), Some(4))
    );
    let back = ci("ci-cat").arg("--full").stdin(m.stdout.clone()).run();
    let direct = ci("ci-cat").args(["--full", OLD]).run().stdout;
    let want: Vec<&str> = direct.lines().filter(|l| l.contains("README.md only")).collect();
    assert_eq!(back.stdout.lines().collect::<Vec<_>>(), want);
    assert!(want[0].contains(r#""id":"msg_20251010_1_4""#), "the id Goose's v7 migration gives it: {}", want[0]);
}

/// A database whose tables lack a column every Goose schema has is
/// reported with its path and schema version; nothing else is read.
#[test]
fn a_database_of_an_unknown_schema_is_reported_by_path() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sessions.db");
    std::fs::copy(root().join(OLD).join("sessions.db"), &db).unwrap();
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch("ALTER TABLE sessions DROP COLUMN accumulated_input_tokens").unwrap();
    drop(conn);
    let run = ci("ci-agg").args(["--tokens"]).arg(dir.path()).run();
    assert_eq!(
        run.stderr,
        format!(
            "ci-agg: {}: a Goose database of a schema not known (schema_version 5): its sessions table has no \
             column accumulated_input_tokens; not read\nci-agg: looked in {}, found 0\n",
            db.display(),
            dir.path().display()
        )
    );
    assert_eq!((run.stdout.as_str(), run.code), ("", 2));
}

/// A ledger row marked `is_compaction` is a response (its tokens count as
/// the ledger says) and then a `context:compaction` of the same row.
#[test]
fn a_compaction_ledger_row_is_a_response_and_a_compaction() {
    let (dir, db) = sample_copy();
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute("UPDATE usage_ledger SET is_compaction = 1 WHERE id = 2", []).unwrap();
    drop(conn);
    let cat = ci("ci-cat").arg(&db).run();
    assert_eq!((cat.stderr.as_str(), cat.code), ("", 0));
    let last: Vec<_> = cat
        .json()
        .iter()
        .rev()
        .take(2)
        .map(|r| (r["event"].as_str().unwrap().to_owned(), r["ci"]["line"].as_u64(), r["ci"]["part"].as_u64()))
        .collect();
    let want = [("context:compaction", Some(7), Some(1)), ("llm:response", Some(7), Some(0))];
    assert_eq!(last, want.map(|(e, l, p)| (e.to_owned(), l, p)));
    let tokens = ci("ci-agg").args(["--tokens"]).arg(&db).run().json();
    assert_eq!((tokens[0]["input_tokens"].as_u64(), tokens[0]["responses"].as_u64()), (Some(24500), Some(2)));
    let sessions = ci("ci-agg").args(["--sessions"]).arg(dir.path()).run().json();
    let db_session = sessions.iter().find(|s| s["session"] == "20260801_1").unwrap();
    assert_eq!(db_session["compactions"], 1);
}
