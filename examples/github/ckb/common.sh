# Shared settings of the ckb CI scripts (sourced, not run). Every value can be overridden by the
# environment; the defaults are what the example workflows use.
#   CKB          the ckb binary                       (default: ckb on PATH)
#   CKB_STORE    the snapshot store folder            (default: $RUNNER_TEMP/ckb-store)
#   CKB_REPO_ID  repository ID used in the store      (default: the repository folder's name)
#   CKB_OUT      where pr-diff.sh writes ckb-diff.md / ckb-diff.json (default: $RUNNER_TEMP)
#   CKB_INDEX    `on`: run the installed SCIP indexers (`ckb index`) before each snapshot;
#                `off`: tree-sitter only                                    (default: on)
#   CKB_INDEX_ARGS  more flags for `ckb index` (e.g. `--languages rust --timeout 900`)
#   CKB_PREPARE  a command run in each commit's checkout before indexing, e.g. installing
#                dependencies so scip-typescript resolves imports: `npm ci --ignore-scripts`
ckb="${CKB:-ckb}"
store="${CKB_STORE:-${RUNNER_TEMP:-/tmp}/ckb-store}"
repo_id="${CKB_REPO_ID:-$(basename "$(git rev-parse --show-toplevel)")}"
out_dir="${CKB_OUT:-${RUNNER_TEMP:-.}}"

# snapshot_commit SHA [PREVIOUS_SNAPSHOT]: snapshots one commit (checked out in a temporary
# worktree, so the current checkout is never touched) unless the store already has it, and prints
# the snapshot folder. The SCIP indexers run first (`ckb index`: an indexer that is missing or
# fails leaves its languages to tree-sitter), writing .ckb/*.scip in the worktree, which the
# snapshot reads. With PREVIOUS_SNAPSHOT, identity (renames, deletions) is computed against it.
snapshot_commit() {
  local sha="$1" previous="${2:-}" dir tree
  dir="$store/repo=$repo_id/commit=$sha"
  if [ ! -f "$dir/manifest.json.zst" ]; then
    tree="$(mktemp -d)/tree"
    git worktree add --detach --quiet "$tree" "$sha"
    if [ "${CKB_INDEX:-on}" != off ]; then
      if [ -n "${CKB_PREPARE:-}" ]; then
        (cd "$tree" && bash -c "$CKB_PREPARE") >&2
      fi
      # CKB_INDEX_ARGS is a list of flags: split on purpose.
      # shellcheck disable=SC2086
      "$ckb" index "$tree" --progress never ${CKB_INDEX_ARGS:-} >&2
    fi
    local args=(snapshot "$tree" --out "$store" --repo-id "$repo_id" --progress never)
    if [ -n "$previous" ]; then
      args+=(--previous "$previous")
    fi
    "$ckb" "${args[@]}" >&2
    git worktree remove --force "$tree"
    echo "snapshot $sha" >&2
  fi
  echo "$dir"
}
