#!/usr/bin/env bash
# Benchmark of `ckb report --store` (issue 27): a store of COMMITS snapshots of a real repository
# (its last COMMITS first-parent commits, each snapshotted against the one before, as the example
# CI workflow does), then whole-process wall time, CPU time and peak memory, medians of RUNS
# interleaved runs, against the peer that answers part of the same question: the canned SQL
# `churn_trend` (the trend across the store) through `ckb query canned`, which runs DuckDB.
#
# Goals: the report in at most 2 s (wall, median) and at most 2 MB. The script exits 1 when a
# goal is missed.
#
# Usage: ci/bench-report.sh REPO [COMMITS] [RUNS]
#   REPO     a git repository with at least COMMITS first-parent commits (e.g. a clone of
#            BurntSushi/ripgrep); cloned into the work folder, never modified.
#   COMMITS  snapshots in the store (default 100).
#   RUNS     timed runs per command (default 5).
# Environment: CKB (the ckb binary; default: a release build), WORK (folder for the clone and the
#   store, kept between runs so the store is built once; default: a temp folder, removed unless
#   KEEP=1). Needs git, python3 and GNU time (/usr/bin/time).
set -euo pipefail
# shellcheck source=ci/lib.sh
. "$(dirname "$0")/lib.sh"

repo=${1:?usage: ci/bench-report.sh REPO [COMMITS] [RUNS]}
commits=${2:-100}
runs=${3:-5}

ckb_binary release
if [ -n "${WORK:-}" ]; then
  work=$WORK
  mkdir -p "$work"
else
  work=$(mktemp -d)
  [ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT
fi
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
[ -d "$work/repo" ] || git clone -q --no-hardlinks "$repo" "$work/repo"
store="$work/store"
mkdir -p "$store"

# The store: each commit in a worktree of its own, oldest first, against the previous snapshot.
build_start=$(date +%s)
previous=""
new=0
for sha in $(git -C "$work/repo" rev-list --first-parent --reverse --max-count="$commits" HEAD); do
  dir="$store/repo=bench/commit=$sha"
  if [ ! -f "$dir/manifest.json.zst" ]; then
    git -C "$work/repo" worktree add --detach --quiet "$work/tree" "$sha"
    args=(snapshot "$work/tree" --out "$store" --repo-id bench --progress never)
    [ -n "$previous" ] && args+=(--previous "$previous")
    "$CKB" "${args[@]}" >/dev/null
    git -C "$work/repo" worktree remove --force "$work/tree"
    new=$((new + 1))
  fi
  previous=$dir
done
held=$(find "$store" -name manifest.json.zst | wc -l)
echo "store: $held snapshots of $repo ($new built in $(($(date +%s) - build_start)) s) in $store"
[ "$held" -ge "$commits" ] || { echo "FAIL: the repository has fewer than $commits first-parent commits"; exit 1; }

times="$work/times"
: >"$times"
for ((i = 0; i < runs; i++)); do
  /usr/bin/time -f "%e %U %S %M" -o "$work/t" "$CKB" report --store "$store" --output "$work/report.html" >/dev/null
  echo "ckb-report $(cat "$work/t")" >>"$times"
  /usr/bin/time -f "%e %U %S %M" -o "$work/t" "$CKB" query --store "$store" --format csv canned churn_trend >/dev/null
  echo "peer-canned-churn_trend $(cat "$work/t")" >>"$times"
done
size=$(stat -c %s "$work/report.html")
echo "runs: $runs; cpus: $(nproc); load: $(cut -d' ' -f1-3 /proc/loadavg); ckb: $CKB"
python3 - "$times" "$size" <<'EOF'
import sys, statistics
rows = {}
for line in open(sys.argv[1]):
    name, e, u, s, m = line.split()
    rows.setdefault(name, []).append((float(e) * 1000, (float(u) + float(s)) * 1000, int(m) / 1024))
for name, r in rows.items():
    wall = statistics.median_low([x[0] for x in r])
    cpu = statistics.median_low([x[1] for x in r])
    rss = statistics.median_low([x[2] for x in r])
    print(f"  {name:<26} wall {wall:7.0f} ms   cpu {cpu:7.0f} ms   peak rss {rss:7.1f} MiB")
wall = statistics.median_low([x[0] for x in rows["ckb-report"]])
size = int(sys.argv[2])
print(f"  report size {size} bytes ({size / 1024 / 1024:.2f} MiB)")
ok = wall <= 2000 and size <= 2 * 1024 * 1024
print("goals (wall <= 2000 ms, size <= 2 MiB):", "met" if ok else "FAIL")
sys.exit(0 if ok else 1)
EOF
