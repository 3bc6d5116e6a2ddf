#!/usr/bin/env python3
"""The peer of `ckb query symbol|search|refs` in ci/bench-query.sh: the same lookup on the same
Parquet files of one snapshot, with the `duckdb` Python package, printed as JSON.

    bench_query_duckdb.py SNAPSHOT symbol ID
    bench_query_duckdb.py SNAPSHOT search QUERY [LIMIT]
    bench_query_duckdb.py SNAPSHOT refs ID [LIMIT]
    bench_query_duckdb.py SNAPSHOT pick        # prints a busy symbol ID and a query (setup, untimed)

search ranks like ckb (exact > prefix > substring, visibility, scip > tree-sitter, kind weight,
stable_id); refs returns the symbol's non-definition sites with their file's module and test
flag, grouped by module and file like ckb (the first LIMIT sites in that order) plus the totals.
"""

import json
import sys

import duckdb


def table(snapshot, name):
    return f"read_parquet('{snapshot}/{name}.parquet', hive_partitioning = false)"


KIND_WEIGHT = """CASE
  WHEN kind IN ('class','struct','interface','trait','enum','type_alias','type') THEN 5
  WHEN kind = 'function' THEN 4
  WHEN kind IN ('method','constructor') THEN 3
  WHEN kind IN ('constant','module','macro','namespace','package') THEN 2
  WHEN kind IN ('variable','field','property') THEN 1
  ELSE 0 END"""

VIS_WEIGHT = """CASE visibility WHEN 'public' THEN 3 WHEN 'protected' THEN 2
  WHEN 'internal' THEN 1 ELSE 0 END"""


def rows(con, sql, params):
    cur = con.execute(sql, params)
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r)) for r in cur.fetchall()]


def main():
    snapshot, command = sys.argv[1], sys.argv[2]
    con = duckdb.connect()
    if command == "symbol":
        out = rows(con, f"SELECT * FROM {table(snapshot, 'symbols')} WHERE stable_id = ?", [sys.argv[3]])
    elif command == "search":
        q = sys.argv[3]
        limit = int(sys.argv[4]) if len(sys.argv) > 4 else 20
        out = rows(
            con,
            f"""SELECT stable_id, name, kind, container, visibility, module_id, path, start_line, source,
                  CASE WHEN lower(name) = lower($q) THEN 3
                       WHEN starts_with(lower(name), lower($q)) THEN 2 ELSE 1 END AS match
                FROM {table(snapshot, 'symbols')}
                WHERE name ILIKE '%' || $q || '%'
                ORDER BY match DESC, {VIS_WEIGHT} DESC, (source = 'scip') DESC, {KIND_WEIGHT} DESC, stable_id
                LIMIT $limit""",
            {"q": q, "limit": limit},
        )
    elif command == "refs":
        limit = int(sys.argv[4]) if len(sys.argv) > 4 else 20
        out = rows(
            con,
            f"""WITH sites AS (
                  SELECT o.*, coalesce(f.module_id, '.') AS module, coalesce(f.is_test, false) AS is_test
                  FROM {table(snapshot, 'occurrences')} o
                  LEFT JOIN {table(snapshot, 'files')} f USING (path)
                  WHERE o.symbol_id = $id AND NOT list_contains(o.roles, 'definition')),
                counted AS (
                  SELECT *, count(*) OVER (PARTITION BY module) AS module_refs,
                            count(*) OVER (PARTITION BY path) AS file_refs,
                            count(*) OVER () AS total
                  FROM sites)
                SELECT * FROM counted
                ORDER BY module_refs DESC, module, file_refs DESC, path, line, col
                LIMIT $limit""",
            {"id": sys.argv[3], "limit": limit},
        )
    elif command == "pick":
        busy = con.execute(
            f"""SELECT symbol_id, count(*) AS n FROM {table(snapshot, 'occurrences')}
                WHERE symbol_id LIKE 'ckb:%' GROUP BY 1 ORDER BY n DESC, symbol_id LIMIT 1"""
        ).fetchone()
        name = con.execute(
            f"SELECT name FROM {table(snapshot, 'symbols')} WHERE stable_id = ?", [busy[0]]
        ).fetchone()
        out = {"id": busy[0], "references": busy[1], "name": name[0] if name else None}
    else:
        sys.exit(f"unknown command {command}")
    json.dump(out, sys.stdout, default=str)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
