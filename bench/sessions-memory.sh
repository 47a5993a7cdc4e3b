#!/usr/bin/env bash
# --sessions memory over a Claude Code history (issue 33, "memory bounded by
# the answer"): peak RSS, wall and CPU time of `ci-agg --no-cache --sessions`
# and of `ccusage session --json --offline` in the same run, the size of
# `ci-agg --partial --tokens --by day`, and whether the --sessions answer is
# byte-identical to a reference output (another build's).
#
# Usage: bash bench/sessions-memory.sh CLAUDE_DIR [REFERENCE_OUTPUT]
#   CLAUDE_DIR        a directory whose projects/ holds the transcripts
#                     (gen-corpus DIR --claude-transcripts 28000 --seed 7:
#                     DIR/claude); not changed.
#   REFERENCE_OUTPUT  the --sessions output of another build, compared with cmp.
# Environment: BIN_DIR (default target/release), CCUSAGE (the ccusage binary;
# skipped when unset).
set -euo pipefail

ROOT=${1:?usage: bench/sessions-memory.sh CLAUDE_DIR [REFERENCE_OUTPUT]}
REF=${2:-}
HERE=$(cd "$(dirname "$0")" && pwd)
BIN_DIR=${BIN_DIR:-$HERE/../target/release}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

measure() { # NAME COMMAND...: prints peak RSS (MB), wall and CPU seconds
    local name=$1
    shift
    /usr/bin/time -f '%M %e %U %S' -o "$WORK/time" "$@" >"$WORK/$name.out"
    read -r kb wall user sys <"$WORK/time"
    printf '%-28s peak %5d MB  wall %6.2f s  cpu %6.2f s\n' "$name" $((kb / 1024)) "$wall" \
        "$(echo "$user + $sys" | bc)"
}

echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
measure ci-agg-sessions env TZ=UTC "$BIN_DIR/ci-agg" --no-cache --sessions "$ROOT"
if [ -n "${CCUSAGE:-}" ]; then
    measure ccusage-session env TZ=UTC CLAUDE_CONFIG_DIR="$ROOT" "$CCUSAGE" session --json --offline
fi
"$BIN_DIR/ci-agg" --no-cache --partial --tokens --by day "$ROOT" >"$WORK/partial"
printf '%-28s %d bytes, %d lines\n' "partial --tokens --by day" "$(wc -c <"$WORK/partial")" \
    "$(wc -l <"$WORK/partial")"
if [ -n "$REF" ]; then
    if cmp -s "$WORK/ci-agg-sessions.out" "$REF"; then echo "answer: identical to $REF"; else echo "answer: DIFFERS from $REF"; fi
fi
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
