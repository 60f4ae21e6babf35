-- The external ids of a scope set's memories expired at @now (Engine.Prune), read as the
-- caller under row security.
SELECT external_id FROM recall.memories
WHERE scope_key = recall.scope_key(@scopes::text[]) AND scopes = @scopes::text[] AND expires_at <= @now::timestamptz
ORDER BY external_id
