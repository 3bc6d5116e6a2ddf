#!/usr/bin/env python3
"""The peer of `ckb query symbol|search|refs` in ci/bench-query.sh: the same lookup on the same
Parquet files of one snapshot, with the `duckdb` Python package, printed as JSON.

    bench_query_duckdb.py SNAPSHOT symbol ID
    bench_query_duckdb.py SNAPSHOT search QUERY [LIMIT]
    bench_query_duckdb.py SNAPSHOT refs ID [LIMIT]
    bench_query_duckdb.py SNAPSHOT pick        # prints a busy symbol ID and a query (setup, untimed)

search ranks like ckb (queries/src/analysis/ranking.rs): exact (case-sensitive) > exact ignoring
case > prefix > substring; place (aside: test files and folders named for tests, examples, benches,
docs, fuzzing; internal: not public); log2 of the references in the usage table; kind weight;
container depth; scip > tree-sitter; references; stable_id (ckb's entry-point and owning-type
signals are left out: they break ties the peer does not need to); refs returns the symbol's non-definition sites with their file's module and test
flag, grouped by module and file like ckb (the first LIMIT sites in that order) plus the totals.
"""

import json
import sys

import duckdb


def table(snapshot, name):
    return f"read_parquet('{snapshot}/{name}.parquet', hive_partitioning = false)"


KIND_WEIGHT = """CASE
  WHEN kind IN ('class','struct','interface','trait','enum','type_alias','type','union','function',
                'method','constructor','macro','delegate','object') THEN 3
  WHEN kind IN ('constant','module','namespace','package','enum_member','event') THEN 2
  WHEN kind IN ('variable','field','property') THEN 1
  ELSE 0 END"""

# A folder named for tests, examples, benches, docs or fuzzing (words split at - _ .).
ASIDE_FOLDER = (r"(?i)(^|/)([^/]*[-_.])?(tests?|testing|testutils?|testdata|testsuite|specs?|mocks?"
                r"|fixtures?|e2e|bench(es|marks?)?|examples?|demos?|samples?|docs?|fuzz)([-_.][^/]*)?/")


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
            f"""WITH matched AS (
                  SELECT stable_id, name, kind, container, visibility, module_id, path, start_line, source,
                    CASE WHEN name = $q THEN 4 WHEN lower(name) = lower($q) THEN 3
                         WHEN starts_with(lower(name), lower($q)) THEN 2 ELSE 1 END AS match
                  FROM {table(snapshot, 'symbols')}
                  WHERE name ILIKE '%' || $q || '%'
                    AND kind NOT IN ('parameter', 'type_parameter', 'local', 'meta'))
                SELECT m.*, coalesce(u."references", 0) AS refs,
                  CASE WHEN coalesce(f.is_test, false) OR regexp_matches(m.path, $aside) THEN 2
                       WHEN m.visibility IN ('public', 'protected')
                         OR (m.visibility = 'unknown' AND NOT starts_with(m.name, '_')) THEN 0
                       ELSE 1 END AS place
                FROM matched m
                LEFT JOIN {table(snapshot, 'files')} f USING (path)
                LEFT JOIN {table(snapshot, 'usage')} u USING (stable_id)
                ORDER BY match DESC, place, floor(log2(1 + refs)) DESC, {KIND_WEIGHT} DESC,
                  coalesce(len(string_split(container, '::')), 0), (source = 'scip') DESC, refs DESC,
                  stable_id
                LIMIT $limit""",
            {"q": q, "limit": limit, "aside": ASIDE_FOLDER},
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
