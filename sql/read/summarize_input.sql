-- What recall summarize groups, for one scope set, read as the caller: each memory that is
-- not a summary with its source and place (kind 'memory'), each entity it mentions (not as
-- its speaker; kind 'mention', a = memory, b = entity), and each relation between entities
-- of the scope set whose evidence is not a summary (kind 'relation', a = source entity,
-- b = target, w its weight). Entities carry their external ids (kind 'entity'), which
-- name the communities. Every join names the scope set too (a memory's source, mentions and
-- relations are in its own set, migration 00006), so on a Citus cluster the query is joined
-- on the distribution column and goes to the set's shard.
SELECT 'memory' AS kind, m.id AS a, coalesce(m.source_id, 0) AS b, 0::float8 AS w,
       m.external_id AS name, m.text, coalesce(s.external_id, '') AS source, coalesce(m.position, 0) AS position,
       m.occurred_start, m.occurred_end
FROM recall.memories m
LEFT JOIN recall.sources s ON s.id = m.source_id AND s.scopes = m.scopes
WHERE m.scopes = @scopes::text[] AND m.kind <> 'summary'
UNION ALL
SELECT 'mention', mn.memory_id, mn.entity_id, 1, '', '', '', 0, NULL, NULL
FROM recall.mentions mn
JOIN recall.memories m ON m.id = mn.memory_id AND m.scopes = mn.scopes
WHERE mn.scopes = @scopes::text[] AND NOT mn.speaker AND m.kind <> 'summary'
UNION ALL
SELECT 'relation', r.src_id, r.dst_id, r.weight, '', '', '', 0, NULL, NULL
FROM recall.relations r
JOIN recall.entities s ON s.id = r.src_id AND s.scopes = r.scopes
JOIN recall.entities d ON d.id = r.dst_id AND d.scopes = r.scopes
LEFT JOIN recall.memories m ON m.id = r.memory_id AND m.scopes = r.scopes
WHERE r.scopes = @scopes::text[] AND (m.id IS NULL OR m.kind <> 'summary')
UNION ALL
SELECT 'entity', e.id, 0, 0, e.external_id, '', '', 0, NULL, NULL
FROM recall.entities e
WHERE e.scopes = @scopes::text[]
