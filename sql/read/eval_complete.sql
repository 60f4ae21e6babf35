-- Whether an evaluation database's ingest completed: aizk-eval writes its marker source last
-- (as the owner of that database).
SELECT EXISTS (SELECT 1 FROM recall.sources WHERE external_id = 'aizk:complete')
