-- churn_trend: how each repository evolves across its snapshots, oldest first: files, lines,
-- symbols and the churn of the 30 days before each snapshot's head commit.
-- Snapshots without a commits table have no time and are left out.
-- Reads: commits, files, churn, symbols
-- Store: SET VARIABLE ckb_store = '<store folder>' first (default: .ckb/snapshots), e.g.
--   duckdb -c "SET VARIABLE ckb_store = '.ckb/snapshots'" -f queries/sql/churn_trend.sql
--   ckb query canned churn_trend [--store DIR]
WITH snapshots AS (  -- every snapshot of the store with the time of its head commit
    SELECT repo, "commit", max(committer_time) FILTER (WHERE sha = split_part("commit", '-', 1)) AS head_time
    FROM read_parquet(coalesce(getvariable('ckb_store'), '.ckb/snapshots') || '/repo=*/commit=*/commits.parquet', hive_partitioning = true, hive_types_autocast = false, union_by_name = true)
    GROUP BY ALL
),
file_counts AS (
    SELECT repo, "commit", count(*) AS files, sum(line_count)::BIGINT AS lines
    FROM read_parquet(coalesce(getvariable('ckb_store'), '.ckb/snapshots') || '/repo=*/commit=*/files.parquet',
                      hive_partitioning = true, hive_types_autocast = false, union_by_name = true)
    GROUP BY ALL
),
symbol_counts AS (
    SELECT repo, "commit", count(*) AS symbols,
           count(*) FILTER (WHERE visibility = 'public') AS public_symbols
    FROM read_parquet(coalesce(getvariable('ckb_store'), '.ckb/snapshots') || '/repo=*/commit=*/symbols.parquet',
                      hive_partitioning = true, hive_types_autocast = false, union_by_name = true)
    GROUP BY ALL
),
churn_30d AS (
    SELECT repo, "commit",
           count(*) FILTER (WHERE commits > 0) AS files_changed_30d,
           sum(additions)::BIGINT AS additions_30d,
           sum(deletions)::BIGINT AS deletions_30d
    FROM read_parquet(coalesce(getvariable('ckb_store'), '.ckb/snapshots') || '/repo=*/commit=*/churn.parquet',
                      hive_partitioning = true, hive_types_autocast = false, union_by_name = true)
    WHERE "window" = '30d'
    GROUP BY ALL
)
SELECT s.repo,
       s."commit",
       strftime(make_timestamp(s.head_time * 1000000), '%Y-%m-%dT%H:%M:%SZ') AS committed_at,
       f.files,
       f.lines,
       y.symbols,
       y.public_symbols,
       coalesce(c.files_changed_30d, 0) AS files_changed_30d,
       coalesce(c.additions_30d, 0) AS additions_30d,
       coalesce(c.deletions_30d, 0) AS deletions_30d,
       f.lines - lag(f.lines) OVER (PARTITION BY s.repo ORDER BY s.head_time, s."commit") AS lines_delta
FROM snapshots s
JOIN file_counts f ON f.repo = s.repo AND f."commit" = s."commit"
LEFT JOIN symbol_counts y ON y.repo = s.repo AND y."commit" = s."commit"
LEFT JOIN churn_30d c ON c.repo = s.repo AND c."commit" = s."commit"
WHERE s.head_time IS NOT NULL
ORDER BY s.repo, s.head_time, s."commit";
