#!/usr/bin/env bash
# Search-quality evaluation of `ckb query search` on real repositories with their real SCIP
# indexes: for every query of ci/eval-search/queries.tsv (the definition a user typing it means,
# chosen by hand), the rank at which ckb returns that definition; mean reciprocal rank (MRR) and
# top-1 accuracy per repository and over all. The goal: MRR >= 0.97 and top-1 >= 95% over all
# (exit status 1 when missed).
#
#   ci/eval-search.sh [REPO...]          (default: every repository of ci/eval-search/repos.tsv)
#
# Each repository (ci/eval-search/repos.tsv: name, URL, pinned commit, indexer) is fetched at its
# commit, indexed with the pinned indexer (rust-analyzer; scip-typescript and scip-python from
# ci/install-indexers.sh), snapshotted by ckb with that index, then queried. Clones and indexes
# are kept in EVAL_DIR and reused; snapshots are rebuilt on every run (--force).
#
# Environment:
#   CKB           the ckb binary [default: `cargo build -p ckb` into $CARGO_TARGET_DIR or target/]
#   CKB_BASELINE  another ckb binary (say, main's) whose ranking is printed beside as "before";
#                 it snapshots the same clones with the same indexes into a store of its own
#   EVAL_DIR      work folder for clones, indexes and stores [default: $HOME/.cache/ckb-eval-search]
#   EVAL_SOURCES  a folder holding clones named like the repositories (<dir>/tokio, …) to clone
#                 from instead of GitHub; they must contain the pinned commits
#   CKB_INDEXERS_DIR  where ci/install-indexers.sh put the npm indexers [$HOME/.cache/ckb-indexers]
set -euo pipefail
# shellcheck source=ci/lib.sh
. "$(dirname "$0")/lib.sh"
repos_file="$here/eval-search/repos.tsv"
queries_file="$here/eval-search/queries.tsv"
work="${EVAL_DIR:-$HOME/.cache/ckb-eval-search}"
indexers="${CKB_INDEXERS_DIR:-$HOME/.cache/ckb-indexers}/node_modules/.bin"
mkdir -p "$work/clones" "$work/indexes"

ckb_binary debug
if [ -n "${CKB_BASELINE:-}" ]; then
  CKB_BASELINE="$(cd "$(dirname "$CKB_BASELINE")" && pwd)/$(basename "$CKB_BASELINE")"
fi

# clone NAME URL COMMIT: the repository at COMMIT in $work/clones/NAME (detached HEAD).
clone() {
  local name="$1" url="$2" commit="$3" dir="$work/clones/$1"
  if [ -d "$dir/.git" ] && [ "$(git -C "$dir" rev-parse HEAD)" = "$commit" ]; then
    return
  fi
  rm -rf "$dir"
  if [ -n "${EVAL_SOURCES:-}" ]; then
    git clone -q --no-checkout "$EVAL_SOURCES/$name" "$dir"
  else
    git init -q "$dir"
    git -C "$dir" fetch -q --depth 1 "$url" "$commit"
  fi
  git -C "$dir" -c advice.detachedHead=false checkout -q "$commit"
}

# index NAME INDEXER COMMIT: prints the path of the repository's SCIP index, built once per commit.
index() {
  local name="$1" indexer="$2" commit="$3" dir="$work/clones/$1"
  local out="$work/indexes/$name-$commit.scip"
  if [ ! -s "$out" ]; then
    local started=$SECONDS
    case "$indexer" in
      rust-analyzer) (cd "$dir" && rust-analyzer scip . --output "$out.tmp") >"$out.log" 2>&1 ;;
      scip-typescript) (cd "$dir" && "$indexers/scip-typescript" index --output "$out.tmp") >"$out.log" 2>&1 ;;
      scip-python)
        (cd "$dir" && "$indexers/scip-python" index . --project-name "$name" --output "$out.tmp") \
          >"$out.log" 2>&1 ;;
      *) echo "eval-search: unknown indexer $indexer" >&2; exit 2 ;;
    esac
    mv "$out.tmp" "$out"
    echo "eval-search: indexed $name with $indexer in $((SECONDS - started)) s" >&2
  fi
  echo "$out"
}

# snapshot CKB STORE NAME INDEX COMMIT: prints the snapshot folder.
snapshot() {
  "$1" snapshot "$work/clones/$3" --out "$2" --scip "$4" --scip-commit "$5" --force \
    --stages scan,syntax,scip,identity,modules --progress never | tail -n 1
}

selected=("$@")
scores="$work/scores.txt"
: >"$scores"
while IFS=$'\t' read -r name url commit indexer; do
  case "$name" in '' | '#'*) continue ;; esac
  if [ ${#selected[@]} -gt 0 ] && [[ ! " ${selected[*]} " == *" $name "* ]]; then
    continue
  fi
  echo "== $name ($url @ ${commit:0:12}, $indexer)"
  clone "$name" "$url" "$commit"
  scip="$(index "$name" "$indexer" "$commit")"
  after="$(snapshot "$CKB" "$work/store-after" "$name" "$scip" "$commit")"
  args=("$queries_file" "$name" "$after" "$CKB")
  if [ -n "${CKB_BASELINE:-}" ]; then
    before="$(snapshot "$CKB_BASELINE" "$work/store-before" "$name" "$scip" "$commit")"
    args+=("$before" "$CKB_BASELINE")
  fi
  python3 "$here/eval_search.py" "${args[@]}" | tee -a "$scores" | grep -v '^SCORE '
  echo
done <"$repos_file"

# Over all queries: MRR and top-1 weighted by each repository's query count.
grep '^SCORE ' "$scores" | awk -v goal_mrr=0.97 -v goal_top1=0.95 '
  { n += $3; mrr += $3 * $4; top1 += $3 * $5; if (NF >= 7) { bm += $3 * $6; bt += $3 * $7; b = 1 } }
  END {
    if (n == 0) { print "eval-search: no query was scored"; exit 1 }
    line = sprintf("all: %d queries, MRR %.3f, top-1 %.0f%%", n, mrr / n, 100 * top1 / n)
    if (b) line = line sprintf(" (before: MRR %.3f, top-1 %.0f%%)", bm / n, 100 * bt / n)
    ok = (mrr / n >= goal_mrr && top1 / n >= goal_top1)
    print line "  goal MRR >= " goal_mrr ", top-1 >= " goal_top1 * 100 "%: " (ok ? "met" : "MISSED")
    exit ok ? 0 : 1
  }'
