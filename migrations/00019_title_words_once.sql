-- The title probe splits the query into words once.
--
-- recall.probe_titles (migration 00016) built the query's word n-grams from a subquery the
-- planner pulled up into the n-gram loop, so recall.title_key(query), a regexp_replace, ran
-- again for every (start, length) pair and in the join filter: 160 pairs for a ten-word
-- question, about 0.9 ms of a probe. A materialized CTE computes the words once.
--
-- Measured in psql, the probe's query as a generic prepared statement at 100k memories, one
-- ten-word question, three runs each: exact n-grams only 1.37-1.40 ms before, 0.48-0.52
-- after; with the fuzzy n-grams of up to four words 7.1-7.3 ms before, 6.2-6.3 after. The
-- title lane alone (BenchmarkMaximal, 100k, 2 x 2 runs of 100, functions swapped in turn):
-- 6.4-7.2 ms p50 before, 5.3-5.9 after.

-- +goose Up
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION recall.probe_titles(query text, exact_words int, fuzzy_words int, floor float8)
RETURNS TABLE (id bigint, sim float8, direct boolean)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp SET enable_seqscan = off SET plan_cache_mode = force_generic_plan
ROWS 8
AS $$
BEGIN
  RETURN QUERY
  WITH words AS MATERIALIZED (
    SELECT string_to_array(recall.title_key(query), ' ') AS a
  ),
  grams AS MATERIALIZED (
    SELECT DISTINCT array_to_string(w.a[i:i + n - 1], ' ') AS g, n
    FROM words w
    CROSS JOIN generate_series(1, cardinality(w.a)) AS i
    CROSS JOIN generate_series(1, exact_words) AS n
    WHERE i + n - 1 <= cardinality(w.a)
  )
  SELECT x.id, max(x.sim), bool_or(x.direct)
  FROM (
    SELECT p.id, 1.0::float8 AS sim, true AS direct
    FROM grams g
    CROSS JOIN LATERAL (
      SELECT s.id FROM recall.sources s
      WHERE recall.title_key(s.title) = g.g AND s.scopes && recall.read_scopes()
      OFFSET 0
    ) p
    WHERE length(g.g) >= 3
    UNION ALL
    SELECT p.id, p.sim, false
    FROM grams g
    CROSS JOIN LATERAL (SELECT cardinality(show_trgm(g.g)) AS n) q
    CROSS JOIN LATERAL (
      SELECT s.id, similarity(lower(s.title), g.g)::float8 AS sim
      FROM recall.sources s
      WHERE ceil(floor * q.n - 1e-9) <= 8
        AND cardinality(show_trgm(lower(s.title))) <= 8
        AND lower(s.title) % g.g AND s.scopes && recall.read_scopes()
      UNION ALL
      SELECT s.id, similarity(lower(s.title), g.g)::float8 AS sim
      FROM recall.sources s
      WHERE ceil(floor * q.n - 1e-9) <= 14 AND floor(q.n / floor + 1e-9) >= 9
        AND cardinality(show_trgm(lower(s.title))) BETWEEN 9 AND 14
        AND lower(s.title) % g.g AND s.scopes && recall.read_scopes()
      UNION ALL
      SELECT s.id, similarity(lower(s.title), g.g)::float8 AS sim
      FROM recall.sources s
      WHERE ceil(floor * q.n - 1e-9) <= 24 AND floor(q.n / floor + 1e-9) >= 15
        AND cardinality(show_trgm(lower(s.title))) BETWEEN 15 AND 24
        AND lower(s.title) % g.g AND s.scopes && recall.read_scopes()
      UNION ALL
      SELECT s.id, similarity(lower(s.title), g.g)::float8 AS sim
      FROM recall.sources s
      WHERE ceil(floor * q.n - 1e-9) <= 40 AND floor(q.n / floor + 1e-9) >= 25
        AND cardinality(show_trgm(lower(s.title))) BETWEEN 25 AND 40
        AND lower(s.title) % g.g AND s.scopes && recall.read_scopes()
      UNION ALL
      SELECT s.id, similarity(lower(s.title), g.g)::float8 AS sim
      FROM recall.sources s
      WHERE ceil(floor * q.n - 1e-9) <= 66 AND floor(q.n / floor + 1e-9) >= 41
        AND cardinality(show_trgm(lower(s.title))) BETWEEN 41 AND 66
        AND lower(s.title) % g.g AND s.scopes && recall.read_scopes()
      UNION ALL
      SELECT s.id, similarity(lower(s.title), g.g)::float8 AS sim
      FROM recall.sources s
      WHERE ceil(floor * q.n - 1e-9) <= 110 AND floor(q.n / floor + 1e-9) >= 67
        AND cardinality(show_trgm(lower(s.title))) BETWEEN 67 AND 110
        AND lower(s.title) % g.g AND s.scopes && recall.read_scopes()
      UNION ALL
      SELECT s.id, similarity(lower(s.title), g.g)::float8 AS sim
      FROM recall.sources s
      WHERE floor(q.n / floor + 1e-9) >= 111
        AND cardinality(show_trgm(lower(s.title))) >= 111
        AND lower(s.title) % g.g AND s.scopes && recall.read_scopes()
    ) p
    WHERE g.n <= fuzzy_words AND p.sim >= floor
  ) x
  GROUP BY x.id;
