#!/usr/bin/env bash
# Output-equivalence check for refactors: do two builds of the ci-* tools give
# byte-identical answers on the same corpora?
#
#   bench/compare.sh OLD_BIN_DIR NEW_BIN_DIR ROOT [ROOT...]
#
# OLD_BIN_DIR / NEW_BIN_DIR hold ci-find, ci-cat, ci-filter, ci-agg, ci-grep
# (e.g. a baseline clone's target/release and this tree's target/release).
# Each ROOT is a session root as given to `ci-find --root` (an Amplifier tree
# or a `_sessiondata` hooks root).
#
# For each ROOT, each pipeline below is run once with the OLD binaries and once
# with the NEW ones (that bin dir first on PATH and every tool called by full
# path), stdin of the first command from /dev/null. Compared: sha256 of stdout,
# sha256 of stderr (each command's stderr captured on its own, then
# concatenated in pipeline order, so interleaving cannot differ) and the exit
# status of the last command of the pipeline.
#
# Prints one line per (root, pipeline): `same` or `DIFFERENT (stdout, stderr,
# exit)` (the parts that differ), the stdout byte sizes and the wall times.
# Exits 0 when everything is the same, 1 if anything differs, 2 on bad usage.
# When a pipeline differs, OLD is run once more: if OLD disagrees with itself
# the line says NONDETERMINISTIC (the difference is not the refactor's; it
# still counts as a difference). Known case: `ci-agg --tools` on groups of
# more than 1024 latencies (t-digest p50/p95 fed in HashMap order).
# Outputs of differing pipelines are kept in a temporary directory (under
# $TMPDIR, default /tmp) whose path is printed; it is removed when nothing
# differs. Each pipeline's outputs are deleted as soon as they compare equal,
# but one pipeline's old+new stdout (e.g. `ci-cat --full` of a 1 GB corpus)
# must fit there.
#
# Pinned environment: TZ=UTC, NO_COLOR=1; CI_MAX_BYTES,
# AMPLIFIER_CONTEXT_INTELLIGENCE_BASE_PATH, SESSION_DATA_DIR, CLAUDE_CONFIG_DIR
# and CODEX_HOME unset. The tools run with their default options (no -j).
set -euo pipefail

