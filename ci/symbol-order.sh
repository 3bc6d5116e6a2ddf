#!/usr/bin/env bash
# Writes link/ckb.order: the functions `ckb query` runs, hottest first, for the linker to lay out
# side by side (build.rs passes the file to lld as --symbol-ordering-file).
#
#   ci/symbol-order.sh CKB SNAPSHOT [ROUNDS]
#
# CKB is a release build of ckb; SNAPSHOT a snapshot of a real repository (tokio's is the one the
# query benchmark uses). Each round samples (perf record) `--version`, `search`, `symbol` and `refs`
# on it; functions are ranked by how many rounds' samples they appear in, ties by name. Names are
# the mangled ones the linker sees. Rerun after a toolchain or dependency update (names that no
# longer exist are passed over, so a stale list only costs speed). Needs perf.
set -euo pipefail
ckb=${1:?usage: ci/symbol-order.sh CKB SNAPSHOT [ROUNDS]}
snapshot=${2:?usage: ci/symbol-order.sh CKB SNAPSHOT [ROUNDS]}
rounds=${3:-15}
out="$(cd "$(dirname "$0")/.." && pwd)/link/ckb.order"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
q=("$ckb" query --snapshot "$snapshot" --format json)
id=$("${q[@]}" search parse | python3 -c 'import json, sys; print(json.load(sys.stdin)["drilldowns"][0]["command"].split()[-1])')
n=0
for _ in $(seq "$rounds"); do
  for args in "--version" "search parse" "search spawn" "symbol $id" "refs $id"; do
    n=$((n + 1))
    if [[ $args == --version ]]; then cmd=("$ckb" --version); else read -ra a <<<"$args"; cmd=("${q[@]}" "${a[@]}"); fi
    perf record -q -F 49000 -o "$scratch/$n.data" -- "${cmd[@]}" >/dev/null 2>&1
    perf report -i "$scratch/$n.data" --no-demangle --no-children --dso "$(basename "$ckb")" \
      --sort sym -F sym 2>/dev/null | sed -n 's/^ *\[\.\] *\([^ ]*\).*/\1/p' | grep -v '^0x' | sort -u >>"$scratch/all"
  done
done
sort "$scratch/all" | uniq -c | sort -k1,1nr -k2,2 | awk '{print $2}' >"$out"
echo "symbol-order: $(wc -l <"$out") functions from $n sampled runs -> $out"
