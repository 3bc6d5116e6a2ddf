#!/usr/bin/env bash
# Benchmark of the per-commit snapshot (issue 25): what a CI job that snapshots every commit pays
# for one more commit, against a full snapshot of that commit and against `ctags -R`.
#
#   ci/bench-commit.sh REPO [--work DIR] [--runs N]
#
# REPO is a git checkout of a Rust repository (tokio, cargo, ...). In the work folder (--work DIR
# keeps it, with its clone and indexes, between invocations; default: a temporary folder) the
# script clones REPO, indexes its HEAD (the base) with `rust-analyzer scip`, commits a one-file
# change (ci/syntax-bench-lib.sh: a function appended to the median-sized source file, with a
# fixed identity and date, so the commit is the same every time) and indexes that commit too: a
# fresh SCIP index of the same repository, as CI would make it. Then, round-robin RUNS times
# (default 5), each a whole process, medians reported (wall and CPU = user + sys):
#
#   commit+scip  `ckb snapshot --scip HEAD.scip --previous BASE` of the one-file commit, in a copy
#                of the store that holds the base snapshot (and the caches the base run left)
#   full+scip    `ckb snapshot --scip HEAD.scip --no-previous` of the same commit, a fresh store
#   commit       `ckb snapshot --no-scip --previous BASE` of the commit (tree-sitter only), in a
#                copy of a store holding the tree-sitter base snapshot
#   commit-syn   the same with `--stages scan,syntax` (what `ctags -R` does: files and
#                definitions; ci/bench-syntax.sh's measure)
#   ctags        `ctags -R` over the whole tree (universal-ctags)
#
# and the peak RSS (max resident set, /usr/bin/time) of commit+scip. Goals, each a PASS or FAIL
# line: commit+scip <= 0.10 x full+scip; commit and commit-syn <= 0.8 x ctags; commit+scip peak
# <= 256 MiB. Then each kept snapshot's stage timings (run.json).
# Exit 1 when a per-commit snapshot did not build on its previous snapshot or its tables differ
# from the full snapshot's (the goals are reported, not enforced: timings depend on the machine).
#
# CKB names the binary (default: $CARGO_TARGET_DIR/release/ckb, built first unless SKIP_BUILD is
# set). STAGES instead names a build of the pipeline's `snapshot_stages` example (`cargo build
# --release -p pipeline --example snapshot_stages`: the same `pipeline::snapshot` call as `ckb
# snapshot`, without the CLI and without compiling DuckDB in release mode), run the same way.
# Needs git, rust-analyzer, ctags, python3, zstd and GNU time (/usr/bin/time).
set -euo pipefail

# shellcheck source=ci/lib.sh
. "$(dirname "$0")/lib.sh"
RUNS=5
WORK=""
parse_repo_args "$0 REPO [--work DIR] [--runs N]" "--work WORK" "--runs RUNS" -- "$@"
HERE=$(cd "$(dirname "$0")/.." && pwd)
TARGET=${CARGO_TARGET_DIR:-$HERE/target}
if [[ -n "${STAGES:-}" ]]; then
  CKB=$STAGES
elif [[ -z "${CKB:-}" ]]; then
  [[ -n "${SKIP_BUILD:-}" ]] || (cd "$HERE" && cargo build --release -q --bin ckb)
  CKB=$TARGET/release/ckb
fi
if [[ -z "$WORK" ]]; then
  WORK=$(mktemp -d)
  trap 'rm -rf "$WORK"' EXIT
fi
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
# Scratch stores of this invocation, removed at the end; the clone and the indexes stay.
RUNS_DIR=$WORK/runs
rm -rf "$RUNS_DIR"
mkdir -p "$RUNS_DIR"

# time_ms, wall, cpu, median, commit_one_file_change and the benchmark's git identity.
# shellcheck source=ci/syntax-bench-lib.sh
. "$HERE/ci/syntax-bench-lib.sh"

