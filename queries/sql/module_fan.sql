-- module_fan: fan-in (modules depending on it) and fan-out (modules it depends on) of every
-- module in the newest snapshot of each repository, with instability = fan-out / (fan-in + fan-out).
-- Only dependencies inside the repository count (kinds local and workspace-package).
-- Reads: modules, module_edges, commits
-- Store: SET VARIABLE ckb_store = '<store folder>' first (default: .ckb/snapshots), e.g.
--   duckdb -c "SET VARIABLE ckb_store = '.ckb/snapshots'" -f queries/sql/module_fan.sql
--   ckb query canned module_fan [--store DIR]
WITH newest AS (  -- the newest snapshot of each repository: latest head commit time, then name
    SELECT repo, "commit" FROM read_parquet(coalesce(getvariable('ckb_store'), '.ckb/snapshots') || '/repo=*/commit=*/commits.parquet', hive_partitioning = true, hive_types_autocast = false, union_by_name = true)
    GROUP BY repo, "commit"
    QUALIFY row_number() OVER (PARTITION BY repo ORDER BY max(committer_time) FILTER (WHERE sha = split_part("commit", '-', 1)) DESC NULLS LAST, "commit" DESC) = 1
),
modules AS (
    SELECT m.* FROM read_parquet(coalesce(getvariable('ckb_store'), '.ckb/snapshots') || '/repo=*/commit=*/modules.parquet',
                                 hive_partitioning = true, hive_types_autocast = false, union_by_name = true) m
    JOIN newest n ON m.repo = n.repo AND m."commit" = n."commit"
),
edges AS (
    SELECT e.* FROM read_parquet(coalesce(getvariable('ckb_store'), '.ckb/snapshots') || '/repo=*/commit=*/module_edges.parquet',
                                 hive_partitioning = true, hive_types_autocast = false, union_by_name = true) e
    JOIN newest n ON e.repo = n.repo AND e."commit" = n."commit"
    WHERE e.kind IN ('local', 'workspace-package') AND e.from_module <> e.to_module
),
fan_in AS (
    SELECT repo, to_module AS module_id, count(DISTINCT from_module) AS fan_in FROM edges GROUP BY ALL
),
fan_out AS (
    SELECT repo, from_module AS module_id, count(DISTINCT to_module) AS fan_out FROM edges GROUP BY ALL
)
SELECT m.repo,
       m.module_id,
       m.name,
       m.file_count AS files,
       coalesce(i.fan_in, 0) AS fan_in,
       coalesce(o.fan_out, 0) AS fan_out,
       CASE WHEN coalesce(i.fan_in, 0) + coalesce(o.fan_out, 0) = 0 THEN NULL
            ELSE round(coalesce(o.fan_out, 0) / (coalesce(i.fan_in, 0) + coalesce(o.fan_out, 0)), 3)
       END AS instability
FROM modules m
LEFT JOIN fan_in i ON i.repo = m.repo AND i.module_id = m.module_id
LEFT JOIN fan_out o ON o.repo = m.repo AND o.module_id = m.module_id
ORDER BY coalesce(i.fan_in, 0) + coalesce(o.fan_out, 0) DESC, m.repo, m.module_id;
