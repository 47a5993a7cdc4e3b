#!/usr/bin/env bash
# The cold run that builds the cache against a --no-cache run (issue 33:
# <= 1.25x): `ci-agg --by event ROOT` with the cache directory emptied before
# each run (the question's file and the peeks are written), and the same
# with --no-cache, the two interleaved. Prints the medians of wall and CPU
# time (user + system) and their ratios.
#
# Usage: bash bench/cold.sh ROOT [RUNS]
#   ROOT  a tree of captures (gen-corpus ROOT --size 1G --seed 7); only read.
#   RUNS  timed runs of each, after one warm-up of each (default 5).
# Environment: BIN_DIR (default target/release). The cache is in a
# temporary directory (XDG_CACHE_HOME), never the user's.
set -euo pipefail

ROOT=${1:?usage: bench/cold.sh ROOT [RUNS]}
RUNS=${2:-5}
HERE=$(cd "$(dirname "$0")" && pwd)
BIN_DIR=${BIN_DIR:-$HERE/../target/release}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export TZ=UTC
python3 - "$BIN_DIR/ci-agg" "$ROOT" "$RUNS" "$WORK/xdg" <<'PY'
import os, resource, shutil, statistics, subprocess, sys, time
agg, root, runs, xdg = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
cpu = lambda: (lambda r: r.ru_utime + r.ru_stime)(resource.getrusage(resource.RUSAGE_CHILDREN))
env = dict(os.environ, XDG_CACHE_HOME=xdg)
res = {"cold": ([], []), "no-cache": ([], [])}
for i in range(runs + 1):  # the first round is the warm-up
    for name in res:
        shutil.rmtree(xdg, ignore_errors=True)
        args = [agg, "--by", "event", root] + (["--no-cache"] if name == "no-cache" else [])
        s, c = time.perf_counter(), cpu()
        subprocess.run(args, check=True, stdout=subprocess.DEVNULL, env=env)
        if i:
            res[name][0].append((time.perf_counter() - s) * 1000)
            res[name][1].append((cpu() - c) * 1000)
med = lambda name, k: statistics.median(res[name][k])
for name in res:
    print("%-9s wall %7.1f ms  cpu %7.1f ms" % (name, med(name, 0), med(name, 1)))
print("cold / no-cache: wall %.2f  cpu %.2f" % (med("cold", 0) / med("no-cache", 0), med("cold", 1) / med("no-cache", 1)))
PY
