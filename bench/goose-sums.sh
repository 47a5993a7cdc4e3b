#!/usr/bin/env bash
# bench/goose-sums.sh — `ci-agg --tokens --by day` on a Goose sessions.db against day sums the
# sqlite3 shell computes from the database itself (independent of ci-*): each usage_ledger
# row on its created_timestamp's day, plus the accumulated_* totals of each session without
# ledger rows on its created_at's day.
#
# Usage:  bench/goose-sums.sh HOME_DIR    (a tree from bench/gen-goose.py)
#   CI_BIN  directory of ci-agg (default target/release)
# Prints the totals both ways; exit 0 when every day agrees, 1 otherwise, 2 on a setup error.
set -uo pipefail
export LC_ALL=C TZ=UTC
die() { echo "goose-sums.sh: $*" >&2; exit 2; }
[[ $# -eq 1 ]] || die "usage: bench/goose-sums.sh HOME_DIR"
db=$1/.local/share/goose/sessions/sessions.db
[[ -f $db ]] || die "no $db"
repo=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
ci=${CI_BIN:-$repo/target/release}/ci-agg
[[ -x $ci ]] || die "no $ci"
command -v sqlite3 > /dev/null || die "the sqlite3 shell is needed"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
sqlite3 -readonly -separator ' ' "$db" "
  SELECT day, sum(i), sum(o), sum(r), sum(w) FROM (
    SELECT date(created_timestamp, 'unixepoch') AS day, input_tokens AS i, output_tokens AS o,
           coalesce(cache_read_tokens, 0) AS r, coalesce(cache_write_tokens, 0) AS w FROM usage_ledger
    UNION ALL
    SELECT date(created_at), accumulated_input_tokens, accumulated_output_tokens,
           coalesce(accumulated_cache_read_tokens, 0), coalesce(accumulated_cache_write_tokens, 0)
    FROM sessions WHERE id NOT IN (SELECT session_id FROM usage_ledger)
  ) GROUP BY day ORDER BY day" > "$work/sqlite"
"$ci" --no-cache --tokens --by day "$db" > "$work/ours" || die "ci-agg failed"
python3 - "$work" <<'PY'
import json, sys, collections
work = sys.argv[1]
ours = collections.defaultdict(lambda: [0, 0, 0, 0])
for line in open(work + "/ours"):
    r = json.loads(line)
    for i, k in enumerate(["input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens"]):
        ours[r["day"]][i] += r[k] or 0
theirs = {}
for line in open(work + "/sqlite"):
    day, *v = line.split()
    theirs[day] = [int(x) for x in v]
tot = lambda m: [sum(v[i] for v in m.values()) for i in range(4)]
diff = [d for d in sorted(set(ours) | set(theirs)) if ours.get(d) != theirs.get(d)]
print("days: ours %d, sqlite3 %d; totals (in, out, cache read, cache write): ours %s, sqlite3 %s"
      % (len(ours), len(theirs), tot(ours), tot(theirs)))
for d in diff[:10]:
    print("differs %s: ours %s, sqlite3 %s" % (d, ours.get(d), theirs.get(d)))
sys.exit(1 if diff else 0)
PY
