-- Index probes for the lanes row security kept from their indexes: mention, title, temporal.
--
-- Under row security a caller's own conditions may only be checked before the policy's when
-- they are leakproof, so only leakproof operators become index conditions. pg_trgm's % and
-- <%, && on arrays and lower() are not leakproof: every entity-name and title match scanned
-- the whole visible table and scored each row. Measured on SciFact (18,658 entities, 5,184
-- sources): 225 ms for the fuzzy entity branch and 136 ms for titles, per query.
--
-- The probes below run as the owner (SECURITY DEFINER), so their conditions are index
-- conditions, and apply the read rule of the policies themselves (scopes && read_scopes(), the
-- caller's SET LOCAL scopes): they return only rows the caller can see. The lanes still join
-- what they return to the tables under row security.
--
-- Matching, in words: a query names an entity when one of its mentions (word n-grams of up
-- to four words) is the entity's lowered name or alias, or, fuzzily, has pg_trgm similarity
-- >= floor with its lowered name: one trigram-index probe per mention instead of
-- word_similarity against every name. A query names a source when a word n-gram of its title
-- key (recall.title_key: lowered, runs of other characters than letters and digits made one
-- space) of up to exact_words words is the title's key (a direct source, similarity 1), or,
-- fuzzily, when an n-gram of up to fuzzy_words words has similarity >= floor with the lowered
-- title. Titles are long (a paper title has 10 to 20 words), so a short n-gram's trigrams are
-- found in many of them, and each would be read and rechecked for nothing. Similarity >= t
-- implies that each side has at least t times the other's distinct trigrams, so the title
-- trigram index is split by the title's trigram count (up to 32, 33 to 64, over 64; partial
-- indexes) and an n-gram probes only the parts its bound reaches. On SciFact the title lane
-- measured p50 111.5 ms with one index and 16 ms with a count bound (an index the planner then
-- also used alone, wrongly, on short titles).
-- The probes are index probes by design: enable_seqscan is off inside them, because on small
-- tables the planner prefers a scan that evaluates a trigram or regexp function on every row
-- for every n-gram, whose cost it does not count (the entity probe on 400 entities: 4.2-5.0 ms
-- scanning, 1.6-2.4 ms probing).
-- The fuzzy probes use the trigram index at pg_trgm.similarity_threshold, which the engine
-- sets with SET LOCAL to at most the floor; the floor itself is checked here.

-- The temporal lane walks memories in (occurred_start, id) order, one index probe per step;
-- memories_occurred_idx becomes that two-column index. Memories with long intervals are found
-- by where they end (memories_occurred_end_idx).

-- The GIN indexes the probes read keep no pending list (fastupdate off): a probe scans the
-- whole pending list, and after a bulk load that cost 0.74 ms per probe on 1,000 titles
-- (0.03 ms once the list was merged), 40 ms for a query's n-grams.

-- +goose Up
ALTER INDEX recall.entities_name_trgm_idx SET (fastupdate = off);
ALTER INDEX recall.entities_keys_idx SET (fastupdate = off);
SELECT gin_clean_pending_list('recall.entities_name_trgm_idx'::regclass),
       gin_clean_pending_list('recall.entities_keys_idx'::regclass);
DROP INDEX recall.sources_title_trgm_idx;
CREATE INDEX sources_title_trgm_short_idx ON recall.sources USING gin (lower(title) gin_trgm_ops)
  WITH (fastupdate = off) WHERE cardinality(show_trgm(lower(title))) <= 32;
CREATE INDEX sources_title_trgm_mid_idx ON recall.sources USING gin (lower(title) gin_trgm_ops)
  WITH (fastupdate = off) WHERE cardinality(show_trgm(lower(title))) > 32 AND cardinality(show_trgm(lower(title))) <= 64;
CREATE INDEX sources_title_trgm_long_idx ON recall.sources USING gin (lower(title) gin_trgm_ops)
  WITH (fastupdate = off) WHERE cardinality(show_trgm(lower(title))) > 64;
DROP INDEX recall.memories_occurred_idx;
CREATE INDEX memories_occurred_idx ON recall.memories (occurred_start, id);
CREATE INDEX memories_occurred_end_idx ON recall.memories (occurred_end) WHERE occurred_end IS NOT NULL;
CREATE FUNCTION recall.title_key(title text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN btrim(regexp_replace(lower(title), '[^[:alnum:]]+', ' ', 'g'));

CREATE INDEX sources_title_key_idx ON recall.sources (recall.title_key(title));

-- +goose StatementBegin
CREATE FUNCTION recall.probe_entities(mentions text[], fuzzy boolean, floor float8)
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

-- +goose StatementBegin
CREATE FUNCTION recall.probe_titles(query text, exact_words int, fuzzy_words int, floor float8)
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

GRANT EXECUTE ON FUNCTION recall.probe_entities(text[], boolean, float8) TO recall_runtime;
GRANT EXECUTE ON FUNCTION recall.probe_titles(text, int, int, float8) TO recall_runtime;

-- +goose Down
ALTER INDEX recall.entities_name_trgm_idx RESET (fastupdate);
ALTER INDEX recall.entities_keys_idx RESET (fastupdate);
DROP INDEX recall.sources_title_trgm_long_idx;
DROP INDEX recall.sources_title_trgm_mid_idx;
DROP INDEX recall.sources_title_trgm_short_idx;
CREATE INDEX sources_title_trgm_idx ON recall.sources USING gin (lower(title) gin_trgm_ops);
DROP FUNCTION recall.probe_titles(text, int, int, float8);
DROP FUNCTION recall.probe_entities(text[], boolean, float8);
DROP INDEX recall.sources_title_key_idx;
DROP FUNCTION recall.title_key(text);
DROP INDEX recall.memories_occurred_end_idx;
DROP INDEX recall.memories_occurred_idx;
CREATE INDEX memories_occurred_idx ON recall.memories (occurred_start);
