#!/usr/bin/env bash
# Proves that two builds of ckb write the same snapshots: for each REPO, a cold snapshot, an
# anonymized one, a one-file commit that builds on the previous snapshot, the JSON answers of
# every `ckb query` command and the results of every canned `.sql` file, each made by BEFORE and
# by AFTER into stores of their own; every table, view and manifest must be byte-identical
# (run.json holds timings, and the scan cache and the syntax and SCIP caches' index.bin the build's
# identity: they are outside the determinism contract and left out).
#
#   ci/compare-snapshots.sh BEFORE_CKB AFTER_CKB REPO...
#
# Each REPO is cloned (git clone --local) into a scratch folder first, so the runs see the same
# clean checkout. Needs git. Every difference is reported (a file, or an answer with the first
# lines of its diff); the exit code is 1 when there was any, 0 when everything is the same.
set -euo pipefail
[[ $# -ge 3 ]] || { echo "usage: $0 BEFORE_CKB AFTER_CKB REPO..." >&2; exit 2; }
before=$(realpath "$1") after=$(realpath "$2"); shift 2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
export CKB_SALT=compare-snapshots-salt GIT_AUTHOR_DATE="2024-01-01T00:00:00Z" \
  GIT_COMMITTER_DATE="2024-01-01T00:00:00Z"
git_() { git -c user.name=compare -c user.email=compare@example.com -c commit.gpgsign=false "$@"; }
differences=0

# same DIR_A DIR_B WHAT: every snapshot file under the two stores is equal.
same() {
  local a=$1 b=$2 what=$3 n=0 bad=0
  while IFS= read -r f; do
    case "$f" in */run.json | */scan-cache.json.zst | */*-cache/index.bin | */.lock-*) continue ;; esac
    n=$((n + 1))
    cmp -s "$a/$f" "$b/$f" || { echo "DIFFERENT ($what): $f"; bad=$((bad + 1)); }
  done < <(cd "$a" && find . -type f | sort)
  [ "$(cd "$a" && find . -type f | grep -cv -e run.json -e scan-cache -e '-cache/index.bin' -e '\.lock-')" = \
    "$(cd "$b" && find . -type f | grep -cv -e run.json -e scan-cache -e '-cache/index.bin' -e '\.lock-')" ] ||
    { echo "DIFFERENT ($what): the stores hold different files"; bad=$((bad + 1)); }
  [ "$bad" = 0 ] && echo "same ($what): $n files"
  differences=$((differences + bad))
}

# answers BUILD SRC FIRST: every command's JSON answer and every canned query's rows, one file
# each under $work/BUILD-answers/ (errors are answers too: their JSON is compared the same way).
answers() {
  local build=$1 src=$2 first=$3 bin=${!1} out="$work/$1-answers" q name
  mkdir -p "$out"
  while IFS= read -r q; do
    name=${q// /_}; name=${name//\//-}
    # shellcheck disable=SC2086 # each line is the words of one command
    (cd "$src" && "$bin" query --store "$work/store" --format json $q >"$out/$name.json" 2>&1 || true)
  done <<EOF
status
doctor
symbol main
search main
refs main
impact main
callers main
callees main
hierarchy main
understand main
prepare-change main
affected-tests $first
explore $first
arch
hotspots
coupling $first
ownership $first
dead-code
batch-search main run
EOF
  for name in api_changes churn_trend coupling dead_code hotspots module_fan; do
    (cd "$src" && "$bin" query --store "$work/store" --format json canned "$name" \
      >"$out/canned_$name.json" 2>&1 || true)
  done
}

for repo in "$@"; do
  name=$(basename "$repo")
  src="$work/$name"
  git clone -q --local "$repo" "$src"
  first=$(cd "$src" && git ls-files '*.rs' '*.py' '*.ts' | sed -n 1p)
  for build in before after; do
    bin=${!build}
    # Both builds write to the same folder names (answers name the snapshot's folder).
    "$bin" snapshot "$src" --out "$work/store" --repo-id "$name" >/dev/null
    answers "$build" "$src" "$first"
    mv "$work/store" "$work/$build-cold"
    "$bin" snapshot "$src" --out "$work/store" --repo-id "$name" --privacy anonymized >/dev/null
    mv "$work/store" "$work/$build-anon"
  done
  same "$work/before-cold" "$work/after-cold" "$name cold"
  same "$work/before-anon" "$work/after-anon" "$name anonymized"
  n=0 bad=0
  for f in "$work"/before-answers/*.json; do
    a=$(basename "$f") n=$((n + 1))
    cmp -s "$f" "$work/after-answers/$a" && continue
    bad=$((bad + 1))
    echo "DIFFERENT ($name): ${a%.json}"
    diff "$f" "$work/after-answers/$a" | head -20 || true
  done
  [ "$bad" = 0 ] && echo "same ($name): $n answers"
  differences=$((differences + bad))
  # A one-file commit on top, snapshotted with the cold one as --previous.
  if [ -n "$first" ]; then
    printf '\n// compare-snapshots\n' >>"$src/$first"
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
[ "$differences" = 0 ] || { echo "$differences difference(s)" >&2; exit 1; }
