-- recall export: a scope set's memories in the order they were first written, read as the
-- caller under row security, each with what it names by external id: its source, the
-- entities it mentions other than as its speaker (its speaker is linked again by name), the
-- memories a summary covers, those it supersedes with when each stopped holding, the one it
-- is a duplicate of; and the internal ids of those it names, so the export can write a
-- memory after the memories it names. The embedding only when @embeddings. Every table is
-- bound to @scopes by name, so that Citus routes the whole statement to the set's shard.
SELECT m.id, m.external_id, s.external_id AS source, m.kind, m.text,
       CASE WHEN @embeddings::boolean THEN m.embedding::real[] END AS embedding,
       m.occurred_start, m.occurred_end, m.mentioned_at, m.refers_start, m.refers_end, m.expires_at,
       m.valid_from, m.valid_until, m.tags, m.metadata, m.speaker, coalesce(m.position, 0) AS position,
       coalesce(x.entities, '{}') AS entities, coalesce(c.covers, '{}') AS covers, coalesce(c.covered, '{}') AS covered,
       coalesce(o.olds, '{}') AS supersedes, coalesce(o.old_ids, '{}') AS superseded, coalesce(o.ats, '{}') AS superseded_at,
       d.external_id AS duplicate_of, m.duplicate_of AS duplicate_id
FROM recall.memories m
LEFT JOIN recall.sources s ON s.id = m.source_id AND s.scopes = @scopes::text[]
LEFT JOIN recall.memories d ON d.id = m.duplicate_of AND d.scopes = @scopes::text[]
LEFT JOIN LATERAL (
  SELECT array_agg(e.external_id ORDER BY e.id) AS entities
  FROM recall.mentions n JOIN recall.entities e ON e.id = n.entity_id AND e.scopes = @scopes::text[]
  WHERE n.memory_id = m.id AND n.scopes = @scopes::text[] AND NOT n.speaker
) x ON true
LEFT JOIN LATERAL (
  SELECT array_agg(v.external_id ORDER BY v.id) AS covers, array_agg(v.id ORDER BY v.id) AS covered
  FROM recall.summary_coverage k JOIN recall.memories v ON v.id = k.memory_id AND v.scopes = @scopes::text[]
  WHERE k.summary_id = m.id AND k.scopes = @scopes::text[]
) c ON true
LEFT JOIN LATERAL (
  SELECT array_agg(p.external_id ORDER BY p.id) AS olds, array_agg(p.id ORDER BY p.id) AS old_ids,
         array_agg(p.superseded_at ORDER BY p.id) AS ats
  FROM recall.memories p
  WHERE p.superseded_by = m.id AND p.scopes = @scopes::text[]
) o ON true
WHERE m.scopes = @scopes::text[]
ORDER BY m.id
