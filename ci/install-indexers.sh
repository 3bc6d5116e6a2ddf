#!/usr/bin/env bash
# Installs the SCIP indexers that ckb's end-to-end SCIP tests, `ckb index` tests and
# ci/bench-scip.sh / ci/bench-index.sh use, at the pinned versions: the same script the GitHub
# workflow examples run (examples/github/ckb/install-indexers.sh, which holds the versions;
# output-schema's indexer catalog names the same ones and a test checks they agree), into
# $CKB_INDEXERS_DIR (default: $HOME/.cache/ckb-indexers), where the tests find
# node_modules/.bin/scip-{typescript,python}. A tool that cannot be installed (no network, no
# node) is reported; the tests that need it then fail under CI=true and skip loudly otherwise.
set -u
cd "$(dirname "$0")/.."
if ! bash examples/github/ckb/install-indexers.sh; then
    echo "install-indexers: some indexers are missing; the SCIP tests that need them fail under CI=true" >&2
    exit 1
fi
