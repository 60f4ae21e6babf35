-- Engine.Memory: the caller's memories of external id @id (one per scope set the caller sees
-- that has one; with @scope, those holding it), read under row security by the scope set's
-- key, with their internal ids for the reads that follow (neighbours, entities, relations).
WITH sets AS MATERIALIZED (
  SELECT c.scopes FROM {{visible_corpus}} c
  WHERE @scope::text = '' OR @scope::text = ANY (c.scopes)
)
SELECT m.id AS internal_id, m.source_id AS internal_source, m.external_id AS id, m.scopes, m.kind, m.text, m.speaker,
       s.external_id AS source, s.title AS source_title, m.position, m.occurred_start, m.occurred_end, m.tags,
       coalesce(a.access_count, 0) AS access_count, a.last_accessed,
       sb.external_id AS superseded_by, m.superseded_at, d.external_id AS duplicate_of,
       m.expires_at, m.valid_from, m.valid_until, m.metadata, m.created_at
FROM sets
JOIN {{recall.memories}} m ON m.scopes = sets.scopes AND m.external_id = @id::text
LEFT JOIN {{recall.sources}} s ON s.id = m.source_id AND s.scopes = m.scopes
LEFT JOIN {{recall.memory_access}} a ON a.memory_id = m.id AND a.scopes = m.scopes
LEFT JOIN {{recall.memories}} sb ON sb.id = m.superseded_by AND sb.scopes = m.scopes
LEFT JOIN {{recall.memories}} d ON d.id = m.duplicate_of AND d.scopes = m.scopes
ORDER BY m.scopes
