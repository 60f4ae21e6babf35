-- The entity probe reads the name trigram index in parts, by the name's trigram count, and
-- keeps its plan.
--
-- recall.probe_entities (migration 00008) probes the name trigram index once per mention of
-- the query: its word n-grams of up to four words, 66 for an 18-word SciFact claim. A fuzzy
-- match needs similarity >= floor, which bounds the name's distinct trigram count T by the
-- mention's G: floor G <= T <= G / floor. Names are short (on SciFact, 9,100 of the 16,900
-- extracted names have at most 8 trigrams; a person's name has 10 to 20), so most mentions
-- can only match a small share of them, yet each probe read the posting lists of all their
-- trigrams. As for titles (migration 00016), partial indexes split the names by T (up to 8,
-- 9-14, 15-24, 25-40, over 40) and a mention probes only the parts its bound reaches. The
-- whole-name index stays for the write path's entity resolution (sql/write/resolve_fuzzy.sql).
--
-- The probe becomes PL/pgSQL with a generic plan cached per session, like probe_titles: a
-- SQL function is planned on every call.
--
-- Measured (p50, the old and new function swapped in turn on one database):
-- - SciFact (5,183 abstracts, 16,922 names), the mention lane alone over 60 claims, two runs
--   each: 10.6-11.0 ms before, 7.6-9.6 after (11.2-12.7 with only the names of 15 or more
--   trigrams split, the others read from the whole-name index).
-- - Synthetic corpus at 1M memories (20,000 names), the statement cut after
--   mention_entities (BenchmarkStages): 5.45-5.65 ms before, 3.8-3.9 after.
-- - At 100k (2,000 names, a small index whose cost is the tree descents more than the lists):
--   1.9-3.0 ms before, 2.2-2.6 after; no gain, a loss of 0.2 ms at most.

-- +goose Up
CREATE INDEX entities_name_trgm_1_8_idx ON recall.entities USING gin (lower(name) gin_trgm_ops)
  WITH (fastupdate = off) WHERE cardinality(show_trgm(lower(name))) <= 8;
CREATE INDEX entities_name_trgm_9_14_idx ON recall.entities USING gin (lower(name) gin_trgm_ops)
  WITH (fastupdate = off) WHERE cardinality(show_trgm(lower(name))) BETWEEN 9 AND 14;
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
      SELECT e.id, similarity(lower(e.name), g.mention)::float8 AS sim
      FROM recall.entities e
      WHERE ceil(floor * q.n - 1e-9) <= 8
        AND cardinality(show_trgm(lower(e.name))) <= 8
        AND lower(e.name) % g.mention AND e.scopes && recall.read_scopes()
      UNION ALL
      SELECT e.id, similarity(lower(e.name), g.mention)::float8 AS sim
      FROM recall.entities e
      WHERE ceil(floor * q.n - 1e-9) <= 14 AND floor(q.n / floor + 1e-9) >= 9
        AND cardinality(show_trgm(lower(e.name))) BETWEEN 9 AND 14
        AND lower(e.name) % g.mention AND e.scopes && recall.read_scopes()
      UNION ALL
      SELECT e.id, similarity(lower(e.name), g.mention)::float8 AS sim
      FROM recall.entities e
      WHERE ceil(floor * q.n - 1e-9) <= 24 AND floor(q.n / floor + 1e-9) >= 15
        AND cardinality(show_trgm(lower(e.name))) BETWEEN 15 AND 24
        AND lower(e.name) % g.mention AND e.scopes && recall.read_scopes()
      UNION ALL
      SELECT e.id, similarity(lower(e.name), g.mention)::float8 AS sim
      FROM recall.entities e
      WHERE ceil(floor * q.n - 1e-9) <= 40 AND floor(q.n / floor + 1e-9) >= 25
        AND cardinality(show_trgm(lower(e.name))) BETWEEN 25 AND 40
        AND lower(e.name) % g.mention AND e.scopes && recall.read_scopes()
      UNION ALL
      SELECT e.id, similarity(lower(e.name), g.mention)::float8 AS sim
      FROM recall.entities e
      WHERE floor(q.n / floor + 1e-9) >= 41
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
DROP INDEX recall.entities_name_trgm_1_8_idx;
DROP INDEX recall.entities_name_trgm_9_14_idx;
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
