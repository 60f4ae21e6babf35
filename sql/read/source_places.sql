-- The greatest place stored in each of the named sources of a scope set (0: none), read as
-- the caller under row security: a resumed ingest continues a conversation's places after it.
SELECT s.external_id, coalesce(max(m.position), 0)::int
FROM recall.sources s
LEFT JOIN recall.memories m ON m.source_id = s.id AND m.scopes = s.scopes
WHERE s.scopes = @scopes::text[] AND s.external_id = ANY (@sources::text[])
GROUP BY s.external_id
