-- recall export: a scope set's sources, read as the caller under row security, in the order
-- they were first written.
SELECT external_id, title, uri, occurred_at, metadata
FROM recall.sources
WHERE scopes = @scopes::text[]
ORDER BY id
