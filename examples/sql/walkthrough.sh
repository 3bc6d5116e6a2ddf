#!/usr/bin/env bash
# The SQL walkthrough (walkthrough.md) as one script: every command of the walkthrough, in order,
# over the snapshot store given as the first argument (default: .ckb/snapshots).
#   bash examples/sql/walkthrough.sh path/to/store
# ckb must be on PATH (or in $CKB). The stock duckdb CLI is used when found ($DUCKDB, or duckdb on
# PATH); without it those steps are skipped. A canned query whose tables no snapshot in the store
# has (their stage did not run) prints ckb's error and the walkthrough goes on.
set -uo pipefail
STORE="${1:-.ckb/snapshots}"
SQL_DIR="$(cd "$(dirname "$0")/../../queries/sql" && pwd)"
CKB="${CKB:-ckb}"
ckb() { command "$CKB" "$@"; }
DUCKDB="${DUCKDB:-$(command -v duckdb || true)}"
status=0
step() { printf '\n## %s\n' "$1"; }
# Steps that need only the files table must work on any store; the others say why they cannot.
run() {
  "$@" || { echo "(failed: $*)"; status=1; }
}
try() {
  "$@" || echo "(skipped: see the error above)"
}

step "1. What the store holds: one row per snapshot"
run ckb query --store "$STORE" --format human sql 'select repo, "commit", count(*) as files, sum(line_count)::bigint as lines from files group by all order by repo, "commit"'

step "2. Languages per snapshot"
run ckb query --store "$STORE" --format human sql 'select repo, "commit", language, count(*) as files from files group by all order by repo, "commit", files desc, language'

step "3. Files that grew the most between two consecutive snapshots (by head commit time)"
grew_most="$(cat <<'SQL'
with snaps as (
    select repo, "commit", max(committer_time) filter (where sha = split_part("commit", '-', 1)) as t
    from commits group by all
), ordered as (
    select repo, "commit", lag("commit") over (partition by repo order by t, "commit") as prev
    from snaps
)
select f.repo, f.path, p.line_count as before, f.line_count as after, f.line_count - p.line_count as grew
from ordered o
join files f on f.repo = o.repo and f."commit" = o."commit"
join files p on p.repo = o.repo and p."commit" = o.prev and p.path = f.path
where f.line_count > p.line_count
order by grew desc, f.repo, f.path
limit 10
SQL
)"
try ckb query --store "$STORE" --format human sql "$grew_most"

step "4. The canned analyses through ckb"
run ckb query --format human canned
for name in hotspots coupling churn_trend module_fan dead_code api_changes; do
  printf '\n### %s\n' "$name"
  try ckb query --store "$STORE" --format human canned "$name"
done

step "5. The same files with the stock duckdb CLI"
if [ -z "$DUCKDB" ]; then
  echo "(skipped: no duckdb CLI; pip install duckdb-cli)"
else
  for name in hotspots api_changes; do
    printf '\n### %s\n' "$name"
    try "$DUCKDB" -c "SET VARIABLE ckb_store = '$STORE'" -f "$SQL_DIR/$name.sql"
  done
fi
exit $status
