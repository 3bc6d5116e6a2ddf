#!/usr/bin/env python3
"""Scores `ckb query search` against hand-picked queries (ci/eval-search.sh runs it).

    eval_search.py QUERIES REPO SNAPSHOT CKB [BASELINE_SNAPSHOT BASELINE_CKB]

QUERIES is the query set (ci/eval-search/queries.tsv): one line per query,
`repo <TAB> query <TAB> path <TAB> container <TAB> note`, where path and container name the
definition a user typing the query means (container `-` for a top-level definition) and the
result's name must equal the query. Only the lines of REPO are scored. For each query, the rank of
the first result that is that definition among the first 100 (0 when absent) is printed, with the
baseline's rank when a baseline snapshot and binary are given; then mean reciprocal rank (MRR) and
top-1 accuracy. The last line is machine-readable:
`SCORE <repo> <queries> <mrr> <top1> [<baseline mrr> <baseline top1>]`.
"""

import json
import subprocess
import sys

LIMIT = 100


def load(path, repo):
    queries = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            fields = line.split("\t")
            if len(fields) < 4:
                sys.exit(f"{path}:{number}: expected repo, query, path, container, note")
            if fields[0] == repo:
                queries.append((fields[1], fields[2], fields[3]))
    if not queries:
        sys.exit(f"{path}: no queries for {repo}")
    return queries


def rank(ckb, snapshot, query, path, container):
    out = subprocess.run(
        [ckb, "query", "--snapshot", snapshot, "--format", "json", "--max-tokens", "1000000",
         "search", query, "--limit", str(LIMIT)],
        capture_output=True, text=True, check=False)
    if out.returncode != 0:
        sys.exit(f"ckb search {query!r} failed ({out.returncode}): {out.stdout}{out.stderr}")
    results = json.loads(out.stdout)["facts"]["results"]
    for r in results:
        if (r["name"] == query and r["path"] == path
                and r.get("container", "-") == container):
            return r["rank"]
    return 0


def reciprocal(r):
    return 1.0 / r if r else 0.0


def main():
    if len(sys.argv) not in (5, 7):
        sys.exit(__doc__)
    queries_file, repo, snapshot, ckb = sys.argv[1:5]
    baseline = sys.argv[5:7] if len(sys.argv) == 7 else None
    queries = load(queries_file, repo)
    after, before = [], []
    print(f"{'query':<28} {'rank':>5}" + (f" {'before':>7}" if baseline else "") + "  definition")
    for query, path, container in queries:
        a = rank(ckb, snapshot, query, path, container)
        after.append(a)
        line = f"{query:<28} {a or '-':>5}"
        if baseline:
            b = rank(baseline[1], baseline[0], query, path, container)
            before.append(b)
            line += f" {b or '-':>7}"
            if b and (not a or a > b):
                line += "  REGRESSED"
        where = path if container == "-" else f"{path} ({container})"
        print(f"{line}  {where}")

    def score(ranks):
        mrr = sum(reciprocal(r) for r in ranks) / len(ranks)
        top1 = sum(1 for r in ranks if r == 1) / len(ranks)
        return mrr, top1

    mrr, top1 = score(after)
    summary = f"{repo}: {len(after)} queries, MRR {mrr:.3f}, top-1 {top1:.0%}"
    machine = f"SCORE {repo} {len(after)} {mrr:.4f} {top1:.4f}"
    if baseline:
        bmrr, btop1 = score(before)
        summary += f" (before: MRR {bmrr:.3f}, top-1 {btop1:.0%})"
        machine += f" {bmrr:.4f} {btop1:.4f}"
    print(summary)
    print(machine)


if __name__ == "__main__":
    main()
