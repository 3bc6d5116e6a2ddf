#!/usr/bin/env bash
# Benchmark of the SCIP stage against a bare streaming decode of the same index.
#
#   ci/bench-scip.sh [ROOT INDEX]
#
# ROOT is the repository the index describes, INDEX the .scip file. Without arguments a real index
# is built first: ripgrep (pinned below) is cloned into a temp dir and indexed with
# `rust-analyzer scip` (ci/install-indexers.sh installs rust-analyzer).
#
# Each mode runs in its own process under /usr/bin/time -v; the modes run round-robin RUNS times
# (default 5), so load from other processes hits all alike, and medians are reported:
#   decode        bare streaming decode (pipeline::scip::reader + Document::parse_from_bytes, 1 thread):
#                 the baseline of the pass criterion, the streaming decode the SCIP issue describes
#                 (the index one top-level field at a time)
#   messages      a finer bare decode, for reference only: each document walked field by field, its
#                 occurrences and symbol informations decoded one at a time into reused messages (the
#                 way the stage decodes them); its ratio is printed, not judged
#   whole         Index::parse_from_bytes of the whole file (the scip crate's way)
#   stage         scan + pipeline::scip::run, output kept in memory (THREADS, default: all cores)
#   stage 1t      the same on 1 thread (the equal-thread comparison with decode)
#   stage 1t+rows the same, then the occurrences' row form (OccurrenceRow, which the merge builds),
#                 timed apart ("rows ms")
#   parse         scip::symbol::parse_symbol once per distinct global symbol, 1 thread (the part of
#                 the stage spent in the scip crate's symbol parser)
# "own" figures cover the measured part only (the stage's exclude the scan): wall ms, and CPU ms
# (user + system, all threads) from /proc/self/task/*/sched; "peak" is the process's maximum RSS.
# Pass criteria (exit 1 otherwise): on 1 thread, the stage's own wall time and own CPU time are each
# <= 2 x the decode's; and the stage's peak memory (all threads) is below the whole-file decode's.
set -euo pipefail

RUNS="${RUNS:-5}"
THREADS="${THREADS:-0}"
BENCH_REPO_URL="${BENCH_REPO_URL:-https://github.com/BurntSushi/ripgrep}"
BENCH_REV="${BENCH_REV:-3fce3b5bb0236da2df6d99672afb8a719642eca7}"
# shellcheck source=ci/lib.sh
. "$(dirname "$0")/lib.sh"
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
    rust_analyzer_scip "$work/repo" "$work/index.scip" "$work/index.log" || exit 1
    root="$work/repo"
    index="$work/index.scip"
fi

(cd "$here" && cargo build --release -q -p pipeline --example scip_bench)
bin="$target/release/examples/scip_bench"

median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

# run NAME ARGS...: one run; appends "own_ms own_cpu_ms rss_kb rows_ms" to $results/NAME and keeps
# the mode's output line in $results/NAME.line.
run() {
    local name="$1"; shift
    local log line
    log="$(mktemp)"
    line="$(/usr/bin/time -v "$bin" "$@" 2>"$log")"
    echo "$(sed -n 's/.* millis=\([0-9.]*\).*/\1/p' <<<"$line") \
$(sed -n 's/.*cpu_millis=\([0-9.]*\).*/\1/p' <<<"$line") \
$(awk -F': ' '/Maximum resident set size/ {print $2}' "$log") \
$(sed -n 's/.*rows_millis=\([0-9.-]*\).*/\1/p' <<<"$line")" >>"$results/$name"
    echo "$line" >"$results/$name.line"
    rm -f "$log"
}
# col NAME N: median of column N of NAME's runs ("-" when not numeric).
col() {
    if awk -v n="$2" '$n !~ /^[0-9]+(\.[0-9]+)?$/ {bad=1} END {exit !bad}' "$results/$1"; then echo "-"; return; fi
    awk -v n="$2" '{print $n}' "$results/$1" | median
}

size=$(stat -c %s "$index")
echo "index: $index ($((size / 1024)) KiB), root: $root, runs: $RUNS, threads: ${THREADS/#0/all} of $(nproc)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
results="$(mktemp -d)"
for _ in $(seq "$RUNS"); do
    run decode decode "$index"
    run messages messages "$index"
    run whole whole "$index"
    run stage stage "$root" "$index" "$THREADS"
    run stage1 stage "$root" "$index" 1
    run stage1rows stage "$root" "$index" 1 rows
    run parse parse "$index"
done

printf '%-24s %10s %10s %10s %10s\n' "mode" "own ms" "own cpu ms" "peak MiB" "rows ms"
for m in decode:"decode (streaming)" messages:"decode (by message)" whole:"whole-file decode" stage:"scip stage" \
    stage1:"scip stage, 1 thread" stage1rows:"stage 1t + row form" parse:"parse_symbol (1 thread)"; do
    name="${m%%:*}"
    rss="$(col "$name" 3)"; rss="${rss%.*}"
    printf '%-24s %10s %10s %10s %10s\n' "${m#*:}" "$(col "$name" 1)" "$(col "$name" 2)" \
        "$((rss / 1024))" "$(col "$name" 4)"
done
echo "decode: $(cat "$results/decode.line")"
echo "stage:  $(cat "$results/stage.line")"
echo "parse:  $(cat "$results/parse.line")"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores (wall times stretch under load; cpu ms much less)"

d_wall="$(col decode 1)"; d_cpu="$(col decode 2)"; w_rss="$(col whole 3)"; w_rss="${w_rss%.*}"
s1_wall="$(col stage1 1)"; s1_cpu="$(col stage1 2)"; s_rss="$(col stage 3)"; s_rss="${s_rss%.*}"; m_cpu="$(col messages 2)"
rm -rf "$results"
status=0
check() { # check LABEL STAGE DECODE
    if awk -v s="$2" -v d="$3" 'BEGIN { exit !(s <= 2 * d) }'; then
        echo "PASS: $1 $2 ms <= 2 x decode $3 ms ($(awk -v s="$2" -v d="$3" 'BEGIN {printf "%.2f", s / d}') x)"
    else
        echo "FAIL: $1 $2 ms > 2 x decode $3 ms ($(awk -v s="$2" -v d="$3" 'BEGIN {printf "%.2f", s / d}') x)"
        status=1
    fi
}
echo "for reference: stage CPU time, 1 thread, is $(awk -v s="$s1_cpu" -v d="$m_cpu" 'BEGIN {printf "%.2f", s / d}') x the by-message decode ($m_cpu ms)"
check "stage wall time, 1 thread," "$s1_wall" "$d_wall"
check "stage CPU time, 1 thread," "$s1_cpu" "$d_cpu"
ratio="$(awk -v s="$s_rss" -v w="$w_rss" 'BEGIN {printf "%.2f", s / w}')"
if [ "$s_rss" -lt "$w_rss" ]; then
    echo "PASS: stage peak $((s_rss / 1024)) MiB < whole-file decode peak $((w_rss / 1024)) MiB (${ratio} x)"
else
    echo "FAIL: stage peak $((s_rss / 1024)) MiB >= whole-file decode peak $((w_rss / 1024)) MiB (${ratio} x)"
    status=1
fi
exit "$status"
