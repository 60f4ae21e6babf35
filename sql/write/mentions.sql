-- Link memories to entities. @rows is a JSON array of {"m": memory id, "e": entity id}.
INSERT INTO recall.mentions (memory_id, entity_id, scopes)
SELECT r.m, r.e, @scopes::text[]
FROM jsonb_to_recordset(@rows::jsonb) AS r(m bigint, e bigint)
ORDER BY r.m, r.e
ON CONFLICT DO NOTHING
