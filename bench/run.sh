#!/usr/bin/env bash
# bench/run.sh — the ci-* tools side by side with jq, jaq, ripgrep and DuckDB.
#
# Usage: bench/run.sh [CORPUS_ROOT]
#
# Speed is measured here, never asserted in tests (docs: shared spec performance.md and the
# toolkit's "Performance contract"). Every number this prints comes from ONE run on whatever
# machine ran it: quote ratios between rows of the same run, never one absolute time as a fact.
#
# What it does, in order:
#   1. Finds the corpus. CORPUS_ROOT (argument) or $CORPUS_DIR; without either, a corpus made
#      by gen-corpus ($GEN_CORPUS, default ../shared/tools/gen-corpus beside the repo) with
#      --size $BENCH_SIZE (1G) --seed $BENCH_SEED (7) in the cache dir $BENCH_CACHE
#      (default ${XDG_CACHE_HOME:-~/.cache}/ci-tools-bench), generated once if missing.
#   2. Concatenates the captures — exactly <root>/*/sessions/*/context-intelligence/events.jsonl,
#      fixed depth, sorted bytewise by path, a newline added after a file that lacks one — into
#      one file for the single-file peer rows: $CORPUS_ALL, default <root>-all.jsonl (or in the
#      cache dir when <root>'s parent is read-only). Rebuilt when the captures change.
#   3. Builds our release binaries (cargo build --release, under nice; BENCH_NO_BUILD=1 skips).
#   4. Checks which peers are installed; with BENCH_INSTALL=1 it first installs the missing
#      ones (Debian packages with apt-get, as root or through sudo; jaq with cargo install;
#      duckdb with pip --user). An absent one is skipped with a note saying how to
#      install it. A ci-* row is skipped when its binary is not built, fails, or writes nothing
#      (a stub), so the script runs before the tools exist.
#   5. Warms the page cache (reads the whole corpus and the single file once).
#   6. Runs every row once untimed under /usr/bin/time -f %M (peak RSS, and a sanity check of
#      its exit status and output), then times the group's rows with hyperfine
#      (--warmup $BENCH_WARMUP=1 --runs $BENCH_RUNS=3, --export-json into a temp dir).
#   7. Prints a Markdown report on stdout: per group, medians, min–max, the ratio to our row
#      (or to the `cat` reading limit while ours is missing), peak RSS and a result column for
#      checking that the rows agree. Progress goes to stderr, so `bench/run.sh > out.md` works.
#
# Environment knobs:
#   CORPUS_DIR, CORPUS_ALL, BENCH_CACHE, GEN_CORPUS, BENCH_SIZE, BENCH_SEED   where the data is
#   BENCH_RUNS (3), BENCH_WARMUP (1)     hyperfine repetitions
#   BENCH_GROUPS                          comma list of groups to run (default all):
#                                         count,filter-event,filter-workspace,grep,cat,find,tokens,codex
#   BENCH_CLAUDE, CCUSAGE                 the tokens group: a Claude config dir, the ccusage binary
#   BENCH_CODEX                           the codex group: a CODEX_HOME (with CCUSAGE for the peer)
#   BENCH_LITERAL (decoy-ws)             the rare fixed string of the grep group
#   BENCH_NO_BUILD=1                      use the binaries already in target/release
#   BENCH_INSTALL=1                       install missing peers first (see step 4)
#   BENCH_REPORT=FILE                     also write the report to FILE
#   CI_COUNT, CI_FILTER_EVENT, CI_FILTER_WS, CI_GREP, CI_CAT, CI_CAT_FULL, CI_FIND
#                                         our command per group (defaults below)
#
# Commands are bash templates run by hyperfine through `bash -c`, with these variables exported:
#   $R    corpus root           $F    the single concatenated file
#   $LIT  the grep literal      $BENCH_DIR  this directory (for duck.py)
# ci-* binaries are found first on PATH in target/release. LC_ALL=C for every row.
#
# Peers and how they were installed on the project's machines:
#   apt-get install jq ripgrep hyperfine time      (Debian)
#   cargo install --locked jaq                     (crates.io)
#   pip install duckdb                             (PyPI; queries run via bench/duck.py)

