-- One aizk-eval ingest per database at a time, for the session (released by eval_unlock.sql
-- or when the session ends).
SELECT pg_advisory_lock(hashtext('aizk-eval ingest'))
