-- A mention carries its memory's scopes, enforced.
--
-- The write path has always stored a mention with its batch's scope set, which is its
-- memory's. The graph and mention lanes now rely on it: a mention visible to the caller names
-- a memory the caller can see, so without filters they read mentions from their covering
-- indexes and skip the memory (at 100k memories the graph lane read 3,178 memory rows per
-- recall for nothing else). A foreign key on (memory_id, scopes) makes the rule hold for every
-- writer, the owner included, and carries a change of a memory's scopes to its mentions. It
-- replaces the foreign key on memory_id alone; memories gain a unique (id, scopes) key for it.
-- Rows that broke the rule, if any, are first given their memory's scopes.

-- +goose Up
UPDATE recall.mentions mn SET scopes = m.scopes
FROM recall.memories m
WHERE m.id = mn.memory_id AND mn.scopes IS DISTINCT FROM m.scopes;
ALTER TABLE recall.memories ADD CONSTRAINT memories_id_scopes_key UNIQUE (id, scopes);
ALTER TABLE recall.mentions
  DROP CONSTRAINT mentions_memory_id_fkey,
  ADD CONSTRAINT mentions_memory_scopes_fkey FOREIGN KEY (memory_id, scopes)
    REFERENCES recall.memories (id, scopes) ON DELETE CASCADE ON UPDATE CASCADE;

-- +goose Down
ALTER TABLE recall.mentions
  DROP CONSTRAINT mentions_memory_scopes_fkey,
  ADD CONSTRAINT mentions_memory_id_fkey FOREIGN KEY (memory_id)
    REFERENCES recall.memories (id) ON DELETE CASCADE;
ALTER TABLE recall.memories DROP CONSTRAINT memories_id_scopes_key;
