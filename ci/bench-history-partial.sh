#!/usr/bin/env bash
# Benchmark of the git history stage on a blobless partial clone (issue 29): the same repository
# cloned in full and with `--filter=blob:none`, the history stage (`history_bench --no-previous`)
# over the same window on each, whole-process wall and CPU times, medians of RUNS
# interleaved runs (round-robin, so changes in machine load hit both alike). The blobless clone
# reads no blob of older history, so it must cost no more than the full clone. Then, once each on a
# fresh blobless clone: `--history-fetch-missing` (one `git fetch` of the window's missing blobs
# from the local file:// origin, then the line counts), and a check that its rows equal the full
# clone's.
#
# Usage: ci/bench-history-partial.sh REPO [RUNS]
#   REPO  a git repository (work tree or bare) with a long history; never modified.
#   RUNS  timed runs per clone (default 5).
# Environment: HISTORY_DAYS (default 365, ckb's default window), CARGO_TARGET_DIR (where the
#   build goes), PROFILE (cargo profile, default release; `dev` reuses a test build, whose
#   dependencies are optimised but ckb's own code is not), KEEP=1 keeps the temp dir.
# Needs git, python3 and GNU time (/usr/bin/time).
set -euo pipefail

repo=${1:?usage: ci/bench-history-partial.sh REPO [RUNS]}
runs=${2:-5}
days=${HISTORY_DAYS:-365}
root=$(cd "$(dirname "$0")/.." && pwd)
target=${CARGO_TARGET_DIR:-$root/target}

profile=${PROFILE:-release}
cargo build --quiet --profile "$profile" -p pipeline --example history_bench --manifest-path "$root/Cargo.toml"
bench="$target/$([ "$profile" = dev ] && echo debug || echo "$profile")/examples/history_bench"

tmp=$(mktemp -d)
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$tmp"' EXIT
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
# The origin: a bare copy that serves partial clones, as a forge does.
git clone -q --bare --no-hardlinks "$repo" "$tmp/origin.git"
git -C "$tmp/origin.git" config uploadpack.allowFilter true
url="file://$tmp/origin.git"
git clone -q "$url" "$tmp/full"
git clone -q --filter=blob:none "$url" "$tmp/blobless"
tip=$(git -C "$tmp/full" rev-parse HEAD)
export bench tmp days

echo "repository: $repo @ $tip ($(git -C "$tmp/full" rev-list --count HEAD) commits reachable)"
echo "window: $days days; runs: $runs; cpus: $(nproc); load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "objects: full $(git -C "$tmp/full" count-objects -v | awk '/^(count|in-pack):/ {n += $2} END {print n}'), blobless $(git -C "$tmp/blobless" count-objects -v | awk '/^(count|in-pack):/ {n += $2} END {print n}')"
echo "full clone:     $("$bench" --repo "$tmp/full" --store "$tmp/s-full" --days "$days" --no-previous --dump "$tmp/full.tsv")"
echo "blobless clone: $("$bench" --repo "$tmp/blobless" --store "$tmp/s-blobless" --days "$days" --no-previous)"

: >"$tmp/times"
for ((i = 0; i < runs; i++)); do
  for clone in full blobless; do
    /usr/bin/time -f "%e %U %S" -o "$tmp/t" \
      "$bench" --repo "$tmp/$clone" --store "$tmp/s-$clone" --days "$days" --no-previous >"$tmp/line"
    stage=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["gitStageMillis"])' "$tmp/line")
    echo "$clone $(cat "$tmp/t") $stage" >>"$tmp/times"
  done
done
echo "git history stage, medians of $runs interleaved runs:"
python3 - "$tmp/times" <<'EOF'
import sys, statistics
runs = {}
for line in open(sys.argv[1]):
    name, e, u, s, stage = line.split()
    r = runs.setdefault(name, {"wall": [], "cpu": [], "stage": []})
    r["wall"].append(float(e) * 1000)
    r["cpu"].append((float(u) + float(s)) * 1000)
    r["stage"].append(float(stage))
for name, r in runs.items():
    print(f"  {name:<9} process wall {statistics.median(r['wall']):7.0f} ms  cpu {statistics.median(r['cpu']):7.0f} ms"
          f"  git stage {statistics.median(r['stage']):7.0f} ms")
EOF

git clone -q --filter=blob:none "$url" "$tmp/fetched"
echo "blobless + --history-fetch-missing (one run): $("$bench" --repo "$tmp/fetched" --store "$tmp/s-fetched" --days "$days" --no-previous --fetch-missing --dump "$tmp/fetched.tsv")"
if cmp -s <(sort "$tmp/full.tsv") <(sort "$tmp/fetched.tsv"); then
  echo "  file_changes rows equal the full clone's ($(wc -l <"$tmp/full.tsv") rows)"
else
  echo "  file_changes rows DIFFER from the full clone's"
  exit 1
fi
