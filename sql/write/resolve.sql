-- For each name (lowered), the entity of the batch's scope set whose name or alias equals it;
-- the lowest id when several do. One probe of the keys index for all the names; names with
-- no match are absent.
SELECT DISTINCT ON (k.key) k.key, e.id
FROM recall.entities e, unnest(e.keys) AS k(key)
WHERE e.scopes = @scopes::text[] AND e.keys && @names::text[] AND k.key = ANY(@names::text[])
ORDER BY k.key, e.id