# Row commands are templates expanded later by `bash -c`, so single quotes are intended:
# shellcheck disable=SC2016
set -euo pipefail

BENCH_DIR=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd -- "$BENCH_DIR/.." && pwd)

# ---- our commands, one per group: edit here (or override from the environment) ------------
# The toolkit contract says `ci-find | ci-X` and `ci-X <paths>` give the same answer; the
# pipeline form is used so that every tool is timed on the same discovery step.
CI_COUNT=${CI_COUNT:-'ci-find --root "$R" | ci-agg --by event'}
CI_FILTER_EVENT=${CI_FILTER_EVENT:-'ci-find --root "$R" | ci-filter --event tool:error'}
# --expand: with only session-level predicates, ci-filter passes session records on unexpanded;
# the peers select events, so ours must too.
CI_FILTER_WS=${CI_FILTER_WS:-'ci-find --root "$R" | ci-filter --expand --workspace my-api'}
CI_GREP=${CI_GREP:-'ci-find --root "$R" | ci-grep -F "$LIT"'}
CI_CAT=${CI_CAT:-'ci-find --root "$R" | ci-cat'}
CI_CAT_FULL=${CI_CAT_FULL:-'ci-find --root "$R" | ci-cat --full'}
CI_FIND=${CI_FIND:-'ci-find --root "$R"'}

# ---- DuckDB queries (run by bench/duck.py, which substitutes $R and $F) ---------------------
# columns={...} reads only the envelope: DuckDB still scans every byte of `data` but builds no
# values for it. ignore_errors=true turns damaged lines (torn, non-object, invalid UTF-8) into
# rows of NULLs — a NULL group in the output — where without it the first one aborts the query.
# maximum_object_size is not needed: DuckDB 2.0.1 read the 2.7 MB lines of the 1G corpus, and
# a 20 MB line, with the default, and did not fail even when it was set below the line size.
# shellcheck disable=SC2089  # the quotes are SQL's, kept literally on purpose
DUCK_OPTS="format='newline_delimited', columns={event:'VARCHAR', workspace:'VARCHAR', timestamp:'VARCHAR'}, ignore_errors=true"
SQL_COUNT_TREE="SELECT event, count(*) AS n FROM read_json('\$R/*/sessions/*/context-intelligence/events.jsonl', $DUCK_OPTS) GROUP BY event ORDER BY n DESC"
SQL_COUNT_FILE="SELECT event, count(*) AS n FROM read_json('\$F', $DUCK_OPTS) GROUP BY event ORDER BY n DESC"

LIT=${BENCH_LITERAL:-decoy-ws}
runs=${BENCH_RUNS:-3}
warmup=${BENCH_WARMUP:-1}
export LC_ALL=C

log() { printf 'bench: %s\n' "$*" >&2; }
die() { log "$*"; exit 2; }
have() { command -v "$1" >/dev/null 2>&1; }

# ---- 1. the corpus ---------------------------------------------------------------------------
cache=${BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ci-tools-bench}
gen=${GEN_CORPUS:-$repo/../shared/tools/gen-corpus}
root=${1:-${CORPUS_DIR:-}}
if [ -z "$root" ]; then
    size=${BENCH_SIZE:-1G}
    seed=${BENCH_SEED:-7}
    root=$cache/corpus-$size-seed$seed
    if [ ! -d "$root" ]; then
        [ -f "$gen" ] || die "no corpus: pass CORPUS_ROOT, set CORPUS_DIR, or provide gen-corpus at $gen (GEN_CORPUS)"
        have python3 || die "gen-corpus needs python3"
        mkdir -p "$cache"
        rm -rf "$root.partial"
        log "generating corpus: gen-corpus --size $size --seed $seed (once, into $root)"
        python3 "$gen" "$root.partial" --size "$size" --seed "$seed" > "$root.summary.json"
        mv "$root.partial" "$root"
    fi
