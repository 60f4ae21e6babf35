-- Record what the batch's summaries cover. @rows is a JSON array of {"summary", "memory"}
-- ids; the row security policies check that the summary is one and that both are visible.
INSERT INTO recall.summary_coverage (summary_id, memory_id, scopes)
SELECT r.summary, r.memory, @scopes::text[]
FROM jsonb_to_recordset(@rows::jsonb) AS r(summary bigint, memory bigint)
