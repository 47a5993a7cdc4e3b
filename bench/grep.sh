#!/usr/bin/env bash
# ci-grep against ripgrep and jaq on the generated corpus, in one run.
#
#   cargo build --release --bin ci-grep
#   bench/grep.sh CORPUS_DIR [CI_GREP]
#
# CORPUS_DIR holds the tree `1g/` from `gen-corpus 1g --size 1G --seed 7` and
# `1g-all.jsonl`, every events.jsonl of it concatenated. Needs hyperfine, rg, jaq.
# Prints what each tool counted per pattern, hyperfine's runs (with user and
# system time), then its markdown tables.
set -euo pipefail
corpus=${1:?usage: bench/grep.sh CORPUS_DIR [CI_GREP]}
grep_bin=$(realpath "${2:-target/release/ci-grep}")
out=$(mktemp -d)
cd "$corpus"
find 1g -type f -print0 | xargs -0 cat > /dev/null   # warm the page cache
cat 1g-all.jsonl > /dev/null

rare=toolu_01551622974a47360d                           # one tool call: 2 lines
decoy='"event":"tool:pre","workspace":"decoy-ws"'      # text inside tool outputs
jaq_count() { jaq -n --arg p "$1" "[inputs | .data | .. | strings | select(test(\$p))] | length" 1g-all.jsonl; }
ci_count() { "$grep_bin" -c "$@" 1g | jaq -s 'map(.count) | add // 0'; }

echo "## counts"
echo "rare: rg lines $(rg -c "$rare" 1g-all.jsonl || echo 0), jaq strings $(jaq_count "$rare"), ci-grep matches $(ci_count "$rare")"
echo "日本語: rg lines $(rg -c 日本語 1g-all.jsonl || echo 0), rg lines for the escaped bytes $(rg -c -F '\u65e5\u672c\u8a9e' 1g-all.jsonl || echo 0), jaq strings $(jaq_count 日本語), ci-grep matches $(ci_count 日本語)"
echo "decoy: rg lines $(rg -c -F "$decoy" 1g-all.jsonl || echo 0), rg lines for decoy-ws $(rg -c -F decoy-ws 1g-all.jsonl || echo 0), ci-grep matches $(ci_count -F "$decoy")"
echo "ÜBERPRÜFUNG -i: rg lines $(rg -c -i ÜBERPRÜFUNG 1g-all.jsonl || echo 0), ci-grep matches $(ci_count -i ÜBERPRÜFUNG)"

echo "## rare literal"
hyperfine -N -i --warmup 1 --runs 10 --style basic --export-markdown "$out/1.md" \
  "rg -c $rare 1g" \
  "rg -c $rare 1g-all.jsonl" \
  "$grep_bin -c $rare 1g" \
  "$grep_bin -c $rare 1g-all.jsonl" \
  "$grep_bin -c -j1 $rare 1g" \
  "rg -c -i ${rare^^} 1g-all.jsonl" \
  "$grep_bin -c -i ${rare^^} 1g-all.jsonl" \
  "rg -c -i ${rare^^} 1g" \
  "$grep_bin -c -i ${rare^^} 1g"
hyperfine -N -i --runs 1 --style basic --export-markdown "$out/2.md" \
  "jaq -n '[inputs | .data | .. | strings | select(test(\"$rare\"))] | length' 1g-all.jsonl"

echo "## text stored only as escapes, and a decoy"
hyperfine -N -i --warmup 1 --runs 3 --style basic --export-markdown "$out/3.md" \
  "rg -c 日本語 1g" \
  "$grep_bin -c 日本語 1g" \
  "$grep_bin -c -F '$decoy' 1g" \
  "$grep_bin -c -i ÜBERPRÜFUNG 1g"
hyperfine -N -i --runs 1 --style basic --export-markdown "$out/4.md" \
  "jaq -n '[inputs | .data | .. | strings | select(test(\"日本語\"))] | length' 1g-all.jsonl"
echo "## tables"
for f in "$out"/*.md; do cat "$f"; echo; done
rm -r "$out"
