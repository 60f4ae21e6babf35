-- Link memories to entities. @rows is a JSON array of {"m": memory id, "e": entity id, "s":
-- the entity is the memory's speaker}. An entity that both speaks a memory and is named in it
-- is named in it.
INSERT INTO recall.mentions AS x (memory_id, entity_id, scopes, speaker)
SELECT r.m, r.e, @scopes::text[], bool_and(r.s)
FROM jsonb_to_recordset(@rows::jsonb) AS r(m bigint, e bigint, s boolean)
GROUP BY r.m, r.e
ORDER BY r.m, r.e
ON CONFLICT (memory_id, entity_id, scopes) DO UPDATE SET speaker = x.speaker AND excluded.speaker
