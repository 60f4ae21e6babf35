-- Replace what the batch's updated memories linked: their mentions and the relations they
-- are evidence for. New links are written next.
WITH gone AS (
  DELETE FROM recall.mentions WHERE memory_id = ANY(@ids::bigint[])
)
DELETE FROM recall.relations WHERE memory_id = ANY(@ids::bigint[])
