-- Record what the batch's summaries cover. @rows is a JSON array of {"summary", "memory"}
-- ids. Only a summary of the batch's scope set covers (the writer refuses covers on another
-- kind before this runs); the foreign keys keep both ends in that scope set. No conflict can
-- happen (the batch's summaries lost their coverage just before, and a summary's covers are
-- distinct): ON CONFLICT is there for Citus, which runs an INSERT ... SELECT it cannot push
-- down by COPY into the shards, refused under row security, unless it has ON CONFLICT or
-- RETURNING (then by INSERT statements).
INSERT INTO recall.summary_coverage (summary_id, memory_id, scopes)
SELECT r.summary, r.memory, @scopes::text[]
FROM jsonb_to_recordset(@rows::jsonb) AS r(summary bigint, memory bigint)
ON CONFLICT DO NOTHING
