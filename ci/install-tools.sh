#!/usr/bin/env bash
# Installs the external tools the tests and checks use, idempotently, into $HOME/.cache:
#   - the stock DuckDB CLI (PyPI `duckdb-cli`), used by ci/check-duckdb-cli.sh;
#   - the MCP clients `ckb mcp` is tested with (tests/cli_mcp.rs): the official Python SDK (PyPI
#     `mcp`, in the same venv) and the MCP Inspector (npm `@modelcontextprotocol/inspector`, for
#     its `--cli` mode; it declares node >= 22 but its CLI runs on the node 20 CI has);
#   - SCIP indexers (ci/install-indexers.sh, when present), used by the SCIP end-to-end tests;
#   - the sources of three small real packages (ci/fetch-example-repos.sh), which the example
#     workflow test indexes and snapshots.
# The versions are pinned (test-support's PINNED_MCP_CLIENTS lists the same; a test checks).
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

MCP_PYTHON_SDK_VERSION=2.3.0
if [ "$("$tools/venv/bin/python" -c "import importlib.metadata as m; print(m.version('mcp'))" 2>/dev/null)" != "$MCP_PYTHON_SDK_VERSION" ]; then
  "$tools/venv/bin/pip" install --quiet --disable-pip-version-check "mcp==$MCP_PYTHON_SDK_VERSION"
fi
echo "MCP Python SDK: $MCP_PYTHON_SDK_VERSION"

MCP_INSPECTOR_VERSION=2.12.0
inspector="$tools/inspector"
installed_inspector=$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$inspector/node_modules/@modelcontextprotocol/inspector/package.json" 2>/dev/null | head -n 1)
if [ "$installed_inspector" != "$MCP_INSPECTOR_VERSION" ]; then
  if command -v npm >/dev/null 2>&1; then
    mkdir -p "$inspector"
    [ -f "$inspector/package.json" ] || echo '{"name":"ckb-tools-inspector","private":true}' >"$inspector/package.json"
    npm install --prefix "$inspector" --no-audit --no-fund --loglevel=error --save-exact \
      "@modelcontextprotocol/inspector@$MCP_INSPECTOR_VERSION"
  else
    echo "install-tools: npm not found; the MCP Inspector tests fail under CI=true" >&2
  fi
fi
echo "MCP Inspector: $MCP_INSPECTOR_VERSION"

if [ -f ci/install-indexers.sh ]; then
  bash ci/install-indexers.sh
fi

bash ci/fetch-example-repos.sh