CLONE=$WORK/repo
SUBJECT="bench: one-file change"
[[ -d $CLONE ]] || git clone -q --no-hardlinks "$REPO" "$CLONE"
if [[ "$(git -C "$CLONE" log -1 --format=%s)" == "$SUBJECT" ]]; then
  BASE=$(git -C "$CLONE" rev-parse HEAD~1)
else
  BASE=$(git -C "$CLONE" rev-parse HEAD)
fi

# index SHA FILE: a rust-analyzer index of commit SHA (checked out for it) at FILE, with its
# `.commit` sidecar; kept when the sidecar already names SHA.
index() {
  local sha=$1 file=$2 indexed
  indexed=$(cat "$file.commit" 2>/dev/null || true)
  if [[ -f $file && "$indexed" == "$sha" ]]; then return; fi
  # An index of another commit with the same tree describes this one too (rust-analyzer reads
  # the files, not the commit): only the sidecar changes.
  if [[ -f $file && -n $indexed ]] && git -C "$CLONE" cat-file -e "$indexed^{commit}" 2>/dev/null \
    && [[ "$(git -C "$CLONE" rev-parse "$indexed^{tree}")" == "$(git -C "$CLONE" rev-parse "$sha^{tree}")" ]]; then
    echo "$sha" >"$file.commit"
    return
  fi
  echo "bench-commit: indexing $(basename "$file") (${sha:0:12}) with rust-analyzer scip" >&2
  git -C "$CLONE" checkout -q "$sha"
  rust_analyzer_scip "$CLONE" "$file" "$file.log" nice -n 10 || exit 1
  echo "$sha" >"$file.commit"
  # Build scripts' output (gitignored, so no snapshot reads it), gigabytes on large workspaces.
  rm -rf "$CLONE/target"
}

git -C "$CLONE" checkout -q "$BASE" 2>/dev/null || true
index "$BASE" "$WORK/base.scip"
git -C "$CLONE" checkout -q -B bench "$BASE"
if [[ -f $WORK/head.sha ]] && git -C "$CLONE" cat-file -e "$(cat "$WORK/head.sha")^{commit}" 2>/dev/null \
  && [[ "$(git -C "$CLONE" rev-parse "$(cat "$WORK/head.sha")~1")" == "$BASE" ]] \
  && (( $(git -C "$CLONE" log -1 --format=%ct "$(cat "$WORK/head.sha")") > $(git -C "$CLONE" log -1 --format=%ct "$BASE") )); then
  git -C "$CLONE" reset -q --hard "$(cat "$WORK/head.sha")"
  FILE=$(git -C "$CLONE" diff --name-only HEAD~1 HEAD)
else
  # Committed a minute after its parent, as CI would see it (a commit dated before its parent
  # would move the history window and time the git stage's re-walk instead).
  BASE_TIME=$(git -C "$CLONE" log -1 --format=%ct "$BASE")
  export GIT_AUTHOR_DATE="$((BASE_TIME + 60)) +0000" GIT_COMMITTER_DATE="$((BASE_TIME + 60)) +0000"
  FILE=$(commit_one_file_change "$CLONE")
  git -C "$CLONE" rev-parse HEAD >"$WORK/head.sha"
fi
HEAD_SHA=$(git -C "$CLONE" rev-parse HEAD)
index "$HEAD_SHA" "$WORK/head.scip"
git -C "$CLONE" checkout -q bench

if [[ -n "${STAGES:-}" ]]; then
  SNAP=("$STAGES" "$CLONE" --repo-id bench)
else
  SNAP=("$CKB" snapshot "$CLONE" --repo-id bench --json)
fi
snap() { "${SNAP[@]}" "$@"; }
# The base snapshots (with SCIP and tree-sitter only), each in a store of its own, as the
# previous run of a CI job leaves it.
git -C "$CLONE" checkout -q "$BASE"
snap --out "$RUNS_DIR/base-scip" --no-previous --scip "$WORK/base.scip" >/dev/null
snap --out "$RUNS_DIR/base-ts" --no-previous --no-scip >/dev/null
git -C "$CLONE" checkout -q bench
BASE_SCIP=$RUNS_DIR/base-scip/repo=bench/commit=$BASE
BASE_TS=$RUNS_DIR/base-ts/repo=bench/commit=$BASE

