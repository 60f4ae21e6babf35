-- resolve_fuzzy.sql's answer as the caller, under row security: on Citus, where the owner's
-- function cannot read placements the writer's transaction changed. % is not leakproof, so
-- it runs against every entity of the set the policy lets through (sql/write/entity_resolve.sql).
SELECT c.name, e.id, e.sim
FROM unnest(@names::text[]) AS c(name)
CROSS JOIN LATERAL (
  SELECT e.id, similarity(lower(e.name), c.name)::float8 AS sim
  FROM recall.entities e
  WHERE e.scopes = @scopes::text[] AND lower(e.name) % c.name
  ORDER BY similarity(lower(e.name), c.name) DESC, e.id
  LIMIT 1
) e
