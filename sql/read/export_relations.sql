-- recall export: a scope set's relations, given and derived (co_mentioned), read as the
-- caller under row security: their ends and evidence memory (or '') by external id. Their validity
-- is not read: the writer derives it again from the functional predicates it is given.
SELECT a.external_id AS src, b.external_id AS dst, r.predicate, r.weight, coalesce(m.external_id, '') AS memory
FROM recall.relations r
JOIN recall.entities a ON a.id = r.src_id AND a.scopes = @scopes::text[]
JOIN recall.entities b ON b.id = r.dst_id AND b.scopes = @scopes::text[]
LEFT JOIN recall.memories m ON m.id = r.memory_id AND m.scopes = @scopes::text[]
WHERE r.scopes = @scopes::text[]
ORDER BY r.id
