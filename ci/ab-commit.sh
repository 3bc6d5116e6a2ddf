#!/usr/bin/env bash
# Two or more builds of the pipeline on the per-commit run, interleaved (issue 25): which one is
# faster on this machine now, and do they write the same bytes.
#
#   ci/ab-commit.sh WORK ts|scip RUNS BUILD...
#
# ci/bench-commit.sh measures one build against its peers. Run once per build, one after the
# other, two builds' figures move with the host (`ctags -R` on tokio went from 140 to 173 ms
# between two such runs). This script runs the builds round robin on the same one-file commit,
# RUNS rounds, each build on a base store it wrote itself (the caches beside a store are read
# only by the program that wrote them), and prints each build's median wall and CPU milliseconds
# (user + sys) with its runs.
#
# WORK is a --work folder of ci/bench-commit.sh: its clone holding the one-file commit on top of
# the base, and, for `scip`, the base.scip and head.scip indexes. Each BUILD is a binary of the
# pipeline's `snapshot_stages` example (`cargo build --release -p pipeline --example
# snapshot_stages`, copied aside for each build); their file names must differ. `ts` runs
# tree-sitter only, `scip` with the fresh index of the commit.
#
# Exits 1 when two builds' per-commit snapshots differ: every file of the snapshot is compared
# byte for byte, except run.json (the timings).
set -euo pipefail

[[ $# -ge 4 ]] || { echo "usage: $0 WORK ts|scip RUNS BUILD..." >&2; exit 2; }
BENCH=$(cd "$1" && pwd)
MODE=$2
RUNS=$3
shift 3
BUILDS=("$@")
case "$MODE" in
  ts) BASE_ARGS=(--no-scip); HEAD_ARGS=(--no-scip) ;;
  scip) BASE_ARGS=(--scip "$BENCH/base.scip"); HEAD_ARGS=(--scip "$BENCH/head.scip") ;;
  *) echo "$0: MODE is ts or scip, not $MODE" >&2; exit 2 ;;
esac
CLONE=$BENCH/repo
[[ -d $CLONE/.git ]] || { echo "$0: $BENCH holds no clone of ci/bench-commit.sh" >&2; exit 2; }
HERE=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=ci/syntax-bench-lib.sh
. "$HERE/ci/syntax-bench-lib.sh"

# Scratch stores; also time_ms's scratch folder ($WORK).
SCRATCH=$(mktemp -d)
WORK=$SCRATCH
trap 'git -C "$CLONE" checkout -q bench 2>/dev/null || true; rm -rf "$SCRATCH"' EXIT
HEAD_SHA=$(git -C "$CLONE" rev-parse bench)
BASE=$(git -C "$CLONE" rev-parse bench~1)
declare -A NAME_SEEN=()
for build in "${BUILDS[@]}"; do
  name=$(basename "$build")
  [[ -z "${NAME_SEEN[$name]:-}" ]] || { echo "$0: two builds named $name" >&2; exit 2; }
  NAME_SEEN[$name]=1
done

# The base store of each build, written by that build.
git -C "$CLONE" checkout -q "$BASE"
for build in "${BUILDS[@]}"; do
  "$build" "$CLONE" --repo-id bench --out "$SCRATCH/base-$(basename "$build")" --no-previous \
    "${BASE_ARGS[@]}" >/dev/null
done
git -C "$CLONE" checkout -q bench

run() { # run BUILD STORE
  "$1" "$CLONE" --repo-id bench --out "$2" --previous "$2/repo=bench/commit=$BASE" "${HEAD_ARGS[@]}"
}
declare -A RESULTS=()
for round in $(seq "$RUNS"); do
  for build in "${BUILDS[@]}"; do
    name=$(basename "$build")
    store=$SCRATCH/run-$name
    rm -rf "$store"
    cp -a "$SCRATCH/base-$name" "$store"
    sync
    RESULTS[$name]+="$(time_ms run "$build" "$store");"
  done
  echo "round $round of $RUNS done" >&2
done

printf '%-24s %8s %8s  %s\n' "build ($MODE, $RUNS runs)" "wall ms" "cpu ms" "wall ms of each run"
for build in "${BUILDS[@]}"; do
  name=$(basename "$build")
  IFS=';' read -ra results <<< "${RESULTS[$name]%;}"
  printf '%-24s %8s %8s  %s\n' "$name" "$(median $(wall "${results[@]}"))" \
    "$(median $(cpu "${results[@]}"))" "$(wall "${results[@]}" | tr '\n' ' ')"
done

# The last round's snapshots, compared file by file (run.json holds the timings).
files_of() { (cd "$1" && find . -type f ! -name run.json | sort); }
first=$(basename "${BUILDS[0]}")
a=$SCRATCH/run-$first/repo=bench/commit=$HEAD_SHA
status=0
for build in "${BUILDS[@]:1}"; do
  name=$(basename "$build")
  b=$SCRATCH/run-$name/repo=bench/commit=$HEAD_SHA
  if [[ "$(files_of "$a")" != "$(files_of "$b")" ]]; then
    echo "DIFFERENT: $name's per-commit snapshot holds other files than $first's"
    status=1
    continue
  fi
  while IFS= read -r f; do
    cmp -s "$a/$f" "$b/$f" || { echo "DIFFERENT: $f ($name's is not $first's)"; status=1; }
  done < <(files_of "$a")
done
[[ $status == 1 ]] || echo "same bytes: every build's per-commit snapshot"
exit "$status"
