#!/usr/bin/env bash
# Instruction-count regression guard (valgrind --tool=callgrind).
#
# Wall-clock times on a shared machine are noise; instruction counts of one
# thread on a fixed input are stable to well under 1%. This script generates a
# small deterministic corpus (Python standard library, no network), runs a few
# tool invocations under callgrind with -j1, and compares each count with
# bench/instructions.baseline. It fails (exit 1) when a count grows by more than
# the tolerance (default 10%), and says so when one shrinks by more than that
# (time to lower the baseline).
#
# Usage:
#   bench/instructions.sh            # compare with the baseline
#   bench/instructions.sh --update   # rewrite the baseline with today's counts
# Env: BIN_DIR (default target/release, built here unless BENCH_NO_BUILD=1),
#      TOLERANCE_PCT (default 10), KEEP_TMP=1 to keep the corpus and outputs.
# Counts depend on the CPU features detected at run time (the JSON scanner and simd-json take
# AVX2 paths when present): compare counts made on machines of the same kind; the committed
# baseline was made on an x86_64 CPU with AVX2.
# Needs: valgrind, python3. Not part of .ci/run (about 10 s on top of a release build).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
baseline="$here/instructions.baseline"
tolerance=${TOLERANCE_PCT:-10}
bin=${BIN_DIR:-$repo/target/release}
update=0
[[ ${1:-} == --update ]] && update=1

command -v valgrind >/dev/null || { echo "instructions.sh: valgrind not found" >&2; exit 2; }
if [[ ${BENCH_NO_BUILD:-0} != 1 && -z ${BIN_DIR:-} ]]; then
    (cd "$repo" && cargo build --release --quiet)
fi

tmp=$(mktemp -d)
[[ ${KEEP_TMP:-0} == 1 ]] && echo "instructions.sh: keeping $tmp" >&2 || trap 'rm -rf "$tmp"' EXIT

# A deterministic corpus of 40 captures, ~22 MB: small envelope-only events,
# tool calls, and some llm:request lines of 20-80 KB with dense \uXXXX escapes
# (the shape that drives truncation cost), written canonically (sorted keys).
python3 - "$tmp/root" <<'PY'
import json, os, random, sys
root = sys.argv[1]
rng = random.Random(7)
words = ["token", "request", "file", "agent", "日本語", "naïve", "café", "ошибка", "✅", "🚀", "the", "pipeline"]
def text(n):
    return " ".join(rng.choice(words) for _ in range(n))
kinds = ["tool:pre", "tool:post", "content_block:start", "content_block:end", "llm:response", "prompt:submit"]
for s in range(40):
    sid = f"{s:08x}-0000-4000-8000-{s:012x}"
    d = os.path.join(root, f"-home-user-proj{s % 4}", "sessions", sid, "context-intelligence")
    os.makedirs(d)
    meta = {"format": "context-intelligence", "version": "1.0.0", "session_id": sid, "workspace": f"proj{s % 4}",
            "parent_id": "", "started_at": "2026-01-01T00:00:00+00:00", "last_event_at": "2026-01-01T01:00:00+00:00",
            "status": "completed", "working_dir": f"/home/user/proj{s % 4}"}
    with open(os.path.join(d, "metadata.json"), "w") as f:
        f.write(json.dumps(meta, separators=(",", ":")))
    with open(os.path.join(d, "events.jsonl"), "w") as f:
        for i in range(150):
            ts = f"2026-01-01T00:{i % 60:02d}:{i % 60:02d}.{i:06d}+00:00"
            if i % 30 == 7:
                event = "llm:request"
                msgs = [{"role": "user", "content": text(rng.randint(1500, 6000))} for _ in range(rng.randint(1, 3))]
                data = {"model": "m", "parent_id": None, "raw": {"messages": msgs, "system": text(500)},
                        "session_id": sid, "timestamp": ts}
            else:
                event = kinds[i % len(kinds)]
                data = {"parent_id": None, "session_id": sid, "timestamp": ts, "tool_name": "bash",
                        "input": {"command": text(rng.randint(3, 40))}}
            line = {"data": data, "event": event, "timestamp": ts, "workspace": f"proj{s % 4}"}
            f.write(json.dumps(line, sort_keys=True, separators=(",", ":")) + "\n")
PY

# name|environment|command (run with -j1 so the count does not depend on scheduling).
# The capture cache is off (CI_CACHE=0) but for agg-cache-build, which
# builds it in an empty directory: a run's count never depends on what an
# earlier run left in the user's cache.
cases=(
    "agg-by-event|CI_CACHE=0|$bin/ci-agg -j1 --by event $tmp/root"
    "agg-cache-build|XDG_CACHE_HOME=$tmp/cache|$bin/ci-agg -j1 --by event $tmp/root"
    "cat-default|CI_CACHE=0|$bin/ci-cat -j1 $tmp/root"
    "cat-full|CI_CACHE=0|$bin/ci-cat -j1 --full $tmp/root"
    "grep-F|CI_CACHE=0|$bin/ci-grep -j1 -c -F naïve $tmp/root"
)

count() { # name environment command... -> instruction count (Ir) of the whole run
    local name=$1 environment=$2; shift 2
    env "$environment" valgrind --tool=callgrind --callgrind-out-file="$tmp/$name.cg" "$@" >"$tmp/$name.out" 2>"$tmp/$name.vg" ||
        { echo "instructions.sh: $name failed, see $tmp/$name.vg" >&2; KEEP_TMP=1; exit 2; }
    awk '/^(summary|totals):/ { print $2; exit }' "$tmp/$name.cg"
}

declare -A base=()
if [[ -f $baseline ]]; then
    while read -r name n _; do [[ $name == \#* || -z $name ]] || base[$name]=$n; done <"$baseline"
fi

status=0
new=$'# name instructions (bench/instructions.sh --update; valgrind callgrind, -j1)\n'
printf '%-14s %15s %15s %8s\n' case baseline now change
for c in "${cases[@]}"; do
    name=${c%%|*}
    rest=${c#*|}
    environment=${rest%%|*}
    read -r -a cmd <<<"${rest#*|}"
    rm -rf "$tmp/cache"
    n=$(count "$name" "$environment" "${cmd[@]}")
    new+="$name $n"$'\n'
    b=${base[$name]:-}
    if [[ -z $b ]]; then
        printf '%-14s %15s %15s %8s\n' "$name" - "$n" new
        continue
    fi
    pct=$(awk -v n="$n" -v b="$b" 'BEGIN { printf "%+.1f", (n - b) * 100 / b }')
    printf '%-14s %15s %15s %7s%%\n' "$name" "$b" "$n" "$pct"
    if awk -v p="$pct" -v t="$tolerance" 'BEGIN { exit !(p > t) }'; then
        echo "REGRESSION: $name executes $pct% more instructions than bench/instructions.baseline (tolerance $tolerance%)" >&2
        status=1
    elif awk -v p="$pct" -v t="$tolerance" 'BEGIN { exit !(p < -t) }'; then
        echo "note: $name got $pct% cheaper; lower the baseline with bench/instructions.sh --update" >&2
    fi
done

if [[ $update == 1 ]]; then
    printf '%s' "$new" >"$baseline"
    echo "instructions.sh: wrote $baseline"
    exit 0
fi
exit $status
