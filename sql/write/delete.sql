-- Delete memories of the batch's scope set by external id. Mentions, relations they are
-- evidence for, access rows and BM25 data go with them.
DELETE FROM recall.memories WHERE scopes = @scopes::text[] AND external_id = ANY(@ids::text[])
RETURNING external_id
