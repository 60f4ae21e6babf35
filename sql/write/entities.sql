-- Upsert entities by external id within the batch's scope set. @rows is a JSON array of
-- {"id", "name", "kind", "aliases", "blocked_aliases", "metadata"}. With @keep_existing, an
-- entity already there is left as it is (extracted names never overwrite an entity).
INSERT INTO recall.entities AS e (external_id, scopes, name, kind, aliases, blocked_aliases, metadata)
SELECT r.id, @scopes::text[], r.name, coalesce(r.kind, ''), coalesce(r.aliases, '{}'), coalesce(r.blocked_aliases, '{}'),
       coalesce(r.metadata, '{}')
FROM jsonb_to_recordset(@rows::jsonb) AS r(id text, name text, kind text, aliases text[], blocked_aliases text[], metadata jsonb)
ON CONFLICT (scopes, external_id) DO UPDATE
SET name = CASE WHEN @keep_existing::bool THEN e.name ELSE excluded.name END,
    kind = CASE WHEN @keep_existing::bool THEN e.kind ELSE excluded.kind END,
    aliases = CASE WHEN @keep_existing::bool THEN e.aliases ELSE excluded.aliases END,
    blocked_aliases = CASE WHEN @keep_existing::bool THEN e.blocked_aliases ELSE excluded.blocked_aliases END,
    metadata = CASE WHEN @keep_existing::bool THEN e.metadata ELSE excluded.metadata END,
    updated_at = CASE WHEN @keep_existing::bool THEN e.updated_at ELSE excluded.updated_at END
RETURNING e.external_id, e.id
