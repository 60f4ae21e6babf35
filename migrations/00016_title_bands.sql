-- The title probe reads trigram indexes split finer by the title's trigram count.
--
-- A fuzzy title match needs trigram similarity >= floor, which bounds the title's distinct
-- trigram count T by the n-gram's G: floor G <= T <= G / floor. Migration 00008 split the
-- title trigram index in three (T up to 32, 33 to 64, over 64), so a one-word n-gram (5 to 9
-- trigrams, matching only titles of at most 15) still read the posting lists of every title
-- of up to 32 trigrams: most titles. At 1M memories (100,000 sources) the probe took 2.3 ms
-- for the exact n-grams and 14-16 ms with the one-word fuzzy n-grams, 56 ms with n-grams of
-- up to four words (psql, same query). The parts now grow by a factor of about 1 / 0.6, so an
-- n-gram reads about two of them: T <= 8, 9-14, 15-24, 25-40, 41-66, 67-110, over 110.
--
-- The probe is now PL/pgSQL with a generic plan, cached per session: a SQL function is
-- planned anew on every call, and with seven parts that planning cost about 2.5 ms, more
-- than the exact n-grams' probes (at 100k memories, 3.9 ms against 1.3 ms per call).

-- +goose Up
DROP INDEX recall.sources_title_trgm_short_idx;
DROP INDEX recall.sources_title_trgm_mid_idx;
DROP INDEX recall.sources_title_trgm_long_idx;
CREATE INDEX sources_title_trgm_1_8_idx ON recall.sources USING gin (lower(title) gin_trgm_ops)
  WITH (fastupdate = off) WHERE cardinality(show_trgm(lower(title))) <= 8;
CREATE INDEX sources_title_trgm_9_14_idx ON recall.sources USING gin (lower(title) gin_trgm_ops)
  WITH (fastupdate = off) WHERE cardinality(show_trgm(lower(title))) BETWEEN 9 AND 14;
CREATE INDEX sources_title_trgm_15_24_idx ON recall.sources USING gin (lower(title) gin_trgm_ops)
  WITH (fastupdate = off) WHERE cardinality(show_trgm(lower(title))) BETWEEN 15 AND 24;
CREATE INDEX sources_title_trgm_25_40_idx ON recall.sources USING gin (lower(title) gin_trgm_ops)
  WITH (fastupdate = off) WHERE cardinality(show_trgm(lower(title))) BETWEEN 25 AND 40;
CREATE INDEX sources_title_trgm_41_66_idx ON recall.sources USING gin (lower(title) gin_trgm_ops)
  WITH (fastupdate = off) WHERE cardinality(show_trgm(lower(title))) BETWEEN 41 AND 66;
CREATE INDEX sources_title_trgm_67_110_idx ON recall.sources USING gin (lower(title) gin_trgm_ops)
  WITH (fastupdate = off) WHERE cardinality(show_trgm(lower(title))) BETWEEN 67 AND 110;
CREATE INDEX sources_title_trgm_111_up_idx ON recall.sources USING gin (lower(title) gin_trgm_ops)
  WITH (fastupdate = off) WHERE cardinality(show_trgm(lower(title))) >= 111;

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

-- +goose Down
DROP INDEX recall.sources_title_trgm_1_8_idx;
DROP INDEX recall.sources_title_trgm_9_14_idx;
DROP INDEX recall.sources_title_trgm_15_24_idx;
DROP INDEX recall.sources_title_trgm_25_40_idx;
DROP INDEX recall.sources_title_trgm_41_66_idx;
DROP INDEX recall.sources_title_trgm_67_110_idx;
DROP INDEX recall.sources_title_trgm_111_up_idx;
CREATE INDEX sources_title_trgm_short_idx ON recall.sources USING gin (lower(title) gin_trgm_ops)
  WITH (fastupdate = off) WHERE cardinality(show_trgm(lower(title))) <= 32;
CREATE INDEX sources_title_trgm_mid_idx ON recall.sources USING gin (lower(title) gin_trgm_ops)
  WITH (fastupdate = off) WHERE cardinality(show_trgm(lower(title))) > 32 AND cardinality(show_trgm(lower(title))) <= 64;
CREATE INDEX sources_title_trgm_long_idx ON recall.sources USING gin (lower(title) gin_trgm_ops)
  WITH (fastupdate = off) WHERE cardinality(show_trgm(lower(title))) > 64;

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION recall.probe_titles(query text, exact_words int, fuzzy_words int, floor float8)
RETURNS TABLE (id bigint, sim float8, direct boolean)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET enable_seqscan = off ROWS 8
BEGIN ATOMIC
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
      WHERE ceil(floor * q.n - 1e-9) <= 32
        AND cardinality(show_trgm(lower(s.title))) <= 32
        AND lower(s.title) % g.g AND s.scopes && recall.read_scopes()
      UNION ALL
      SELECT s.id, similarity(lower(s.title), g.g)::float8
      FROM recall.sources s
      WHERE ceil(floor * q.n - 1e-9) <= 64 AND floor(q.n / floor + 1e-9) > 32
        AND cardinality(show_trgm(lower(s.title))) > 32 AND cardinality(show_trgm(lower(s.title))) <= 64
        AND lower(s.title) % g.g AND s.scopes && recall.read_scopes()
      UNION ALL
      SELECT s.id, similarity(lower(s.title), g.g)::float8
      FROM recall.sources s
      WHERE floor(q.n / floor + 1e-9) > 64
        AND cardinality(show_trgm(lower(s.title))) > 64
        AND lower(s.title) % g.g AND s.scopes && recall.read_scopes()
    ) p
    WHERE g.n <= fuzzy_words AND p.sim >= floor
  ) x
  GROUP BY x.id;
END;
-- +goose StatementEnd
