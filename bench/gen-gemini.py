#!/usr/bin/env python3
"""bench/gen-gemini.py - a synthetic Gemini CLI home for benchmarks (not for tests:
tests/geminigen.rs writes the test homes, with their expected facts).

Usage: bench/gen-gemini.py DIR [SESSIONS (1800)] [SEED (5)]

Writes DIR/.gemini/tmp/pN/chats/session-<time>-<id8>.jsonl (a HOME for ccusage, a root for
ci-*: DIR/.gemini), each project folder with its .project_root. Each session is a mutation
log of 30 turns: a user prompt, a response written twice (first with its call executing and
part of its tokens, then again whole: a 2 KB text, cached tokens, thoughts, the call's 3 KB
result), a $set of lastUpdated; every tenth turn is rewound ($rewindTo its prompt: the billed
response still counts). No legacy .json and no .json/.jsonl pairs (ccusage would count the
copied messages twice). 1800 sessions are about 330 MB. Deterministic for a given SEED.
"""
import json
import os
import random
import sys
import uuid


def session(root, i, rng):
    sid = str(uuid.UUID(int=rng.getrandbits(128)))
    day = 1 + i % 28
    ts = lambda s: "2026-03-%02dT%02d:%02d:%02d.000Z" % (day, 8 + s // 3600, s // 60 % 60, s % 60)
    dump = lambda o: json.dumps(o, separators=(",", ":"))
    project = "p%d" % (i % 7)
    lines = [dump({"sessionId": sid, "projectHash": project, "startTime": ts(0), "lastUpdated": ts(0),
                   "kind": "main"})]
    for t in range(30):
        u, g, call = "%s-u%d" % (sid[:8], t), "%s-g%d" % (sid[:8], t), "read_file_%d" % t
        lines.append(dump({"id": u, "timestamp": ts(t * 60), "type": "user",
                           "content": [{"text": "please do step %d " % t + "y" * 200}]}))
        prompt = rng.randint(2000, 60000)
        cached = rng.randint(0, prompt) if t else 0
        output, thoughts, tool = rng.randint(10, 900), rng.randint(0, 400), rng.randint(0, 50)
        model = "gemini-2.5-pro" if t % 5 == 0 else "gemini-2.5-flash"
        for final in (False, True):
            out, th = (output, thoughts) if final else (output // 2, thoughts // 2)
            c = {"id": call, "name": "read_file", "args": {"absolute_path": "/home/u/%s/f%d" % (project, t)},
                 "status": "success" if final else "executing"}
            if final:
                c["result"] = [{"functionResponse": {"id": call, "name": "read_file",
                                                     "response": {"output": "w" * 3000}}}]
            lines.append(dump({"id": g, "timestamp": ts(t * 60 + 3), "type": "gemini",
                               "content": "z" * 2000 if final else "", "thoughts": [], "model": model,
                               "tokens": {"input": prompt, "output": out, "cached": cached, "thoughts": th,
                                          "tool": tool, "total": prompt + out + th + tool},
                               "toolCalls": [c]}))
        lines.append(dump({"$set": {"lastUpdated": ts(t * 60 + 5)}}))
        if t % 10 == 9:
            lines.append(dump({"$rewindTo": u}))
    folder = os.path.join(root, ".gemini", "tmp", project)
    os.makedirs(os.path.join(folder, "chats"), exist_ok=True)
    with open(os.path.join(folder, ".project_root"), "w") as f:
        f.write("/home/u/" + project)
    name = "session-2026-03-%02dT08-00-%s.jsonl" % (day, sid[:8])
    with open(os.path.join(folder, "chats", name), "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    root = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1800
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 5)
    for i in range(n):
        session(root, i, rng)


if __name__ == "__main__":
    main()
