-- dead_code: definitions nothing uses (or nothing but themselves, or only tests), in the newest
-- snapshot of each repository, each with a confidence.
-- Definition shared with `ckb query dead-code` (queries/src/dead_code.rs):
-- Candidates: functions, methods, classes, structs, interfaces, traits, enums, type aliases,
-- types, constants, macros and unions (kinds whose uses extractors resolve reliably), except
-- those in test files, test code elsewhere (definitions marked as tests, `tests`/`test`
-- containers such as Rust's `mod tests`), generated files, entry points (`main`), members called
-- implicitly (`__dunder__` names, constructors) and trait/interface implementations (reached
-- through the trait: `impl T for X` containers and, with SCIP only, `implementation`
-- relationships). Uses: occurrences that are not (forward) definitions. Categories:
-- `unreferenced` (no use), `self-only` (every use lies inside the symbol itself: recursion),
-- `test-only` (every use is in a test file).
-- Confidence = base (unreferenced 0.9, self-only 0.8, test-only 0.7)
-- × visibility (private 1, internal 0.8, public / protected 0.5: code outside the repository
-- may use it, other 0.7) × 0.8 when only by-name references exist (no SCIP, and the symbol is
-- not from SCIP) × 0.5 when sites with the same name could not be resolved to any symbol,
-- rounded to 6 decimals. Ranked by confidence (highest first), then path, line and ID.
-- Here "no SCIP" means no symbol of the snapshot comes from SCIP.
-- One difference this file cannot avoid: the `relationships` table exists only when SCIP ran, and
-- this file must run on every store, so the symbols SCIP says implement an interface are left
-- out by `ckb query dead-code` only.
-- Reads: symbols, occurrences, files, commits
-- Store: SET VARIABLE ckb_store = '<store folder>' first (default: .ckb/snapshots), e.g.
--   duckdb -c "SET VARIABLE ckb_store = '.ckb/snapshots'" -f queries/sql/dead_code.sql
--   ckb query canned dead_code [--store DIR]
WITH newest AS (  -- the newest snapshot of each repository: latest head commit time, then name
    SELECT repo, "commit" FROM read_parquet(coalesce(getvariable('ckb_store'), '.ckb/snapshots') || '/repo=*/commit=*/commits.parquet', hive_partitioning = true, hive_types_autocast = false, union_by_name = true)
    GROUP BY repo, "commit"
    QUALIFY row_number() OVER (PARTITION BY repo ORDER BY max(committer_time) FILTER (WHERE sha = split_part("commit", '-', 1)) DESC NULLS LAST, "commit" DESC) = 1
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
test_definitions AS (
    SELECT DISTINCT o.repo, o.symbol_id AS id
    FROM read_parquet(coalesce(getvariable('ckb_store'), '.ckb/snapshots') || '/repo=*/commit=*/occurrences.parquet',
                      hive_partitioning = true, hive_types_autocast = false, union_by_name = true) o
    JOIN newest n ON o.repo = n.repo AND o."commit" = n."commit"
    WHERE list_contains(o.roles, 'definition') AND list_contains(o.roles, 'test') AND o.symbol_id IS NOT NULL
),
sites AS (  -- every use: an occurrence that is not a (forward) definition
    SELECT o.repo, o.symbol_id, o.name, o.enclosing_symbol_id, coalesce(f.is_test, false) AS in_test
    FROM read_parquet(coalesce(getvariable('ckb_store'), '.ckb/snapshots') || '/repo=*/commit=*/occurrences.parquet',
                      hive_partitioning = true, hive_types_autocast = false, union_by_name = true) o
    JOIN newest n ON o.repo = n.repo AND o."commit" = n."commit"
    LEFT JOIN files f ON f.repo = o.repo AND f.path = o.path
    WHERE NOT list_contains(o.roles, 'definition') AND NOT list_contains(o.roles, 'forward-definition')
),
uses AS (
    SELECT repo, symbol_id AS id, count(*) AS total,
           count(*) FILTER (WHERE enclosing_symbol_id = symbol_id) AS self_only,
           count(*) FILTER (WHERE in_test) AS in_tests
    FROM sites WHERE symbol_id IS NOT NULL GROUP BY ALL
),
unresolved AS (
    SELECT repo, name, count(*) AS sites FROM sites WHERE symbol_id IS NULL GROUP BY ALL
),
scip AS (
    SELECT repo, bool_or(source = 'scip') AS has_scip FROM symbols GROUP BY ALL
),
candidates AS (
    SELECT s.repo, s.path, s.start_line AS line, s.kind, s.name, s.visibility, s.stable_id,
           coalesce(u.total, 0) AS "references",
           CASE WHEN coalesce(u.total, 0) = 0 THEN 'unreferenced'
                WHEN u.self_only = u.total THEN 'self-only'
                WHEN u.in_tests = u.total THEN 'test-only'
           END AS category,
           CASE s.visibility WHEN 'private' THEN 1.0 WHEN 'internal' THEN 0.8
                WHEN 'public' THEN 0.5 WHEN 'protected' THEN 0.5 ELSE 0.7 END
           * CASE WHEN k.has_scip OR s.source = 'scip' THEN 1.0 ELSE 0.8 END
           * CASE WHEN coalesce(x.sites, 0) > 0 THEN 0.5 ELSE 1.0 END AS factor
    FROM symbols s
    JOIN scip k ON k.repo = s.repo
    LEFT JOIN files f ON f.repo = s.repo AND f.path = s.path
    LEFT JOIN uses u ON u.repo = s.repo AND u.id = s.stable_id
    LEFT JOIN unresolved x ON x.repo = s.repo AND x.name = s.name
    WHERE s.kind IN ('function', 'method', 'class', 'struct', 'interface', 'trait', 'enum',
                     'type_alias', 'type', 'constant', 'macro', 'union')
      AND NOT coalesce(f.is_test, false)
      AND NOT EXISTS (SELECT 1 FROM test_definitions t WHERE t.repo = s.repo AND t.id = s.stable_id)
      AND NOT regexp_matches(coalesce(s.container, ''), '(^|::)tests?($|::)')
      AND NOT coalesce(f.is_generated, false)
      AND s.name <> 'main'
      AND NOT (starts_with(s.name, '__') AND ends_with(s.name, '__') AND strlen(s.name) > 4)
      AND s.kind <> 'constructor' AND s.name <> 'constructor'
      AND NOT (starts_with(coalesce(s.container, ''), 'impl ') AND contains(s.container, ' for '))
)
SELECT repo,
       path,
       line,
       kind,
       name,
       visibility,
       category,
       "references",
       round(CAST(CASE category WHEN 'unreferenced' THEN 0.9 WHEN 'self-only' THEN 0.8 ELSE 0.7 END
                  * factor AS DOUBLE), 6) AS confidence,
       stable_id
FROM candidates
WHERE category IS NOT NULL
ORDER BY confidence DESC, repo, path, line, stable_id
LIMIT 200;
