#!/usr/bin/env bash
# bench/gemini.sh — `ci-agg --tokens --by day` against `ccusage gemini daily` on a generated
# Gemini CLI home (BENCHMARKS.md, "Gemini CLI").
#
# Usage:  CCUSAGE=/path/to/ccusage bench/gemini.sh DIR [RUNS (3)]
#
#   DIR      a home written by bench/gen-gemini.py (DIR/.gemini/tmp/…); written there first
#            (1800 sessions, about 330 MB) when DIR/.gemini does not exist.
#   CCUSAGE  the ccusage binary (npm package @ccusage/ccusage-linux-x64, bin/ccusage; written
#            against 20.0.24).
#   CI_BIN   directory of the ci-* binaries (default target/release).
#
# Each run, interleaved: ours cold (`--no-cache`), ccusage (`HOME=DIR … --offline --json`,
# it has no cache), ours with the capture cache (after a run that filled it: warm), and `cat`
# of every .jsonl (the floor of reading the bytes). Prints each command's seconds and peak RSS
# (GNU /usr/bin/time), then the totals of both answers: input, cache reads, output (ours has
# the thoughts in output; ccusage keeps them apart, in totalTokens only) and cost.
# Exit: 0 when input, cache reads and cost agree and our output is ccusage's plus the
# thoughts; 1 otherwise; 2 setup error.
set -uo pipefail
export LC_ALL=C TZ=UTC

repo=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
die() { echo "gemini.sh: $*" >&2; exit 2; }
[[ $# -ge 1 ]] || die "usage: CCUSAGE=/path/to/ccusage bench/gemini.sh DIR [RUNS]"
[[ -x ${CCUSAGE:-} ]] || die "CCUSAGE must name the ccusage binary"
[[ -x /usr/bin/time ]] || die "GNU /usr/bin/time is needed"
dir=$1
runs=${2:-3}
bin=${CI_BIN:-$repo/target/release}
[[ -x $bin/ci-agg ]] || die "no ci-agg in $bin (cargo build --release, or set CI_BIN)"
[[ -d $dir/.gemini ]] || python3 "$repo/bench/gen-gemini.py" "$dir" || die "generating $dir failed"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME=$work/cache

# time LABEL OUT CMD...: runs CMD with stdout to OUT, prints "LABEL seconds peak-RSS-MB".
timed() {
  local label=$1 out=$2
  shift 2
  /usr/bin/time -f "%e %M" -o "$work/time" "$@" > "$out" 2> "$work/err" || { cat "$work/err" >&2; return 1; }
  read -r s kb < "$work/time"
  printf '%-8s %6.2f s %5d MB\n' "$label" "$s" $((kb / 1024))
}

"$bin/ci-agg" --tokens --by day "$dir/.gemini" > /dev/null # fills the capture cache
for ((i = 1; i <= runs; i++)); do
  timed cold "$work/ours.ndjson" "$bin/ci-agg" --no-cache --tokens --by day "$dir/.gemini" || exit 1
  timed ccusage "$work/peer.json" env HOME="$dir" "$CCUSAGE" gemini daily --offline --json || exit 1
  timed warm /dev/null "$bin/ci-agg" --tokens --by day "$dir/.gemini" || exit 1
  timed cat /dev/null find "$dir/.gemini" -name '*.jsonl' -exec cat {} + || exit 1
done
python3 - "$work/ours.ndjson" "$work/peer.json" <<'EOF'
import json, sys
ours = [json.loads(l) for l in open(sys.argv[1])]
peer = json.load(open(sys.argv[2]))["daily"]
o = {k: sum(r[k] for r in ours) for k in ("input_tokens", "cache_read_tokens", "output_tokens")}
o["cost"] = sum(r["cost_usd"] or 0 for r in ours)
p = {k: sum(d[k] for d in peer) for k in ("inputTokens", "cacheReadTokens", "outputTokens", "totalTokens")}
p["cost"] = sum(d["totalCost"] for d in peer)
thoughts = p["totalTokens"] - p["inputTokens"] - p["cacheReadTokens"] - p["outputTokens"]
print("ours: days %d, input %d, cache read %d, output %d, cost %.4f" % (
    len({r["day"] for r in ours}), o["input_tokens"], o["cache_read_tokens"], o["output_tokens"], o["cost"]))
print("ccusage: days %d, input %d, cache read %d, output %d + thoughts %d, cost %.4f" % (
    len(peer), p["inputTokens"], p["cacheReadTokens"], p["outputTokens"], thoughts, p["cost"]))
same = (o["input_tokens"], o["cache_read_tokens"], o["output_tokens"]) == (
    p["inputTokens"], p["cacheReadTokens"], p["outputTokens"] + thoughts) and abs(o["cost"] - p["cost"]) < 1e-6
print("agree" if same else "DIFFER")
sys.exit(0 if same else 1)
EOF
