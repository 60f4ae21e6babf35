-- Upsert relations. @rows is a JSON array of {"src", "dst" (entity ids), "predicate",
-- "weight", "memory" (evidence memory id or null)}; one edge per (ends, predicate, evidence).
INSERT INTO recall.relations AS r (scopes, src_id, dst_id, predicate, weight, memory_id)
SELECT @scopes::text[], x.src, x.dst, x.predicate, x.weight, x.memory
FROM jsonb_to_recordset(@rows::jsonb) AS x(src bigint, dst bigint, predicate text, weight float8, memory bigint)
ORDER BY x.src, x.dst, x.predicate, x.memory
ON CONFLICT (src_id, dst_id, predicate, (coalesce(memory_id, 0)), scopes) DO UPDATE SET weight = excluded.weight
