#!/usr/bin/env python3
"""bench/gen-copilot.py - a synthetic GitHub Copilot CLI tree for benchmarks (not for tests:
tests/copilotgen.rs writes the test trees, with their expected facts).

Usage: bench/gen-copilot.py DIR [SESSIONS (1500)] [SEED (3)]

Writes DIR/.copilot/session-state/<uuid>/{events.jsonl,workspace.yaml} (a HOME for ccusage, a
root for ci-*: DIR/.copilot): each session a session.start, a model change, a 20 KB
system.message, then 3 resumed legs of 10 turns (a prompt, a turn start, an assistant message
with a tool request and its output tokens, the tool's start and its 4 KB result, a final
message, a turn end), each leg ending in a session.shutdown whose modelMetrics and
totalNanoAiu are cumulative over the legs (Copilot's roll-ups). No compaction resets: ccusage
would count 0 for a leg after one (README, Copilot section). No session-store.db (ccusage does
not read it). Deterministic for a given SEED.
"""
import json
import os
import random
import sys
import uuid

from datetime import datetime, timedelta, timezone


def stamp(t):
    return (datetime(2026, 6, 1, tzinfo=timezone.utc) + timedelta(seconds=t)).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def session(root, i, rng):
    sid = str(uuid.UUID(int=rng.getrandbits(128)))
    model = ["claude-sonnet-4.6", "gpt-5.4"][i % 2]
    t0 = (i % 28) * 86400 + 8 * 3600
    lines = []
    n = [0]

    def ev(t, kind, data):
        n[0] += 1
        lines.append(json.dumps({"type": kind, "data": data, "id": "e%d" % n[0], "timestamp": stamp(t),
                                 "parentId": "e%d" % (n[0] - 1) if n[0] > 1 else None}, separators=(",", ":")))

    ev(t0, "session.start", {"sessionId": sid, "version": 1, "producer": "copilot-agent", "copilotVersion": "1.0.80",
                             "startTime": stamp(t0), "context": {"cwd": "/home/dev/p%d" % (i % 9)}})
    ev(t0 + 1, "session.model_change", {"newModel": model, "reasoningEffort": None})
    ev(t0 + 2, "system.message", {"content": "You are a helpful agent. " + "s" * 20000})
    total = {"inputTokens": 0, "outputTokens": 0, "cacheReadTokens": 0, "cacheWriteTokens": 0, "reasoningTokens": 0}
    nano = 0
    t = t0 + 10
    for leg in range(3):
        for k in range(10):
            turn = "t%d-%d" % (leg, k)
            ev(t, "user.message", {"content": "step %s " % turn + "y" * 200, "attachments": []})
            ev(t + 0.1, "assistant.turn_start", {"turnId": turn})
            out = rng.randint(10, 900)
            call = "toolu_%s_%s" % (sid[:8], turn)
            args = {"path": "/home/dev/p%d/f%d.rs" % (i % 9, k)}
            ev(t + 2, "assistant.message", {"messageId": "m" + turn, "content": "", "model": model,
                                            "toolRequests": [{"toolCallId": call, "name": "view", "arguments": args}],
                                            "outputTokens": out, "turnId": turn})
            ev(t + 2.1, "tool.execution_start", {"toolCallId": call, "toolName": "view", "arguments": args})
            ev(t + 3, "tool.execution_complete", {"toolCallId": call, "success": True,
                                                  "result": {"content": "w" * 4000}})
            out2 = rng.randint(10, 900)
            ev(t + 5, "assistant.message", {"messageId": "n" + turn, "content": "done " + "z" * 500, "model": model,
                                            "toolRequests": [], "outputTokens": out2, "turnId": turn})
            ev(t + 5.1, "assistant.turn_end", {"turnId": turn})
            reads = rng.randint(0, 60000)
            writes = rng.randint(0, 500)
            total["inputTokens"] += rng.randint(100, 9000) + reads + writes
            total["cacheReadTokens"] += reads
            total["cacheWriteTokens"] += writes
            total["outputTokens"] += out + out2
            nano += rng.randint(1, 50) * 10000000
            t += 60
        ev(t, "session.shutdown", {"totalNanoAiu": nano, "modelMetrics": {model: {"usage": dict(total)}}})
        t += 3600
    folder = os.path.join(root, ".copilot", "session-state", sid)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "events.jsonl"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(folder, "workspace.yaml"), "w") as f:
        f.write("id: %s\ncwd: /home/dev/p%d\ncreated_at: %s\n" % (sid, i % 9, stamp(t0)))


def main():
    root = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1500
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 3)
    for i in range(n):
        session(root, i, rng)


if __name__ == "__main__":
    main()
