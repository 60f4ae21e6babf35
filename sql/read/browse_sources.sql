-- Engine.Browse's sources: the sources of the scope sets the caller sees (with @scope, those
-- holding it), read under row security by each scope set's key, newest first (by
-- occurred_at, then id), each with how many memories it holds; at most @limit. internal_id
-- is the order's last key, by which Engine.Browse merges the sets of a Citus cluster.
WITH sets AS MATERIALIZED (
  SELECT c.scopes FROM {{visible_corpus}} c
  WHERE @scope::text = '' OR @scope::text = ANY (c.scopes)
)
SELECT s.id AS internal_id, s.external_id AS id, s.title, s.occurred_at,
       (SELECT count(*) FROM {{recall.memories}} m WHERE m.source_id = s.id AND m.scopes = s.scopes) AS memories
FROM sets
CROSS JOIN LATERAL (
  SELECT s.id, s.external_id, s.title, s.occurred_at, s.scopes FROM {{recall.sources}} s
  WHERE s.scopes = sets.scopes
  ORDER BY s.occurred_at DESC NULLS LAST, s.id DESC
  LIMIT @limit::int
) s
ORDER BY s.occurred_at DESC NULLS LAST, s.id DESC
LIMIT @limit::int
