#!/usr/bin/env python3
"""bench/gen-opencode.py - a synthetic OpenCode data dir for benchmarks (not for tests:
tests/opencodegen.rs writes the test databases, with their expected facts).

Usage: bench/gen-opencode.py DIR [SESSIONS (1100)] [SEED (5)]

Writes DIR/opencode.db (OpenCode's tables as of v1.16, formats-next.md section 3.2; a root for
ci-* and OPENCODE_DATA_DIR for ccusage): each session 30 turns of a user message with a text
part, and an assistant message of two steps (step-start, a tool call with a 3 KB output, a
step-finish with cached tokens and reasoning, then a step-start, a 1 KB text and the last
step-finish); the message's tokens hold its last step only, its cost both (as OpenCode writes
them). Sessions spread over 28 days. About 285 KB a session (rows and indexes): 1,100 sessions
make about 314 MB.
Deterministic for a given SEED.
"""
import json
import os
import random
import sqlite3
import sys

# The tables, shared with the test generator (tests/opencodegen.rs).
SCHEMA_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "opencode", "schema.sql")


def dump(v):
    return json.dumps(v, separators=(",", ":"))


def main():
    out = sys.argv[1]
    sessions = int(sys.argv[2]) if len(sys.argv) > 2 else 1100
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 5)
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, "opencode.db")
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path)
    with open(SCHEMA_FILE) as f:
        db.executescript(f.read())
    db.execute("INSERT INTO project VALUES ('global', '/', 0, 0)")
    msg = prt = 0
    for s in range(sessions):
        sid = "ses_%010d" % s
        t = 1780272000000 + (s % 28) * 86400000 + 8 * 3600000 + s * 1000
        messages, parts = [], []

        def part(mid, at, data):
            nonlocal prt
            prt += 1
            parts.append(("prt_%010d" % prt, mid, sid, at, at, dump(data)))

        for turn in range(30):
            at = t + turn * 60000
            msg += 1
            user = "msg_%010d" % msg
            messages.append((user, sid, at, at, dump({"role": "user", "time": {"created": at}, "agent": "build",
                                                      "model": {"providerID": "anthropic", "modelID": "claude-sonnet-4-5"}})))
            part(user, at, {"type": "text", "text": "please do step %d " % turn + "y" * 200})
            msg += 1
            asst = "msg_%010d" % msg
            steps, cost = [], 0.0
            for k in range(2):
                s0 = at + 1000 + k * 20000
                part(asst, s0, {"type": "step-start"})
                if k == 0:
                    part(asst, s0 + 500, {"type": "tool", "callID": "toolu_%d" % prt, "tool": "read", "state": {
                        "status": "completed", "input": {"filePath": "/w/f%d.rs" % turn}, "output": "z" * 3000,
                        "metadata": {}, "time": {"start": s0 + 500, "end": s0 + 900}}})
                else:
                    part(asst, s0 + 500, {"type": "text", "text": "done " + "x" * 1000})
                tokens = {"input": rng.randint(100, 9000), "output": rng.randint(10, 900),
                          "reasoning": rng.randint(0, 300),
                          "cache": {"read": rng.randint(0, 60000), "write": rng.randint(0, 500)}}
                step_cost = rng.randint(1, 500) / 10000
                cost += step_cost
                part(asst, s0 + 1000, {"type": "step-finish", "reason": "tool-calls" if k == 0 else "stop",
                                       "cost": step_cost, "tokens": tokens})
                steps.append(tokens)
            messages.append((asst, sid, at + 1000, at + 45000, dump({
                "role": "assistant", "time": {"created": at + 1000, "completed": at + 45000}, "parentID": user,
                "modelID": "claude-sonnet-4-5", "providerID": "anthropic", "mode": "build", "agent": "build",
                "path": {"cwd": "/w/demo", "root": "/w/demo"}, "cost": round(cost, 6), "tokens": steps[-1],
                "finish": "stop"})))
        db.execute("INSERT INTO session VALUES (?, 'global', NULL, 'slug', '/w/demo', 'title', '1.17.13', 0, 0, 0, ?, ?)",
                   (sid, t, t + 30 * 60000))
        db.executemany("INSERT INTO message VALUES (?, ?, ?, ?, ?)", messages)
        db.executemany("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)", parts)
        if s % 100 == 99:
            db.commit()
    db.commit()
    db.close()


if __name__ == "__main__":
    main()
