#!/usr/bin/env python3
"""bench/gen-goose.py - a synthetic Goose home for benchmarks (not for tests: tests/goose.rs
reads the hand-made fixtures, with their expected totals).

Usage: bench/gen-goose.py HOME_DIR [SESSIONS (1200)] [SEED (5)]

Writes HOME_DIR/.local/share/goose/sessions/sessions.db (Goose's schema v15 tables as in
fixtures/goose/handmade/sessions-v15-minimal.sql; a root for ci-* and, with HOME=HOME_DIR, for
ccusage): each session 30 turns of a user message, an assistant tool request, its 3 KB tool
response and a 1 KB assistant answer, with two usage_ledger rows a turn (the tool request's and
the answer's; cache reads on the second); every 10th session has no ledger rows (its
accumulated_* totals only, as Goose before v15 kept them), every 7th ledger session a
compaction row (is_compaction = 1). accumulated_* = the sums of the session's ledger rows, as
Goose keeps them. Sessions spread over 28 days, each within one day (starting 08:00 UTC).
About 255 KB a session (rows and indexes): 1,200 sessions make about 306 MB. Deterministic for a given SEED.
"""
import json
import os
import random
import sqlite3
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA_SQL = os.path.join(HERE, "..", "fixtures", "goose", "handmade", "sessions-v15-minimal.sql")


def schema():
    """The CREATE TABLE statements of the hand-made v15 script (its INSERTs left out)."""
    text = open(SCHEMA_SQL).read()
    stmts = [s.strip() for s in text.split(";")]
    return ";\n".join(s for s in stmts if "CREATE TABLE" in s) + ";"


def dump(v):
    return json.dumps(v, separators=(",", ":"))


def main():
    home = sys.argv[1]
    sessions = int(sys.argv[2]) if len(sys.argv) > 2 else 1200
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 5)
    folder = os.path.join(home, ".local", "share", "goose", "sessions")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "sessions.db")
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path)
    db.executescript(schema())
    db.execute("CREATE INDEX idx_messages_session ON messages(session_id)")
    db.execute("CREATE INDEX idx_usage_ledger_session ON usage_ledger(session_id)")
    model = "claude-sonnet-4-5"
    config = dump({"model_name": model, "context_limit": 200000})
    for s in range(sessions):
        day = s % 28
        sid = "202606%02d_%d" % (day + 1, s // 28 + 1)
        t = 1780272000 + day * 86400 + 8 * 3600 + (s // 28) * 20
        messages, ledger = [], []
        ledgered = s % 10 != 9
        for turn in range(30):
            at = t + turn * 2
            call = "toolu_%d_%d" % (s, turn)
            out = "".join(rng.choice("abcdefgh ") for _ in range(3000))
            answer = "".join(rng.choice("ijklmnop ") for _ in range(1000))
            messages += [
                ("user", [{"type": "text", "text": "turn %d: list the files" % turn}], at),
                ("assistant", [{"type": "toolRequest", "id": call, "toolCall": {"status": "success",
                  "value": {"name": "developer__shell", "arguments": {"command": "ls"}}}}], at),
                ("user", [{"type": "toolResponse", "id": call, "toolResult": {"status": "success",
                  "value": [{"type": "text", "text": out}]}}], at + 1),
                ("assistant", [{"type": "text", "text": answer}], at + 1),
            ]
            for k in range(2):
                inp, outp = rng.randint(2000, 9000), rng.randint(50, 900)
                read = rng.randint(1000, 5000) if k == 1 else 0
                ledger.append((at + k, inp, outp, read, 0, round((inp * 3 + outp * 15) / 1e6, 6), 0))
        if ledgered and s % 7 == 0:
            at = t + 61
            ledger.append((at, 40000, 2000, 0, 0, 0.15, 1))
        acc = [sum(r[i] for r in ledger) for i in (1, 2, 3, 4)]
        cost = round(sum(r[5] for r in ledger), 6)
        db.execute(
            "INSERT INTO sessions VALUES (?,?,?,?,?,?,?,NULL,?,?,?,?,?,?,?,?,?,?,?)",
            (sid, "bench %d" % s, "bench %d" % s, "user", "/home/dev/p%d" % (s % 40),
             "2026-06-%02d %02d:%02d:%02d" % (day + 1, 8 + (s // 28) * 20 // 3600, (s // 28) * 20 // 60 % 60,
                                               (s // 28) * 20 % 60),
             "2026-06-%02d 23:00:00" % (day + 1), "anthropic", config,
             ledger[-1][1] + ledger[-1][2], ledger[-1][1], ledger[-1][2],
             acc[0] + acc[1], acc[0], acc[1], acc[2], acc[3], cost))
        db.executemany(
            "INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp) VALUES (?,?,?,?,?)",
            [("msg_%s_%d" % (sid, i), sid, role, dump(content), at) for i, (role, content, at) in enumerate(messages)])
        if ledgered:
            db.executemany(
                "INSERT INTO usage_ledger (session_id, created_timestamp, model, input_tokens, output_tokens, "
                "total_tokens, cache_read_tokens, cache_write_tokens, cost, cost_source, is_compaction) "
                "VALUES (?,?,?,?,?,?,?,?,?,'estimated',?)",
                [(sid, at, model, i, o, i + o, r, w, c, comp) for at, i, o, r, w, c, comp in ledger])
    db.commit()
    db.close()
    print("%s: %d bytes, %d sessions" % (path, os.path.getsize(path), sessions))


if __name__ == "__main__":
    main()
