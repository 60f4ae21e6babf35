-- How far a standby has replayed its primary's WAL, in bytes (0 when it is not a standby).
SELECT coalesce((pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::bigint, 0)
