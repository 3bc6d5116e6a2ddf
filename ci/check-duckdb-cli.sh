#!/usr/bin/env bash
# Proves that the stock DuckDB CLI (not the copy linked into ckb) reads every table ckb writes, offline,
# and that every row count matches the manifest. Snapshots the ckb repository itself into a temp store.
set -euo pipefail
cd "$(dirname "$0")/.."
tools="${CKB_TOOLS_DIR:-$HOME/.cache/ckb-tools}"
duckdb="$tools/venv/bin/duckdb"
target="${CARGO_TARGET_DIR:-target}"
cargo build --quiet --bin ckb
ckb="$target/debug/ckb"

store="$(mktemp -d)"
trap 'rm -rf "$store"' EXIT
snapshot="$("$ckb" snapshot . --out "$store" --progress never | tail -n 1)"
echo "snapshot: $snapshot"

status=0
# Row counts recorded in the manifest, one "name rows" pair per line.
while read -r name rows; do
  got="$("$duckdb" -noheader -csv -c "SET autoinstall_known_extensions=false; SET autoload_known_extensions=false; select count(*) from read_parquet('$snapshot/$name.parquet');" | tail -n 1)"
  if [ "$got" = "$rows" ]; then
    echo "ok   $name: $got rows"
  else
    echo "FAIL $name: duckdb CLI read '$got', manifest says $rows"
    status=1
  fi
done < <("$ckb" query --snapshot "$snapshot" --format json status \
  | python3 -c 'import json,sys; [print(t["name"], t["rows"]) for t in json.load(sys.stdin)["facts"]["tables"]]')

# Every canned query runs as-is in the stock CLI against the store, exactly as the README documents
# (`duckdb -c "SET VARIABLE ckb_store = '<store>'" -f queries/sql/<name>.sql`). A query whose tables
# (its `-- Reads:` line) no snapshot in the store has is reported as skipped, not failed: those
# tables appear once the stages that write them run. tests/cli_sql.rs runs every file over a
# fixture store that has them all.
for sql in queries/sql/*.sql; do
  [ -e "$sql" ] || continue
  missing=""
  for table in $(sed -n 's/^-- Reads://p' "$sql" | tr ',' ' '); do
    compgen -G "$store/repo=*/commit=*/$table.parquet" >/dev/null || missing="$missing $table"
  done
  if [ -n "$missing" ]; then
    echo "skip $sql: no snapshot in the store has:$missing"
    continue
  fi
  if "$duckdb" -c "SET VARIABLE ckb_store = '$store';" -f "$sql" >/dev/null; then
    echo "ok   $sql"
  else
    echo "FAIL $sql"
    status=1
  fi
done
exit $status
