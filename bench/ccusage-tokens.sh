#!/usr/bin/env bash
# bench/ccusage-tokens.sh — our Claude Code token counts against ccusage's, per (UTC day, model).
#
# Usage:  CCUSAGE=/path/to/ccusage bench/ccusage-tokens.sh [--codex] DIR
#
#   --codex  compare Codex CLI rollouts instead: DIR is a CODEX_HOME (sessions/YYYY/MM/DD/…),
#            e.g. fixtures/codex; the peer runs `ccusage codex daily` with CODEX_HOME=DIR (cache
#            writes are 0 on both sides).
#   DIR      a Claude config dir (it holds projects/<project-folder>/<session-id>.jsonl), e.g.
#            fixtures/claude-transcripts, or a tree written by tests/transcriptgen.rs.
#   CCUSAGE  the ccusage binary (required; the native one from the npm package
#            @ccusage/ccusage-linux-x64, bin/ccusage; this script was written against 20.0.24).
#   CI_BIN   directory of the ci-* binaries (default target/release when ci-find is built there,
#            else target/debug).
#   WORK     scratch directory (default a new temporary one, removed at the end; a given one is
#            kept, with every output in it).
#
# Runs both sides with TZ=UTC:
#   peer:  CLAUDE_CONFIG_DIR=DIR TZ=UTC HOME=<empty> $CCUSAGE daily --offline --json
#          (HOME points at an empty directory so that the unified report sees no other agent's
#          data, e.g. ~/.codex, and no ~/.claude of the machine)
#   ours:  ci-find --root DIR > find.jsonl;  ci-agg --tokens --by day < find.jsonl
#          (records {"day","model","responses","input_tokens","output_tokens",
#          "cache_read_tokens","cache_write_tokens","cost_usd"}; cache_write is Claude's
#          cache_creation_input_tokens, cache_read is cache_read_input_tokens)
# then compares, for every (day, model) either side has, the four token counts (ccusage's
# daily[].modelBreakdowns[]: inputTokens, outputTokens, cacheCreationTokens, cacheReadTokens),
# and cost_usd against ccusage's cost within 0.5%: per (day, model) for Claude, per day for
# Codex (ccusage codex daily gives no cost per model), leaving out rows with a model we do not
# price (ccusage counts those as $0; ours are null and named).
# Each command is timed and its peak RSS taken (GNU /usr/bin/time -v when present, else
# python3's resource.getrusage of the child).
#
# Exit: 0 all counts agree, 1 a difference (or our side failed), 2 setup error.
# Known differences to expect (see fixtures/README.md, "Claude Code transcripts"): ccusage
# counts only lines holding the bytes "usage":{ (spaced JSON is never counted), suffixes the
# model with -fast when usage.speed is "fast", and keeps the copy with the largest total.
set -uo pipefail
export LC_ALL=C

repo=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
die() { echo "ccusage-tokens.sh: $*" >&2; exit 2; }

