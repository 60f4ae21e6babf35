-- Release eval_lock.sql's lock.
SELECT pg_advisory_unlock(hashtext('aizk-eval ingest'))