echo "repository: $REPO (base ${BASE:0:12}, one file changed: $FILE), runs: $RUNS, cpus: $(nproc), load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "index: $(stat -c %s "$WORK/head.scip") bytes; ckb: $CKB"

# Each timed run gets a store of its own, prepared untimed: the per-commit runs a copy of the
# base store (flushed first, so that its writeback does not land in the timed run).
prepare() { rm -rf "$RUNS_DIR/$2"; cp -a "$RUNS_DIR/$1" "$RUNS_DIR/$2"; sync; }
commit_scip() { snap --out "$RUNS_DIR/commit-scip-$1" --previous "$RUNS_DIR/commit-scip-$1/repo=bench/commit=$BASE" --scip "$WORK/head.scip"; }
full_scip() { snap --out "$RUNS_DIR/full-scip-$1" --no-previous --scip "$WORK/head.scip"; }
commit_ts() { snap --out "$RUNS_DIR/commit-ts-$1" --previous "$RUNS_DIR/commit-ts-$1/repo=bench/commit=$BASE" --no-scip; }
# The stages ctags' output compares with (files and definitions), as ci/bench-syntax.sh measures.
commit_syntax() { snap --out "$RUNS_DIR/commit-syn-$1" --previous "$RUNS_DIR/commit-syn-$1/repo=bench/commit=$BASE" --no-scip --stages scan,syntax; }
ctags_run() { ctags -R -f "$RUNS_DIR/tags" "$CLONE"; }
# peak_kib CMD...: the command's maximum resident set in KiB.
peak_kib() {
  /usr/bin/time -f '%M' -o "$RUNS_DIR/peak" "$@" >/dev/null 2>&1
  tail -1 "$RUNS_DIR/peak"
}

a=(); b=(); c=(); d=(); e=(); rss=()
for run in $(seq "$RUNS"); do
  prepare base-scip "commit-scip-$run"
  a+=("$(time_ms commit_scip "$run")")
  b+=("$(time_ms full_scip "$run")")
  prepare base-ts "commit-ts-$run"
  c+=("$(time_ms commit_ts "$run")")
  prepare base-ts "commit-syn-$run"
  e+=("$(time_ms commit_syntax "$run")")
  d+=("$(time_ms ctags_run)")
  prepare base-scip "peak-$run"
  rss+=("$(peak_kib "${SNAP[@]}" --out "$RUNS_DIR/peak-$run" --previous "$RUNS_DIR/peak-$run/repo=bench/commit=$BASE" --scip "$WORK/head.scip")")
  # Keep the first run's stores for the checks below; the others only cost disk.
  [[ $run == 1 ]] || rm -rf "$RUNS_DIR/commit-scip-$run" "$RUNS_DIR/full-scip-$run" "$RUNS_DIR/commit-ts-$run" "$RUNS_DIR/commit-syn-$run" "$RUNS_DIR/peak-$run"
done
A=$(median $(wall "${a[@]}")); B=$(median $(wall "${b[@]}")); C=$(median $(wall "${c[@]}")); D=$(median $(wall "${d[@]}")); E=$(median $(wall "${e[@]}"))
AC=$(median $(cpu "${a[@]}")); BC=$(median $(cpu "${b[@]}")); CC=$(median $(cpu "${c[@]}")); DC=$(median $(cpu "${d[@]}")); EC=$(median $(cpu "${e[@]}"))
PEAK=$(median "${rss[@]}")
printf '%-34s %8s %8s\n' "median of $RUNS" "wall ms" "cpu ms"
printf '%-34s %8s %8s\n' "per-commit snapshot, SCIP" "$A" "$AC" "full snapshot, SCIP" "$B" "$BC" \
  "per-commit snapshot, tree-sitter" "$C" "$CC" "per-commit scan+syntax stages" "$E" "$EC" \
  "ctags -R" "$D" "$DC"
