-- coupling: pairs of files that change together (co-change), in the newest snapshot of each
-- repository. Pairs across modules first within equal degree, since those are the surprising ones.
-- Definition shared with `ckb query coupling <PATH>` (queries/src/history.rs): two files are
-- coupled when the `cochange` table pairs them (the git stage keeps pairs with at least
-- `history.cochangeMinShared` shared commits, default 2). Degree = shared commits / commits of
-- the less often changed file, rounded to 6 decimals. `ckb query coupling PATH` lists the rows
-- here that name PATH, from its side.
-- Reads: cochange, files, commits
-- Store: SET VARIABLE ckb_store = '<store folder>' first (default: .ckb/snapshots), e.g.
--   duckdb -c "SET VARIABLE ckb_store = '.ckb/snapshots'" -f queries/sql/coupling.sql
--   ckb query canned coupling [--store DIR]
WITH newest AS (  -- the newest snapshot of each repository: latest head commit time, then name
    SELECT repo, "commit" FROM read_parquet(coalesce(getvariable('ckb_store'), '.ckb/snapshots') || '/repo=*/commit=*/commits.parquet', hive_partitioning = true, hive_types_autocast = false, union_by_name = true)
    GROUP BY repo, "commit"
    QUALIFY row_number() OVER (PARTITION BY repo ORDER BY max(committer_time) FILTER (WHERE sha = split_part("commit", '-', 1)) DESC NULLS LAST, "commit" DESC) = 1
),
cochange AS (
    SELECT * FROM read_parquet(coalesce(getvariable('ckb_store'), '.ckb/snapshots') || '/repo=*/commit=*/cochange.parquet',
                               hive_partitioning = true, hive_types_autocast = false, union_by_name = true)
),
files AS (
    SELECT * FROM read_parquet(coalesce(getvariable('ckb_store'), '.ckb/snapshots') || '/repo=*/commit=*/files.parquet',
                               hive_partitioning = true, hive_types_autocast = false, union_by_name = true)
)
SELECT c.repo,
       c.path_a,
       c.path_b,
       c.shared_commits,
       round(c.degree, 6) AS degree,
       fa.module_id AS module_a,
       fb.module_id AS module_b,
       coalesce(fa.module_id IS DISTINCT FROM fb.module_id, true) AS crosses_modules
FROM cochange c
JOIN newest n ON c.repo = n.repo AND c."commit" = n."commit"
LEFT JOIN files fa ON fa.repo = c.repo AND fa."commit" = c."commit" AND fa.path = c.path_a
LEFT JOIN files fb ON fb.repo = c.repo AND fb."commit" = c."commit" AND fb.path = c.path_b
ORDER BY c.degree DESC, crosses_modules DESC, c.shared_commits DESC, c.repo, c.path_a, c.path_b
LIMIT 30;
