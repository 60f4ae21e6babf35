-- The duplicate keys of the batch's memories without a place, and for each the stored memory
-- of the scope set it restates, if any (migration 00011): the same recall.text_key, kind and
-- speaker, no place, not itself a duplicate, another external id; the oldest such; and whether
-- the memory is stored already (a memory rewritten under its own id is never a duplicate).
-- @rows is a JSON array of {"i" (the batch index), "id", "kind", "speaker", "text"}. Runs as
-- the writer.
SELECT r.i, recall.text_key(r.text) AS key,
       EXISTS (SELECT 1 FROM recall.memories s WHERE s.scopes = @scopes::text[] AND s.external_id = r.id) AS existing,
       (SELECT m.id FROM recall.memories m
         WHERE m.scopes = @scopes::text[] AND m.position IS NULL
           AND md5(recall.text_key(m.text)) = md5(recall.text_key(r.text))
           AND recall.text_key(m.text) = recall.text_key(r.text)
           AND m.kind = coalesce(r.kind, 'world') AND m.speaker = coalesce(r.speaker, '')
           AND m.duplicate_of IS NULL AND m.external_id <> r.id
         ORDER BY m.id LIMIT 1) AS stored
FROM jsonb_to_recordset(@rows::jsonb) AS r(i int, id text, kind text, speaker text, text text)
ORDER BY r.i
