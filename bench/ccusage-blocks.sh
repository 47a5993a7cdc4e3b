#!/usr/bin/env bash
# bench/ccusage-blocks.sh — our 5-hour blocks (ci-agg --blocks) against ccusage's (blocks --json).
#
# Usage:  CCUSAGE=/path/to/ccusage bench/ccusage-blocks.sh DIR
#
#   DIR      a Claude config dir (projects/<project-folder>/<session-id>.jsonl), e.g.
#            fixtures/claude-blocks, fixtures/claude-transcripts, or a generated tree
#            (../shared/tools/gen-corpus --claude-transcripts N).
#   CCUSAGE  the ccusage binary (the native one from the npm package @ccusage/ccusage-linux-x64,
#            bin/ccusage; written against 20.0.24).
#   CI_BIN   directory of the ci-* binaries (default target/release when ci-agg is built there,
#            else target/debug).
#
# Runs both sides with TZ=UTC and HOME an empty directory:
#   peer:  CLAUDE_CONFIG_DIR=DIR $CCUSAGE blocks --offline --json
#   ours:  ci-agg --blocks --no-cache DIR
# and compares block by block, in time order: start, end, actual end, gap or not, the four token
# counts exactly, and the cost within 0.5% (blocks with a model we do not price are left out of
# the cost check: ccusage counts them as $0, ours are null). The active flag is not compared:
# ccusage's "now" is the clock, ours is CI_NOW when set.
#
# Exit: 0 all blocks agree, 1 a difference (or a side failed), 2 setup error.
# Known differences to expect (fixtures/README.md, claude-blocks): ccusage counts only lines
# holding the bytes "usage":{, and of a response written several times keeps the first copy's
# timestamp, ours the timestamp of the copy with the largest total (the one --tokens keeps).
set -uo pipefail
export LC_ALL=C

repo=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
die() { echo "ccusage-blocks.sh: $*" >&2; exit 2; }

[[ $# -eq 1 ]] || die "usage: CCUSAGE=/path/to/ccusage bench/ccusage-blocks.sh DIR"
[[ -n ${CCUSAGE:-} && -x ${CCUSAGE:-} ]] || die "set CCUSAGE to the ccusage binary"
dir=$(cd -- "$1" 2>/dev/null && pwd) || die "no such directory: $1"
[[ -d $dir/projects ]] || die "$dir has no projects/ folder (expected a Claude config dir)"
command -v python3 >/dev/null || die "python3 is needed"
if [[ -z ${CI_BIN:-} ]]; then
  if [[ -x $repo/target/release/ci-agg ]]; then CI_BIN=$repo/target/release; else CI_BIN=$repo/target/debug; fi
fi
[[ -x $CI_BIN/ci-agg ]] || die "no ci-agg in $CI_BIN (cargo build --release, or set CI_BIN)"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/home"

t0=$(date +%s.%N)
env -i PATH="$PATH" HOME="$work/home" TZ=UTC CLAUDE_CONFIG_DIR="$dir" "$CCUSAGE" blocks --offline --json \
  > "$work/peer.json" 2> "$work/peer.err" || { cat "$work/peer.err" >&2; die "ccusage failed"; }
t1=$(date +%s.%N)
env -i PATH="$PATH" HOME="$work/home" TZ=UTC "$CI_BIN/ci-agg" --blocks --no-cache "$dir" \
  > "$work/ours.jsonl" 2> "$work/ours.err"
rc=$?
t2=$(date +%s.%N)
[[ $rc -le 1 ]] || { cat "$work/ours.err" >&2; echo "ci-agg --blocks failed ($rc)" >&2; exit 1; }
echo "ccusage blocks: $(python3 -c "print(f'{$t1-$t0:.2f}')") s; ci-agg --blocks: $(python3 -c "print(f'{$t2-$t1:.2f}')") s"

python3 - "$work/peer.json" "$work/ours.jsonl" <<'PY'
import json, sys
from datetime import datetime

def instant(s):
    return None if s is None else datetime.fromisoformat(s.replace("Z", "+00:00"))

peer = json.load(open(sys.argv[1]))["blocks"]
ours = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
bad = 0
def differ(i, what, a, b):
    global bad
    bad += 1
    if bad <= 20:
        print(f"block {i}: {what}: ccusage {a!r}, ours {b!r}")

if len(peer) != len(ours):
    differ("-", "number of blocks", len(peer), len(ours))
cost_checked = 0
for i, (p, o) in enumerate(zip(peer, ours)):
    for name, a, b in [("start", p["startTime"], o["start"]), ("end", p["endTime"], o["end"]),
                       ("actual end", p["actualEndTime"], o["actual_end"])]:
        if instant(a) != instant(b):
            differ(i, name, a, b)
    if p["isGap"] != (o["status"] == "gap"):
        differ(i, "gap", p["isGap"], o["status"])
    t = p["tokenCounts"]
    for name, a, b in [("input", t["inputTokens"], o["input_tokens"]), ("output", t["outputTokens"], o["output_tokens"]),
                       ("cache write", t["cacheCreationInputTokens"], o["cache_write_tokens"]),
                       ("cache read", t["cacheReadInputTokens"], o["cache_read_tokens"])]:
        if a != b:
            differ(i, name + " tokens", a, b)
    if o["unpriced_models"] or o["cost_usd"] is None:
        continue
    cost_checked += 1
    a, b = p["costUSD"], o["cost_usd"]
    if abs(a - b) > 0.005 * max(abs(a), abs(b)) and abs(a - b) > 1e-9:
        differ(i, "cost", a, b)
print(f"{len(peer)} blocks (ccusage), {len(ours)} (ours); costs compared in {cost_checked}; {bad} differences")
sys.exit(1 if bad else 0)
PY
