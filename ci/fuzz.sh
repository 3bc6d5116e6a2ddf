#!/usr/bin/env bash
# Runs ckb's coverage-guided fuzz targets (fuzz/, libFuzzer through libfuzzer-sys) on the stable
# toolchain: the binaries are built with LLVM's SanitizerCoverage instrumentation passed as plain
# `-C` flags (what cargo-fuzz passes, minus the nightly-only sanitizers), with debug assertions and
# overflow checks on, so an arithmetic overflow is a finding too.
#
#   ci/fuzz.sh TARGET SECONDS      one target (see fuzz/src/lib.rs: TARGETS) for SECONDS
#   ci/fuzz.sh all SECONDS         every target but sql_guard, SECONDS each, one after the other
#   ci/fuzz.sh list                the targets
#   CKB_FUZZ_JOBS=N ci/fuzz.sh …   N fuzzer processes per target on one shared corpus
#
# DuckDB is never compiled for `all` (what `.ci/run` runs): those targets build `queries` without
# its `sql` feature. `sql_guard` (the SQL guard: DuckDB's parser behind `query()`) is opt-in: it
# builds with the feature in a target folder of its own, the first time for about as long as
# DuckDB takes to compile, with DuckDB's C++ instrumented as well when clang is installed
# (`apt-get install clang`; without it the fuzzer sees only ckb's own code and says so).
#
# Seeds: fuzz/corpus/<target>/ (committed, read only). The growing corpus and any crash go to
# ${CKB_FUZZ_DIR:-$HOME/.cache/ckb-fuzz}/{corpus,crashes}/<target>/, the instrumented build to its
# target/ folder (target-sql/ for sql_guard). Each run prints the executions it reached and
# appends a line to $CKB_FUZZ_DIR/ledger.tsv (date, commit, target, seconds, executions); with
# CKB_FUZZ_RECORD=1 the line also goes to fuzz/executions.tsv, the committed record of executions
# across runs.
# A crash (panic, abort, leak of the 2 GiB RSS limit, a 10 s hang) fails the script and names the
# input: copy it to fuzz/regressions/<target>/ so `cargo test` replays it, then fix the code.
# libFuzzer replays the whole corpus before the time box can end a run; each run says how long
# its replay took, and a replay longer than half the box minimises the corpus after the run
# (-merge=1) once it has grown by half since it was last minimised, so that a growing local
# corpus does not keep a time-boxed run from fuzzing. A fresh clone's corpus is the committed
# seeds, replayed in a moment.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
dir=${CKB_FUZZ_DIR:-$HOME/.cache/ckb-fuzz}
targets=$(sed -n 's/^name = "\(.*\)"$/\1/p' "$here/fuzz/Cargo.toml" | grep -v '^ckb-fuzz$')
opt_in=sql_guard

usage() { echo "usage: $0 TARGET|all SECONDS | $0 list" >&2; exit 2; }
[ "${1:-}" = list ] && { echo "$targets"; exit 0; }
[ $# -eq 2 ] || usage
what=$1 seconds=$2
[[ "$seconds" =~ ^[0-9]+$ ]] && [ "$seconds" -gt 0 ] || usage
if [ "$what" = all ]; then run=$(grep -vx "$opt_in" <<<"$targets"); else
  grep -qx "$what" <<<"$targets" || { echo "fuzz: no target '$what' (ci/fuzz.sh list)" >&2; exit 2; }
  run=$what
fi

host=$(rustc -vV | sed -n 's/^host: //p')
features=() target_dir="$dir/target" libfuzzer=()
if [ "$run" = "$opt_in" ]; then
  features=(--features sql) target_dir="$dir/target-sql"
  # libFuzzer's classic scheduler, not the entropic one: with DuckDB instrumented the corpus holds
  # thousands of inputs and some 280 000 features, and the entropic scheduler's bookkeeping
  # (InputCorpus::AddRareFeature, a walk over the whole corpus) took 36% of the run's time.
  libfuzzer=(-entropic=0)
  if command -v clang >/dev/null && command -v clang++ >/dev/null; then
    # DuckDB's parser and binder are C++: instrument them too, so that the fuzzer sees which
    # branches of the grammar an input reaches. Only DuckDB's sources (a wrapper picks them by
    # path): libFuzzer itself, also built by the C++ compiler, must stay uninstrumented.
    mkdir -p "$dir"
    cat >"$dir/cxx-duckdb-coverage" <<'WRAP'
#!/bin/sh
case "$*" in
  *duckdb*) exec clang++ -fsanitize-coverage=inline-8bit-counters,pc-table,trace-cmp "$@" ;;
  *) exec clang++ "$@" ;;
esac
WRAP
    chmod +x "$dir/cxx-duckdb-coverage"
    export CC=clang CXX="$dir/cxx-duckdb-coverage"
  else
    echo "fuzz: clang is not installed: DuckDB is built uninstrumented, so only ckb's own code guides the fuzzer (apt-get install clang)" >&2
  fi
