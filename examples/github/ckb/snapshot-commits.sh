#!/usr/bin/env bash
# Snapshots every commit of the checked-out branch's first-parent history that the store does not
# have yet, oldest first, each against the one before it (so renames become aliases and deletions
# tombstones). The first run backfills at most $CKB_MAX_COMMITS commits (default 20). Then `ckb
# store gc` prunes the store to the last $CKB_KEEP_LAST snapshots (default 200) plus one per
# $CKB_KEEP_EVERY commits (default 20).
set -euo pipefail
source "$(dirname "$0")/common.sh"
mkdir -p "$store"
previous=""
new=0
for sha in $(git rev-list --first-parent --reverse --max-count="${CKB_MAX_COMMITS:-20}" HEAD); do
  before="$(find "$store" -name manifest.json.zst | wc -l)"
  previous="$(snapshot_commit "$sha" "$previous")"
  after="$(find "$store" -name manifest.json.zst | wc -l)"
  new=$((new + after - before))
done
# Keep the store (an artifact every run downloads and uploads) bounded: the newest snapshots, then
# one per $CKB_KEEP_EVERY commits of main; leftovers of killed runs go too.
"$ckb" store gc --store "$store" --repo-id "$repo_id" \
  --keep-last "${CKB_KEEP_LAST:-200}" --keep-every "${CKB_KEEP_EVERY:-20}" >&2
echo "$new new snapshot(s); the store holds $(find "$store" -name manifest.json.zst | wc -l)"
