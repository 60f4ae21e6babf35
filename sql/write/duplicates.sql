-- The duplicate keys of the batch's memories without a place, and for each the stored memory
-- of the scope set it restates, if any: the same key, kind and speaker, no place, not itself
-- a duplicate, another external id; the oldest such; and whether the memory is stored
-- already (a memory rewritten under its own id is never a duplicate). The key is
-- recall.text_key (@match 'text', migration 00011) or recall.words_key (@match 'words',
-- migration 00013), each read through its own index; a text whose words key is empty (only
-- fillers: "Oh!") has none, and restates nothing. @rows is a JSON array of {"i" (the batch
-- index), "id", "kind", "speaker", "text"}. Runs as the writer.
SELECT r.i, k.key,
       EXISTS (SELECT 1 FROM recall.memories s WHERE s.scopes = @scopes::text[] AND s.external_id = r.id) AS existing,
       CASE WHEN k.key IS NULL THEN NULL
            WHEN @match::text = 'words' THEN
              (SELECT m.id FROM recall.memories m
                WHERE m.scopes = @scopes::text[] AND m.position IS NULL
                  AND md5(recall.words_key(m.text)) = md5(k.key) AND recall.words_key(m.text) = k.key
                  AND m.kind = coalesce(r.kind, 'world') AND m.speaker = coalesce(r.speaker, '')
                  AND m.duplicate_of IS NULL AND m.external_id <> r.id
                ORDER BY m.id LIMIT 1)
            ELSE
              (SELECT m.id FROM recall.memories m
                WHERE m.scopes = @scopes::text[] AND m.position IS NULL
                  AND md5(recall.text_key(m.text)) = md5(k.key) AND recall.text_key(m.text) = k.key
                  AND m.kind = coalesce(r.kind, 'world') AND m.speaker = coalesce(r.speaker, '')
                  AND m.duplicate_of IS NULL AND m.external_id <> r.id
                ORDER BY m.id LIMIT 1)
       END AS stored
FROM jsonb_to_recordset(@rows::jsonb) AS r(i int, id text, kind text, speaker text, text text)
CROSS JOIN LATERAL (SELECT CASE WHEN @match::text = 'words' THEN nullif(recall.words_key(r.text), '')
                                ELSE recall.text_key(r.text) END AS key) k
ORDER BY r.i
