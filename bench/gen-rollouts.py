#!/usr/bin/env python3
"""bench/gen-rollouts.py - a synthetic Codex CLI rollout tree for benchmarks (not for tests:
tests/codexgen.rs writes the test trees, with their expected facts).

Usage: bench/gen-rollouts.py DIR [SESSIONS (3000)] [SEED (3)]

Writes DIR/sessions/2026/02/DD/rollout-2026-02-DDT08-00-00-<uuid>.jsonl: each session a
session_meta line with 20 KB of instructions, then 30 turns of turn_context (the model changes),
a function_call with its 3 KB output and a token_count (last and running total); 30% of the
token counts are written twice (Codex re-emits them). 3000 sessions are about 414 MB.
Deterministic for a given SEED. Then: BENCH_CODEX=DIR CCUSAGE=... bench/run.sh
"""
import json
import os
import random
import sys
import uuid


def session(root, i, rng):
    sid = str(uuid.UUID(int=rng.getrandbits(128)))
    day = 1 + i % 28
    ts = lambda m: "2026-02-%02dT%02d:%02d:00.000Z" % (day, 8 + m // 60, m % 60)
    dump = lambda o: json.dumps(o, separators=(",", ":"))
    lines = [dump({"timestamp": ts(0), "type": "session_meta",
                   "payload": {"id": sid, "timestamp": ts(0), "cwd": "/home/u/p%d" % (i % 7),
                               "originator": "codex_cli_rs", "cli_version": "0.63.0",
                               "instructions": "x" * 20000}})]
    total = [0, 0, 0, 0]
    m = 1
    for t in range(30):
        model = rng.choice(["gpt-5", "gpt-5-codex", "gpt-5.1-codex-max"])
        lines.append(dump({"timestamp": ts(m), "type": "turn_context", "payload": {"model": model}}))
        args = json.dumps({"command": "ls " + "y" * 200})
        lines.append(dump({"timestamp": ts(m + 1), "type": "response_item", "payload": {
            "type": "function_call", "name": "shell", "arguments": args, "call_id": "c%d" % t}}))
        lines.append(dump({"timestamp": ts(m + 2), "type": "response_item", "payload": {
            "type": "function_call_output", "call_id": "c%d" % t, "output": "z" * 3000}}))
        last = [rng.randint(500, 9000), rng.randint(0, 400), rng.randint(10, 900), rng.randint(0, 9)]
        total = [a + b for a, b in zip(total, last)]
        usage = lambda a: {"input_tokens": a[0], "cached_input_tokens": a[1], "output_tokens": a[2],
                           "reasoning_output_tokens": a[3], "total_tokens": a[0] + a[2]}
        ev = dump({"timestamp": ts(m + 3), "type": "event_msg", "payload": {
            "type": "token_count", "info": {"total_token_usage": usage(total), "last_token_usage": usage(last)}}})
        lines.append(ev)
        if rng.random() < 0.3:
            lines.append(ev)
        m += 4
    d = os.path.join(root, "sessions/2026/02/%02d" % day)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "rollout-2026-02-%02dT08-00-00-%s.jsonl" % (day, sid)), "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    root = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 3000
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 3)
    for i in range(n):
        session(root, i, rng)


if __name__ == "__main__":
    main()
