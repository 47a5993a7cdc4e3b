#!/usr/bin/env python3
"""Summarise a command's stdout for bench/run.sh without keeping it.

Usage: CMD | python3 bench/outsum.py PROBE HEAD_FILE

Reads stdin to the end (outputs can be as big as the corpus), keeps the first 50
lines (each cut to 300 bytes) in HEAD_FILE for a look, and prints three lines:
  the number of lines, the number of bytes, and a short result for the report:
  the only line when there is at most one, else "N lines" followed by the first
  line that contains PROBE (when PROBE is not empty and some line does).
"""
import sys


def short(raw, width=60):
    text = raw.decode("utf-8", "replace").replace("\t", " ").strip()
    text = " ".join(text.split())
    return text[:width]


def main():
    probe = sys.argv[1].encode()
    head_path = sys.argv[2]
    lines = nbytes = 0
    first = hit = None
    with open(head_path, "wb") as head:
        for line in sys.stdin.buffer:
            lines += 1
            nbytes += len(line)
            if lines <= 50:
                head.write(line[:300].rstrip(b"\n") + b"\n")
            if first is None:
                first = line
            if hit is None and probe and probe in line:
                hit = line
    if lines <= 1:
        result = short(first or b"")
    else:
        result = "%d lines" % lines
        if hit is not None:
            result += "; " + short(hit)
    print(lines)
    print(nbytes)
    print(result)


if __name__ == "__main__":
    main()
