#!/usr/bin/env bash
# Installs the external tools the tests and checks use, idempotently, into $HOME/.cache:
#   - the stock DuckDB CLI (PyPI `duckdb-cli`), used by ci/check-duckdb-cli.sh;
#   - Debian's chromium and graphviz (apt), used by the picture tests: the report opened in a
#     headless browser, DOT rendered by `dot -Tsvg`; and binutils (`nm`, `readelf`: how
#     tests/linking.rs reads the binary), which the C compiler the build needs usually brings;
#   - @mermaid-js/mermaid-cli and puppeteer-core (npm) into $tools/node, which drive that
#     chromium (no npm package may download a browser: PUPPETEER_SKIP_DOWNLOAD);
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
# The versions test-support's PINNED_NODE_TOOLS expects (a test checks the two agree).
MERMAID_CLI_VERSION=12.2.0
PUPPETEER_CORE_VERSION=25.16.0
mkdir -p "$tools"

if ! "$tools/venv/bin/duckdb" -version 2>/dev/null | grep -q "^v$DUCKDB_CLI_VERSION "; then
  python3 -m venv "$tools/venv"
  "$tools/venv/bin/pip" install --quiet --disable-pip-version-check "duckdb-cli==$DUCKDB_CLI_VERSION"
fi
echo "duckdb CLI: $("$tools/venv/bin/duckdb" -version)"

# chromium, graphviz and binutils from Debian; root runs apt-get itself, anyone else through sudo.
if ! command -v chromium >/dev/null 2>&1 || ! command -v dot >/dev/null 2>&1 \
  || ! command -v nm >/dev/null 2>&1 || ! command -v readelf >/dev/null 2>&1; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium graphviz fonts-dejavu-core binutils >/dev/null
fi
echo "chromium: $(chromium --version 2>/dev/null | head -n 1); graphviz: $(dot -V 2>&1)"

# The installed version of an npm package in $tools/node, or nothing.
node_version() {
  sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$tools/node/node_modules/$1/package.json" 2>/dev/null | head -n 1
}
if [ "$(node_version @mermaid-js/mermaid-cli)" != "$MERMAID_CLI_VERSION" ] ||
  [ "$(node_version puppeteer-core)" != "$PUPPETEER_CORE_VERSION" ]; then
  mkdir -p "$tools/node"
  [ -f "$tools/node/package.json" ] || echo '{"name":"ckb-tools","private":true}' >"$tools/node/package.json"
  PUPPETEER_SKIP_DOWNLOAD=1 npm install --prefix "$tools/node" --no-audit --no-fund --loglevel=error --save-exact \
    "@mermaid-js/mermaid-cli@${MERMAID_CLI_VERSION}" "puppeteer-core@${PUPPETEER_CORE_VERSION}"
fi
echo "mermaid-cli $(node_version @mermaid-js/mermaid-cli), puppeteer-core $(node_version puppeteer-core) in $tools/node"
MCP_PYTHON_SDK_VERSION=2.3.0
if [ "$("$tools/venv/bin/python" -c "import importlib.metadata as m; print(m.version('mcp'))" 2>/dev/null)" != "$MCP_PYTHON_SDK_VERSION" ]; then
  "$tools/venv/bin/pip" install --quiet --disable-pip-version-check "mcp==$MCP_PYTHON_SDK_VERSION"
fi
echo "MCP Python SDK: $MCP_PYTHON_SDK_VERSION"

MCP_INSPECTOR_VERSION=2.12.0
inspector="$tools/inspector"
# `|| true`: on a fresh machine the file is absent, sed fails, and under pipefail the assignment
# would end the script (set -e) before anything is installed.
installed_inspector=$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$inspector/node_modules/@modelcontextprotocol/inspector/package.json" 2>/dev/null | head -n 1 || true)
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
