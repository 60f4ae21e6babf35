-- The first scopes that hold memories, by name (recall query's note on empty scopes, as the
-- owner; the command prints at most twenty).
SELECT s FROM (SELECT DISTINCT unnest(scopes) AS s FROM recall.memories) x ORDER BY s LIMIT 21
