#!/usr/bin/env bash
# Benchmarks of the syntax stage (issue 3): accuracy and speed on a real repository.
#
#   ci/bench-syntax.sh REPO [--scip INDEX.scip]... [--runs N]
#
# 1. Cold speed: whole-process medians of N runs of
#      - `snapshot_stages REPO --stages scan,syntax --no-previous` (the pipeline, a fresh store
#        each run; SNAPSHOT_CMD may name another program and its first arguments, such as
#        "target/release/ckb snapshot", which links DuckDB and so takes far longer to build),
#      - `bare_parse REPO` (the floor: same files, grammars and queries, in parallel),
#      - `ctags -R` (universal-ctags),
#    and the ratios pipeline/bare (goal <= 1.5) and pipeline/ctags. Commands run round-robin so
#    machine load hits them alike; wall and CPU (user + sys) medians are both printed, with the
#    load average.
# 2. Per-commit speed: in a scratch clone, snapshot HEAD, commit a one-file change, and time
#    the snapshot of that commit, which reuses the previous one (median of N; each run snapshots
#    a new commit with the same change, as CI would) against `ctags -R` on the whole tree; checks
#    that it built on the previous snapshot and that its tables are byte-identical to a cold
#    snapshot of the same commit.
# 3. Accuracy: for each --scip index (built for REPO's checked-out commit, e.g. with
#    `rust-analyzer scip REPO`, `scip-typescript index`, `scip-python index`), definition
#    recall per language (goal >= 90%).
#
# Needs: cargo, git, ctags (universal-ctags), python3. Builds the release examples into
# $CARGO_TARGET_DIR (default target/).
set -euo pipefail

usage() { echo "usage: $0 REPO [--scip INDEX.scip]... [--runs N]" >&2; exit 2; }
[[ $# -ge 1 ]] || usage
REPO=$(cd "$1" && pwd); shift
RUNS=5
SCIPS=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --scip) SCIPS+=("$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"); shift 2 ;;
    --runs) RUNS=$2; shift 2 ;;
    *) usage ;;
  esac
done

# bench_setup, time_ms, wall, cpu, median, commit_one_file_change and the benchmark's git identity.
# shellcheck source=ci/syntax-bench-lib.sh
. "$(cd "$(dirname "$0")" && pwd)/syntax-bench-lib.sh"
bench_setup --examples
EX=$TARGET/release/examples

# A fresh store each run, and none is removed until every run is done: deleting a store is the
# harness's work, not the snapshot's, and its writeback (and discards) would slow the next run.
cold_pipeline() { "${SNAP[@]}" "$REPO" --out "$WORK/cold-$1" --stages scan,syntax --no-previous --repo-id bench; }
bare() { "$EX/bare_parse" "$REPO"; }
ctags_run() { ctags -R -f "$WORK/tags" "$REPO"; }

echo "repository: $REPO ($(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo no-git)), runs: $RUNS, cpus: $(nproc), load: $(cut -d' ' -f1-3 /proc/loadavg)"
"$EX/bare_parse" "$REPO"

p=(); b=(); c=()
for run in $(seq "$RUNS"); do
  p+=("$(time_ms cold_pipeline "$run")")
  b+=("$(time_ms bare)")
  c+=("$(time_ms ctags_run)")
done
P=$(median $(wall "${p[@]}")); B=$(median $(wall "${b[@]}")); C=$(median $(wall "${c[@]}"))
PC=$(median $(cpu "${p[@]}")); BC=$(median $(cpu "${b[@]}")); CC=$(median $(cpu "${c[@]}"))
echo "cold  scan,syntax: ${P} ms (cpu ${PC})   bare parse: ${B} ms (cpu ${BC})   ctags -R: ${C} ms (cpu ${CC})"
python3 -c "import sys; p,b,c,pc,bc=map(int,sys.argv[1:]); print(f'ratio pipeline/bare = {p/max(b,1):.2f} (goal <= 1.5; cpu {pc/max(bc,1):.2f})   pipeline/ctags = {p/max(c,1):.2f}')" "$P" "$B" "$C" "$PC" "$BC"
echo "load after cold runs: $(cut -d' ' -f1-3 /proc/loadavg)"

COLD_SNAP=$(ls -d "$WORK"/cold-1/repo=bench/commit=*/ | head -1)
for idx in "${SCIPS[@]}"; do
  echo "recall vs $(basename "$idx"):"
  "$EX/recall" "$COLD_SNAP" "$idx"
done

# ---- per commit ----------------------------------------------------------------------------
if git -C "$REPO" rev-parse HEAD >/dev/null 2>&1; then
  CLONE=$WORK/clone
  git clone -q --no-hardlinks "$REPO" "$CLONE"
  "${SNAP[@]}" "$CLONE" --out "$WORK/inc" --stages scan,syntax --no-previous --repo-id bench >/dev/null 2>&1
  FILE=$(commit_one_file_change "$CLONE")
  # Each timed run is the first snapshot of a new commit, as in CI: before each run (untimed) the
  # one-file commit is amended to a new commit with the same tree, and the run finds the previous
  # snapshot as CI does, the newest ancestor's in the store. (Snapshotting one commit again with
  # --force would also time removing the copy it replaces, which CI never does.)
  warm() { "${SNAP[@]}" "$CLONE" --out "$WORK/inc" --stages scan,syntax --repo-id bench; }
  ctags_clone() { ctags -R -f "$WORK/tags2" "$CLONE"; }
  w=(); c2=()
  for run in $(seq "$RUNS"); do
    git -C "$CLONE" commit -q --amend -m "bench: one-file change ($run)"
    w+=("$(time_ms warm)")
    c2+=("$(time_ms ctags_clone)")
  done
  W=$(median $(wall "${w[@]}")); C2=$(median $(wall "${c2[@]}"))
  WC=$(median $(cpu "${w[@]}")); C2C=$(median $(cpu "${c2[@]}"))
  echo "per-commit (one file changed: $FILE): ${W} ms (cpu ${WC})   ctags -R: ${C2} ms (cpu ${C2C})   (goal: below ctags)   load: $(cut -d' ' -f1-3 /proc/loadavg)"
  HEAD_SNAP=$(ls -d "$WORK"/inc/repo=bench/commit="$(git -C "$CLONE" rev-parse HEAD)"/)
  if command -v zstd >/dev/null; then
    zstd -qdc "$HEAD_SNAP/manifest.json.zst" | python3 -c '
import json, sys
m = json.load(sys.stdin)
chosen = (m.get("previous") or {}).get("chosenBy")
counts = m["stages"]["syntax"]["counts"]
reused, total = counts.get("files.reused", 0), counts.get("files.total")
print("previous snapshot chosen by:", chosen, "  files reused:", reused, "of", total)
if chosen != "ancestor" or not reused:
    sys.exit("the per-commit runs did not build on the previous snapshot")'
  fi
  "${SNAP[@]}" "$CLONE" --out "$WORK/inc-cold" --stages scan,syntax --no-previous --repo-id bench >/dev/null 2>&1
  COLD_HEAD=$(ls -d "$WORK"/inc-cold/repo=bench/commit=*/ | head -1)
  same=yes
  for t in symbols occurrences call_edges imports; do
    cmp -s "$HEAD_SNAP/$t.parquet" "$COLD_HEAD/$t.parquet" || { same=no; echo "  $t.parquet differs from a cold run"; }
  done
  echo "incremental tables byte-identical to cold: $same"
  [[ $same == yes ]]
fi
