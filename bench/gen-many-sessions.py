#!/usr/bin/env python3
"""Make N metadata-plus-empty-events capture folders for timing ci-find.

Usage: bench/gen-many-sessions.py ROOT N [PROJECTS]

Writes ROOT/<project>/sessions/<uuid>/context-intelligence/{metadata.json,events.jsonl}
(a current-generation metadata line, a zero-byte events.jsonl) for N sessions spread over
PROJECTS project folders (default 100). Deterministic: session i always gets the same id and
times. Standard library only.
"""
import os
import sys
import uuid


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    root, n = sys.argv[1], int(sys.argv[2])
    projects = int(sys.argv[3]) if len(sys.argv) > 3 else 100
    for i in range(n):
        project = f"-home-user-proj{i % projects:03d}"
        sid = str(uuid.UUID(int=(i * 0x9E3779B97F4A7C15) & ((1 << 128) - 1), version=4))
        d = os.path.join(root, project, "sessions", sid, "context-intelligence")
        os.makedirs(d, exist_ok=True)
        started = f"2026-01-{1 + i % 28:02d}T{i % 24:02d}:{i % 60:02d}:00.000+00:00"
        meta = (
            '{"format":"context-intelligence","version":"1.0.0",'
            f'"session_id":"{sid}","workspace":"proj{i % projects:03d}","parent_id":"",'
            f'"started_at":"{started}","last_event_at":"{started}","status":"completed",'
            f'"working_dir":"/home/user/proj{i % projects:03d}"}}'
        )
        with open(os.path.join(d, "metadata.json"), "w") as f:
            f.write(meta)
        open(os.path.join(d, "events.jsonl"), "w").close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
