#!/usr/bin/env bash
# Benchmark of the SCIP stage against a bare streaming decode of the same index.
#
#   ci/bench-scip.sh [ROOT INDEX]
#
# ROOT is the repository the index describes, INDEX the .scip file. Without arguments a real index
# is built first: ripgrep (pinned below) is cloned into a temp dir and indexed with
# `rust-analyzer scip` (ci/install-indexers.sh installs rust-analyzer).
#
# Three processes are measured, each RUNS times (default 5) under /usr/bin/time -v, medians reported:
#   decode  bare streaming decode (pipeline::scip::reader + Document::parse_from_bytes, 1 thread)
#   whole   Index::parse_from_bytes of the whole file (the scip crate's way)
#   stage   scan + pipeline::scip::run, all rows kept in memory (THREADS, default: all cores)
#   parse   scip::symbol::parse_symbol once per distinct global symbol (the part of the stage
#           spent in the scip crate's symbol parser)
# Pass criteria (exit 1 otherwise): stage time <= 2 x decode time (the stage's own time, scan
# excluded), and stage peak memory below the whole-file decode's.
set -euo pipefail

RUNS="${RUNS:-5}"
THREADS="${THREADS:-0}"
BENCH_REPO_URL="${BENCH_REPO_URL:-https://github.com/BurntSushi/ripgrep}"
BENCH_REV="${BENCH_REV:-3fce3b5bb0236da2df6d99672afb8a719642eca7}"
here="$(cd "$(dirname "$0")/.." && pwd)"
target="${CARGO_TARGET_DIR:-$here/target}"

if [ $# -ge 2 ]; then
    root="$1"
    index="$2"
else
    work="$(mktemp -d)"
    trap 'rm -rf "$work"' EXIT
    echo "bench-scip: cloning $BENCH_REPO_URL at $BENCH_REV" >&2
    git clone -q "$BENCH_REPO_URL" "$work/repo"
    git -C "$work/repo" checkout -q "$BENCH_REV"
    echo "bench-scip: indexing with rust-analyzer scip" >&2
    (cd "$work/repo" && rust-analyzer scip . --output "$work/index.scip" >/dev/null 2>&1)
    root="$work/repo"
    index="$work/index.scip"
fi

(cd "$here" && cargo build --release -q -p pipeline --example scip_bench)
bin="$target/release/examples/scip_bench"

median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

# run MODE ARGS... -> prints "inner_ms wall_ms rss_kb" medians and the mode's last output line.
measure() {
    local mode="$1"; shift
    local inner=() wall=() rss=() cpu=() line=""
    for _ in $(seq "$RUNS"); do
        local log
        log="$(mktemp)"
        line="$(/usr/bin/time -v "$bin" "$mode" "$@" 2>"$log")"
        inner+=("$(sed -n 's/.*millis=\([0-9]*\).*/\1/p' <<<"$line")")
        wall+=("$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,t,":"); s=0; for(i=1;i<=n;i++) s=s*60+t[i]; printf "%d", s*1000}' "$log")")
        rss+=("$(awk -F': ' '/Maximum resident set size/ {print $2}' "$log")")
        cpu+=("$(awk -F': ' '/User time \(seconds\)|System time \(seconds\)/ {s+=$2} END {printf "%d", s*1000}' "$log")")
        rm -f "$log"
    done
    echo "$(printf '%s\n' "${inner[@]}" | median) $(printf '%s\n' "${wall[@]}" | median) $(printf '%s\n' "${rss[@]}" | median) $(printf '%s\n' "${cpu[@]}" | median)"
    echo "$line"
}

size=$(stat -c %s "$index")
echo "index: $index ($((size / 1024)) KiB), root: $root, runs: $RUNS, threads: ${THREADS/#0/all}"
out="$(measure decode "$index")"
read -r d_in d_wall d_rss d_cpu <<<"$(head -1 <<<"$out")"
d_line="$(tail -1 <<<"$out")"
out="$(measure whole "$index")"
read -r w_in w_wall w_rss w_cpu <<<"$(head -1 <<<"$out")"
out="$(measure stage "$root" "$index" "$THREADS")"
read -r s_in s_wall s_rss s_cpu <<<"$(head -1 <<<"$out")"
s_line="$(tail -1 <<<"$out")"
out="$(measure parse "$index")"
read -r p_in p_wall p_rss p_cpu <<<"$(head -1 <<<"$out")"
p_line="$(tail -1 <<<"$out")"
out="$(measure stage "$root" "$index" 1)"
read -r s1_in s1_wall s1_rss s1_cpu <<<"$(head -1 <<<"$out")"

printf '%-24s %10s %10s %10s %10s\n' "mode" "own ms" "wall ms" "cpu ms" "peak MiB"
printf '%-24s %10s %10s %10s %10s\n' "decode (streaming)" "$d_in" "$d_wall" "$d_cpu" "$((d_rss / 1024))"
printf '%-24s %10s %10s %10s %10s\n' "whole-file decode" "$w_in" "$w_wall" "$w_cpu" "$((w_rss / 1024))"
printf '%-24s %10s %10s %10s %10s\n' "scip stage" "$s_in" "$s_wall" "$s_cpu" "$((s_rss / 1024))"
printf '%-24s %10s %10s %10s %10s\n' "scip stage, 1 thread" "$s1_in" "$s1_wall" "$s1_cpu" "$((s1_rss / 1024))"
printf '%-24s %10s %10s %10s %10s\n' "parse_symbol (in stage)" "$p_in" "-" "-" "-"
echo "decode: $d_line"
echo "stage:  $s_line"
echo "parse:  $p_line"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores (wall times stretch under load; cpu ms do not)"

status=0
if awk -v s="$s_in" -v d="$d_in" 'BEGIN { exit !(s <= 2 * d) }'; then
    echo "PASS: stage time $s_in ms <= 2 x decode $d_in ms"
else
    echo "FAIL: stage time $s_in ms > 2 x decode $d_in ms"
    status=1
fi
if [ "$s_rss" -lt "$w_rss" ]; then
    echo "PASS: stage peak $((s_rss / 1024)) MiB < whole-file decode peak $((w_rss / 1024)) MiB"
else
    echo "FAIL: stage peak $((s_rss / 1024)) MiB >= whole-file decode peak $((w_rss / 1024)) MiB"
    status=1
fi
exit "$status"
