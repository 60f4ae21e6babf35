-- What recall consolidate asks a model about, for scope set @scopes: each entity two or more
-- memories name (not as their speaker) that hold at @now, with its @max most recent such
-- memories, oldest first (by valid_from, else occurred_start, else when written); summaries
-- and linked duplicates left out. Read as the caller, under row security. Every table is bound
-- to @scopes itself (not through the join to e): on a Citus cluster that is what routes the
-- lateral query to the set's shard ("complex joins are only supported ..." otherwise).
SELECT e.name, array_agg(x.external_id ORDER BY x.at, x.id) AS ids, array_agg(x.text ORDER BY x.at, x.id) AS texts
FROM recall.entities e
CROSS JOIN LATERAL (
  SELECT m.id, m.external_id, m.text, coalesce(m.valid_from, m.occurred_start, m.created_at) AS at
  FROM recall.mentions mn
  JOIN recall.memories m ON m.id = mn.memory_id AND m.scopes = @scopes::text[]
  WHERE mn.entity_id = e.id AND mn.scopes = @scopes::text[] AND NOT mn.speaker AND m.kind <> 'summary'
    AND m.duplicate_of IS NULL
    AND recall.holds(m.valid_from, m.valid_until, m.superseded_by, m.superseded_at, m.expires_at, @now::timestamptz, @now::timestamptz)
  ORDER BY at DESC, m.id DESC
  LIMIT @max::int
) x
WHERE e.scopes = @scopes::text[]
GROUP BY e.id, e.name
HAVING count(*) >= 2
ORDER BY e.name, e.id
