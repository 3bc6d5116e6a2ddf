-- api_changes: the biggest changes to the public surface between the two newest snapshots of
-- each repository (by head commit time): public symbols removed, renamed or moved (one alias hop
-- in the newer snapshot's aliases, while `ckb diff` follows up to three), signatures changed, visibility
-- narrowed, and public symbols added. Ranked by severity, then by the callers the symbol had.
-- Reads: symbols, aliases, call_edges, commits
-- Store: SET VARIABLE ckb_store = '<store folder>' first (default: .ckb/snapshots), e.g.
--   duckdb -c "SET VARIABLE ckb_store = '.ckb/snapshots'" -f queries/sql/api_changes.sql
--   ckb query canned api_changes [--store DIR]
WITH snapshots AS (  -- every snapshot of the store with the time of its head commit
    SELECT repo, "commit", max(committer_time) FILTER (WHERE sha = split_part("commit", '-', 1)) AS head_time
    FROM read_parquet(coalesce(getvariable('ckb_store'), '.ckb/snapshots') || '/repo=*/commit=*/commits.parquet', hive_partitioning = true, hive_types_autocast = false, union_by_name = true)
    GROUP BY ALL
),
ranked AS (
    SELECT repo, "commit",
           row_number() OVER (PARTITION BY repo ORDER BY head_time DESC NULLS LAST, "commit" DESC) AS rank
    FROM snapshots
),
pair AS (
    SELECT h.repo, b."commit" AS base_commit, h."commit" AS head_commit
    FROM ranked h JOIN ranked b ON b.repo = h.repo AND h.rank = 1 AND b.rank = 2
),
symbols AS (
    SELECT * FROM read_parquet(coalesce(getvariable('ckb_store'), '.ckb/snapshots') || '/repo=*/commit=*/symbols.parquet',
                               hive_partitioning = true, hive_types_autocast = false, union_by_name = true)
),
aliases AS (
    SELECT * FROM read_parquet(coalesce(getvariable('ckb_store'), '.ckb/snapshots') || '/repo=*/commit=*/aliases.parquet',
                               hive_partitioning = true, hive_types_autocast = false, union_by_name = true)
),
base AS (
    SELECT s.* FROM symbols s JOIN pair p ON s.repo = p.repo AND s."commit" = p.base_commit
),
head AS (
    SELECT s.* FROM symbols s JOIN pair p ON s.repo = p.repo AND s."commit" = p.head_commit
),
callers AS (
    SELECT e.repo, e.callee_id AS id, count(DISTINCT e.caller_id) AS callers
    FROM read_parquet(coalesce(getvariable('ckb_store'), '.ckb/snapshots') || '/repo=*/commit=*/call_edges.parquet',
                      hive_partitioning = true, hive_types_autocast = false, union_by_name = true) e
    JOIN pair p ON e.repo = p.repo AND e."commit" = p.base_commit
    WHERE e.callee_id IS NOT NULL AND e.caller_id <> e.callee_id
    GROUP BY ALL
),
head_aliases AS (
    SELECT a.* FROM aliases a JOIN pair p ON a.repo = p.repo AND a."commit" = p.head_commit
),
gone AS (
    SELECT b.*, h2.name AS new_name, h2.path AS new_path, a.reason AS alias_reason
    FROM base b
    LEFT JOIN head h ON h.stable_id = b.stable_id
    LEFT JOIN head_aliases a ON a.repo = b.repo AND a.old_id = b.stable_id
    LEFT JOIN head h2 ON h2.stable_id = a.new_id
    WHERE h.stable_id IS NULL AND b.visibility = 'public'
),
changes AS (
    SELECT repo, 'removed' AS change, 'high' AS severity, stable_id, kind, name, path,
           signature AS before, NULL AS after
    FROM gone WHERE new_name IS NULL
    UNION ALL
    SELECT repo, CASE WHEN new_name = name THEN 'moved' ELSE 'renamed' END,
           CASE WHEN new_name = name THEN 'medium' ELSE 'high' END, stable_id, kind, name, path,
           name || ' (' || path || ')', new_name || ' (' || new_path || ')'
    FROM gone WHERE new_name IS NOT NULL
    UNION ALL
    SELECT b.repo, 'signature-changed',
           CASE WHEN b.arity IS DISTINCT FROM h.arity THEN 'high' ELSE 'medium' END,
           b.stable_id, b.kind, b.name, b.path, b.signature, h.signature
    FROM base b JOIN head h ON h.stable_id = b.stable_id
    WHERE b.visibility = 'public' AND b.definition_version_id <> h.definition_version_id
    UNION ALL
    SELECT b.repo, 'visibility-narrowed', 'high', b.stable_id, b.kind, b.name, b.path,
           b.visibility, h.visibility
    FROM base b JOIN head h ON h.stable_id = b.stable_id
    WHERE b.visibility = 'public' AND h.visibility IN ('internal', 'protected', 'private')
    UNION ALL
    SELECT h.repo, 'added', 'info', h.stable_id, h.kind, h.name, h.path, NULL, h.signature
    FROM head h
    WHERE h.visibility = 'public'
      AND NOT EXISTS (SELECT 1 FROM base b WHERE b.stable_id = h.stable_id)
      AND NOT EXISTS (SELECT 1 FROM head_aliases a WHERE a.new_id = h.stable_id)
)
SELECT c.repo,
       p.base_commit,
       p.head_commit,
       c.severity,
       c.change,
       c.kind,
       c.name,
       c.path,
       coalesce(k.callers, 0) AS callers,
       c.before,
       c.after,
       c.stable_id
FROM changes c
JOIN pair p ON p.repo = c.repo
LEFT JOIN callers k ON k.repo = c.repo AND k.id = c.stable_id
ORDER BY CASE c.severity WHEN 'high' THEN 0 WHEN 'medium' THEN 1 WHEN 'low' THEN 2 ELSE 3 END,
         callers DESC, c.repo, c.path, c.name, c.change, c.stable_id
LIMIT 100;
