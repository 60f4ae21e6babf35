-- Drop extracted entities ('auto:' ids) of the batch's scope set that nothing mentions or
-- relates any more, so a corpus edited in place equals one built fresh from its final state.
-- Links stay in their scope set (migration 00006), so the checks read the set alone: on Citus
-- a subquery must join on the distribution column.
DELETE FROM recall.entities e
WHERE e.scopes = @scopes::text[] AND e.external_id LIKE 'auto:%'
  AND NOT EXISTS (SELECT 1 FROM recall.mentions m WHERE m.scopes = e.scopes AND m.entity_id = e.id)
  AND NOT EXISTS (SELECT 1 FROM recall.relations r WHERE r.scopes = e.scopes AND (r.src_id = e.id OR r.dst_id = e.id))
