-- Upsert sources by external id within the batch's scope set. @rows is a JSON array of
-- {"id", "title", "uri", "occurred_at", "metadata"}. Runs as the writer, under row security.
INSERT INTO recall.sources AS s (external_id, scopes, title, uri, occurred_at, metadata)
SELECT r.id, @scopes::text[], coalesce(r.title, ''), coalesce(r.uri, ''), r.occurred_at, coalesce(r.metadata, '{}')
FROM jsonb_to_recordset(@rows::jsonb) AS r(id text, title text, uri text, occurred_at timestamptz, metadata jsonb)
ON CONFLICT (scopes, external_id) DO UPDATE
SET title = excluded.title, uri = excluded.uri, occurred_at = excluded.occurred_at,
    metadata = excluded.metadata, updated_at = excluded.updated_at
RETURNING s.external_id, s.id