END
$$;
-- +goose StatementEnd
-- PL/pgSQL resolves names when it runs: pg_trgm's functions and % are found on the search
-- path, after pg_catalog (which no one else can write), in the schema pg_trgm was created in.
-- +goose StatementBegin
DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION recall.probe_titles(text, int, int, float8) SET search_path = pg_catalog, %I, pg_temp',
    (SELECT n.nspname FROM pg_extension x JOIN pg_namespace n ON n.oid = x.extnamespace WHERE x.extname = 'pg_trgm'));
END
$$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION recall.probe_titles(query text, exact_words int, fuzzy_words int, floor float8)
RETURNS TABLE (id bigint, sim float8, direct boolean)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp SET enable_seqscan = off SET plan_cache_mode = force_generic_plan
ROWS 8
AS $$
BEGIN
  RETURN QUERY
  WITH grams AS MATERIALIZED (
    SELECT DISTINCT array_to_string(w.a[i:i + n - 1], ' ') AS g, n
    FROM (SELECT string_to_array(recall.title_key(query), ' ') AS a) w
    CROSS JOIN generate_series(1, cardinality(w.a)) AS i
    CROSS JOIN generate_series(1, exact_words) AS n
    WHERE i + n - 1 <= cardinality(w.a)
  )
  SELECT x.id, max(x.sim), bool_or(x.direct)
  FROM (
    SELECT p.id, 1.0::float8 AS sim, true AS direct
    FROM grams g
    CROSS JOIN LATERAL (
      SELECT s.id FROM recall.sources s
      WHERE recall.title_key(s.title) = g.g AND s.scopes && recall.read_scopes()
      OFFSET 0
    ) p
    WHERE length(g.g) >= 3
    UNION ALL
    SELECT p.id, p.sim, false
    FROM grams g
    CROSS JOIN LATERAL (SELECT cardinality(show_trgm(g.g)) AS n) q
    CROSS JOIN LATERAL (
      SELECT s.id, similarity(lower(s.title), g.g)::float8 AS sim
      FROM recall.sources s
      WHERE ceil(floor * q.n - 1e-9) <= 8
        AND cardinality(show_trgm(lower(s.title))) <= 8
        AND lower(s.title) % g.g AND s.scopes && recall.read_scopes()
      UNION ALL
      SELECT s.id, similarity(lower(s.title), g.g)::float8 AS sim
      FROM recall.sources s
      WHERE ceil(floor * q.n - 1e-9) <= 14 AND floor(q.n / floor + 1e-9) >= 9
        AND cardinality(show_trgm(lower(s.title))) BETWEEN 9 AND 14
        AND lower(s.title) % g.g AND s.scopes && recall.read_scopes()
      UNION ALL
      SELECT s.id, similarity(lower(s.title), g.g)::float8 AS sim
      FROM recall.sources s
      WHERE ceil(floor * q.n - 1e-9) <= 24 AND floor(q.n / floor + 1e-9) >= 15
        AND cardinality(show_trgm(lower(s.title))) BETWEEN 15 AND 24
        AND lower(s.title) % g.g AND s.scopes && recall.read_scopes()
      UNION ALL
      SELECT s.id, similarity(lower(s.title), g.g)::float8 AS sim
      FROM recall.sources s
      WHERE ceil(floor * q.n - 1e-9) <= 40 AND floor(q.n / floor + 1e-9) >= 25
        AND cardinality(show_trgm(lower(s.title))) BETWEEN 25 AND 40
        AND lower(s.title) % g.g AND s.scopes && recall.read_scopes()
      UNION ALL
      SELECT s.id, similarity(lower(s.title), g.g)::float8 AS sim
      FROM recall.sources s
      WHERE ceil(floor * q.n - 1e-9) <= 66 AND floor(q.n / floor + 1e-9) >= 41
        AND cardinality(show_trgm(lower(s.title))) BETWEEN 41 AND 66
        AND lower(s.title) % g.g AND s.scopes && recall.read_scopes()
      UNION ALL
      SELECT s.id, similarity(lower(s.title), g.g)::float8 AS sim
      FROM recall.sources s
      WHERE ceil(floor * q.n - 1e-9) <= 110 AND floor(q.n / floor + 1e-9) >= 67
        AND cardinality(show_trgm(lower(s.title))) BETWEEN 67 AND 110
        AND lower(s.title) % g.g AND s.scopes && recall.read_scopes()
      UNION ALL
      SELECT s.id, similarity(lower(s.title), g.g)::float8 AS sim
      FROM recall.sources s
      WHERE floor(q.n / floor + 1e-9) >= 111
        AND cardinality(show_trgm(lower(s.title))) >= 111
        AND lower(s.title) % g.g AND s.scopes && recall.read_scopes()
    ) p
    WHERE g.n <= fuzzy_words AND p.sim >= floor
  ) x
  GROUP BY x.id;
END
$$;
-- +goose StatementEnd
-- PL/pgSQL resolves names when it runs: pg_trgm's functions and % are found on the search
-- path, after pg_catalog (which no one else can write), in the schema pg_trgm was created in.
-- +goose StatementBegin
DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION recall.probe_titles(text, int, int, float8) SET search_path = pg_catalog, %I, pg_temp',
    (SELECT n.nspname FROM pg_extension x JOIN pg_namespace n ON n.oid = x.extnamespace WHERE x.extname = 'pg_trgm'));
END
$$;
-- +goose StatementEnd
