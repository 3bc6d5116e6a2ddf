# Shell helpers shared by the scripts in ci/ (sourced, not run): where the checkout is, which ckb
# binary to run, and the `REPO [--flag VALUE]...` command line of the benchmarks.
# Sourcing sets $here (this folder, ci/) and $root (the checkout).
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"

# ckb_binary release|debug: sets $CKB to the ckb binary to measure. A $CKB already set is kept
# (made absolute when it is a path, so it still works after a `cd`); otherwise ckb is built with
# that cargo profile into $CARGO_TARGET_DIR (default: the checkout's target/).
ckb_binary() {
  if [ -z "${CKB:-}" ]; then
    local build=(--quiet -p ckb)
    [ "$1" = release ] && build+=(--release)
    (cd "$root" && cargo build "${build[@]}")
    CKB="${CARGO_TARGET_DIR:-$root/target}/$1/ckb"
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
