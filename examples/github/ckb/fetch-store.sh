#!/usr/bin/env bash
# Restores the snapshot store uploaded by the newest successful run of the snapshot workflow on
# the main branch, so only new commits need snapshotting. Before the first such run there is
# nothing to restore and the store starts empty.
#   CKB_WORKFLOW  workflow file name   (default: ckb-snapshots.yml)
#   CKB_ARTIFACT  artifact name        (default: ckb-store)
#   CKB_BRANCH    branch               (default: main)
set -euo pipefail
source "$(dirname "$0")/common.sh"
mkdir -p "$store"
run_id="$(gh run list --workflow "${CKB_WORKFLOW:-ckb-snapshots.yml}" --branch "${CKB_BRANCH:-main}" \
  --status success --limit 1 --json databaseId --jq '.[0].databaseId // empty')"
if [ -z "$run_id" ]; then
  echo "no earlier successful run: starting with an empty store"
  exit 0
fi
gh run download "$run_id" --name "${CKB_ARTIFACT:-ckb-store}" --dir "$store"
echo "restored the store of run $run_id: $(find "$store" -name manifest.json.zst | wc -l) snapshot(s)"
