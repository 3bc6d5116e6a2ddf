#!/usr/bin/env bash
# What a snapshot with SCIP knows less of than a tree-sitter-only snapshot of the same commit, in
# the files the index covers (docs/DESIGN.md "Backend precedence", what the rule costs today).
#
#   ci/scip-gaps.sh REPO [--work DIR]
#
# REPO is a git checkout whose indexes `ckb index` can write (or that already holds them where
# `ckb snapshot` finds them). In the work folder (default: a temporary one) the script snapshots
# REPO's HEAD twice, with its indexes and with `--no-scip`, and prints, over the files an index
# covers:
#
#   definitions  tree-sitter's callable and type definitions, and those with no definition of
#                the same path and name in the SCIP snapshot (scip-typescript makes a function or
#                class nested in a function a `local N` symbol, which gets no row);
#   references   tree-sitter references bound to a definition, and those at a position where the
#                SCIP snapshot has no occurrence at all (a receiver whose type the indexer could
#                not infer, an untyped parameter in Python, a call to a local function);
#
# each with the ten names that miss most. Facts only: names and counts, never source text.
# CKB names the ckb binary (default: a fresh debug build, ci/lib.sh's `ckb_binary`). Needs git
# and the duckdb CLI (PyPI duckdb-cli; ci/install-tools.sh installs it).
set -euo pipefail

# shellcheck source=ci/lib.sh
. "$(dirname "$0")/lib.sh"
WORK=""
parse_repo_args "$0 REPO [--work DIR]" "--work WORK" -- "$@"
ckb_binary debug
command -v duckdb >/dev/null || { echo "scip-gaps: needs the duckdb CLI (pip install duckdb-cli)" >&2; exit 1; }
if [[ -z "$WORK" ]]; then
  WORK=$(mktemp -d)
  trap 'rm -rf "$WORK"' EXIT
fi
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
rm -rf "$WORK/with-scip" "$WORK/tree-sitter"

# The indexes `ckb snapshot` finds (scip/mod.rs::discover); `ckb index` writes them when none is.
if ! compgen -G "$REPO/index.scip" >/dev/null && ! compgen -G "$REPO/.scip/*.scip" >/dev/null \
  && ! compgen -G "$REPO/.ckb/*.scip" >/dev/null; then
  "$CKB" index "$REPO" >&2
fi
"$CKB" snapshot "$REPO" --out "$WORK/with-scip" >/dev/null
"$CKB" snapshot "$REPO" --out "$WORK/tree-sitter" --no-scip >/dev/null
S=$(ls -d "$WORK"/with-scip/repo=*/commit=*)
T=$(ls -d "$WORK"/tree-sitter/repo=*/commit=*)

duckdb -c "
create view scip_occ as select * from '$S/occurrences.parquet';
create view scip_sym as select * from '$S/symbols.parquet';
create view ts_occ as select * from '$T/occurrences.parquet';
create view ts_sym as select * from '$T/symbols.parquet';
create view covered as select distinct path from scip_occ where source = 'scip';
create view ts_defs as select t.*, not exists (
    select 1 from scip_sym s where s.path = t.path and s.name = t.name) as missing
  from ts_sym t
  where t.path in (select path from covered)
    and t.kind in ('function', 'method', 'constructor', 'class', 'struct', 'enum', 'interface',
                   'trait', 'type_alias', 'union');
create view ts_refs as select t.*, not exists (
    select 1 from scip_occ s where s.path = t.path and s.line = t.line and s.col = t.col) as missing
  from ts_occ t
  where t.path in (select path from covered)
    and not list_contains(t.roles, 'definition')
    and t.symbol_id in (select stable_id from ts_sym);
select 'definitions' as facts, count(*) as tree_sitter, count(*) filter (where missing) as not_in_scip_snapshot
  from ts_defs
union all
select 'references', count(*), count(*) filter (where missing) from ts_refs;
select name, kind, count(*) as missing_definitions from ts_defs where missing
  group by all order by 3 desc, 1 limit 10;
select r.name, d.kind, count(*) as missing_references
  from ts_refs r join ts_sym d on d.stable_id = r.symbol_id where r.missing
  group by all order by 3 desc, 1 limit 10;
"
