#!/usr/bin/env bash
# Per-call latency of `search`, `symbol` and `refs` inside one `ckb mcp` session (ci/bench_mcp.py,
# a raw JSON-RPC client on pipes), against the peer an agent without MCP has: one whole
# `ckb query` process per call, for the same lookups.
# The bar: in the session, p50 <= 5 ms and p99 <= 50 ms per tool; the first answer (spawn to the
# first tools/call reply) <= 100 ms.
#
#   ci/bench-mcp.sh <repository>      (snapshotted first when it has no snapshot of HEAD)
#
# Two sessions are measured: `--repo` from inside the repository (what an agent's client runs:
# each call finds the newest snapshot and compares it with the working tree) and `--snapshot`
# from a scratch folder (the snapshot alone, as ci/bench-query.sh measures `ckb query`).
#
# Environment:
#   CKB    the ckb binary [default: build --release into $CARGO_TARGET_DIR or target/; see
#          ci/bench-query.sh for an optimized dev build that skips DuckDB's -O3 compile]
#   CALLS  calls per tool in a session [default: 300]
#   RUNS   whole-process runs per tool of the peer [default: 21]
#   SCIP   a SCIP index to snapshot with (e.g. rust-analyzer's index.scip) [default: the
#          repository's own index.scip when present]
set -euo pipefail
# shellcheck source=ci/lib.sh
. "$(dirname "$0")/lib.sh"
calls="${CALLS:-300}"
runs="${RUNS:-21}"
repo="$(cd "${1:?usage: ci/bench-mcp.sh <repository>}" && pwd)"

ckb_binary release

scip=()
if [ -n "${SCIP:-}" ]; then
  scip=(--scip "$SCIP")
fi
# A snapshot of the repository's current state (kept when it exists).
snapshot="$(cd "$repo" && "$CKB" snapshot . "${scip[@]}" --progress never | tail -n 1)"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

occurrences="$("$CKB" query --snapshot "$snapshot" --format csv sql 'select count(*) from occurrences' | tail -n 1)"
symbols="$("$CKB" query --snapshot "$snapshot" --format csv sql 'select count(*) from symbols' | tail -n 1)"
echo "repository:  $repo ($(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo no git))"
echo "snapshot:    $snapshot"
echo "size:        $symbols symbols, $occurrences occurrences"
echo "ckb:         $CKB"
echo "calls:       $calls per tool per session; peer: $runs whole-process runs per tool"
echo

status=0
report() {
  local label="$1" json="$2"
  python3 - "$label" "$json" <<'EOF' || status=1
import json, sys
label, r = sys.argv[1], json.loads(sys.argv[2])
ok = True
print(f"{label}: initialize {r['initialize_ms']} ms, first answer {r['first_call_ms']} ms"
      f" {'ok' if r['first_call_ms'] <= 100 else 'MISSED (100 ms)'}")
ok &= r["first_call_ms"] <= 100
print(f"  {'tool':8} {'p50 ms':>8} {'p90 ms':>8} {'p99 ms':>8} {'max ms':>8}  verdict")
for tool, t in r["tools"].items():
    good = t["p50"] <= 5 and t["p99"] <= 50
    ok &= good
    print(f"  {tool:8} {t['p50']:8.3f} {t['p90']:8.3f} {t['p99']:8.3f} {t['max']:8.3f}  {'ok' if good else 'MISSED (p50 5, p99 50)'}")
print(f"  RSS {r['rss_kib']['after_setup']} KiB after setup, {r['rss_kib']['at_end']} KiB at the end;"
      f" exit code {r['exit_code']}")
sys.exit(0 if ok and r["exit_code"] == 0 else 1)
EOF
}

in_repo="$(cd "$repo" && python3 "$here/bench_mcp.py" "$CKB" "$calls" --repo "$repo")"
report "session --repo (in the repository)" "$in_repo"
pinned="$(cd "$scratch" && python3 "$here/bench_mcp.py" "$CKB" "$calls" --snapshot "$snapshot")"
report "session --snapshot (scratch folder)" "$pinned"

# The peer: one `ckb query` process per call, from inside the repository, for lookups the session
# made (the first search's query and the first picked ID).
id="$(cd "$repo" && "$CKB" query --format json search new --limit 1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["facts"]["results"][0]["id"])')"
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo
echo "peer: whole-process ckb query per call (median of $runs, in the repository)"
for cmd in search symbol refs; do
  case "$cmd" in
    search) args=(search new) ;;
    *) args=("$cmd" "$id") ;;
  esac
  (cd "$repo" && "$CKB" query --format json "${args[@]}" >/dev/null)
  ms="$(for _ in $(seq "$runs"); do
    s=${EPOCHREALTIME/[.,]/}
    (cd "$repo" && "$CKB" query --format json "${args[@]}" >/dev/null)
    e=${EPOCHREALTIME/[.,]/}
    echo $((e - s))
  done | median)"
  printf '  %-8s %8.3f ms\n' "$cmd" "$(echo "$ms / 1000" | bc -l)"
done
exit "$status"
