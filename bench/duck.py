#!/usr/bin/env python3
"""Run one DuckDB query for bench/run.sh and print the rows as tab-separated lines.

Usage: python3 bench/duck.py 'SQL'

`$R` (the corpus root) and `$F` (the concatenated single file) in the SQL are
replaced by the environment variables of the same name, quoted for a SQL string
literal, so the SQL text in run.sh stays free of this machine's paths.
DuckDB's own defaults apply (threads = number of cores).
"""
import os
import sys

import duckdb


def main():
    sql = sys.argv[1]
    for var in ("R", "F"):
        value = os.environ.get(var, "")
        sql = sql.replace("$" + var, value.replace("'", "''"))
    con = duckdb.connect()
    for row in con.sql(sql).fetchall():
        print(*row, sep="\t")


if __name__ == "__main__":
    main()
