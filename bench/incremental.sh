#!/usr/bin/env bash
# The capture cache (issue 16): cold, cache-building, warm and incremental
# runs of the two repeated questions, side by side with DuckDB.
#
# Usage: bash bench/incremental.sh ROOT [RUNS]
#   ROOT  an Amplifier corpus (gen-corpus --size 1G --seed 7 is the reference);
#         it is copied to a temporary directory first (the incremental step
#         appends to the copy), so ROOT itself is never changed.
#   RUNS  hyperfine runs per command (default 5).
# Environment: BIN_DIR (default target/release), KEEP=1 keeps the copy, BIG=FILE
# also times one large file (cat, -j1, -j2, building, warm; ci-filter's line
# index on it; the machine's own two-way scaling of reading it), CLAUDE=DIR a
# Claude Code tree (ci-find's kept peeks, ci-agg --tokens; not copied),
# HOOKS=DIR a Claude Code hooks root (_sessiondata; not copied), CLAUDE_NOW an
# instant whose day is "today" for the Claude tree's --since today (CI_NOW).
# The caches are in the temporary directory (XDG_CACHE_HOME per question),
# never the user's.
#
# Steps, every one timed by hyperfine:
#   cold      --no-cache (today's run: every byte read)
#   build     an empty cache (the first run: reads everything, writes the cache)
#   warm      the cache current (nothing changed since the last run)
#   appended  after 1% more lines in 10% of the captures (every tenth
#             capture, its first lines appended again), from the cache as it
#             was before the append (restored before each run)
#   duckdb    read_json GROUP BY event over the same files (bench/duck.py)
#   ci-filter --event tool:error, cold, building and warm (the line index)
#   more    --tools, percentiles and --sessions, cold and warm
#   floor   GNU find listing the tree with a stat of every file
#   status  (CLAUDE) 360 sessions asked about in a cache holding the whole
#           tree's entries, warm and with one session grown before each run
#   today   (CLAUDE) --tokens --since today warm, building, --no-cache, beside
#           the floor (bench/floor.c: each transcript file stat-ed once); one
#           session's --tokens and --statusline, warm
#   twenty  twenty questions in one cache (bench/twenty.sh): its size against
#           the captures' bytes, default bound and a fixed 1 GiB
# and checks that every cached answer equals the --no-cache one byte for byte.
# Ratios are from one run on a shared machine: read them as rough.
set -euo pipefail

ROOT=${1:?usage: bench/incremental.sh ROOT [RUNS]}
RUNS=${2:-5}
HERE=$(cd "$(dirname "$0")" && pwd)
BIN_DIR=${BIN_DIR:-$HERE/../target/release}
export PATH="$BIN_DIR:$PATH"
for t in hyperfine ci-find ci-agg; do
    command -v "$t" >/dev/null || { echo "bench/incremental.sh: $t not found (cargo build --release; apt-get install hyperfine)" >&2; exit 2; }
done

WORK=$(mktemp -d)
if [ "${KEEP:-0}" != 1 ]; then trap 'rm -rf "$WORK"' EXIT; fi
echo "copying $ROOT to $WORK/root ..." >&2
cp -a "$ROOT" "$WORK/root"
R=$WORK/root
# One cache directory per question, so that building one does not remove another's.
cache() { echo "$WORK/xdg-$1/ci-tools"; }
corpus_bytes=$(du -sb "$R" | cut -f1)