fi
[ -d "$root" ] || die "corpus root $root does not exist"
root=$(cd -- "$root" && pwd)

shopt -s nullglob dotglob
captures=()
for f in "$root"/*/sessions/*/context-intelligence/events.jsonl; do
    [ -f "$f" ] && captures+=("$f")
done
shopt -u nullglob dotglob
[ "${#captures[@]}" -gt 0 ] || die "looked in $root, found 0 captures"

# ---- 2. the single concatenated file ---------------------------------------------------------
if [ -n "${CORPUS_ALL:-}" ]; then
    all=$CORPUS_ALL
elif [ -w "$(dirname -- "$root")" ]; then
    all=$root-all.jsonl
else
    mkdir -p "$cache"
    all=$cache/$(basename -- "$root")-all.jsonl
fi
# The stamp names every capture with its size and mtime: a changed corpus rebuilds the file.
stamp=$(printf '%s\0' "${captures[@]}" | xargs -0 stat -c '%n %s %Y' | md5sum | cut -d' ' -f1)
if [ ! -f "$all" ] || [ "$(cat -- "$all.stamp" 2>/dev/null)" != "$stamp" ]; then
    log "concatenating ${#captures[@]} captures into $all"
    for f in "${captures[@]}"; do
        cat -- "$f"
        # keep lines apart when a capture ends without a newline (a torn tail)
        if [ -s "$f" ] && [ -n "$(tail -c1 -- "$f")" ]; then echo; fi
    done > "$all.partial"
    mv -- "$all.partial" "$all"
    printf '%s\n' "$stamp" > "$all.stamp"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/ci-bench.XXXXXX")
log "work dir (hyperfine JSON, outputs): $work"

