#!/usr/bin/env bash
# Proves that two builds of ckb write the same snapshots: for each REPO, a cold snapshot, an
# anonymized one, a one-file commit that builds on the previous snapshot, and the JSON answers of
# a few queries, each made by BEFORE and by AFTER into stores of their own; every table, view and
# manifest must be byte-identical (run.json holds timings and the scan cache the build's identity:
# both are outside the determinism contract and left out).
#
#   ci/compare-snapshots.sh BEFORE_CKB AFTER_CKB REPO...
#
# Each REPO is cloned (git clone --local) into a scratch folder first, so the runs see the same
# clean checkout. Needs git. Exits 1 on the first difference, naming the file.
set -euo pipefail
[[ $# -ge 3 ]] || { echo "usage: $0 BEFORE_CKB AFTER_CKB REPO..." >&2; exit 2; }
before=$(realpath "$1") after=$(realpath "$2"); shift 2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
export CKB_SALT=compare-snapshots-salt GIT_AUTHOR_DATE="2024-01-01T00:00:00Z" \
  GIT_COMMITTER_DATE="2024-01-01T00:00:00Z"
git_() { git -c user.name=compare -c user.email=compare@example.com -c commit.gpgsign=false "$@"; }

# same DIR_A DIR_B WHAT: every snapshot file under the two stores is equal.
same() {
  local a=$1 b=$2 what=$3 n=0
  while IFS= read -r f; do
    case "$f" in */run.json | */scan-cache.json.zst | */.lock-*) continue ;; esac
    cmp -s "$a/$f" "$b/$f" || { echo "DIFFERENT ($what): $f" >&2; exit 1; }
    n=$((n + 1))
  done < <(cd "$a" && find . -type f | sort)
  [ "$(cd "$a" && find . -type f | grep -cv -e run.json -e scan-cache -e '\.lock-')" = \
    "$(cd "$b" && find . -type f | grep -cv -e run.json -e scan-cache -e '\.lock-')" ] ||
    { echo "DIFFERENT ($what): the stores hold different files" >&2; exit 1; }
  echo "same ($what): $n files"
}

for repo in "$@"; do
  name=$(basename "$repo")
  src="$work/$name"
  git clone -q --local "$repo" "$src"
  for build in before after; do
    bin=${!build}
    # Both builds write to the same folder names (answers name the snapshot's folder).
    "$bin" snapshot "$src" --out "$work/store" --repo-id "$name" >/dev/null
    for q in status "search main" "arch" "hotspots" "dead-code"; do
      # shellcheck disable=SC2086
      (cd "$src" && "$bin" query --store "$work/store" --format json $q \
        >"$work/$build-answer-${q// /-}.json" 2>&1 || true)
    done
    mv "$work/store" "$work/$build-cold"
    "$bin" snapshot "$src" --out "$work/store" --repo-id "$name" --privacy anonymized >/dev/null
    mv "$work/store" "$work/$build-anon"
  done
  same "$work/before-cold" "$work/after-cold" "$name cold"
  same "$work/before-anon" "$work/after-anon" "$name anonymized"
  for q in status search-main arch hotspots dead-code; do
    cmp -s "$work/before-answer-$q.json" "$work/after-answer-$q.json" ||
      { echo "DIFFERENT ($name): ckb query $q" >&2; diff "$work/before-answer-$q.json" "$work/after-answer-$q.json" | head -20 >&2; exit 1; }
  done
  echo "same ($name): query answers"
  # A one-file commit on top, snapshotted with the cold one as --previous.
  first=$(find "$src" -name '*.rs' -o -name '*.py' -o -name '*.ts' | grep -v '/\.' | sort | head -1)
  if [ -n "$first" ]; then
    printf '\n// compare-snapshots\n' >>"$first"
    git_ -C "$src" commit -qam "one file"
    for build in before after; do
      bin=${!build}
      cp -r "$work/$build-cold" "$work/store"
      prev=$(ls -d "$work/store/repo=$name"/commit=* | head -1)
      "$bin" snapshot "$src" --out "$work/store" --repo-id "$name" --previous "$prev" >/dev/null
      mv "$work/store" "$work/$build-incr"
    done
    same "$work/before-incr" "$work/after-incr" "$name incremental"
  fi
  rm -rf "$work"/before-* "$work"/after-* "$src"
done
