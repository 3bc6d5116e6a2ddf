-- dead_code: candidates for dead code in the newest snapshot of each repository: non-public
-- definitions outside tests that nothing else calls or references. Public symbols are left out
-- (callers may live outside the repository), as are entry points (main), modules and fields, and
-- test code: test files, definitions marked as test, and Rust-style `mod tests` containers.
-- Without SCIP only calls are resolved (tree-sitter records no references to constants, fields or
-- types), so tree-sitter symbols are candidates only when callable (functions, methods).
-- confidence: high for private SCIP symbols, medium for other SCIP symbols and private tree-sitter
-- ones, low otherwise.
-- Reads: symbols, occurrences, call_edges, files, commits
-- Store: SET VARIABLE ckb_store = '<store folder>' first (default: .ckb/snapshots), e.g.
--   duckdb -c "SET VARIABLE ckb_store = '.ckb/snapshots'" -f queries/sql/dead_code.sql
--   ckb query canned dead_code [--store DIR]
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
symbols AS (
    SELECT s.* FROM read_parquet(coalesce(getvariable('ckb_store'), '.ckb/snapshots') || '/repo=*/commit=*/symbols.parquet',
                                 hive_partitioning = true, hive_types_autocast = false, union_by_name = true) s
    JOIN newest n ON s.repo = n.repo AND s."commit" = n."commit"
),
files AS (
    SELECT f.* FROM read_parquet(coalesce(getvariable('ckb_store'), '.ckb/snapshots') || '/repo=*/commit=*/files.parquet',
                                 hive_partitioning = true, hive_types_autocast = false, union_by_name = true) f
    JOIN newest n ON f.repo = n.repo AND f."commit" = n."commit"
),
occurrences AS (
    SELECT o.* FROM read_parquet(coalesce(getvariable('ckb_store'), '.ckb/snapshots') || '/repo=*/commit=*/occurrences.parquet',
                                 hive_partitioning = true, hive_types_autocast = false, union_by_name = true) o
    JOIN newest n ON o.repo = n.repo AND o."commit" = n."commit"
),
test_definitions AS (
    SELECT repo, symbol_id AS id FROM occurrences
    WHERE list_contains(roles, 'definition') AND list_contains(roles, 'test')
),
referenced AS (
    SELECT o.repo, o.symbol_id AS id
    FROM occurrences o
    WHERE o.symbol_id IS NOT NULL
      AND NOT list_contains(o.roles, 'definition')
      AND o.enclosing_symbol_id IS DISTINCT FROM o.symbol_id
    UNION
    SELECT e.repo, e.callee_id AS id
    FROM read_parquet(coalesce(getvariable('ckb_store'), '.ckb/snapshots') || '/repo=*/commit=*/call_edges.parquet',
                      hive_partitioning = true, hive_types_autocast = false, union_by_name = true) e
    JOIN newest n ON e.repo = n.repo AND e."commit" = n."commit"
    WHERE e.callee_id IS NOT NULL AND e.caller_id <> e.callee_id
)
SELECT s.repo,
       s.path,
       s.start_line AS line,
       s.kind,
       s.name,
       s.visibility,
       CASE WHEN s.source = 'scip' AND s.visibility = 'private' THEN 'high'
            WHEN s.source = 'scip' OR s.visibility = 'private' THEN 'medium'
            ELSE 'low'
       END AS confidence,
       s.stable_id
FROM symbols s
LEFT JOIN files f ON f.repo = s.repo AND f.path = s.path
WHERE s.visibility <> 'public'
  AND s.kind NOT IN ('module', 'field', 'namespace', 'package')
  AND (s.source = 'scip' OR s.kind IN ('function', 'method'))
  AND s.name NOT IN ('main', '__init__', '__main__')
  AND NOT coalesce(f.is_test, false)
  AND NOT regexp_matches(coalesce(s.container, ''), '(^|::)tests?($|::)')
  AND NOT EXISTS (SELECT 1 FROM test_definitions t WHERE t.repo = s.repo AND t.id = s.stable_id)
  AND NOT coalesce(f.is_generated, false)
  AND NOT EXISTS (SELECT 1 FROM referenced r WHERE r.repo = s.repo AND r.id = s.stable_id)
ORDER BY confidence, s.repo, s.path, s.start_line, s.stable_id
LIMIT 200;
