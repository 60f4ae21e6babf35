-- The primary's current WAL position in bytes (read-your-writes with a replica: replica.go).
SELECT (pg_current_wal_lsn() - '0/0'::pg_lsn)::bigint
