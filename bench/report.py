#!/usr/bin/env python3
"""Turn one bench/run.sh run into a Markdown report (printed on stdout).

Usage: python3 bench/report.py WORKDIR

WORKDIR is run.sh's temp directory:
  header.md          free text put first (versions, corpus, machine)
  groups.tsv         one line per group: slug, title
  SLUG.rows.tsv      one line per row: status, label, command, note, result, rss_kb,
                     per-binary rss ("ci-find=5120 ci-agg=9000"), flags
  SLUG.json          hyperfine --export-json for the rows whose status is "ok",
                     in the same order
  footer.md          free text put last

Ratios are medians divided by the median of the group's reference row: our own
ci-* row when it ran, else the row flagged "ref" (the reading limit, `cat`).
They come from one run; absolute seconds are not facts on a shared machine.
"""
import json
import os
import sys


def cell(text):
    """Make text safe inside a Markdown table cell."""
    return text.replace("|", "\\|").replace("\n", " ")


def code(text):
    return "`" + cell(text) + "`" if text else ""


def read_tsv(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return [line.rstrip("\n").split("\t") for line in f if line.strip()]


def group_table(work, slug, title, out):
    rows = read_tsv(os.path.join(work, slug + ".rows.tsv"))
    ok = [r for r in rows if r[0] == "ok"]
    results = []
    jpath = os.path.join(work, slug + ".json")
    if ok and os.path.exists(jpath):
        with open(jpath) as f:
            results = json.load(f)["results"]
    timed = {}
    for r, res in zip(ok, results):
        timed[r[1]] = res

    ref = next((r for r in ok if r[1].startswith("ci-") and r[1] in timed), None)
    ref_kind = "ours"
    if ref is None:
        ref = next((r for r in ok if "ref" in r[7].split(",") and r[1] in timed), None)
        ref_kind = ref[1] if ref else ""
    if ref is None and ok and ok[0][1] in timed:
        ref = ok[0]
        ref_kind = ref[1]
    ref_median = timed[ref[1]]["median"] if ref else None

    out.append("### " + title)
    out.append("")
    head = "× ours" if ref_kind == "ours" else "× %s" % ref_kind
    out.append("| command | median s | min–max s | %s | peak RSS MB | result | note |" % cell(head))
    out.append("|---|---:|---:|---:|---:|---|---|")
    for r in ok:
        status, label, cmd, note, result, rss, bin_rss, flags = (r + [""] * 8)[:8]
        res = timed.get(label)
        if res is None:
            continue
        med = res["median"]
        ratio = "%.2f" % (med / ref_median) if ref_median else ""
        if ref is not None and label == ref[1]:
            ratio = "1 (ref)"
        codes = [c for c in res.get("exit_codes", []) if c not in (0, None)]
        if codes:
            note = (note + "; " if note else "") + "exit codes %s" % sorted(set(codes))
        mem = "%.0f" % (int(rss) / 1024) if rss.isdigit() else "n/a"
        if bin_rss:
            parts = []
            for item in bin_rss.split():
                name, _, kb = item.partition("=")
                if kb.isdigit():
                    parts.append("%s %.0f" % (name, int(kb) / 1024))
            if parts:
                mem += " (" + ", ".join(parts) + ")"
        out.append("| %s | %.3f | %.3f–%.3f | %s | %s | %s | %s |" % (
            code(cmd), med, res["min"], res["max"], ratio, mem, cell(result), cell(note)))
    skipped = [r for r in rows if r[0] != "ok"]
    if skipped:
        out.append("")
        for r in skipped:
            out.append("- skipped %s: %s" % (code(r[2]), cell(r[4])))
    out.append("")


def main():
    work = sys.argv[1]
    out = []
    for name in ("header.md",):
        p = os.path.join(work, name)
        if os.path.exists(p):
            with open(p, encoding="utf-8") as f:
                out.append(f.read().rstrip("\n"))
                out.append("")
    for slug, title in read_tsv(os.path.join(work, "groups.tsv")):
        group_table(work, slug, title, out)
    p = os.path.join(work, "footer.md")
    if os.path.exists(p):
        with open(p, encoding="utf-8") as f:
            out.append(f.read().rstrip("\n"))
    print("\n".join(out))


if __name__ == "__main__":
    main()
