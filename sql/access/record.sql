-- Stamp last_accessed and count one access for each packed memory the caller may write.
-- Rows are locked in id order first, so concurrent recalls touching overlapping memories
-- queue on each other instead of deadlocking. Row security applies: a memory outside the
-- caller's write scopes is silently not stamped (the count tells the caller).
WITH target AS (
  SELECT m.id
  FROM recall.memories m
  WHERE m.id = ANY(@ids::bigint[])
  ORDER BY m.id
  FOR NO KEY UPDATE
)
UPDATE recall.memories m
SET last_accessed = greatest(m.last_accessed, @at::timestamptz),
    access_count = m.access_count + 1
FROM target
WHERE m.id = target.id