# ---- 3. our binaries -------------------------------------------------------------------------
target=${CARGO_TARGET_DIR:-$repo/target}
case $target in /*) ;; *) target=$repo/$target ;; esac
bindir=$target/release
if [ -z "${BENCH_NO_BUILD:-}" ]; then
    if have cargo; then
        log "cargo build --release"
        (cd -- "$repo" && nice -n 10 cargo build --release >&2) ||
            log "cargo build --release failed: ci-* rows need binaries already in $bindir"
    else
        log "cargo not found: ci-* rows need binaries already in $bindir"
    fi
fi
ci_bins=(ci-find ci-cat ci-filter ci-agg ci-grep)

# ---- 4. peers --------------------------------------------------------------------------------
# BENCH_INSTALL=1: install what is missing, each from where the project's machines got it.
install_peers() {
    local debs=() sudo=
    have hyperfine || debs+=(hyperfine)
    have jq || debs+=(jq)
    have rg || debs+=(ripgrep)
    [ -x /usr/bin/time ] || debs+=(time)
    if [ "${#debs[@]}" -gt 0 ]; then
        [ "$(id -u)" -eq 0 ] || sudo=sudo
        log "installing from Debian: ${debs[*]}"
        { $sudo apt-get update -qq && $sudo apt-get install -y -qq "${debs[@]}"; } >&2 ||
            log "apt-get install ${debs[*]} failed"
    fi
    if ! have jaq; then
        log "installing jaq from crates.io"
        cargo install --locked jaq >&2 || log "cargo install jaq failed"
        export PATH=${CARGO_HOME:-$HOME/.cargo}/bin:$PATH
    fi
    if have python3 && ! python3 -c 'import duckdb' 2>/dev/null; then
        log "installing duckdb from PyPI"
        python3 -m pip install --user --quiet duckdb >&2 || log "pip install duckdb failed"
    fi
}
if [ -n "${BENCH_INSTALL:-}" ]; then install_peers; fi
have hyperfine || die "hyperfine is required: apt-get install hyperfine (or cargo install --locked hyperfine)"
have_duckdb=
if have python3 && python3 -c 'import duckdb' 2>/dev/null; then have_duckdb=1; fi
have_time=
if [ -x /usr/bin/time ]; then have_time=1; fi
missing=()
have jq || missing+=("jq: apt-get install jq")
have jaq || missing+=("jaq: cargo install --locked jaq")
have rg || missing+=("rg: apt-get install ripgrep")
[ -n "$have_duckdb" ] || missing+=("duckdb: pip install duckdb (python3 -c 'import duckdb' must work)")
[ -n "$have_time" ] || missing+=("/usr/bin/time (peak RSS): apt-get install time")
for m in "${missing[@]}"; do log "not installed, rows skipped: $m"; done

version_of() {
    case $1 in
        jq) jq --version ;;
        jaq) jaq --version ;;
        rg) rg --version | sed -n 1p ;;
        hyperfine) hyperfine --version ;;
        duckdb) python3 -c 'import duckdb; print("duckdb", duckdb.__version__)' ;;
        python3) python3 --version ;;
        rustc) rustc --version ;;
    esac 2>/dev/null || echo "?"
}

load_start=$(cut -d' ' -f1-3 /proc/loadavg)

# ---- 5. warm the page cache ------------------------------------------------------------------
log "warming the page cache"
find "$root" -type f -print0 | xargs -0 cat > /dev/null
cat -- "$all" > /dev/null

# shellcheck disable=SC2090  # the SQL strings travel as data to duck.py
export R=$root F=$all LIT BENCH_DIR SQL_COUNT_TREE SQL_COUNT_FILE
export PATH=$bindir:$PATH

# Wrappers that record each ci-* binary's own peak RSS during the untimed run.
wrapdir=$work/rss-wrappers
mkdir -p "$wrapdir"
if [ -n "$have_time" ]; then
    for b in "${ci_bins[@]}"; do
        [ -x "$bindir/$b" ] || continue
        printf '#!/bin/sh\nexec /usr/bin/time -a -o "$CI_BENCH_RSS" -f "%s=%%M" %q "$@"\n' \
            "$b" "$bindir/$b" > "$wrapdir/$b"
        chmod +x "$wrapdir/$b"
    done
fi

# ---- 6. groups and rows ----------------------------------------------------------------------
# group SLUG TITLE PROBE    — PROBE: a string whose first output line goes in the result column
# row LABEL NEEDS FLAGS NOTE COMMAND
#   NEEDS: peers the row needs (jq jaq rg duckdb); ci-* binaries are read off COMMAND.
#   FLAGS: ref (reference row while ours is missing), empty-ok (no output expected).
G_SLUG='' G_TITLE='' G_PROBE=''
G_LABEL=() G_NEEDS=() G_FLAGS=() G_NOTE=() G_CMD=()
group() {
    G_SLUG=$1 G_TITLE=$2 G_PROBE=${3:-}
    G_LABEL=() G_NEEDS=() G_FLAGS=() G_NOTE=() G_CMD=()
}
row() { G_LABEL+=("$1"); G_NEEDS+=("$2"); G_FLAGS+=("$3"); G_NOTE+=("$4"); G_CMD+=("$5"); }

one_line() { tr '\t\n' '  ' | tr -s ' ' | sed 's/^ //; s/ $//' | cut -c1-"${1:-80}"; }

missing_reason() { # NEEDS COMMAND -> prints why the row cannot run, or nothing
    local need b
    for need in $1; do
        case $need in
            duckdb) [ -n "$have_duckdb" ] || { echo "duckdb not installed (pip install duckdb)"; return; } ;;
            jaq) have jaq || { echo "jaq not installed (cargo install --locked jaq)"; return; } ;;
            ccusage) [ -x "${CCUSAGE:-}" ] || { echo "CCUSAGE is not an executable (npm install ccusage@20.0.24 @ccusage/ccusage-linux-x64@20.0.24)"; return; } ;;
            rg) have rg || { echo "rg not installed (apt-get install ripgrep)"; return; } ;;
            *) have "$need" || { echo "$need not installed (apt-get install $need)"; return; } ;;
        esac
    done
    while read -r b; do
        [ -x "$bindir/$b" ] || { echo "$b not built yet (no $b in target/release)"; return; }
    done < <(grep -oE '(^|[^[:alnum:]_./-])ci-(find|cat|filter|agg|grep)\b' <<<"$2" | grep -oE 'ci-[a-z]+' | sort -u)
}

run_group() {
    case ",${BENCH_GROUPS:-$G_SLUG}," in *",$G_SLUG,"*) ;; *) return 0 ;; esac
    log "group: $G_TITLE"
    printf '%s\t%s\n' "$G_SLUG" "$G_TITLE" >> "$work/groups.tsv"
    local rows=$work/$G_SLUG.rows.tsv i cmd label reason out err rss binrss rc result lines bytes note
    local hf=()
    : > "$rows"
    for i in "${!G_CMD[@]}"; do
        cmd=${G_CMD[$i]} label=${G_LABEL[$i]} note=${G_NOTE[$i]}
        reason=$(missing_reason "${G_NEEDS[$i]}" "$cmd")
        if [ -n "$reason" ]; then
            log "  skip $label: $reason"
            printf 'skip\t%s\t%s\t%s\t%s\t\t\t%s\n' "$label" "$cmd" "$note" "$reason" "${G_FLAGS[$i]}" >> "$rows"
            continue
        fi
        out=$work/$G_SLUG.$i.out err=$work/$G_SLUG.$i.err rss=$work/$G_SLUG.$i.rss binrss=$work/$G_SLUG.$i.binrss
        : > "$binrss"
        log "  untimed check: $label"
        # stdout goes through outsum.py, which counts it and keeps only its head: outputs can
        # be as large as the corpus.
        set +e
        {
            if [ -n "$have_time" ]; then
                CI_BENCH_RSS=$binrss PATH=$wrapdir:$PATH \
                    /usr/bin/time -f %M -o "$rss" bash -o pipefail -c "$cmd" 2> "$err"
            else
                bash -o pipefail -c "$cmd" 2> "$err"
            fi
            echo $? > "$out.rc"
        } | python3 "$BENCH_DIR/outsum.py" "$G_PROBE" "$out" > "$out.sum"
        set -e
        rc=$(cat "$out.rc")
        { read -r lines; read -r bytes; read -r result; } < "$out.sum"
        reason=
        if [ "$rc" -ne 0 ]; then
            reason="exit $rc: $(head -n1 "$err" | one_line 100)"
        elif [ "$bytes" -eq 0 ] && [[ ,${G_FLAGS[$i]}, != *,empty-ok,* ]]; then
            reason="ran but wrote nothing (a stub?)"
        fi
        if [ -n "$reason" ]; then
            log "  skip $label: $reason"
            printf 'skip\t%s\t%s\t%s\t%s\t\t\t%s\n' "$label" "$cmd" "$note" "$reason" "${G_FLAGS[$i]}" >> "$rows"
            continue
        fi
        log "    $lines lines, $bytes bytes: $result"
        if [ -s "$err" ]; then
            note="${note:+$note; }stderr: $(head -n1 "$err" | one_line 80)"
        fi
        printf 'ok\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$label" "$cmd" "$note" "$result" \
            "$(tail -n1 "$rss" 2>/dev/null)" "$(tr '\n' ' ' < "$binrss")" "${G_FLAGS[$i]}" >> "$rows"
        hf+=(-n "$label" "$cmd")
    done
    if [ "${#hf[@]}" -gt 0 ]; then
        # -i: exit codes were checked above; the JSON keeps each run's code and the report
        # flags any that are not 0.
        hyperfine --shell=bash --warmup "$warmup" --runs "$runs" -i \
            --export-json "$work/$G_SLUG.json" "${hf[@]}" >&2
    fi
}

# -- count events by type ------------------------------------------------------------------
group count "count events by type" "tool:pre"
row ci-agg "" "" "discovery + every capture, envelope only" "$CI_COUNT"
# DuckDB over the same fixed-depth glob our tools walk; 2 threads; damaged lines become a NULL group.
row "duckdb (tree)" duckdb "" "DuckDB read_json on the fixed-depth glob; includes ~python+import startup" \
    'python3 "$BENCH_DIR/duck.py" "$SQL_COUNT_TREE"'
# The same query on the one concatenated file (DuckDB splits one file across threads).
row "duckdb (file)" duckdb "" "same query on the single file" \
    'python3 "$BENCH_DIR/duck.py" "$SQL_COUNT_FILE"'
# Startup floor of the two DuckDB rows: the interpreter plus `import duckdb`.
row "python3 import duckdb" duckdb "empty-ok" "startup floor of the DuckDB rows" \
    'python3 -c "import duckdb"'
# jaq/jq parse every line fully (a DOM for data too); a bad line stops them with an error.
row jaq jaq "" "full parse per line; single file" 'jaq -r .event "$F" | sort | uniq -c'
row jq jq "" "full parse per line; single file" 'jq -r .event "$F" | sort | uniq -c'
# Raw bytes, one type only: misses spaced-style lines ("event": "tool:pre") and would count
# look-alike unescaped text; no JSON is parsed. A floor, not an equivalent.
row "rg raw" rg "" "raw bytes, one event type only; misses spaced lines" \
    "rg -c '\"event\":\"tool:pre\"' \"\$F\""
row cat "" "ref,empty-ok" "the reading limit" 'cat "$F" > /dev/null'
run_group

# -- filter by event -----------------------------------------------------------------------
group filter-event "filter --event tool:error (output discarded)" ""
row ci-filter "" "" "truncated output records with provenance key" "$CI_FILTER_EVENT"
# jaq/jq re-serialise the selected lines (compact, full length); same selection.
row jaq jaq "" "full parse; re-serialised lines" 'jaq -c "select(.event == \"tool:error\")" "$F"'
row jq jq "" "full parse; re-serialised lines" 'jq -c "select(.event == \"tool:error\")" "$F"'
# Raw bytes: also matches a line whose payload text contains the unescaped pattern, and
# misses spaced-style lines. Prints the original line bytes.
row "rg raw" rg "" "raw bytes; misses spaced lines" "rg -F '\"event\":\"tool:error\"' \"\$F\""
row cat "" "ref,empty-ok" "the reading limit" 'cat "$F" > /dev/null'
run_group

# -- filter by workspace -------------------------------------------------------------------
group filter-workspace "filter --workspace my-api (output discarded)" ""
row ci-filter "" "" "default truncation; fills a missing workspace from metadata" "$CI_FILTER_WS"
row "ci-filter --full" "" "" "no truncation: the same bytes as the jq rows put out" \
    "${CI_FILTER_WS/ci-filter /ci-filter --full }"
# jq/jaq test only the in-line key. The toolkit fills a missing key (generation-B lines) from
# metadata.json, else the project slug; gen-corpus writes gen-B metadata without a workspace,
# so those lines get the slug (-home-user-my-api) and are not selected either: on gen-corpus
# data both sides select the summary's by_workspace count (21,224 lines on the 1G corpus).
# On real data with a workspace in metadata, ci-filter can select more. jq/jaq also
# re-serialise every selected line in full (about 1/7 of the corpus).
row jaq jaq "" "in-line key only; full output" \
    'jaq -c "select(.workspace == \"my-api\")" "$F"'
row jq jq "" "in-line key only; full output" \
    'jq -c "select(.workspace == \"my-api\")" "$F"'
row cat "" "ref,empty-ok" "the reading limit" 'cat "$F" > /dev/null'
run_group

# -- grep ----------------------------------------------------------------------------------
group grep "grep -F a rare literal (\$LIT = $LIT)" ""
row ci-grep "" "" "decoded strings of data; one record per match" "$CI_GREP"
# rg on raw line bytes, one thread on one file: counts lines, not matches; misses text that
# is stored escaped (non-ASCII as \uXXXX, quotes as \"), and also matches keys/envelope.
# For $LIT = decoy-ws (plain ASCII, only inside payload strings) the line count is exact.
row "rg -c (file)" rg "" "raw bytes; counts lines; misses escaped text" 'rg -c -F "$LIT" "$F"'
# rg over the tree, parallel like our tools: only capture files (decoy events.jsonl one level
# up and metadata are not matched by the glob).
row "rg -c (tree)" rg "" "raw bytes, walks the tree in parallel; count per file" \
    'rg -c -F "$LIT" -g "**/context-intelligence/events.jsonl" "$R"'
