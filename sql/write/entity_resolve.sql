-- recall.resolve_fuzzy(names, set): for each name (lowered), the entity of scope set `set`
-- whose lowered name is most similar by trigrams, at least pg_trgm.similarity_threshold (the
-- writer sets 0.8), the lower id on a tie, and the similarity; names with no match are
-- absent. What sql/write/resolve_fuzzy_plain.sql asks under row security, by index.
--
-- Under row security pg_trgm's % is not leakproof, so the policy's condition is checked first
-- and % then runs against every entity of the set: a batch of N names cost N times the set's
-- entities (a LongMemEval import of 2,000 turns called similarity 8.9 million times, half of
-- its time, and each batch cost more than the one before). This function runs as the owner,
-- applies the read policy itself (scopes && read_scopes(), as recall.probe_entities does) and
-- reads the name trigram index's parts (sql/lanes/entity_probe.sql) that the similarity
-- bound reaches, so a name costs index probes, not a pass over the set. The set is matched by
-- @> and <@ (equal sets: scopes are sorted and unique), which only those GIN indexes answer:
-- with `=`, the statistics of a table growing by the batch made the planner read the whole
-- set by the btree on (scopes, external_id) and test % on every row again. The writer calls it on
-- one server only: on Citus the owner's reads would take other connections to placements the
-- writer's transaction has changed (its speakers' entities), which Citus refuses, so there
-- the plain statement runs.
DROP FUNCTION IF EXISTS recall.resolve_fuzzy(text[], text[]);
CREATE FUNCTION recall.resolve_fuzzy(names text[], set text[])
RETURNS TABLE (name text, id bigint, sim float8)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp SET enable_seqscan = off
AS $$
DECLARE
  floor float8 := current_setting('pg_trgm.similarity_threshold')::float8;
BEGIN
  RETURN QUERY
  SELECT c.name, b.id, b.sim::float8
  FROM unnest(names) AS c(name)
  CROSS JOIN LATERAL (SELECT cardinality(show_trgm(c.name)) AS n) q
  CROSS JOIN LATERAL (
    SELECT p.id, p.sim
    FROM (
{{- range $i, $b := .NameBands}}{{if $i}}
      UNION ALL{{end}}
      SELECT e.id, similarity(lower(e.name), c.name) AS sim
      FROM recall.entities e
      WHERE {{$b.Reach}}
        AND cardinality(show_trgm(lower(e.name))) {{$b.Pred}}
        AND lower(e.name) % c.name AND e.scopes @> set AND e.scopes <@ set AND e.scopes && recall.read_scopes()
{{- end}}
    ) p
    ORDER BY p.sim DESC, p.id
    LIMIT 1
  ) b;
END
$$;
{{template "trgm_search_path" "recall.resolve_fuzzy(text[], text[])"}}
REVOKE ALL ON FUNCTION recall.resolve_fuzzy(text[], text[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION recall.resolve_fuzzy(text[], text[]) TO recall_runtime;
