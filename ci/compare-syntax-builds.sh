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
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT

# t CMD... : "WALL,CPU" milliseconds of one run.
t() {
  local s e
  s=$(date +%s%N)
  ( "$@" >/dev/null 2>&1; times ) > "$W/cpu"
  e=$(date +%s%N)
  echo "$(( (e - s) / 1000000 )),$(tail -1 "$W/cpu" | python3 -c '
import re, sys
print(int(1000 * sum(int(m) * 60 + float(s) for m, s in re.findall(r"(\d+)m([\d.]+)s", sys.stdin.read()))))')"
}
cold() { rm -rf "$W/c$1"; "$2/snapshot_stages" "$REPO" --out "$W/c$1" --stages scan,syntax --no-previous --repo-id bench; }
declare -A R
add() { R[$1]="${R[$1]:-} $2"; }

echo "repository $REPO, $RUNS rounds, load $(cut -d' ' -f1-3 /proc/loadavg)"
for _ in $(seq "$RUNS"); do
  add cold_before "$(t cold b "$B")"; add cold_after "$(t cold a "$A")"
  add bare_before "$(t "$B/bare_parse" "$REPO")"; add bare_after "$(t "$A/bare_parse" "$REPO")"
  add ctags "$(t ctags -R -f "$W/tags" "$REPO")"
done

git clone -q --no-hardlinks "$REPO" "$W/clone"
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.invalid GIT_COMMITTER_NAME=bench \
  GIT_COMMITTER_EMAIL=bench@example.invalid GIT_AUTHOR_DATE=2026-01-01T00:00:00Z \
  GIT_COMMITTER_DATE=2026-01-01T00:00:00Z
"$B/snapshot_stages" "$W/clone" --out "$W/ib" --stages scan,syntax --no-previous --repo-id bench >/dev/null 2>&1
"$A/snapshot_stages" "$W/clone" --out "$W/ia" --stages scan,syntax --no-previous --repo-id bench >/dev/null 2>&1
FB=$(ls -d "$W"/ib/repo=bench/commit=*/); FA=$(ls -d "$W"/ia/repo=bench/commit=*/)
FILE=$(cd "$W/clone" && git ls-files '*.rs' '*.py' '*.ts' '*.go' '*.java' '*.js' | xargs ls -S 2>/dev/null \
  | awk '{ f[NR] = $0 } END { print f[int((NR + 1) / 2)] }')
case "$FILE" in
  *.rs) echo 'fn bench_added(x: u32) -> u32 { x + 1 }' >> "$W/clone/$FILE" ;;
  *.py) printf '\n\ndef bench_added(x):\n    return x + 1\n' >> "$W/clone/$FILE" ;;
  *.go) printf '\nfunc benchAdded(x int) int { return x + 1 }\n' >> "$W/clone/$FILE" ;;
  *) printf '\nfunction benchAdded(x) { return x + 1; }\n' >> "$W/clone/$FILE" ;;
esac
git -C "$W/clone" commit -qam "bench: one-file change"
for _ in $(seq "$RUNS"); do
  add warm_before "$(t "$B/snapshot_stages" "$W/clone" --out "$W/ib" --stages scan,syntax --previous "$FB" --repo-id bench --force)"
  add warm_after "$(t "$A/snapshot_stages" "$W/clone" --out "$W/ia" --stages scan,syntax --previous "$FA" --repo-id bench --force)"
  add ctags_clone "$(t ctags -R -f "$W/tags2" "$W/clone")"
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
