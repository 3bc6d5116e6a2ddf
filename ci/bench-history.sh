#!/usr/bin/env bash
# Benchmark of the git history stage (issue 5), whole-process wall times, medians of RUNS runs:
#
#   1. full history stage (`history_bench --no-previous`, release build) vs
#      `git log --numstat -M --format=%H` over the same commits — as named in the issue — and vs
#      the same with `--diff-merges=first-parent`, which also diffs merges as ckb does;
#   2. an incremental snapshot one commit later vs a full snapshot of the same commit;
#   3. parity: ckb's file_changes rows vs git's numstat (merges diffed against their first parent),
#      row by row.
#
# Usage: ci/bench-history.sh REPO [RUNS]
#   REPO  a git repository (work tree or bare) with a long history. It is cloned into a temp dir
#         and never modified.
#   RUNS  timed runs per measurement (default 5).
# Environment: HISTORY_DAYS (default 0 = the whole history; ckb's own default window is 365),
#   CARGO_TARGET_DIR (where the release build goes), KEEP=1 keeps the temp dir.
set -euo pipefail

repo=${1:?usage: ci/bench-history.sh REPO [RUNS]}
runs=${2:-5}
days=${HISTORY_DAYS:-0}
root=$(cd "$(dirname "$0")/.." && pwd)
target=${CARGO_TARGET_DIR:-$root/target}

cargo build --quiet --release -p pipeline --example history_bench --manifest-path "$root/Cargo.toml"
bench="$target/release/examples/history_bench"

tmp=$(mktemp -d)
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$tmp"' EXIT
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
git clone -q --no-hardlinks "$repo" "$tmp/work"
work="$tmp/work"
tip=$(git -C "$work" rev-parse HEAD)

# Median wall time in milliseconds of RUNS runs of a command (its output discarded).
median_ms() {
  local times=() i start end
  for ((i = 0; i < runs; i++)); do
    start=$(date +%s%N)
    "$@" >/dev/null
    end=$(date +%s%N)
    times+=($(((end - start) / 1000000)))
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}

range=()
if [ "$days" -gt 0 ]; then
  head_time=$(git -C "$work" log -1 --format=%ct HEAD)
  range=(--since="@$((head_time - days * 86400))")
fi
git_log() { git -C "$work" log -M --numstat --format=%H "${range[@]}" "$@"; }

echo "repository: $repo @ $tip ($(git -C "$work" rev-list --count HEAD) commits reachable)"
echo "window: ${days} days (0 = all); runs: $runs; cpus: $(nproc)"
one=$("$bench" --repo "$work" --store "$tmp/full" --days "$days" --no-previous --dump "$tmp/ckb.tsv")
echo "ckb full walk: $one"
echo "git log commits in range: $(git -C "$work" rev-list --count "${range[@]}" HEAD)"

# 1. Full walk vs git log.
t_ckb=$(median_ms "$bench" --repo "$work" --store "$tmp/full" --days "$days" --no-previous)
t_git=$(median_ms git_log)
t_git_fp=$(median_ms git_log --diff-merges=first-parent)
echo "full history stage (whole process):                 ${t_ckb} ms"
echo "git log --numstat -M --format=%H:                     ${t_git} ms"
echo "git log --numstat -M --diff-merges=first-parent:      ${t_git_fp} ms"

# 2. Incremental one commit later vs full.
git -C "$work" checkout -q --detach "$tip~1"
"$bench" --repo "$work" --store "$tmp/inc" --days "$days" >/dev/null
git -C "$work" checkout -q --detach "$tip"
inc=$("$bench" --repo "$work" --store "$tmp/inc" --days "$days")
echo "incremental run: $inc"
t_inc=$(median_ms "$bench" --repo "$work" --store "$tmp/inc" --days "$days")
t_full=$(median_ms "$bench" --repo "$work" --store "$tmp/full" --days "$days" --no-previous)
echo "incremental snapshot one commit later (whole process): ${t_inc} ms"
echo "full snapshot of the same commit (whole process):      ${t_full} ms"

# 3. Parity with git's numstat, row by row.
git_log --diff-merges=first-parent -z >"$tmp/git.z"
python3 - "$tmp/git.z" "$tmp/ckb.tsv" <<'EOF'
import sys
git = set()
sha = None
tokens = open(sys.argv[1], 'rb').read().decode('utf-8', 'replace').split('\0')
it = iter(tokens)
for t in it:
    t = t.lstrip('\n')
    if not t:
        continue
    if len(t) == 40 and all(c in '0123456789abcdef' for c in t):
        sha = t
        continue
    add, dele, path = t.split('\t', 2)
    if path == '':
        next(it)
        path = next(it)
    git.add((sha, add, dele, path))
ckb = set(tuple(l.rstrip('\n').split('\t', 3)) for l in open(sys.argv[2], encoding='utf-8'))
commits = {l.strip() for l in open(sys.argv[2] + '.commits')}
git_in = {r for r in git if r[0] in commits}
only_git, only_ckb = git_in - ckb, ckb - git_in
bad = {r[0] for r in only_git | only_ckb}
print(f"parity: {len(ckb)} ckb rows, {len(git_in)} git rows over {len(commits)} commits; "
      f"{len(only_git)} rows only in git, {len(only_ckb)} only in ckb, {len(bad)} commits differ")
for r in sorted(only_git)[:5]:
    print("  git:", *r)
for r in sorted(only_ckb)[:5]:
    print("  ckb:", *r)
EOF
