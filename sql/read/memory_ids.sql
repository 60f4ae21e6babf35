-- The external ids of a scope set's memories, read as the caller under row security
-- (Engine.MemoryIDs), in id order.
SELECT external_id FROM recall.memories WHERE scopes = @scopes::text[] ORDER BY external_id
