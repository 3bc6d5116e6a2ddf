#!/usr/bin/env bash
# Writes ckb's self-contained HTML report of the store — architecture graph, hotspots, the API
# changes and risk of the newest commit, the trend across the snapshots — to
# $CKB_OUT/ckb-report.html (default: $RUNNER_TEMP), which the workflow uploads as an artifact.
set -euo pipefail
source "$(dirname "$0")/common.sh"
mkdir -p "$out_dir"
"$ckb" report --store "$store" --repo-id "$repo_id" --output "$out_dir/ckb-report.html"
