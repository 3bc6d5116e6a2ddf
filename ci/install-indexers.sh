#!/usr/bin/env bash
# Installs the SCIP indexers that ckb's end-to-end SCIP tests and ci/bench-scip.sh use:
#   - @sourcegraph/scip-typescript and @sourcegraph/scip-python (npm) into $CKB_INDEXERS_DIR
#     (default: $HOME/.cache/ckb-indexers), so tests find them at
#     $CKB_INDEXERS_DIR/node_modules/.bin/scip-{typescript,python};
#   - rust-analyzer through rustup (its `rust-analyzer scip` subcommand).
# Idempotent: anything already present is left alone. A tool that cannot be installed (no network,
# no node) is reported and skipped; the tests that need it then print a notice and skip.
set -u

dir="${CKB_INDEXERS_DIR:-$HOME/.cache/ckb-indexers}"
status=0

if command -v npm >/dev/null 2>&1 && command -v node >/dev/null 2>&1; then
    mkdir -p "$dir"
    if [ -x "$dir/node_modules/.bin/scip-typescript" ] && [ -x "$dir/node_modules/.bin/scip-python" ]; then
        echo "install-indexers: npm indexers already in $dir"
    else
        [ -f "$dir/package.json" ] || echo '{"name":"ckb-indexers","private":true}' >"$dir/package.json"
        if npm install --prefix "$dir" --no-audit --no-fund --loglevel=error \
            @sourcegraph/scip-typescript @sourcegraph/scip-python; then
            echo "install-indexers: installed scip-typescript and scip-python into $dir"
        else
            echo "install-indexers: npm install failed; the TypeScript/Python SCIP tests will be skipped" >&2
            status=1
        fi
    fi
else
    echo "install-indexers: node/npm not found; the TypeScript/Python SCIP tests will be skipped" >&2
    status=1
fi

if rust-analyzer --version >/dev/null 2>&1; then
    echo "install-indexers: rust-analyzer already installed ($(rust-analyzer --version))"
elif command -v rustup >/dev/null 2>&1; then
    if rustup component add rust-analyzer; then
        echo "install-indexers: installed rust-analyzer ($(rust-analyzer --version 2>/dev/null))"
    else
        echo "install-indexers: rustup component add rust-analyzer failed; the Rust SCIP test will be skipped" >&2
        status=1
    fi
else
    echo "install-indexers: rustup not found; the Rust SCIP test will be skipped" >&2
    status=1
fi

exit "$status"
