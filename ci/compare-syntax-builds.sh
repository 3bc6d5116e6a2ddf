#!/usr/bin/env bash
# Compares two builds of the syntax stage on one repository, interleaved so machine load hits both
# alike: what a change did to the cold run and to a one-file commit, beside `bare_parse` and
# `ctags -R` (the bars of ci/bench-syntax.sh).
#
#   ci/compare-syntax-builds.sh BEFORE AFTER REPO [RUNS]
#
# BEFORE and AFTER are folders holding the release examples of each build (`snapshot_stages`,
# `bare_parse`), e.g. a copy of target/release/examples taken before the change, and
# target/release/examples after it. Each round runs, in turn: a cold `--stages scan,syntax`
# snapshot and `bare_parse` with each build, and `ctags -R`; then, in a scratch clone with a
# one-file commit (as ci/bench-syntax.sh makes it), the snapshot that reuses the previous one with
# each build, and `ctags -R` on the clone. Prints wall and CPU (user + sys) medians of RUNS rounds
# (default 9). Needs git, ctags (universal-ctags), python3.
set -euo pipefail

[[ $# -ge 3 ]] || { echo "usage: $0 BEFORE AFTER REPO [RUNS]" >&2; exit 2; }
B=$(cd "$1" && pwd); A=$(cd "$2" && pwd); REPO=$(cd "$3" && pwd); RUNS=${4:-9}
WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT
# time_ms, commit_one_file_change and the benchmark's git identity.
# shellcheck source=ci/syntax-bench-lib.sh
. "$(cd "$(dirname "$0")" && pwd)/syntax-bench-lib.sh"

# t CMD... : "WALL,CPU" milliseconds of one run.
t() { time_ms "$@" | tr ' ' ,; }
# A fresh store per run, none removed while timing (as in ci/bench-syntax.sh).
cold() { "$2/snapshot_stages" "$REPO" --out "$WORK/c$1" --stages scan,syntax --no-previous --repo-id bench; }
declare -A R
add() { R[$1]="${R[$1]:-} $2"; }

echo "repository $REPO, $RUNS rounds, load $(cut -d' ' -f1-3 /proc/loadavg)"
for run in $(seq "$RUNS"); do
  add cold_before "$(t cold "b$run" "$B")"; add cold_after "$(t cold "a$run" "$A")"
  add bare_before "$(t "$B/bare_parse" "$REPO")"; add bare_after "$(t "$A/bare_parse" "$REPO")"
  add ctags "$(t ctags -R -f "$WORK/tags" "$REPO")"
done

git clone -q --no-hardlinks "$REPO" "$WORK/clone"
"$B/snapshot_stages" "$WORK/clone" --out "$WORK/ib" --stages scan,syntax --no-previous --repo-id bench >/dev/null 2>&1
"$A/snapshot_stages" "$WORK/clone" --out "$WORK/ia" --stages scan,syntax --no-previous --repo-id bench >/dev/null 2>&1
FB=$(ls -d "$WORK"/ib/repo=bench/commit=*/); FA=$(ls -d "$WORK"/ia/repo=bench/commit=*/)
FILE=$(commit_one_file_change "$WORK/clone")
for _ in $(seq "$RUNS"); do
  add warm_before "$(t "$B/snapshot_stages" "$WORK/clone" --out "$WORK/ib" --stages scan,syntax --previous "$FB" --repo-id bench --force)"
  add warm_after "$(t "$A/snapshot_stages" "$WORK/clone" --out "$WORK/ia" --stages scan,syntax --previous "$FA" --repo-id bench --force)"
  add ctags_clone "$(t ctags -R -f "$WORK/tags2" "$WORK/clone")"
done
echo "one file changed: $FILE; load $(cut -d' ' -f1-3 /proc/loadavg)"
for k in cold_before cold_after bare_before bare_after ctags warm_before warm_after ctags_clone; do
  # shellcheck disable=SC2086 # the runs are separate words on purpose
  python3 -c '
import statistics, sys
k = sys.argv[1]; xs = [tuple(map(int, x.split(","))) for x in sys.argv[2:]]
walls = [w for w, _ in xs]
print(f"{k:12} wall {int(statistics.median(walls)):6d} ms   cpu {int(statistics.median(c for _, c in xs)):6d} ms   (walls {walls})")' "$k" ${R[$k]}
done
