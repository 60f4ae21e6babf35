-- The entity probe reads the names of 15 or more trigrams in parts, by trigram count, and
-- keeps its plan.
--
-- recall.probe_entities (migration 00008) probes the name trigram index once per mention of
-- the query: its word n-grams of up to four words, 34 for a ten-word question. A fuzzy
-- match needs similarity >= floor, which bounds the name's distinct trigram count T by the
-- mention's G: floor G <= T <= G / floor. Names are short (a person's name has 10 to 20
-- trigrams), so the three- and four-word mentions (G of 20 to 35) cannot match most of them,
-- yet each probe read the posting lists of all their trigrams. As for titles (migration
-- 00016), partial indexes split the names of T >= 15 in three (15-24, 25-40, over 40): a
-- mention whose bound excludes the names under 15 trigrams probes only the parts its bound
-- reaches. A shorter mention probes the whole-name index once, as before: split further, it
-- would probe two or three small indexes where it read one, and at 100k memories that cost
-- more than it saved. The whole-name index also serves the write path's entity resolution
-- (sql/write/resolve_fuzzy.sql).
--
-- The probe becomes PL/pgSQL with a generic plan cached per session, like probe_titles: a
-- SQL function is planned on every call.
--
-- Measured on the statement cut after mention_entities (BenchmarkStages, 150 recalls a run,
-- this function and 00008's swapped in turn on the same corpus): at 1M memories (20,000
-- entities) 5.45-5.65 ms p50 before, 4.48-4.61 after; at 100k (2,000 entities) no difference
-- (2.10-2.20 before, 2.00-2.42 after). With every name split in five parts, 1M gained
-- 1.3 ms, but 100k lost about 0.2.

-- +goose Up
CREATE INDEX entities_name_trgm_15_24_idx ON recall.entities USING gin (lower(name) gin_trgm_ops)
  WITH (fastupdate = off) WHERE cardinality(show_trgm(lower(name))) BETWEEN 15 AND 24;
CREATE INDEX entities_name_trgm_25_40_idx ON recall.entities USING gin (lower(name) gin_trgm_ops)
  WITH (fastupdate = off) WHERE cardinality(show_trgm(lower(name))) BETWEEN 25 AND 40;
CREATE INDEX entities_name_trgm_41_up_idx ON recall.entities USING gin (lower(name) gin_trgm_ops)
  WITH (fastupdate = off) WHERE cardinality(show_trgm(lower(name))) >= 41;

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION recall.probe_entities(mentions text[], fuzzy boolean, floor float8)
RETURNS TABLE (id bigint, sim float8)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp SET enable_seqscan = off SET plan_cache_mode = force_generic_plan
ROWS 16
AS $$
BEGIN
  RETURN QUERY
  SELECT x.id, max(x.sim)
  FROM (
    SELECT e.id, 1.0::float8 AS sim
    FROM recall.entities e
    WHERE e.keys && mentions AND e.scopes && recall.read_scopes()
    UNION ALL
    SELECT p.id, p.sim
    FROM unnest(mentions) AS g(mention)
    CROSS JOIN LATERAL (SELECT cardinality(show_trgm(g.mention)) AS n) q
    CROSS JOIN LATERAL (
      -- A mention that may match a name of under 15 trigrams: the whole-name index.
      SELECT e.id, similarity(lower(e.name), g.mention)::float8 AS sim
      FROM recall.entities e
      WHERE ceil(floor * q.n - 1e-9) <= 14
        AND lower(e.name) % g.mention AND e.scopes && recall.read_scopes()
      UNION ALL
      -- A longer one: the parts of the names its bound reaches.
      SELECT e.id, similarity(lower(e.name), g.mention)::float8 AS sim
      FROM recall.entities e
      WHERE ceil(floor * q.n - 1e-9) BETWEEN 15 AND 24
        AND cardinality(show_trgm(lower(e.name))) BETWEEN 15 AND 24
        AND lower(e.name) % g.mention AND e.scopes && recall.read_scopes()
      UNION ALL
      SELECT e.id, similarity(lower(e.name), g.mention)::float8 AS sim
      FROM recall.entities e
      WHERE ceil(floor * q.n - 1e-9) BETWEEN 15 AND 40 AND floor(q.n / floor + 1e-9) >= 25
        AND cardinality(show_trgm(lower(e.name))) BETWEEN 25 AND 40
        AND lower(e.name) % g.mention AND e.scopes && recall.read_scopes()
      UNION ALL
      SELECT e.id, similarity(lower(e.name), g.mention)::float8 AS sim
      FROM recall.entities e
      WHERE ceil(floor * q.n - 1e-9) >= 15 AND floor(q.n / floor + 1e-9) >= 41
        AND cardinality(show_trgm(lower(e.name))) >= 41
        AND lower(e.name) % g.mention AND e.scopes && recall.read_scopes()
    ) p
    WHERE fuzzy AND p.sim >= floor
  ) x
  GROUP BY x.id;
END
$$;
-- +goose StatementEnd
-- PL/pgSQL resolves names when it runs: pg_trgm's functions and % are found on the search
-- path, after pg_catalog, in the schema pg_trgm was created in (as for probe_titles).
-- +goose StatementBegin
DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION recall.probe_entities(text[], boolean, float8) SET search_path = pg_catalog, %I, pg_temp',
    (SELECT n.nspname FROM pg_extension x JOIN pg_namespace n ON n.oid = x.extnamespace WHERE x.extname = 'pg_trgm'));
END
$$;
-- +goose StatementEnd

-- +goose Down
DROP INDEX recall.entities_name_trgm_15_24_idx;
DROP INDEX recall.entities_name_trgm_25_40_idx;
DROP INDEX recall.entities_name_trgm_41_up_idx;
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION recall.probe_entities(mentions text[], fuzzy boolean, floor float8)
RETURNS TABLE (id bigint, sim float8)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET enable_seqscan = off ROWS 16
BEGIN ATOMIC
  SELECT x.id, max(x.sim)
  FROM (
    SELECT e.id, 1.0::float8 AS sim
    FROM recall.entities e
    WHERE e.keys && mentions AND e.scopes && recall.read_scopes()
    UNION ALL
    SELECT p.id, p.sim
    FROM unnest(mentions) AS g(mention)
    CROSS JOIN LATERAL (
      SELECT e.id, similarity(lower(e.name), g.mention)::float8 AS sim
      FROM recall.entities e
      WHERE fuzzy AND lower(e.name) % g.mention AND e.scopes && recall.read_scopes()
      OFFSET 0
    ) p
    WHERE p.sim >= floor
  ) x
  GROUP BY x.id;
END;
-- +goose StatementEnd
