#!/usr/bin/env bash
# Prints the identity stage's figures: share of scripted renames recovered and false redirects
# (scripted history and a seeded synthetic history of 400 functions x 12 commits), and the
# SCIP/tree-sitter agreement on real rust-analyzer output (skipped without rust-analyzer).
# Usage: ci/identity-metrics.sh   (honours CARGO_TARGET_DIR)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test -q -p pipeline \
    --test identity_history --test identity_metrics --test identity_rust_analyzer \
    -- --nocapture 2>&1 | grep -oE '(identity |SKIPPED).*'
