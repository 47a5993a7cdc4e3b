#!/usr/bin/env bash
# Twenty questions in one capture cache (issue 33): every preset, five --by
# keys, three windows, asked one after the other over ROOT; then the cache's
# size against the captures' bytes, with the default bound (5% of the
# captures' bytes, at least 4 MiB, at most 1 GiB) and with a fixed 1 GiB
# (the rule before issue 33), and whether each answer equals --no-cache.
#
# Usage: bash bench/twenty.sh ROOT
#   ROOT  any tree the tools read (not changed). bench/incremental.sh runs it
#         on its copy.
# Environment: BIN_DIR (default target/release). The caches are in a
# temporary directory, never the user's.
set -euo pipefail

ROOT=${1:?usage: bench/twenty.sh ROOT}
HERE=$(cd "$(dirname "$0")" && pwd)
BIN_DIR=${BIN_DIR:-$HERE/../target/release}
export PATH="$BIN_DIR:$PATH"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

QUESTIONS=(
    "--by event" "--tokens" "--tools" "--sessions"
    "--by workspace" "--by session" "--by day" "--by model" "--by tool"
    "--tokens --by day" "--tokens --by model" "--tokens --by session" "--tools --by workspace"
    "--by event,workspace" "--by event --stats data.duration_ms" "--by agent"
    "--by event --since 2026-01-01" "--tokens --since 30d" "--by event --until 2026-06-01"
    "--by week"
)
capture_bytes=$(find -L "$ROOT" -type f \( -name '*.jsonl' -o -name '*.json' -o -name '*.db' \) -printf '%s\n' | awk '{s+=$1} END {print s+0}')

echo "| bound | cache after 20 questions | captures' bytes | cache / captures | files | answers |"
echo "|---|---|---|---|---|---|"
for bound in default 1G; do
    cache=$WORK/xdg-$bound
    env=(XDG_CACHE_HOME="$cache")
    [ "$bound" = default ] || env+=(CI_CACHE_MAX_BYTES="$bound")
    same=identical
    for q in "${QUESTIONS[@]}"; do
        # shellcheck disable=SC2086
        env "${env[@]}" ci-agg $q "$ROOT" >"$WORK/out" 2>&1 || true
        # shellcheck disable=SC2086
        ci-agg --no-cache $q "$ROOT" >"$WORK/ref" 2>&1 || true
        cmp -s "$WORK/out" "$WORK/ref" || { same="DIFFERENT ($q)"; }
    done
    bytes=$(du -sb "$cache/ci-tools" | cut -f1)
    files=$(find "$cache/ci-tools" -type f | wc -l)
    echo "| $bound | $bytes | $capture_bytes | $(python3 -c "print('%.2f%%' % (100*$bytes/$capture_bytes))") | $files | $same |"
done
