-- hotspots: files that change often and are large, in the newest snapshot of each repository.
-- Score: commits in the last 90 days × ln(1 + lines). Generated files are left out.
-- Reads: files, churn, commits
-- Store: SET VARIABLE ckb_store = '<store folder>' first (default: .ckb/snapshots), e.g.
--   duckdb -c "SET VARIABLE ckb_store = '.ckb/snapshots'" -f queries/sql/hotspots.sql
--   ckb query canned hotspots [--store DIR]
WITH snapshots AS (
    SELECT repo, "commit",
           max(committer_time) FILTER (WHERE sha = split_part("commit", '-', 1)) AS head_time
    FROM read_parquet(coalesce(getvariable('ckb_store'), '.ckb/snapshots') || '/repo=*/commit=*/commits.parquet',
                      hive_partitioning = true, hive_types_autocast = false, union_by_name = true)
    GROUP BY ALL
),
newest AS (
    SELECT repo, "commit" FROM snapshots
    QUALIFY row_number() OVER (PARTITION BY repo ORDER BY head_time DESC NULLS LAST, "commit" DESC) = 1
),
files AS (
    SELECT * FROM read_parquet(coalesce(getvariable('ckb_store'), '.ckb/snapshots') || '/repo=*/commit=*/files.parquet',
                               hive_partitioning = true, hive_types_autocast = false, union_by_name = true)
),
churn AS (
    SELECT * FROM read_parquet(coalesce(getvariable('ckb_store'), '.ckb/snapshots') || '/repo=*/commit=*/churn.parquet',
                               hive_partitioning = true, hive_types_autocast = false, union_by_name = true)
)
SELECT f.repo,
       f.path,
       f.module_id,
       c.commits AS commits_90d,
       c.additions + c.deletions AS lines_changed_90d,
       c.authors AS authors_90d,
       f.line_count AS lines,
       round(c.commits * ln(1 + f.line_count), 3) AS score
FROM files f
JOIN newest n ON f.repo = n.repo AND f."commit" = n."commit"
JOIN churn c ON c.repo = f.repo AND c."commit" = f."commit" AND c.path = f.path
WHERE c."window" = '90d' AND c.commits > 0 AND NOT f.is_generated
ORDER BY score DESC, f.repo, f.path
LIMIT 25;