# mean milliseconds of a command (hyperfine JSON export)
mean_ms() { python3 -c 'import json,sys; print("%.1f" % (json.load(open(sys.argv[1]))["results"][0]["mean"]*1000))' "$1"; }
time_it() { # NAME PREPARE COMMAND
    local name=$1 prep=$2 cmd=$3
    if [ -n "$prep" ]; then
        hyperfine -w 1 -r "$RUNS" --prepare "$prep" --export-json "$WORK/$name.json" "$cmd" >/dev/null
    else
        hyperfine -w 1 -r "$RUNS" --export-json "$WORK/$name.json" "$cmd" >/dev/null
    fi
    mean_ms "$WORK/$name.json"
}
same() { # CMD_CACHED CMD_UNCACHED
    if cmp -s <(bash -c "$1" 2>&1) <(bash -c "$2" 2>&1); then echo identical; else echo DIFFERENT; fi
}
# A table row: COMMAND (`ci-TOOL ARGS…`) cold (--no-cache after the tool's
# name) and warm (after one run that builds the cache), and whether both print
# the same; LABEL names the row.
cold_warm() { # LABEL COMMAND
    local label=$1 cmd=$2 nc=${2/ / --no-cache }
    bash -c "$cmd" >/dev/null 2>&1
    local c w
    c=$(time_it row-cold "" "bash -c \"$nc\"")
    w=$(time_it row-warm "" "bash -c \"$cmd\"")
    echo "| $label | $c ms | $w ms | $(python3 -c "print('%.1f×' % ($c/$w))") | $(same "$cmd" "$nc") |"
}
# A table of ci-agg questions over ROOT, cold and warm, each question in a
# cache of its own (named after NAME and the question).
agg_table() { # TITLE NAME ROOT QUESTION...
    local title=$1 name=$2 root=$3 q
    shift 3
    echo
    echo "| $title | cold (--no-cache) | warm | cold / warm | output |"
    echo "|---|---|---|---|---|"
    for q in "$@"; do
        XDG_CACHE_HOME=$WORK/xdg-$name-${q//[^a-z]/} cold_warm "ci-agg $q" "ci-agg $q '$root'"
    done
}

declare -A Q=([event]="--by event" [tokens]="--tokens --by day")
# The pipeline of question NAME, with the cache and without.
pipe() { echo "ci-find --root '$R' | XDG_CACHE_HOME='$WORK/xdg-$1' ci-agg ${Q[$1]}"; }
nocache() { echo "ci-find --root '$R' | ci-agg --no-cache ${Q[$1]}"; }

echo "| question | cold (--no-cache) | build (empty cache) | warm | cold / warm | output |"
echo "|---|---|---|---|---|---|"
for name in event tokens; do
    cold=$(time_it "$name-cold" "" "bash -c \"$(nocache $name)\"")
    build=$(time_it "$name-build" "rm -rf '$(cache $name)'" "bash -c \"$(pipe $name)\"")
    bash -c "$(pipe $name)" >/dev/null 2>&1
    warm=$(time_it "$name-warm" "" "bash -c \"$(pipe $name)\"")
    echo "| ci-find \| ci-agg ${Q[$name]} | $cold ms | $build ms | $warm ms | $(python3 -c "print('%.1f×' % ($cold/$warm))") | $(same "$(pipe $name)" "$(nocache $name)") |"
done

cache_bytes=$(du -scb "$(cache event)" "$(cache tokens)" | tail -1 | cut -f1)
echo
echo "cache: $cache_bytes bytes for $corpus_bytes bytes of captures ($(python3 -c "print('%.2f%%' % (100*$cache_bytes/$corpus_bytes))"))"

# The incremental step: snapshot the cache, append, time runs from the snapshot.
for name in event tokens; do cp -a "$(cache $name)" "$WORK/snapshot-$name"; done
python3 - "$R" <<'PY'
import os, sys
root = sys.argv[1]
paths = sorted(os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs if f == "events.jsonl")
appended = 0
for p in paths[::10]:
    with open(p, "rb") as f:
        lines = f.read().split(b"\n")[:-1]
    extra = lines[: max(1, len(lines) // 100)]
    with open(p, "ab") as f:
        f.write(b"".join(l + b"\n" for l in extra))
    appended += len(extra)
print(f"appended {appended} lines to {len(paths[::10])} of {len(paths)} captures", file=sys.stderr)
PY
echo
echo "| question | cold after the append | from the cache before the append | cached / cold | output |"
echo "|---|---|---|---|---|"
for name in event tokens; do
    cold=$(time_it "$name-cold2" "" "bash -c \"$(nocache $name)\"")
    restore="rm -rf '$(cache $name)' && cp -a '$WORK/snapshot-$name' '$(cache $name)'"
    inc=$(time_it "$name-inc" "$restore" "bash -c \"$(pipe $name)\"")
    bash -c "$restore"
    echo "| ci-agg ${Q[$name]} | $cold ms | $inc ms | $(python3 -c "print('%.1f%%' % (100*$inc/$cold))") | $(same "$(pipe $name)" "$(nocache $name)") |"
done

# ci-filter's line index: --event reads only the lines whose name can match.
F="--event tool:error"
export XDG_CACHE_HOME=$WORK/xdg-filter
fcold=$(time_it filter-cold "" "ci-filter --no-cache $F '$R'")
fbuild=$(time_it filter-build "rm -rf '$XDG_CACHE_HOME'" "ci-filter $F '$R'")
ci-filter $F "$R" >/dev/null 2>&1
fwarm=$(time_it filter-warm "" "ci-filter $F '$R'")
pwarm=$(time_it filter-pipe-warm "" "bash -c \"ci-find --root '$R' | ci-filter $F\"")
pcold=$(time_it filter-pipe-cold "" "bash -c \"ci-find --root '$R' | ci-filter --no-cache $F\"")
echo
echo "| ci-filter $F | cold (--no-cache) | build | warm | cold / warm | output |"
echo "|---|---|---|---|---|---|"
echo "| ci-filter $F ROOT | $fcold ms | $fbuild ms | $fwarm ms | $(python3 -c "print('%.1f×' % ($fcold/$fwarm))") | $(same "ci-filter $F '$R'" "ci-filter --no-cache $F '$R'") |"
echo "| ci-find \| ci-filter $F | $pcold ms | – | $pwarm ms | $(python3 -c "print('%.1f×' % ($pcold/$pwarm))") | $(same "ci-find --root '$R' | ci-filter $F" "ci-find --root '$R' | ci-filter --no-cache $F") |"
echo "line index: $(du -scb "$XDG_CACHE_HOME/ci-tools/"lines-* | tail -1 | cut -f1) bytes"
unset XDG_CACHE_HOME

# Questions answered from kept tapes (percentiles, --tools' latency) and
# --sessions, each in a cache of its own.
agg_table "more questions (ROOT)" more "$R" "--tools" "--by event --stats data.duration_ms" "--sessions"

# The floor of any warm run: the tree listed and every capture's stat taken.
fl=$(time_it floor-find "" "find '$R' -name events.jsonl -printf '%s %T@\\n'")
echo
echo "floor: find ROOT -name events.jsonl -printf (a walk and a stat per capture): $fl ms; warm ci-find | ci-agg --by event: $(mean_ms "$WORK/event-warm.json") ms"

if python3 -c 'import duckdb' 2>/dev/null; then
    export R
    sql="SELECT event, count(*) AS n FROM read_json('\$R/*/sessions/*/context-intelligence/events.jsonl', format='newline_delimited', ignore_errors=true, maximum_object_size=1073741824) GROUP BY event ORDER BY n DESC"
    duck=$(time_it duck "" "python3 '$HERE/duck.py' \"$sql\"")
    warm=$(mean_ms "$WORK/event-warm.json")
    echo
    echo "duckdb read_json GROUP BY event: $duck ms; warm ci-find | ci-agg --by event is $(python3 -c "print('%.1f×' % ($duck/$warm))") faster"
else
    echo
    echo "duckdb: not installed (pip install duckdb), skipped"
fi

# One large file (BIG=FILE, e.g. every events.jsonl of the corpus concatenated):
# read in parts by both threads, and answered from the cache.
if [ -n "${BIG:-}" ]; then
    echo "copying $BIG ..." >&2
    cp "$BIG" "$WORK/big.jsonl"
    BIG=$WORK/big.jsonl
    export XDG_CACHE_HOME=$WORK/xdg-big
    catf=$(time_it big-cat "" "cat '$BIG'")
    j1=$(time_it big-j1 "" "ci-agg --no-cache -j1 --by event '$BIG'")
    j2=$(time_it big-j2 "" "ci-agg --no-cache -j2 --by event '$BIG'")
    build=$(time_it big-build "rm -rf '$XDG_CACHE_HOME'" "ci-agg -j2 --by event '$BIG'")
    ci-agg --by event "$BIG" >/dev/null 2>&1
    warm=$(time_it big-warm "" "ci-agg -j2 --by event '$BIG'")
    # 1 % more lines (its first ones again), read from the kept end.
    cp -a "$XDG_CACHE_HOME" "$WORK/snapshot-big"
    head -c $(( $(stat -c %s "$BIG") / 100 )) "$BIG" | sed '$d' >> "$BIG"
    restore="rm -rf '$XDG_CACHE_HOME' && cp -a '$WORK/snapshot-big' '$XDG_CACHE_HOME'"
    grown=$(time_it big-grown "$restore" "ci-agg -j2 --by event '$BIG'")
    bash -c "$restore"
    grown_same=$(same "ci-agg -j2 --by event '$BIG'" "ci-agg --no-cache -j2 --by event '$BIG'")
    echo
    echo "| one file, ci-agg --by event | cat | -j1 | -j2 | -j1 / -j2 | -j2 / cat | build (-j2) | warm | 1 % appended | output |"
    echo "|---|---|---|---|---|---|---|---|---|---|"
    echo "| $(du -h "$BIG" | cut -f1) | $catf ms | $j1 ms | $j2 ms | $(python3 -c "print('%.2f×' % ($j1/$j2))") | $(python3 -c "print('%.2f×' % ($j2/$catf))") | $build ms | $warm ms | $grown ms | $grown_same |"
    # What two threads gain at best here: the file copied out of the page
    # cache by one dd, and by two dd at once (one half each).
    half=$(( $(stat -c %s "$BIG") / 2 / 1048576 ))
    dd1=$(time_it big-dd1 "" "dd if='$BIG' of=/dev/null bs=1M status=none")
    dd2=$(time_it big-dd2 "" "bash -c \"dd if='$BIG' of=/dev/null bs=1M count=$half status=none & dd if='$BIG' of=/dev/null bs=1M skip=$half status=none; wait\"")
    echo
    echo "two-way scaling of the copy alone: one dd $dd1 ms, two halves at once $dd2 ms ($(python3 -c "print('%.2f×' % ($dd1/$dd2))"))"
    export XDG_CACHE_HOME=$WORK/xdg-big-filter
    fcold=$(time_it big-filter-cold "" "ci-filter --no-cache $F '$BIG'")
    fbuild=$(time_it big-filter-build "rm -rf '$XDG_CACHE_HOME'" "ci-filter $F '$BIG'")
    ci-filter $F "$BIG" >/dev/null 2>&1
    fwarm=$(time_it big-filter-warm "" "ci-filter $F '$BIG'")
    echo
    echo "| one file, ci-filter $F | cold (-j2) | build | warm | cold / warm | output |"
    echo "|---|---|---|---|---|---|"
    echo "| $(du -h "$BIG" | cut -f1) | $fcold ms | $fbuild ms | $fwarm ms | $(python3 -c "print('%.1f×' % ($fcold/$fwarm))") | $(same "ci-filter $F '$BIG'" "ci-filter --no-cache $F '$BIG'") |"
    unset XDG_CACHE_HOME
fi

# Claude Code transcripts (CLAUDE=DIR, a CLAUDE_CONFIG_DIR-like tree, not
# copied: nothing is changed): ci-find's kept peeks and ci-agg --tokens.
if [ -n "${CLAUDE:-}" ]; then
    export XDG_CACHE_HOME=$WORK/xdg-claude
    echo
    echo "| Claude Code tree | cold (--no-cache) | warm | cold / warm | output |"
    echo "|---|---|---|---|---|"
    for cmd in "ci-find --root '$CLAUDE'" "ci-agg --tokens --by day '$CLAUDE'"; do
        cold_warm "${cmd%% \'*}" "$cmd"
    done
    # The status line: a question about a few recent sessions (a copy of the
    # last 360 the tree lists, so that one can grow) in a cache that also
    # holds the whole history's entries for the same question; then the same
    # question after one of them grew by a line, before every run.
    S=$WORK/status/projects/recent
    mkdir -p "$S"
    ci-find --root "$CLAUDE" --paths | tail -n 360 | while read -r f; do cp "$f" "$S/"; done
    recent=("$S"/*.jsonl)
    grow=${recent[0]}
    ci-agg --tokens --by day "$S" >/dev/null 2>&1
    sc=$(time_it status-cold "" "ci-agg --no-cache --tokens --by day '$S'")
    sw=$(time_it status-warm "" "ci-agg --tokens --by day '$S'")
    sg=$(time_it status-grown "tail -n 1 '$grow' >> '$grow'" "ci-agg --tokens --by day '$S'")
    echo
    echo "status line: ci-agg --tokens --by day over 360 sessions, in a cache that also holds the tree's $(ci-find --root "$CLAUDE" --paths | wc -l): --no-cache $sc ms, warm $sw ms, one session grown by a line before each run $sg ms ($(same "ci-agg --tokens --by day '$S'" "ci-agg --no-cache --tokens --by day '$S'"))"
    # Today's cost across all history (issue 33), beside the floor: every
    # transcript file of the tree stat-ed once by bench/floor.c, in this run.
    # "today" is CLAUDE_NOW's day when set (CI_NOW; a generated tree's last
    # day, say), else the clock's. Its own cache, built by one windowed run.
    if [ -n "${CLAUDE_NOW:-}" ]; then export CI_NOW=$CLAUDE_NOW; fi
    export XDG_CACHE_HOME=$WORK/xdg-today
    cc -O2 -o "$WORK/floor" "$HERE/floor.c"
    find "$CLAUDE" -name '*.jsonl' > "$WORK/claude-paths"
    fl=$(time_it today-floor "" "'$WORK/floor' < '$WORK/claude-paths'")
    # (exit 1 when nothing was today: `|| true`, for hyperfine)
    today="ci-agg --tokens --since today '$CLAUDE' || true"
    nc_today="ci-agg --no-cache --tokens --since today '$CLAUDE' || true"
    tc=$(time_it today-cold "" "$nc_today")
    tb=$(time_it today-build "rm -rf '$XDG_CACHE_HOME'" "$today")
    bash -c "$today" >/dev/null 2>&1
    tw=$(time_it today-warm "" "$today")
    echo
    echo "| --tokens --since today, $(wc -l < "$WORK/claude-paths") files | floor (a stat each) | warm | warm / floor | building | --no-cache | output |"
    echo "|---|---|---|---|---|---|---|"
    echo "| $CLAUDE | $fl ms | $tw ms | $(python3 -c "print('%.2f×' % ($tw/$fl))") | $tb ms | $tc ms | $(same "$today" "$nc_today") |"
    # One session's status line: the statusLine JSON naming its transcript
    # (the tree's last session), and --tokens of that transcript, warm.
    one=$(ci-find --root "$CLAUDE" --paths | tail -n 1)
    echo "{\"session_id\":\"s\",\"transcript_path\":\"$one\",\"model\":{\"id\":\"claude-sonnet-4-5\"}}" > "$WORK/status.json"
    bash -c "ci-agg --tokens '$one'" >/dev/null 2>&1
    ot=$(time_it one-tokens "" "ci-agg --tokens '$one'")
    CLAUDE_CONFIG_DIR=$CLAUDE ci-agg --statusline < "$WORK/status.json" >/dev/null 2>&1
    sl=$(time_it statusline "" "CLAUDE_CONFIG_DIR='$CLAUDE' ci-agg --statusline < '$WORK/status.json'")
    echo "one session, warm: ci-agg --tokens TRANSCRIPT $ot ms; ci-agg --statusline (the whole tree's today and block) $sl ms; floor of the tree $fl ms"
    unset XDG_CACHE_HOME CI_NOW
fi

# Claude Code hooks sessions (HOOKS=DIR, a _sessiondata root, not copied):
# each with its transcript copy, which --tokens and --sessions read.
if [ -n "${HOOKS:-}" ]; then
    agg_table "hooks sessions" hooks "$HOOKS" "--tokens --by day" "--sessions" "--tools"
fi

# Twenty questions in one cache (issue 33): its size against the captures'.
echo
bash "$HERE/twenty.sh" "$R"
