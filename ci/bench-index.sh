#!/usr/bin/env bash
# Benchmark of `ckb index`'s own cost: the whole `ckb index` process against the indexers it runs,
# run by hand with the same flags and environment (the `command` of each run in its JSON report).
#
#   ci/bench-index.sh REPO [LANGUAGES]
#
# REPO is a git checkout (e.g. `fetch github:tokio-rs/tokio`, then `git clone` the bare copy);
# LANGUAGES (comma-separated) limits the indexers as `--languages` does. The indexers must be on
# PATH (ci/install-indexers.sh; its npm indexers are in ~/.cache/ckb-indexers/node_modules/.bin,
# which this script puts first on PATH). A warm-up `ckb index --force` runs first (it also
# fills the cargo target folder rust-analyzer's build scripts use, in ckb's cache); then, RUNS times
# (default 3) round-robin, so load from other processes hits both alike:
#   by-hand   every command of the warm-up's report, one after the other (as `--jobs 1` runs them)
#   ckb       `ckb index --force` (scan, version probes, runs, reading and installing each index)
# Whole-process wall times under /usr/bin/time; medians are reported, with ckb's overhead over the
# indexers' own time. Pass criterion (exit 1 otherwise): overhead <= 5%. Since load from other
# processes moves both medians by more than 5% on a shared machine, ckb's own time is also
# reported: each timed `ckb index` minus the wall time of the indexer runs in its JSON report
# (scan, version probes, reading and installing each index), which load barely moves.
#   CKB   the ckb binary (default: $CARGO_TARGET_DIR/release/ckb if built, else the debug one,
#         built when missing)
set -euo pipefail

if [ $# -lt 1 ]; then
    sed -n '2,20p' "$0" >&2
    exit 2
fi
repo="$(cd "$1" && pwd)"
languages="${2:-}"
RUNS="${RUNS:-3}"
here="$(cd "$(dirname "$0")/.." && pwd)"
target="${CARGO_TARGET_DIR:-$here/target}"
export PATH="${CKB_INDEXERS_DIR:-$HOME/.cache/ckb-indexers}/node_modules/.bin:$PATH"

ckb="${CKB:-}"
if [ -z "$ckb" ]; then
    if [ -x "$target/release/ckb" ]; then
        ckb="$target/release/ckb"
    else
        (cd "$here" && cargo build -q --bin ckb)
        ckb="$target/debug/ckb"
    fi
fi
args=(index "$repo" --force --progress never)
[ -n "$languages" ] && args+=(--languages "$languages")

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "bench-index: warm-up: $ckb ${args[*]}" >&2
"$ckb" "${args[@]}" --json >"$work/report.json"
python3 - "$work/report.json" >"$work/commands" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
for run in report["runs"]:
    if run["status"] == "indexed":
        print(run["command"])
    elif run["status"] != "missing":
        sys.exit(f"bench-index: {run['tool']} {run['status']}: {run.get('reason', '')}")
PY
if [ ! -s "$work/commands" ]; then
    echo "bench-index: no indexer ran (none installed for the languages of $repo?)" >&2
    exit 1
fi
echo "bench-index: by hand, in $repo:" >&2
sed 's/^/  /' "$work/commands" >&2

median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
# timed FILE CMD...: appends the wall seconds of CMD to FILE.
timed() {
    local file="$1"; shift
    /usr/bin/time -f %e -o "$work/t" "$@" >"$work/out.json" 2>/dev/null
    cat "$work/t" >>"$file"
}

for i in $(seq "$RUNS"); do
    timed "$work/by-hand" bash -c "cd '$repo' && set -e && $(paste -sd';' "$work/commands")"
    timed "$work/ckb" "$ckb" "${args[@]}" --json
    python3 - "$work/out.json" "$(tail -n1 "$work/ckb")" >>"$work/own" <<'PY'
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
print(round(float(sys.argv[2]) - sum(r["seconds"] for r in runs if r["status"] == "indexed"), 2))
PY
    echo "bench-index: round $i: by hand $(tail -n1 "$work/by-hand") s, ckb $(tail -n1 "$work/ckb") s (its own $(tail -n1 "$work/own") s)" >&2
done

hand=$(median <"$work/by-hand")
own=$(median <"$work/ckb")
overhead=$(awk -v a="$own" -v b="$hand" 'BEGIN {printf "%.1f", (a / b - 1) * 100}')
echo "repo: $repo ($(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo no git)), runs: $RUNS, ckb: $ckb"
self=$(median <"$work/own")
echo "indexers by hand: median $hand s; ckb index: median $own s; overhead: $overhead %"
echo "ckb's own time (ckb index minus its indexer runs): median $self s, $(awk -v a="$self" -v b="$hand" 'BEGIN {printf "%.1f", a / b * 100}') % of the indexers' time"
awk -v o="$overhead" 'BEGIN {exit !(o <= 5)}' || { echo "FAIL: overhead above 5%"; exit 1; }
echo "PASS: overhead <= 5%"
