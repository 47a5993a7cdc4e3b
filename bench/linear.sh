#!/usr/bin/env bash
# bench/linear.sh — does cost grow linearly with the corpus, and memory stay flat?
#
# Usage: bench/linear.sh SMALL_ROOT LARGE_ROOT
#   e.g. gen-corpus 1g --size 1G --seed 7; gen-corpus 5g --size 5G --seed 7;
#        bench/linear.sh 1g 5g
#
# Runs the same ci-* pipelines over both capture roots (hyperfine, BENCH_RUNS=3 after one
# warm-up, page cache warmed first; a root larger than RAM measures the disk instead) and
# prints a Markdown table: median seconds on each, the time ratio next to the byte ratio
# of the two corpora, and peak RSS (GNU time, the largest process of the pipeline) on each.
# One run on a shared machine: read the ratios, not the times.
# Needs: hyperfine, GNU time (/usr/bin/time), the release binaries (built here unless
# BENCH_NO_BUILD=1).
set -euo pipefail

[[ $# -eq 2 ]] || { sed -n '2,12p' "$0" >&2; exit 2; }
small=$(cd "$1" && pwd)
large=$(cd "$2" && pwd)
repo=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
runs=${BENCH_RUNS:-3}
[[ ${BENCH_NO_BUILD:-0} == 1 ]] || (cd "$repo" && nice cargo build --release --quiet)
export PATH="$repo/target/release:$PATH"
command -v hyperfine >/dev/null || { echo "linear.sh: hyperfine not found (apt-get install hyperfine)" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "linear.sh: GNU time not found (apt-get install time)" >&2; exit 2; }

# Bytes of captures under a root (the fixed-depth Amplifier layout).
bytes() { find "$1" -path '*/sessions/*/context-intelligence/events.jsonl' -printf '%s\n' | awk '{s+=$1} END {print s}'; }
# Templates, expanded by the benchmark shell with $R exported:
# shellcheck disable=SC2016
rows=(
    'ci-find --root "$R" | ci-agg --by event'
    'ci-find --root "$R" | ci-filter --event tool:error'
    'ci-find --root "$R" | ci-grep -c -F decoy-ws'
    'ci-find --root "$R" | ci-cat'
    'ci-find --root "$R" | ci-agg --sessions'
)

sb=$(bytes "$small")
lb=$(bytes "$large")
echo "warming the page cache…" >&2
find "$small" "$large" -name events.jsonl -exec cat {} + >/dev/null

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '| pipeline | %s s | %s s | time ratio | byte ratio | peak RSS MB (small → large) |\n' \
    "$(basename "$small")" "$(basename "$large")"
printf '|---|---:|---:|---:|---:|---|\n'
for row in "${rows[@]}"; do
    med=()
    rss=()
    for root in "$small" "$large"; do
        export R=$root
        hyperfine -i --shell bash --style none --warmup 1 --runs "$runs" --export-json "$tmp/h.json" \
            "$row > /dev/null" >/dev/null
        med+=("$(python3 -c 'import json,sys; print("%.3f" % json.load(open(sys.argv[1]))["results"][0]["median"])' "$tmp/h.json")")
        # Peak RSS: every ci-* stage under GNU time, the largest reported.
        : >"$tmp/rss"
        staged=${row//ci-/\/usr\/bin\/time -a -o $tmp/rss -f %M ci-}
        R=$root bash -c "$staged" >/dev/null 2>&1 || true
        rss+=("$(sort -n "$tmp/rss" | tail -1 | awk '{printf "%d", $1/1024}')")
    done
    tr=$(python3 -c "print('%.2f' % (${med[1]}/${med[0]}))")
    br=$(python3 -c "print('%.2f' % ($lb/$sb))")
    # shellcheck disable=SC2016
    printf '| `%s` | %s | %s | %s | %s | %s → %s |\n' "${row//|/\\|}" "${med[0]}" "${med[1]}" "$tr" "$br" "${rss[0]}" "${rss[1]}"
done