echo "per-commit snapshot with SCIP: peak RSS $((PEAK / 1024)) MiB (median)"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

status=0
goal() { # goal LABEL VALUE LIMIT UNIT
  if python3 -c "import sys; sys.exit(not float(sys.argv[1]) <= float(sys.argv[2]))" "$2" "$3"; then
    echo "PASS: $1 $2$4 (goal <= $3$4)"
  else
    echo "FAIL: $1 $2$4 (goal <= $3$4)"
  fi
}
ratio() { python3 -c "import sys; print(f'{int(sys.argv[1]) / max(int(sys.argv[2]), 1):.3f}')" "$1" "$2"; }
goal "per-commit/full with SCIP (wall):" "$(ratio "$A" "$B")" 0.10 "x"
goal "per-commit/full with SCIP (cpu): " "$(ratio "$AC" "$BC")" 0.10 "x"
goal "per-commit tree-sitter/ctags (wall):" "$(ratio "$C" "$D")" 0.8 "x"
goal "per-commit tree-sitter/ctags (cpu): " "$(ratio "$CC" "$DC")" 0.8 "x"
goal "per-commit scan+syntax/ctags (wall):" "$(ratio "$E" "$D")" 0.8 "x"
goal "per-commit scan+syntax/ctags (cpu): " "$(ratio "$EC" "$DC")" 0.8 "x"
goal "per-commit with SCIP, peak RSS:" "$((PEAK / 1024))" 256 " MiB"

# The per-commit snapshots built on their previous ones, and wrote what a full run writes.
reused() { # reused SNAPSHOT: the syntax and SCIP reuse counts of its manifest
  zstd -qdc "$1/manifest.json.zst" | python3 -c '
import json, sys
m = json.load(sys.stdin)
chosen = (m.get("previous") or {}).get("chosenBy")
s = m["stages"]["syntax"]["counts"]
reused, total = s.get("files.reused", 0), s.get("files.total")
print(f"previous chosen by {chosen}; syntax files reused {reused} of {total}", end="")
c = m["stages"].get("scip", {}).get("counts", {})
if "documents" in c:
    reused, documents = c.get("documents.reused", 0), c["documents"]
    print(f"; scip documents reused {reused} of {documents}", end="")
print()
sys.exit(0 if chosen == "explicit" and s.get("files.reused") else 1)'
}
# stage_ms SNAPSHOT: its stages' wall milliseconds (run.json), in run order.
stage_ms() {
  python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["stageMillis"]
order = ["repo-state", "scan", "previous-verify", "syntax", "scip", "git", "identity", "modules", "write"]
print(" ".join(f"{k} {t[k]:.0f}" for k in order if k in t))' "$1/run.json"
}
HEAD_DIR=commit=$HEAD_SHA
echo "full (scip): stage ms: $(stage_ms "$RUNS_DIR/full-scip-1/repo=bench/$HEAD_DIR")"
for kind in scip ts; do
  inc=$RUNS_DIR/commit-$kind-1/repo=bench/$HEAD_DIR
  line=$(reused "$inc") || status=1
  echo "per-commit ($kind): $line"
  echo "  stage ms: $(stage_ms "$inc")"
done
full=$RUNS_DIR/full-scip-1/repo=bench/$HEAD_DIR
inc=$RUNS_DIR/commit-scip-1/repo=bench/$HEAD_DIR
same=yes
for f in "$full"/*.parquet "$full"/views/*; do
  rel=${f#"$full"/}
  case "$rel" in aliases.parquet | tombstones.parquet) continue ;; esac
  cmp -s "$f" "$inc/$rel" || { same=no; echo "  $rel differs between the per-commit and the full snapshot"; }
done
echo "per-commit tables and views byte-identical to the full snapshot's: $same"
[[ $same == yes ]] || status=1
rm -rf "$RUNS_DIR"
exit "$status"
