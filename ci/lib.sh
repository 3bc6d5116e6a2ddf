# Shell helpers shared by the scripts in ci/ (sourced, not run): where the checkout is, which ckb
# binary to run, and the `REPO [--flag VALUE]...` command line of the benchmarks.
# Sourcing sets $here (this folder, ci/) and $root (the checkout).
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"

# The benchmarks read the time as ${EPOCHREALTIME/[.,]/} (microseconds, bash 5's own clock): no
# process starts to read it, so a timed run carries none of the timer's cost. A `$(date +%s%N)`
# pair around each run added about 1.5 ms (two fork+exec of date) to every sample of every tool.
if [ -z "${EPOCHREALTIME:-}" ]; then
  echo "ci: bash 5 or newer is needed (\$EPOCHREALTIME); this is bash $BASH_VERSION" >&2
  exit 2
fi

# ckb_binary release|release-like|debug: sets $CKB to the ckb binary to measure. A $CKB already set
# is kept (made absolute when it is a path, so it still works after a `cd`); otherwise ckb is built
# with that cargo profile into $CARGO_TARGET_DIR (default: the checkout's target/).
#
# release-like: the dev profile with every Rust crate compiled as release compiles it (opt-level
# 3, no debug assertions, no overflow checks) and DuckDB's C++ kept at the dev profile's settings.
# For the commands that never call DuckDB (`query symbol|search|refs`) it runs the release
# binary's code, and over an existing dev target folder it builds in minutes where a release
# build compiles DuckDB at -O3 (30-60 min on 2 cores). The first build still compiles DuckDB once
# at the dev settings: the overrides also reach its build script's dependencies.
ckb_binary() {
  if [ -z "${CKB:-}" ]; then
    local build=(--quiet -p ckb) dir=$1
    case "$1" in
      release) build+=(--release) ;;
      release-like)
        dir=debug
        build+=(--config 'profile.dev.opt-level=3' --config 'profile.dev.debug=false'
          --config 'profile.dev.debug-assertions=false' --config 'profile.dev.overflow-checks=false'
          --config 'profile.dev.package."*".opt-level=3'
          --config 'profile.dev.package."*".debug-assertions=false'
          --config 'profile.dev.package."*".overflow-checks=false')
        ;;
    esac
    (cd "$root" && cargo build "${build[@]}")
    CKB="${CARGO_TARGET_DIR:-$root/target}/$dir/ckb"
  fi
  if [[ "$CKB" == */* ]]; then
    CKB="$(cd "$(dirname "$CKB")" && pwd)/$(basename "$CKB")"
  fi
}

# parse_repo_args USAGE '--flag VAR'... -- ARGS...: the script's command line `REPO [--flag
# VALUE]...`. Sets $REPO to the repository (absolute) and each VAR named by its flag to the value
# given; anything else, or no repository, prints `usage: USAGE` and exits 2. Variables keep the
# defaults the script set before for flags not given.
parse_repo_args() {
  local usage="usage: $1" flag
  local -A var_of=()
  shift
  while [ "$1" != -- ]; do
    flag="${1%% *}"
    var_of[$flag]="${1#* }"
    shift
  done
  shift
  [ $# -ge 1 ] || { echo "$usage" >&2; exit 2; }
  REPO="$(cd "$1" && pwd)"
  shift
  while [ $# -gt 0 ]; do
    if [ $# -lt 2 ] || [ -z "${var_of[$1]:-}" ]; then
      echo "$usage" >&2
      exit 2
    fi
    printf -v "${var_of[$1]}" '%s' "$2"
    shift 2
  done
}

# rust_analyzer_scip DIR OUTPUT LOG [PREFIX...]: `rust-analyzer scip .` in DIR into OUTPUT, its
# output in LOG, run under PREFIX (e.g. `nice -n 10`). When it fails, says so with the last lines
# of LOG and the install command, and returns 1: on a fresh machine the rustup proxy exists
# without the component, and a bare `set -e` exit left the benchmarks silent about why.
rust_analyzer_scip() {
  local dir=$1 output=$2 log=$3
  shift 3
  if ! (cd "$dir" && "$@" rust-analyzer scip . --output "$output") >"$log" 2>&1; then
    echo "ci: \`rust-analyzer scip\` failed in $dir; the last lines of $log:" >&2
    tail -n 5 "$log" | sed 's/^/  /' >&2
    echo "ci: rust-analyzer is installed with \`rustup component add rust-analyzer\` (or ci/install-indexers.sh)" >&2
    return 1
  fi
}
