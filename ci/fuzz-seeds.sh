#!/usr/bin/env bash
# Regenerates the committed seed corpora of the fuzz targets (fuzz/corpus/<target>/) from real
# output: SCIP indexes written by the real indexers (rust-analyzer, scip-typescript, scip-python)
# over tiny projects, the symbol strings in them, and a real snapshot (manifest, every table,
# scan cache) and `ckb init` config of a scripted two-commit repository. Seeds are kept small
# (libFuzzer grows its own corpus from them under $HOME/.cache/ckb-fuzz). The `sql_guard` seeds
# are not regenerated here: they are SQL attacks and reads, written by hand (one statement per
# file: a byte choosing the snapshot (`0`) or store (`1`) session, then the text, `@S`/`@T` for
# their folders), and `queries/tests/sql_guard.rs` mutates them in the normal suite.
#
#   ci/fuzz-seeds.sh [CKB_BINARY]     (default: cargo run's debug ckb)
#
# Needs git, and the indexers ci/install-indexers.sh installs.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
ckb=${1:-}
if [ -z "$ckb" ]; then
  cargo build -q -p ckb --manifest-path "$here/Cargo.toml"
  ckb="${CARGO_TARGET_DIR:-$here/target}/debug/ckb"
fi
indexers="${CKB_INDEXERS_DIR:-$HOME/.cache/ckb-indexers}/node_modules/.bin"
corpus="$here/fuzz/corpus"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

git_() { git -c user.name=seed -c user.email=seed@example.com -c init.defaultBranch=main \
  -c commit.gpgsign=false "$@"; }
export GIT_AUTHOR_DATE="2024-01-01T00:00:00Z" GIT_COMMITTER_DATE="2024-01-01T00:00:00Z"

mkdir -p "$corpus/scip_index" "$corpus/scip_symbol"
# The fixture projects the real-indexer tests use (tests/fixtures/scip/), each in a fresh
# git repository, indexed with the flags those tests use.
fixtures="$here/tests/fixtures/scip"
index_fixture() { # NAME OUT PROGRAM ARGS...
  local name=$1 out=$2; shift 2
  cp -r "$fixtures/$name" "$work/$name"
  git_ -C "$work/$name" init -q && git_ -C "$work/$name" add -A && git_ -C "$work/$name" commit -q -m fixture
  (cd "$work/$name" && "$@" >/dev/null 2>&1) || { echo "fuzz-seeds: $3 failed on $name" >&2; return 1; }
  cp "$work/$name/index.scip" "$corpus/scip_index/$out.scip"
}
index_fixture rust rust-analyzer rust-analyzer scip .
index_fixture ts scip-typescript "$indexers/scip-typescript" index
index_fixture py scip-python "$indexers/scip-python" index . --project-name fixture --project-version 0.1.0
# cache_entry: the syntax and SCIP document caches a real snapshot of the Rust fixture leaves
# (with its rust-analyzer index): each cache's index without its checksum (first byte 2), and the
# blobs of src/lib.rs, the file the target decodes them for (first byte 0: syntax, 1: SCIP).
"$ckb" snapshot "$work/rust" --repo-id seed >/dev/null
mkdir -p "$corpus/cache_entry"
python3 - "$work/rust/.ckb/snapshots/repo=seed" "$corpus/cache_entry" <<'PY'
import os, sys
store, out = sys.argv[1:]
def varint(b, i):
    v = s = 0
    while True:
        v |= (b[i] & 0x7f) << s; s += 7; i += 1
        if b[i - 1] < 0x80: return v, i
for cache, kind in (("syntax-cache", 0), ("scip-cache", 1)):
    d = os.path.join(store, cache)
    index = open(os.path.join(d, "index.bin"), "rb").read()
    open(f"{out}/{cache}-index", "wb").write(bytes([2]) + index[:-16])
    i = 8
    n, i = varint(index, i); i += n                      # identity
    segments = []
    count, i = varint(index, i)
    for _ in range(count):
        n, i = varint(index, i); name = index[i:i + n].decode(); i += n
        _, i = varint(index, i)
        segments.append(open(os.path.join(d, name), "rb").read())
    count, i = varint(index, i)
    for _ in range(count):
        i += 16
        seg, i = varint(index, i); off, i = varint(index, i); size, i = varint(index, i)
        i += 16
        blob = segments[seg][off:off + size]
        if b"src/lib.rs" in blob and b"src/shapes.rs" not in blob:
            open(f"{out}/{cache}-src-lib", "wb").write(bytes([kind]) + blob)
PY
# table_cache: the writer's own file of the rows the target encodes.
(cd "$here" && CKB_UPDATE_GOLDEN=1 cargo test -q -p ckb-fuzz --test corpus \
  the_table_cache_seed_is_the_writers_own_file_and_copied >/dev/null)
# Symbol strings: every 25th of the real symbols (valid and refused) whose parse the parser test
# pins (pipeline/tests/fixtures/scip/parse_symbol_golden.jsonl), and a local.
python3 - "$here/pipeline/tests/fixtures/scip/parse_symbol_golden.jsonl" "$corpus/scip_symbol" <<'PY'
import json, sys, zlib
for i, line in enumerate(open(sys.argv[1], encoding="utf-8")):
    if i % 25 == 0:
        s = json.loads(line)["symbol"].encode()
        open(f"{sys.argv[2]}/{zlib.crc32(s):08x}", "wb").write(s)
PY
printf 'local 12' >"$corpus/scip_symbol/local"

# A real snapshot of a scripted repository.
g="$work/repo"; mkdir -p "$g/src" "$g/tests"
git_ -C "$g" init -q
printf 'pub fn parse(s: &str) -> usize { s.len() }\npub fn run() -> usize { parse("x") }\n' >"$g/src/lib.rs"
printf 'def helper():\n    return 1\n' >"$g/tool.py"
git_ -C "$g" add -A && git_ -C "$g" commit -q -m one
printf 'fn main() { let _ = seed::run(); }\n' >"$g/src/main.rs"
printf '#[test] fn t() { assert_eq!(seed::parse("ab"), 2); }\n' >"$g/tests/t.rs"
git_ -C "$g" add -A && git_ -C "$g" commit -q -m two
"$ckb" snapshot "$g" --repo-id seed >/dev/null
snap=$(ls -d "$g"/.ckb/snapshots/repo=seed/commit=*)
mkdir -p "$corpus/manifest" "$corpus/table_parquet" "$corpus/scan_cache" "$corpus/config"
cp "$snap/manifest.json.zst" "$corpus/manifest/seed.json.zst"
cp "$g/.ckb/snapshots/repo=seed/scan-cache.json.zst" "$corpus/scan_cache/seed.json.zst"
# table_parquet: the first byte picks the table, in ALL_TABLES order (ckb schema's order).
i=0
for table in $("$ckb" schema --format json | python3 -c 'import json,sys; print(" ".join(t["name"] for t in json.load(sys.stdin)["tables"]))'); do
  if [ -f "$snap/$table.parquet" ]; then
    { printf "\\$(printf '%03o' "$i")"; cat "$snap/$table.parquet"; } >"$corpus/table_parquet/$table"
  fi
  i=$((i + 1))
done
(cd "$g" && "$ckb" init >/dev/null && cp .ckb/config.json "$corpus/config/default.json")
printf '{"repoId":"x","stages":["scan"],"history":{"days":1}}' >"$corpus/config/small.json"
du -sh "$corpus"/*
