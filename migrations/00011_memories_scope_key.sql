-- Exact vector search for callers who see few memories.
--
-- Under row security an HNSW scan visits the whole graph neighbourhood and discards what the
-- caller cannot see, so a caller who sees 1% of the memories pays for about a hundred times
-- the rows it gets (the vector lane's iterative scan). When the caller sees few memories,
-- reading exactly those and computing every distance is faster and exact. That read needs an
-- index by scope set whose condition is leakproof: = on text[] is not (see 00009), = on the
-- scope set's text key is. The vector lane reads memories by this key, one visible scope set
-- at a time (the scope sets come from recall.bm25_corpus, under row security).
--
-- Adding the stored column rewrites recall.memories under an exclusive lock; plan the upgrade
-- of a large database for it.

-- +goose Up
ALTER TABLE recall.memories
  ADD COLUMN scope_key text GENERATED ALWAYS AS (recall.scope_key(scopes)) STORED;
CREATE INDEX memories_scope_key_idx ON recall.memories (scope_key);

-- +goose Down
ALTER TABLE recall.memories DROP COLUMN scope_key;
