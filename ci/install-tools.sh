#!/usr/bin/env bash
# Installs the external tools the tests and checks use, idempotently, into $HOME/.cache:
#   - the stock DuckDB CLI (PyPI `duckdb-cli`), used by ci/check-duckdb-cli.sh;
#   - SCIP indexers (ci/install-indexers.sh, when present), used by the SCIP end-to-end tests;
#   - the sources of three small real packages (ci/fetch-example-repos.sh), which the example
#     workflow test indexes and snapshots.
set -euo pipefail
cd "$(dirname "$0")/.."
tools="${CKB_TOOLS_DIR:-$HOME/.cache/ckb-tools}"
# The version tests/golden/sql was checked against.
DUCKDB_CLI_VERSION=1.5.6
mkdir -p "$tools"

if ! "$tools/venv/bin/duckdb" -version 2>/dev/null | grep -q "^v$DUCKDB_CLI_VERSION "; then
  python3 -m venv "$tools/venv"
  "$tools/venv/bin/pip" install --quiet --disable-pip-version-check "duckdb-cli==$DUCKDB_CLI_VERSION"
fi
echo "duckdb CLI: $("$tools/venv/bin/duckdb" -version)"

if [ -f ci/install-indexers.sh ]; then
  bash ci/install-indexers.sh
fi

bash ci/fetch-example-repos.sh
