-- Upsert memories by external id within the batch's scope set. @rows is a JSON array of
-- {"id", "source", "kind", "text", "embedding" (the place of the row's embedding in
-- @embeddings, from 1: the vectors go in pgvector's binary form, not as text inside the
-- JSON, whose parsing cost 8.5-9.7 ms of a batch of 100 chat messages), "occurred_start",
-- "occurred_end", "mentioned_at", "refers_start", "refers_end", "expires_at", "valid_from",
-- "valid_until", "tags", "metadata", "position", "speaker"}; "source" is the id of a source
-- of the same scope set (the writer resolved it; the key checks it). No join: on Citus an
-- INSERT ... SELECT joined to a distributed table is not pushed down. Triggers
-- keep the lexical data and BM25 statistics. Returns each memory's id and whether it already
-- existed. An update stamps updated_at with the inserted row's default (excluded), not now():
-- Citus allows only immutable functions in an ON CONFLICT's SET.
INSERT INTO recall.memories AS m (external_id, scopes, source_id, kind, text, embedding,
                                  occurred_start, occurred_end, mentioned_at, refers_start, refers_end, expires_at,
                                  valid_from, valid_until, tags, metadata, position, speaker)
SELECT r.id, @scopes::text[], r.source, coalesce(r.kind, 'world'), r.text, (@embeddings::vector[])[r.embedding],
       r.occurred_start, r.occurred_end, r.mentioned_at, r.refers_start, r.refers_end, r.expires_at,
       r.valid_from, r.valid_until, coalesce(r.tags, '{}'), coalesce(r.metadata, '{}'), r.position, coalesce(r.speaker, '')
FROM jsonb_to_recordset(@rows::jsonb) AS r(id text, source bigint, kind text, text text, embedding int,
       occurred_start timestamptz, occurred_end timestamptz, mentioned_at timestamptz,
       refers_start timestamptz, refers_end timestamptz, expires_at timestamptz,
       valid_from timestamptz, valid_until timestamptz, tags text[], metadata jsonb, position integer, speaker text)
ON CONFLICT (scopes, external_id) DO UPDATE
SET source_id = excluded.source_id, kind = excluded.kind, text = excluded.text, embedding = excluded.embedding,
    occurred_start = excluded.occurred_start, occurred_end = excluded.occurred_end,
    mentioned_at = excluded.mentioned_at, refers_start = excluded.refers_start, refers_end = excluded.refers_end,
    expires_at = excluded.expires_at, valid_from = excluded.valid_from, valid_until = excluded.valid_until,
    tags = excluded.tags, metadata = excluded.metadata,
    position = excluded.position, speaker = excluded.speaker, updated_at = excluded.updated_at
RETURNING m.external_id, m.id, (xmax <> 0) AS existed
