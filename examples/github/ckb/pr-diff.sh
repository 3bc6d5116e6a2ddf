#!/usr/bin/env bash
# Writes the pull-request comment: snapshots the merge base of BASE_SHA and HEAD_SHA (unless the
# store restored from main already has it) and the head (against the base, so renames are
# recognised), then runs `ckb diff` into $CKB_OUT/ckb-diff.md (the comment, at most
# $CKB_MAX_CHARS characters, default 60000) and $CKB_OUT/ckb-diff.json (every fact).
set -euo pipefail
source "$(dirname "$0")/common.sh"
: "${BASE_SHA:?the base commit of the pull request}"
head="${HEAD_SHA:-$(git rev-parse HEAD)}"
base="$(git merge-base "$BASE_SHA" "$head")"
mkdir -p "$store" "$out_dir"
base_dir="$(snapshot_commit "$base")"
head_dir="$(snapshot_commit "$head" "$base_dir")"
"$ckb" diff "$base_dir" "$head_dir" --format markdown --max-chars "${CKB_MAX_CHARS:-60000}" > "$out_dir/ckb-diff.md"
"$ckb" diff "$base_dir" "$head_dir" --format json > "$out_dir/ckb-diff.json"
echo "diff of ${base:0:7}..${head:0:7} written to $out_dir/ckb-diff.md ($(wc -c < "$out_dir/ckb-diff.md") bytes)"
