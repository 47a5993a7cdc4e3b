#!/usr/bin/env bash
# bench/huge.sh — peak memory and wall time of every tool on huge inputs (issue #8, "Huge lines").
#
# Usage: bench/huge.sh            (prints a Markdown table on stdout, progress on stderr)
#
# Inputs, each run through every tool under GNU `/usr/bin/time -v` (peak RSS = "Maximum
# resident set size"; wall = "Elapsed (wall clock) time"), output to /dev/null:
#   1g-file   one 1 GB capture: $CORPUS_ALL if set, else <root>-all.jsonl beside the corpus root
#             (bench/run.sh builds it the same way), where the root is $CORPUS (a gen-corpus tree),
#             else one generated once by `gen-corpus --size 1G --seed 7` ($GEN_CORPUS, default
#             ../shared/tools/gen-corpus beside the repo) in $HUGE_DIR.
#   100mb     one small line, one line of 100 MB (a string of x in data.blob), one small line.
#   5x200mb   five lines of 200 MB each (1 GB), each followed by a small line.
# The generated files live in $HUGE_DIR (default target/huge-bench; about 2.1 GB, reused when
# present). ci-find runs over the corpus root (1g-file) or a root holding the file as a capture.
#
# The bound column is the contract of issue #7: peak RSS <= 64 MB + 2 x the longest line.
# The machine is shared and noisy: times are indicative, one run each; RSS is stable.
#
# Environment: CORPUS, CORPUS_ALL, GEN_CORPUS, HUGE_DIR; HUGE_NO_BUILD=1 (use the binaries as they
# are); HUGE_BIN (binary directory, default target/release, e.g. a saved copy for before/after);
# HUGE_ONLY (comma list of inputs to run, default 1g-file,100mb,5x200mb).

set -euo pipefail
export LC_ALL=C

repo=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
dir=${HUGE_DIR:-$repo/target/huge-bench}
bin=${HUGE_BIN:-$repo/target/release}
only=,${HUGE_ONLY:-1g-file,100mb,5x200mb},
log() { printf 'huge: %s\n' "$*" >&2; }
die() { log "$*"; exit 2; }

[ -x /usr/bin/time ] || die "needs GNU time at /usr/bin/time (apt-get install time)"
mkdir -p "$dir"
if [ -z "${HUGE_NO_BUILD:-}" ]; then
    log "cargo build --release"
    (cd "$repo" && nice cargo build --release --quiet)
fi

# ---- inputs ----------------------------------------------------------------------------------
root=${CORPUS:-}
if [ -z "$root" ] && [ -z "${CORPUS_ALL:-}" ]; then
    root=$dir/corpus-1G-seed7
    if [ ! -d "$root" ]; then
        gen=${GEN_CORPUS:-$repo/../shared/tools/gen-corpus}
        [ -f "$gen" ] || die "no corpus: set CORPUS or CORPUS_ALL, or provide gen-corpus at $gen"
        log "gen-corpus --size 1G --seed 7 $root (once)"
        python3 "$gen" --size 1G --seed 7 "$root" >&2
    fi
fi
all=${CORPUS_ALL:-${root%/}-all.jsonl}
if [ ! -f "$all" ]; then
    log "concatenating the captures of $root into $all"
    find "$root" -mindepth 5 -maxdepth 5 -path '*/sessions/*/context-intelligence/events.jsonl' -print0 |
        sort -z | xargs -0 awk 1 > "$all"
fi

# A capture under a root for ci-find: $1 = name, $2 = events file (hard- or symlinked).
capture() {
    local d=$dir/root-$1/-p/sessions/$1/context-intelligence
    mkdir -p "$d"
    printf '{"session_id":"%s","workspace":"w"}' "$1" > "$d/metadata.json"
    ln -f "$2" "$d/events.jsonl" 2>/dev/null || ln -sf "$2" "$d/events.jsonl"
    printf '%s' "$dir/root-$1"
}

