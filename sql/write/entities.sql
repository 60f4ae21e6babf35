-- Upsert entities by external id within the batch's scope set, overwriting one already
-- there (entities the caller gives). @rows is a JSON array of {"id", "name", "kind",
-- "aliases", "blocked_aliases", "metadata"}. entities_keep.sql is the same insert for
-- extracted names, which never overwrite an entity. Neither takes a parameter in its SET:
-- Citus sends that clause to the workers without the parameters' types.
INSERT INTO recall.entities AS e (external_id, scopes, name, kind, aliases, blocked_aliases, metadata)
SELECT r.id, @scopes::text[], r.name, coalesce(r.kind, ''), coalesce(r.aliases, '{}'), coalesce(r.blocked_aliases, '{}'),
       coalesce(r.metadata, '{}')
FROM jsonb_to_recordset(@rows::jsonb) AS r(id text, name text, kind text, aliases text[], blocked_aliases text[], metadata jsonb)
ON CONFLICT (scopes, external_id) DO UPDATE
SET name = excluded.name, kind = excluded.kind, aliases = excluded.aliases, blocked_aliases = excluded.blocked_aliases,
    metadata = excluded.metadata, updated_at = excluded.updated_at
RETURNING e.external_id, e.id
