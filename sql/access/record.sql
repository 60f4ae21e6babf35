-- Count one access for each packed memory the caller may write, stamping the time. Rows are
-- inserted and locked in memory id order, so concurrent recalls touching overlapping
-- memories queue on each other instead of deadlocking. Row security applies: a memory the
-- caller cannot see, or an access row outside the caller's write scopes, is not stamped (the
-- row count tells the caller). The memories are locked FOR KEY SHARE as they are read: a
-- memory a concurrent transaction deletes is waited for and then skipped, where without the
-- lock the insert would reference the deleted row and fail the whole pack's recording.
-- @set names the one scope set to stamp (on a Citus cluster, whose shard the statement is
-- routed to: record_sets.sql), or is NULL for every set (one server).
INSERT INTO recall.memory_access AS a (memory_id, scopes, last_accessed, access_count)
SELECT m.id, m.scopes, @at::timestamptz, 1
FROM recall.memories m
WHERE m.id = ANY(@ids::bigint[])
  AND m.scopes <@ (SELECT recall.write_scopes())
  AND (@set::text[] IS NULL OR m.scopes = @set::text[])
ORDER BY m.id
FOR KEY SHARE OF m
ON CONFLICT (memory_id, scopes) DO UPDATE
SET last_accessed = greatest(a.last_accessed, excluded.last_accessed),
    access_count = a.access_count + 1
