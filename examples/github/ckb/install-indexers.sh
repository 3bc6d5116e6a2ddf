#!/usr/bin/env bash
# Installs the SCIP indexers `ckb index` runs, at the versions ckb is tested with, and puts them
# on PATH for the later steps of the job ($GITHUB_PATH):
#   - scip-typescript and scip-python (npm) into $CKB_INDEXERS_DIR (default ~/.cache/ckb-indexers,
#     the folder the workflows cache, keyed on the versions below);
#   - rust-analyzer, the rustup component of the toolchain in use.
# Idempotent: what is already there at the pinned version is left alone, so a restored cache
# costs no download. Languages whose indexer is not installed are covered by tree-sitter.
#   CKB_INDEXERS       the indexers to install (default: "rust-analyzer scip-typescript scip-python")
#   CKB_INDEXERS_DIR   where the npm indexers go
set -uo pipefail

SCIP_TYPESCRIPT_VERSION=0.4.0
SCIP_PYTHON_VERSION=0.6.6
# From rustup's toolchain; ckb's tests were written against this one.
RUST_ANALYZER_VERSION=1.95.0

dir="${CKB_INDEXERS_DIR:-$HOME/.cache/ckb-indexers}"
wanted=" ${CKB_INDEXERS:-rust-analyzer scip-typescript scip-python} "
status=0

want() { case "$wanted" in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

# The installed version of an npm indexer in $dir, or nothing.
npm_version() {
    sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$dir/node_modules/@sourcegraph/$1/package.json" 2>/dev/null | head -n 1
}

packages=()
want scip-typescript && [ "$(npm_version scip-typescript)" != "$SCIP_TYPESCRIPT_VERSION" ] &&
    packages+=("@sourcegraph/scip-typescript@$SCIP_TYPESCRIPT_VERSION")
want scip-python && [ "$(npm_version scip-python)" != "$SCIP_PYTHON_VERSION" ] &&
    packages+=("@sourcegraph/scip-python@$SCIP_PYTHON_VERSION")
if [ "${#packages[@]}" -gt 0 ]; then
    if command -v npm >/dev/null 2>&1; then
        mkdir -p "$dir"
        [ -f "$dir/package.json" ] || echo '{"name":"ckb-indexers","private":true}' >"$dir/package.json"
        if npm install --prefix "$dir" --no-audit --no-fund --loglevel=error --save-exact "${packages[@]}"; then
            echo "install-indexers: installed ${packages[*]} into $dir"
        else
            echo "install-indexers: npm install ${packages[*]} failed" >&2
            status=1
        fi
    else
        echo "install-indexers: npm not found: ${packages[*]} not installed" >&2
        status=1
    fi
fi
for tool in scip-typescript scip-python; do
    want "$tool" && [ -x "$dir/node_modules/.bin/$tool" ] &&
        echo "install-indexers: $tool $("$dir/node_modules/.bin/$tool" --version)"
done
if [ -n "${GITHUB_PATH:-}" ] && [ -d "$dir/node_modules/.bin" ]; then
    echo "$dir/node_modules/.bin" >>"$GITHUB_PATH"
fi

if want rust-analyzer; then
    if ! rust-analyzer --version >/dev/null 2>&1; then
        if command -v rustup >/dev/null 2>&1 && rustup component add rust-analyzer; then
            :
        else
            echo "install-indexers: rustup component add rust-analyzer failed" >&2
            status=1
        fi
    fi
    if rust-analyzer --version >/dev/null 2>&1; then
        echo "install-indexers: $(rust-analyzer --version)"
        case "$(rust-analyzer --version)" in
        "rust-analyzer $RUST_ANALYZER_VERSION "*) ;;
        *) echo "install-indexers: ckb was tested with rust-analyzer $RUST_ANALYZER_VERSION" >&2 ;;
        esac
    fi
fi
exit "$status"