# jaq: decoded strings anywhere under data, each matching event once (any/2, not
# `.. | strings | test(...)`, which would print an event once per matching string and treat
# the literal as a regex).
row jaq jaq "" "decoded strings under data; one line per matching event" \
    'jaq --arg lit "$LIT" -c "select(any(.data | .. | strings; contains(\$lit)))" "$F"'
row cat "" "ref,empty-ok" "the reading limit" 'cat "$F" > /dev/null'
run_group

# -- cat -----------------------------------------------------------------------------------
group cat "cat every event (output discarded)" ""
row ci-cat "" "" "default truncation (a few KiB per record)" "$CI_CAT"
row "ci-cat --full" "" "" "no truncation" "$CI_CAT_FULL"
# Re-serialise every line in full: what ci-cat --full does, without provenance or truncation.
row jaq jaq "" "re-serialises every line in full" 'jaq -c . "$F"'
row jq jq "" "re-serialises every line in full" 'jq -c . "$F"'
row cat "" "ref,empty-ok" "the reading limit" 'cat "$F" > /dev/null'
run_group

# -- find ----------------------------------------------------------------------------------
group find "find the captures" ""
row ci-find "" "" "reads metadata.json of each capture; newest first" "$CI_FIND"
# GNU find: the same fixed-depth paths, no metadata read, directory order. `*` in -path also
# matches '/', which -mindepth/-maxdepth 5 keep in check on this tree.
row find "" "ref" "paths only, no metadata" \
    'find "$R" -mindepth 5 -maxdepth 5 -type f -path "*/sessions/*/context-intelligence/events.jsonl"'
