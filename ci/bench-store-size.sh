#!/usr/bin/env bash
# How the cost of a per-commit snapshot grows with the number of snapshots in the store.
#
#   ci/bench-store-size.sh REPO [--snapshots N] [--runs R]
#
# CI adds a snapshot per commit, so a store holds thousands. In a scratch clone of REPO this
# snapshots HEAD, commits a one-file change (as ci/bench-syntax.sh does), and times the snapshot of
# that commit with the default choice of previous snapshot (the newest ancestor's in the store):
# once with only the first snapshot in the store, once with N more snapshots of other commits
# beside it (copies of the first's manifest, in folders named after commits that are not
# ancestors). Each run snapshots a new commit (the change, amended: same tree), as in CI. Prints
# both medians (wall and CPU) and their difference.
#
# Needs: cargo, git, python3. Builds the release examples into $CARGO_TARGET_DIR (default
# target/) unless SKIP_BUILD is set; SNAPSHOT_CMD overrides the snapshot program
# (with its first arguments, e.g. "target/release/ckb snapshot").
set -euo pipefail

# shellcheck source=ci/lib.sh
. "$(dirname "$0")/lib.sh"
EXTRA=1000
RUNS=11
parse_repo_args "$0 REPO [--snapshots N] [--runs R]" "--snapshots EXTRA" "--runs RUNS" -- "$@"

# bench_setup, commit_one_file_change and the benchmark's git identity.
# shellcheck source=ci/syntax-bench-lib.sh
. "$(cd "$(dirname "$0")" && pwd)/syntax-bench-lib.sh"
bench_setup --example snapshot_stages

CLONE=$WORK/clone
git clone -q --no-hardlinks "$REPO" "$CLONE"
for store in small large; do
  "${SNAP[@]}" "$CLONE" --out "$WORK/$store" --stages scan,syntax --no-previous --repo-id bench >/dev/null 2>&1
done
FIRST=$(ls -d "$WORK"/large/repo=bench/commit=*/ | head -1)
# Snapshots of commits that are not ancestors of HEAD: folder names of made-up commit IDs.
python3 - "$WORK/large/repo=bench" "$FIRST" "$EXTRA" <<'PY'
import os, shutil, sys
repo_dir, first, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
for i in range(n):
    folder = os.path.join(repo_dir, "commit=" + format(i, "040x").replace("0", "e", 1))
    os.makedirs(folder)
    shutil.copy(os.path.join(first, "manifest.json.zst"), folder)
PY
FILE=$(commit_one_file_change "$CLONE")
# Files are described from the scan cache only once settled (pipeline/src/scan_cache.rs), as on a
# runner that updates its checkout in place; let the fresh clone settle first.
sleep 3
echo "repository: $REPO, one file changed: $FILE, runs: $RUNS, cpus: $(nproc), load: $(cut -d' ' -f1-3 /proc/loadavg)"

snap_small() { "${SNAP[@]}" "$CLONE" --out "$WORK/small" --stages scan,syntax --repo-id bench; }
snap_large() { "${SNAP[@]}" "$CLONE" --out "$WORK/large" --stages scan,syntax --repo-id bench; }
s=(); l=()
for run in $(seq "$RUNS"); do
  git -C "$CLONE" commit -q --amend -m "bench: one-file change ($run)"
  s+=("$(time_ms snap_small)")
  git -C "$CLONE" commit -q --amend -m "bench: one-file change ($run), large store"
  l+=("$(time_ms snap_large)")
done
SW=$(median $(wall "${s[@]}")); SC=$(median $(cpu "${s[@]}"))
LW=$(median $(wall "${l[@]}")); LC=$(median $(cpu "${l[@]}"))
echo "per-commit snapshot, store of 1 snapshot: ${SW} ms (cpu ${SC})"
echo "per-commit snapshot, store of $((EXTRA + 1)) snapshots: ${LW} ms (cpu ${LC})   difference: $((LW - SW)) ms"
