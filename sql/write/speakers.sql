-- Speakers are persons: an entity first made from a name in a text becomes one when it
-- speaks. @ids are the batch's speakers' entities.
UPDATE recall.entities SET kind = 'person', updated_at = now()
WHERE id = ANY (@ids::bigint[]) AND kind = ''
