-- The names of the entities each of the memories @ids mentions, not as its speaker, by name
-- then entity, as the caller (row security): what the statement's entities column holds
-- (sql/lanes/output.sql), read after a recall for the memories it keeps
-- (statement.EntityNames). Each name by its entity's key (OFFSET 0 keeps the subquery a probe
-- per mention).
SELECT mn.memory_id, e.name
FROM recall.mentions mn
CROSS JOIN LATERAL (SELECT e.id, e.name FROM recall.entities e WHERE e.id = mn.entity_id OFFSET 0) e
WHERE mn.memory_id = ANY (@ids::bigint[]) AND NOT mn.speaker
ORDER BY mn.memory_id, e.name, e.id
