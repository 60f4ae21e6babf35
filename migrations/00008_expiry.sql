-- When a memory stops being true or useful (issue 35, expiry): from expires_at on, recall
-- leaves it out (sql/lanes/output.sql drops it where it reads the kept candidates' rows, and
-- never brings it as a neighbour), and `recall prune` deletes it (Engine.Prune, with the
-- summaries that cover it, as a delete does). The partial index serves prune's read of a
-- scope set's expired memories. An expired memory still counts in its scope set's BM25
-- statistics (documents, lengths, document frequencies) until it is pruned: they are its own
-- scope set's, so nothing of another scope shows through them.

-- +goose Up
ALTER TABLE recall.memories ADD COLUMN expires_at timestamptz;
CREATE INDEX memories_expiring_idx ON recall.memories (scope_key, expires_at) WHERE expires_at IS NOT NULL;

-- +goose Down
DROP INDEX recall.memories_expiring_idx;
ALTER TABLE recall.memories DROP COLUMN expires_at;
