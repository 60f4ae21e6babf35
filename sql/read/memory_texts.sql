-- Memories' external ids and texts by id (aizk-eval: the memories a packed summary covers,
-- read as the owner of an evaluation database).
SELECT id, external_id, text FROM recall.memories WHERE id = ANY(@ids::bigint[])
