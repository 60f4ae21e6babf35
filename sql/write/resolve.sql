-- For each name, the entity of the batch's scope set it refers to: one whose name or alias
-- equals it (case-insensitively), else the one whose name is most similar by trigrams, at
-- least pg_trgm.similarity_threshold (set by the caller). Names with no match are absent.
SELECT c.name, e.id
FROM unnest(@names::text[]) AS c(name)
CROSS JOIN LATERAL (
  SELECT e.id
  FROM recall.entities e
  WHERE e.scopes = @scopes::text[]
    AND (e.keys @> ARRAY[lower(c.name)] OR lower(e.name) % lower(c.name))
  ORDER BY e.keys @> ARRAY[lower(c.name)] DESC, similarity(lower(e.name), lower(c.name)) DESC, e.id
  LIMIT 1
) e