fi
export CARGO_TARGET_DIR="$target_dir"
# --target keeps the instrumentation off build scripts and proc macros (they would not link).
export RUSTFLAGS="--cfg fuzzing -Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares -Cdebug-assertions -Coverflow-checks"
start=$(date +%s)
cargo build --release --manifest-path "$here/Cargo.toml" -p ckb-fuzz --bins "${features[@]}" --target "$host"
echo "fuzz: build took $(( $(date +%s) - start )) s"

commit=$(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)
jobs=${CKB_FUZZ_JOBS:-1}
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "fuzz: CKB_FUZZ_JOBS must be a positive number, not '$jobs'" >&2; exit 2; }
status=0
for t in $run; do
  mkdir -p "$dir/corpus/$t" "$dir/crashes/$t"
  # CKB_FUZZ_JOBS=N: N fuzzers on one shared corpus, each with its own log and ledger line
  # (libFuzzer picks up the others' new inputs when it reloads the corpus folder).
  pids=() logs=()
  t0=$(date +%s)
  for j in $(seq 1 "$jobs"); do
    if [ "$jobs" = 1 ]; then log="$dir/$t.log"; else log="$dir/$t.$j.log"; fi
    logs+=("$log")
    "$CARGO_TARGET_DIR/$host/release/$t" "$dir/corpus/$t" "$here/fuzz/corpus/$t" \
      -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
      -reload=60 "${libfuzzer[@]}" -artifact_prefix="$dir/crashes/$t/" >"$log" 2>&1 &
    pids+=($!)
  done
  # libFuzzer replays the whole corpus before it fuzzes and cannot stop during the replay, so a
  # large local corpus can outrun the time box: note when each fuzzer finished its replay
  # (its log's INITED line) to say so.
  declare -A replayed=()
  while :; do
    alive=0
    for j in "${!pids[@]}"; do
      if [ -z "${replayed[$j]:-}" ] && grep -qE '[[:space:]]INITED[[:space:]]' "${logs[$j]}" 2>/dev/null; then
        replayed[$j]=$(( $(date +%s) - t0 ))
      fi
      kill -0 "${pids[$j]}" 2>/dev/null && alive=1
    done
    [ $alive = 1 ] || break
    sleep 1
  done
  for j in "${!pids[@]}"; do
    log=${logs[$j]}
    set +e
    wait "${pids[$j]}"
    code=$?
    set -e
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    execs=${execs:-0}
    took=$(( $(date +%s) - t0 ))
    line="$(date -u +%Y-%m-%dT%H:%M:%SZ)	$commit	$t	$took	$execs"
    echo "$line" >>"$dir/ledger.tsv"
    [ "${CKB_FUZZ_RECORD:-0}" = 1 ] && echo "$line" >>"$here/fuzz/executions.tsv"
    if [ $code -ne 0 ]; then
      echo "fuzz: $t FAILED after $took s and $execs executions (exit $code); last lines of $log:" >&2
      tail -25 "$log" >&2
      echo "fuzz: the input is in $dir/crashes/$t/: copy it to fuzz/regressions/$t/ and fix the code" >&2
      status=1
    else
      echo "fuzz: $t ran $took s (replaying its corpus took the first ${replayed[$j]:-?} s): $execs executions, corpus $(ls "$dir/corpus/$t" | wc -l) inputs"
    fi
  done
  # A replay longer than half the box leaves the box to the replay: minimise the corpus
  # (libFuzzer's -merge=1 keeps the inputs that add coverage) so that the next run fuzzes more,
  # unless it has not grown by half since it was last minimised (a slow target's minimal corpus
  # can itself take longer than the box to replay; minimising it again would only cost a replay).
  before=$(ls "$dir/corpus/$t" | wc -l)
  last=$(cat "$dir/$t.minimised" 2>/dev/null || echo 0)
  if [ $status = 0 ] && [ "$jobs" = 1 ] && [ "${replayed[0]:-0}" -gt $(( seconds / 2 )) ] &&
    [ "$before" -gt $(( last * 3 / 2 )) ]; then
    m0=$(date +%s) merged="$dir/corpus/$t.merging"
    rm -rf "$merged" && mkdir -p "$merged"
    if "$CARGO_TARGET_DIR/$host/release/$t" -merge=1 -timeout=10 -rss_limit_mb=2048 \
      "${libfuzzer[@]}" "$merged" "$dir/corpus/$t" >"$dir/$t.merge.log" 2>&1; then
      rm -rf "$dir/corpus/$t" && mv "$merged" "$dir/corpus/$t"
      ls "$dir/corpus/$t" | wc -l >"$dir/$t.minimised"
      echo "fuzz: $t's replay took ${replayed[0]} of its $seconds s: minimised its corpus from $before to $(cat "$dir/$t.minimised") inputs in $(( $(date +%s) - m0 )) s"
    else
      rm -rf "$merged"
      echo "fuzz: minimising $t's corpus failed (see $dir/$t.merge.log); it is kept as it was" >&2
    fi
  fi
  unset replayed
done
exit $status
