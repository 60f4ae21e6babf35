-- Speakers are persons: an entity first made from a name in a text becomes one when it
-- speaks. @ids are the batch's speakers' entities, of its scope set; @now the write's time
-- (Citus refuses a non-immutable function where it routes an update).
UPDATE recall.entities SET kind = 'person', updated_at = @now::timestamptz
WHERE scopes = @scopes::text[] AND id = ANY (@ids::bigint[]) AND kind = ''
