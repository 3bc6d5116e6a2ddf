#!/usr/bin/env bash
# Fetches the sources of three small real packages, one per language `ckb index` is tested with
# end to end (tests/examples.rs: a fresh clone of each goes through the example workflow, `ckb
# index` then `ckb snapshot`), from their registries through the registries' own clients, and
# unpacks each into $CKB_EXAMPLE_REPOS_DIR/<name>-<version>/ (default ~/.cache/ckb-example-repos).
# Versions and SHA-256 checksums are pinned: a download that does not match is refused. Already
# unpacked packages are left alone, so reruns need no network.
#   immer 10.1.1  (npm, TypeScript sources under src/, no tsconfig in the package)
#   tomli 2.0.1   (PyPI sdist, a src/ layout)
#   heck 0.5.0    (crates.io, no dependencies)
set -euo pipefail

dir="${CKB_EXAMPLE_REPOS_DIR:-$HOME/.cache/ckb-example-repos}"
mkdir -p "$dir/downloads"

IMMER_VERSION=10.1.1
IMMER_SHA256=946cc79684ad1e080b09d4f2da14247b272aa667f3aaa100f35846148689f08f
TOMLI_VERSION=2.0.1
TOMLI_SHA256=de526c12914f0c550d15924c62d72abc48d6fe7364aa87328337a31007fe8a4f
HECK_VERSION=0.5.0
HECK_SHA256=2304e00983f87ffb38b55b444b5e3b60a884b5d30c0fca7d82fe33449bbe55ea

# check FILE SHA256: refuses a file whose checksum differs.
check() {
    local got
    got="$(sha256sum "$1" | cut -d' ' -f1)"
    if [ "$got" != "$2" ]; then
        echo "fetch-example-repos: $1 has SHA-256 $got, expected $2" >&2
        rm -f "$1"
        exit 1
    fi
}

# unpack ARCHIVE NAME: extracts into $dir/NAME, dropping the archive's top folder.
unpack() {
    local tmp
    tmp="$(mktemp -d "$dir/.unpack-XXXXXX")"
    tar -xzf "$1" -C "$tmp" --strip-components=1
    rm -rf "${dir:?}/$2"
    mv "$tmp" "$dir/$2"
    echo "fetch-example-repos: unpacked $dir/$2"
}

if [ ! -d "$dir/immer-$IMMER_VERSION" ]; then
    archive="$dir/downloads/immer-$IMMER_VERSION.tgz"
    if [ ! -f "$archive" ]; then
        (cd "$dir/downloads" && npm pack --silent "immer@$IMMER_VERSION" >/dev/null)
    fi
    check "$archive" "$IMMER_SHA256"
    unpack "$archive" "immer-$IMMER_VERSION"
fi

if [ ! -d "$dir/tomli-$TOMLI_VERSION" ]; then
    archive="$dir/downloads/tomli-$TOMLI_VERSION.tar.gz"
    if [ ! -f "$archive" ]; then
        python3 -m pip download --quiet --disable-pip-version-check --no-deps --no-binary :all: \
            -d "$dir/downloads" "tomli==$TOMLI_VERSION"
    fi
    check "$archive" "$TOMLI_SHA256"
    unpack "$archive" "tomli-$TOMLI_VERSION"
fi

if [ ! -d "$dir/heck-$HECK_VERSION" ]; then
    archive="$dir/downloads/heck-$HECK_VERSION.crate"
    if [ ! -f "$archive" ]; then
        # cargo fetches (and checks against the registry index) what a package depending on
        # exactly this version needs; the .crate then sits in cargo's download cache.
        project="$(mktemp -d)"
        mkdir -p "$project/src"
        printf '[package]\nname = "fetch-heck"\nversion = "0.0.0"\nedition = "2021"\n\n[dependencies]\nheck = "=%s"\n' \
            "$HECK_VERSION" >"$project/Cargo.toml"
        : >"$project/src/lib.rs"
        (cd "$project" && cargo fetch --quiet)
        cp "$(find "${CARGO_HOME:-$HOME/.cargo}/registry/cache" -name "heck-$HECK_VERSION.crate" | head -n 1)" "$archive"
        rm -rf "$project"
    fi
    check "$archive" "$HECK_SHA256"
    unpack "$archive" "heck-$HECK_VERSION"
fi
