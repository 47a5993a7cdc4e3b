#!/usr/bin/env bash
# bench/agent-daily.sh — `ci-agg --tokens --by day` against `ccusage AGENT daily` on a generated
# tree: times (cold both sides, then ours with the capture cache warm), peak RSS, and the
# answers compared day by day.
#
# Usage:  CCUSAGE=/path/to/ccusage bench/agent-daily.sh AGENT HOME_DIR [RUNS (3)]
#
#   AGENT     copilot | kimi | qwen | gemini | goose (ccusage's command; our root is
#             HOME_DIR/.copilot, .kimi, .qwen, .gemini, .local/share/goose/sessions)
#   HOME_DIR  a tree from bench/gen-copilot.py, bench/gen-kimi.py, … (it is ccusage's HOME)
#   CCUSAGE   the ccusage binary (npm @ccusage/ccusage-linux-x64, bin/ccusage; written against
#             20.0.24)
#   CI_BIN    directory of ci-agg (default target/release)
#
# Each run: TZ=UTC; ours cold = `ci-agg --no-cache --tokens --by day ROOT`, ccusage =
# `HOME=HOME_DIR ccusage AGENT daily --offline --json`, interleaved RUNS times; then ours warm =
# the same without --no-cache, after one run that fills a fresh cache (XDG_CACHE_HOME in a
# scratch folder). Times and peak RSS by GNU /usr/bin/time. The answers: per day, the sums of
# our (day, model) rows' input, output, cache read and cache write tokens against ccusage's
# daily[] inputTokens, outputTokens, cacheReadTokens, cacheCreationTokens; days that differ are
# printed. Exit 0 when all agree, 1 otherwise, 2 on a setup error.
set -uo pipefail
export LC_ALL=C TZ=UTC
die() { echo "agent-daily.sh: $*" >&2; exit 2; }
[[ $# -ge 2 ]] || die "usage: CCUSAGE=… bench/agent-daily.sh AGENT HOME_DIR [RUNS]"
agent=$1; home=$(cd -- "$2" && pwd) || die "no such directory: $2"; runs=${3:-3}
repo=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
ci=${CI_BIN:-$repo/target/release}/ci-agg
[[ -x $ci ]] || die "no $ci (cargo build --release, or set CI_BIN)"
[[ -x ${CCUSAGE:-} ]] || die "set CCUSAGE to the ccusage binary"
[[ -x /usr/bin/time ]] || die "GNU /usr/bin/time is needed"
case $agent in
  goose) root=$home/.local/share/goose/sessions; pattern='*.db' ;;  # its sessions.db
  *) root=$home/.$agent; pattern='*.jsonl' ;;
esac
[[ -d $root ]] || die "$root does not exist"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
timed() { # label, command…: appends "label seconds maxrss_kb" to $work/times
  local label=$1; shift
  /usr/bin/time -f "%e %M" -o "$work/t" "$@" > "$work/out.$label" 2>/dev/null || echo "agent-daily.sh: $label failed" >&2
  echo "$label $(cat "$work/t")" >> "$work/times"
}
echo "tree: $root, $(du -sb "$root" | cut -f1) bytes, $(find "$root" -name "$pattern" | wc -l) files"
for _ in $(seq "$runs"); do
  timed cold "$ci" --no-cache --tokens --by day "$root"
  timed ccusage env HOME="$home" "$CCUSAGE" "$agent" daily --offline --json
done
export XDG_CACHE_HOME=$work/cache
"$ci" --tokens --by day "$root" > /dev/null
for _ in $(seq "$runs"); do timed warm "$ci" --tokens --by day "$root"; done
timed cat cat $(find "$root" -name "$pattern")
python3 - "$work" <<'PY'
import json, sys, collections
work = sys.argv[1]
rows = collections.defaultdict(list)
for line in open(work + "/times"):
    label, s, kb = line.split()
    rows[label].append((float(s), int(kb)))
for label in ["cold", "ccusage", "warm", "cat"]:
    r = rows[label]
    print("| %s | %s | %d–%d MB |" % (label, ", ".join("%.2f" % s for s, _ in r),
                                      min(k for _, k in r) // 1024, max(k for _, k in r) // 1024))
ours = collections.defaultdict(lambda: [0, 0, 0, 0])
for line in open(work + "/out.cold"):
    r = json.loads(line)
    for i, k in enumerate(["input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens"]):
        ours[r["day"]][i] += r[k] or 0
theirs = {d["date"]: [d["inputTokens"], d["outputTokens"], d["cacheReadTokens"], d["cacheCreationTokens"]]
          for d in json.load(open(work + "/out.ccusage"))["daily"]}
diff = [d for d in sorted(set(ours) | set(theirs)) if ours.get(d) != theirs.get(d)]
tot = lambda m: [sum(v[i] for v in m.values()) for i in range(4)]
print("days: ours %d, ccusage %d; totals (in, out, cache read, cache write): ours %s, ccusage %s"
      % (len(ours), len(theirs), tot(ours), tot(theirs)))
for d in diff[:10]:
    print("differs %s: ours %s, ccusage %s" % (d, ours.get(d), theirs.get(d)))
sys.exit(1 if diff else 0)
PY