# Writes one event line whose data.blob holds $2 bytes of x (plus the envelope) to stdout.
big_line() {
    printf '{"event":"tool:post","workspace":"w","timestamp":"2026-03-01T10:00:0%sZ","data":{"tool_name":"bash","blob":"' "$1"
    head -c "$2" /dev/zero | tr '\0' x
    printf 'needle"}}\n'
}
small_line() {
    printf '{"event":"llm:response","workspace":"w","timestamp":"2026-03-01T10:00:0%sZ","data":{"model":"m1","usage":{"input_tokens":10,"output_tokens":5}}}\n' "$1"
}

if [ ! -f "$dir/100mb.jsonl" ]; then
    log "writing $dir/100mb.jsonl"
    { small_line 0; big_line 1 100000000; small_line 2; } > "$dir/100mb.jsonl.tmp"
    mv "$dir/100mb.jsonl.tmp" "$dir/100mb.jsonl"
fi
if [ ! -f "$dir/5x200mb.jsonl" ]; then
    log "writing $dir/5x200mb.jsonl"
    for i in 1 2 3 4 5; do big_line "$i" 200000000; small_line "$i"; done > "$dir/5x200mb.jsonl.tmp"
    mv "$dir/5x200mb.jsonl.tmp" "$dir/5x200mb.jsonl"
fi

# Bytes of the longest line, without its newline (awk is far too slow on 200 MB lines).
longest() {
    python3 -c 'import sys; print(max((len(l.rstrip(b"\n")) for l in open(sys.argv[1], "rb")), default=0))' "$1"
}

# ---- runs ------------------------------------------------------------------------------------
printf '| input | command | exit | peak RSS | bound | wall |\n|---|---|---:|---:|---:|---:|\n'
run_all() {
    case $only in *,"$1",*) ;; *) return 0 ;; esac
    local file=$2 froot=$3 long bound name
    log "$1: longest line"
    long=$(longest "$file")
    name="$1 (longest line $long B)"
    bound=$((64000000 + 2 * long))
    cat "$file" > /dev/null # page cache
    local cmds=(
        "ci-cat FILE"
        "ci-cat --full FILE"
        "ci-filter --event tool:post FILE"
        "ci-filter --event no:such FILE"
        "ci-filter --where data.usage.output_tokens>1 FILE"
        "ci-agg --by event FILE"
        "ci-agg --tokens FILE"
        "ci-agg --sessions FILE"
        "ci-grep -F needle FILE"
        "ci-grep -F absent-literal FILE"
        "ci-find --root ROOT"
    )
    local c args out rc rss wall
    for c in "${cmds[@]}"; do
        args=${c//FILE/$file}
        args=${args//ROOT/$froot}
        log "$name: $c"
        out=$(mktemp)
        set +e
        # shellcheck disable=SC2086  # word splitting of the command is intended
        /usr/bin/time -v -o "$out" "$bin"/$args > /dev/null 2>/dev/null
        rc=$?
        set -e
        rss=$(awk -F': ' '/Maximum resident set size/ { printf "%.0f", $2 * 1024 / 1e6 }' "$out")
        wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { print $2 }' "$out")
        rm -f "$out"
        local over=""
        [ $((rss * 1000000)) -le "$bound" ] || over=" **over**"
        # shellcheck disable=SC2016  # backquotes for Markdown
        printf '| %s | `%s` | %s | %s MB%s | %s MB | %s |\n' "$name" "$c" "$rc" "$rss" "$over" \
            "$((bound / 1000000))" "$wall"
    done
}

run_all "1g-file" "$all" "${root:-$(capture corpus "$all")}"
run_all "100mb" "$dir/100mb.jsonl" "$(capture l100mb "$dir/100mb.jsonl")"
run_all "5x200mb" "$dir/5x200mb.jsonl" "$(capture l5x200mb "$dir/5x200mb.jsonl")"
