-- Record what the batch's summaries cover. @rows is a JSON array of {"summary", "memory"}
-- ids. Only a summary of the batch's scope set covers (the writer refuses covers on another
-- kind before this runs); the foreign keys keep both ends in that scope set.
INSERT INTO recall.summary_coverage (summary_id, memory_id, scopes)
SELECT r.summary, r.memory, @scopes::text[]
FROM jsonb_to_recordset(@rows::jsonb) AS r(summary bigint, memory bigint)
JOIN recall.memories s ON s.id = r.summary AND s.scopes = @scopes::text[] AND s.kind = 'summary'
