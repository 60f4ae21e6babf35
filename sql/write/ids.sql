-- Ids of rows of the batch's scope set by external id: @table is 'sources' or 'entities'.
SELECT external_id, id FROM recall.sources WHERE @table::text = 'sources' AND scopes = @scopes::text[] AND external_id = ANY(@ids::text[])
UNION ALL
SELECT external_id, id FROM recall.entities WHERE @table::text = 'entities' AND scopes = @scopes::text[] AND external_id = ANY(@ids::text[])
UNION ALL
SELECT external_id, id FROM recall.memories WHERE @table::text = 'memories' AND scopes = @scopes::text[] AND external_id = ANY(@ids::text[])