codex=0
if [[ ${1:-} == --codex ]]; then codex=1; shift; fi
[[ $# -eq 1 ]] || die "usage: CCUSAGE=/path/to/ccusage bench/ccusage-tokens.sh [--codex] DIR"
[[ -n ${CCUSAGE:-} ]] || die "CCUSAGE is not set: point it at the ccusage binary (npm package @ccusage/ccusage-linux-x64, bin/ccusage)"
[[ -x $CCUSAGE ]] || die "CCUSAGE=$CCUSAGE is not an executable file"
dir=$(cd -- "$1" 2>/dev/null && pwd) || die "no such directory: $1"
if [[ $codex == 1 ]]; then
  [[ -d $dir/sessions ]] || die "$dir has no sessions/ folder (expected a CODEX_HOME)"
else
  [[ -d $dir/projects ]] || die "$dir has no projects/ folder (expected a Claude config dir)"
fi
command -v python3 >/dev/null || die "python3 is needed"
if [[ -z ${CI_BIN:-} ]]; then
  if [[ -x $repo/target/release/ci-find ]]; then CI_BIN=$repo/target/release; else CI_BIN=$repo/target/debug; fi
fi
[[ -x $CI_BIN/ci-find && -x $CI_BIN/ci-agg ]] || die "no ci-find/ci-agg in $CI_BIN (cargo build --release, or set CI_BIN)"

if [[ -n ${WORK:-} ]]; then
  work=$WORK
  mkdir -p "$work"
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work/home"
: > "$work/times.tsv"

# measure NAME IN OUT CMD...: runs CMD with stdin IN and stdout OUT (stderr to OUT.err), appends
# "NAME<TAB>exit<TAB>wall seconds<TAB>peak RSS KiB" to times.tsv, returns CMD's exit status.
measure() {
  local name=$1 in=$2 out=$3
  shift 3
  if [[ -x /usr/bin/time ]] && /usr/bin/time -v true 2>/dev/null; then
    local t=$work/$name.time rc
    /usr/bin/time -v -o "$t" "$@" < "$in" > "$out" 2> "$out.err"
    rc=$?
    python3 - "$name" "$rc" "$t" >> "$work/times.tsv" <<'PY'
import sys
name, rc, path = sys.argv[1:4]
wall = rss = "?"
for line in open(path, errors="replace"):
    line = line.strip()
    if line.startswith("Elapsed (wall clock) time"):
        v = line.rsplit(" ", 1)[1]
        secs = 0.0
        for part in v.split(":"):
            secs = secs * 60 + float(part)
        wall = "%.3f" % secs
    elif line.startswith("Maximum resident set size"):
        rss = line.rsplit(" ", 1)[1]
print("\t".join([name, rc, wall, rss]))
PY
    return "$rc"
  fi
  python3 - "$name" "$in" "$out" "$@" >> "$work/times.tsv" <<'PY'
import resource, subprocess, sys, time
name, inp, out, cmd = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
t0 = time.monotonic()
with open(inp, "rb") as i, open(out, "wb") as o, open(out + ".err", "wb") as e:
    rc = subprocess.call(cmd, stdin=i, stdout=o, stderr=e)
wall = time.monotonic() - t0
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # KiB on Linux
print("\t".join([name, str(rc), "%.3f" % wall, str(rss)]))
sys.exit(rc if 0 <= rc < 256 else 1)
PY
}

status=0
if [[ $codex == 1 ]]; then
  peer=(env HOME="$work/home" TZ=UTC CODEX_HOME="$dir" "$CCUSAGE" codex daily --offline --json)
else
  peer=(env HOME="$work/home" TZ=UTC CLAUDE_CONFIG_DIR="$dir" "$CCUSAGE" daily --offline --json)
fi
measure ccusage /dev/null "$work/ccusage.json" "${peer[@]}" \
  || { echo "FAIL ccusage exited non-zero:" >&2; cat "$work/ccusage.json.err" >&2; exit 2; }
ours_ok=1
measure ci-find /dev/null "$work/find.jsonl" env TZ=UTC "$CI_BIN/ci-find" --root "$dir" || ours_ok=0
if [[ $ours_ok == 1 ]]; then
  measure ci-agg "$work/find.jsonl" "$work/ours.jsonl" env TZ=UTC "$CI_BIN/ci-agg" --tokens --by day || ours_ok=0
fi
if [[ $ours_ok == 0 ]]; then
  echo "FAIL our side exited non-zero (stderr below); every ccusage row is reported as missing" >&2
  cat "$work/find.jsonl.err" "$work/ours.jsonl.err" 2>/dev/null | head -20 >&2
  : > "$work/ours.jsonl"
  status=1
fi

python3 - "$work/ccusage.json" "$work/ours.jsonl" <<'PY' || status=1
import json, sys
FIELDS = [("input", "inputTokens", "input_tokens"), ("output", "outputTokens", "output_tokens"),
          ("cache_write", "cacheCreationTokens", "cache_write_tokens"),
          ("cache_read", "cacheReadTokens", "cache_read_tokens")]
TOLERANCE = 0.005  # cost: within 0.5% of ccusage's where both price the model
peer, peer_cost, peer_day_cost = {}, {}, {}
for row in json.load(open(sys.argv[1])).get("daily", []):
    # `ccusage daily` lists modelBreakdowns (each with its cost) under a period;
    # `ccusage codex daily` a models object (no cost) under a date, with the
    # day's costUSD.
    day = row.get("period", row.get("date"))
    models = [(b["modelName"], b) for b in row.get("modelBreakdowns", [])] + list(row.get("models", {}).items())
    for name, b in models:
        peer[(day, name)] = tuple(b[f[1]] for f in FIELDS)
        if "cost" in b:
            peer_cost[(day, name)] = b["cost"]
    peer_day_cost[day] = row.get("totalCost", row.get("costUSD"))
ours, our_cost, our_day_cost, unpriced, ignored, bad = {}, {}, {}, set(), 0, 0
for n, line in enumerate(open(sys.argv[2], "rb"), 1):
    if not line.strip():
        continue
    try:
        r = json.loads(line)
        key = (r["day"], r.get("model"))
        if key[1] in (None, "", "<synthetic>"):
            ignored += 1
            continue
        ours[key] = tuple(int(r.get(f[2]) or 0) for f in FIELDS)
        if r.get("cost_usd") is None:
            unpriced.add(key[1])
        else:
            our_cost[key] = r["cost_usd"]
            our_day_cost[key[0]] = our_day_cost.get(key[0], 0) + r["cost_usd"]
    except (ValueError, KeyError, TypeError) as e:
        bad += 1
        print("our line %d unreadable: %s" % (n, e))
diffs = 0
print("%-10s  %-34s  %-11s  %12s  %12s" % ("day", "model", "field", "ccusage", "ours"))
for key in sorted(set(peer) | set(ours)):
    p, o = peer.get(key), ours.get(key)
    for i, f in enumerate(FIELDS):
        pv = "-" if p is None else p[i]
        ov = "-" if o is None else o[i]
        if pv != ov:
            diffs += 1
            print("%-10s  %-34s  %-11s  %12s  %12s" % (key[0], key[1], f[0], pv, ov))
same = sum(1 for k in peer if ours.get(k) == peer[k])
print("(day, model) rows: ccusage %d, ours %d, identical %d; differing counts: %d%s%s" % (
    len(peer), len(ours), same, diffs,
    "; %d of our rows without a model ignored" % ignored if ignored else "",
    "; %d of our lines unreadable" % bad if bad else ""))

# Cost: per (day, model) where ccusage gives one (Claude), else per day (Codex),
# compared only where we price every model of the row (ccusage prices an unknown
# model at $0; we print null and name it).
def close(a, b):
    return abs(a - b) <= TOLERANCE * max(abs(a), abs(b)) or abs(a - b) < 1e-9
cost_rows = cost_bad = worst = 0
pairs = ([(k, peer_cost[k], our_cost.get(k)) for k in sorted(peer_cost) if k[1] not in unpriced]
         if peer_cost else
         [((d, "*"), peer_day_cost[d], our_day_cost.get(d)) for d in sorted(peer_day_cost)
          if not any(k[0] == d and k[1] in unpriced for k in ours)])
for key, pc, oc in pairs:
    if oc is None or pc is None:
        continue
    cost_rows += 1
    rel = abs(oc - pc) / max(abs(pc), 1e-12)
    worst = max(worst, rel)
    if not close(pc, oc):
        cost_bad += 1
        print("COST %-10s  %-34s  ccusage %.6f  ours %.6f  (%+.3f%%)" % (key[0], key[1], pc, oc, 100 * (oc - pc) / pc))
print("cost rows compared: %d, beyond 0.5%%: %d, largest difference %.4f%%; unpriced models (null on our side): %s" % (
    cost_rows, cost_bad, 100 * worst, ", ".join(sorted(unpriced)) or "none"))
ok = diffs == 0 and bad == 0 and cost_bad == 0
print("PASS" if ok else "FAIL")
sys.exit(0 if ok else 1)
PY

echo
printf '%-8s  %4s  %9s  %13s\n' command exit wall_s peak_rss_KiB
while IFS=$'\t' read -r name rc wall rss; do
  printf '%-8s  %4s  %9s  %13s\n' "$name" "$rc" "$wall" "$rss"
done < "$work/times.tsv"
exit "$status"
