-- For each name (lowered), the entity of the batch's scope set whose name is most similar by
-- trigrams, at least pg_trgm.similarity_threshold (set by the caller). Names with no match
-- are absent. Only names of several words come here: a short single token (an acronym, a
-- gene) shares trigrams with too many names to be matched loosely.
SELECT c.name, e.id
FROM unnest(@names::text[]) AS c(name)
CROSS JOIN LATERAL (
  SELECT e.id
  FROM recall.entities e
  WHERE e.scopes = @scopes::text[] AND lower(e.name) % c.name
  ORDER BY similarity(lower(e.name), c.name) DESC, e.id
  LIMIT 1
) e
