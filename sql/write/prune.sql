-- Batch.Prune: delete the memories of the batch's scope set whose external id starts with
-- @prefix and that the batch did not write (@keep). starts_with, not LIKE: the prefix is
-- the caller's text, and % or _ in it are characters, not patterns.
DELETE FROM recall.memories
WHERE scopes = @scopes::text[] AND starts_with(external_id, @prefix::text) AND external_id <> ALL(@keep::text[])