run_group

# -- Claude Code tokens per day and model (issue 14) --------------------------------------------
# Needs a transcript tree: BENCH_CLAUDE=DIR (a Claude config dir, e.g. the `claude` folder that
# `gen-corpus X --claude-transcripts 28000` writes) and, for the peer row, CCUSAGE=the ccusage
# binary (npm ccusage@20.0.24 + @ccusage/ccusage-linux-x64, bin/ccusage). Skipped without them.
if [ -n "${BENCH_CLAUDE:-}" ]; then
    export C=$BENCH_CLAUDE CCUSAGE=${CCUSAGE:-}
    group tokens "Claude Code tokens per day and model (transcripts)" ""
    row ci-agg "" "" "discovery + every transcript; one usage per message" 'ci-agg --tokens --by day "$C"'
    row "ci-find | ci-agg" "" "" "the same from ci-find's records (full records: heads and tails read)" \
        'ci-find --root "$C" | ci-agg --tokens --by day'
    row "ccusage daily" ccusage "" "ccusage 20 --offline --json, HOME empty, TZ=UTC" \
        'HOME=$(mktemp -d) CLAUDE_CONFIG_DIR="$C" TZ=UTC "$CCUSAGE" daily --offline --json'
    row cat "" "ref,empty-ok" "the reading limit (every .jsonl)" \
        'find "$C" -name "*.jsonl" -print0 | xargs -0 cat > /dev/null'
    run_group
