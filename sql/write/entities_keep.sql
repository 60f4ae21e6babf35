-- Insert extracted entities by external id within the batch's scope set; an entity already
-- there is left as it is (the SET touches no column that means anything), and its id is
-- returned like a new one's. @rows as in entities.sql.
INSERT INTO recall.entities AS e (external_id, scopes, name, kind, aliases, blocked_aliases, metadata)
SELECT r.id, @scopes::text[], r.name, coalesce(r.kind, ''), coalesce(r.aliases, '{}'), coalesce(r.blocked_aliases, '{}'),
       coalesce(r.metadata, '{}')
FROM jsonb_to_recordset(@rows::jsonb) AS r(id text, name text, kind text, aliases text[], blocked_aliases text[], metadata jsonb)
ON CONFLICT (scopes, external_id) DO UPDATE SET updated_at = e.updated_at
RETURNING e.external_id, e.id
