-- The GIN index on memories.scopes misled the planner: the row-security predicate
-- (scopes && recall.read_scopes()) is estimated as selective whatever the caller's scopes, so
-- lanes were planned as a bitmap AND of that index (every visible row) with the lane's own
-- index, instead of reading the lane's index in order and stopping after k rows. Measured at
-- 100k memories (synthetic corpus, EXPLAIN ANALYZE): scanning this index for a 99% scope took
-- 7.8 ms of the temporal lane's 25 ms. No lane needs to enumerate a scope's memories without
-- another condition, so the index goes.

-- +goose Up
DROP INDEX recall.memories_scopes_idx;

-- +goose Down
CREATE INDEX memories_scopes_idx ON recall.memories USING gin (scopes);
