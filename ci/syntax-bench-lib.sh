# Shell helpers shared by ci/bench-syntax.sh, ci/bench-store-size.sh and ci/compare-syntax-builds.sh
# (sourced, not run).

# bench_setup CARGO_BUILD_ARGS... : sets $HERE (the checkout) and $TARGET (cargo's target folder),
# builds pipeline's release examples with CARGO_BUILD_ARGS unless SKIP_BUILD is set, reads
# SNAPSHOT_CMD (default: the snapshot_stages example) into the array $SNAP, and makes $WORK, a
# scratch folder removed on exit.
bench_setup() {
  HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  TARGET=${CARGO_TARGET_DIR:-$HERE/target}
  if [[ -z "${SKIP_BUILD:-}" ]]; then
    (cd "$HERE" && cargo build --release -q -p pipeline "$@")
  fi
  read -ra SNAP <<< "${SNAPSHOT_CMD:-$TARGET/release/examples/snapshot_stages}"
  WORK=$(mktemp -d)
  trap 'rm -rf "$WORK"' EXIT
}

# time_ms CMD... : "WALL CPU" milliseconds of one run (CPU = user + sys of the command's processes,
# from the subshell's `times`; CPU time is far less sensitive to machine load than wall time).
# CMD may be a shell function. Needs $WORK, a scratch folder.
time_ms() {
  local s e
  s=$(date +%s%N)
  ( "$@" >/dev/null 2>&1; times ) > "$WORK/cpu"
  e=$(date +%s%N)
  echo "$(( (e - s) / 1000000 )) $(tail -1 "$WORK/cpu" | python3 -c '
import re, sys
secs = [int(m) * 60 + float(s) for m, s in re.findall(r"(\d+)m([\d.]+)s", sys.stdin.read())]
print(int(sum(secs) * 1000))')"
}

# wall RESULT... / cpu RESULT... : the wall or the CPU milliseconds of time_ms results.
wall() { for x in "$@"; do echo "${x% *}"; done; }
cpu() { for x in "$@"; do echo "${x#* }"; done; }

# median N... : the median of integers, as an integer.
median() { python3 -c 'import sys,statistics; print(int(statistics.median(int(x) for x in sys.argv[1:])))' "$@"; }

# A fixed identity and clock for the benchmark's commits.
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.invalid GIT_COMMITTER_NAME=bench \
  GIT_COMMITTER_EMAIL=bench@example.invalid GIT_AUTHOR_DATE=2026-01-01T00:00:00Z \
  GIT_COMMITTER_DATE=2026-01-01T00:00:00Z

# commit_one_file_change CLONE : appends a function to the median-sized supported source file of
# the git checkout CLONE, commits it, and prints that file's path.
commit_one_file_change() {
  local clone=$1 file
  file=$(cd "$clone" && git ls-files '*.rs' '*.py' '*.ts' '*.go' '*.java' '*.js' '*.c' '*.cc' '*.cpp' \
    | xargs ls -S 2>/dev/null \
    | awk '{ f[NR] = $0 } END { print f[int((NR + 1) / 2)] }')
  case "$file" in
    *.rs) echo 'fn bench_added(x: u32) -> u32 { x + 1 }' >> "$clone/$file" ;;
    *.py) printf '\n\ndef bench_added(x):\n    return x + 1\n' >> "$clone/$file" ;;
    *.go) printf '\nfunc benchAdded(x int) int { return x + 1 }\n' >> "$clone/$file" ;;
    *.c | *.cc | *.cpp) printf '\nint bench_added(int x) { return x + 1; }\n' >> "$clone/$file" ;;
    *) printf '\nfunction benchAdded(x) { return x + 1; }\n' >> "$clone/$file" ;;
  esac
  git -C "$clone" commit -qam "bench: one-file change"
  echo "$file"
}