fi

# -- Codex tokens per day and model (issue 19) -------------------------------------------------
# Needs a rollout tree: BENCH_CODEX=DIR (a CODEX_HOME) and, for the peer row, CCUSAGE. Skipped without.
if [ -n "${BENCH_CODEX:-}" ]; then
    export X=$BENCH_CODEX CCUSAGE=${CCUSAGE:-}
    group codex "Codex tokens per day and model (rollouts)" ""
    row ci-agg "" "" "discovery + every rollout; re-emitted totals count once" 'ci-agg --tokens --by day "$X"'
    row "ccusage codex daily" ccusage "" "ccusage 20 --offline --json, HOME empty, TZ=UTC" \
        'HOME=$(mktemp -d) CODEX_HOME="$X" TZ=UTC "$CCUSAGE" codex daily --offline --json'
    row cat "" "ref,empty-ok" "the reading limit (every .jsonl)" \
        'find "$X" -name "*.jsonl" -print0 | xargs -0 cat > /dev/null'
    run_group
fi

# ---- 7. report -------------------------------------------------------------------------------
[ -s "$work/groups.tsv" ] || die "no group selected (BENCH_GROUPS=${BENCH_GROUPS:-})"
corpus_bytes=$(printf '%s\0' "${captures[@]}" | xargs -0 stat -c %s | awk '{s += $1} END {print s}')
{
    echo "## ci-* benchmark: one run"
    echo
    echo "Medians of $runs hyperfine runs after $warmup warm-up, page cache warm, $(date -u +%F)."
    echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | one_line 60)," \
        "$(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo)." \
        "Load average (1/5/15 min) at start $load_start, at end $(cut -d' ' -f1-3 /proc/loadavg)." \
        "One run on a machine that may be shared: compare rows of this run as ratios; no single time is a fact."
    echo
    echo "Corpus \`\$R\`: $(basename -- "$root"), ${#captures[@]} captures, $corpus_bytes bytes of events.jsonl" \
        "($(wc -l < "$all") lines in the single file \`\$F\`)."
    if [ -f "$root.summary.json" ] && have python3; then
        python3 - "$root.summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
