#!/usr/bin/env bash
# Installs the external tools the tests and checks use, idempotently, into $HOME/.cache:
#   - the stock DuckDB CLI (PyPI `duckdb-cli`), used by ci/check-duckdb-cli.sh;
#   - Debian's chromium and graphviz (apt), used by the picture tests: the report opened in a
#     headless browser, DOT rendered by `dot -Tsvg`;
#   - @mermaid-js/mermaid-cli and puppeteer-core (npm) into $tools/node, which drive that
#     chromium (no npm package may download a browser: PUPPETEER_SKIP_DOWNLOAD);
#   - SCIP indexers (ci/install-indexers.sh, when present), used by the SCIP end-to-end tests.
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

# chromium and graphviz from Debian; root runs apt-get itself, anyone else through sudo.
if ! command -v chromium >/dev/null 2>&1 || ! command -v dot >/dev/null 2>&1; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium graphviz fonts-dejavu-core >/dev/null
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

if [ -f ci/install-indexers.sh ]; then
  bash ci/install-indexers.sh
fi
