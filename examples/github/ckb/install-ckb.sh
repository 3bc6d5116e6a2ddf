#!/usr/bin/env bash
# Makes `ckb` available to the later steps: the one on PATH (or $CKB) when there is one — the
# workflows cache ~/.cargo/bin/ckb — else `cargo install` from $CKB_GIT (a repository variable).
set -euo pipefail
ckb="${CKB:-ckb}"
if command -v "$ckb" >/dev/null 2>&1; then
  echo "using $(command -v "$ckb"): $("$ckb" --version)"
  exit 0
fi
: "${CKB_GIT:?set the repository variable CKB_GIT to the git URL of ckb, or put ckb on PATH}"
cargo install --locked --git "$CKB_GIT" ${CKB_REV:+--rev "$CKB_REV"} ckb
echo "installed: $(ckb --version)"
