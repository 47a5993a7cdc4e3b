#!/usr/bin/env python3
"""bench/gen-kimi.py - a synthetic Kimi CLI tree for benchmarks (not for tests:
tests/kimigen.rs writes the test trees, with their expected facts).

Usage: bench/gen-kimi.py DIR [SESSIONS (1700)] [SEED (3)]

Writes DIR/.kimi/sessions/<hash>/<uuid>/wire.jsonl (a HOME for ccusage, a root for ci-*:
DIR/.kimi): each session 30 turns of a TurnBegin, a StepBegin, a ToolCall, a StatusUpdate with
cached tokens, its ToolResult with a 3 KB output and a TurnEnd; every third session has a
subagent wire whose usage the parent mirrors in a SubagentEvent. No forks: ccusage would count
their copies again. Deterministic for a given SEED.
"""
import json
import os
import random
import sys
import uuid


def wire(path, lines):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write('{"type":"metadata","protocol_version":"1.10"}\n' + "\n".join(lines) + "\n")


def session(root, i, rng):
    sid = str(uuid.UUID(int=rng.getrandbits(128)))
    start = 1780272000 + (i % 28) * 86400 + 8 * 3600
    dump = lambda t, kind, payload: json.dumps({"timestamp": t, "message": {"type": kind, "payload": payload}},
                                               separators=(",", ":"))
    usage = lambda: {"input_other": rng.randint(100, 9000), "output": rng.randint(10, 900),
                     "input_cache_read": rng.randint(0, 60000), "input_cache_creation": rng.randint(0, 500)}
    lines = []
    for t in range(30):
        s = start + t * 60
        lines.append(dump(s, "TurnBegin", {"user_input": "please do step %d " % t + "y" * 200}))
        lines.append(dump(s + 0.1, "StepBegin", {"n": 1}))
        lines.append(dump(s + 2.0, "ToolCall", {"type": "function", "id": "tool_%d" % t, "function": {
            "name": "ReadFile", "arguments": json.dumps({"path": "f%d" % t})}, "extras": None}))
        lines.append(dump(s + 2.1, "StatusUpdate", {"token_usage": usage(), "message_id": "chatcmpl-%s-%d" % (sid[:8], t)}))
        lines.append(dump(s + 3.0, "ToolResult", {"tool_call_id": "tool_%d" % t, "return_value": {
            "is_error": False, "output": "w" * 3000, "message": None, "display": [], "extras": None}}))
        lines.append(dump(s + 3.1, "TurnEnd", {}))
    folder = os.path.join(root, ".kimi", "sessions", "%032x" % (i % 7), sid)
    if i % 3 == 0:
        s = start + 30 * 60
        u = usage()
        sub = [dump(s, "TurnBegin", {"user_input": "explore"}),
               dump(s + 1.0, "StatusUpdate", {"token_usage": u, "message_id": "chatcmpl-sub-%s" % sid[:8]})]
        wire(os.path.join(folder, "subagents", "agent-%d" % i, "wire.jsonl"), sub)
        lines.append(dump(s + 1.0, "SubagentEvent", {"agent_id": "agent-%d" % i, "event": {
            "type": "StatusUpdate", "payload": {"token_usage": u, "message_id": "chatcmpl-sub-%s" % sid[:8]}}}))
    wire(os.path.join(folder, "wire.jsonl"), lines)


def main():
    root = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1700
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 3)
    for i in range(n):
        session(root, i, rng)


if __name__ == "__main__":
    main()
