#!/usr/bin/env bash
# Installs the SCIP indexers that ckb's end-to-end SCIP tests and ci/bench-scip.sh use:
#   - @sourcegraph/scip-typescript and @sourcegraph/scip-python (npm) into $CKB_INDEXERS_DIR
#     (default: $HOME/.cache/ckb-indexers), so tests find them at
#     $CKB_INDEXERS_DIR/node_modules/.bin/scip-{typescript,python};
#   - rust-analyzer through rustup (its `rust-analyzer scip` subcommand).
# The versions are pinned: the tests' exact counts were written against them (test-support's
# PINNED_INDEXERS lists the same versions; a test checks the two agree). Idempotent: the pinned
# versions already present are left alone. A tool that cannot be installed (no network, no node) is
# reported; the tests that need it then fail under CI=true and skip loudly otherwise.
set -u

SCIP_TYPESCRIPT_VERSION=0.4.0
SCIP_PYTHON_VERSION=0.6.6
# rust-analyzer comes with the rustup toolchain and cannot be pinned here: another version is named.
RUST_ANALYZER_VERSION=1.95.0

dir="${CKB_INDEXERS_DIR:-$HOME/.cache/ckb-indexers}"
status=0

# The installed version of an npm package in $dir, or nothing.
npm_version() {
    sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$dir/node_modules/@sourcegraph/$1/package.json" 2>/dev/null | head -n 1
}

if command -v npm >/dev/null 2>&1 && command -v node >/dev/null 2>&1; then
    mkdir -p "$dir"
    if [ "$(npm_version scip-typescript)" = "$SCIP_TYPESCRIPT_VERSION" ] &&
        [ "$(npm_version scip-python)" = "$SCIP_PYTHON_VERSION" ]; then
        echo "install-indexers: pinned npm indexers already in $dir"
    else
        [ -f "$dir/package.json" ] || echo '{"name":"ckb-indexers","private":true}' >"$dir/package.json"
        if npm install --prefix "$dir" --no-audit --no-fund --loglevel=error --save-exact \
            "@sourcegraph/scip-typescript@$SCIP_TYPESCRIPT_VERSION" \
            "@sourcegraph/scip-python@$SCIP_PYTHON_VERSION"; then
            echo "install-indexers: installed scip-typescript and scip-python into $dir"
        else
            echo "install-indexers: npm install failed; the TypeScript/Python SCIP tests fail under CI=true" >&2
            status=1
        fi
    fi
else
    echo "install-indexers: node/npm not found; the TypeScript/Python SCIP tests fail under CI=true" >&2
    status=1
fi

if rust-analyzer --version >/dev/null 2>&1; then
    echo "install-indexers: rust-analyzer already installed ($(rust-analyzer --version))"
    case "$(rust-analyzer --version)" in
    "rust-analyzer $RUST_ANALYZER_VERSION "*) ;;
    *) echo "install-indexers: the tests' counts were written against rust-analyzer $RUST_ANALYZER_VERSION" >&2 ;;
    esac
elif command -v rustup >/dev/null 2>&1; then
    if rustup component add rust-analyzer; then
        echo "install-indexers: installed rust-analyzer ($(rust-analyzer --version 2>/dev/null))"
    else
        echo "install-indexers: rustup component add rust-analyzer failed; the Rust SCIP tests fail under CI=true" >&2
        status=1
    fi
else
    echo "install-indexers: rustup not found; the Rust SCIP tests fail under CI=true" >&2
    status=1
fi

exit "$status"
