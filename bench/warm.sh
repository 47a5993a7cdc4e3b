#!/usr/bin/env bash
# Warm runs against the floor (issue 33): the system calls and the time of a
# warm `ci-agg --by event ROOT` and `ci-find --root ROOT | ci-agg --by event`,
# beside the floor: one stat of each capture's events.jsonl and metadata.json
# by a small C program (bench/floor.c), in the same run.
#
# Usage: bash bench/warm.sh ROOT [RUNS]
#   ROOT  an Amplifier tree (gen-corpus ROOT --size 300M --seed 7 or larger);
#         only read, never changed.
#   RUNS  timed runs per command, the medians printed (default 7): wall time,
#         and CPU time (user + system of every process: steadier on a busy machine).
# Environment: BIN_DIR (default target/release), CC (default cc).
# The cache is in a temporary directory (XDG_CACHE_HOME), never the user's.
set -euo pipefail

ROOT=${1:?usage: bench/warm.sh ROOT [RUNS]}
RUNS=${2:-7}
HERE=$(cd "$(dirname "$0")" && pwd)
BIN_DIR=${BIN_DIR:-$HERE/../target/release}
export PATH="$BIN_DIR:$PATH"
for t in ci-find ci-agg strace python3 "${CC:-cc}"; do
    command -v "$t" >/dev/null || { echo "bench/warm.sh: $t not found" >&2; exit 2; }
done

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export XDG_CACHE_HOME=$WORK/xdg TZ=UTC
"${CC:-cc}" -O2 -o "$WORK/floor" "$HERE/floor.c"
find "$ROOT" -path '*/context-intelligence/events.jsonl' | sort >"$WORK/events"
sed 's/events\.jsonl$/metadata.json/' "$WORK/events" | cat "$WORK/events" - >"$WORK/paths"
caps=$(wc -l <"$WORK/events")

# The commands, each run by bash -c with ROOT and WORK set.
declare -A CMD=(
    [floor]='"$WORK/floor" <"$WORK/paths" >/dev/null'
    [agg]='ci-agg --by event "$ROOT" >/dev/null'
    [pipeline]='ci-find --root "$ROOT" | ci-agg --by event >/dev/null'
)
export ROOT WORK
# Build the caches (twice: the second run finds every file settled).
for name in agg pipeline; do bash -c "${CMD[$name]}"; done
sleep 3
for name in agg pipeline; do bash -c "${CMD[$name]}"; done
# Same answers as --no-cache.
diff <(ci-agg --by event "$ROOT") <(ci-agg --no-cache --by event "$ROOT") >/dev/null \
    || { echo "bench/warm.sh: the warm answer differs from --no-cache" >&2; exit 1; }

median_ms() { # COMMAND: median wall and CPU (user + system, all processes) milliseconds
    python3 - "$1" "$RUNS" <<'PY'
import resource, statistics, subprocess, sys, time
cmd, runs = sys.argv[1], int(sys.argv[2])
subprocess.run(["bash", "-c", cmd], check=True)  # warm-up
cpu = lambda: (lambda r: r.ru_utime + r.ru_stime)(resource.getrusage(resource.RUSAGE_CHILDREN))
wall, used = [], []
for _ in range(runs):
    s, c = time.perf_counter(), cpu()
    subprocess.run(["bash", "-c", cmd], check=True)
    wall.append((time.perf_counter() - s) * 1000)
    used.append((cpu() - c) * 1000)
print("%.1f %.1f" % (statistics.median(wall), statistics.median(used)))
PY
}
syscalls() { # COMMAND: system calls in all (strace -c -f)
    strace -c -f -o "$WORK/strace" bash -c "$1" >/dev/null 2>&1
    awk '$NF == "total" { print $(NF-2) }' "$WORK/strace"
}

echo "captures: $caps (floor: $((2 * caps)) stats)"
bash_calls=$(syscalls 'true')
read -r floor_ms floor_cpu < <(median_ms "${CMD[floor]}")
ratio() { python3 -c "print('%.2f' % ($1 / $2))"; }
printf '%-9s %8s %7s %8s %7s %9s %12s\n' command "wall ms" "÷floor" "cpu ms" "÷floor" syscalls "per capture"
for name in floor agg pipeline; do
    if [ "$name" = floor ]; then ms=$floor_ms cpu=$floor_cpu; else read -r ms cpu < <(median_ms "${CMD[$name]}"); fi
    n=$(syscalls "${CMD[$name]}")
    n=$((n - bash_calls)) # less what the bash running it costs
    printf '%-9s %8s %7s %8s %7s %9s %12s\n' "$name" "$ms" "$(ratio "$ms" "$floor_ms")" "$cpu" \
        "$(ratio "$cpu" "$floor_cpu")" "$n" "$(ratio "$n" "$caps")"
done