usage() {
  echo "usage: bench/compare.sh OLD_BIN_DIR NEW_BIN_DIR ROOT [ROOT...]" >&2
  exit 2
}
[[ $# -ge 3 ]] || usage

tools=(ci-find ci-cat ci-filter ci-agg ci-grep)
bindir() { # absolute path of a bin dir holding all five tools
  local d
  d=$(cd "$1" 2>/dev/null && pwd) || { echo "compare.sh: no such directory: $1" >&2; exit 2; }
  for t in "${tools[@]}"; do
    [[ -x $d/$t ]] || { echo "compare.sh: $d/$t missing or not executable" >&2; exit 2; }
  done
  printf '%s\n' "$d"
}
old_bin=$(bindir "$1")
new_bin=$(bindir "$2")
shift 2
roots=("$@")
for r in "${roots[@]}"; do
  [[ -d $r ]] || { echo "compare.sh: root is not a directory: $r" >&2; exit 2; }
done

export TZ=UTC NO_COLOR=1
unset CI_MAX_BYTES AMPLIFIER_CONTEXT_INTELLIGENCE_BASE_PATH SESSION_DATA_DIR \
  CLAUDE_CONFIG_DIR CODEX_HOME

names=(
  "ci-find --root R"
  "ci-find --root R | ci-cat"
  "ci-find --root R | ci-cat --full"
  "ci-find --root R | ci-agg --by event"
  "ci-find --root R | ci-agg --sessions"
  "ci-find --root R | ci-agg --tools"
  "ci-find --root R | ci-agg --tokens --by day"
  "ci-find --root R | ci-filter --event tool:error"
  "ci-find --root R | ci-grep -i error"
  "ci-find --root R | ci-grep -c -i kernel"
  "ci-cat R"
  "ci-agg --sessions R"
  "ci-find --root R --tree"
  "ci-find --root R --format table"
  "ci-find --root R | ci-agg --by event --format table"
  "ci-find --root R | ci-agg --tokens --by day --format csv"
  "ci-find --root R | ci-agg --partial --by event | ci-agg --merge"
  "ci-find --root R | ci-filter --where 'duration_ms>100 or data.tool_name~\"Bash\"'"
  "ci-find --root R | ci-grep --color always -C1 -i error"
  "ci-find --root R | ci-filter --since 2020-01-01 --tz Europe/Paris | ci-agg --by hour --tz Europe/Paris"
  "ci-cat R | ci-filter --event 'tool:*' | ci-agg --tools"
  "ci-cat R | ci-agg --tokens --by day"
  "ci-cat R | ci-grep -c -i error"
  "ci-filter --errors R"
  "ci-filter --not-event 'llm:*' --event 'tool:*' --since 2020-01-01 R"
)

# run_one INDEX BIN ROOT PREFIX: writes PREFIX.out, PREFIX.err, PREFIX.rc,
# PREFIX.status (the whole PIPESTATUS, for information only).
run_one() {
  local i=$1 b=$2 r=$3 p=$4 st
  local -a ps
  # A subshell: PATH and errexit/pipefail changes stay local to it.
  (
    PATH=$b:$PATH
    set +e +o pipefail
    case $i in
      0) "$b/ci-find" --root "$r" </dev/null >"$p.out" 2>"$p.err1" ;;
      1) "$b/ci-find" --root "$r" </dev/null 2>"$p.err1" | "$b/ci-cat" >"$p.out" 2>"$p.err2" ;;
      2) "$b/ci-find" --root "$r" </dev/null 2>"$p.err1" | "$b/ci-cat" --full >"$p.out" 2>"$p.err2" ;;
      3) "$b/ci-find" --root "$r" </dev/null 2>"$p.err1" | "$b/ci-agg" --by event >"$p.out" 2>"$p.err2" ;;
      4) "$b/ci-find" --root "$r" </dev/null 2>"$p.err1" | "$b/ci-agg" --sessions >"$p.out" 2>"$p.err2" ;;
      5) "$b/ci-find" --root "$r" </dev/null 2>"$p.err1" | "$b/ci-agg" --tools >"$p.out" 2>"$p.err2" ;;
      6) "$b/ci-find" --root "$r" </dev/null 2>"$p.err1" | "$b/ci-agg" --tokens --by day >"$p.out" 2>"$p.err2" ;;
      7) "$b/ci-find" --root "$r" </dev/null 2>"$p.err1" | "$b/ci-filter" --event tool:error >"$p.out" 2>"$p.err2" ;;
      8) "$b/ci-find" --root "$r" </dev/null 2>"$p.err1" | "$b/ci-grep" -i error >"$p.out" 2>"$p.err2" ;;
      9) "$b/ci-find" --root "$r" </dev/null 2>"$p.err1" | "$b/ci-grep" -c -i kernel >"$p.out" 2>"$p.err2" ;;
      10) "$b/ci-cat" "$r" </dev/null >"$p.out" 2>"$p.err1" ;;
      11) "$b/ci-agg" --sessions "$r" </dev/null >"$p.out" 2>"$p.err1" ;;
      12) "$b/ci-find" --root "$r" --tree </dev/null >"$p.out" 2>"$p.err1" ;;
      13) "$b/ci-find" --root "$r" --format table </dev/null >"$p.out" 2>"$p.err1" ;;
      14) "$b/ci-find" --root "$r" </dev/null 2>"$p.err1" | "$b/ci-agg" --by event --format table >"$p.out" 2>"$p.err2" ;;
      15) "$b/ci-find" --root "$r" </dev/null 2>"$p.err1" | "$b/ci-agg" --tokens --by day --format csv >"$p.out" 2>"$p.err2" ;;
      16) "$b/ci-find" --root "$r" </dev/null 2>"$p.err1" | "$b/ci-agg" --partial --by event 2>"$p.err2" |
        "$b/ci-agg" --merge >"$p.out" 2>"$p.err3" ;;
      17) "$b/ci-find" --root "$r" </dev/null 2>"$p.err1" |
        "$b/ci-filter" --where 'duration_ms>100 or data.tool_name~"Bash"' >"$p.out" 2>"$p.err2" ;;
      18) "$b/ci-find" --root "$r" </dev/null 2>"$p.err1" | "$b/ci-grep" --color always -C1 -i error >"$p.out" 2>"$p.err2" ;;
      19) "$b/ci-find" --root "$r" </dev/null 2>"$p.err1" | "$b/ci-filter" --since 2020-01-01 --tz Europe/Paris 2>"$p.err2" |
        "$b/ci-agg" --by hour --tz Europe/Paris >"$p.out" 2>"$p.err3" ;;
      20) "$b/ci-cat" "$r" </dev/null 2>"$p.err1" | "$b/ci-filter" --event 'tool:*' 2>"$p.err2" |
        "$b/ci-agg" --tools >"$p.out" 2>"$p.err3" ;;
      21) "$b/ci-cat" "$r" </dev/null 2>"$p.err1" | "$b/ci-agg" --tokens --by day >"$p.out" 2>"$p.err2" ;;
      22) "$b/ci-cat" "$r" </dev/null 2>"$p.err1" | "$b/ci-grep" -c -i error >"$p.out" 2>"$p.err2" ;;
      23) "$b/ci-filter" --errors "$r" </dev/null >"$p.out" 2>"$p.err1" ;;
      24) "$b/ci-filter" --not-event 'llm:*' --event 'tool:*' --since 2020-01-01 "$r" </dev/null >"$p.out" 2>"$p.err1" ;;
      *) echo "compare.sh: internal error: pipeline $i" >&2; exit 2 ;;
    esac
    ps=("${PIPESTATUS[@]}")
    st=${ps[*]}
    printf '%s\n' "${ps[${#ps[@]}-1]}" >"$p.rc"
    printf '%s\n' "$st" >"$p.status"
  )
  cat "$p.err1" >"$p.err"
  for e in "$p.err2" "$p.err3"; do
    if [[ -e $e ]]; then cat "$e" >>"$p.err"; fi
  done
  rm -f "$p.err1" "$p.err2" "$p.err3"
}

