#!/usr/bin/env python3
"""bench/gen-qwen.py - a synthetic Qwen Code tree for benchmarks (not for tests:
tests/qwengen.rs writes the test trees, with their expected facts).

Usage: bench/gen-qwen.py DIR [SESSIONS (1700)] [SEED (3)]

Writes DIR/.qwen/projects/-home-u-pN/chats/<uuid>.jsonl (a HOME for ccusage, a root for ci-*:
DIR/.qwen): each session 30 turns of a user prompt, an assistant record with a 2 KB text and
a functionCall, its tool_result with a 3 KB output, and a ui_telemetry system record; usage with
cached tokens (promptTokenCount includes them). No forks: ccusage would count their copies
again. 1700 sessions are about 333 MB. Deterministic for a given SEED.
"""
import json
import os
import random
import sys
import uuid


def session(root, i, rng):
    sid = str(uuid.UUID(int=rng.getrandbits(128)))
    day = 1 + i % 28
    ts = lambda m: "2026-02-%02dT%02d:%02d:%02d.000Z" % (day, 8 + m // 3600, m // 60 % 60, m % 60)
    dump = lambda o: json.dumps(o, separators=(",", ":"))
    cwd = "/home/u/p%d" % (i % 7)
    base = {"sessionId": sid, "cwd": cwd, "version": "0.15.0", "gitBranch": "main"}
    lines = []
    parent = None
    for t in range(30):
        def rec(kind, sec, **more):
            nonlocal parent
            r = dict(base, uuid="%s-%d-%s" % (sid[:8], t, kind[0]), parentUuid=parent, timestamp=ts(t * 60 + sec),
                     type=kind)
            r.update(more)
            parent = r["uuid"]
            lines.append(dump(r))
        rec("user", 0, message={"role": "user", "parts": [{"text": "please do step %d " % t + "y" * 200}]})
        prompt = rng.randint(2000, 60000)
        cached = rng.randint(0, prompt) if t else 0
        rec("assistant", 3, model="qwen3-coder-plus" if t % 5 else "qwen3-coder-flash",
            message={"role": "model", "parts": [{"text": "z" * 2000},
                                                {"functionCall": {"id": "call_%d" % t, "name": "read_file",
                                                                  "args": {"absolute_path": cwd + "/f%d" % t}}}]},
            usageMetadata={"promptTokenCount": prompt, "candidatesTokenCount": rng.randint(10, 900),
                           "cachedContentTokenCount": cached, "thoughtsTokenCount": 0,
                           "totalTokenCount": prompt + 1000})
        rec("tool_result", 5, message={"role": "user", "parts": [{"functionResponse": {
            "id": "call_%d" % t, "name": "read_file", "response": {"output": "w" * 3000}}}]},
            toolCallResult={"callId": "call_%d" % t, "status": "success"})
        rec("system", 6, subtype="ui_telemetry", systemPayload={"uiEvent": {"event.name": "api_response"}})
    folder = os.path.join(root, ".qwen", "projects", cwd.replace("/", "-"), "chats")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, sid + ".jsonl"), "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    root = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1700
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 3)
    for i in range(n):
        session(root, i, rng)


if __name__ == "__main__":
    main()
