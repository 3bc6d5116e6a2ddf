#!/usr/bin/env bash
# Benchmark of the git history stage (issue 5): whole-process wall and CPU times, medians of RUNS
# interleaved runs (round-robin, so changes in machine load hit every command alike):
#
#   1. the full history stage (`history_bench --no-previous`, release build) vs
#      `git log --numstat -M --format=%H` over the same commits — as named in the issue — and vs
#      the same with `--diff-merges=first-parent`, which also diffs merges, as ckb does;
#   2. an incremental snapshot one commit later vs a full snapshot of the same commit;
#   3. parity: ckb's file_changes rows vs git's numstat (merges diffed against their first parent),
#      row by row.
#
# Usage: ci/bench-history.sh REPO [RUNS]
#   REPO  a git repository (work tree or bare) with a long history. It is cloned into a temp dir
#         and never modified.
#   RUNS  timed runs per command (default 5).
# Environment: HISTORY_DAYS (default 0 = the whole history; ckb's own default window is 365),
#   CARGO_TARGET_DIR (where the release build goes), KEEP=1 keeps the temp dir.
# Needs git, python3 and GNU time (/usr/bin/time).
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

since=""
if [ "$days" -gt 0 ]; then
  since="--since=@$(($(git -C "$work" log -1 --format=%ct HEAD) - days * 86400))"
fi
export bench work tmp days since

# interleaved NAME 'COMMAND' [NAME 'COMMAND' ...]: runs the commands (shell text, evaluated by
# bash with the variables above exported) RUNS times round-robin; prints median wall and CPU ms.
interleaved() {
  local i j name cmd
  : >"$tmp/times"
  for ((i = 0; i < runs; i++)); do
    for ((j = 1; j <= $#; j += 2)); do
      name=${!j}
      cmd=$((j + 1))
      /usr/bin/time -f "%e %U %S" -o "$tmp/t" bash -c "${!cmd}" >/dev/null
      echo "$name $(cat "$tmp/t")" >>"$tmp/times"
    done
  done
  python3 - "$tmp/times" <<'EOF'
import sys, statistics
wall, cpu = {}, {}
for line in open(sys.argv[1]):
    name, e, u, s = line.split()
    wall.setdefault(name, []).append(float(e) * 1000)
    cpu.setdefault(name, []).append((float(u) + float(s)) * 1000)
for name in wall:
    print(f"  {name:<44} wall {statistics.median_low(wall[name]):8.0f} ms   cpu {statistics.median_low(cpu[name]):8.0f} ms")
EOF
}

echo "repository: $repo @ $tip ($(git -C "$work" rev-list --count HEAD) commits reachable)"
echo "window: ${days} days (0 = all); runs: $runs; cpus: $(nproc); load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "ckb full walk: $("$bench" --repo "$work" --store "$tmp/full" --days "$days" --no-previous --dump "$tmp/ckb.tsv")"
# shellcheck disable=SC2086
echo "git log commits in range: $(git -C "$work" rev-list --count $since HEAD)"

echo "1. full history (whole process):"
interleaved \
  ckb-history-full '"$bench" --repo "$work" --store "$tmp/full" --days "$days" --no-previous' \
  git-log-numstat-M 'git -C "$work" log -M --numstat --format=%H $since' \
  git-log-numstat-M-diff-merges-first-parent 'git -C "$work" log -M --numstat --format=%H --diff-merges=first-parent $since'

git -C "$work" checkout -q --detach "$tip~1"
"$bench" --repo "$work" --store "$tmp/inc" --days "$days" >/dev/null
git -C "$work" checkout -q --detach "$tip"
echo "2. one commit later: $("$bench" --repo "$work" --store "$tmp/inc" --days "$days")"
interleaved \
  ckb-history-incremental '"$bench" --repo "$work" --store "$tmp/inc" --days "$days"' \
  ckb-history-full-same-commit '"$bench" --repo "$work" --store "$tmp/full" --days "$days" --no-previous'

echo "3. parity with git log -M --numstat --diff-merges=first-parent:"
# shellcheck disable=SC2086
git -C "$work" log -M --numstat --format=%H --diff-merges=first-parent -z $since >"$tmp/git.z"
python3 - "$tmp/git.z" "$tmp/ckb.tsv" <<'EOF'
import sys
git = set()
sha = None
it = iter(open(sys.argv[1], 'rb').read().decode('utf-8', 'replace').split('\0'))
for t in it:
    t = t.lstrip('\n')
    if not t:
        continue
    if len(t) == 40 and all(c in '0123456789abcdef' for c in t):
        sha = t
        continue
    add, dele, path = t.split('\t', 2)
    if path == '':  # a rename: old and new path follow
        next(it)
        path = next(it)
    git.add((sha, add, dele, path))
ckb = set(tuple(l.rstrip('\n').split('\t', 3)) for l in open(sys.argv[2], encoding='utf-8'))
commits = {l.strip() for l in open(sys.argv[2] + '.commits')}
git_in = {r for r in git if r[0] in commits}
only_git, only_ckb = git_in - ckb, ckb - git_in
bad = {r[0] for r in only_git | only_ckb}
print(f"  {len(ckb)} ckb rows, {len(git_in)} git rows over {len(commits)} commits; "
      f"{len(only_git)} rows only in git, {len(only_ckb)} only in ckb, {len(bad)} commits differ")
for r in sorted(only_git)[:5]:
    print("  git:", *r)
for r in sorted(only_ckb)[:5]:
    print("  ckb:", *r)
EOF
