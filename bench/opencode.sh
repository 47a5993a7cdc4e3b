#!/usr/bin/env bash
# bench/opencode.sh — ci-agg --tokens --by day against `ccusage opencode daily` on a generated
# OpenCode database (BENCHMARKS.md, "OpenCode").
#
# Usage:  CCUSAGE=/path/to/ccusage bench/opencode.sh DIR [RUNS (3)]
#
#   DIR      an OpenCode data dir; bench/gen-opencode.py DIR writes one (1,100 sessions, 314 MB)
#            when DIR/opencode.db is not there.
#   CCUSAGE  the ccusage binary (the native one from @ccusage/ccusage-linux-x64; written against
#            20.0.24).
#   CI_BIN   directory of the ci-* binaries (default target/release).
#
# Each command RUNS times, interleaved, under /usr/bin/time (wall seconds, CPU seconds user+system,
# peak RSS), TZ=UTC; on a loaded machine the CPU seconds are the figures to compare:
#   peer:        OPENCODE_DATA_DIR=DIR HOME=<empty> $CCUSAGE opencode daily --offline --json
#   ours, cold:  ci-agg --no-cache --tokens --by day DIR
#   ours, warm:  ci-agg --tokens --by day DIR, after one run that filled the capture cache
#                (XDG_CACHE_HOME=<scratch>)
#   floor:       cat DIR/opencode.db > /dev/null
# then prints both sides' totals: ccusage reads each message's `tokens` (the last step only),
# ours sums the step-finish parts, so input/output/cache differ by design; cost is equal.
set -euo pipefail
DIR=${1:?usage: CCUSAGE=… bench/opencode.sh DIR [RUNS]}
RUNS=${2:-3}
: "${CCUSAGE:?set CCUSAGE to the ccusage binary}"
CI_BIN=${CI_BIN:-target/release}
HERE=$(cd "$(dirname "$0")" && pwd)
[ -f "$DIR/opencode.db" ] || python3 "$HERE/gen-opencode.py" "$DIR"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/home" "$WORK/cache"
export TZ=UTC
timed() { # label, command...
    local label=$1
    shift
    /usr/bin/time -f "$label %e s %U+%S cpu %M KB" "$@" 2>&1 >"$WORK/out.json" | tail -1
}
XDG_CACHE_HOME="$WORK/cache" "$CI_BIN/ci-agg" --tokens --by day "$DIR" >/dev/null
for _ in $(seq "$RUNS"); do
    timed peer env HOME="$WORK/home" OPENCODE_DATA_DIR="$DIR" "$CCUSAGE" opencode daily --offline --json
    cp "$WORK/out.json" "$WORK/peer.json"
    timed cold "$CI_BIN/ci-agg" --no-cache --tokens --by day "$DIR"
    cp "$WORK/out.json" "$WORK/ours.ndjson"
    timed warm env XDG_CACHE_HOME="$WORK/cache" "$CI_BIN/ci-agg" --tokens --by day "$DIR"
    timed floor cat "$DIR/opencode.db"
done
python3 - "$WORK/peer.json" "$WORK/ours.ndjson" <<'PY'
import json, sys
peer = json.load(open(sys.argv[1]))["totals"]
rows = [json.loads(l) for l in open(sys.argv[2])]
ours = {k: sum(r[k] for r in rows) for k in ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")}
print("ccusage: input %(inputTokens)d output %(outputTokens)d cache read %(cacheReadTokens)d "
      "cache write %(cacheCreationTokens)d cost %(totalCost).4f" % peer)
print("ours:    input %d output %d cache read %d cache write %d cost %.4f (%d days)" % (
    ours["input_tokens"], ours["output_tokens"], ours["cache_read_tokens"], ours["cache_write_tokens"],
    sum(r["cost_usd"] for r in rows), len({r["day"] for r in rows})))
PY
