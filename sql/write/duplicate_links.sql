-- Mark the batch's linked duplicates (Batch.Duplicates "link"). @rows is a JSON array of
-- {"id", "of"}: memory ids. Runs as the writer, under row security; the key on (duplicate_of,
-- scopes) keeps both in the scope set.
UPDATE recall.memories m SET duplicate_of = r.of
FROM jsonb_to_recordset(@rows::jsonb) AS r(id bigint, of bigint)
WHERE m.id = r.id AND m.scopes = @scopes::text[]