now() { printf '%s\n' "${EPOCHREALTIME:-$(date +%s.%N)}"; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fs", b - a }'; }
sha() { sha256sum <"$1" | cut -d' ' -f1; }
size() { stat -c %s "$1"; }

work=$(mktemp -d "${TMPDIR:-/tmp}/ci-compare.XXXXXX")
echo "old: $old_bin"
echo "new: $new_bin"
any_diff=0
for ri in "${!roots[@]}"; do
  r=${roots[$ri]}
  echo "== root $ri: $r"
  for i in "${!names[@]}"; do
    d=$work/root$ri/p$i
    mkdir -p "$d"
    printf '%s\n' "${names[$i]}" >"$d/pipeline"
    printf '%s\n' "$r" >"$d/root"
    t0=$(now); run_one "$i" "$old_bin" "$r" "$d/old"
    t1=$(now); run_one "$i" "$new_bin" "$r" "$d/new"
    t2=$(now)
    what=()
    [[ $(sha "$d/old.out") == "$(sha "$d/new.out")" ]] || what+=(stdout)
    [[ $(sha "$d/old.err") == "$(sha "$d/new.err")" ]] || what+=(stderr)
    [[ $(<"$d/old.rc") == "$(<"$d/new.rc")" ]] || what+=(exit)
    so=$(size "$d/old.out"); sn=$(size "$d/new.out")
    info="stdout old=$so new=$sn bytes, exit old=$(<"$d/old.rc") new=$(<"$d/new.rc"), time old=$(elapsed "$t0" "$t1") new=$(elapsed "$t1" "$t2")"
    if [[ ${#what[@]} -eq 0 ]]; then
      printf '%-48s same  (%s)\n' "${names[$i]}" "$info"
      rm -rf "$d"
    else
      any_diff=1
      w=${what[*]}
      # Tell a nondeterministic pipeline from a changed one: run OLD again.
      run_one "$i" "$old_bin" "$r" "$d/old2"
      flaky=
      if [[ $(sha "$d/old.out") != "$(sha "$d/old2.out")" || $(sha "$d/old.err") != "$(sha "$d/old2.err")" ||
        $(<"$d/old.rc") != "$(<"$d/old2.rc")" ]]; then
        flaky="  [NONDETERMINISTIC: OLD differs from itself run to run, see old2.*]"
      else
        rm -f "$d"/old2.*
      fi
      printf '%-48s DIFFERENT (%s)  (%s)  kept in %s%s\n' "${names[$i]}" "${w// /, }" "$info" "$d" "$flaky"
    fi
  done
  rmdir "$work/root$ri" 2>/dev/null || true
done

if [[ $any_diff -eq 0 ]]; then
  rm -rf "$work"
  echo "all same"
  exit 0
fi
echo "DIFFERENCES: outputs kept in $work (each dir: pipeline, root, {old,new}.{out,err,rc,status})"
exit 1