print("gen-corpus summary: %d events, %d sessions, %d bytes, %d events without a workspace key."
      % (s["events"], s["sessions"], s["bytes"], s.get("no_workspace_key", 0)))
PY
    fi
    echo
    echo "Versions: $(version_of jq); $(version_of jaq); $(version_of rg); $(version_of duckdb)" \
        "($(version_of python3)); $(version_of hyperfine); $(version_of rustc)."
    for m in "${missing[@]}"; do echo "- not installed: $m"; done
    echo
} > "$work/header.md"
{
    echo "DuckDB queries (bench/duck.py substitutes \`\$R\` and \`\$F\`):"
    echo
    echo "- \`\$SQL_COUNT_TREE\`: \`$SQL_COUNT_TREE\`"
    echo "- \`\$SQL_COUNT_FILE\`: \`$SQL_COUNT_FILE\`"
    echo
    echo "Ratios are median ÷ median of the group's reference row (ours; else \`cat\`, the reading" \
        "limit): above 1 is slower. Peak RSS is of the largest process in the pipeline, from one" \
        "untimed run; for ci-* rows each binary's own is in brackets. rg and jaq map the single" \
        "file into memory, so their RSS counts its cached pages (file-backed, not heap)."
} > "$work/footer.md"
python3 "$BENCH_DIR/report.py" "$work" > "$work/report.md"
if [ -n "${BENCH_REPORT:-}" ]; then cp -- "$work/report.md" "$BENCH_REPORT"; fi
cat "$work/report.md"
log "done; raw results in $work"
