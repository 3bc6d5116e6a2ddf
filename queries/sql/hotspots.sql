-- hotspots: files that change often and are large, in the newest snapshot of each repository.
-- Definition shared with `ckb query hotspots` (queries/src/history.rs): a hotspot is a file of the
-- snapshot (in `files`: not deleted) that is not generated and has at least one commit in the
-- window (90d here). Score = commits in the window × ln(1 + lines), rounded to 6 decimals,
-- ranked by score, then commits, then path.
-- Reads: files, churn, commits
-- Store: SET VARIABLE ckb_store = '<store folder>' first (default: .ckb/snapshots), e.g.
--   duckdb -c "SET VARIABLE ckb_store = '.ckb/snapshots'" -f queries/sql/hotspots.sql
--   ckb query canned hotspots [--store DIR]
WITH newest AS (  -- the newest snapshot of each repository: latest head commit time, then name
    SELECT repo, "commit" FROM read_parquet(coalesce(getvariable('ckb_store'), '.ckb/snapshots') || '/repo=*/commit=*/commits.parquet', hive_partitioning = true, hive_types_autocast = false, union_by_name = true)
    GROUP BY repo, "commit"
    QUALIFY row_number() OVER (PARTITION BY repo ORDER BY max(committer_time) FILTER (WHERE sha = split_part("commit", '-', 1)) DESC NULLS LAST, "commit" DESC) = 1
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
       round(c.commits * ln(1 + greatest(f.line_count, 0)), 6) AS score
FROM files f
JOIN newest n ON f.repo = n.repo AND f."commit" = n."commit"
JOIN churn c ON c.repo = f.repo AND c."commit" = f."commit" AND c.path = f.path
WHERE c."window" = '90d' AND c.commits > 0 AND NOT f.is_generated
ORDER BY score DESC, commits_90d DESC, f.repo, f.path
LIMIT 25;
