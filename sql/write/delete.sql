-- Delete memories of the batch's scope set by external id, and the summaries that cover
-- them (a summary of a memory that is gone no longer says what the memories say). Mentions,
-- relations they are evidence for, access rows and BM25 data go with them. Returns, per
-- deleted row, whether the caller named it (by its external id: Citus refuses a subquery in
-- RETURNING). Every table is read within the scope set, so on Citus it runs on one shard.
WITH named AS (
  SELECT id FROM recall.memories WHERE scopes = @scopes::text[] AND external_id = ANY(@ids::text[])
)
DELETE FROM recall.memories m
WHERE m.scopes = @scopes::text[]
  AND (m.id IN (SELECT id FROM named)
       OR (m.kind = 'summary' AND m.id IN (SELECT sc.summary_id FROM recall.summary_coverage sc
                                          WHERE sc.scopes = @scopes::text[] AND sc.memory_id IN (SELECT id FROM named))))
RETURNING m.external_id = ANY (@ids::text[])
