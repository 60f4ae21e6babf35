-- The primary's WAL insert position in bytes, after a write has committed (read-your-writes
-- with a replica: replica.go). The insert position, not pg_current_wal_lsn(), the write
-- position: with synchronous_commit off a commit returns before its record is written out,
-- so the write position can lie before the commit; the commit record was inserted before
-- COMMIT returned, so the insert position is at or past it.
SELECT (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::bigint
