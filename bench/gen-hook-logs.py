#!/usr/bin/env python3
"""bench/gen-hook-logs.py - a synthetic Claude Code hook-log folder (the hooks template's
logs/<hook>.json arrays, formats.md section 7) for the memory and speed measurements (not for
tests: tests/hooklogsgen.rs writes the test folders, with their expected facts).

Usage: bench/gen-hook-logs.py DIR SIZE_MB [SESSIONS (200)] [SEED (5)]

Writes DIR/pre_tool_use.json (about SIZE_MB MB) and DIR/post_tool_use.json (a tenth of it),
each one pretty-printed JSON array (indent 2, as the template's json.dump) of hook payloads of
SESSIONS interleaved sessions: PreToolUse/PostToolUse pairs, half of the sessions with
tool_use_id, tool inputs of 200 B to 20 KB (a few of 1 MB), a naive local `timestamp`. The
arrays are streamed out element by element, so the generator's memory stays small too.
Deterministic for a given SEED. Then: /usr/bin/time -v ci-agg --by event DIR
"""
import json
import os
import random
import sys


def element(rng, i, sessions, hook):
    s = rng.randrange(sessions)
    size = 1_000_000 if rng.random() < 0.0005 else int(rng.paretovariate(1.2) * 200) % 20_000
    e = {
        "session_id": "%08x-0000-4000-8000-%012x" % (s, s),
        "transcript_path": "/home/dev/.claude/projects/-home-dev-p%d/%d.jsonl" % (s % 9, s),
        "cwd": "/home/dev/p%d" % (s % 9),
        "permission_mode": "default",
        "hook_event_name": hook,
        "tool_name": rng.choice(["Bash", "Read", "Edit", "Grep", "TodoWrite"]),
        "tool_input": {"command": "echo " + "x" * size, "description": "step %d" % i},
    }
    if s % 2 == 0:
        e["tool_use_id"] = "toolu_%d" % i
    if hook == "PostToolUse":
        e["tool_response"] = {"stdout": "ok " * 20, "stderr": "", "interrupted": False}
    e["timestamp"] = "2026-02-03T%02d:%02d:%02d.%06d" % (i // 3600 % 24, i // 60 % 60, i % 60, i % 999999)
    return e


def write_array(path, target, rng, sessions, hook):
    with open(path, "w") as f:
        f.write("[\n")
        written, i = 2, 0
        while written < target:
            text = json.dumps(element(rng, i, sessions, hook), indent=2)
            text = "  " + text.replace("\n", "\n  ")
            sep = ",\n" if i else ""
            f.write(sep + text)
            written += len(text) + len(sep)
            i += 1
        f.write("\n]")
    return i


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    out, mb = sys.argv[1], float(sys.argv[2])
    sessions = int(sys.argv[3]) if len(sys.argv) > 3 else 200
    rng = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 5)
    os.makedirs(out, exist_ok=True)
    pre = write_array(os.path.join(out, "pre_tool_use.json"), mb * 1e6, rng, sessions, "PreToolUse")
    post = write_array(os.path.join(out, "post_tool_use.json"), mb * 1e5, rng, sessions, "PostToolUse")
    print("%s: %d PreToolUse and %d PostToolUse elements of %d sessions" % (out, pre, post, sessions))


if __name__ == "__main__":
    main()
