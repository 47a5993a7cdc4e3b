#!/usr/bin/env bash
# bench/opencode-cache.sh — ci-agg's capture cache on a generated OpenCode database
# (BENCHMARKS.md, "OpenCode: the capture cache"; docs/cache.md, "Databases").
#
# Usage:  bench/opencode-cache.sh DIR [RUNS (3)]
#
#   DIR      an OpenCode data dir; bench/gen-opencode.py DIR writes one (1,100 sessions, 314 MB)
#            when DIR/opencode.db is not there. It is copied (the copy is written to), never
#            changed.
#   CI_BIN   directory of the ci-* binaries (default target/release).
#
# Each RUNS times, interleaved, under /usr/bin/time (wall seconds, peak RSS), TZ=UTC, the
# cache in a scratch XDG_CACHE_HOME filled by one run first:
#   cold:      ci-agg --no-cache --tokens --by day COPY
#   build:     the same with the cache, the cache emptied first (cold, building it)
#   warm:      ci-agg --tokens --by day COPY (nothing changed: answered by the db's stats)
#   insert:    the same just after one step-finish part was inserted into one session with
#              sqlite3 (the fingerprint path: the database opened once, one session read)
#   again:     3 s later (the entries written by `insert` are not settled yet: fingerprinted
#              once more, and written again)
#   warm-after: 3 s later again (answered by the stats)
#   floor:     bench/floor (cc bench/floor.c) stat-ing the database and its -wal
#   start:     ci-agg --tokens --by day on an empty folder (process start, no capture)
#   files:     with FILES=ROOT (a file writer's tree, e.g. a 315 MB Amplifier tree without bad lines),
#              ci-agg --tokens --by day ROOT warm, for comparison
# and checks that every cached answer equals the --no-cache one of the same state.
set -euo pipefail
DIR=${1:?usage: bench/opencode-cache.sh DIR [RUNS]}
RUNS=${2:-3}
CI_BIN=${CI_BIN:-target/release}
HERE=$(cd "$(dirname "$0")" && pwd)
[ -f "$DIR/opencode.db" ] || python3 "$HERE/gen-opencode.py" "$DIR"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/oc" "$WORK/empty" "$WORK/cache"
cp "$DIR/opencode.db" "$WORK/oc/opencode.db"
touch -d '1 hour ago' "$WORK/oc/opencode.db"
cc -O2 -o "$WORK/floor" "$HERE/floor.c"
export TZ=UTC XDG_CACHE_HOME="$WORK/cache"
AGG=("$CI_BIN/ci-agg" --tokens --by day)
timed() { # label, command...
    local label=$1
    shift
    # (`start` exits 1: no captures; the answers are checked by `same`)
    /usr/bin/time -f "$label %e s %M KB" "$@" 2>&1 >"$WORK/out.json" | tail -1 || true
}
same() { # the last answer against --no-cache's of the same state
    "${AGG[@]}" --no-cache "$WORK/oc" >"$WORK/cold.json"
    cmp -s "$WORK/out.json" "$WORK/cold.json" || { echo "DIFFERS: $1" >&2; exit 1; }
}
INSERT="INSERT INTO part (id, message_id, session_id, time_created, time_updated, data)
  SELECT id || 'x' || abs(random()), message_id, session_id, time_created, time_updated, data FROM part
  WHERE json_extract(data, '\$.type') = 'step-finish' ORDER BY rowid DESC LIMIT 1;"
"${AGG[@]}" "$WORK/oc" >/dev/null
for _ in $(seq "$RUNS"); do
    timed cold "${AGG[@]}" --no-cache "$WORK/oc"
    rm -rf "$WORK/cache/ci-tools"
    timed build "${AGG[@]}" "$WORK/oc"
    sleep 3
    timed warm "${AGG[@]}" "$WORK/oc"
    same warm
    sqlite3 "$WORK/oc/opencode.db" "$INSERT"
    timed insert "${AGG[@]}" "$WORK/oc"
    same insert
    sleep 3
    timed again "${AGG[@]}" "$WORK/oc"
    same again
    sleep 3
    timed warm-after "${AGG[@]}" "$WORK/oc"
    same warm-after
    printf '%s\n%s\n' "$WORK/oc/opencode.db" "$WORK/oc/opencode.db-wal" >"$WORK/paths"
    timed floor "$WORK/floor" <"$WORK/paths"
    timed start "${AGG[@]}" "$WORK/empty"
    if [ -n "${FILES:-}" ]; then
        "${AGG[@]}" "$FILES" >/dev/null
        timed files "${AGG[@]}" "$FILES"
    fi
done
