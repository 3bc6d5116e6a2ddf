#!/usr/bin/env bash
# Whole-process latency of `ckb query symbol|search|refs` against a Python script using the duckdb
# package for the same lookups on the same Parquet files (ci/bench_query_duckdb.py).
# The bar: on a snapshot with >= 150k occurrences, each ckb median is at most half the peer's.
#
#   ci/bench-query.sh <snapshot-dir | repository>     (a repository is snapshotted first)
#
# Environment:
#   CKB      the ckb binary [default: build --release into $CARGO_TARGET_DIR or target/]. A release
#            build compiles bundled DuckDB at -O3 (30-60 min on 2 cores); these three commands never
#            call DuckDB, so BUILD=release-like measures the same code built over a dev target
#            folder (ci/lib.sh: ckb_binary). The README's figures come from such a build.
#   BUILD    release (default) or release-like, when CKB is not set
#   RUNS     timed runs per command and tool [default: 21]
#   VENV     venv holding the duckdb package [default: $HOME/.cache/ckb-bench-venv; created with
#            `python3 -m venv` and `pip install duckdb` when missing]
#   SEARCH   the search query [default: parse]
#   ID       the symbol for symbol/refs [default: the symbol with the most occurrences]
#
# Both tools run from a scratch folder outside the repository with an explicit snapshot, so ckb
# computes no working-tree freshness (the peer does not look at the working tree either); runs
# alternate between the tools so that machine noise hits both alike; one untimed warm-up run each
# fills the page cache. Each run is timed by the shell's own clock around the tool's process
# (ci/lib.sh): fork, exec, the answer and the exit, nothing else. Exit status 1 when a ratio misses the bar.
set -euo pipefail
# shellcheck source=ci/lib.sh
. "$(dirname "$0")/lib.sh"
runs="${RUNS:-21}"
venv="${VENV:-$HOME/.cache/ckb-bench-venv}"
search="${SEARCH:-parse}"
arg="${1:?usage: ci/bench-query.sh <snapshot-dir | repository>}"

ckb_binary "${BUILD:-release}"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import duckdb' 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet duckdb
fi
py="$venv/bin/python"
peer="$here/bench_query_duckdb.py"

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
if [ -f "$arg/manifest.json.zst" ]; then
  snapshot="$(cd "$arg" && pwd)"
else
  snapshot="$("$CKB" snapshot "$arg" --out "$scratch/store" --progress never | tail -n 1)"
fi
cd "$scratch"

occurrences="$("$CKB" query --snapshot "$snapshot" --format csv sql 'select count(*) from occurrences' | tail -n 1)"
id="${ID:-$("$py" "$peer" "$snapshot" pick | "$py" -c 'import json,sys; print(json.load(sys.stdin)["id"])')}"
echo "snapshot:    $snapshot"
echo "occurrences: $occurrences$([ "$occurrences" -lt 150000 ] && echo '  (below the 150k the bar is defined for)')"
echo "ckb:         $CKB"
echo "peer:        $py $peer (duckdb $("$py" -c 'import duckdb; print(duckdb.__version__)'))"
echo "symbol/refs: $id"
echo "search:      $search"
echo "runs:        $runs"
echo

# Microseconds of one whole-process run (output discarded; a failure aborts the benchmark).
run_us() {
  local s e
  s=${EPOCHREALTIME/[.,]/}
  "$@" >/dev/null
  e=${EPOCHREALTIME/[.,]/}
  echo $((e - s))
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

status=0
printf '%-8s %12s %12s %8s  %s\n' command "ckb ms" "duckdb ms" ratio verdict
for cmd in symbol search refs; do
  case "$cmd" in
    symbol) ckb_args=(symbol "$id"); peer_args=(symbol "$id") ;;
    search) ckb_args=(search "$search"); peer_args=(search "$search" 20) ;;
    refs) ckb_args=(refs "$id"); peer_args=(refs "$id" 20) ;;
  esac
  ckb_cmd=("$CKB" query --snapshot "$snapshot" --format json "${ckb_args[@]}")
  peer_cmd=("$py" "$peer" "$snapshot" "${peer_args[@]}")
  "${ckb_cmd[@]}" >/dev/null
  "${peer_cmd[@]}" >/dev/null
  : >"$scratch/ckb.$cmd"
  : >"$scratch/peer.$cmd"
  for _ in $(seq "$runs"); do
    run_us "${ckb_cmd[@]}" >>"$scratch/ckb.$cmd"
    run_us "${peer_cmd[@]}" >>"$scratch/peer.$cmd"
  done
  c=$(median <"$scratch/ckb.$cmd")
  p=$(median <"$scratch/peer.$cmd")
  ratio=$(awk -v c="$c" -v p="$p" 'BEGIN {printf "%.3f", c / p}')
  verdict=$(awk -v r="$ratio" 'BEGIN {print (r <= 0.5) ? "ok (<= 0.5)" : "MISSES the bar (> 0.5)"}')
  [ "${verdict#ok}" = "$verdict" ] && status=1
  printf '%-8s %12.1f %12.1f %8s  %s\n' "$cmd" "$(awk -v x="$c" 'BEGIN{print x/1000}')" \
    "$(awk -v x="$p" 'BEGIN{print x/1000}')" "$ratio" "$verdict"
done
exit $status
